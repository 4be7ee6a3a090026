"""Whether the terminal can draw an image, and the textual-image widget that draws it.

The terminal is judged from its environment alone (``TERM``, ``TERM_PROGRAM``, kitty's and
Konsole's variables), never by asking it: an answer would arrive through Textual's input
thread as keys, and a terminal that does not answer (an old one, or tmux, or some SSH
hops) would make the question wait. textual-image asks at import time, so it is imported
here, on the first image only, with its questions answered "no" at once and its cell size
read from the tty (``TIOCGWINSZ``) or assumed.

``config.toml``'s ``images`` setting: ``"auto"`` (judge), ``"off"``, or a protocol to use
whatever the terminal says: ``"kitty"``, ``"sixel"``, ``"blocks"`` (coloured half blocks,
drawn in any terminal with true colour, tmux included).
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from pigeon.terminal import printable

if TYPE_CHECKING:
    from textual_image.widget._base import Image as ImageWidget

Protocol = Literal["kitty", "sixel", "blocks"]

# Terminals known to draw with one protocol, by TERM_PROGRAM, then by TERM.
_BY_PROGRAM: dict[str, Protocol] = {
    "ghostty": "kitty",
    "wezterm": "sixel",  # its kitty support lacks the placeholders textual-image draws with
    "iterm.app": "sixel",  # iTerm2 3.5 and later
    "mintty": "sixel",
    "konsole": "sixel",
}
_BY_TERM: dict[str, Protocol] = {
    "xterm-kitty": "kitty",
    "xterm-ghostty": "kitty",
    "foot": "sixel",
    "foot-extra": "sixel",
    "mlterm": "sixel",
    "yaft-256color": "sixel",
    "contour": "sixel",
}


@dataclass(frozen=True)
class Graphics:
    """How images are drawn here: ``protocol``, or ``None`` and ``reason`` saying why not."""

    protocol: Protocol | None
    reason: str = ""


def terminal_graphics(
    setting: str = "auto", environ: Mapping[str, str] | None = None, *, tty: bool = True
) -> Graphics:
    """The protocol this terminal draws images with, judged from ``environ`` alone."""
    env = os.environ if environ is None else environ
    if setting == "off":
        return Graphics(None, 'images are off (images = "off" in config.toml)')
    if setting in ("kitty", "sixel", "blocks"):
        return Graphics(setting)  # type: ignore[arg-type]
    if not tty:
        return Graphics(None, "the output is not a terminal")
    term = env.get("TERM", "")
    if env.get("TMUX") or term.startswith(("tmux", "screen")):
        return Graphics(
            None,
            f"inside {'tmux' if env.get('TMUX') else 'screen'}, which does "
            'not pass images on (images = "blocks" draws them in text)',
        )
    program = env.get("TERM_PROGRAM", "").lower()
    protocol = _BY_PROGRAM.get(program) or _BY_TERM.get(term)
    if protocol is None and env.get("KITTY_WINDOW_ID"):
        protocol = "kitty"
    if protocol is None and (env.get("KONSOLE_VERSION") or env.get("WT_SESSION")):
        protocol = "sixel"  # Konsole; Windows Terminal 1.22 and later
    if protocol is not None:
        return Graphics(protocol)
    shown = printable(term) if term else "unset"
    return Graphics(
        None,
        f"this terminal cannot show images (TERM={shown}); "
        'images = "kitty", "sixel" or "blocks" in config.toml draws them anyway',
    )


_load_lock = threading.Lock()


def image_widget(protocol: Protocol) -> type[ImageWidget]:
    """textual-image's widget class for ``protocol``, imported on first use without letting
    it question the terminal. Safe from a worker thread."""
    with _load_lock:
        import textual_image._terminal as terminal

        if not hasattr(terminal.get_cell_size, "_result"):
            terminal.get_cell_size._result = _cell_size(terminal)  # type: ignore[attr-defined]
        with _no_questions(terminal):
            from textual_image.widget import HalfcellImage, SixelImage, TGPImage
    widgets: dict[Protocol, type[ImageWidget]] = {
        "kitty": TGPImage,
        "sixel": SixelImage,
        "blocks": HalfcellImage,
    }
    return widgets[protocol]


@contextlib.contextmanager
def _no_questions(terminal: object) -> Iterator[None]:
    """textual-image's modules bind ``capture_terminal_response`` as they load: they get one
    that fails at once, so its support queries answer "no" without writing a byte."""
    error = terminal.TerminalError  # type: ignore[attr-defined]

    @contextlib.contextmanager
    def refuse(*args: object, **kwargs: object) -> Iterator[object]:
        raise error("Pigeon does not query the terminal")
        yield  # pragma: no cover

    saved = terminal.capture_terminal_response  # type: ignore[attr-defined]
    terminal.capture_terminal_response = refuse  # type: ignore[attr-defined]
    try:
        yield
    finally:
        terminal.capture_terminal_response = saved  # type: ignore[attr-defined]


def _cell_size(terminal: object) -> object:
    """A cell's size in pixels from the tty's window size, else a VT340's 10x20."""
    cell = terminal.CellSize  # type: ignore[attr-defined]
    stdout = sys.__stdout__
    if stdout is not None and stdout.isatty():
        with contextlib.suppress(OSError, ValueError, ZeroDivisionError):
            rows, columns, width, height = terminal.get_tiocgwinsz()  # type: ignore[attr-defined]
            if width and height:
                return cell(width // columns, height // rows)
    return cell(10, 20)
