"""Keys: a burst of keys goes where the focus moves, vim-style moves, a key per pane, $EDITOR."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Input
from tui_support import burst, main_screen, press_and_settle, running, wait_for

from pigeon.tui.app import PigeonApp
from pigeon.tui.widgets.body_view import BodyView

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
        await wait_for(pilot, lambda: view.query == "users")
        await wait_for(pilot, lambda: app.focused is view)
        assert view.match_count >= 1
