"""SVG snapshots of a Server-Sent Events response (80x24 and 120x40): rows, the note, and one
event's data opened below. Times are fixed and shown in UTC, so no clock reaches the picture."""

from __future__ import annotations

import json
import time

import pytest
from response_pane_app import ResponsePaneApp, make_exchange

from pigeon.stream import Event
from pigeon.tui.widgets.response.events_panel import EventsPanel

START = 1_767_225_600.0  # 2026-01-01 00:00:00 UTC


def events() -> list[Event]:
    out = []
    for n in range(1, 31):
        kind = "price" if n % 3 else "heartbeat"
        data = json.dumps({"n": n, "symbol": "PGN", "price": 100 + n / 4, "tags": ["live"]})
        if kind == "heartbeat":
            data = "ping"
        out.append(Event(kind, str(n), data, 2000, START + n * 0.25))
    out.append(Event("", "31", "a \x1b[31mred\x1b[0m line\nand a second line", 2000, START + 8))
    return out


def sse_exchange():
    body = "".join(f"id: {e.id}\nevent: {e.event}\ndata: {e.data}\n\n" for e in events())
    return make_exchange(
        body, "text/event-stream", events=events(), stopped="stopped at max_events"
    )


@pytest.fixture(autouse=True)
def _utc(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


async def open_an_event(pilot) -> None:
    panel = pilot.app.query_one(EventsPanel)
    panel.table.focus()
    await pilot.press("up", "up", "up", "enter")
    await pilot.pause()


def test_events_80x24(snap_compare) -> None:
    assert snap_compare(ResponsePaneApp(sse_exchange()), terminal_size=(80, 24))


def test_events_with_data_open_120x40(snap_compare) -> None:
    assert snap_compare(
        ResponsePaneApp(sse_exchange()), terminal_size=(120, 40), run_before=open_an_event
    )


def test_events_with_data_open_80x24(snap_compare) -> None:
    assert snap_compare(
        ResponsePaneApp(sse_exchange()), terminal_size=(80, 24), run_before=open_an_event
    )
