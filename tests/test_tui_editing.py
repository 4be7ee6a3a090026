"""The app's editing paths with Pilot: save, unsaved-changes prompts, body, tree and variables edits, themes."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Input, TextArea

from pigeon.echo import EchoServer
from pigeon.model import Request
from pigeon.store import load_collection
from pigeon.tui.app import PigeonApp
from pigeon.tui.screens.confirm import UnsavedScreen
from pigeon.tui.screens.main import MainScreen
from pigeon.tui.session import Session
from pigeon.tui.themes import bundled_theme_dirs
from pigeon.tui.widgets.collection_tree import CollectionTree
from pigeon.tui.widgets.request_editor import RequestEditor
from pigeon.tui.widgets.variables_pane import VariablesPane
from test_tui_support import (  # noqa: F401 - fixtures
    DEMO,
    collection_fixture,
    echo_fixture,
    main_screen,
    make_app,
    open_request,
    private_config_fixture,
    replace_url,
)


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


async def test_duplicate_and_move(collection: Path, echo: EchoServer) -> None:
    from pigeon.tui.screens.choose import ChooseScreen

    app = make_app(collection, echo)
    async with app.run_test(size=(120, 40)) as pilot:
        await open_request(pilot, "users/list-users")
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
        await pilot.pause()
        assert not copy_file.exists()
        assert (collection / "list-users-copy.toml").is_file()


async def test_save_refused_when_the_file_broke_on_disk(collection: Path, echo: EchoServer) -> None:
    app = make_app(collection, echo)
    async with app.run_test(size=(120, 40)) as pilot:
        await open_request(pilot, "users/list-users")
        target = collection / "users" / "list-users.toml"
        target.write_text("name = 'half typed\n", encoding="utf-8")  # a hand edit in progress
        await replace_url(pilot, "{{base_url}}/x")
        await pilot.press("ctrl+s")
        await pilot.pause()
        editor = main_screen(app).query_one(RequestEditor)
        assert editor.dirty  # nothing lost: still unsaved
        assert any("Not saved" in n.message for n in app._notifications)
        assert target.read_text(encoding="utf-8") == "name = 'half typed\n"


async def test_auth_and_settings_edits(collection: Path, echo: EchoServer) -> None:
    app = make_app(collection, echo)
    async with app.run_test(size=(120, 40)) as pilot:
        request = await open_request(pilot, "users/list-users")
        screen = main_screen(app)
        screen.query_one("#editor-tabs").active = "tab-settings"
        await pilot.pause()
        timeout = screen.query_one("#setting-timeout", Input)
        timeout.focus()
        await pilot.press("ctrl+u", *"2.5")
        await pilot.pause()
        assert request.settings.timeout == 2.5
        await pilot.press("ctrl+u", "0")
        await pilot.pause()
        assert request.settings.timeout == 2.5  # refused: must be more than 0
        assert "more than 0" in str(screen.query_one("#setting-error").render())
        screen.query_one("#editor-tabs").active = "tab-auth"
        await pilot.pause()
        screen.query_one("#auth-type").value = "bearer"
        await pilot.pause()
        token = screen.query_one("#auth-token", Input)
        token.focus()
        await pilot.press(*"{{tok")
        await pilot.pause()
        assert request.auth is not None and request.auth.type == "bearer"
        assert request.auth.token == "{{tok"
        await pilot.press("ctrl+s")
        await pilot.pause()
    saved = load_collection(collection).find("users/list-users")[1]
    assert saved.settings.timeout == 2.5 and saved.auth.token == "{{tok"


async def test_maximise_and_palette_reload(collection: Path, echo: EchoServer) -> None:
    app = make_app(collection, echo)
    async with app.run_test(size=(120, 40)) as pilot:
        await open_request(pilot, "users/list-users")
        screen = main_screen(app)
        await pilot.press("ctrl+o")
        await pilot.pause()
        assert screen.maximized is screen.query_one(RequestEditor)
        await pilot.press("ctrl+o")
        await pilot.pause()
        assert screen.maximized is None
        (collection / "users" / "added.toml").write_text(
            'name = "Added"\nurl = "x"\n', encoding="utf-8"
        )
        await pilot.press("ctrl+p")
        await pilot.pause()
        await pilot.press(*"Reload collection")
        await pilot.pause(0.3)
        await pilot.press("enter")
        await pilot.pause()
        tree = screen.query_one(CollectionTree)
        assert any(
            isinstance(n.data, Request) and n.data.id == "users/added" for n in tree._all_nodes()
        )
        assert screen.query_one(RequestEditor).request.id == "users/list-users"
