"""The strip of open request tabs over the editor: one line that scrolls to keep the shown tab
in view (``‹``/``›`` say more are off either side) rather than wrapping onto a second line,
which an 80x24 terminal cannot spare.

It draws what it is given and reports clicks: ``OpenRequests`` owns the tabs.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual import events
from textual.app import RenderResult
from textual.message import Message
from textual.widget import Widget

from pigeon.terminal import printable


@dataclass(frozen=True)
class TabLabel:
    """How one tab reads: its name, whether it has unsaved changes (``•``) and whether it is
    the preview tab (italic: the next request opened from the tree takes its place)."""

    name: str
    dirty: bool = False
    preview: bool = False


class TabStrip(Widget):
    DEFAULT_CSS = """
    TabStrip {
        height: 1;
        width: 1fr;
        color: $text-muted;
    }
    """

    @dataclass
    class Chosen(Message):
        """A tab was clicked."""

        index: int

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.labels: list[TabLabel] = []
        self.active: int | None = None
        self._spans: list[tuple[int, int]] = []  # each tab's cells on screen, after scrolling
        self._first = 0  # the first cell shown of the whole strip

    def show(self, labels: list[TabLabel], active: int | None) -> None:
        self.labels, self.active = list(labels), active
        self.refresh()

    def _label_text(self, index: int, label: TabLabel) -> Text:
        name = printable(label.name) or "(unnamed)"
        text = Text(f" {name}{' •' if label.dirty else ''} ")
        style = "italic" if label.preview else ""
        if index == self.active:
            style += " bold reverse"
        if style:
            text.stylize(style.strip())
        return text

    def render(self) -> RenderResult:
        width = self.size.width
        parts = [self._label_text(i, label) for i, label in enumerate(self.labels)]
        starts, at = [], 0
        for part in parts:
            starts.append(at)
            at += part.cell_len + 1  # a space between tabs
        total = max(0, at - 1)
        first = min(self._first, max(0, total - width))
        if self.active is not None and parts:
            a_start = starts[self.active]
            a_end = a_start + parts[self.active].cell_len
            # Keep a cell each side free for the ‹ › marks when the strip overflows.
            if a_start - 1 < first:
                first = max(0, a_start - 1)
            elif a_end + 1 > first + width:
                first = min(a_end + 1 - width, max(0, total - width))
        self._first = first
        line = Text(no_wrap=True, overflow="crop", end="")
        for i, part in enumerate(parts):
            if i:
                line.append(" ")
            line.append_text(part)
        shown = line[first : first + width] if total > width else line
        self._spans = [
            (s - first, s - first + p.cell_len) for s, p in zip(starts, parts, strict=True)
        ]
        if total > width and width > 2:
            if first > 0:
                shown = Text("‹", style="bold") + shown[1:]
            if first + width < total:
                shown = shown[: width - 1] + Text("›", style="bold")
        return shown

    def on_click(self, event: events.Click) -> None:
        for index, (start, end) in enumerate(self._spans):
            if start <= event.x < end:
                self.post_message(self.Chosen(index))
                return
