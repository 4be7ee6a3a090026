"""Creating, renaming, duplicating, moving and deleting requests and folders."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from store_support import DEMO, FULL_REQUEST, temp_files  # noqa: F401

from collection_files import write
from pigeon.model import (
    Request,
)
from pigeon.store import (
    SaveError,
    add_request,
    create_folder,
    create_request,
    delete_environment,
    delete_folder,
    delete_request,
    duplicate_folder,
    duplicate_request,
    folder_contents,
    load_collection,
    move_folder,
    move_request,
    rename_environment,
    rename_folder,
    rename_request,
    slugify,
)

# -- file helpers ----------------------------------------------------------------------------


def test_slugify() -> None:
    assert slugify("Create User!") == "create-user"
    assert slugify("  Ünïcödé  name ") == "unicode-name"
    assert slugify("???") == ""


def test_create_request_never_overwrites(col: Path) -> None:
    loaded = load_collection(col)
    folder = loaded.find_folder("users")
    existing = write(col, "users/new-thing.toml", 'name = "Already here"\n')
    req = create_request(loaded, folder, "New thing", method="POST")
    assert req.path == col / "users/new-thing-2.toml" and req.id == "users/new-thing-2"
    assert existing.read_text() == 'name = "Already here"\n'
    assert req in folder.items
    assert load_collection(col).find("users/new-thing-2")[1].method == "POST"
    reserved = create_request(loaded, None, "Collection")
    assert reserved.path.name == "collection-2.toml"
    assert (col / "collection.toml").read_text().startswith('name = "Test"')
    top = create_request(loaded, None, "Users")  # a folder of that name exists
    assert top.path.name == "users-2.toml"


def test_create_folder_and_delete_request(col: Path) -> None:
    loaded = load_collection(col)
    folder = create_folder(loaded, None, "Admin Tools")
    assert folder.path == col / "admin-tools" and (folder.path / "folder.toml").is_file()
    inner = create_request(loaded, folder, "Reset")
    reloaded = load_collection(col)
    assert reloaded.find_folder("admin-tools").name == "Admin Tools"
    assert reloaded.find("admin-tools/reset") is not None
    again = create_folder(loaded, None, "Admin tools")
    assert again.path.name == "admin-tools-2"
    delete_request(loaded, inner)
    assert not inner.path.exists() and inner not in folder.items
    assert load_collection(col).find("admin-tools/reset") is None


def test_rename_request_keeps_unsaved_edits_unsaved_and_never_overwrites(col: Path) -> None:
    write(col, "collection.toml", 'name = "Test"\norder = ["users", "ping"]\n')
    loaded = load_collection(col)
    taken = write(col, "pong.toml", 'name = "Taken"\n')
    loaded = load_collection(col)
    ping = loaded.find("ping")[1]
    ping.url = "unsaved edit"
    rename_request(loaded, ping, "Pong")
    assert ping.path == col / "pong-2.toml" and ping.id == "pong-2" and ping.name == "Pong"
    assert not (col / "ping.toml").exists() and taken.read_text() == 'name = "Taken"\n'
    on_disk = load_collection(col)
    assert on_disk.find("pong-2")[1].url == "{{base_url}}/ping"
    assert on_disk.order == ["users", "pong-2"]
    assert [getattr(i, "id", None) for i in on_disk.items][:2] == ["users", "pong-2"]
    # Renaming to a name with the same slug only rewrites the name.
    rename_request(loaded, ping, "PONG 2")
    assert ping.path == col / "pong-2.toml"
    assert load_collection(col).find("pong-2")[1].name == "PONG 2"


def test_rename_of_a_request_never_saved_writes_it_under_the_new_name(col: Path) -> None:
    loaded = load_collection(col)
    req = Request(name="Draft", url="u", path=col / "draft.toml", id="draft")
    loaded.items.append(req)
    rename_request(loaded, req, "Final")
    assert req.path == col / "final.toml" and req.id == "final"
    assert load_collection(col).find("final")[1].url == "u" and not (col / "draft.toml").exists()


def test_rename_refuses_when_the_file_on_disk_is_broken(col: Path) -> None:
    loaded = load_collection(col)
    ping = loaded.find("ping")[1]
    ping.path.write_text("name = \n")
    with pytest.raises(SaveError, match="not renamed"):
        rename_request(loaded, ping, "Pong")
    assert ping.path.read_text() == "name = \n" and not (col / "pong.toml").exists()


def test_move_request_between_folders(col: Path) -> None:
    write(col, "users/ping.toml", 'name = "Other ping"\n')
    loaded = load_collection(col)
    users = loaded.find_folder("users")
    ping = loaded.find("ping")[1]
    move_request(loaded, ping, users)
    assert ping.path == col / "users/ping-2.toml" and ping.id == "users/ping-2"
    assert (col / "users/ping.toml").read_text() == 'name = "Other ping"\n'
    assert not (col / "ping.toml").exists() and ping in users.items
    assert ping not in loaded.items
    reloaded = load_collection(col)
    assert reloaded.find("users/ping-2")[1].name == "Ping"
    move_request(loaded, ping, None)  # the stem it has now is free at the top level
    assert ping.path == col / "ping-2.toml" and load_collection(col).find("ping-2") is not None


# A collection and a folder file with comments and an order list: every request operation
# edits ``order`` where it stands and leaves every other line as it was.
COMMENTED_COLLECTION = """\
# The test API.
name = "Test"  # shown in the tree
order = ["users", "ping", "zeta"]  # by hand

[variables]
base_url = "http://127.0.0.1:9"  # the echo server
"""
COMMENTED_FOLDER = """\
# Everything about users.
name = "Users"
order = ["create", "list"]  # the usual flow
"""


@pytest.fixture(name="commented")
def commented_fixture(col: Path) -> Path:
    write(col, "collection.toml", COMMENTED_COLLECTION)
    write(col, "users/folder.toml", COMMENTED_FOLDER)
    write(col, "users/list.toml", 'name = "List"\n')
    write(col, "zeta.toml", 'name = "Zeta"\n')
    return col


def with_order(text: str, old: str, new: str) -> str:
    """``text`` with only its order line's list changed."""
    assert text.count(old) == 1
    return text.replace(old, new)


def test_rename_request_edits_the_order_and_its_file_in_place(commented: Path) -> None:
    col = commented
    write(col, "ping.toml", '# Health check.\nname = "Ping"  # short\nurl = "{{base_url}}/p"\n')
    loaded = load_collection(col)
    rename_request(loaded, loaded.find("ping")[1], "Pong")
    assert (col / "collection.toml").read_text() == with_order(
        COMMENTED_COLLECTION, '"users", "ping", "zeta"', '"users", "pong", "zeta"'
    )
    assert (col / "pong.toml").read_text() == (
        '# Health check.\nname = "Pong"  # short\nurl = "{{base_url}}/p"\n'
    )
    assert loaded.order == ["users", "pong", "zeta"] == load_collection(col).order
    users = loaded.find_folder("users")
    rename_request(loaded, users.items[0], "Make")
    assert users.items[0].path == col / "users/make.toml"
    assert (col / "users/folder.toml").read_text() == with_order(
        COMMENTED_FOLDER, '"create", "list"', '"make", "list"'
    )
    assert [r.id for r in load_collection(col).find_folder("users").items] == [
        "users/make",
        "users/list",
    ]


def test_rename_request_keeps_the_form_of_its_entry_and_a_folder_of_the_same_stem(
    col: Path,
) -> None:
    write(col, "collection.toml", '# c\norder = ["users", "ping.toml"]  # o\n')
    write(col, "users.toml", 'name = "Users request"\n')
    loaded = load_collection(col)
    rename_request(loaded, loaded.find("ping")[1], "Pong")
    rename_request(loaded, loaded.find("users")[1], "Accounts")
    # "users" also places the folder users/: it stays, the request's new entry follows it.
    assert (col / "collection.toml").read_text() == (
        '# c\norder = ["users", "accounts", "pong.toml"]  # o\n'
    )
    assert [getattr(i, "id", None) for i in load_collection(col).items] == [
        "users",
        "accounts",
        "pong",
    ]


def test_move_request_updates_both_orders_in_place(commented: Path) -> None:
    col = commented
    write(col, "admin/folder.toml", "# no order here\n")
    loaded = load_collection(col)
    users = loaded.find_folder("users")
    create = users.items[0]
    move_request(loaded, create, None)
    assert (col / "users/folder.toml").read_text() == with_order(
        COMMENTED_FOLDER, '"create", "list"', '"list"'
    )
    assert (col / "collection.toml").read_text() == with_order(
        COMMENTED_COLLECTION, '"users", "ping", "zeta"', '"users", "ping", "zeta", "create"'
    )
    assert users.order == ["list"] and loaded.order == ["users", "ping", "zeta", "create"]
    reloaded = load_collection(col)
    assert [getattr(i, "id", None) for i in reloaded.items] == [
        "users",
        "ping",
        "zeta",
        "create",
        "admin",
    ]
    # Into a folder without an order list: none is started, and its file is left alone.
    move_request(loaded, create, loaded.find_folder("admin"))
    assert (col / "admin/folder.toml").read_text() == "# no order here\n"
    assert load_collection(col).order == ["users", "ping", "zeta"]
    # A name left over in the new list, for a file no longer there, does not place it first.
    write(col, "users/folder.toml", '# Users\norder = ["create", "list"]\n')
    loaded = load_collection(col)
    move_request(loaded, loaded.find("admin/create")[1], loaded.find_folder("users"))
    move_request(loaded, loaded.find("ping")[1], loaded.find_folder("users"))
    assert (
        col / "users/folder.toml"
    ).read_text() == '# Users\norder = ["list", "create", "ping"]\n'
    assert load_collection(col).order == ["users", "zeta"]


def test_duplicate_request_copies_its_file_and_lists_the_copy_after_it(commented: Path) -> None:
    col = commented
    original = '# Health check.\nname = "Ping"  # short\nurl = "{{base_url}}/p"\n'
    write(col, "ping.toml", original)
    write(col, "ping-copy.toml", 'name = "Ping copy"\n')  # its name and its file are taken
    loaded = load_collection(col)
    ping = loaded.find("ping")[1]
    copied = duplicate_request(loaded, ping)
    assert copied.name == "Ping copy 2" and copied.path == col / "ping-copy-2.toml"
    assert copied.id == "ping-copy-2" and copied in loaded.items
    assert copied.path.read_text() == original.replace('"Ping"', '"Ping copy 2"')
    assert (col / "ping.toml").read_text() == original
    assert (col / "ping-copy.toml").read_text() == 'name = "Ping copy"\n'
    assert (col / "collection.toml").read_text() == with_order(
        COMMENTED_COLLECTION, '"users", "ping", "zeta"', '"users", "ping", "ping-copy-2", "zeta"'
    )
    assert [getattr(i, "id", None) for i in loaded.items][:4] == [
        "users",
        "ping",
        "ping-copy-2",
        "zeta",
    ]
    # A request the order does not list: the copy is not listed either.
    users = loaded.find_folder("users")
    write(col, "users/other.toml", 'name = "Other"\n')
    other = load_collection(col).find("users/other")[1]
    users.items.append(other)
    duplicate_request(loaded, other)
    assert (col / "users/folder.toml").read_text() == COMMENTED_FOLDER
    assert load_collection(col).find("users/other-copy")[1].name == "Other copy"


def test_delete_request_forgets_it_in_the_order_in_place(commented: Path) -> None:
    col = commented
    loaded = load_collection(col)
    delete_request(loaded, loaded.find("ping")[1])
    assert (col / "collection.toml").read_text() == with_order(
        COMMENTED_COLLECTION, '"users", "ping", "zeta"', '"users", "zeta"'
    )
    assert loaded.order == ["users", "zeta"]
    # A folder file that no longer loads is never rewritten: the request stays.
    (col / "users/folder.toml").write_text("order = \n")
    create = loaded.find("users/create")[1]
    with pytest.raises(SaveError, match="not deleted"):
        delete_request(loaded, create)
    assert create.path.is_file() and (col / "users/folder.toml").read_text() == "order = \n"


def test_request_operations_refuse_a_broken_order_file_before_changing_anything(
    commented: Path,
) -> None:
    col = commented
    loaded = load_collection(col)
    ping = loaded.find("ping")[1]
    (col / "collection.toml").write_text("name = \n")
    with pytest.raises(SaveError, match="not renamed"):
        rename_request(loaded, ping, "Pong")
    with pytest.raises(SaveError, match="not moved"):
        move_request(loaded, ping, loaded.find_folder("users"))
    with pytest.raises(SaveError, match="not duplicated"):
        duplicate_request(loaded, ping)
    assert sorted(p.name for p in col.glob("*.toml")) == [
        "collection.toml",
        "ping.toml",
        "zeta.toml",
    ]
    assert ping.path == col / "ping.toml" and not (col / "users/ping.toml").exists()
    assert (col / "collection.toml").read_text() == "name = \n"


# -- folder helpers --------------------------------------------------------------------------


def files_under(directory: Path) -> dict[str, bytes]:
    return {
        p.relative_to(directory).as_posix(): p.read_bytes()
        for p in sorted(directory.rglob("*"))
        if p.is_file()
    }


def hidden_leftovers(directory: Path) -> list[str]:
    return [p.name for p in directory.iterdir() if p.name.startswith(".")]


def test_rename_folder_renames_its_directory_and_edits_files_in_place(col: Path) -> None:
    write(
        col, "collection.toml", '# the API\nname = "Test"\norder = [\n  "users/",\n  "ping",\n]\n'
    )
    write(col, "users/folder.toml", '# kept\nname = "Users"  # kept too\n[variables]\nx = 1\n')
    loaded = load_collection(col)
    users = loaded.find_folder("users")
    rename_folder(loaded, users, "People")
    assert users.path == col / "people" and users.id == "people" and users.name == "People"
    assert [r.id for r in users.items] == ["people/create"]
    assert users.items[0].path == col / "people/create.toml"
    assert not (col / "users").exists()
    assert (col / "people/folder.toml").read_text() == (
        '# kept\nname = "People"  # kept too\n[variables]\nx = 1\n'
    )
    assert (col / "collection.toml").read_text() == (  # a multi-line list stays one
        '# the API\nname = "Test"\norder = [\n  "people",\n  "ping",\n]\n'
    )
    reloaded = load_collection(col)
    assert reloaded.order == loaded.order == ["people", "ping"]
    assert reloaded.find_folder("people").variables == {"x": 1}
    assert [getattr(i, "id", None) for i in reloaded.items] == ["people", "ping"]
    # A name with the same slug keeps the directory; a taken one gets a free name.
    rename_folder(loaded, users, "PEOPLE")
    assert users.path == col / "people" and load_collection(col).find_folder("people").name == (
        "PEOPLE"
    )
    taken = write(col, "team/keep.toml", 'name = "Keep"\n')
    rename_folder(loaded, users, "Team")
    assert users.path == col / "team-2" and taken.read_text() == 'name = "Keep"\n'
    assert load_collection(col).order == ["team-2", "ping"]
    rename_folder(loaded, users, "TEAM")  # "team" still taken: "team-2" is right as it is
    assert users.path == col / "team-2"
    shutil.rmtree(col / "team")
    rename_folder(loaded, users, "Team")  # now free: the suffix goes
    assert users.path == col / "team" and load_collection(col).order == ["team", "ping"]


def test_rename_folder_keeps_a_directory_not_named_after_it(col: Path) -> None:
    write(col, "legacy_v1/folder.toml", 'name = "API v1"\n')
    write(col, "legacy_v1/get.toml", 'name = "Get"\n')
    loaded = load_collection(col)
    folder = loaded.find_folder("legacy_v1")
    rename_folder(loaded, folder, "API v2")
    assert folder.path == col / "legacy_v1"
    assert load_collection(col).find_folder("legacy_v1").name == "API v2"


def test_rename_folder_without_a_folder_file(col: Path) -> None:
    write(col, "misc/a.toml", 'name = "A"\n')
    loaded = load_collection(col)
    misc = loaded.find_folder("misc")
    rename_folder(loaded, misc, "Odds and ends")  # the directory alone gives this name
    assert misc.path == col / "odds-and-ends" and not (misc.path / "folder.toml").exists()
    rename_folder(loaded, misc, "ACME")  # it does not give this one: folder.toml keeps it
    assert misc.path == col / "acme" and load_collection(col).find_folder("acme").name == "ACME"


def test_rename_folder_with_a_broken_same_stem_request_and_an_order(col: Path) -> None:
    write(col, "collection.toml", 'name = "Test"\norder = ["ping", "users"]\n')
    write(col, "users.toml", 'name = "Users request"\n')
    loaded = load_collection(col)
    rename_folder(loaded, loaded.find_folder("users"), "People")
    # "users" also placed the request users.toml: it stays, the folder comes just before it.
    assert load_collection(col).order == ["ping", "people", "users"]


def test_rename_folder_refuses_a_broken_folder_file(col: Path) -> None:
    ffile = write(col, "users/folder.toml", 'name = "Users"\n')
    loaded = load_collection(col)
    ffile.write_text("name = \n")
    with pytest.raises(SaveError, match="not renamed"):
        rename_folder(loaded, loaded.find_folder("users"), "People")
    assert ffile.read_text() == "name = \n" and not (col / "people").exists()


def test_rename_folder_never_replaces_a_directory_that_appears(
    col: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pigeon.store import tree

    write(col, "users/folder.toml", 'name = "Users"\n')
    loaded = load_collection(col)
    users = loaded.find_folder("users")
    (col / "people").mkdir()  # empty: a plain rename(2) would replace it
    monkeypatch.setattr(tree, "_free_stem", lambda *args, **kwargs: "people")
    before = files_under(col / "users")
    with pytest.raises(SaveError, match="not renamed"):
        rename_folder(loaded, users, "People")
    assert files_under(col / "users") == before and list((col / "people").iterdir()) == []
    assert users.path == col / "users" and users.name == "Users"


def test_duplicate_folder_copies_everything_and_never_overwrites(col: Path) -> None:
    write(col, "collection.toml", 'name = "Test"\n# order\norder = ["users", "ping"]\n')
    write(col, "users/folder.toml", 'name = "Users"\n[variables]\nx = 1\n')
    write(col, "users/inner/deep.toml", 'name = "Deep"\n')
    write(col, "users/data/upload.bin", "bytes")
    write(col, "users/bad.toml", "name = \n")
    taken = write(col, "users-copy/keep.toml", 'name = "Keep"\n')
    loaded = load_collection(col)
    users = loaded.find_folder("users")
    original = files_under(col / "users")
    copied = duplicate_folder(loaded, users)
    # "users-copy" is taken, and shows as "Users copy": the copy's name is unique too.
    assert copied.name == "Users copy 2" and copied.path == col / "users-copy-2"
    assert copied.id == "users-copy-2" and copied in loaded.items
    assert taken.read_text() == 'name = "Keep"\n' and files_under(col / "users") == original
    duplicate = files_under(copied.path)
    assert duplicate.pop("folder.toml") == b'name = "Users copy 2"\n[variables]\nx = 1\n'
    assert duplicate == {k: v for k, v in original.items() if k != "folder.toml"}
    assert {r.id for _, r in loaded.walk()} >= {
        "users-copy-2/create",
        "users-copy-2/inner/deep",
    }
    assert col / "users-copy-2/bad.toml" in [b.path for b in loaded.broken]
    assert (col / "collection.toml").read_text() == (
        'name = "Test"\n# order\norder = ["users", "users-copy-2", "ping"]\n'
    )
    again = duplicate_folder(loaded, users)
    assert again.name == "Users copy 3" and again.path == col / "users-copy-3"
    assert hidden_leftovers(col) == []
    reloaded = load_collection(col)
    assert reloaded.find_folder("users-copy-2").variables == {"x": 1}
    assert reloaded.order == ["users", "users-copy-3", "users-copy-2", "ping"]


def test_move_folder_updates_both_orders_and_refuses_its_own_subfolders(col: Path) -> None:
    write(col, "collection.toml", 'name = "Test"\norder = ["users", "ping"]\n')
    write(col, "admin/folder.toml", 'name = "Admin"\norder = ["reset"]\n')
    write(col, "admin/reset.toml", 'name = "Reset"\n')
    write(col, "users/inner/deep.toml", 'name = "Deep"\n')
    loaded = load_collection(col)
    users, admin = loaded.find_folder("users"), loaded.find_folder("admin")
    inner = loaded.find_folder("users/inner")
    for wrong in (users, inner):
        with pytest.raises(SaveError, match="into itself"):
            move_folder(loaded, users, wrong)
    assert (col / "users/inner/deep.toml").is_file()
    move_folder(loaded, users, admin)
    assert users.path == col / "admin/users" and users in admin.items and users not in loaded.items
    assert inner.id == "admin/users/inner" and inner.items[0].id == "admin/users/inner/deep"
    reloaded = load_collection(col)
    assert reloaded.order == ["ping"]
    assert reloaded.find_folder("admin").order == ["reset", "users"]
    assert [r.id for r in reloaded.requests()] == [
        "ping",
        "admin/reset",
        "admin/users/create",
        "admin/users/inner/deep",
    ]
    # Back to the top level, where a folder "users" has appeared meanwhile: a free name,
    # and the name it showed (from its directory) is kept in a folder.toml.
    write(col, "users/other.toml", 'name = "Other"\n')
    move_folder(loaded, users, None)
    assert users.path == col / "users-2" and users.name == "Users"
    assert load_collection(col).find_folder("users-2").name == "Users"
    assert load_collection(col).find_folder("admin").order == ["reset"]
    assert move_folder(loaded, users, None) is users and users.path == col / "users-2"


def test_folder_contents_and_delete_folder(col: Path) -> None:
    write(col, "collection.toml", 'name = "Test"\norder = ["users", "ping"]\n')
    write(col, "users/folder.toml", 'name = "Users"\n')
    write(col, "users/inner/deep.toml", 'name = "Deep"\n')
    write(col, "users/inner/folder.toml", "order = 1\n")
    write(col, "users/bad.toml", "name = \n")
    write(col, "users/notes.md", "notes")
    write(col, "users/.hidden/x.toml", 'name = "x"\n')
    loaded = load_collection(col)
    users = loaded.find_folder("users")
    contents = folder_contents(users)
    assert (contents.requests, contents.folders) == (2, 1)
    assert contents.broken == (col / "users/bad.toml", col / "users/inner/folder.toml")
    assert contents.other == (col / "users/.hidden/x.toml", col / "users/notes.md")
    write(col, "users/new.toml", 'name = "New"\n')  # appeared after the question
    with pytest.raises(SaveError, match="changed"):
        delete_folder(loaded, users, contents)
    assert (col / "users/new.toml").is_file()
    delete_folder(loaded, users, folder_contents(users))
    assert not (col / "users").exists() and hidden_leftovers(col) == []
    assert users not in loaded.items and loaded.broken == []
    assert load_collection(col).order == ["ping"] == loaded.order
    assert [r.id for r in load_collection(col).requests()] == ["ping"]


def test_rename_folder_adds_a_missing_name_where_it_belongs(col: Path) -> None:
    write(col, "a/folder.toml", '# about a\norder = ["x"]\n')
    write(col, "b/folder.toml", "# about b\n\n[variables]\nx = 1\n")
    loaded = load_collection(col)
    rename_folder(loaded, loaded.find_folder("a"), "A")  # the directory stays "a"
    rename_folder(loaded, loaded.find_folder("b"), "B")
    assert (col / "a/folder.toml").read_text() == '# about a\nname = "A"\norder = ["x"]\n'
    assert (col / "b/folder.toml").read_text() == ('# about b\n\nname = "B"\n[variables]\nx = 1\n')


def test_a_dotted_key_and_its_comment_stay_when_the_order_changes(col: Path) -> None:
    write(col, "collection.toml", '# kept\nname = "Test"\nmeta.owner = "me"\norder = ["users"]\n')
    loaded = load_collection(col)
    rename_folder(loaded, loaded.find_folder("users"), "People")
    assert (col / "collection.toml").read_text() == (
        '# kept\nname = "Test"\nmeta.owner = "me"\norder = ["people"]\n'
    )
    reloaded = load_collection(col)
    assert reloaded.order == ["people"] and reloaded.extra == {"meta": {"owner": "me"}}


# -- requests with no file yet, and environments ---------------------------------------------


def test_add_request_writes_a_copy_once_and_never_over_a_file(col: Path) -> None:
    loaded = load_collection(col)
    scratch = Request(name="Ping", method="POST", url="{{base_url}}/p")
    added = add_request(loaded, None, scratch)
    assert added is not scratch and scratch.path is None  # the caller's request is untouched
    assert added.path == col / "ping-2.toml" and added.id == "ping-2"
    assert (col / "ping.toml").read_text() == 'name = "Ping"\nurl = "{{base_url}}/ping"\n'
    reread = load_collection(col).find("ping-2")[1]
    assert (reread.method, reread.url) == ("POST", "{{base_url}}/p")


def test_rename_and_delete_environment_follow_the_default(col: Path) -> None:
    write(col, "collection.toml", '# mine\nname = "Test"\ndefault_environment = "dev"\n')
    write(col, "environments/dev.toml", '# dev\n[variables]\nhost = "d"\n')
    write(col, "environments/prod.toml", '[variables]\nhost = "p"\n')
    loaded = load_collection(col)
    with pytest.raises(SaveError, match="already exists"):
        rename_environment(loaded, "dev", "prod")
    with pytest.raises(SaveError, match="invalid environment name"):
        rename_environment(loaded, "dev", "no good")
    env = rename_environment(loaded, "dev", "local")
    assert (
        env.path == col / "environments/local.toml" and not (col / "environments/dev.toml").exists()
    )
    assert env.path.read_text() == '# dev\n[variables]\nhost = "d"\n'
    assert sorted(loaded.environments) == ["local", "prod"]
    text = (col / "collection.toml").read_text()
    assert text == '# mine\nname = "Test"\ndefault_environment = "local"\n'
    delete_environment(loaded, "prod")
    assert not (col / "environments/prod.toml").exists() and list(loaded.environments) == ["local"]
    assert load_collection(col).default_environment == "local"
    delete_environment(loaded, "local")
    assert (col / "collection.toml").read_text() == '# mine\nname = "Test"\n'
    assert loaded.default_environment is None and loaded.environments == {}
    with pytest.raises(SaveError, match="no environment"):
        delete_environment(loaded, "local")
