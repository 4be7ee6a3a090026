"""Post-response scripts run once per Server-Sent Event as a stream arrives (DESIGN §8).

A request with a ``[stream]`` table hands each event to its post-response scripts while the
stream goes on: ``pigeon.response.event`` is the new event, ``pigeon.response.events`` every
kept event so far, ``pigeon.response.text`` and ``json()`` read the event's data, and
``pigeon.stopStream()`` ends the stream (what arrived is kept). The runs go one at a time in
arrival order; events that arrive faster than the scripts run wait in a bounded queue (the
rest are counted as missed, and the script still finds them in ``events``). A script error
stops the stream: the same error would follow on every event.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from typing import Any

from pigeon.exchange import Exchange
from pigeon.scripts import ScriptOutcome
from pigeon.stream import Event, StreamSink

QUEUE = 1000


class LiveExchange:
    """The exchange as a per-event script sees it: the response's head, the new event."""

    def __init__(self, head: Exchange | None, sink: StreamSink, event: Event) -> None:
        self.status = head.status if head is not None else None
        self.reason = head.reason if head is not None else ""
        self.headers = list(head.headers) if head is not None else []
        self.url = head.url if head is not None else ""
        self.http_version = head.http_version if head is not None else ""
        self.timings = head.timings if head is not None else None
        self.error: str | None = None
        self.event = event
        self._sink = sink

    @property
    def events(self) -> list[Event]:
        """The kept events up to this one (later ones may have arrived meanwhile)."""
        events = list(self._sink.events)
        for index in range(len(events) - 1, -1, -1):
            if events[index] is self.event:
                return events[: index + 1]
        return events

    @property
    def text(self) -> str:
        return self.event.data

    @property
    def body(self) -> bytes:
        return self.event.data.encode("utf-8")

    def json(self) -> Any:
        try:
            return json.loads(self.event.data)
        except ValueError as exc:
            raise ValueError(f"The event's data is not JSON: {exc}") from None

    def stop_stream(self) -> None:
        self._sink.stop("script")


class EventScripts:
    """Hears the sink's events and runs ``run`` (the post-response phase) for each."""

    def __init__(
        self, sink: StreamSink, run: Callable[[LiveExchange], Awaitable[ScriptOutcome]]
    ) -> None:
        self.sink = sink
        self.run = run
        self.outcomes: list[ScriptOutcome] = []
        self.missed = 0
        self._queue: asyncio.Queue[Event | None] = asyncio.Queue()
        loop = asyncio.get_running_loop()
        sink.on_event = lambda event: loop.call_soon_threadsafe(self._heard, event)
        self._task = asyncio.ensure_future(self._loop())

    def _heard(self, event: Event) -> None:
        if self._queue.qsize() >= QUEUE:
            self.missed += 1
        else:
            self._queue.put_nowait(event)

    async def _loop(self) -> None:
        while (event := await self._queue.get()) is not None:
            outcome = await self.run(LiveExchange(self.sink.head, self.sink, event))
            self.outcomes.append(outcome)
            if outcome.errors:
                self.sink.stop("script")
            if self.sink.stop_reason == "script":
                return

    async def finish(self) -> list[ScriptOutcome]:
        """After the send: the events still waiting get their runs (unless a script stopped
        the stream); the outcomes of every run."""
        self.sink.on_event = None
        self._queue.put_nowait(None)
        await self._task
        return self.outcomes

    def cancel(self) -> None:
        self.sink.on_event = None
        self._task.cancel()
