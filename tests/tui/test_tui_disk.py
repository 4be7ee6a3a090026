"""The disk is the truth: an outside edit is never lost by a save (the conflict dialog's
answers each do what they say; escape writes nothing), and the app follows the collection's
directory (a ``git checkout`` under the open app, a deleted file, the app's own saves)."""

from __future__ import annotations

import shutil
import subprocess
import threading
import time
from pathlib import Path

import pytest
from textual.widgets import Input
from tui_support import main_screen, paste_url, running, wait_for

from pigeon.model import BrokenFile, Request
from pigeon.store import load_collection
from pigeon.tui.app import PigeonApp
from pigeon.tui.dialogs.changed_on_disk import ChangedOnDiskScreen
from pigeon.tui.dialogs.variable_edit import VariableEditScreen
from pigeon.tui.screens.main import MainScreen
from pigeon.tui.widgets.collection.collection_tree import CollectionTree
from pigeon.tui.widgets.disk_watch import DiskWatch
from pigeon.tui.widgets.variables.variables_pane import VariablesPane

PROMISED = 2.0  # seconds: the tree shows what a checkout brought within this (DESIGN §2)

LIST = "users/list-users"


def notes(app: PigeonApp) -> list[str]:
    return [n.message for n in app._notifications]


def edit_outside(path: Path, old: str, new: str) -> str:
    """What ``sed -i s/old/new/`` does: the file replaced by its edited text."""
    text = path.read_text(encoding="utf-8")
    assert old in text
    text = text.replace(old, new)
    path.write_text(text, encoding="utf-8")
    return text


def tree_ids(app: PigeonApp) -> set[str]:
    tree = main_screen(app).query_one(CollectionTree)
    return {n.data.id for n in tree._all_nodes() if isinstance(n.data, Request)}


async def watching(pilot) -> None:
    """Wait until the watcher is live: a file made outside shows in the tree."""
    screen = main_screen(pilot.app)
    await wait_for(pilot, lambda: screen.disk_watch is not None)
    probe = screen.session.root / "probe.toml"
    probe.write_text('name = "Probe"\nurl = "https://probe.test/"\n', encoding="utf-8")
    await wait_for(pilot, lambda: "probe" in tree_ids(pilot.app))


@pytest.fixture(name="still")
def still_fixture(monkeypatch: pytest.MonkeyPatch) -> None:
    """No watcher: the model stays as loaded, so a save meets the outside edit itself."""
    monkeypatch.setattr(MainScreen, "FOLLOW_DISK", False)


# -- a save meets an outside edit --------------------------------------------------------------


@pytest.mark.parametrize("watch", [True, False], ids=["watching", "still"])
@pytest.mark.parametrize("answer", ["escape", "r", "k", "b"])
async def test_a_request_edited_outside_is_never_lost_by_a_save(
    app: PigeonApp, collection: Path, monkeypatch: pytest.MonkeyPatch, watch: bool, answer: str
) -> None:
    monkeypatch.setattr(MainScreen, "FOLLOW_DISK", watch)
    file = collection / "users" / "list-users.toml"
    async with running(app, LIST) as pilot:
        screen = main_screen(app)
        editor = screen.editor
        await paste_url(pilot, "{{base_url}}/mine")
        theirs = edit_outside(file, "{{base_url}}/{{resource}}", "{{base_url}}/theirs")
        if watch:  # the watcher noticed: the edits stay, the file is marked changed
            await wait_for(pilot, lambda: any("changed on disk" in n for n in notes(app)))
            assert editor.dirty and editor.request.url == "{{base_url}}/mine"
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: isinstance(app.screen, ChangedOnDiskScreen))
        await pilot.press(answer)
        await wait_for(pilot, lambda: isinstance(app.screen, MainScreen))
        await pilot.pause()
        mine_copy = collection / "users" / "list-users.toml.mine"
        if answer == "escape":  # nothing written, the edits kept
            assert file.read_text(encoding="utf-8") == theirs
            assert editor.dirty and editor.request.url == "{{base_url}}/mine"
        elif answer == "r":  # theirs: the disk's version in the editor
            assert file.read_text(encoding="utf-8") == theirs
            assert not editor.dirty and editor.request.url.startswith("{{base_url}}/theirs")
        elif answer == "k":  # mine, knowingly
            assert 'url = "{{base_url}}/mine"' in file.read_text(encoding="utf-8")
            assert not editor.dirty and editor.saved.path == file
        else:  # mine beside theirs, a conflict in the tree, and theirs open
            assert file.read_text(encoding="utf-8") == theirs
            assert 'url = "{{base_url}}/mine"' in mine_copy.read_text(encoding="utf-8")
            assert tree_ids(app) == {r.id for r in load_collection(collection).requests()}
            tree = main_screen(app).query_one(CollectionTree)
            flagged = [n.data for n in tree._all_nodes() if isinstance(n.data, BrokenFile)]
            assert mine_copy in [b.path for b in flagged]
            assert editor.saved.path == file and not editor.dirty
            assert editor.request.url.startswith("{{base_url}}/theirs")
        if answer != "b":
            assert not mine_copy.exists()
        assert isinstance(app.screen, MainScreen)  # one question, not two


async def open_collection_variable(pilot, name: str) -> VariableEditScreen:
    pane = main_screen(pilot.app).query_one(VariablesPane)
    pane.focus()
    await wait_for(pilot, lambda: name in pane.rows)
    node = next(n for n in pane.root.children if n.data is not None and n.data.name == name)
    pane.move_cursor(node)
    await pilot.pause()
    await pilot.press("e")
    await wait_for(pilot, lambda: isinstance(pilot.app.screen, VariableEditScreen))
    return pilot.app.screen


@pytest.mark.parametrize("answer", ["escape", "r", "k", "b"])
async def test_a_variable_saved_into_an_edited_collection_file_asks_first(
    app: PigeonApp, collection: Path, still: None, answer: str
) -> None:
    file = collection / "collection.toml"
    async with running(app, LIST) as pilot:
        await open_collection_variable(pilot, "count")
        theirs = edit_outside(file, 'greeting = "Hello from Pigeon"', 'greeting = "theirs"')
        await pilot.press("ctrl+u", *"7", "enter")
        await wait_for(pilot, lambda: isinstance(app.screen, ChangedOnDiskScreen))
        assert file.read_text(encoding="utf-8") == theirs  # asked before writing
        await pilot.press(answer)
        await wait_for(pilot, lambda: isinstance(app.screen, MainScreen))
        await pilot.pause()
        variables = app.session.collection.variables
        on_disk = load_collection(collection).variables
        beside = collection / "collection.toml.mine"
        if answer == "escape":
            assert file.read_text(encoding="utf-8") == theirs and variables["count"] == 42
        elif answer == "r":
            assert file.read_text(encoding="utf-8") == theirs
            assert (variables["count"], variables["greeting"]) == (42, "theirs")
        elif answer == "k":
            assert (on_disk["count"], variables["count"]) == (7, 7)
        else:
            assert file.read_text(encoding="utf-8") == theirs
            assert "count = 7" in beside.read_text(encoding="utf-8")
            assert variables["greeting"] == "theirs"
        if answer != "b":
            assert not beside.exists()


# -- following the disk ------------------------------------------------------------------------


def git(root: Path, *args: str) -> None:
    subprocess.run(
        [
            "git",
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t",
            "-c",
            "init.defaultBranch=main",
            *args,
        ],
        cwd=root,
        check=True,
        capture_output=True,
        timeout=60,
    )


@pytest.mark.skipif(shutil.which("git") is None, reason="needs the git command")
async def test_git_checkout_under_the_open_app_shows_the_other_branch(
    app: PigeonApp, collection: Path
) -> None:
    git(collection, "init", "-q")
    git(collection, "add", "-A")
    git(collection, "commit", "-qm", "one")
    git(collection, "checkout", "-qb", "other")
    edit_outside(
        collection / "users" / "list-users.toml", "{{base_url}}/{{resource}}", "{{base_url}}/v2"
    )
    (collection / "users" / "archive.toml").write_text(
        'name = "Archive"\nurl = "https://a.test/"\n', encoding="utf-8"
    )
    git(collection, "add", "-A")
    git(collection, "commit", "-qm", "two")
    git(collection, "checkout", "-q", "main")
    async with running(app, LIST) as pilot:
        editor = main_screen(app).editor
        assert editor.request.url == "{{base_url}}/{{resource}}"
        await watching(pilot)
        git(collection, "checkout", "-q", "other")
        checked_out = time.monotonic()
        await wait_for(
            pilot,
            lambda: (
                "users/archive" in tree_ids(app)
                and editor.request is not None
                and editor.request.url.startswith("{{base_url}}/v2")
            ),
            timeout=PROMISED,
        )
        assert time.monotonic() - checked_out < PROMISED
        assert not editor.dirty
        # The notice follows the reload by a step of the app's loop.
        await wait_for(
            pilot, lambda: any("list-users.toml changed on disk: reloaded" in n for n in notes(app))
        )
        tree = main_screen(app).query_one(CollectionTree)
        assert tree.cursor_node is not None and getattr(tree.cursor_node.data, "id", "") == LIST


async def test_the_apps_own_save_is_not_news(app: PigeonApp, collection: Path) -> None:
    async with running(app, LIST) as pilot:
        await watching(pilot)
        await paste_url(pilot, "{{base_url}}/saved")
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: any(n.startswith("Saved") for n in notes(app)))
        await pilot.pause(1.5)  # past the watcher's burst
        # A change after it: once the tree shows it, the watcher has seen the save too.
        (collection / "later.toml").write_text('name = "Later"\nurl = "x"\n', encoding="utf-8")
        await wait_for(pilot, lambda: "later" in tree_ids(app))
        assert not [n for n in notes(app) if "on disk" in n]
        assert main_screen(app).editor.request.url == "{{base_url}}/saved"


async def test_a_load_begun_before_the_apps_own_write_is_not_taken_over_it(
    app: PigeonApp, collection: Path, still: None
) -> None:
    """The watcher read the disk; before its load reached the app, the app made an environment
    and chose it. Taken as it was, the load (which lacks it) unset the environment in use:
    the app reads the disk again instead."""
    from pigeon.store import create_environment

    async with running(app, LIST) as pilot:
        session = app.session
        known = dict(session.collection.seen)
        stale = load_collection(collection)  # read before the app's own write
        create_environment(session.collection, "qa")
        session.choose_environment("qa")
        before = session.collection
        path = collection / "environments" / "qa.toml"
        main_screen(app).post_message(DiskWatch.Changed(stale, {path}, known))
        await wait_for(pilot, lambda: session.collection is not before)
        assert session.collection is not stale
        assert "qa" in session.collection.environments and session.environment == "qa"


async def test_unsaved_edits_are_not_replaced_by_a_reload(app: PigeonApp, collection: Path) -> None:
    file = collection / "users" / "list-users.toml"
    async with running(app, LIST) as pilot:
        editor = main_screen(app).editor
        await watching(pilot)
        await paste_url(pilot, "{{base_url}}/mine")
        edit_outside(file, "{{base_url}}/{{resource}}", "{{base_url}}/theirs")
        await wait_for(
            pilot,
            lambda: "list-users.toml changed on disk: your unsaved edits are kept." in notes(app),
        )
        assert editor.dirty and editor.request.url == "{{base_url}}/mine"
        assert app.screen.query_one("#url", Input).value == "{{base_url}}/mine"
        assert app.session.saved_request(editor.request).url.startswith("{{base_url}}/theirs")


@pytest.mark.parametrize("answer", ["w", "d"], ids=["write-again", "drop"])
async def test_a_request_deleted_while_open_is_kept_unsaved(
    app: PigeonApp, collection: Path, answer: str
) -> None:
    file = collection / "users" / "list-users.toml"
    async with running(app, LIST) as pilot:
        editor = main_screen(app).editor
        url = editor.request.url
        await watching(pilot)
        file.unlink()
        await wait_for(pilot, lambda: LIST not in tree_ids(app))
        # A notice reaches the app as a message of its own, after the tree is rebuilt.
        deleted = "list-users.toml was deleted on disk: yours is kept unsaved."
        await wait_for(pilot, lambda: deleted in notes(app))
        assert editor.dirty and editor.request.url == url
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: isinstance(app.screen, ChangedOnDiskScreen))
        assert app.screen._deleted
        await pilot.press(answer)
        if answer == "w":
            await wait_for(pilot, lambda: LIST in tree_ids(app))
            assert not editor.dirty and load_collection(collection).find(LIST)[1].url == url
        else:
            await wait_for(pilot, lambda: editor.request is None)
            assert not file.exists() and LIST not in tree_ids(app)


@pytest.mark.parametrize("dirty", [True, False], ids=["edited", "saved"])
async def test_a_request_renamed_on_disk_while_open_is_followed(
    app: PigeonApp, collection: Path, dirty: bool
) -> None:
    old = collection / "users" / "list-users.toml"
    new = collection / "users" / "all-users.toml"
    async with running(app, LIST) as pilot:
        editor = main_screen(app).editor
        await watching(pilot)
        if dirty:
            await paste_url(pilot, "{{base_url}}/mine")
        old.rename(new)  # as git mv does
        await wait_for(pilot, lambda: "users/all-users" in tree_ids(app))
        assert LIST not in tree_ids(app)
        assert editor.saved.path == new and editor.request.path == new
        assert editor.request.id == "users/all-users"
        assert editor.dirty is dirty
        await pilot.pause()  # a notice the reload gave would be in by now
        assert not any("deleted on disk" in n for n in notes(app))
        if dirty:
            await pilot.press("ctrl+s")
            await wait_for(pilot, lambda: not editor.dirty)
            assert not isinstance(app.screen, ChangedOnDiskScreen)
            assert 'url = "{{base_url}}/mine"' in new.read_text(encoding="utf-8")
        await pilot.pause()
    assert not old.exists()  # never written again beside the renamed file


async def test_a_broken_file_that_appears_is_marked(app: PigeonApp, collection: Path) -> None:
    async with running(app, LIST) as pilot:
        await watching(pilot)
        (collection / "users" / "bad.toml").write_text("name = \n", encoding="utf-8")
        tree = main_screen(app).query_one(CollectionTree)
        await wait_for(
            pilot,
            lambda: any(
                isinstance(n.data, BrokenFile) and n.data.path.name == "bad.toml"
                for n in tree._all_nodes()
            ),
        )
        assert main_screen(app).editor.request.id == LIST  # the open request stays


async def test_the_watcher_stops_with_the_app(app: PigeonApp) -> None:
    async with running(app) as pilot:
        screen = main_screen(app)
        await wait_for(pilot, lambda: screen.disk_watch is not None)
        watch = screen.disk_watch
        assert watch is not None and watch.watcher is not None and watch.watcher.running
    assert not watch.watcher.running
    assert not [t for t in threading.enumerate() if t.name == "pigeon-watch"]


async def test_an_open_request_broken_on_disk_is_kept_and_never_overwritten(
    app: PigeonApp, collection: Path
) -> None:
    file = collection / "users" / "list-users.toml"
    async with running(app, LIST) as pilot:
        editor = main_screen(app).editor
        await watching(pilot)
        file.write_text("name = 'half typed\n", encoding="utf-8")
        await wait_for(pilot, lambda: LIST not in tree_ids(app))
        broken = "list-users.toml no longer loads: yours is kept unsaved."
        await wait_for(pilot, lambda: broken in notes(app))  # its notice comes after the tree
        assert editor.dirty and editor.request is not None
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: any("does not load" in n for n in notes(app)))
        assert file.read_text(encoding="utf-8") == "name = 'half typed\n"
