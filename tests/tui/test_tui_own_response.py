"""The response pane shows the response of the request on show, and names it: its tab's last
response, else its newest in the history, else none yet."""

from __future__ import annotations

from tui_support import main_screen, open_request, press_and_settle, running, wait_for

from pigeon.tui.app import PigeonApp


async def test_the_response_pane_shows_the_shown_requests_own_response(app: PigeonApp) -> None:
    async with running(app, "users/list-users") as pilot:
        screen = main_screen(app)
        await wait_for(pilot, lambda: screen.response_pane is not None)
        pane = screen.response_pane
        await press_and_settle(pilot, "ctrl+r")
        await wait_for(pilot, lambda: pane.exchange is not None)
        sent = pane.exchange
        assert sent.status == 200 and "List users" in str(pane.border_title)
        await open_request(pilot, "auth-styles/no-auth")  # replaces the preview tab
        await pilot.pause()
        assert pane.exchange is None and pane.state == "empty"
        assert "No auth" in str(pane.border_title)
        await open_request(pilot, "users/list-users")  # no tab's response: the history's
        await wait_for(pilot, lambda: pane.exchange is not None)
        assert pane.exchange.started_at == sent.started_at and pane.exchange.status == 200
        assert "List users" in str(pane.border_title)
