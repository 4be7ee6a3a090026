"""A response followed as it arrives: a timer reads the send's sink (``pigeon.stream``) a
dozen times a second and shows what came since, so a fast stream costs the UI a batch per
tick, never a message per chunk. Text bodies grow line by line in the body view; a
``text/event-stream`` fills the events panel; a binary body is only counted (in the status
line, as before)."""

from __future__ import annotations

import gc
from collections.abc import Callable
from typing import TYPE_CHECKING

from textual.timer import Timer
from textual.widget import Widget

from pigeon import bodies
from pigeon.stream import StreamSink
from pigeon.tui.widgets.response.body_view import BodyView
from pigeon.tui.widgets.response.status_line import StatusLine

if TYPE_CHECKING:  # made for the first stream (``ResponsePane.events_panel``)
    from pigeon.tui.widgets.response.events_panel import EventsPanel

POLL = 1 / 15
# A line still growing past this many characters is shown as it is, so a body with no line
# breaks (minified JSON) is not held back whole.
PARTIAL_LIMIT = 1_000_000


class LiveBody:
    """Follows one send's sink until ``stop``; ``show_events(True)`` swaps the body view for
    the events panel, which ``events`` gives (made for the first stream: asked for then)."""

    def __init__(
        self,
        owner: Widget,
        sink: StreamSink,
        view: BodyView,
        events: Callable[[], EventsPanel],
        status: StatusLine,
        show_events: Callable[[bool], None],
    ) -> None:
        self.sink = sink
        self._view, self._events, self._status = view, events, status
        self._show_events = show_events
        self._kind = ""  # what is being shown: "", "events", "text", "binary"
        self._partial = ""
        self._lines = 0
        self._seen = 0
        # While the body arrives, the objects alive now (the app's widgets, styles, caches)
        # are left out of the cyclic collector's full passes, which a fast stream's many small
        # objects would otherwise make walk everything, stalling the UI; ``stop`` puts them
        # back, so nothing that becomes garbage later is kept.
        gc.freeze()
        self._timer: Timer | None = owner.set_interval(POLL, self.poll)

    @property
    def following(self) -> bool:
        """Whether the reader is at the end of what arrived."""
        if self._kind == "text":
            return self._view.following
        return self._kind == "events" and self._events().following

    @property
    def kind(self) -> str:
        return self._kind

    def stop(self) -> None:
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
            gc.unfreeze()
        if self._kind == "events":
            self._events().live = False

    def poll(self) -> None:
        sink = self.sink
        if not self._kind and sink.kind:
            self._begin(sink)
        if self._kind == "events":
            log = sink.events
            self._events().add(log.since(self._seen), log.total)
            self._seen = log.total
            self._status.live_note = f"{log.total:,} event{'s' if log.total != 1 else ''}"
        elif self._kind == "text":
            self._grow(sink.take_text())

    def _begin(self, sink: StreamSink) -> None:
        if sink.kind == "events":
            self._kind = "events"
            events = self._events()
            events.clear()
            events.live = True
            self._show_events(True)
            return
        head = sink.peek()
        if not head:
            return  # nothing yet to tell text from binary
        kind = bodies.classify_body(sink.content_type, head, len(head))
        self._kind = "binary" if kind in ("image", "binary") else "text"
        if self._kind == "text":
            self._view.show_live()

    def _grow(self, text: str) -> None:
        if not text:
            return
        text = self._partial + text
        cut = text.rfind("\n") + 1
        if not cut and len(text) > PARTIAL_LIMIT:
            cut, text = len(text) + 1, text + "\n"
        self._partial = text[cut:]
        if cut:
            self._view.append_lines(text[:cut])
            self._lines += text.count("\n", 0, cut)
            self._status.live_note = f"{self._lines:,} line{'s' if self._lines != 1 else ''}"
