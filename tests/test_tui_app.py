"""The app driven through keys with Pilot: open, edit, preview, send, save, prompts, layout."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from textual.widgets import Input, TextArea

from pigeon.echo import EchoServer
from pigeon.model import Request
from pigeon.store import load_collection
from pigeon.tui.app import PigeonApp
from pigeon.tui.screens.confirm import UnsavedScreen
from pigeon.tui.screens.help import HelpScreen
from pigeon.tui.screens.main import MainScreen
from pigeon.tui.session import Session, demo_collection_dir
from pigeon.tui.themes import bundled_theme_dirs
from pigeon.tui.widgets.collection_tree import CollectionTree
from pigeon.tui.widgets.request_editor import RequestEditor
from pigeon.tui.widgets.url_preview import UrlPreview
from pigeon.tui.widgets.variables_pane import VariablesPane

DEMO = demo_collection_dir()


@pytest.fixture(autouse=True)
def _private_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Trust decisions and the config file go to a temporary folder, never the user's."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))


@pytest.fixture
def echo():
    server = EchoServer("127.0.0.1", 0).start()
    yield server
    server.stop()


@pytest.fixture
def collection(tmp_path: Path) -> Path:
    """A copy of the demo collection (saves must not touch the repo) plus one broken file."""
    assert DEMO is not None
    root = tmp_path / "demo"
    shutil.copytree(DEMO, root)
    (root / "users" / "broken.toml").write_text('name = "Broken"\nmethod = \n', encoding="utf-8")
    return root


def make_app(root: Path, echo: EchoServer, env: str | None = None) -> PigeonApp:
    session = Session.open(root, env)
    session.overrides["base_url"] = echo.url
    return PigeonApp(session, theme_dirs=bundled_theme_dirs(), remember_theme=False)


def main_screen(app: PigeonApp) -> MainScreen:
    screen = app.screen
    assert isinstance(screen, MainScreen), screen
    return screen


async def open_request(pilot, request_id: str) -> Request:
    """Highlight a request in the tree, as the arrow keys would, and press enter."""
    screen = main_screen(pilot.app)
    tree = screen.query_one(CollectionTree)
    tree.focus()
    node = next(
        n for n in tree._all_nodes() if isinstance(n.data, Request) and n.data.id == request_id
    )
    tree.move_cursor(node)
    await pilot.pause()
    await pilot.press("enter")
    await pilot.pause()
    editor = screen.query_one(RequestEditor)
    assert editor.request is not None and editor.request.id == request_id
    return editor.request


async def replace_url(pilot, text: str) -> None:
    await pilot.press("ctrl+l")
    url = pilot.app.screen.query_one("#url", Input)
    assert pilot.app.focused is url
    await pilot.press("ctrl+u", "end", "ctrl+u")  # clear the line
    await pilot.press(*text)
    await pilot.pause()


async def test_opens_collection_with_tree_and_broken_file(
    collection: Path, echo: EchoServer
) -> None:
    app = make_app(collection, echo)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        screen = main_screen(app)
        tree = screen.query_one(CollectionTree)
        labels = [str(n.label) for n in tree._all_nodes()]
        assert any("List users" in label for label in labels)
        assert any(label.startswith("⚠") and "broken.toml" in label for label in labels)
        broken = next(n for n in tree._all_nodes() if str(n.label).startswith("⚠"))
        tree.move_cursor(broken)
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
        editor = screen.query_one(RequestEditor)
        assert editor.request is None  # never an editor on a broken file
        shown = str(editor.query_one("#editor-empty").render())
        assert "could not be loaded" in shown and "broken.toml" in shown


async def test_url_edit_updates_preview_and_dirty_mark(collection: Path, echo: EchoServer) -> None:
    app = make_app(collection, echo)
    async with app.run_test(size=(120, 40)) as pilot:
        await open_request(pilot, "users/list-users")
        await replace_url(pilot, "{{base_url}}/things/{{user.id}}/{{nope}}")
        screen = main_screen(app)
        preview = screen.query_one(UrlPreview)
        assert preview.url.startswith(f"{echo.url}/things/7/{{{{nope}}}}")
        assert preview.unresolved == ["nope"]
        editor = screen.query_one(RequestEditor)
        assert editor.dirty and editor.border_title.endswith("•")
        tree = screen.query_one(CollectionTree)
        node = next(
            n
            for n in tree._all_nodes()
            if isinstance(n.data, Request) and n.data.id == "users/list-users"
        )
        assert str(node.label).endswith("•")
        # The variables pane lists the unresolved name.
        pane = screen.query_one(VariablesPane)
        assert "nope" in pane._unresolved


async def test_send_to_echo_server_shows_response(collection: Path, echo: EchoServer) -> None:
    app = make_app(collection, echo)
    async with app.run_test(size=(120, 40)) as pilot:
        await open_request(pilot, "users/list-users")
        await pilot.press("ctrl+r")
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        exchange = main_screen(app).last_exchange
        assert exchange is not None and exchange.error is None
        assert exchange.status == 200
        assert exchange.json()["path"] == "/users"
        assert exchange.json()["query"]["q"] == ["Ada & Grace = #1 / 100%"]
        pane = main_screen(app).query_one("#response")
        assert pane.state == "done"
        status = str(pane.status_line.render())
        assert "200" in status and "OK" in status


async def test_environment_switch_changes_preview(collection: Path, echo: EchoServer) -> None:
    app = make_app(collection, echo)
    async with app.run_test(size=(120, 40)) as pilot:
        await open_request(pilot, "users/list-users")
        await replace_url(pilot, "{{base_url}}/{{stage}}")
        screen = main_screen(app)
        assert screen.query_one(UrlPreview).url.split("?")[0] == f"{echo.url}/local"
        await pilot.press("f4")
        await pilot.pause()
        await pilot.press("end", "enter")  # the last option: staging
        await pilot.pause()
        assert app.session.environment == "staging"
        assert screen.query_one(UrlPreview).url.split("?")[0] == f"{echo.url}/staging"
        assert "staging" in str(screen.query_one("#env").render())


async def test_save_writes_the_file(collection: Path, echo: EchoServer) -> None:
    app = make_app(collection, echo)
    async with app.run_test(size=(120, 40)) as pilot:
        await open_request(pilot, "users/list-users")
        await replace_url(pilot, "{{base_url}}/saved")
        await pilot.press("ctrl+s")
        await pilot.pause()
        editor = main_screen(app).query_one(RequestEditor)
        assert not editor.dirty
    text = (collection / "users" / "list-users.toml").read_text(encoding="utf-8")
    assert 'url = "{{base_url}}/saved"' in text
    assert not list((collection / "users").glob("*.tmp*"))  # the atomic write left nothing
    reloaded = load_collection(collection).find("users/list-users")
    assert reloaded is not None and reloaded[1].url == "{{base_url}}/saved"


async def test_quit_with_unsaved_changes_asks_first(collection: Path, echo: EchoServer) -> None:
    app = make_app(collection, echo)
    async with app.run_test(size=(120, 40)) as pilot:
        await open_request(pilot, "users/list-users")
        await replace_url(pilot, "{{base_url}}/unsaved")
        await pilot.press("ctrl+q")
        await pilot.pause()
        assert isinstance(app.screen, UnsavedScreen)
        await pilot.press("escape")  # cancel: still editing
        await pilot.pause()
        assert isinstance(app.screen, MainScreen) and app.is_running
        await pilot.press("ctrl+q")
        await pilot.pause()
        await pilot.press("d")  # discard
        await pilot.pause()
        assert not app.is_running
    text = (collection / "users" / "list-users.toml").read_text(encoding="utf-8")
    assert "/unsaved" not in text


async def test_switching_requests_with_unsaved_changes_asks(
    collection: Path, echo: EchoServer
) -> None:
    app = make_app(collection, echo)
    async with app.run_test(size=(120, 40)) as pilot:
        await open_request(pilot, "users/list-users")
        await replace_url(pilot, "{{base_url}}/kept")
        screen = main_screen(app)
        tree = screen.query_one(CollectionTree)
        tree.focus()
        node = next(
            n for n in tree._all_nodes() if isinstance(n.data, Request) and n.data.id == "auth/me"
        )
        tree.move_cursor(node)
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, UnsavedScreen)
        await pilot.press("s")  # save, then switch
        await pilot.pause()
        assert screen.query_one(RequestEditor).request.id == "auth/me"
    text = (collection / "users" / "list-users.toml").read_text(encoding="utf-8")
    assert "{{base_url}}/kept" in text


async def test_small_terminal_tree_collapses_and_send_works(
    collection: Path, echo: EchoServer
) -> None:
    app = make_app(collection, echo)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = main_screen(app)
        assert not screen.query_one("#vars-pane").display  # hidden below 100 columns
        await open_request(pilot, "users/list-users")
        await pilot.press("ctrl+b")
        await pilot.pause()
        assert not screen.query_one("#tree-pane").display
        editor = screen.query_one(RequestEditor)
        assert editor.region.width >= 70  # the editor takes the room
        await pilot.press("f5")
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert screen.last_exchange is not None and screen.last_exchange.status == 200
        await pilot.press("ctrl+b")
        await pilot.pause()
        assert screen.query_one("#tree-pane").display


async def test_method_cycles_with_arrow_keys_in_url(collection: Path, echo: EchoServer) -> None:
    app = make_app(collection, echo)
    async with app.run_test(size=(120, 40)) as pilot:
        request = await open_request(pilot, "users/list-users")
        await pilot.press("ctrl+l", "down")
        await pilot.pause()
        assert request.method == "POST"
        await pilot.press("up", "up")
        await pilot.pause()
        assert request.method == "OPTIONS"


async def test_json_body_editor_builds_and_types(collection: Path, echo: EchoServer) -> None:
    app = make_app(collection, echo)
    async with app.run_test(size=(120, 40)) as pilot:
        request = await open_request(pilot, "users/create-user")
        screen = main_screen(app)
        screen.query_one("#editor-tabs").active = "tab-body"
        await pilot.pause()
        area = screen.query_one("#body-text", TextArea)
        assert area.language == "json"
        area.focus()
        await pilot.press("ctrl+a")  # line start
        await pilot.press(*"[1, 2]")
        await pilot.pause()
        assert request.body.content.startswith("[1, 2]")
        area.load_text('{"a":1,"b":[true,null]}')
        await pilot.pause()
        await pilot.press("f8")
        await pilot.pause()
        assert request.body.content == '{\n  "a": 1,\n  "b": [\n    true,\n    null\n  ]\n}\n'
        area.load_text('{"age": {{user.age}}}')
        await pilot.pause()
        await pilot.press("f8")  # not valid JSON as written: left alone
        await pilot.pause()
        assert request.body.content == '{"age": {{user.age}}}'


async def test_help_screen_lists_bindings(collection: Path, echo: EchoServer) -> None:
    app = make_app(collection, echo)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("f1")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        sections = dict(app.screen._sections)
        assert ("ctrl+r, f5", "Send") in sections["Main screen"]
        assert ("n", "New request") in sections["Collection tree"]
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, MainScreen)


async def test_keymap_from_config_remaps_send(collection: Path, echo: EchoServer) -> None:
    class Config:
        theme = "pigeon-light"
        keys = {"send": "f9", "nonsense": "f10"}
        config_dir = None

    session = Session.open(collection)
    session.overrides["base_url"] = echo.url
    app = PigeonApp(session, config=Config(), theme_dirs=bundled_theme_dirs(), remember_theme=False)
    async with app.run_test(size=(120, 40)) as pilot:
        assert app.theme == "pigeon-light"
        assert any("nonsense" in p for p in app.startup_problems)
        await open_request(pilot, "users/list-users")
        await pilot.press("f9")
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert main_screen(app).last_exchange.status == 200


async def test_tree_new_rename_delete(collection: Path, echo: EchoServer) -> None:
    app = make_app(collection, echo)
    async with app.run_test(size=(120, 40)) as pilot:
        await open_request(pilot, "users/list-users")
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


async def test_variables_pane_edits_a_collection_variable(
    collection: Path, echo: EchoServer
) -> None:
    app = make_app(collection, echo)
    async with app.run_test(size=(120, 40)) as pilot:
        await open_request(pilot, "users/list-users")
        screen = main_screen(app)
        pane = screen.query_one(VariablesPane)
        pane.focus()
        node = next(n for n in pane.root.children if n.data is not None and n.data.name == "count")
        pane.move_cursor(node)
        await pilot.pause()
        await pilot.press("e")
        await pilot.pause()
        await pilot.press("ctrl+u", *"[1, 2]", "enter")
        await pilot.pause()
        assert app.session.collection.variables["count"] == [1, 2]
        assert load_collection(collection).variables["count"] == [1, 2]
        assert pane.rows["count"][0].value == [1, 2]


async def test_variables_pane_masks_secrets_and_clears_runtime(
    collection: Path, echo: EchoServer
) -> None:
    app = make_app(collection, echo)
    app.session.runtime.set("token", "s3cr3t-value")
    async with app.run_test(size=(120, 40)) as pilot:
        await open_request(pilot, "users/list-users")
        pane = main_screen(app).query_one(VariablesPane)
        node = next(n for n in pane.root.children if n.data is not None and n.data.name == "token")
        assert "s3cr3t" not in str(node.label) and "••••" in str(node.label)
        assert "runtime" in str(node.label)
        pane.focus()
        await pilot.press("v")
        await pilot.pause()
        node = next(n for n in pane.root.children if n.data is not None and n.data.name == "token")
        assert "s3cr3t-value" in str(node.label)
        await pilot.press("x")
        await pilot.pause()
        assert len(app.session.runtime) == 0
        assert "token" not in pane.rows


def test_open_session_without_a_directory_starts_the_demo_echo_server() -> None:
    from pigeon.tui.app import open_session

    session = open_session(None, None)
    try:
        assert session.echo is not None
        assert session.overrides["base_url"] == session.echo.url
        assert session.echo.url.startswith("http://127.0.0.1:")
        assert session.collection.name == "Pigeon demo"
        assert session.environment == "local"
        scopes = session.scopes_for(None)
        assert scopes.get("base_url") == session.echo.url  # wins over every environment
    finally:
        session.echo.stop()


def test_open_session_errors(tmp_path: Path) -> None:
    from pigeon.tui.app import OpenError, open_session

    with pytest.raises(OpenError, match="not found"):
        open_session(tmp_path / "missing", None)
    with pytest.raises(OpenError, match="unknown environment 'nope'"):
        open_session(DEMO, "nope")


async def test_demo_status_bar_names_the_echo_server() -> None:
    from pigeon.tui.app import open_session

    session = open_session(None, None)
    app = PigeonApp(session, theme_dirs=bundled_theme_dirs(), remember_theme=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        status = str(main_screen(app).query_one("#status").render())
        assert f"echo server on {session.echo.url}" in status
        assert "env local" in status
    assert session.echo is None  # closed with the app


async def test_script_sets_variable_after_trust(collection: Path, echo: EchoServer) -> None:
    from pigeon.config import TrustStore
    from pigeon.tui.screens.trust import TrustScreen

    app = make_app(collection, echo)
    async with app.run_test(size=(120, 40)) as pilot:
        await open_request(pilot, "auth/login")
        await pilot.press("ctrl+r")
        await pilot.pause()
        assert isinstance(app.screen, TrustScreen)
        await pilot.press("t")
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        screen = main_screen(app)
        assert screen.last_exchange.status == 200
        token = app.session.runtime.get("token")
        assert isinstance(token, str) and token
        assert TrustStore().is_trusted(collection)
        pane = screen.query_one(VariablesPane)
        assert pane.rows["token"][0].scope == "runtime"
        # "Who am I" sends the token the script kept: the echo server accepts it.
        await open_request(pilot, "auth/me")
        await pilot.press("ctrl+r")
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert screen.last_exchange.status == 200


async def test_untrusted_scripts_are_skipped_and_asked_once(
    collection: Path, echo: EchoServer
) -> None:
    from pigeon.tui.screens.trust import TrustScreen

    app = make_app(collection, echo)
    async with app.run_test(size=(120, 40)) as pilot:
        await open_request(pilot, "auth/login")
        await pilot.press("ctrl+r")
        await pilot.pause()
        assert isinstance(app.screen, TrustScreen)
        await pilot.press("n")  # not now
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert main_screen(app).last_exchange.status == 200  # sent all the same
        assert app.session.runtime.get("token") is None
        await pilot.press("ctrl+r")
        await pilot.pause()
        assert not isinstance(app.screen, TrustScreen)  # not asked again this session
        await app.workers.wait_for_complete()


async def test_script_error_shows_toast_and_log(collection: Path, echo: EchoServer) -> None:
    from pigeon.config import TrustStore
    from pigeon.tui.screens.log import LogScreen

    (collection / "users" / "failing.toml").write_text(
        'name = "Failing"\nurl = "{{base_url}}/x"\n\n[scripts]\n'
        "pre_request = '''\nprint(\"about to fail\")\nraise ValueError(\"boom\")\n'''\n",
        encoding="utf-8",
    )
    TrustStore().trust(collection)
    app = make_app(collection, echo)
    async with app.run_test(size=(120, 40)) as pilot:
        await open_request(pilot, "users/failing")
        await pilot.press("ctrl+r")
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert main_screen(app).last_exchange is None  # a failed pre-request script stops it
        messages = [n.message for n in app._notifications]
        assert any("ValueError: boom" in m for m in messages)
        assert any(e.error and "boom" in e.text for e in app.session.log)
        assert any("about to fail" in e.text for e in app.session.log)
        await pilot.press("f2")
        await pilot.pause()
        assert isinstance(app.screen, LogScreen)
        await pilot.press("escape")
        await pilot.pause()
        assert app.is_running and isinstance(app.screen, MainScreen)


async def test_theme_choice_is_remembered_in_the_config(collection: Path, echo: EchoServer) -> None:
    from pigeon.config import AppConfig

    config = AppConfig.load()
    session = Session.open(collection)
    session.overrides["base_url"] = echo.url
    app = PigeonApp(session, config=config, theme_dirs=bundled_theme_dirs())
    async with app.run_test(size=(120, 40)) as pilot:
        assert app.theme == "pigeon-dark"
        assert {"pigeon-light", "pigeon-nord", "pigeon-solarized"} <= set(app.available_themes)
        app.theme = "pigeon-nord"  # what the palette's theme picker does
        await pilot.pause()
    assert AppConfig.load().theme == "pigeon-nord"
    assert 'theme = "pigeon-nord"' in config.file.read_text(encoding="utf-8")


async def test_escape_cancels_a_slow_send(collection: Path, echo: EchoServer) -> None:
    app = make_app(collection, echo)
    async with app.run_test(size=(120, 40)) as pilot:
        await open_request(pilot, "responses/slow")
        await pilot.press("ctrl+r")
        await pilot.pause(0.3)
        screen = main_screen(app)
        assert screen._sending_workers()
        await pilot.press("escape")
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert not screen._sending_workers()
        assert screen.last_exchange is None
        assert screen.query_one("#response").state == "cancelled"
        assert app.is_running


async def test_response_body_filter_after_send(collection: Path, echo: EchoServer) -> None:
    app = make_app(collection, echo)
    async with app.run_test(size=(120, 40)) as pilot:
        await open_request(pilot, "users/list-users")
        await pilot.press("ctrl+r")
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        pane = main_screen(app).query_one("#response")
        view = pane.body_view
        for _ in range(50):  # the pretty view is built in a worker
            await app.workers.wait_for_complete()
            await pilot.pause()
            if view.is_json:
                break
        view.focus()
        await pilot.press("f")
        await pilot.pause()
        await pilot.press(*"query.q[0]", "enter")
        for _ in range(50):
            await app.workers.wait_for_complete()
            await pilot.pause()
            if view.filter_expression:
                break
        assert view.filter_expression == "query.q[0]"
        assert view.phase == "filtered"
        assert view.text.strip() == '"Ada & Grace = #1 / 100%"'
