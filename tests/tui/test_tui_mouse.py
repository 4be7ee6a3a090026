"""Every mouse action on every part of the screen is safe: a click, a double-click (Textual's
select-all of a widget) and a triple-click, on each widget shown, leave the app running with
its edits. A double-click in a response body used to crash the app and lose unsaved edits."""

from __future__ import annotations

from textual.errors import NoWidget
from textual.geometry import Offset
from textual.widget import Widget
from tui_support import click_in_a_row, main_screen, press_and_settle, running, wait_for

from pigeon.tui.app import PigeonApp
from pigeon.tui.screens.main import MainScreen
from pigeon.tui.widgets.editor.open_requests import OpenRequests
from pigeon.tui.widgets.editor.request_editor import RequestEditor
from pigeon.tui.widgets.response.body_view import BodyView


def _targets(screen: MainScreen) -> list[tuple[str, Widget, Offset]]:
    """Each widget a click can reach, with the point clicked: the centre
    of every widget on screen, kept once for the widget a click there lands on. Pilot names
    that widget as the event's, as a terminal's click does (select-all acts only then)."""
    hit: dict[int, tuple[str, Widget, Offset]] = {}
    for widget in screen.query("*"):
        try:
            region = screen.find_widget(widget).region
        except NoWidget:  # not laid out: an inactive tab's content
            continue
        if not (widget.display and region.area):
            continue
        x, y = (int(v) for v in region.center)
        target, _ = screen.get_widget_at(x, y)
        hit.setdefault(id(target), (f"{type(target).__name__}#{target.id}", target, Offset(x, y)))
    return list(hit.values())


async def test_clicking_double_and_triple_clicking_every_widget_keeps_the_app_whole(
    app: PigeonApp,
) -> None:
    async with running(app, "users/list-users") as pilot:
        await press_and_settle(pilot, "ctrl+r")
        screen = main_screen(pilot.app)
        body = screen.query_one(BodyView)
        await wait_for(pilot, lambda: body.line_count > 1)
        editor = screen.query_one(RequestEditor)
        await pilot.press("ctrl+l", "end", *"?kept=1")
        await wait_for(pilot, lambda: editor.dirty)
        edited = editor.request.url if editor.request else ""
        assert edited.endswith("?kept=1")
        pilot.app.export_screenshot()  # lays the whole screen out, as a frame drawn would
        targets = _targets(screen)
        assert any(name.startswith("FoldingBodyView") for name, _, _ in targets)
        for name, widget, point in targets:
            region = widget.region
            if not widget.is_attached or point not in region:  # an earlier click moved it
                continue
            # Three clicks in a row are a click, a double-click and a triple-click (chain 1-3).
            await click_in_a_row(pilot, point, times=3)
            assert pilot.app.is_running, f"a click, double- or triple-click on {name} stopped it"
            while pilot.app.screen is not screen:  # a click may open a dialog
                await pilot.press("escape")
        tabs = screen.query_one(OpenRequests).tabs  # a click in the tree opens another tab
        mine = [tab for tab in tabs if tab.request.url == edited]
        assert len(mine) == 1 and mine[0].edited, [t.request.url for t in tabs]
