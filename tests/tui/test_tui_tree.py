"""The collection tree with Pilot: new, rename, delete, duplicate and move of requests and
folders; zoom and palette reload."""

from __future__ import annotations

from pathlib import Path

from test_tui_app import run_from_palette
from textual.pilot import Pilot
from textual.widgets import Label, Tree
from tui_support import main_screen, make_app, paste_url, running, wait_for

from pigeon.echo import EchoServer
from pigeon.model import Folder, Request
from pigeon.store import load_collection
from pigeon.tui.app import PigeonApp
from pigeon.tui.dialogs.choose import ChooseScreen
from pigeon.tui.dialogs.confirm import ConfirmScreen, UnsavedScreen
from pigeon.tui.dialogs.delete_folder import DeleteFolderScreen
from pigeon.tui.dialogs.trust import TrustScreen
from pigeon.tui.screens.main import MainScreen
from pigeon.tui.widgets.collection.collection_tree import CollectionTree, differs_at, fit_name
from pigeon.tui.widgets.editor.request_editor import RequestEditor
from pigeon.tui.widgets.variables.variables_pane import VariablesPane


async def highlight_folder(pilot: Pilot, folder_id: str) -> CollectionTree:
    """Put the tree's cursor on a folder, as the arrow keys would, with the tree focused."""
    tree = main_screen(pilot.app).query_one(CollectionTree)
    tree.focus()
    node = next(
        n for n in tree._all_nodes() if isinstance(n.data, Folder) and n.data.id == folder_id
    )
    tree.move_cursor(node)
    await pilot.pause()
    assert tree.highlighted_item is node.data
    return tree


def highlighted_path(tree: CollectionTree) -> Path | None:
    item = tree.highlighted_item
    return item.path if isinstance(item, (Folder, Request)) else None


async def test_tree_new_rename_delete(app: PigeonApp, collection: Path) -> None:
    async with running(app, "users/list-users") as pilot:
        screen = main_screen(app)
        screen.query_one(CollectionTree).focus()
        await pilot.press("n")
        await pilot.pause()
        await pilot.press(*"Ping it", "enter")
        await pilot.pause()
        assert (collection / "users" / "ping-it.toml").is_file()
        assert screen.query_one(RequestEditor).request.name == "Ping it"
        tree = screen.query_one(CollectionTree)
        tree.focus()
        node = next(
            n
            for n in tree._all_nodes()
            if isinstance(n.data, Request) and n.data.id == "users/ping-it"
        )
        tree.move_cursor(node)
        await pilot.pause()
        await pilot.press("r", "ctrl+u", *"Pong", "enter")
        await pilot.pause()
        assert (collection / "users" / "pong.toml").is_file()
        assert not (collection / "users" / "ping-it.toml").exists()
        node = next(
            n
            for n in tree._all_nodes()
            if isinstance(n.data, Request) and n.data.id == "users/pong"
        )
        tree.move_cursor(node)
        await pilot.pause()
        await pilot.press("d", "y")
        await pilot.pause()
        assert not (collection / "users" / "pong.toml").exists()


async def test_duplicate_and_move(app: PigeonApp, collection: Path) -> None:
    async with running(app, "users/list-users") as pilot:
        screen = main_screen(app)
        tree = screen.query_one(CollectionTree)
        tree.focus()
        await pilot.press("c")
        await pilot.pause()
        copy_file = collection / "users" / "list-users-copy.toml"
        assert copy_file.is_file()
        assert (
            load_collection(collection).find("users/list-users-copy")[1].url
            == "{{base_url}}/{{resource}}"
        )
        users_order = load_collection(collection).find_folder("users").order
        assert users_order == ["list-users", "list-users-copy", "create-user"]  # after it
        node = next(
            n
            for n in tree._all_nodes()
            if isinstance(n.data, Request) and n.data.id == "users/list-users-copy"
        )
        tree.move_cursor(node)
        await pilot.pause()
        await pilot.press("m")
        await pilot.pause()
        assert isinstance(app.screen, ChooseScreen)
        await pilot.press("home", "enter")  # (top level)
        await wait_for(pilot, lambda: not copy_file.exists())
        assert (collection / "list-users-copy.toml").is_file()
        reloaded = load_collection(collection)
        assert reloaded.find_folder("users").order == ["list-users", "create-user"]
        assert reloaded.order[-1] == "list-users-copy"


async def test_maximise_and_palette_reload(app: PigeonApp, collection: Path) -> None:
    async with running(app, "users/list-users") as pilot:
        screen = main_screen(app)
        await pilot.press("ctrl+l", "ctrl+o")  # opening left the focus in the tree: go to the URL
        await pilot.pause()
        assert screen.maximized is screen.query_one(RequestEditor)
        await pilot.press("ctrl+o")
        await pilot.pause()
        assert screen.maximized is None
        (collection / "users" / "added.toml").write_text(
            'name = "Added"\nurl = "x"\n', encoding="utf-8"
        )
        await run_from_palette(pilot, "Reload collection", "Reload collection")
        tree = screen.query_one(CollectionTree)
        assert any(
            isinstance(n.data, Request) and n.data.id == "users/added" for n in tree._all_nodes()
        )
        assert screen.query_one(RequestEditor).request.id == "users/list-users"


async def test_new_folder_goes_into_the_highlighted_folder(
    app: PigeonApp, collection: Path
) -> None:
    async with running(app) as pilot:
        tree = await highlight_folder(pilot, "auth")
        await pilot.press("f")
        await pilot.pause()
        await pilot.press(*"Admin Tools", "enter")
        await pilot.pause()
        made = collection / "auth" / "admin-tools"
        assert load_collection(collection).find_folder("auth/admin-tools").name == "Admin Tools"
        assert (made / "folder.toml").is_file()
        assert highlighted_path(tree) == made


async def test_rename_folder_asks_about_unsaved_edits_and_the_editor_follows(
    app: PigeonApp, collection: Path
) -> None:
    async with running(app, "users/list-users") as pilot:
        screen = main_screen(app)
        editor = screen.query_one(RequestEditor)
        await paste_url(pilot, "{{base_url}}/edited")
        assert editor.dirty
        await highlight_folder(pilot, "users")
        await pilot.press("r", "ctrl+u", *"People", "enter")
        await pilot.pause()
        assert isinstance(app.screen, UnsavedScreen)
        await pilot.press("escape")  # cancel: nothing renamed, the edit still unsaved
        await pilot.pause()
        assert isinstance(app.screen, MainScreen)
        assert (collection / "users").is_dir() and not (collection / "people").exists()
        assert editor.dirty

        tree = await highlight_folder(pilot, "users")
        await pilot.press("r", "ctrl+u", *"People", "enter")
        await pilot.pause()
        await pilot.press("s")  # save, then rename
        await pilot.pause()
        moved = collection / "people" / "list-users.toml"
        assert not (collection / "users").exists()
        assert "{{base_url}}/edited" in moved.read_text(encoding="utf-8")
        assert 'name = "People"' in (collection / "people" / "folder.toml").read_text()
        collection_text = (collection / "collection.toml").read_text(encoding="utf-8")
        assert 'order = ["auth", "people", "auth-styles", "bodies", "responses"]' in (
            collection_text
        )
        assert "# The Pigeon demo collection" in collection_text  # edited in place
        assert editor.request.path == moved and editor.request.id == "people/list-users"
        assert not editor.dirty
        assert highlighted_path(tree) == collection / "people"

        await paste_url(pilot, "{{base_url}}/again")
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert "{{base_url}}/again" in moved.read_text(encoding="utf-8")
        assert not (collection / "users").exists()  # the save went to the new file


async def test_duplicate_and_move_folder(app: PigeonApp, collection: Path) -> None:
    async with running(app, "users/list-users") as pilot:
        screen = main_screen(app)
        tree = await highlight_folder(pilot, "users")
        await pilot.press("c")
        await pilot.pause()
        copied = load_collection(collection).find_folder("users-copy")
        assert copied is not None and copied.name == "Users copy"
        assert [r.id for r in copied.items] == ["users-copy/list-users", "users-copy/create-user"]
        assert highlighted_path(tree) == collection / "users-copy"

        await highlight_folder(pilot, "users")
        await pilot.press("m")
        await pilot.pause()
        assert isinstance(app.screen, ChooseScreen)
        labels = [str(o.prompt).strip() for o in app.screen.query_one("OptionList").options]
        assert "Users" not in labels and "Users copy" in labels  # not into itself
        await pilot.press("down", "enter")  # (top level), then Auth
        moved = collection / "auth" / "users"
        await wait_for(pilot, lambda: (moved / "list-users.toml").is_file())
        assert (moved / "list-users.toml").is_file() and not (collection / "users").exists()
        reloaded = load_collection(collection)
        assert "users" not in reloaded.order
        assert reloaded.find_folder("auth").order == ["login", "me", "users"]
        editor = screen.query_one(RequestEditor)
        assert editor.request.path == moved / "list-users.toml"
        assert editor.request.id == "auth/users/list-users" and not editor.dirty
        assert highlighted_path(tree) == moved


async def test_delete_folder_says_what_goes_including_broken_files(
    app: PigeonApp, collection: Path
) -> None:
    (collection / "users" / "notes.md").write_text("notes", encoding="utf-8")
    async with running(app, "users/list-users") as pilot:
        screen = main_screen(app)
        await paste_url(pilot, "{{base_url}}/unsaved")
        tree = await highlight_folder(pilot, "users")
        await pilot.press("d")
        await pilot.pause()
        assert isinstance(app.screen, DeleteFolderScreen)
        message = " ".join(str(label.content) for label in app.screen.query(Label))
        assert "2 requests and 0 subfolders" in message
        assert "1 file in it does not load" in message and "users/broken.toml" in message
        assert "1 other file: users/notes.md" in message
        assert "unsaved changes to “List users” will be lost" in message
        await pilot.press("n")
        await pilot.pause()
        assert (collection / "users" / "broken.toml").is_file()

        await pilot.press("d", "y")
        await pilot.pause()
        assert not (collection / "users").exists()
        assert not [p for p in collection.iterdir() if p.name.startswith(".users")]
        assert screen.query_one(RequestEditor).request is None
        assert tree._dirty == set()
        assert "users" not in load_collection(collection).order
        assert highlighted_path(tree) == collection / "auth-styles"  # the next one
        assert not any(
            str(getattr(n.data, "path", "")).startswith(str(collection / "users"))
            for n in tree._all_nodes()
        )


def tree_ids(tree: CollectionTree, folder_id: str) -> list[str]:
    """The ids of a folder's children as the tree shows them, top to bottom."""
    node = next(
        n for n in tree._all_nodes() if isinstance(n.data, Folder) and n.data.id == folder_id
    )
    return [n.data.id for n in node.children if isinstance(n.data, (Folder, Request))]


async def test_move_request_keeps_both_order_lists_right(
    collection: Path, echo: EchoServer
) -> None:
    # Listed entries come first, then the rest by name: "aaa" shows where an unlisted one goes.
    (collection / "auth" / "aaa.toml").write_text('name = "Aaa"\n', encoding="utf-8")
    app = make_app(collection, echo)
    async with running(app) as pilot:
        tree = main_screen(app).query_one(CollectionTree)
        assert tree_ids(tree, "users") == ["users/list-users", "users/create-user"]
        tree.focus()
        node = next(
            n
            for n in tree._all_nodes()
            if isinstance(n.data, Request) and n.data.id == "users/list-users"
        )
        tree.move_cursor(node)
        await pilot.pause()
        await pilot.press("m", "home", "down", "enter")  # (top level), then Auth
        await pilot.pause()
        assert tree_ids(tree, "auth") == ["auth/login", "auth/me", "auth/list-users", "auth/aaa"]
        assert tree_ids(tree, "users") == ["users/create-user"]
        assert highlighted_path(tree) == collection / "auth" / "list-users.toml"
        await pilot.press("m", "down", "enter")  # back to Users, just below Auth
        await pilot.pause()
        # It left Auth's list, and comes back at the end of Users' (no longer first).
        assert tree_ids(tree, "users") == ["users/create-user", "users/list-users"]
        assert tree_ids(tree, "auth") == ["auth/login", "auth/me", "auth/aaa"]
        assert (collection / "auth" / "folder.toml").read_text() == (
            'name = "Auth"\norder = ["login", "me"]\n'
        )
        users_file = (collection / "users" / "folder.toml").read_text(encoding="utf-8")
        assert 'order = ["create-user", "list-users"]' in users_file
        assert "# folder scope: above environment, below request" in users_file  # kept


async def test_dialog_messages_wrap_inside_the_dialog(app: PigeonApp, collection: Path) -> None:
    long_name = "List every user of the organisation, page after page, with all their roles"

    def message_fits() -> Label:
        dialog = app.screen.query_one(".dialog")
        message = app.screen.query_one(".dialog .message", Label)
        assert message.size.height > 1  # wrapped, not cut off at the dialog's edge
        assert dialog.content_region.contains_region(message.region)
        return message

    async with running(app, size=(80, 24)) as pilot:
        tree = main_screen(app).query_one(CollectionTree)
        tree.focus()
        node = next(
            n
            for n in tree._all_nodes()
            if isinstance(n.data, Request) and n.data.id == "users/list-users"
        )
        node.data.name = long_name
        tree.move_cursor(node)
        await pilot.pause()
        await pilot.press("d")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        message = message_fits()
        assert "its file?" in str(message.render())  # the end of it is there too
        await pilot.press("n")
        await pilot.pause()

        app.push_screen(
            TrustScreen(str(collection / ("a-long-directory-name-" * 3)), ["Python scripts: a"])
        )
        await pilot.pause()
        message_fits()


async def test_the_move_dialog_starts_on_the_folder_and_keeps_each_path_to_one_line(
    collection: Path, echo: EchoServer
) -> None:
    from textual.widgets import OptionList

    deep = collection / "users" / ("a-folder-with-a-long-name-" * 3)
    deep.mkdir()
    (deep / "folder.toml").write_text(f'name = "{"A folder with a long name " * 3}"\n')
    (deep / "inner.toml").write_text('name = "Inner"\n', encoding="utf-8")
    app = make_app(collection, echo)
    async with running(app, size=(80, 24)) as pilot:
        tree = main_screen(app).query_one(CollectionTree)
        tree.focus()
        node = next(
            n for n in tree._all_nodes() if isinstance(n.data, Request) and n.data.name == "Inner"
        )
        tree.move_cursor(node)
        await pilot.pause()
        await pilot.press("m")
        await wait_for(pilot, lambda: isinstance(app.screen, ChooseScreen))
        await pilot.pause()
        options = app.screen.query_one(OptionList)
        here = options.get_option_at_index(options.highlighted)
        assert here.id == deep.relative_to(collection).as_posix()  # its own folder
        lines = [options.render_line(y).text.strip() for y in range(options.option_count)]
        assert lines[0] == "(top level)" and lines[2] == "Users"
        shown = next(line for line in lines if line.startswith("Users / A folder"))
        assert "…" in shown and shown.endswith("long name")  # cut in the middle, one line
        await pilot.press("up", "enter")  # the folder above it: Users
        await wait_for(pilot, lambda: (collection / "users" / "inner.toml").is_file())


def alike_collection(root: Path) -> Path:
    """A folder of 50 requests whose names share a long start: 25 differ only at their end,
    25 only in their middle, right after the start they share."""
    (root / "users").mkdir(parents=True)
    (root / "collection.toml").write_text('name = "Alike"\n', encoding="utf-8")
    names = [f"Users operation: delete user number {n}" for n in range(25)]
    names += [f"Users operation {n:02d} for the whole account" for n in range(25)]
    for index, name in enumerate(names):
        (root / "users" / f"op-{index:02d}.toml").write_text(
            f'name = "{name}"\nmethod = "GET"\nurl = "http://127.0.0.1/{index}"\n',
            encoding="utf-8",
        )
    return root


async def test_names_cut_in_the_middle_stay_distinct(tmp_path: Path, echo: EchoServer) -> None:
    """Names too long for the tree are cut in the middle, keeping where they differ: 50
    requests sharing a long start read as 50 different lines."""
    app = make_app(alike_collection(tmp_path / "alike"), echo)
    async with running(app, size=(80, 60)) as pilot:
        tree = main_screen(app).query_one(CollectionTree)
        await pilot.pause()
        lines = [tree.render_line(y).text.rstrip() for y in range(tree.size.height)]
        rows = [line for line in lines if "GET" in line]
        assert len(rows) == 50
        assert len(set(rows)) == 50, sorted(rows)
        assert all("…" in row for row in rows)  # cut, not cropped at the pane's edge
        assert all(len(row) <= tree.scrollable_content_region.width for row in rows)
        assert lines[1].startswith("├ GET  Users…")  # the start stays too


def test_a_long_name_keeps_its_start_and_its_end() -> None:
    def shown(name: str, width: int, differs_at: int = 0) -> str:
        pieces = fit_name(name, width, differs_at)
        return "".join(p if isinstance(p, str) else name[p[0] : p[1]] for p in pieces)

    assert shown("Users operation: delete user", 16) == "Users o…ete user"
    assert shown("Create user", 11) == "Create user"
    assert shown("Create user", 10) == "Creat…user"  # no space beside the cut
    # Alike but in the middle: the part from where it differs, cut short.
    assert shown("Users operation 07 for the account", 16, 16) == "Users o…07 for…"
    assert differs_at(["a b", "a c", "x"]) == [2, 2, 0]


async def test_a_trees_frame_is_drawn_as_textual_draws_it_line_by_line(app: PigeonApp) -> None:
    """The collection and the variables work their base style out once a frame
    (``StyleOncePerFrame``): every line, the cursor's among them, is drawn as Textual's own
    ``Tree`` draws it when it works the style out for each line."""
    async with running(app) as pilot:
        screen = main_screen(app)
        tree = screen.query_one(CollectionTree)
        tree.focus()
        await pilot.press("down")
        for widget in (tree, screen.query_one(VariablesPane)):
            region = widget.size.region
            assert region.height > 3, type(widget).__name__
            widget._styles_cache.clear()
            textual_lines = Tree.render_lines(widget, region)  # each line asks for its style
            widget._styles_cache.clear()
            ours = widget.render_lines(region)
            assert [list(line) for line in ours] == [list(line) for line in textual_lines]
            assert widget._frame_style is None  # nothing kept past the frame
        drawn = "".join(strip.text for strip in tree.render_lines(tree.size.region))
        assert "Users" in drawn
