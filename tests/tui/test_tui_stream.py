"""A response followed as it arrives: text lines appear before the end and the view follows
them until scrolled up; escape stops a stream and keeps what came; a ``text/event-stream``
shows its events as rows, filtered, opened, and resumed with ``Last-Event-ID``."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from tui_support import main_screen, paste_url, running, wait_for

from pigeon.tui.app import PigeonApp
from pigeon.tui.widgets.response.events_panel import RECONNECTED, EventsPanel
from pigeon.tui.widgets.response.response_pane import ResponsePane
from stream_servers import StreamServer, stream_server


@pytest.fixture(scope="module")
def server() -> Iterator[StreamServer]:
    with stream_server() as s:
        yield s


async def events_panel(pilot, pane: ResponsePane) -> EventsPanel:
    """The events panel, which the pane builds when the first stream begins."""
    await wait_for(pilot, lambda: bool(pane.query("#event-table")))
    return pane.query_one(EventsPanel)


async def test_text_lines_appear_live_follow_the_end_and_stop_with_escape(
    app: PigeonApp, server: StreamServer
) -> None:
    async with running(app, "users/list-users") as pilot:
        screen = main_screen(app)
        pane = screen.response_pane
        view = pane.body_view
        await paste_url(pilot, f"{server.url}/trickle?lines=400&interval=0.02")
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: view.line_count >= 60)
        assert pane.state == "pending"  # lines before the end
        assert view.line_text(0) == "line 1"
        await wait_for(pilot, lambda: view.scroll_offset.y > 0)
        assert view.following and "lines" in pane.status_line.plain
        view.focus()
        await pilot.press("home")  # scrolled up: the view stays put
        seen = view.line_count
        await wait_for(pilot, lambda: view.line_count > seen + 20)
        assert view.scroll_offset.y == 0 and not view.following
        await pilot.press("end")  # back at the end: following again
        seen = view.line_count
        await wait_for(pilot, lambda: view.line_count > seen + 20)
        assert view.following and view.scroll_offset.y == view.max_scroll_y > 0
        await pilot.press("escape")
        # The status line shows first, the exchange's parts a moment later.
        await wait_for(pilot, lambda: pane.state == "done" and pane.exchange is not None)
        exchange = pane.exchange
        assert exchange is not None and exchange.error is None
        assert exchange.stopped == "stopped"
        assert pane.status_line.plain.startswith("200 OK") and "■ stopped" in pane.status_line.plain
        kept = exchange.body.decode().count("\n")
        assert 60 <= kept < 400
        await wait_for(pilot, lambda: view.line_count >= kept)
        assert view.following  # the finished body opened where the reader was: its end


async def test_events_arrive_as_rows_and_escape_stops_the_stream(
    app: PigeonApp, server: StreamServer
) -> None:
    async with running(app, "users/list-users") as pilot:
        pane = main_screen(app).response_pane
        await paste_url(pilot, f"{server.url}/sse?count=0&interval=0.03")
        await pilot.press("ctrl+r")
        panel = await events_panel(pilot, pane)
        await wait_for(pilot, lambda: len(panel.table.rows) >= 5)
        assert pane.state == "pending" and panel.live and panel.display
        assert not pane.body_panel.display
        assert [e.id for e in panel.table.rows[:3]] == ["1", "2", "3"]
        assert panel.table.following
        assert "events" in pane.status_line.plain
        await pilot.press("escape")
        # The status line shows first, the exchange's parts a moment later.
        await wait_for(pilot, lambda: pane.state == "done" and pane.exchange is not None)
        exchange = pane.exchange
        assert exchange is not None and exchange.stopped == "stopped"
        assert not panel.live and len(panel.table.rows) == panel.total == len(exchange.events)
        assert "ended: r reconnects" in str(panel.query_one("#events-note").render())


async def test_events_filter_open_and_reconnect_with_last_event_id(
    app: PigeonApp, server: StreamServer
) -> None:
    async with running(app, "users/list-users") as pilot:
        pane = main_screen(app).response_pane
        url = f"{server.url}/sse?count=5&interval=0.01&retry=100"
        await paste_url(pilot, url)
        await pilot.press("ctrl+r")
        panel = await events_panel(pilot, pane)
        await wait_for(pilot, lambda: pane.state == "done" and len(panel.table.rows) == 5)
        panel.table.focus()
        await pilot.press("slash", *'"n": 3')
        await wait_for(pilot, lambda: [e.id for e in panel.table.rows] == ["3"])
        await pilot.press("enter", "enter")  # back to the table, then open the event
        detail = str(panel.query_one("#event-detail-text").render())
        assert '"n": 3' in detail and "event: tick" in detail and panel.has_class("-detail")
        await pilot.press("escape", "escape")  # the detail closes, then the filter
        await wait_for(pilot, lambda: len(panel.table.rows) == 5)
        await pilot.press("r")
        await wait_for(pilot, lambda: server.last_ids[-1] == "5")
        await wait_for(
            pilot, lambda: pane.state == "done" and [e.id for e in panel.table.rows][-1:] == ["10"]
        )
        # One timeline: the first connection's events stay, a mark where it reconnected.
        rows = panel.table.rows
        assert [e.id for e in rows] == ["1", "2", "3", "4", "5", "5", *"6789", "10"]
        assert rows[5].type == RECONNECTED and rows[5].data == "resumed after id 5"
        assert panel.total == 10 and panel.last_id == "10"
        note = str(panel.query_one("#events-note").render())
        assert note.startswith("10 events") and "reconnected 1×" in note
        panel.table.focus()
        await pilot.press("r")  # and again: the timeline goes on
        await wait_for(pilot, lambda: server.last_ids[-1] == "10")
        await wait_for(
            pilot, lambda: pane.state == "done" and [e.id for e in panel.table.rows][-1:] == ["15"]
        )
        assert [e.type for e in panel.table.rows].count(RECONNECTED) == 2
        assert len(panel.table.rows) == 17 and panel.total == 15


async def test_a_reconnected_stream_followed_live_keeps_the_first_connections_events(
    app: PigeonApp, server: StreamServer
) -> None:
    async with running(app, "users/list-users") as pilot:
        pane = main_screen(app).response_pane
        await paste_url(pilot, f"{server.url}/sse?count=3&interval=0.2&retry=10")
        await pilot.press("ctrl+r")
        panel = await events_panel(pilot, pane)
        await wait_for(pilot, lambda: pane.state == "done" and len(panel.table.rows) == 3)
        panel.table.focus()
        await pilot.press("r")
        # While the second connection arrives, the first one's events are still listed.
        await wait_for(pilot, lambda: panel.live and "4" in [e.id for e in panel.table.rows])
        ids = [e.id for e in panel.table.rows]
        assert ids[:5] == ["1", "2", "3", "3", "4"] and panel.table.rows[3].type == RECONNECTED
        await wait_for(pilot, lambda: pane.state == "done" and not panel.live)
        assert [e.id for e in panel.table.rows] == ["1", "2", "3", "3", "4", "5", "6"]
        assert panel.total == 6
