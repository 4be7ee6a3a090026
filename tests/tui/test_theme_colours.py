"""Every bundled theme keeps the panes' borders visible, in true colour and once a 256-colour
terminal has rounded them (``COLORTERM`` unset): an unfocused border never takes the colour of
the background behind it."""

from __future__ import annotations

import pytest
from rich.color import Color as RichColor
from rich.color import ColorSystem
from textual.color import Color
from tui_support import main_screen, running

from pigeon.tui.app import PigeonApp

THEMES = ["pigeon-dark", "pigeon-light", "pigeon-nord", "pigeon-solarized"]


def in_256(colour: Color) -> int | None:
    return RichColor.parse(colour.hex6).downgrade(ColorSystem.EIGHT_BIT).number


@pytest.mark.parametrize("theme", THEMES)
async def test_unfocused_pane_borders_stand_out_from_the_background(
    app: PigeonApp, theme: str
) -> None:
    async with running(app, "users/list-users") as pilot:
        app.theme = theme
        await pilot.pause()
        screen = main_screen(app)
        background = screen.styles.background
        for selector in ("#tree-pane", "#editor", "#response", "#vars-pane"):
            pane = screen.query_one(selector)
            if pane.has_focus_within:
                continue
            _, border = pane.styles.border_top
            drawn = background + border  # the border's colour over what is behind it
            assert drawn.hex6 != background.hex6, (selector, drawn.hex6)
            assert in_256(drawn) != in_256(background), (selector, drawn.hex6, background.hex6)
