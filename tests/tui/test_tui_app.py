"""The app driven through keys with Pilot: open, preview, send, environments, layout, keys."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Input, OptionList
from tui_support import (
    DEMO,
    burst,
    main_screen,
    open_request,
    paste_url,
    press_and_settle,
    replace_url,
    running,
    settle,
    show_tab,
    wait_for,
)

from pigeon.echo import EchoServer
from pigeon.exporters import REQUEST_KINDS
from pigeon.model import Request
from pigeon.session import Session
from pigeon.tui.app import PigeonApp
from pigeon.tui.screens.export_kind import ExportKindScreen
from pigeon.tui.screens.help import HelpScreen
from pigeon.tui.screens.main import MainScreen
from pigeon.tui.themes import bundled_theme_dirs
from pigeon.tui.widgets.collection.collection_tree import CollectionTree
from pigeon.tui.widgets.editor.request_editor import RequestEditor
from pigeon.tui.widgets.editor.url_preview import UrlPreview
from pigeon.tui.widgets.variables.variables_pane import VariablesPane


async def test_opens_collection_with_tree_and_broken_file(app: PigeonApp) -> None:
    async with running(app) as pilot:
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


async def test_url_edit_updates_preview_and_dirty_mark(app: PigeonApp, echo: EchoServer) -> None:
    async with running(app, "users/list-users") as pilot:
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


async def test_the_tree_lists_by_name_shown_with_a_broken_file_in_its_folder(
    tmp_path: Path,
) -> None:
    root = tmp_path / "c"
    files = {
        "collection.toml": 'name = "C"\n',
        "z-file.toml": 'name = "Apple"\n',
        "a-file.toml": 'name = "Zebra"\n',
        "users/folder.toml": 'name = "Users"\norder = ["last"]\n',
        "users/last.toml": 'name = "Listed"\n',
        "users/a.toml": 'name = "Alpha"\n',
        "users/c.toml": 'name = "Gamma"\n',
        "users/beta.toml": "name = \n",  # broken
    }
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    app = PigeonApp(Session.open(root), theme_dirs=bundled_theme_dirs(), remember_theme=False)
    async with running(app) as pilot:
        await pilot.pause()
        tree = main_screen(app).query_one(CollectionTree)

        def labels(node) -> list[str]:
            return [str(n.label) for n in node.children]

        assert labels(tree.root) == ["GET  Apple", "Users", "GET  Zebra"]
        users = tree.root.children[1]
        assert labels(users) == ["GET  Listed", "GET  Alpha", "⚠ beta.toml", "GET  Gamma"]


async def test_send_to_echo_server_shows_response(app: PigeonApp) -> None:
    async with running(app, "users/list-users") as pilot:
        await press_and_settle(pilot, "ctrl+r")
        exchange = main_screen(app).last_exchange
        assert exchange is not None and exchange.error is None
        assert exchange.status == 200
        assert exchange.json()["path"] == "/users"
        assert exchange.json()["query"]["q"] == ["Ada & Grace = #1 / 100%"]
        pane = main_screen(app).query_one("#response")
        assert pane.state == "done"
        status = str(pane.status_line.render())
        assert "200" in status and "OK" in status


async def test_environment_switch_changes_preview(app: PigeonApp, echo: EchoServer) -> None:
    async with running(app, "users/list-users") as pilot:
        await paste_url(pilot, "{{base_url}}/{{stage}}")
        screen = main_screen(app)
        assert screen.query_one(UrlPreview).url.split("?")[0] == f"{echo.url}/local"
        await pilot.press("f4")
        await pilot.pause()
        await pilot.press("end", "enter")  # the last option: staging
        await pilot.pause()
        assert app.session.environment == "staging"
        assert screen.query_one(UrlPreview).url.split("?")[0] == f"{echo.url}/staging"
        assert "staging" in str(screen.query_one("#env").render())


async def test_small_terminal_tree_collapses_and_send_works(app: PigeonApp) -> None:
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = main_screen(app)
        assert not screen.query_one("#vars-pane").display  # hidden below 100 columns
        await open_request(pilot, "users/list-users")
        await pilot.press("ctrl+t")
        await pilot.pause()
        assert not screen.query_one("#tree-pane").display
        editor = screen.query_one(RequestEditor)
        assert editor.region.width >= 70  # the editor takes the room
        await press_and_settle(pilot, "f5")
        assert screen.last_exchange is not None and screen.last_exchange.status == 200
        await pilot.press("ctrl+t")
        await pilot.pause()
        assert screen.query_one("#tree-pane").display


async def test_method_cycles_with_arrow_keys_in_url(app: PigeonApp) -> None:
    async with running(app) as pilot:
        request = await open_request(pilot, "users/list-users")
        await pilot.press("ctrl+l", "down")
        await pilot.pause()
        assert request.method == "POST"
        await pilot.press("up", "up")
        await pilot.pause()
        assert request.method == "OPTIONS"


async def test_help_screen_lists_bindings(app: PigeonApp) -> None:
    async with running(app) as pilot:
        await pilot.press("f1")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        sections = dict(app.screen._sections)
        assert ("ctrl+r, f5", "Send the request", "send") in sections["Main screen"]
        assert ("n", "New request", "tree.new_request") in sections["Collection tree"]
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, MainScreen)


async def test_the_help_screen_keeps_descriptions_readable_on_a_small_terminal(
    app: PigeonApp,
) -> None:
    async with app.run_test(size=(60, 20)) as pilot:
        await pilot.press("f1")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        lines = [
            table.render_line(y).text
            for table in app.screen.query(".help-table")
            for y in range(table.size.height)
        ]
        # Each id goes under its description, which keeps the width the ids had.
        assert any("Go to the next or the" in line for line in lines), lines
        send = next(i for i, line in enumerate(lines) if line.startswith("ctrl+r, f5"))
        assert "Send the request" in lines[send]
        assert lines[send + 1].strip() == "send"


async def test_keymap_from_config_remaps_send(collection: Path, echo: EchoServer) -> None:
    from pigeon.config import AppConfig

    keys = {"send": "f9", "nonsense": "f10", "save": "ctrl+banana"}
    config = AppConfig(theme="pigeon-light", keys=keys)
    session = Session.open(collection)
    session.overrides["base_url"] = echo.url
    app = PigeonApp(session, config=config, theme_dirs=bundled_theme_dirs(), remember_theme=False)
    async with running(app) as pilot:
        assert app.theme == "pigeon-light"
        assert any("nonsense" in p for p in app.startup_problems)
        assert any("'ctrl+banana' is not a key" in p for p in app.startup_problems)
        await open_request(pilot, "users/list-users")
        await press_and_settle(pilot, "f9")
        assert main_screen(app).last_exchange.status == 200


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
    async with running(app) as pilot:
        await pilot.pause()
        status = str(main_screen(app).query_one("#status").render())
        assert f"echo server on {session.echo.url}" in status
        assert "env local" in status
    assert session.echo is None  # closed with the app


async def test_url_completion_accepts_with_right_arrow(app: PigeonApp) -> None:
    async with running(app) as pilot:
        request = await open_request(pilot, "users/list-users")
        await replace_url(pilot, "{{us")
        await settle(pilot)
        await pilot.press("right")
        await pilot.pause()
        assert request.url == "{{user."
        await pilot.press(*"ad")
        await settle(pilot)
        await pilot.press("right")
        await pilot.pause()
        assert request.url == "{{user.address."


async def test_copy_as_curl(app: PigeonApp, echo: EchoServer) -> None:
    async with running(app, "users/list-users") as pilot:
        await pilot.press("f3")
        await pilot.pause()
        assert isinstance(app.screen, ExportKindScreen)  # curl first, nothing chosen yet
        await pilot.press("enter")
        await pilot.pause()
        assert app.clipboard.startswith("curl")
        assert f"{echo.url}/users" in app.clipboard


async def test_f3_offers_every_kind_and_remembers_the_last_one(
    app: PigeonApp, echo: EchoServer
) -> None:
    async with running(app, "users/list-users") as pilot:
        await pilot.press("f3")
        await pilot.pause()
        kinds = app.screen.query_one(OptionList)
        assert [kinds.get_option_at_index(i).id for i in range(kinds.option_count)] == list(
            REQUEST_KINDS
        )
        await pilot.press("down", "down", "down", "enter")  # curl, httpie, wget, python
        await pilot.pause()
        assert app.clipboard.startswith("import httpx")
        assert f"{echo.url}/users" in app.clipboard
        assert "export_kind = \"python\"" in app.config.file.read_text()
        app.copy_to_clipboard("")
        await pilot.press("f3")
        await pilot.pause()
        assert app.screen.query_one(OptionList).highlighted == REQUEST_KINDS.index("python")
        await pilot.press("escape")  # nothing copied
        await pilot.pause()
        assert not isinstance(app.screen, ExportKindScreen)
        assert app.clipboard == ""


async def test_quit_from_the_help_screen(app: PigeonApp) -> None:
    async with running(app) as pilot:
        await pilot.press("f1")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("ctrl+q")
        await pilot.pause()
        assert not app.is_running


async def test_small_terminal_shows_one_side_pane_at_a_time(app: PigeonApp) -> None:
    async with app.run_test(size=(80, 24)) as pilot:
        await open_request(pilot, "users/list-users")
        screen = main_screen(app)
        assert screen.query_one("#tree-pane").display
        await pilot.press("ctrl+g")
        await pilot.pause()
        assert screen.query_one("#vars-pane").display
        assert not screen.query_one("#tree-pane").display
        assert isinstance(app.focused, VariablesPane)
        await pilot.press("ctrl+g")
        await pilot.pause()
        assert not screen.query_one("#vars-pane").display
        assert app.focused is screen.query_one("#url", Input)


# -- the command palette ------------------------------------------------------------------------


def palette_titles(app: PigeonApp) -> list[str]:
    return [command.title for command in app.get_system_commands(main_screen(app))]


async def run_from_palette(pilot, query: str, title: str) -> None:
    """Open the palette (on whatever has the focus), search ``query``, run the top hit, which
    must be ``title``."""
    from textual.command import CommandList, CommandPalette

    await pilot.press("ctrl+p")
    await wait_for(pilot, lambda: isinstance(pilot.app.screen, CommandPalette))
    # Typed in one go, as a quick typist's keys come: a search for each letter is not waited
    # for, only the one for the whole query.
    burst(pilot.app, *query)
    typed = pilot.app.screen.query_one(Input)
    await wait_for(pilot, lambda: typed.value == query)
    results = pilot.app.screen.query_one(CommandList)

    def top_hit() -> str:
        if not results.option_count or results.highlighted is None:
            return ""
        return str(results.get_option_at_index(results.highlighted).prompt).split("\n")[0]

    await wait_for(pilot, lambda: top_hit() == title)
    palette = pilot.app.screen
    await pilot.press("enter")
    await wait_for(pilot, lambda: pilot.app.screen is not palette)
    await pilot.pause()


async def test_palette_offers_the_actions_of_the_focused_widget(app: PigeonApp) -> None:
    async with running(app) as pilot:
        await pilot.pause()
        screen = main_screen(app)
        screen.query_one(CollectionTree).focus()
        await pilot.pause()
        titles = palette_titles(app)
        assert len(titles) == len(set(titles))  # no command twice ("Keys" was)
        assert "Keys" not in titles and "Help" in titles and "Theme" in titles
        for title in (
            "Collection tree: Rename",
            "Collection tree: New folder",
            "Send the request",
            "Go to URL",
            "Show or hide the collection tree",
            "Show the history of sends, or the collection again",
            "Reload collection",
            "Quit",
        ):
            assert title in titles, title
        assert "Cancel the send" not in titles  # nothing is being sent
        assert not any(t.startswith(("Response", "Variables pane")) for t in titles)

        await run_from_palette(pilot, "new folder", "Collection tree: New folder")
        from pigeon.tui.dialogs.prompt import PromptScreen

        assert isinstance(app.screen, PromptScreen)
        await pilot.press("escape")
        await pilot.pause()

        await run_from_palette(
            pilot, "history of sends", "Show the history of sends, or the collection again"
        )
        assert screen.query_one("#tree-pane").border_title == "History"


async def test_palette_runs_response_and_variables_actions(app: PigeonApp) -> None:
    async with running(app, "users/list-users") as pilot:
        screen = main_screen(app)
        screen.query_one(VariablesPane).focus()
        await pilot.pause()
        assert "Variables pane: Edit variable" in palette_titles(app)
        assert "Clear runtime variables" not in palette_titles(app)  # the pane's own x is there
        await run_from_palette(pilot, "reveal secrets", "Variables pane: Reveal secrets")
        assert screen.query_one(VariablesPane).revealed

        await press_and_settle(pilot, "ctrl+r")
        from pigeon.tui.widgets.response.body_view import BodyView

        body = screen.query_one("#response").query_one(BodyView)
        body.focus()
        await pilot.pause()
        titles = palette_titles(app)
        for title in ("Response: Copy body", "Response: Save body", "Response body: Filter"):
            assert title in titles, title
        await run_from_palette(pilot, "copy body", "Response: Copy body")
        assert '"path": "/users"' in app.clipboard or '"path":"/users"' in app.clipboard
        await run_from_palette(pilot, "search", "Response body: Search")
        assert isinstance(app.focused, Input)  # the search bar, ready for text


async def test_palette_runs_format_json_in_the_body_editor(app: PigeonApp) -> None:
    from textual.widgets import TextArea

    async with running(app, "users/create-user") as pilot:
        screen = await show_tab(pilot, "tab-body")
        area = screen.query_one("#body-text", TextArea)
        area.load_text('{"a": [1,2]}')
        area.focus()
        await pilot.pause()
        await run_from_palette(pilot, "format json", "Body: Format JSON")
        assert area.text == '{\n  "a": [\n    1,\n    2\n  ]\n}\n'


async def test_theme_switched_from_the_palette_is_remembered(
    collection: Path, echo: EchoServer
) -> None:
    from pigeon.config import AppConfig

    config = AppConfig.load()
    session = Session.open(collection)
    session.overrides["base_url"] = echo.url
    app = PigeonApp(session, config=config, theme_dirs=bundled_theme_dirs())
    async with running(app) as pilot:
        await run_from_palette(pilot, "theme", "Theme")
        await run_from_palette_list(pilot, "pigeon-nord")
        assert app.theme == "pigeon-nord"
    assert AppConfig.load().theme == "pigeon-nord"
    assert 'theme = "pigeon-nord"' in config.file.read_text(encoding="utf-8")


async def run_from_palette_list(pilot, title: str) -> None:
    """In a palette already open (the theme picker), search ``title`` and choose it."""
    from textual.command import CommandList, CommandPalette

    await wait_for(pilot, lambda: isinstance(pilot.app.screen, CommandPalette))
    burst(pilot.app, *title)  # in one go, as run_from_palette types
    typed = pilot.app.screen.query_one(Input)
    await wait_for(pilot, lambda: typed.value == title)
    results = pilot.app.screen.query_one(CommandList)

    def top_hit() -> str:
        if not results.option_count or results.highlighted is None:
            return ""
        return str(results.get_option_at_index(results.highlighted).prompt).split("\n")[0]

    await wait_for(pilot, lambda: top_hit() == title)
    await pilot.press("enter")
    await wait_for(pilot, lambda: not isinstance(pilot.app.screen, CommandPalette))


# -- help and keys ------------------------------------------------------------------------------


async def test_help_screen_shows_each_action_id(app: PigeonApp) -> None:
    async with running(app, size=(120, 200)) as pilot:  # tall enough to show every section
        await pilot.press("f1")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        picture = app.export_screenshot()
        for action_id in ("send", "toggle_tree", "tree.rename", "vars.edit", "response.copy_body"):
            assert f">{action_id}<" in picture or f">{action_id}&#160;" in picture, action_id


async def test_tree_toggle_is_ctrl_t_and_can_be_remapped(
    collection: Path, echo: EchoServer
) -> None:
    from pigeon.config import AppConfig

    config = AppConfig(keys={"toggle_tree": "ctrl+b"})
    session = Session.open(collection)
    session.overrides["base_url"] = echo.url
    app = PigeonApp(session, config=config, theme_dirs=bundled_theme_dirs(), remember_theme=False)
    async with running(app) as pilot:
        pane = main_screen(app).query_one("#tree-pane")
        await pilot.press("ctrl+t")
        await pilot.pause()
        assert pane.display  # remapped away
        await pilot.press("ctrl+b")
        await pilot.pause()
        assert not pane.display


async def test_default_keys_avoid_multiplexer_prefixes(app: PigeonApp) -> None:
    from pigeon.tui.keys import bindings_of, expand_groups

    async with running(app) as pilot:
        await pilot.press("ctrl+b", "ctrl+a")  # tmux's and screen's prefixes do nothing here
        await pilot.pause()
        assert main_screen(app).query_one("#tree-pane").display
    keys = {
        key.strip()
        for _, cls in expand_groups(PigeonApp.help_groups())
        for binding in bindings_of(cls)
        for key in binding.key.split(",")
    }
    assert "ctrl+t" in keys
    assert not keys & {"ctrl+b", "ctrl+a"}


# -- failures shown after a real send -----------------------------------------------------------


async def test_a_timeout_is_shown_in_the_response_pane(app: PigeonApp, echo: EchoServer) -> None:
    async with running(app, "users/list-users") as pilot:
        request = main_screen(app).query_one(RequestEditor).request
        request.settings.timeout = 1.5  # sending takes longer than 0.3 s on a loaded machine
        await paste_url(pilot, f"{echo.url}/delay/5")
        await press_and_settle(pilot, "ctrl+r")
        pane = main_screen(app).query_one("#response")
        assert pane.state == "error"
        assert pane.exchange.error_kind == "timeout"
        shown = str(pane.status_line.render()) + str(pane.body_view.render())
        assert "Timed out after 1.5 s waiting for the response headers" in shown


async def test_a_body_cut_off_by_the_timeout_is_shown_with_the_error(app: PigeonApp) -> None:
    from servers import body_a_byte_at_a_time, slow_server

    with slow_server(body_a_byte_at_a_time) as server:
        async with running(app, "users/list-users") as pilot:
            request = main_screen(app).query_one(RequestEditor).request
            request.settings.timeout = 1.0
            await paste_url(pilot, server.url)
            await press_and_settle(pilot, "ctrl+r")
            pane = main_screen(app).query_one("#response")
            exchange = pane.exchange
            assert exchange.status == 200 and exchange.cut_off and exchange.body_size > 0
            line = pane.status_line.plain
            assert line.startswith("200 OK")
            assert (
                f"Timed out after 1.0 s while reading the body, {exchange.body_size} byte" in line
            )
            assert pane.body_view.text == "x" * exchange.body_size  # what arrived, shown


async def test_a_tls_failure_is_shown_in_the_response_pane(app: PigeonApp) -> None:
    import trustme

    from servers import tls_echo_server

    with tls_echo_server(trustme.CA()) as server:
        async with running(app, "users/list-users") as pilot:
            await paste_url(pilot, f"{server.url}/x")
            await press_and_settle(pilot, "ctrl+r")
            pane = main_screen(app).query_one("#response")
            assert pane.state == "error"
            assert pane.exchange.error_kind == "tls"
            shown = str(pane.status_line.render()) + str(pane.body_view.render())
            assert "TLS verification failed" in shown
            assert server.request_count == 0


@pytest.mark.parametrize("width", [70, 78, 100, 109, 110, 119, 120, 160])
async def test_the_editor_keeps_room_at_every_width(app: PigeonApp, width: int) -> None:
    async with running(app, "users/list-users", size=(width, 30)) as pilot:
        await pilot.pause()
        screen = main_screen(app)
        editor = screen.query_one(RequestEditor)
        assert editor.outer_size.width >= 60, (width, editor.outer_size.width)
        assert screen.query_one("#tree-pane").display == (width >= 78)  # 18 columns and 60
        assert screen.query_one("#vars-pane").display == (width >= 110)


async def test_a_key_the_collection_does_not_read_is_named_when_the_app_starts(
    collection: Path,
) -> None:
    from pigeon.config import AppConfig

    (collection / "typo.toml").write_text('name = "Typo"\nurll = "http://127.0.0.1:9/"\n')
    (collection / "typo2.toml").write_text('name = "Typo 2"\ntimeot = 5\n')
    session = Session.open(collection)
    app = PigeonApp(session, config=AppConfig(), theme_dirs=bundled_theme_dirs())
    async with running(app):
        (problem,) = [p for p in app.startup_problems if "unknown key" in p]
        assert f"{collection / 'typo.toml'}:2:1: unknown key `urll`" in problem
        assert (
            "did you mean `url`?" in problem and "(and 1 more: pigeon check lists them)" in problem
        )
