"""The watcher follows a collection's directory in its own thread: an outside change is
reported with a fresh load, the app's own writes and ``.pigeon/`` are not news, and it stops
when told, leaving no thread behind."""

from __future__ import annotations

import queue
import threading
import time
from pathlib import Path

import pytest

from collection_files import write
from pigeon.model import Collection
from pigeon.store import load_collection, save_request
from pigeon.watch import DiskWatcher

WAIT = 20.0  # a bound for a busy machine, not a speed figure


class Watched:
    """A watcher on ``root`` whose reports land in a queue."""

    def __init__(self, root: Path) -> None:
        self.collection = load_collection(root)
        self.reports: queue.Queue[tuple[Collection, set[Path]]] = queue.Queue()
        self.failures: list[str] = []
        self.watcher = DiskWatcher(
            root,
            lambda: self.collection.seen,
            lambda col, paths, _known: self.reports.put((col, paths)),
            self.failures.append,
        )

    def next(self) -> tuple[Collection, set[Path]]:
        return self.reports.get(timeout=WAIT)


@pytest.fixture(name="root")
def root_fixture(tmp_path: Path) -> Path:
    root = tmp_path / "col"
    write(root, "collection.toml", 'name = "Col"\n')
    write(root, "a.toml", 'name = "A"\nurl = "https://a.test/"\n')
    write(root, "b.toml", 'name = "B"\nurl = "https://b.test/"\n')
    return root


@pytest.fixture(name="watched")
def watched_fixture(root: Path):
    watched = Watched(root)
    watched.watcher.start()
    time.sleep(0.3)  # inotify is set up in the thread; a change before that is not seen
    yield watched
    watched.watcher.stop()
    assert not watched.watcher.running


def test_an_outside_edit_is_reported_with_the_collection_loaded_afresh(
    root: Path, watched: Watched
) -> None:
    write(root, "b.toml", 'name = "B"\nurl = "https://b.test/theirs"\n')
    col, paths = watched.next()
    assert paths == {root / "b.toml"}
    assert {r.name: r.url for r in col.requests()}["B"] == "https://b.test/theirs"
    assert watched.failures == []


def test_the_apps_own_save_and_pigeon_folder_are_not_news(root: Path, watched: Watched) -> None:
    a = watched.collection.requests()[0]
    a.url = "https://a.test/mine"
    save_request(a, seen=watched.collection.seen)  # records what it wrote
    write(root, ".pigeon/history/1.json", "{}")
    time.sleep(1.0)  # the burst is over: the next report is about what follows only
    write(root, "b.toml", 'name = "B"\nurl = "https://b.test/theirs"\n')
    _, paths = watched.next()
    assert paths == {root / "b.toml"}


def test_the_apps_own_environment_files_are_not_news(root: Path) -> None:
    """Made, renamed and deleted by the app: each recorded as it is done, so the watcher does
    not load the collection again for them (a load that could reach the app after its next
    change and undo it in the app's memory)."""
    from pigeon.store import create_environment, delete_environment, rename_environment

    watched = Watched(root)  # not started: ``news`` is asked directly
    col = watched.collection
    envs = root / "environments"
    create_environment(col, "qa")
    assert watched.watcher.news({envs / "qa.toml", envs}) == set()
    rename_environment(col, "qa", "qa-eu")
    assert watched.watcher.news({envs / "qa.toml", envs / "qa-eu.toml"}) == set()
    delete_environment(col, "qa-eu")
    assert watched.watcher.news({envs / "qa-eu.toml"}) == set()
    write(root, "environments/theirs.toml", "[variables]\n")  # one made outside still is
    assert watched.watcher.news({envs / "theirs.toml"}) == {envs / "theirs.toml"}


def test_a_burst_of_changes_is_reported_together(root: Path, watched: Watched) -> None:
    for i in range(30):
        write(root, f"r{i}.toml", f'name = "R{i}"\nurl = "https://r.test/{i}"\n')
    reports = 0
    while True:  # bounded: each wait is, and 30 files make at most 30 reports
        col, _ = watched.next()
        reports += 1
        if len(col.requests()) == 32:
            break
    assert reports <= 3  # one burst, not one reload per file


def test_a_file_gone_and_one_come_with_its_text_in_a_batch_is_a_rename(root: Path) -> None:
    from pigeon.watch import renames

    seen = load_collection(root).seen
    a, b = root / "a.toml", root / "b.toml"
    a.rename(root / "moved.toml")
    write(root, "fresh.toml", 'name = "Fresh"\n')
    paths = {a, root / "moved.toml", root / "fresh.toml"}
    assert renames(seen, paths) == {a: root / "moved.toml"}
    # A new file with another text, or one known file changed, is no rename.
    b.unlink()
    write(root, "other.toml", 'name = "B"\nurl = "https://b.test/changed"\n')
    assert renames(seen, {b, root / "other.toml"}) == {}
    # Two gone files with one text: which went where is not known.
    write(root, "c.toml", 'name = "A"\nurl = "https://a.test/"\n')
    twin_seen = load_collection(root).seen
    (root / "c.toml").unlink()
    (root / "moved.toml").rename(root / "d.toml")
    assert renames(twin_seen, {root / "c.toml", root / "moved.toml", root / "d.toml"}) == {}


def test_stop_ends_the_thread(root: Path) -> None:
    watched = Watched(root)
    watched.watcher.start()
    assert watched.watcher.running
    watched.watcher.stop()
    assert not watched.watcher.running
    assert not [t for t in threading.enumerate() if t.name == "pigeon-watch"]
