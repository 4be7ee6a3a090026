"""A file changed on disk since it was read is never overwritten unknowingly: a save given the
collection's ``seen`` map refuses with ``ChangedOnDisk``; ``force`` overwrites; the headless
rules (no map) are unchanged."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from collection_files import write
from pigeon.store import (
    ChangedOnDisk,
    SaveError,
    create_request,
    load_collection,
    move_request,
    rename_request,
    save_collection_file,
    save_environment,
    save_folder_file,
    save_request,
    write_beside,
)

REQUEST = 'name = "List"\nmethod = "GET"\nurl = "https://example.test/a"  # mine\n'


@pytest.fixture(name="root")
def root_fixture(tmp_path: Path) -> Path:
    root = tmp_path / "col"
    write(root, "collection.toml", 'name = "Col"\n\n[variables]\nhost = "a"\n')
    write(root, "environments/dev.toml", '[variables]\nhost = "dev"\n')
    write(root, "users/folder.toml", 'name = "Users"\n')
    write(root, "users/list.toml", REQUEST)
    return root


def test_an_outside_edit_between_load_and_save_is_refused_and_kept(root: Path) -> None:
    col = load_collection(root)
    req = col.requests()[0]
    outside = REQUEST.replace("/a", "/theirs")
    write(root, "users/list.toml", outside)
    req.url = "https://example.test/mine"
    with pytest.raises(ChangedOnDisk) as caught:
        save_request(req, seen=col.seen)
    assert caught.value.path == req.path and not caught.value.deleted
    assert "changed on disk" in str(caught.value) and isinstance(caught.value, SaveError)
    assert req.path.read_text(encoding="utf-8") == outside


def test_force_overwrites_knowingly_and_the_next_save_does_not_ask(root: Path) -> None:
    col = load_collection(root)
    req = col.requests()[0]
    write(root, "users/list.toml", REQUEST.replace("/a", "/theirs"))
    req.url = "https://example.test/mine"
    save_request(req, seen=col.seen, force=True)
    assert 'url = "https://example.test/mine"' in req.path.read_text(encoding="utf-8")
    req.method = "POST"
    save_request(req, seen=col.seen)  # what the app wrote is what it knows now
    assert 'method = "POST"' in req.path.read_text(encoding="utf-8")


def test_a_file_deleted_on_disk_is_not_written_again_without_force(root: Path) -> None:
    col = load_collection(root)
    req = col.requests()[0]
    req.path.unlink()
    with pytest.raises(ChangedOnDisk) as caught:
        save_request(req, seen=col.seen)
    assert caught.value.deleted and "deleted on disk" in str(caught.value)
    assert not req.path.exists()
    save_request(req, seen=col.seen, force=True)
    assert req.path.exists()


def test_an_unchanged_save_writes_nothing(root: Path) -> None:
    col = load_collection(root)
    req = col.requests()[0]
    before = os.stat(req.path)
    save_request(req, seen=col.seen)
    after = os.stat(req.path)
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)
    assert req.path.read_text(encoding="utf-8") == REQUEST


def test_headless_saves_keep_their_rules(root: Path) -> None:
    """Without the map (``pigeon import``, the command line) an outside edit is merged into
    as before: the save writes its own difference into the file's text."""
    col = load_collection(root)
    req = col.requests()[0]
    write(root, "users/list.toml", "# a comment\n" + REQUEST)
    req.method = "PUT"
    save_request(req)
    text = req.path.read_text(encoding="utf-8")
    assert text.startswith("# a comment\n") and 'method = "PUT"' in text


@pytest.mark.parametrize(
    ("rel", "save"),
    [
        ("collection.toml", lambda col: save_collection_file(col, seen=col.seen)),
        (
            "environments/dev.toml",
            lambda col: save_environment(col.environments["dev"], seen=col.seen),
        ),
        ("users/folder.toml", lambda col: save_folder_file(col.items[0], seen=col.seen)),
    ],
    ids=["collection", "environment", "folder"],
)
def test_variable_files_are_checked_too(root: Path, rel: str, save) -> None:
    col = load_collection(root)
    theirs = (root / rel).read_text(encoding="utf-8") + "# theirs\n"
    write(root, rel, theirs)
    col.variables["x"] = 1
    col.environments["dev"].variables["x"] = 1
    col.items[0].variables["x"] = 1
    with pytest.raises(ChangedOnDisk):
        save(col)
    assert (root / rel).read_text(encoding="utf-8") == theirs


def test_write_beside_takes_a_free_name_and_never_replaces(root: Path) -> None:
    target = root / "users" / "list.toml"
    first = write_beside(target, "one")
    second = write_beside(target, "two")
    assert (first.name, second.name) == ("list.toml.mine", "list.toml.mine-2")
    assert first.read_text(encoding="utf-8") == "one"
    assert target.read_text(encoding="utf-8") == REQUEST
    assert write_beside(root / "collection.toml", "x").name == "collection.toml.mine"


def test_a_copy_saved_beside_is_no_request_but_a_conflict_the_store_lists(root: Path) -> None:
    """The copy is the user's version of a file that changed on disk: not a request until it
    is merged, so it never shows under the same name nor goes out in a run."""
    write_beside(root / "users" / "list.toml", REQUEST.replace("/a", "/mine"))
    write_beside(root / "users" / "list.toml", REQUEST.replace("/a", "/mine-too"))
    write_beside(root / "collection.toml", 'name = "Mine"\n')
    write_beside(root / "environments" / "dev.toml", '[variables]\nhost = "mine"\n')
    col = load_collection(root)
    assert [r.path.name for r in col.requests()] == ["list.toml"]
    assert [r.url for r in col.requests()] == ["https://example.test/a"]
    assert col.name == "Col" and list(col.environments) == ["dev"]
    conflicts = {b.path.relative_to(root).as_posix(): b for b in col.broken}
    assert set(conflicts) == {
        "users/list.toml.mine",
        "users/list.toml.mine-2",
        "collection.toml.mine",
        "environments/dev.toml.mine",
    }
    mine = conflicts["users/list.toml.mine"]
    assert mine.skipped and "conflict" in mine.message and "list.toml" in mine.message


def ordered_root(root: Path) -> Path:
    write(root, "collection.toml", 'name = "Col"\norder = ["users", "top"]\n')
    write(root, "top.toml", 'name = "Top"\nurl = "https://t.test/"\n')
    return root


def test_the_tree_commands_record_what_they_write_and_move(root: Path) -> None:
    col = load_collection(ordered_root(root))
    top = next(r for r in col.requests() if r.name == "Top")
    rename_request(col, top, "Renamed")  # writes the file and the collection's order list
    move_request(col, top, col.items[0])
    created = create_request(col, None, "New")
    for req in (top, created):
        req.url = "https://t.test/mine"
        save_request(req, seen=col.seen)  # none of those writes is taken for an outside edit
    col.variables["x"] = 1
    save_collection_file(col, seen=col.seen)
    assert load_collection(root).variables["x"] == 1


def test_a_moved_file_is_still_checked_where_it_went(root: Path) -> None:
    col = load_collection(root)
    req = col.requests()[0]
    move_request(col, req, None)
    write(root, "list.toml", 'name = "Theirs"\nurl = "https://t.test/"\n')
    req.url = "https://t.test/mine"
    with pytest.raises(ChangedOnDisk):
        save_request(req, seen=col.seen)


def test_an_outside_edit_merged_by_a_tree_command_stays_news(root: Path) -> None:
    col = load_collection(ordered_root(root))
    theirs = (root / "collection.toml").read_text(encoding="utf-8") + "[variables]\nx = 2\n"
    write(root, "collection.toml", theirs)
    rename_request(col, next(r for r in col.requests() if r.name == "Top"), "Renamed")
    assert "x = 2" in (root / "collection.toml").read_text(encoding="utf-8")  # merged, kept
    col.variables["y"] = 1
    with pytest.raises(ChangedOnDisk):  # the model does not know x: saving it would lose it
        save_collection_file(col, seen=col.seen)
