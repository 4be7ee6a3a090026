"""A response seen as it arrives (DESIGN §7): the body's new text and its Server-Sent Events.

A ``StreamSink`` rides on ``Progress.sink``; the send feeds it every chunk it records (the
body is still kept and spooled as before) and asks it whether to stop. A send without a sink
pays one attribute test per chunk. Whoever shows or watches the stream reads the sink when it
likes (the app polls it on a timer, ``pigeon run`` hears each event): nothing is posted per
chunk.

Events are decoded with httpx-sse's line and event decoders rather than its ``EventSource``,
because the send loop owns the response: it records, spools and times the same bytes, under
one deadline, so the events are decoded from what it reads instead of reading the body twice.

Everything is bounded whatever the server sends: a line longer than ``MAX_LINE`` characters
is cut (the rest of it skipped), an event's data past ``MAX_EVENT_DATA`` is cut, the kept
events are the newest ``keep_events`` within ``keep_bytes`` (older ones are counted as
dropped). The live text is read from the send's own in-memory buffer, so a live view holds
no more of the body than the finished one would (the first ``max_body_in_memory`` bytes).
"""

from __future__ import annotations

import codecs
import time
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pigeon.model import Request

MAX_LINE = 1_000_000
MAX_EVENT_DATA = 1_000_000
KEEP_EVENTS = 10_000
KEEP_BYTES = 16 * 1024 * 1024
EVENT_STREAM = "text/event-stream"
RETRY_LIMIT_MS = 60_000  # the longest ``retry:`` wait a reconnect honours

# Why a stream stopped before its end, as the status line and `pigeon run` say it.
STOP_REASONS = {
    "user": "stopped",
    "max_events": "stopped at max_events",
    "max_seconds": "stopped at max_seconds",
    "script": "stopped by a script",
}


@dataclass(frozen=True, slots=True)
class Event:
    """One Server-Sent Event; ``retry`` is the reconnection time in effect (milliseconds, the
    latest ``retry:`` so far), ``time`` when it was received (seconds since the epoch; 0 when
    unknown: decoded later from a stored body)."""

    event: str
    id: str
    data: str
    retry: int | None
    time: float

    @property
    def type(self) -> str:
        """The event's type: ``message`` when the server named none."""
        return self.event or "message"

    def as_dict(self) -> dict[str, Any]:
        return {
            "event": self.type,
            "id": self.id,
            "data": self.data,
            "retry": self.retry,
            "time": self.time or None,
        }


class EventLog:
    """The newest events, within a count and a size; ``total`` counts every event seen."""

    def __init__(self, keep: int = KEEP_EVENTS, keep_bytes: int = KEEP_BYTES) -> None:
        self._events: deque[Event] = deque()
        self.keep = max(1, keep)
        self.keep_bytes = keep_bytes
        self.size = 0
        self.total = 0
        self.last_id = ""
        self.retry: int | None = None

    def add(self, event: Event) -> None:
        self.total += 1
        self.last_id = event.id
        if event.retry is not None:
            self.retry = event.retry
        self._events.append(event)
        self.size += len(event.data)
        while len(self._events) > self.keep or (
            self.size > self.keep_bytes and len(self._events) > 1
        ):
            self.size -= len(self._events.popleft().data)

    @property
    def dropped(self) -> int:
        """Events seen but no longer kept (the oldest)."""
        return self.total - len(self._events)

    def __len__(self) -> int:
        return len(self._events)

    def __iter__(self) -> Iterator[Event]:
        return iter(list(self._events))

    def since(self, seen: int) -> list[Event]:
        """The events after the first ``seen`` of ``total`` that are still kept."""
        new = min(self.total - seen, len(self._events))
        if new <= 0:
            return []
        events = self._events
        return [events[i] for i in range(len(events) - new, len(events))]


class EventParser:
    """Bytes in, events out: UTF-8 decoded (bad bytes replaced), split and decoded as the SSE
    specification says (a block without ``data`` is no event, though its ``id`` and
    ``retry`` count), within ``MAX_LINE`` and ``MAX_EVENT_DATA``."""

    def __init__(self) -> None:
        from httpx_sse._decoders import SSEDecoder, SSELineDecoder

        self._text = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._lines = SSELineDecoder()
        self._events = SSEDecoder()
        self._skipping = False  # the rest of an over-long line is being skipped
        self._data = -1  # data characters in the event being read; -1: no data line yet
        self._first = True
        self.retry: int | None = None

    def feed(self, chunk: bytes, now: float | None = None) -> list[Event]:
        text = self._text.decode(chunk)
        if self._first and text:
            self._first = False
            text = text.removeprefix("\ufeff")
        return self._decode(text, now)

    def _decode(self, text: str, now: float | None) -> list[Event]:
        if self._skipping:
            cut = min((i for i in (text.find("\n"), text.find("\r")) if i >= 0), default=-1)
            if cut < 0:
                return []
            text, self._skipping = text[cut:], False
        if not text:
            return []
        lines = self._lines.decode(text)
        pending = self._lines.buffer
        if pending and sum(map(len, pending)) > MAX_LINE:
            self._lines.buffer = ["".join(pending)[:MAX_LINE]]
            self._skipping = True
        out: list[Event] = []
        stamp = time.time() if now is None else now
        for line in lines:
            if line:  # a field: only a blank line ends an event
                if line.partition(":")[0] == "data":
                    if self._data >= MAX_EVENT_DATA:
                        continue  # the event's data was cut before this line
                    self._data += len(line) + (self._data < 0)
                    over = self._data - MAX_EVENT_DATA
                    if over > 0:  # cut here, never dropped: the event still counts
                        line = line[: max(len(line) - over, len("data:"))]
                self._events.decode(line[:MAX_LINE])
                continue
            sse = self._events.decode(line)
            had_data, self._data = self._data >= 0, -1
            if sse is None:
                continue
            if sse.retry is not None:
                self.retry = sse.retry
            if had_data:
                out.append(Event(sse.event, sse.id, sse.data, self.retry, stamp))
        return out


def resumed(request: Request, last_id: str, retry_ms: int | None = None) -> float:
    """Make ``request`` resume a stream where it stopped: its ``Last-Event-ID`` header names
    the last event id seen (no id: no header). Returns the seconds to wait before sending:
    the server's ``retry:`` time, at most ``RETRY_LIMIT_MS``."""
    from pigeon.model import Header

    request.headers = [h for h in request.headers if h.name.lower() != "last-event-id"]
    if last_id:
        request.headers.append(Header("Last-Event-ID", last_id))
    return min(retry_ms, RETRY_LIMIT_MS) / 1000 if retry_ms else 0.0


def parse_events(body: bytes, keep: int = KEEP_EVENTS) -> list[Event]:
    """The events of a whole (in-memory) body, the newest ``keep``: for an exchange whose
    stream nobody watched as it arrived."""
    log = EventLog(keep)
    parser = EventParser()
    for start in range(0, len(body), 65536):
        for event in parser.feed(body[start : start + 65536], 0.0):
            log.add(event)
    return list(log)


def is_event_stream(content_type: str) -> bool:
    return content_type.split(";", 1)[0].strip().lower() == EVENT_STREAM


def script_events(exchange: object) -> list[dict[str, Any]]:
    """``pigeon.response.events``: the events an exchange received as plain dicts, oldest
    first; decoded from the in-memory body when nobody watched the stream arrive. Any
    exchange will do (an ``Exchange``, a per-event script's view of one): only its attributes
    are read, and this module cannot name those classes, which import it."""
    events = getattr(exchange, "events", None)
    if events is None:
        headers = getattr(exchange, "headers", None) or []
        kind = next((v for k, v in headers if str(k).lower() == "content-type"), "")
        body = getattr(exchange, "body", b"")
        if not is_event_stream(str(kind)) or not isinstance(body, bytes):
            return []
        events = parse_events(body)
    return [event.as_dict() for event in events]


class StreamSink:
    """What a send hands over as the body arrives, and the way to stop it.

    ``feed`` (the send's thread) returns ``True`` when the send should stop reading: a stop
    was asked for, or ``max_events`` arrived. ``stop`` may be called from any thread; while
    the send waits for the next chunk, ``on_stop`` (set by the session) ends that wait.
    ``on_event`` hears each event as it is decoded, in the send's thread. A text body costs
    nothing per chunk: ``take_text`` decodes what the send's buffer gained since last time.
    """

    def __init__(
        self,
        *,
        max_events: int | None = None,
        max_seconds: float | None = None,
        keep_events: int = KEEP_EVENTS,
    ) -> None:
        self.max_events = max_events if max_events and max_events > 0 else None
        self.max_seconds = max_seconds if max_seconds and max_seconds > 0 else None
        self.kind: str = ""  # "" until the body starts, then "events" or "text"
        self.content_type = ""  # the body's media type, lower-cased, once it starts
        self.events = EventLog(keep_events)
        self.stop_reason: str | None = None
        self.on_stop: Callable[[], object] | None = None
        self.on_event: Callable[[Event], object] | None = None
        self.head: Any = None  # the response's Exchange without its body, once it started
        self._parser: EventParser | None = None
        self._buffer: bytearray | None = None
        self._charset: str | None = None
        self._decoder: codecs.IncrementalDecoder | None = None
        self._read = 0  # bytes of the buffer already taken as text

    # -- the send's side ----------------------------------------------------------------------

    def start(self, content_type: str, charset: str | None, buffer: bytearray) -> str:
        """The body begins, kept in ``buffer``: events when it is ``text/event-stream``, text
        otherwise. Returns the kind."""
        self._buffer, self._charset, self._read, self._decoder = buffer, charset, 0, None
        self.content_type = content_type.split(";", 1)[0].strip().lower()
        if is_event_stream(content_type):
            self.kind = "events"
            self._parser = EventParser()
        else:
            self.kind, self._parser = "text", None
        return self.kind

    def feed(self, chunk: bytes) -> bool:
        parser = self._parser
        if parser is not None:
            for event in parser.feed(chunk):
                self.events.add(event)
                if self.on_event is not None:
                    self.on_event(event)
                if self.max_events is not None and self.events.total >= self.max_events:
                    self.stop("max_events", wake=False)
                    break
        return self.stop_reason is not None

    # -- the watcher's side -------------------------------------------------------------------

    def peek(self, size: int = 8192) -> bytes:
        """The body's first ``size`` bytes arrived so far (to tell text from binary)."""
        return bytes(self._buffer[:size]) if self._buffer is not None else b""

    def take_text(self) -> str:
        """The text the in-memory body gained since the last call (bad bytes replaced)."""
        buffer = self._buffer
        if buffer is None or len(buffer) == self._read:
            return ""
        if self._decoder is None:
            try:
                factory = codecs.getincrementaldecoder(self._charset or "utf-8")
            except LookupError:
                factory = codecs.getincrementaldecoder("utf-8")
            self._decoder = factory(errors="replace")
        data, self._read = bytes(buffer[self._read :]), len(buffer)
        return self._decoder.decode(data)

    def stop(self, reason: str = "user", *, wake: bool = True) -> None:
        """Stop the stream, keeping what arrived (the first reason given wins)."""
        if self.stop_reason is not None:
            return
        self.stop_reason = reason
        if wake and self.on_stop is not None:
            self.on_stop()

    @property
    def stopped(self) -> str:
        """How the stop is told ("stopped at max_events"), or ""."""
        if self.stop_reason is None:
            return ""
        return STOP_REASONS.get(self.stop_reason, "stopped")
