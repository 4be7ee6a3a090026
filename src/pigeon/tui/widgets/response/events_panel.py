"""A ``text/event-stream`` response as its events: a row each, newest in view as they arrive,
a filter (``/``: text in the type, id or data; ``type:NAME`` for one type), the selected
event's data in full below (``enter``; JSON pretty-printed), and ``r`` to reconnect once the
stream has ended, sending ``Last-Event-ID`` after the server's ``retry:`` wait. A reconnected
stream continues the same timeline: the earlier connections' events stay, a mark row between
(within the same bounds as one stream's)."""

from __future__ import annotations

import contextlib
import json
import time
from collections import deque
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.reactive import reactive
from textual.widget import Widget
from textual.widgets import Input, Label, Static

from pigeon.stream import KEEP_BYTES, KEEP_EVENTS, Event
from pigeon.terminal import printable_lines
from pigeon.tui.css import beside
from pigeon.tui.widgets.response.event_table import ID_WIDTH, TYPE_WIDTH, EventTable

DETAIL_LIMIT = 100_000  # characters of one event's data shown in the detail view
RECONNECTED = "↻ reconnected"  # the type of the row marking where a stream was resumed
HEAD = f"{'time':<12} {'event':<{TYPE_WIDTH}} {'id':<{ID_WIDTH}} data"


class _Note(Widget):
    """One line that changes with every batch of events: repainted, never laid out again
    (a ``Static``'s update relays the screen out)."""

    text: reactive[str] = reactive("", layout=False)

    def render(self) -> Text:
        return Text(self.text)


def matches(event: Event, words: list[str], kind: str) -> bool:
    """Whether ``event`` passes the filter: its type is ``kind`` (when given) and each word
    is in its type, id or data (case-insensitive)."""
    if kind and event.type.lower() != kind:
        return False
    if not words:
        return True
    hay = f"{event.type}\n{event.id}\n{event.data}".lower()
    return all(word in hay for word in words)


def parse_filter(text: str) -> tuple[list[str], str]:
    """``type:update error`` -> (["error"], "update")."""
    words, kind = [], ""
    for word in text.lower().split():
        if word.startswith(("type:", "event:")):
            kind = word.partition(":")[2]
        else:
            words.append(word)
    return words, kind


def detail_text(event: Event) -> str:
    """An event's data for reading: JSON pretty-printed, anything else as it came."""
    data = event.data[:DETAIL_LIMIT]
    with contextlib.suppress(ValueError, RecursionError):
        data = json.dumps(json.loads(data), indent=2, ensure_ascii=False)
    head = f"event: {event.type}   id: {event.id or '—'}"
    if event.retry is not None:
        head += f"   retry: {event.retry} ms"
    return printable_lines(f"{head}\n{data}")


class EventsPanel(Vertical):
    """The events of a stream, live or finished."""

    DEFAULT_CSS = beside(__file__)

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("slash", "filter", "Filter events", id="events.filter"),
        Binding("enter", "toggle_detail", "Event data", id="events.detail"),
        Binding("r", "reconnect", "Reconnect", id="events.reconnect"),
        Binding("escape", "close", "Close", id="events.close", show=False),
    ]

    live: reactive[bool] = reactive(False, init=False)
    """The stream is still arriving (reconnecting waits for its end)."""

    class ReconnectRequested(Message):
        """Send the request again, resuming after ``last_id`` ("" when no event had an id),
        once ``retry_ms`` (the server's ``retry:``, if it sent one) have passed."""

        def __init__(self, last_id: str, retry_ms: int | None) -> None:
            super().__init__()
            self.last_id, self.retry_ms = last_id, retry_ms

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        # The newest events within the sink's bounds (a count and a size); the table shows
        # those the filter lets through, in order.
        self._all: deque[Event] = deque()
        self._data_size = 0
        self._total = 0
        self._last_id = ""
        self._retry: int | None = None
        self._words: list[str] = []
        self._kind = ""
        # A reconnect asked for: the timeline so far (events, total), to continue.
        self._carry: tuple[list[Event], int] | None = None
        # The earlier connections' events and marks, before this connection's, and how many
        # events they had received (dropped ones included).
        self._prefix: list[Event] = []
        self._prefix_total = 0
        self._marks = 0  # how many reconnects the timeline has
        self._began = False  # this connection's live events began on top of ``_prefix``
        # The response pane mounts this panel for its first stream and gives it events at
        # once: until its widgets are in, they are kept in ``_all`` and shown on mount.
        self._ready = False
        self._missed = False

    def compose(self) -> ComposeResult:
        yield _Note(id="events-note")
        with Horizontal(id="events-bar"):
            yield Label("filter", id="events-bar-prompt")
            yield Input(id="events-filter", placeholder="text, or type:NAME", compact=True)
        yield Static(HEAD, id="events-head")
        yield EventTable(id="event-table")
        with VerticalScroll(id="event-detail"):
            yield Static("", id="event-detail-text", markup=False)

    def on_mount(self) -> None:
        self._ready = True
        if self._missed:
            self._refilter()

    @property
    def table(self) -> EventTable:
        return self.query_one(EventTable)

    @property
    def following(self) -> bool:
        """Whether the newest row stays in view as events arrive (so it does until shown)."""
        return self.table.following if self._ready else True

    @property
    def total(self) -> int:
        """Events received, the dropped ones included."""
        return self._total

    @property
    def last_id(self) -> str:
        return self._last_id

    # -- content ------------------------------------------------------------------------------

    def clear(self) -> None:
        """A stream begins: empty, or the timeline so far when it is a reconnect."""
        self._take_carry()
        self._began = True
        self._all = deque(self._prefix)
        self._data_size = sum(len(e.data) for e in self._all)
        self._total, self._retry = self._prefix_total, None
        self._last_id = ""
        self._refilter()

    def _take_carry(self) -> None:
        """Start this connection's part of the timeline: after the earlier one's and a mark
        when a reconnect was asked for, alone otherwise."""
        carry, self._carry = self._carry, None
        if carry is None:
            self._prefix, self._prefix_total, self._marks = [], 0, 0
            return
        events, total = carry
        last = next((e.id for e in reversed(events) if e.id and e.event != RECONNECTED), "")
        mark = Event(
            RECONNECTED, last, f"resumed after id {last}" if last else "resumed", None, time.time()
        )
        self._prefix, self._prefix_total = [*events, mark][-KEEP_EVENTS:], total
        self._marks = sum(1 for e in self._prefix if e.event == RECONNECTED)

    def add(self, events: list[Event], total: int) -> None:
        """Events that arrived (``total``: all received so far, dropped ones included)."""
        total += self._prefix_total
        if not events and total == self._total:
            return
        self._total = total
        self._note_ids(events)
        shown = [e for e in events if matches(e, self._words, self._kind)]
        rows = self.table.rows if self._ready else []
        gone = 0  # of the table's rows
        self._all.extend(events)
        self._data_size += sum(len(e.data) for e in events)
        while len(self._all) > KEEP_EVENTS or (self._data_size > KEEP_BYTES and len(self._all) > 1):
            old = self._all.popleft()
            self._data_size -= len(old.data)
            # The rows are the kept events in order: a row that goes is the oldest one.
            if gone < len(rows) and rows[gone] is old:
                gone += 1
            elif gone == len(rows) and shown and shown[0] is old:
                shown.pop(0)
        if not self._ready:
            self._missed = True
            return
        self.table.add_rows(shown, drop=gone)
        self._update_note()

    def show(self, events: list[Event], total: int | None = None, resumed: bool = False) -> None:
        """A finished stream's events (the newest kept; ``total`` counts all received).
        ``resumed``: it was sent with ``Last-Event-ID``, so a reconnect asked for here goes on
        the same timeline; any other stream starts one of its own."""
        total = len(events) if total is None else total
        if not resumed:
            self._carry, self._prefix, self._prefix_total, self._marks = None, [], 0, 0
        elif not self._began:
            self._take_carry()  # it ended before its events were followed live
        self._began = False
        kept = deque([*self._prefix, *events][-KEEP_EVENTS:])  # the same bounds as one stream's
        size = sum(len(e.data) for e in kept)
        while size > KEEP_BYTES and len(kept) > 1:
            size -= len(kept.popleft().data)
        events = list(kept)
        self._all, self._data_size = kept, size
        self._total = self._prefix_total + total
        self._last_id, self._retry = "", None
        self._note_ids(events)
        self._refilter()

    def _note_ids(self, events: list[Event]) -> None:
        for event in events:
            if event.event == RECONNECTED:
                continue
            self._last_id = event.id
            if event.retry is not None:
                self._retry = event.retry

    def _refilter(self) -> None:
        if not self._ready:
            self._missed = True
            return
        self.table.set_rows([e for e in self._all if matches(e, self._words, self._kind)])
        self._update_note()

    def watch_live(self) -> None:
        if not self._ready:
            self._missed = True
            return
        self._update_note()
        self.refresh_bindings()

    def _update_note(self) -> None:
        parts = [f"{self._total:,} event{'s' if self._total != 1 else ''}"]
        dropped = self._total - len(self._all) + self._marks
        if self._marks:
            parts.append(f"reconnected {self._marks}×")
        if dropped > 0:
            parts.append(f"{dropped:,} oldest dropped from view")
        if self._words or self._kind:
            parts.append(f"{len(self.table.rows):,} shown by the filter")
        if self.live:
            parts.append("following" if self.table.following else "paused: end follows again")
        elif self._total:
            parts.append("ended: r reconnects")
        self.query_one(_Note).text = " · ".join(parts)

    # -- events -------------------------------------------------------------------------------

    def on_event_table_highlighted(self, message: EventTable.Highlighted) -> None:
        message.stop()
        if self.has_class("-detail"):
            self._show_detail(message.event)
        if self.live:
            self._update_note()

    def _show_detail(self, event: Event | None) -> None:
        text = detail_text(event) if event is not None else ""
        self.query_one("#event-detail-text", Static).update(Text(text))

    def on_input_changed(self, message: Input.Changed) -> None:
        message.stop()
        self._words, self._kind = parse_filter(message.value)
        self._refilter()

    def on_input_submitted(self, message: Input.Submitted) -> None:
        message.stop()
        self.table.focus()

    # -- actions ------------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "reconnect":
            return not self.live and self._total > 0
        if action == "close":
            return self.has_class("-filtering") or self.has_class("-detail")
        if action == "toggle_detail":
            return self.table.current is not None
        return True

    def action_filter(self) -> None:
        self.add_class("-filtering")
        self.query_one("#events-filter", Input).focus()
        self.refresh_bindings()

    def action_toggle_detail(self) -> None:
        self.toggle_class("-detail")
        if self.has_class("-detail"):
            self._show_detail(self.table.current)
        self.refresh_bindings()

    def action_close(self) -> None:
        """Close the detail first, then the filter (which shows every event again)."""
        if self.has_class("-detail"):
            self.remove_class("-detail")
        elif self.has_class("-filtering"):
            self.remove_class("-filtering")
            filter_input = self.query_one("#events-filter", Input)
            if filter_input.value:
                filter_input.value = ""
        self.table.focus()
        self.refresh_bindings()

    def action_reconnect(self) -> None:
        self._carry = (list(self._all), self._total)  # the timeline the reconnect continues
        self.post_message(self.ReconnectRequested(self._last_id, self._retry))
