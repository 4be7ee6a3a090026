"""The app's last line of defence against text that would drive the terminal.

Textual sends a widget's text to the terminal as it is: an ESC in a request name, a header
or a script's output would set the window title or clear the screen. The places that show
outside text make control characters visible (``pigeon.terminal``); this filter, applied by
the app to every line it draws, removes whatever control character is left, so a place that
forgot cannot be used against the user. Control characters take no cell, so the layout stays.
"""

from __future__ import annotations

from rich.segment import Segment
from textual.color import Color
from textual.filter import LineFilter

from pigeon.terminal import strip_controls


class ControlCharacters(LineFilter):
    """Drops C0/C1 control characters (but the tab) from the text of every segment."""

    def apply(self, segments: list[Segment], background: Color) -> list[Segment]:
        out = segments
        for index, segment in enumerate(segments):
            text = segment.text
            if text.isprintable():  # almost every segment: no copy
                continue
            clean = strip_controls(text)
            if clean != text:
                if out is segments:
                    out = list(segments)
                out[index] = Segment(clean, segment.style, segment.control)
        return out
