"""The main screen's columns at the sizes people use: the centre (editor over response) keeps 60
columns, the side panes narrow or hide for it, resize by key within bounds, and maximise; on a
short screen the editor's tab keeps room to work."""

from __future__ import annotations

import pytest
from textual.geometry import Region
from textual.widget import Widget
from tui_support import main_screen, press_and_settle, running, show_tab

from pigeon.tui.app import PigeonApp
from pigeon.tui.pane_widths import (
    CENTRE_MIN,
    STEP,
    TREE_MAX,
    TREE_MIN,
    TREE_WIDTH,
    VARS_MIN,
    PaneWidths,
)
from pigeon.tui.widgets.collection.collection_tree import CollectionTree
from pigeon.tui.widgets.editor.url_preview import UrlPreview
from pigeon.tui.widgets.response.body_view import BodyView
from pigeon.tui.widgets.response.status_line import StatusLine
from pigeon.tui.widgets.variables.variables_pane import VariablesPane


def widths(app: PigeonApp) -> tuple[int, int, int]:
    """Columns of the tree pane, the centre and the variables pane (0: hidden)."""
    screen = main_screen(app)
    return tuple(  # type: ignore[return-value]
        screen.query_one(sel).region.width for sel in ("#tree-pane", "#centre", "#vars-pane")
    )


@pytest.mark.parametrize(
    ("size", "tree_shown", "vars_shown"),
    [
        ((120, 40), True, True),
        ((100, 30), True, False),
        ((80, 24), True, False),
        ((60, 20), False, False),
    ],
)
async def test_centre_keeps_sixty_columns(app: PigeonApp, size, tree_shown, vars_shown) -> None:
    async with running(app, "users/create-user", size=size) as pilot:
        await pilot.pause()
        tree, centre, variables = widths(app)
        assert centre >= CENTRE_MIN
        assert (tree > 0, variables > 0) == (tree_shown, vars_shown)
        assert tree + centre + variables == size[0]
        if size == (120, 40):  # room to spare goes to the centre: every editor tab shows
            tabs = main_screen(app).query_one("#editor-tabs Tabs")
            assert tabs.virtual_size.width <= tabs.region.width


def presses_to(columns: int) -> int:
    """Resize key presses that move a pane's edge ``columns`` columns (or to its bound)."""
    return -(-columns // STEP)


async def test_resize_keys_move_the_focused_pane_within_bounds(app: PigeonApp) -> None:
    async with running(app, "users/create-user") as pilot:
        screen = main_screen(app)
        screen.query_one(CollectionTree).focus()
        tree, centre, _ = widths(app)
        await pilot.press("ctrl+right")
        await pilot.pause()
        assert widths(app)[0] == tree + 4 and widths(app)[1] == centre - 4
        # Bounded: the centre stops the tree at its minimum. Enough presses to reach each
        # bound, and two past it, which move nothing.
        for _ in range(presses_to(widths(app)[1] - CENTRE_MIN) + 2):
            await pilot.press("ctrl+right")
        await pilot.pause()
        assert widths(app)[1] == CENTRE_MIN
        for _ in range(presses_to(widths(app)[0] - TREE_MIN) + 2):
            await pilot.press("ctrl+left")
        await pilot.pause()
        assert widths(app)[0] == TREE_MIN
        screen.query_one(VariablesPane).focus()
        await pilot.press("ctrl+left", "ctrl+left")
        await pilot.pause()
        assert widths(app)[2] == VARS_MIN
        await pilot.press("ctrl+right")
        await pilot.pause()
        assert widths(app)[2] == VARS_MIN + 4
        # Focus in the centre: the side panes give way to it, down to their minimums.
        screen.query_one("#headers").focus()
        tree, _, variables = widths(app)
        for _ in range(presses_to(tree - TREE_MIN) + presses_to(variables - VARS_MIN) + 2):
            await pilot.press("ctrl+right")
        await pilot.pause()
        assert widths(app) == (TREE_MIN, 120 - TREE_MIN - VARS_MIN, VARS_MIN)


async def test_resized_widths_hold_when_the_terminal_shrinks(app: PigeonApp) -> None:
    async with running(app, "users/create-user") as pilot:
        main_screen(app).query_one(VariablesPane).focus()
        await pilot.press("ctrl+right", "ctrl+right")
        await pilot.pause()
        await pilot.resize_terminal(110, 40)
        await pilot.pause()
        tree, centre, variables = widths(app)
        assert centre == CENTRE_MIN and tree >= TREE_MIN and variables >= VARS_MIN


async def test_maximise_widens_a_side_pane_and_restores_it(app: PigeonApp) -> None:
    async with running(app, "users/create-user") as pilot:
        screen = main_screen(app)
        before = widths(app)
        screen.query_one(VariablesPane).focus()
        await pilot.press("ctrl+o")
        await pilot.pause()
        assert screen.maximized is screen.query_one("#vars-pane")
        assert screen.query_one("#vars-pane").region.width == 120
        await pilot.press("ctrl+o")
        await pilot.pause()
        assert screen.maximized is None and widths(app) == before
        screen.query_one(CollectionTree).focus()
        await pilot.press("ctrl+o")
        await pilot.pause()
        assert screen.query_one("#tree-pane").region.width == 120


def test_widths_narrow_in_proportion_then_hide() -> None:
    for total in range(40, 240):
        shown = PaneWidths.shown_at_start(total)
        fitted = PaneWidths().fit(total, shown)
        assert total - sum(fitted.values()) >= min(total, CENTRE_MIN)
        assert all(w >= {"tree": TREE_MIN, "vars": VARS_MIN}[s] for s, w in fitted.items())
    # Shown by the user where they do not fit: at their minimums, the centre gives.
    assert PaneWidths().fit(70, (True, True)) == {"tree": TREE_MIN, "vars": VARS_MIN}
    # The tree takes a fifth of a wide screen, up to its maximum, until the user resizes it.
    assert PaneWidths().fit(120, (True, True))["tree"] == TREE_WIDTH
    assert PaneWidths().fit(160, (True, True))["tree"] == 32
    assert PaneWidths().fit(240, (True, True))["tree"] == TREE_MAX
    assert PaneWidths(tree=30).fit(240, (True, True))["tree"] == 30


async def test_a_wide_screen_shows_long_names_in_the_tree_whole(app: PigeonApp) -> None:
    async with running(app, size=(180, 40)) as pilot:
        await pilot.pause()
        tree = main_screen(app).query_one(CollectionTree)
        assert widths(app)[0] == TREE_MAX
        shown = rows(tree)
        assert any(line.endswith("GET  API key in the query") for line in shown), shown


def rows(widget: Widget) -> list[str]:
    """The lines ``widget`` shows, as text."""
    width, height = widget.outer_size
    return [strip.text.rstrip() for strip in widget.render_lines(Region(0, 0, width, height))]


async def test_a_short_screen_leaves_the_body_room_to_edit(app: PigeonApp) -> None:
    """At 60x20 the tab strip, the URL bar, its warnings and the tab bar leave the body five
    rows inside the editor, and the response stays on screen: its status line and tabs."""
    async with running(app, "users/create-user", size=(60, 20)) as pilot:
        screen = await show_tab(pilot, "tab-body")
        editor, body = screen.query_one("#editor"), screen.query_one("#body-text")
        assert body.region.height >= 5
        assert editor.region.contains_region(body.region)
        response = screen.query_one("#response")
        status = response.query_one(StatusLine)
        assert status.region.height == 1 and response.region.contains_region(status.region)
        assert screen.region.contains_region(response.region)


async def test_a_short_screen_shows_the_first_line_of_a_response(app: PigeonApp) -> None:
    async with running(app, "users/list-users", size=(60, 20)) as pilot:
        await press_and_settle(pilot, "ctrl+r")
        response = main_screen(app).query_one("#response")
        assert str(response.query_one(StatusLine).render()).startswith("200 OK")
        view = response.query_one(BodyView)
        assert response.region.contains_region(view.region)
        assert view.scrollable_content_region.height >= 1  # no scroll bar in its place
        # A body that arrived line by line, followed to its end, opens at its top once done,
        # though the view had no scroll bar yet (it held one line, "Waiting…").
        view.show_message("Waiting for the response…")
        await pilot.pause()
        view.show_live()
        view.append_lines("".join(f"line {n}\n" for n in range(50)))
        assert view.scroll_offset.y > 0
        view.show_text('{\n"a": 1,\n"b": 2\n}', is_json=True)
        await pilot.pause()
        assert view.scroll_offset.y == 0 and view.render_line(0).text.startswith("{")


async def test_url_warnings_take_one_line_on_a_short_screen(app: PigeonApp) -> None:
    """At 60x20 the URL's warnings are one line with a count of the rest; all of them are in
    its tooltip, and on the preview once the editor is zoomed or the screen is tall."""
    async with running(app, "users/create-user", size=(60, 20)) as pilot:
        await pilot.pause()
        preview = main_screen(app).query_one(UrlPreview)
        assert len(preview.warnings) == 1 and preview.unresolved  # two notes
        url, notes = rows(preview)
        assert url.startswith(" → http") and "unresolved: token, created, meta" in notes
        assert notes.endswith("… 1 more")
        assert "JSON body is not valid JSON" in str(preview.tooltip)
        await pilot.press("ctrl+l", "ctrl+o")  # the editor zoomed: every warning
        await pilot.pause()
        shown = rows(preview)
        assert any("JSON body is not valid JSON" in line for line in shown)
        assert not any("more" in line for line in shown)
        await pilot.press("ctrl+o")
        await pilot.pause()
        assert len(rows(preview)) == 2
        await pilot.resize_terminal(120, 40)
        await pilot.pause()
        shown = rows(preview)
        assert any("JSON body is not valid JSON" in line for line in shown)
        assert preview.tooltip is None
