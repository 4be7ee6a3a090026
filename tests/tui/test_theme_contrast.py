"""Every bundled theme keeps its text readable: each letter, digit and punctuation mark the
app draws has a WCAG contrast ratio of at least 4.5 against the cell behind it, in true colour
and once a 256-colour terminal has rounded both colours (``COLORTERM`` unset).

The app is run through the states a user sees most (before a send, a JSON response, the
variables pane focused, a failed send, the log, the help screen, dialogs, the
editor's tabs) and each is laid out and
drawn in full: the tests' ``conftest`` skips drawing frames, so each state is drawn here.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

import pytest
from rich.color import Color, ColorSystem
from rich.color_triplet import ColorTriplet
from rich.style import Style
from textual.geometry import Region
from textual.pilot import Pilot
from textual.screen import ModalScreen
from tui_support import (
    main_screen,
    paste_url,
    press_and_settle,
    running,
    show_tab,
    wait_for,
)

from pigeon.tui.app import PigeonApp
from pigeon.tui.themes import bundled_theme_dirs
from pigeon.tui.widgets.collection.collection_tree import CollectionTree
from pigeon.tui.widgets.response.status_line import StatusLine
from servers import free_port

THEMES = sorted(path.stem for path in bundled_theme_dirs()[0].glob("*.toml"))
MINIMUM = 4.5  # WCAG AA for body text


def is_text(char: str) -> bool:
    """Letters, digits and punctuation; not box drawing, block elements (scrollbars, bars),
    braille (the spinner), arrows or other symbols."""
    if "\u2500" <= char <= "\u259f":
        return False
    return unicodedata.category(char)[0] in "LNP"


def luminance(rgb: ColorTriplet) -> float:
    """WCAG 2 relative luminance of an sRGB colour."""

    def linear(channel: int) -> float:
        c = channel / 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (linear(channel) for channel in rgb)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(one: ColorTriplet, other: ColorTriplet) -> float:
    light, dark = sorted((luminance(one), luminance(other)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


def in_256(colour: ColorTriplet) -> ColorTriplet:
    """The colour a 256-colour terminal shows for ``colour``."""
    return Color.from_triplet(colour).downgrade(ColorSystem.EIGHT_BIT).get_truecolor()


def cell_colours(style: Style) -> tuple[ColorTriplet, ColorTriplet]:
    """The foreground and background a terminal shows for ``style``: reverse video swaps
    them; a dim mark left on the segment (Textual blends most into the colour itself) is
    taken as half-way to the background, as Textual's dim filter draws it. The app paints
    every cell: a missing colour is a failure of its own."""
    assert style.color is not None and style.bgcolor is not None, style
    foreground = style.color.get_truecolor()
    background = style.bgcolor.get_truecolor()
    if style.dim:
        foreground = ColorTriplet(
            *(round(b + (f - b) * 0.5) for f, b in zip(foreground, background, strict=True))
        )
    if style.reverse:
        foreground, background = background, foreground
    return foreground, background


@dataclass
class Failure:
    state: str
    text: str
    depth: str  # "true colour" or "256 colours"
    ratio: float
    foreground: ColorTriplet
    background: ColorTriplet
    where: tuple[int, int]

    def __str__(self) -> str:
        x, y = self.where
        return (
            f"{self.text!r} at {x},{y} in {self.depth}: ratio {self.ratio:.2f} "
            f"({self.foreground.hex} on {self.background.hex})"
        )


def unreadable(pilot: Pilot, state: str) -> list[Failure]:
    """Lay out and draw the screen, and list each run of text drawn with too little contrast
    (on a dialog, only the dialog: the app dimmed behind it is not meant to be read)."""
    app = pilot.app
    screen = app.screen
    screen._refresh_layout()
    update = screen._compositor.render_update(full=True, screen_stack=app._background_screens)
    regions: list[Region] | None = None
    if isinstance(screen, ModalScreen):
        regions = [child.region for child in screen.children if child.display]
    failures: list[Failure] = []
    for y, line in enumerate(update.strips):
        x = 0
        for strip in line:
            for segment in strip:
                if segment.control:
                    continue
                text, style = segment.text, segment.style
                width = len(text)
                shown = "".join(
                    char
                    for offset, char in enumerate(text)
                    if is_text(char)
                    and (regions is None or any(r.contains(x + offset, y) for r in regions))
                )
                x += width
                if not shown:
                    continue
                assert style is not None, (state, text)
                foreground, background = cell_colours(style)
                for depth, convert in (("true colour", None), ("256 colours", in_256)):
                    fg, bg = (
                        (convert(foreground), convert(background))
                        if convert
                        else (
                            foreground,
                            background,
                        )
                    )
                    ratio = contrast(fg, bg)
                    if ratio < MINIMUM:
                        failures.append(Failure(state, text, depth, ratio, fg, bg, (x - width, y)))
    return failures


def summary(failures: list[Failure]) -> str:
    """One line per text and pair of colours, with the states it was seen in."""
    seen: dict[tuple[str, str, ColorTriplet, ColorTriplet], list[Failure]] = {}
    for failure in failures:
        key = (failure.text, failure.depth, failure.foreground, failure.background)
        seen.setdefault(key, []).append(failure)
    lines = []
    for same in seen.values():
        states = sorted({failure.state for failure in same})
        lines.append(f"{same[0]} (in {', '.join(states)})")
    return "\n".join(lines)


Step = Callable[[Pilot], Awaitable[None]]


async def before_a_send(pilot: Pilot) -> None:
    """The tree focused on the open request; the editor, "No response yet", the variables."""
    main_screen(pilot.app).query_one(CollectionTree).focus()
    await pilot.pause()


async def json_response(pilot: Pilot) -> None:
    """The demo's list of users sent to the echo server, its JSON body shown and focused."""
    await press_and_settle(pilot, "ctrl+r")
    status = main_screen(pilot.app).query_one(StatusLine)
    await wait_for(pilot, lambda: status.state == "done")
    await press_and_settle(pilot, "alt+3")


async def variables_focused(pilot: Pilot) -> None:
    await press_and_settle(pilot, "alt+4")


async def editor_focused(pilot: Pilot) -> None:
    await press_and_settle(pilot, "alt+2")


async def help_screen(pilot: Pilot) -> None:
    await pilot.press("f1")
    await wait_for(pilot, lambda: isinstance(pilot.app.screen, ModalScreen))
    await pilot.pause()


async def new_request_dialog(pilot: Pilot) -> None:
    await pilot.press("escape")
    await wait_for(pilot, lambda: not isinstance(pilot.app.screen, ModalScreen))
    main_screen(pilot.app).query_one(CollectionTree).focus()
    await pilot.press("n")
    await wait_for(pilot, lambda: isinstance(pilot.app.screen, ModalScreen))
    await pilot.pause()


async def environment_dialog(pilot: Pilot) -> None:
    await pilot.press("escape")
    await wait_for(pilot, lambda: not isinstance(pilot.app.screen, ModalScreen))
    await pilot.press("f4")
    await wait_for(pilot, lambda: isinstance(pilot.app.screen, ModalScreen))
    await pilot.pause()


async def failed_send(pilot: Pilot) -> None:
    """A send to a port nothing listens on: the status line holds the error."""
    await pilot.press("escape")
    await wait_for(pilot, lambda: not isinstance(pilot.app.screen, ModalScreen))
    with free_port() as port:
        await paste_url(pilot, f"http://127.0.0.1:{port}/users")
        await press_and_settle(pilot, "ctrl+r")
        status = main_screen(pilot.app).query_one(StatusLine)
        await wait_for(pilot, lambda: status.state == "error")
    await pilot.pause()


async def log_screen(pilot: Pilot) -> None:
    """The log: the sends and the refused connection's error."""
    await pilot.press("f2")
    await wait_for(pilot, lambda: isinstance(pilot.app.screen, ModalScreen))
    await pilot.pause()


def editor_tab(tab_id: str) -> Step:
    async def show(pilot: Pilot) -> None:
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(pilot.app.screen, ModalScreen))
        await show_tab(pilot, tab_id)
        await press_and_settle(pilot, "alt+2")

    return show


STATES: list[tuple[str, Step]] = [
    ("before a send", before_a_send),
    ("a JSON response", json_response),
    ("the variables pane focused", variables_focused),
    ("the editor focused", editor_focused),
    ("the help screen", help_screen),
    ("the new request dialog", new_request_dialog),
    ("the environment dialog", environment_dialog),
    ("a failed send", failed_send),
    ("the log", log_screen),
    ("the editor's body tab", editor_tab("tab-body")),
    ("the editor's auth tab", editor_tab("tab-auth")),
]


@pytest.mark.parametrize("theme", THEMES)
async def test_every_text_is_readable_in_every_state(app: PigeonApp, theme: str) -> None:
    failures: list[Failure] = []
    app.theme = theme  # started in it, as the config's theme is: not drawn twice
    async with running(app, "users/list-users") as pilot:
        assert app.current_theme.name == theme
        for state, step in STATES:
            await step(pilot)
            failures += unreadable(pilot, state)
    assert not failures, f"{theme}: text below a contrast of {MINIMUM}:\n{summary(failures)}"


def test_the_checks_see_unreadable_text() -> None:
    """The measure itself: black on white is 21, white on white 1; reverse video swaps."""
    white, black = ColorTriplet(255, 255, 255), ColorTriplet(0, 0, 0)
    assert contrast(black, white) == pytest.approx(21)
    assert contrast(white, white) == pytest.approx(1)
    assert cell_colours(Style(color="#000000", bgcolor="#ffffff", reverse=True)) == (white, black)
    assert is_text("a") and is_text("7") and is_text("{") and is_text("…")
    assert not is_text("─") and not is_text("▄") and not is_text("⠋") and not is_text(" ")
