"""What the response pane says when a send is replaced, cancelled or refused before sending."""

from __future__ import annotations

import time
from pathlib import Path

from tui_support import main_screen, paste_url, press_and_settle, running, wait_for

from pigeon.echo import EchoServer
from pigeon.history import list_entries
from pigeon.tui.app import PigeonApp
from pigeon.tui.widgets.editor.request_editor import RequestEditor
from pigeon.tui.widgets.response.status_line import SPINNER


async def test_a_send_replaced_by_another_keeps_the_spinner_and_is_recorded_cancelled(
    app: PigeonApp, collection: Path, echo: EchoServer
) -> None:
    async with running(app, "users/list-users") as pilot:
        screen = main_screen(app)
        await paste_url(pilot, f"{echo.url}/delay/5")
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: screen.response_pane.state == "pending")
        first_started = time.monotonic()
        await pilot.pause(0.5)
        await pilot.press("ctrl+r")  # replaces the first send
        first_ms = (time.monotonic() - first_started) * 1000
        await wait_for(pilot, lambda: len(list_entries(collection)) == 1)
        await pilot.pause(0.3)
        pane = screen.response_pane
        assert pane.state == "pending" and pane.status_line.plain[0] in SPINNER
        replaced = list_entries(collection)[0]
        assert replaced.error_kind == "cancelled" and replaced.error.startswith("cancelled after")
        assert replaced.total_ms >= 500 and replaced.request_name == "List users"
        second_started = time.monotonic()
        await pilot.pause(0.3)
        await press_and_settle(pilot, "escape")
        second_ms = (time.monotonic() - second_started) * 1000
        assert pane.state == "cancelled"
        assert pane.status_line.plain.startswith("■ Cancelled after ")
        await wait_for(pilot, lambda: len(list_entries(collection)) == 2)
        stopped = list_entries(collection)[0]  # newest first
        assert stopped.total_ms >= 300 and stopped.total_ms < second_ms + first_ms
        assert stopped.error_kind == "cancelled"


async def test_a_send_refused_before_sending_keeps_the_last_response(app: PigeonApp) -> None:
    async with running(app, "users/list-users") as pilot:
        screen = main_screen(app)
        await press_and_settle(pilot, "ctrl+r")
        pane = screen.response_pane
        shown = pane.exchange
        assert shown is not None and shown.status == 200
        body = pane.body_view.text
        screen.query_one(RequestEditor).request.method = "NOT A\x1bTOKEN"
        await press_and_settle(pilot, "ctrl+r")
        assert pane.exchange is shown and pane.body_view.text == body
        line = pane.status_line.plain
        assert line.startswith("✖ Not sent: ") and "200 OK" in line
        assert line.lower().count("not sent") == 1, line
        assert "\x1b" not in line and "\\x1b" in line
        await press_and_settle(pilot, "ctrl+l")
        screen.query_one(RequestEditor).request.method = "GET"
        await press_and_settle(pilot, "ctrl+r")
        assert pane.exchange is not shown and pane.status_line.plain.startswith("200 OK")
