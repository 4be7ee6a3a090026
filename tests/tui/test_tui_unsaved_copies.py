"""Requests with no file of their own: scratch requests (ctrl+n) and entries opened from
history. Usable and sendable at once, written only when saved (a name and a folder asked then),
never lost without asking, and never leaving a file behind a cancel (B14, B4); the tree shows a
method change at once (B19)."""

from __future__ import annotations

from pathlib import Path

from textual.screen import ModalScreen
from textual.widgets import Input, OptionList
from tui_support import main_screen, make_app, open_request, paste_url, running, wait_for

from pigeon.echo import EchoServer
from pigeon.model import Request
from pigeon.store import load_collection
from pigeon.tui.dialogs.confirm import UnsavedScreen
from pigeon.tui.dialogs.prompt import PromptScreen
from pigeon.tui.dialogs.save_new import SaveNewScreen
from pigeon.tui.widgets.collection.collection_tree import CollectionTree
from pigeon.tui.widgets.collection.history_list import HistoryList


def files(root: Path) -> dict[str, bytes]:
    """Every file of the collection but Pigeon's own folder, with its bytes."""
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in root.rglob("*")
        if p.is_file() and ".pigeon" not in p.relative_to(root).parts
    }


async def settle(pilot) -> None:
    """Wait until sends, records and list reloads (workers started by workers) are done."""
    app = pilot.app
    for _ in range(50):
        await app.workers.wait_for_complete()
        await pilot.pause()
        if not any(w.is_running for w in app.workers):
            return
    raise AssertionError("workers still running")


async def modal(pilot, kind: type = ModalScreen) -> ModalScreen:
    await wait_for(pilot, lambda: isinstance(pilot.app.screen, kind))
    return pilot.app.screen  # type: ignore[return-value]


async def answer_prompt(pilot, text: str) -> None:
    """Name the request being saved; it goes to the folder the dialog starts on."""
    await modal(pilot, SaveNewScreen)
    pilot.app.screen.query_one(Input).value = text
    await pilot.press("enter")
    await wait_for(pilot, lambda: not isinstance(pilot.app.screen, SaveNewScreen))


def tree_label(app, request_id: str) -> str:
    tree = main_screen(app).query_one(CollectionTree)
    node = next(
        n for n in tree._all_nodes() if isinstance(n.data, Request) and n.data.id == request_id
    )
    return str(node.label)


# -- scratch requests ------------------------------------------------------------------------


async def test_a_scratch_request_is_sent_with_no_file_written(
    collection: Path, echo: EchoServer
) -> None:
    before = files(collection)
    app = make_app(collection, echo)
    async with running(app) as pilot:
        await wait_for(pilot, lambda: main_screen(app).built_at)
        await pilot.press("ctrl+n")
        editor = main_screen(app).editor
        await wait_for(pilot, lambda: editor.request is not None)
        assert not isinstance(app.screen, ModalScreen)  # no name asked first
        assert editor.request.path is None and "scratch" in str(editor.border_title).lower()
        await paste_url(pilot, f"{echo.url}/scratch-path")
        assert editor.dirty and "•" in str(editor.border_title)
        await pilot.press("ctrl+r")
        await settle(pilot)
        exchange = main_screen(app).last_exchange
        assert exchange is not None and exchange.status == 200
        assert exchange.request.url == f"{echo.url}/scratch-path"
    assert files(collection) == before


async def test_saving_a_scratch_request_asks_a_name_and_writes_it(
    collection: Path, echo: EchoServer
) -> None:
    app = make_app(collection, echo)
    async with running(app, "users/list-users") as pilot:  # the tree's cursor is in users/
        await pilot.press("ctrl+n")
        editor = main_screen(app).editor
        await wait_for(pilot, lambda: editor.request is not None and editor.request.path is None)
        await paste_url(pilot, "{{base_url}}/reports")
        await pilot.press("ctrl+s")
        prompt = await modal(pilot, SaveNewScreen)
        assert prompt.folder == "users"  # where it goes, unless another is chosen
        await answer_prompt(pilot, "Monthly report")
        path = collection / "users" / "monthly-report.toml"
        await wait_for(pilot, path.is_file)
        saved = load_collection(collection).find("users/monthly-report")[1]
        assert (saved.name, saved.url) == ("Monthly report", "{{base_url}}/reports")
        assert not editor.dirty and editor.saved is not None and editor.saved.path == path
        assert "scratch" not in str(editor.border_title).lower()
        assert "Monthly report" in tree_label(app, "users/monthly-report")
        await pilot.press("ctrl+s")  # saved again in place: no second file, no question
        await pilot.pause()
        assert not isinstance(app.screen, ModalScreen)
        assert sorted(p.name for p in (collection / "users").glob("monthly*")) == [path.name]


async def test_saving_a_scratch_request_asks_its_folder_too(
    collection: Path, echo: EchoServer
) -> None:
    """The folder list is the move dialog's, one line per path, on the tree's folder first;
    the request is written in the folder chosen."""
    from pigeon import store

    col = load_collection(collection)
    long_name = "Administration of accounts and every permission they hold"
    store.create_folder(col, col.find_folder("users"), long_name)
    app = make_app(collection, echo)
    async with running(app, "users/list-users") as pilot:  # the tree's cursor is in users/
        await pilot.press("ctrl+n")
        editor = main_screen(app).editor
        await wait_for(pilot, lambda: editor.request is not None and editor.request.path is None)
        await paste_url(pilot, "{{base_url}}/audit")
        await pilot.press("ctrl+s")
        dialog = await modal(pilot, SaveNewScreen)
        await pilot.pause()
        options = dialog.query_one(OptionList)
        paths = [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]
        assert paths == [
            "(top level)",
            "Auth",
            "Users",
            f"Users / {long_name}",
            "Auth styles",
            "Bodies",
            "Responses",
        ]
        assert options.highlighted == 2 and dialog.folder == "users"
        assert options.virtual_size.height == len(paths)  # one line per path, cut in the middle
        await pilot.press(*"Audit", "tab", "up")  # to the folder list, one up: Auth
        assert dialog.folder == "auth"
        await pilot.press("enter")
        await wait_for(pilot, lambda: not isinstance(app.screen, SaveNewScreen))
        path = collection / "auth" / "audit.toml"
        await wait_for(pilot, path.is_file)
        assert editor.saved is not None and editor.saved.path == path
        assert not (collection / "users" / "audit.toml").exists()
        assert "Audit" in tree_label(app, "auth/audit")


async def test_closing_a_scratch_request_with_changes_asks(
    collection: Path, echo: EchoServer
) -> None:
    before = files(collection)
    app = make_app(collection, echo)
    async with running(app) as pilot:
        await wait_for(pilot, lambda: main_screen(app).built_at)
        await pilot.press("ctrl+n")
        editor = main_screen(app).editor
        await wait_for(pilot, lambda: editor.request is not None)
        await paste_url(pilot, "{{base_url}}/draft")
        await pilot.press("ctrl+q")
        await modal(pilot, UnsavedScreen)
        await pilot.press("c")  # cancel: still editing
        await wait_for(pilot, lambda: not isinstance(app.screen, ModalScreen))
        assert app.is_running and editor.request.url == "{{base_url}}/draft"
        await pilot.press("ctrl+q")
        await modal(pilot, UnsavedScreen)
        await pilot.press("s")  # save asks a name; escape there goes back to editing
        await modal(pilot, SaveNewScreen)
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, ModalScreen))
        assert app.is_running and files(collection) == before
        await pilot.press("ctrl+q")
        await modal(pilot, UnsavedScreen)
        await pilot.press("d")
        await wait_for(pilot, lambda: not app.is_running)
    assert files(collection) == before


async def test_b14_a_new_scratch_tab_leaves_the_edited_one_as_it_was(
    collection: Path, echo: EchoServer
) -> None:
    before = files(collection)
    app = make_app(collection, echo)
    async with running(app, "users/list-users") as pilot:
        await paste_url(pilot, "{{base_url}}/users?edited=1")
        await pilot.press("ctrl+n")  # a tab of its own: nothing asked, nothing written
        editor = main_screen(app).editor
        await wait_for(pilot, lambda: editor.request is not None and editor.origin == "scratch")
        assert not isinstance(app.screen, ModalScreen)
        await pilot.press("ctrl+pageup")  # back to the edited tab, as it was left
        await wait_for(pilot, lambda: editor.request.id == "users/list-users")
        assert editor.dirty and editor.request.url == "{{base_url}}/users?edited=1"
    assert files(collection) == before


# -- history ---------------------------------------------------------------------------------


async def open_from_history(pilot, echo: EchoServer) -> None:
    """Send users/list-users, then open its history entry."""
    await open_request(pilot, "users/list-users")
    await pilot.press("ctrl+r")
    await settle(pilot)
    await pilot.press("f6")
    await settle(pilot)
    assert isinstance(pilot.app.focused, HistoryList)
    await pilot.press("enter")
    await settle(pilot)


async def test_b4_an_entry_opened_from_history_is_an_unsaved_copy(
    collection: Path, echo: EchoServer
) -> None:
    path = collection / "users" / "list-users.toml"
    app = make_app(collection, echo)
    async with running(app) as pilot:
        await open_from_history(pilot, echo)
        editor = main_screen(app).editor
        title = str(editor.border_title)
        assert editor.dirty and "from history" in title and "•" in title
        sent_url = editor.request.url
        assert sent_url.startswith(echo.url)  # what was sent, rendered
        await pilot.press("ctrl+s")  # says where it would go before writing anything
        dialog = await modal(pilot)
        assert "users/list-users.toml" in " ".join(str(w.render()) for w in dialog.query("Label"))
        await pilot.press("r")  # replace the original request's file
        await wait_for(pilot, lambda: not editor.dirty)
        assert load_collection(collection).find("users/list-users")[1].url == sent_url
        assert "from history" not in str(editor.border_title)
        assert editor.saved is not None and editor.saved.path == path
        assert "•" not in tree_label(app, "users/list-users")


async def test_b4_the_unsaved_dialog_of_a_history_copy_saves_it_as_a_new_request(
    collection: Path, echo: EchoServer
) -> None:
    app = make_app(collection, echo)
    async with running(app) as pilot:
        await open_from_history(pilot, echo)
        await paste_url(pilot, f"{echo.url}/users?page=2")
        await pilot.press("ctrl+f4")  # close the copy's tab: its edits are asked about
        await modal(pilot, UnsavedScreen)
        await pilot.press("s")
        await modal(pilot)
        await pilot.press("n")  # a new request, not over the original
        await answer_prompt(pilot, "Listed once")
        await wait_for(pilot, lambda: (collection / "users" / "listed-once.toml").is_file())
        await wait_for(pilot, lambda: not main_screen(app).open_requests.tabs)  # then closed
        copy = load_collection(collection).find("users/listed-once")[1]
        assert copy.url == f"{echo.url}/users?page=2"


async def test_b4_a_copy_whose_request_is_gone_asks_a_name(
    collection: Path, echo: EchoServer
) -> None:
    app = make_app(collection, echo)
    async with running(app) as pilot:
        await open_from_history(pilot, echo)
        from pigeon import store

        col = app.session.collection
        store.delete_request(col, col.find("users/list-users")[1])
        await pilot.press("ctrl+s")
        await answer_prompt(pilot, "Recovered")
        await wait_for(pilot, lambda: not main_screen(app).editor.dirty)
        assert (collection / "users" / "recovered.toml").is_file()


# -- the tree follows the editor -------------------------------------------------------------


async def test_b19_a_method_change_shows_in_the_tree_at_once(
    collection: Path, echo: EchoServer
) -> None:
    app = make_app(collection, echo)
    async with running(app, "users/list-users") as pilot:
        assert tree_label(app, "users/list-users").startswith("GET ")
        await pilot.press("ctrl+l", "down")  # the next method: POST
        await wait_for(pilot, lambda: main_screen(app).editor.request.method == "POST")
        await pilot.pause()
        label = tree_label(app, "users/list-users")
        assert label.startswith("POST") and label.endswith("•")
        await pilot.press("up")  # back to GET: clean again
        await pilot.pause()
        assert tree_label(app, "users/list-users") == "GET  List users"


async def test_b14_the_trees_new_request_cancelled_leaves_the_edits_and_no_file(
    collection: Path, echo: EchoServer
) -> None:
    before = files(collection)
    app = make_app(collection, echo)
    async with running(app, "users/list-users") as pilot:
        await paste_url(pilot, "{{base_url}}/users?edited=1")
        main_screen(app).query_one(CollectionTree).focus()
        await pilot.press("n")  # its own tab once named: only the name is asked
        await modal(pilot, PromptScreen)
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, ModalScreen))
        assert main_screen(app).editor.dirty
    assert files(collection) == before
