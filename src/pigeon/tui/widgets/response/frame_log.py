"""The live log of a WebSocket connection's frames: newest at the bottom, followed while the
view is at the end.

A Line API widget: each frame becomes a heading (direction, time, kind, size) and its lines
once, when it arrives (text as it came, JSON pretty-printed, binary as hex), at most
``FRAME_LINES`` of them; only the lines on screen are drawn. Every character from the server
goes through ``printable``: an escape is shown, never sent to the terminal.
"""

from __future__ import annotations

import contextlib
import json
import time
from collections import deque
from typing import ClassVar

from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style
from textual.binding import Binding, BindingType
from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.strip import Strip

from pigeon.bodies import human_size
from pigeon.exchange import MAX_FRAMES, Frame
from pigeon.terminal import printable
from pigeon.tui.vim_keys import vim_bindings

FRAME_LINES = 40  # lines of one frame shown; the rest is counted
LINE_CAP = 2000  # characters of one line shown
_ARROWS = {"sent": "→", "received": "←"}


def frame_lines(frame: Frame) -> list[str]:
    """The lines a frame's data shows as (without its heading), escapes made visible."""
    if frame.kind == "binary":
        data = frame.data if isinstance(frame.data, bytes) else b""
        lines = [
            f"{data[i : i + 16].hex(' '):<47}  "
            + "".join(chr(b) if 32 <= b < 127 else "." for b in data[i : i + 16])
            for i in range(0, min(len(data), 16 * (FRAME_LINES + 1)), 16)
        ]
        total = (len(data) + 15) // 16
    elif frame.kind == "text":
        text = frame.data if isinstance(frame.data, str) else ""
        if text[:1] in "{[" and not frame.truncated:
            with contextlib.suppress(ValueError, RecursionError):  # not JSON, or nested too deep
                text = json.dumps(json.loads(text), indent=2, ensure_ascii=False)
        lines = text.split("\n", FRAME_LINES + 1)
        total = text.count("\n") + 1 if len(lines) > FRAME_LINES else len(lines)
    else:
        return []
    shown = [printable(line[:LINE_CAP]) for line in lines[:FRAME_LINES]]
    if total > FRAME_LINES:
        shown.append(f"… {total - FRAME_LINES:,} more lines")
    if frame.truncated:
        shown.append(f"… cut: {human_size(frame.size)} in all, the log keeps the first part")
    return shown


def heading(frame: Frame) -> str:
    at = time.strftime("%H:%M:%S", time.localtime(frame.at)) + f".{int(frame.at % 1 * 1000):03d}"
    if frame.kind in ("text", "binary"):
        what = f"{frame.kind}  {human_size(frame.size)}"
    else:
        what = printable(f"close {frame.note}" if frame.kind == "close" else frame.note)
    return f"{_ARROWS[frame.direction]} {at}  {what}"


class FrameLog(ScrollView, can_focus=True):
    """Frames in arrival order; ``update(frames, total)`` takes the link's ring as it is now
    and ``total``, how many frames it has ever held, and formats only the new ones."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "frame-log--sent",
        "frame-log--received",
        "frame-log--heading",
    }
    DEFAULT_CSS = """
    FrameLog {
        height: 1fr;
        & > .frame-log--sent { color: $text-accent; }
        & > .frame-log--received { color: $foreground; }
        & > .frame-log--heading { color: $text-muted; text-style: bold; }
    }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        *vim_bindings(down="scroll_down", up="scroll_up", find="scroll_end"),
        Binding("home", "scroll_home", show=False),
        Binding("end", "scroll_end", show=False),
    ]

    def __init__(self, *, id: str | None = None, max_frames: int = MAX_FRAMES) -> None:
        super().__init__(id=id)
        self._entries: deque[tuple[Frame, list[str]]] = deque(maxlen=max_frames)
        self._rows: list[tuple[str, str]] = []  # (line, "sent" | "received" | "heading")
        self._seen = 0
        self._width = 0

    def clear(self) -> None:
        self._entries.clear()
        self._rows, self._seen, self._width = [], 0, 0
        self.virtual_size = Size(0, 0)
        self.refresh()

    @property
    def line_count(self) -> int:
        return len(self._rows)

    def lines(self) -> list[str]:
        """Every line as shown, for tests and copying."""
        return [text for text, _ in self._rows]

    def update(self, frames: list[Frame], total: int) -> None:
        new = min(total - self._seen, len(frames))
        if new <= 0:
            return
        self._seen = total
        for frame in frames[len(frames) - new :]:
            self._entries.append((frame, frame_lines(frame)))
        rows: list[tuple[str, str]] = []
        for frame, lines in self._entries:
            rows.append((heading(frame), "heading"))
            rows.extend((f"  {line}", frame.direction) for line in lines)
        following = self.scroll_y >= self.max_scroll_y
        self._rows = rows
        self._width = max(self._width, *(cell_len(t) for t, _ in rows[-200:]))
        self.virtual_size = Size(self._width, len(rows))
        self.refresh()
        if following:
            self.call_after_refresh(self.scroll_end, animate=False, immediate=True)

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        width = self.scrollable_content_region.width
        base = self.rich_style
        index = scroll_y + y
        if index >= len(self._rows):
            return Strip.blank(width, base)
        text, kind = self._rows[index]
        style: Style = base + self.get_component_rich_style(f"frame-log--{kind}", partial=True)
        strip = Strip([Segment(text, style)], cell_len(text))
        return strip.crop_extend(scroll_x, scroll_x + width, base)
