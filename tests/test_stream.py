"""A response seen as it arrives: events decoded within bounds, text handed over before the
end, and a stream stopped by a count, a time, or a caller, keeping what arrived."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator

import pytest

from pigeon.model import Settings
from pigeon.render import RenderedRequest
from pigeon.send import HttpSession, Progress
from pigeon.send_thread import ThreadedSession
from pigeon.stream import (
    MAX_EVENT_DATA,
    MAX_LINE,
    EventLog,
    EventParser,
    StreamSink,
    parse_events,
)
from stream_servers import StreamServer, stream_server


def req(url: str, headers: list[tuple[str, str]] | None = None, timeout: float = 30.0):
    return RenderedRequest(
        method="GET", url=url, headers=list(headers or []), settings=Settings(timeout=timeout)
    )


@pytest.fixture(scope="module")
def server() -> Iterator[StreamServer]:
    with stream_server() as s:
        yield s


# -- decoding -------------------------------------------------------------------------------


def test_events_split_anywhere_decode_the_same() -> None:
    body = (
        b"\xef\xbb\xbfretry: 1500\r\n\r\n: a comment\r\nid: 7\r\nevent: update\r\n"
        b'data: {"a": 1}\r\ndata: line two\r\n\r\ndata: plain\n\n'
    )
    whole = [(e.type, e.id, e.data, e.retry) for e in parse_events(body)]
    assert whole == [  # the retry-only block is no event; its retry stays in effect
        ("update", "7", '{"a": 1}\nline two', 1500),
        ("message", "7", "plain", 1500),
    ]
    for size in (1, 2, 3, 5):
        parser = EventParser()
        got = []
        for i in range(0, len(body), size):
            got += parser.feed(body[i : i + size])
        assert [(e.type, e.id, e.data, e.retry) for e in got] == whole


def test_invalid_utf8_and_escapes_are_kept_as_text() -> None:
    (event,) = parse_events(b"data: \xff\x1b[31mred\n\n")
    assert event.data == "\ufffd\x1b[31mred"  # shown escaped by the views, never obeyed


def test_an_endless_line_and_endless_data_stay_bounded() -> None:
    parser = EventParser()
    for _ in range(30):  # 3 MB of one line, no newline
        assert parser.feed(b"data: " + b"x" * 100_000) == []
    assert sum(map(len, parser._lines.buffer)) <= MAX_LINE
    (event,) = parser.feed(b"\n\n")
    assert len(event.data) < MAX_LINE
    parser = EventParser()
    line = b"data: " + b"y" * 10_000 + b"\n"
    for _ in range(300):  # one event of 3 MB of data lines
        parser.feed(line)
    (event,) = parser.feed(b"\n")
    assert len(event.data) <= MAX_EVENT_DATA + 10_000
    (after,) = parser.feed(b"data: next\n\n")  # the next event starts afresh
    assert after.data == "next"
    parser = EventParser()  # one data line alone over the limit is cut, then a small event
    (cut,) = parser.feed(b"data: " + b"z" * MAX_EVENT_DATA + b"\n\n")
    assert MAX_EVENT_DATA - 10 <= len(cut.data) <= MAX_EVENT_DATA and set(cut.data) == {"z"}
    assert [e.data for e in parser.feed(b"data: small\n\n")] == ["small"]


def test_an_event_whose_first_data_line_is_too_long_is_cut_and_counted() -> None:
    """Cut, never dropped: ``max_events`` counts it and stops the stream."""
    huge = b"id: 1\ndata: " + b"z" * (2 * MAX_EVENT_DATA) + b"\n\n"
    for pieces in ([huge], [huge[:500_000], huge[500_000:]]):
        sink = StreamSink(max_events=1)
        sink.start("text/event-stream", None, bytearray())
        stops = [sink.feed(piece) for piece in pieces]
        assert stops[-1] and sink.stopped == "stopped at max_events"
        (event,) = list(sink.events)
        assert event.id == "1" and 0 < len(event.data) <= MAX_EVENT_DATA


def test_the_log_keeps_the_newest_and_counts_the_rest() -> None:
    log = EventLog(keep=3)
    for n in range(10):
        log.add(parse_events(f"id: {n}\ndata: {n}\n\n".encode())[0])
    assert [e.id for e in log] == ["7", "8", "9"]
    assert (log.total, log.dropped, log.last_id) == (10, 7, "9")
    assert [e.id for e in log.since(8)] == ["8", "9"]
    assert [e.id for e in log.since(0)] == ["7", "8", "9"]


# -- stopping -------------------------------------------------------------------------------


@pytest.mark.parametrize("session_type", [HttpSession, ThreadedSession])
async def test_max_events_stops_the_stream_keeping_what_arrived(
    server: StreamServer, session_type: type[HttpSession]
) -> None:
    sink = StreamSink(max_events=3)
    async with session_type() as session:
        ex = await session.send(req(f"{server.url}/sse?count=0&interval=0"), Progress(sink=sink))
    assert ex.error is None and ex.status == 200
    assert ex.stopped == "stopped at max_events"
    assert ex.events is not None and [e.id for e in ex.events][:3] == ["1", "2", "3"]
    assert b"id: 1\n" in ex.body


@pytest.mark.parametrize("session_type", [HttpSession, ThreadedSession])
async def test_max_seconds_stops_a_slow_stream(
    server: StreamServer, session_type: type[HttpSession]
) -> None:
    sink = StreamSink(max_seconds=0.6)
    started = time.monotonic()
    async with session_type() as session:
        ex = await session.send(req(f"{server.url}/sse?count=0&interval=0.1"), Progress(sink=sink))
    assert time.monotonic() - started < 10  # the stop came, not the 30 s request deadline
    assert ex.error is None, ex.error
    assert ex.stopped == "stopped at max_seconds"
    assert ex.events and ex.events[0].data == '{"n": 1}'


@pytest.mark.parametrize("session_type", [HttpSession, ThreadedSession])
async def test_a_stop_from_outside_ends_a_waiting_read(
    server: StreamServer, session_type: type[HttpSession]
) -> None:
    sink = StreamSink()
    async with session_type() as session:
        sending = asyncio.ensure_future(
            session.send(req(f"{server.url}/sse?count=0&interval=0.2"), Progress(sink=sink))
        )
        for _ in range(500):
            if sink.events.total >= 2:
                break
            await asyncio.sleep(0.01)
        sink.stop()
        ex = await asyncio.wait_for(sending, 10)
    assert ex.error is None and ex.stopped == "stopped"
    assert ex.events is not None and len(ex.events) >= 2


async def test_without_a_stop_the_request_deadline_ends_a_stream(server: StreamServer) -> None:
    sink = StreamSink()
    async with HttpSession() as session:
        ex = await session.send(
            req(f"{server.url}/sse?count=0&interval=0.1", timeout=0.8), Progress(sink=sink)
        )
    assert ex.error_kind == "timeout" and ex.stopped == ""
    assert ex.events  # what arrived before the deadline is kept


async def test_a_dropped_stream_is_an_error_with_its_events(server: StreamServer) -> None:
    sink = StreamSink()
    async with HttpSession() as session:
        ex = await session.send(req(f"{server.url}/sse?drop=2&interval=0"), Progress(sink=sink))
    assert ex.error is not None and "closed the connection" in ex.error
    assert ex.events is not None and [e.id for e in ex.events] == ["1", "2"]


async def test_last_event_id_resumes(server: StreamServer) -> None:
    async with HttpSession() as session:
        sink = StreamSink()
        ex = await session.send(
            req(f"{server.url}/sse?count=2&interval=0&retry=250", [("Last-Event-ID", "41")]),
            Progress(sink=sink),
        )
    assert [e.id for e in ex.events or [] if e.id] == ["42", "43"]
    assert sink.events.retry == 250
    assert server.last_ids[-1] == "41"


async def test_text_arrives_before_the_end(server: StreamServer) -> None:
    sink = StreamSink()
    seen_early = ""
    async with HttpSession() as session:
        sending = asyncio.ensure_future(
            session.send(req(f"{server.url}/trickle?lines=20&interval=0.05"), Progress(sink=sink))
        )
        while not sending.done():
            seen_early += sink.take_text()
            if "line 2\n" in seen_early:
                break
            await asyncio.sleep(0.01)
        assert not sending.done() and seen_early.startswith("line 1\n")
        ex = await sending
    assert ex.body.decode().count("\n") == 20 and ex.stopped == ""
    assert ex.events is None


async def test_the_live_text_stops_where_the_body_in_memory_stops(server: StreamServer) -> None:
    sink = StreamSink()
    async with HttpSession(max_body_in_memory=30) as session:
        ex = await session.send(
            req(f"{server.url}/trickle?lines=20&interval=0"), Progress(sink=sink)
        )
    assert sink.take_text() == ex.body.decode() and len(ex.body) == 30
    assert ex.body_size > 30 and ex.body_path is not None  # the body itself is whole, on disk
    ex.discard()


async def test_the_events_panel_keeps_no_more_than_the_sink(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Large events arriving in the app: the panel's rows stay within the size bound."""
    from textual.app import App, ComposeResult

    from pigeon.stream import Event
    from pigeon.tui.widgets.response import events_panel
    from pigeon.tui.widgets.response.events_panel import EventsPanel

    monkeypatch.setattr(events_panel, "KEEP_BYTES", 10_000)

    class PanelApp(App[None]):
        def compose(self) -> ComposeResult:
            yield EventsPanel(classes="-shown")

    async with PanelApp().run_test() as pilot:
        panel = pilot.app.query_one(EventsPanel)
        sent = 0
        for _ in range(10):
            events = [Event("big", str(sent + i), "x" * 1000, None, 1.0) for i in range(7)]
            sent += len(events)
            panel.add(events, sent)
            await pilot.pause()
        rows = panel.table.rows
        assert sum(len(e.data) for e in rows) <= 10_000 and len(rows) == 10
        assert [e.id for e in rows] == [str(n) for n in range(sent - 10, sent)]
        assert panel.total == sent and "60 oldest dropped from view" in str(
            panel.query_one("#events-note").render()
        )
