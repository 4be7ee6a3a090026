"""Keys: a burst of keys goes where the focus moves, vim-style moves, a key per pane, $EDITOR."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import pytest
from textual import events
from textual.color import Color
from textual.drivers import headless_driver
from textual.drivers.headless_driver import HeadlessDriver
from textual.widgets import Input, TabbedContent, TextArea
from textual.widgets._tabbed_content import ContentTabs
from tui_support import (
    burst,
    main_screen,
    make_app,
    open_request,
    press_and_settle,
    running,
    show_tab,
    wait_for,
)

from pigeon.echo import EchoServer
from pigeon.session import Session
from pigeon.tui.app import PigeonApp
from pigeon.tui.screens.help import HelpScreen
from pigeon.tui.themes import bundled_theme_dirs
from pigeon.tui.widgets.collection.collection_tree import CollectionTree
from pigeon.tui.widgets.editor.pair_table import PairTable
from pigeon.tui.widgets.key_footer import KeyFooter
from pigeon.tui.widgets.response.body_view import BodyView
from pigeon.tui.widgets.response.folding_view import FoldingBodyView
from pigeon.tui.widgets.variables.variables_pane import VariablesPane

pytestmark = pytest.mark.timeout(120)


async def test_a_burst_after_f_goes_to_the_filter_bar(
    app: PigeonApp, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """f + an expression + enter in one burst filters the body: no key of the expression
    reaches the body's own keys (its s saved the body into the working directory)."""
    workdir = tmp_path / "cwd"
    workdir.mkdir()
    monkeypatch.chdir(workdir)
    async with running(app, "users/list-users") as pilot:
        await press_and_settle(pilot, "ctrl+r")
        screen = main_screen(app)
        view = screen.query_one("#body-view", BodyView)
        view.focus()
        await pilot.pause()
        burst(app, "f", *"query.q[0]", "enter")
        await wait_for(pilot, lambda: view.is_filtered)
        assert screen.query_one("#body-bar-input", Input).value == "query.q[0]"
        assert view.text == '"Ada & Grace = #1 / 100%"'
        assert app.screen is screen  # no save prompt
        assert list(workdir.iterdir()) == []


async def test_a_burst_after_slash_searches_the_body(app: PigeonApp) -> None:
    async with running(app, "users/list-users") as pilot:
        await press_and_settle(pilot, "ctrl+r")
        screen = main_screen(app)
        view = screen.query_one("#body-view", BodyView)
        view.focus()
        await pilot.pause()
        burst(app, "/", *"users", "enter")
        await wait_for(pilot, lambda: view.search_text == "users")
        await wait_for(pilot, lambda: app.focused is view)
        assert view.match_count >= 1


# -- a key per pane -----------------------------------------------------------------------------


async def test_alt_digits_reach_each_pane(app: PigeonApp) -> None:
    async with running(app, "users/list-users", size=(130, 40)) as pilot:
        await press_and_settle(pilot, "ctrl+r")
        screen = main_screen(app)
        await pilot.press("alt+3")
        await wait_for(pilot, lambda: isinstance(app.focused, BodyView))
        await pilot.press("alt+4")
        await wait_for(pilot, lambda: isinstance(app.focused, VariablesPane))
        await pilot.press("alt+1")
        await wait_for(pilot, lambda: isinstance(app.focused, CollectionTree))
        await pilot.press("alt+2")
        await wait_for(pilot, lambda: app.focused is screen.query_one("#headers", PairTable))
        # A hidden side pane is shown to be focused.
        await pilot.press("ctrl+g")
        await wait_for(pilot, lambda: not screen.query_one("#vars-pane").display)
        await pilot.press("alt+4")
        await wait_for(pilot, lambda: isinstance(app.focused, VariablesPane))
        assert screen.query_one("#vars-pane").display


async def test_the_footer_shows_one_entry_for_the_pane_keys(app: PigeonApp) -> None:
    async with running(app, size=(200, 40)) as pilot:
        await pilot.pause()
        footer = main_screen(app).query_one(KeyFooter)
        await wait_for(pilot, lambda: "alt+1…4" in _footer_text(footer))
        assert "Panes" in _footer_text(footer)


def _footer_text(footer: KeyFooter) -> str:
    return " ".join(f"{key.key_display} {key.description}" for key in footer.shown)


async def test_a_remapped_pane_key_shows_its_own_key(collection: Path, echo: EchoServer) -> None:
    from pigeon.config import AppConfig

    session = Session.open(collection)
    session.overrides["base_url"] = echo.url
    config = AppConfig(keys={"pane.tree": "f9"})
    app = PigeonApp(session, config=config, theme_dirs=bundled_theme_dirs(), remember_theme=False)
    async with running(app, size=(200, 40)) as pilot:
        footer = main_screen(app).query_one(KeyFooter)
        await wait_for(pilot, lambda: "f9 Panes" in _footer_text(footer))
        main_screen(app).editor.focus_url()
        await pilot.press("f9")
        await wait_for(pilot, lambda: isinstance(app.focused, CollectionTree))


# -- vim-style moves ----------------------------------------------------------------------------


async def test_vim_keys_move_in_the_tree(app: PigeonApp) -> None:
    async with running(app) as pilot:
        tree = main_screen(app).query_one(CollectionTree)
        tree.focus()
        await pilot.pause()
        start = tree.cursor_line
        await pilot.press("j", "j")
        assert tree.cursor_line == start + 2
        await pilot.press("k")
        assert tree.cursor_line == start + 1
        await pilot.press("G")
        assert tree.cursor_line == tree.last_line
        await pilot.press("g", "g")
        assert tree.cursor_line == 0
        half = tree.scrollable_content_region.height // 2
        await pilot.press("ctrl+d")  # half a page, as in vim
        assert 1 < tree.cursor_line == min(half, tree.last_line)
        await pilot.press("ctrl+u")
        assert tree.cursor_line == 0


async def test_vim_keys_move_in_a_table(app: PigeonApp) -> None:
    async with running(app, "users/list-users") as pilot:
        main_screen(app).query_one("#editor-tabs").active = "tab-query"
        table = main_screen(app).query_one("#query", PairTable)
        table.focus()
        await pilot.pause()
        assert table.row_count == 5
        await pilot.press("j")
        assert table.cursor_row == 1
        await pilot.press("k")
        assert table.cursor_row == 0
        await pilot.press("G")
        assert table.cursor_row == table.row_count - 1
        await pilot.press("g")
        assert table.cursor_row == 0


async def test_vim_keys_move_in_the_history(app: PigeonApp) -> None:
    async with running(app, "users/list-users") as pilot:
        for _ in range(3):
            await press_and_settle(pilot, "ctrl+r")
        await pilot.press("f6")
        screen = main_screen(app)
        pane = screen.collection_pane
        await wait_for(
            pilot, lambda: pane.history is not None and pane.history.list.option_count >= 3
        )
        assert pane.history is not None
        history = pane.history.list
        history.focus()
        history.highlighted = 0
        await pilot.press("j")
        assert history.highlighted == 1
        await pilot.press("G")
        assert history.highlighted == history.option_count - 1
        await pilot.press("k")
        assert history.highlighted == history.option_count - 2
        await pilot.press("g")
        assert history.highlighted == 0


async def test_vim_keys_move_the_cursor_through_the_response_body(
    collection: Path, echo: EchoServer
) -> None:
    # Some thousand lines to move through: a fiftieth of the demo's 5 MB "Large JSON".
    (collection / "responses" / "some-json.toml").write_text(
        'name = "Some JSON"\nurl = "{{base_url}}/json/large?mb=0.1"\n', encoding="utf-8"
    )
    app = make_app(collection, echo)
    async with running(app, "responses/some-json", size=(120, 30)) as pilot:
        await press_and_settle(pilot, "ctrl+r")
        view = main_screen(app).query_one("#body-view", FoldingBodyView)
        # The raw body shows first and the pretty one replaces it, cursor and all: move in
        # the pretty one.
        await wait_for(pilot, lambda: view.phase == "pretty" and view.line_count > 100)
        view.focus()
        await pilot.pause()
        await pilot.press("j", "j")
        await wait_for(pilot, lambda: view.cursor_line == 2)
        await pilot.press("k")
        await wait_for(pilot, lambda: view.cursor_line == 1)
        await pilot.press("ctrl+d")
        half = view.scrollable_content_region.height // 2  # the view and the cursor, as in vim
        await wait_for(pilot, lambda: view.scroll_y == half and view.cursor_line == 1 + half)
        await pilot.press("G")
        await wait_for(pilot, lambda: view.scroll_y == view.max_scroll_y)
        assert view.cursor_line == view.line_count - 1
        await pilot.press("g", "g")
        await wait_for(pilot, lambda: view.scroll_y == 0 and view.cursor_line == 0)


# -- help ---------------------------------------------------------------------------------------


async def test_help_names_keys_as_they_are_typed_and_how_to_move(app: PigeonApp) -> None:
    async with running(app) as pilot:
        await pilot.press("f1")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        sections = dict(app.screen._sections)
        rows = [row for section in sections.values() for row in section]
        keys = " ".join(keys for keys, _, _ in rows)
        for raw in ("slash", "full_stop", "question_mark", "escape"):
            assert raw not in keys
        assert ("/", "Search", "body.search") in sections["Response body"]
        assert ("f, .", "Filter", "body.filter") in sections["Response body"]
        moving = dict((k, d) for k, d, _ in sections["Moving around"])
        assert "tab, shift+tab" in moving and "←, →" in moving
        vim = sections["Lists: the tree, tables, history, variables, a body (vim-style)"]
        assert [k for k, _, _ in vim] == ["j", "k", "g", "G", "ctrl+d", "ctrl+u", "/"]
        panes = {i: k for k, _, i in sections["Everywhere"]}
        assert panes["pane.response"] == "alt+3"
        (palette,) = [d for _, d, i in sections["Everywhere"] if i == "palette"]
        assert palette.startswith("Open the palette: ")


# -- $EDITOR ------------------------------------------------------------------------------------


class SuspendingDriver(HeadlessDriver):
    """The test driver, able to hand the terminal over: ``App.suspend`` runs its real course
    (the editor below is a real process); only the terminal's modes are left alone."""

    @property
    def can_suspend(self) -> bool:
        return True

    def suspend_application_mode(self) -> None:
        pass

    def resume_application_mode(self) -> None:
        pass


@pytest.fixture(name="suspending")
def suspending_fixture(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(headless_driver, "HeadlessDriver", SuspendingDriver)


def use_editor(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, body: str) -> None:
    """``$EDITOR`` is a Python script running ``body`` with the file's path as ``path``."""
    script = tmp_path / "editor.py"
    script.write_text(f"import sys\nfrom pathlib import Path\npath = Path(sys.argv[1])\n{body}\n")
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.setenv("EDITOR", shlex.join([sys.executable, str(script)]))


@pytest.mark.usefixtures("suspending")
async def test_ctrl_e_edits_the_body_in_the_editor(
    app: PigeonApp, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    use_editor(monkeypatch, tmp_path, "path.write_text(path.suffix + ' ' + path.read_text()[:1])")
    async with running(app, "users/create-user") as pilot:
        screen = await show_tab(pilot, "tab-body")
        area = screen.query_one("#body-text", TextArea)
        await wait_for(pilot, lambda: area.text.startswith("{"))  # the body tab is filled
        area.focus()
        await pilot.pause()
        assert not screen.editor.dirty
        await pilot.press("ctrl+e")
        await wait_for(pilot, lambda: area.text == ".json {")
        assert screen.editor.request is not None
        assert screen.editor.request.body.content == ".json {"
        assert screen.editor.dirty


@pytest.mark.usefixtures("suspending")
async def test_an_editor_that_changes_nothing_leaves_the_request_clean(
    app: PigeonApp, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    use_editor(monkeypatch, tmp_path, "path.write_text(path.read_text())")
    async with running(app, "users/create-user") as pilot:
        screen = await show_tab(pilot, "tab-body")
        area = screen.query_one("#body-text", TextArea)
        await wait_for(pilot, lambda: area.text.startswith("{"))  # the body tab is filled
        before = area.text
        area.focus()
        await pilot.press("ctrl+e")
        await pilot.pause()
        assert area.text == before
        assert not screen.editor.dirty


@pytest.mark.usefixtures("suspending")
async def test_a_failing_editor_says_so_in_one_line(
    app: PigeonApp, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    use_editor(monkeypatch, tmp_path, "path.write_text('half')\nsys.exit(2)")
    async with running(app, "users/create-user") as pilot:
        screen = await show_tab(pilot, "tab-body")
        area = screen.query_one("#body-text", TextArea)
        await wait_for(pilot, lambda: area.text.startswith("{"))  # the body tab is filled
        before = area.text
        area.focus()
        await pilot.press("ctrl+e")
        await wait_for(pilot, lambda: any("status 2" in str(n.message) for n in app._notifications))
        assert area.text == before
        assert not screen.editor.dirty


@pytest.mark.usefixtures("suspending")
async def test_ctrl_e_edits_a_value_in_its_dialog(
    app: PigeonApp, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    use_editor(monkeypatch, tmp_path, "path.write_text(path.read_text() + '-edited\\n')")
    async with running(app, "users/create-user") as pilot:
        table = main_screen(app).query_one("#headers", PairTable)
        table.focus()
        await pilot.press("e")
        await wait_for(pilot, lambda: isinstance(app.focused, Input))
        await pilot.press("tab")
        value = app.focused
        assert isinstance(value, Input) and value.value == "{{creds.key}}"
        await pilot.press("ctrl+e")
        await wait_for(pilot, lambda: value.value == "{{creds.key}}-edited")


@pytest.mark.usefixtures("suspending")
async def test_ctrl_e_edits_the_description_as_markdown(
    app: PigeonApp, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    use_editor(monkeypatch, tmp_path, "path.write_text('Lists *users* (' + path.suffix + ')')")
    async with running(app, "users/create-user") as pilot:
        screen = await show_tab(pilot, "tab-docs")
        await wait_for(pilot, lambda: bool(screen.query("#description")))
        area = screen.query_one("#description", TextArea)
        area.focus()
        await pilot.press("ctrl+e")
        await wait_for(pilot, lambda: area.text == "Lists *users* (.md)")
        assert screen.editor.request is not None
        assert screen.editor.request.description == "Lists *users* (.md)"
        assert screen.editor.dirty


async def test_without_a_terminal_to_hand_over_ctrl_e_says_so(app: PigeonApp) -> None:
    async with running(app, "users/create-user") as pilot:
        screen = await show_tab(pilot, "tab-body")
        area = screen.query_one("#body-text", TextArea)
        await wait_for(pilot, lambda: area.text.startswith("{"))  # the body tab is filled
        before = area.text
        area.focus()
        await pilot.press("ctrl+e")
        await wait_for(pilot, lambda: any("editor" in str(n.message) for n in app._notifications))
        assert area.text == before


# -- the editor's tabs --------------------------------------------------------------------------


async def test_a_tab_not_opened_yet_never_shows_its_internal_name(app: PigeonApp) -> None:
    async with running(app, "users/list-users") as pilot:
        screen = main_screen(app)
        lazy = ("tab-body", "tab-auth", "tab-scripts", "tab-vars", "tab-settings", "tab-docs")
        for pane_id in lazy:
            pane = screen.editor.query_one(f"#{pane_id}")
            assert not pane.children  # its part comes the first time it is opened
            assert "TabPane" not in str(pane.render())
        await show_tab(pilot, "tab-vars")
        await wait_for(pilot, lambda: bool(screen.editor.query_one("#tab-vars").children))
        assert "TabPane" not in app.export_screenshot()


async def test_the_next_request_opens_on_the_first_tab_with_its_strip_whole(
    app: PigeonApp,
) -> None:
    async with running(app, "users/list-users", size=(48, 30)) as pilot:
        screen = await show_tab(pilot, "tab-settings")
        strip = screen.query_one("#editor-tabs").query_one("#tabs-scroll")
        await wait_for(pilot, lambda: strip.scroll_x > 0)  # narrow: the strip scrolled along
        await open_request(pilot, "users/create-user")
        tabs = screen.query_one("#editor-tabs", TabbedContent)
        assert tabs.active == "tab-headers"
        await wait_for(pilot, lambda: strip.scroll_x == 0)
        # Reopening the same request keeps the tab chosen in it.
        await show_tab(pilot, "tab-auth")
        await open_request(pilot, "users/create-user")
        assert tabs.active == "tab-auth"


# -- pasting ------------------------------------------------------------------------------------


def paste(app: PigeonApp, text: str) -> None:
    """A bracketed paste, as the terminal sends it."""
    event = events.Paste(text)
    event.set_sender(app)
    app.post_message(event)


async def test_lines_pasted_into_a_one_line_field_are_joined_with_a_word(app: PigeonApp) -> None:
    async with running(app, "users/create-user") as pilot:
        table = main_screen(app).query_one("#headers", PairTable)
        table.focus()
        await pilot.press("e")
        await wait_for(pilot, lambda: isinstance(app.focused, Input))
        await pilot.press("tab", "ctrl+u", "end", "ctrl+u")
        value = app.focused
        assert isinstance(value, Input) and value.value == ""
        paste(app, "Bearer\r\nabc\n\ndef\n")
        await wait_for(pilot, lambda: value.value == "Bearer abc def")
        assert any("Pasted 3 lines as one" in str(n.message) for n in app._notifications)


async def test_a_paste_too_large_for_a_one_line_field_is_refused_with_a_word(
    app: PigeonApp,
) -> None:
    from pigeon.tui.one_line_paste import PASTE_LIMIT

    async with running(app, "users/list-users") as pilot:
        await pilot.press("ctrl+l")
        url = app.focused
        assert isinstance(url, Input)
        before = url.value
        paste(app, "http://127.0.0.1:1/" + "a" * (1536 * 1024))  # 1.5 MB on one line
        await wait_for(
            pilot, lambda: any("Not pasted" in str(n.message) for n in app._notifications)
        )
        assert url.value == before
        [note] = [str(n.message) for n in app._notifications if "Not pasted" in str(n.message)]
        assert note == (
            "Not pasted: 1.5 MB is more than the 64.0 KB a one-line field takes in one paste."
        )
        paste(app, "x" * PASTE_LIMIT)  # up to the limit, it is pasted
        await wait_for(pilot, lambda: url.value.endswith("x" * PASTE_LIMIT))


async def test_one_line_with_its_line_break_pastes_as_it_is(app: PigeonApp) -> None:
    async with running(app, "users/list-users") as pilot:
        await pilot.press("ctrl+l", "ctrl+u", "end", "ctrl+u")
        url = app.focused
        assert isinstance(url, Input)
        paste(app, "http://127.0.0.1:1/x\n")
        await wait_for(pilot, lambda: url.value == "http://127.0.0.1:1/x")
        assert not any("Pasted" in str(n.message) for n in app._notifications)


async def test_a_burst_after_tab_goes_to_the_next_field(app: PigeonApp) -> None:
    async with running(app, "users/create-user") as pilot:
        table = main_screen(app).query_one("#headers", PairTable)
        table.focus()
        await pilot.press("e")
        await wait_for(pilot, lambda: isinstance(app.focused, Input))
        name = app.focused
        burst(app, "tab", "ctrl+u", "end", "ctrl+u", *"typed")
        value = app.screen.query_one("#pair-value", Input)
        await wait_for(pilot, lambda: value.value == "typed")
        assert isinstance(name, Input) and name.value == "X-Api-Key"


async def test_slash_and_f_on_the_response_tabs_search_and_filter_the_body(
    app: PigeonApp,
) -> None:
    async with running(app, "users/list-users") as pilot:
        await press_and_settle(pilot, "ctrl+r")
        screen = main_screen(app)
        tabs = screen.query_one("#response-tabs", TabbedContent)
        tabs.active = "tab-headers"
        strip = tabs.query_one(ContentTabs)
        strip.focus()
        await pilot.pause()
        view = screen.query_one("#body-view", BodyView)
        burst(app, "slash", *"users")
        await wait_for(pilot, lambda: view.search_text == "users")
        assert tabs.active == "tab-body"
        await pilot.press("escape")
        tabs.active = "tab-timings"
        strip.focus()
        await pilot.pause()
        burst(app, "f", *"path", "enter")
        # The filter applies live as it is typed: wait for the whole expression's result.
        await wait_for(pilot, lambda: view.is_filtered and view.text == '"/users"')
        assert tabs.active == "tab-body"


async def test_slash_finds_the_next_row_in_the_tree_and_a_table(app: PigeonApp) -> None:
    async with running(app, "users/list-users") as pilot:
        tree = main_screen(app).query_one(CollectionTree)
        tree.focus()
        tree.cursor_line = 0
        await pilot.pause()
        burst(app, "slash", *"USER", "enter")
        await wait_for(pilot, lambda: tree.cursor_line > 0 and app.focused is tree)
        first = tree.cursor_line
        assert "user" in tree.get_node_at_line(first).label.plain.lower()
        burst(app, "slash", "enter")  # the same text again: the next match
        await wait_for(pilot, lambda: tree.cursor_line != first and app.focused is tree)
        assert "user" in tree.get_node_at_line(tree.cursor_line).label.plain.lower()
        burst(app, "slash", "ctrl+u", *"no such row", "enter")
        await wait_for(
            pilot, lambda: any("Nothing here" in str(n.message) for n in app._notifications)
        )

        main_screen(app).query_one("#editor-tabs").active = "tab-query"
        table = main_screen(app).query_one("#query", PairTable)
        table.focus()
        await pilot.pause()
        burst(app, "slash", *"tags", "enter")
        await wait_for(pilot, lambda: table.cursor_row == 3)


async def test_one_remap_moves_a_vim_key_in_every_list(collection: Path, echo: EchoServer) -> None:
    from pigeon.config import AppConfig

    session = Session.open(collection)
    session.overrides["base_url"] = echo.url
    config = AppConfig(keys={"vim.down": "J"})
    app = PigeonApp(session, config=config, theme_dirs=bundled_theme_dirs(), remember_theme=False)
    async with running(app, "users/list-users") as pilot:
        assert not app.startup_problems
        tree = main_screen(app).query_one(CollectionTree)
        tree.focus()
        tree.cursor_line = 0
        await pilot.pause()
        await pilot.press("j")
        assert tree.cursor_line == 0
        await pilot.press("J")
        assert tree.cursor_line == 1
        main_screen(app).query_one("#editor-tabs").active = "tab-query"
        table = main_screen(app).query_one("#query", PairTable)
        table.focus()
        await pilot.pause()
        await pilot.press("J")
        assert table.cursor_row == 1


async def test_find_in_the_tree_opens_a_closed_folder_to_its_hit(app: PigeonApp) -> None:
    async with running(app) as pilot:
        tree = main_screen(app).query_one(CollectionTree)
        folder = next(n for n in tree.root.children if n.label.plain.strip().endswith("Bodies"))
        folder.collapse()
        tree.move_cursor(tree.root.children[0])
        tree.focus()
        await wait_for(pilot, lambda: not folder.is_expanded and tree.cursor_line == 0)
        burst(app, "/", *"multipart", "enter")
        await wait_for(pilot, lambda: "ultipart" in str(tree.cursor_node.label))
        assert folder.is_expanded and tree.cursor_node.parent is folder


async def test_the_pane_holding_the_focus_and_only_it_has_a_lit_border(app: PigeonApp) -> None:
    async with running(app, "users/list-users", size=(130, 40)) as pilot:
        await press_and_settle(pilot, "ctrl+r")
        screen = main_screen(app)
        panes = {
            name: screen.query_one(selector)
            for name, selector in (
                ("tree", "#tree-pane"),
                ("editor", "#editor"),
                ("response", "#response"),
                ("vars", "#vars-pane"),
            )
        }
        accent = Color.parse(app.theme_variables["accent"])

        def lit() -> list[str]:
            return [name for name, pane in panes.items() if pane.styles.border_top[1] == accent]

        await wait_for(pilot, lambda: lit() == ["tree"])  # opened from the tree: it keeps the focus

        for key, name in (("alt+3", "response"), ("alt+4", "vars"), ("alt+1", "tree")):
            await pilot.press(key)
            await wait_for(pilot, lambda name=name: lit() == [name])
        await pilot.press("alt+2")
        await wait_for(pilot, lambda: lit() == ["editor"])
        focused = app.focused
        await pilot.press("shift+tab")  # to its tab strip, within the pane: it stays lit
        await wait_for(pilot, lambda: app.focused is not focused)
        assert lit() == ["editor"]


async def test_tab_goes_from_pane_to_pane_and_through_the_fields_typed_in(app: PigeonApp) -> None:
    """tab goes to the next pane (tree, editor, response, variables), where alt+1…4 would;
    shift+tab back. From a field typed in, the pane's next such field comes first."""
    async with running(app, "users/list-users", size=(130, 40)) as pilot:
        await press_and_settle(pilot, "ctrl+r")
        screen = main_screen(app)
        panes = [screen.query_one(s) for s in ("#tree-pane", "#editor", "#response", "#vars-pane")]

        def pane() -> int:
            focused = app.focused
            assert focused is not None
            return next(i for i, p in enumerate(panes) if p in focused.ancestors)

        await pilot.press("alt+1")
        await wait_for(pilot, lambda: pane() == 0)
        for expected in (1, 2, 3, 0):
            await pilot.press("tab")
            await wait_for(pilot, lambda expected=expected: pane() == expected)
        for expected in (3, 2, 1, 1, 0):  # the editor's open tab, then its URL
            await pilot.press("shift+tab")
            await wait_for(pilot, lambda expected=expected: pane() == expected)

        await pilot.press("ctrl+l")  # the URL; tab: the open tab's table, then the response
        await wait_for(pilot, lambda: app.focused is screen.query_one("#url", Input))
        await pilot.press("tab")
        await wait_for(pilot, lambda: app.focused is screen.query_one("#headers", PairTable))
        await pilot.press("tab")
        await wait_for(pilot, lambda: pane() == 2)
        await pilot.press("shift+tab")  # back to the editor's open tab
        await wait_for(pilot, lambda: app.focused is screen.query_one("#headers", PairTable))
        await pilot.press("shift+tab")
        await wait_for(pilot, lambda: app.focused is screen.query_one("#url", Input))
