"""jq in the body's filter bar, and the filters a request used recalled with up and down."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from response_pane_app import BodyApp
from tui_support import main_screen, make_app, open_request, settle, wait_for

from pigeon.echo import EchoServer
from pigeon.store.filter_history import load_filter_history
from pigeon.tui.widgets.response import body_panel
from pigeon.tui.widgets.response.body_panel import BodyPanel
from pigeon.tui.widgets.response.body_view import BodyView

pytestmark = pytest.mark.timeout(90)

ITEMS = json.dumps({"items": [{"name": "a", "n": 1}, {"name": "b", "n": 5}]})


def lines_of(view: BodyView, count: int) -> list[str]:
    return [view.render_line(y).text.rstrip() for y in range(count)]


async def test_a_jq_filter_and_a_bad_one() -> None:
    app = BodyApp()
    async with app.run_test(size=(100, 20)) as pilot:
        view = app.query_one(BodyView)
        hint = app.query_one("#body-bar-hint")
        view.show_text(ITEMS, is_json=True)
        await pilot.pause()
        await pilot.press("f")
        assert "jq .a[0]" in str(hint.render())  # the rule is in the hint
        await pilot.press(*".items[] | select(.n > 2) | .name", "enter")
        await wait_for(pilot, lambda: view.is_filtered)
        assert lines_of(view, 2) == ['"b"', ""]
        assert view.filter_expression == ".items[] | select(.n > 2) | .name"
        await pilot.press("f", "ctrl+u", *"jq: .items | keys[", "enter")
        await wait_for(pilot, lambda: "✖" in str(hint.render()))
        assert str(hint.render()).startswith("✖ jq: syntax error")
        assert lines_of(view, 1) == ['"b"']  # the last good result stays
        await pilot.press("escape")
        await wait_for(pilot, lambda: view.phase == "pretty")


async def test_a_filter_that_never_ends_leaves_the_app_answering() -> None:
    app = BodyApp()
    async with app.run_test(size=(100, 20)) as pilot:
        view = app.query_one(BodyView)
        view.show_text(ITEMS, is_json=True)
        await pilot.pause()
        await pilot.press("f", *"def f: f; f", "enter")  # JMESPath would refuse it: say jq
        hint = app.query_one("#body-bar-hint")
        await wait_for(pilot, lambda: "✖" in str(hint.render()))
        assert "JMESPath" in str(hint.render())
        await pilot.press("f", "ctrl+u", *"jq: def f: f; f", "enter")
        await pilot.pause()
        # A newer filter replaces it at once: the endless one's child is killed.
        await pilot.press("f", "ctrl+u", *".items[0].n", "enter")
        await wait_for(pilot, lambda: view.filter_expression == ".items[0].n")
        assert lines_of(view, 1) == ["1"]


async def test_up_recalls_the_filters_this_request_used(
    collection: Path, echo: EchoServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What recalling puts in the bar is not applied. The live filter is held off: it applies
    what is typed once typing pauses, which a busy machine does between any two keys."""
    monkeypatch.setattr(body_panel, "LIVE_FILTER_DELAY", 3600)
    app = make_app(collection, echo)
    async with app.run_test(size=(120, 40)) as pilot:
        await open_request(pilot, "users/list-users")
        await pilot.press("ctrl+r")
        pane = main_screen(app).query_one("#response")
        panel = pane.query_one(BodyPanel)
        view = panel.view
        await wait_for(pilot, lambda: view.is_json and view.phase in ("raw", "pretty"))
        view.focus()
        for expression in [".method", "jq: .url"]:
            await pilot.press("f", "ctrl+u", *expression, "enter")
            await wait_for(pilot, lambda e=expression: view.filter_expression == e)
        await wait_for(
            pilot, lambda: len(load_filter_history(collection)[0].get("users/list-users", [])) == 2
        )
        assert load_filter_history(collection)[0] == {"users/list-users": ["jq: .url", ".method"]}
        await pilot.press("escape", "f", "ctrl+u", *"draft")
        await pilot.press("up")
        assert panel.input.value == "jq: .url"
        await pilot.press("up", "up")
        assert panel.input.value == ".method"  # the oldest stays
        await pilot.press("down", "down")
        assert panel.input.value == "draft"  # back to what was typed
        await settle(pilot)
        assert not view.is_filtered  # recalling does not apply
