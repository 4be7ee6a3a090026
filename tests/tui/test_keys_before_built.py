"""Keys that arrive while the main screen is still building after its first frame (the editor's
widgets and the response pane come after it): the help screen, the palette and a send pressed
at once leave the app whole once it is built."""

from __future__ import annotations

import pytest
from tui_support import main_screen, wait_for

from pigeon.tui.app import PigeonApp
from pigeon.tui.screens.main import MainScreen


@pytest.mark.parametrize("keys", [["ctrl+p"], ["f1", "escape", "ctrl+r"]])
async def test_keys_pressed_at_once_leave_the_app_whole(app: PigeonApp, keys: list[str]) -> None:
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, MainScreen))
        screen = app.screen
        assert screen.built_at == 0  # the keys below arrive before the build is done
        await pilot.press(*keys)
        await wait_for(pilot, lambda: screen.built_at > 0)
        while app.screen is not screen:
            await pilot.press("escape")
        assert main_screen(app).response_pane is not None
        assert app._exception is None
