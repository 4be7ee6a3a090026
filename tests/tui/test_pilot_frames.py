"""The Pilot tests' frames (``conftest.py``): skipped while a test runs, yet a widget that
cannot draw the screen a test ends on still fails that test."""

from __future__ import annotations

import pytest
from textual.app import App, ComposeResult
from textual.widgets import Static


class Fragile(Static):
    """Draws until it is told to break."""

    broken = False

    def render(self) -> str:
        if self.broken:
            raise RuntimeError("cannot draw")
        return "fine"


class FragileApp(App[None]):
    def compose(self) -> ComposeResult:
        yield Fragile()


async def test_a_widget_that_cannot_draw_the_last_screen_fails_the_test() -> None:
    app = FragileApp()
    with pytest.raises(RuntimeError, match="cannot draw"):
        async with app.run_test() as pilot:
            app.query_one(Fragile).broken = True
            app.query_one(Fragile).refresh()
            await pilot.pause()  # not drawn yet: frames under run_test go unseen


async def test_a_widget_that_draws_passes() -> None:
    app = FragileApp()
    async with app.run_test() as pilot:
        app.query_one(Fragile).refresh()
        await pilot.pause()
        assert app.query_one(Fragile).render() == "fine"
