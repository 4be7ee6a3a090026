"""Server-Sent Events one row each: the time received, the type, the id and the data on one
line. A Line API widget: only the rows on screen are drawn, so thousands of events arriving
cost a row's drawing each, not a table's relayout. The newest row stays in view while the
cursor is on the last row (as ``tail -f`` follows); moving up stops that, going back to the
end resumes it."""

from __future__ import annotations

import time
from typing import ClassVar

from rich.style import Style
from rich.text import Text
from textual.binding import Binding, BindingType
from textual.cache import LRUCache
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from pigeon.stream import Event
from pigeon.terminal import printable
from pigeon.tui.css import beside
from pigeon.tui.vim_keys import vim_bindings

TYPE_WIDTH = 12
ID_WIDTH = 8
DATA_SHOWN = 2000  # characters of an event's data drawn on its row


def clock(event: Event) -> str:
    """When an event arrived, to the millisecond (local time); blank when unknown."""
    if not event.time:
        return " " * 12
    local = time.localtime(event.time)
    return time.strftime("%H:%M:%S", local) + f".{int(event.time * 1000) % 1000:03d}"


def _cell(text: str, width: int) -> str:
    text = printable(text)
    return text[: width - 1] + "…" if len(text) > width else text.ljust(width)


class EventTable(ScrollView, can_focus=True):
    """The events shown (a filter may hide some), with a cursor on one."""

    DEFAULT_CSS = beside(__file__)

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "event-table--cursor",
        "event-table--time",
        "event-table--type",
        "event-table--id",
    }

    BINDINGS: ClassVar[list[BindingType]] = [
        *vim_bindings("cursor_down", "cursor_up", "first", "last", find=""),
        Binding("down", "cursor_down", "Down", show=False),
        Binding("up", "cursor_up", "Up", show=False),
        Binding("home", "first", "First", show=False),
        Binding("end", "last", "Last", show=False),
        Binding("pagedown", "page_down", "Page down", show=False),
        Binding("pageup", "page_up", "Page up", show=False),
    ]

    cursor: reactive[int] = reactive(-1, init=False)

    class Highlighted(Message):
        """The cursor moved to ``event`` (``None``: no rows)."""

        def __init__(self, event: Event | None) -> None:
            super().__init__()
            self.event = event

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.rows: list[Event] = []
        # Rows drawn, by event and cursor: following a stream shifts rows, it does not
        # change them, so each is drawn once.
        self._strips: LRUCache[tuple[Event, bool, int], Strip] = LRUCache(512)
        self._styles: dict[str, Style] = {}

    @property
    def following(self) -> bool:
        """Whether the newest row is kept in view (the cursor is on the last row)."""
        return self.cursor >= len(self.rows) - 1

    @property
    def current(self) -> Event | None:
        return self.rows[self.cursor] if 0 <= self.cursor < len(self.rows) else None

    def set_rows(self, rows: list[Event]) -> None:
        """Show ``rows``, the cursor on the last."""
        self.rows = list(rows)
        self._resize()
        self.cursor = len(self.rows) - 1
        self._reveal()
        self.call_after_refresh(self._reveal)  # a table just shown has no height yet

    def add_rows(self, rows: list[Event], drop: int = 0) -> None:
        """New rows at the end, the ``drop`` oldest gone; followed when the cursor was on
        the last row."""
        following = self.following
        if drop:
            del self.rows[:drop]
        self.rows.extend(rows)
        self._resize()
        if following:
            self.cursor = len(self.rows) - 1
        else:
            self.cursor = max(0, min(self.cursor - drop, len(self.rows) - 1))
        self._reveal()
        self.refresh()

    def on_resize(self) -> None:
        self._reveal()  # the cursor's row stays in view when the table shrinks

    def _resize(self) -> None:
        self.virtual_size = Size(self.scrollable_content_region.width, len(self.rows))

    def watch_cursor(self, old: int, new: int) -> None:
        self.refresh()
        self.post_message(self.Highlighted(self.current))

    def _reveal(self) -> None:
        height = self.scrollable_content_region.height
        y = self.scroll_offset.y
        if self.cursor < y:
            self.scroll_to(y=self.cursor, animate=False, immediate=True, force=True)
        elif height > 0 and self.cursor >= y + height:
            self.scroll_to(y=self.cursor - height + 1, animate=False, immediate=True, force=True)

    def _move(self, to: int) -> None:
        if self.rows:
            self.cursor = max(0, min(to, len(self.rows) - 1))
            self._reveal()

    def action_cursor_down(self) -> None:
        self._move(self.cursor + 1)

    def action_cursor_up(self) -> None:
        self._move(self.cursor - 1)

    def action_first(self) -> None:
        self._move(0)

    def action_last(self) -> None:
        self._move(len(self.rows) - 1)

    def action_page_down(self) -> None:
        self._move(self.cursor + max(1, self.scrollable_content_region.height - 1))

    def action_page_up(self) -> None:
        self._move(self.cursor - max(1, self.scrollable_content_region.height - 1))

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._styles.clear()
        self._strips.clear()

    def render_line(self, y: int) -> Strip:
        number = self.scroll_offset.y + y
        width = self.scrollable_content_region.width
        base = self._style("")
        if number >= len(self.rows):
            return Strip.blank(width, base)
        event = self.rows[number]
        key = (event, number == self.cursor, width)
        strip = self._strips.get(key)
        if strip is None:
            strip = self._strips[key] = self._draw(event, key[1], width, base)
        return strip

    def _draw(self, event: Event, current: bool, width: int, base: Style) -> Strip:
        text = Text(no_wrap=True, end="", style=base)
        text.append(clock(event) + " ", self._style("time"))
        text.append(_cell(event.type, TYPE_WIDTH) + " ", self._style("type"))
        text.append(_cell(event.id, ID_WIDTH) + " ", self._style("id"))
        text.append(printable(event.data[:DATA_SHOWN].replace("\n", " ↵ ")))
        if current:
            text.stylize(self._style("cursor"))
        strip = Strip(text.render(self.app.console), text.cell_len)
        return strip.crop_extend(0, width, base)

    def _style(self, name: str) -> Style:
        style = self._styles.get(name)
        if style is None:
            style = self._styles[name] = (
                self.rich_style
                if not name
                else self.get_component_rich_style(f"event-table--{name}", partial=True)
            )
        return style
