"""Every message is readable in full: an error in the response's status line wraps, so the fix
at its end shows; a long note under the panes wraps; every notification is kept in the log
(f2), where a toast that went or did not show whole can be read again."""

from __future__ import annotations

from textual.widgets import RichLog
from tui_support import main_screen, press_and_settle, running, wait_for

from pigeon.tui.app import PigeonApp
from pigeon.tui.screens.log import LogScreen
from pigeon.tui.widgets.session_status import SessionStatus


def screen_text(app: PigeonApp) -> str:
    return "\n".join(strip.text for strip in app.screen._compositor.render_strips())


async def test_an_error_in_the_status_line_wraps_to_its_end(app: PigeonApp) -> None:
    async with running(app, "users/list-users", size=(80, 24)) as pilot:
        await press_and_settle(pilot, "ctrl+r")
        line = main_screen(app).query_one("#response").status_line
        assert line.region.height == 1
        # A send refused before it went out: its reason, ahead of the last response, in full.
        line.show_refused("header 'X-Long': " + "a reason that does not fit " * 6 + "END")
        await pilot.pause()
        assert line.region.height > 1
        assert "END" in screen_text(app)


async def test_a_long_note_under_the_panes_wraps(app: PigeonApp) -> None:
    async with running(app, "users/list-users", size=(80, 24)) as pilot:
        note = "pre-request and post-response scripts skipped: the collection is not trusted"
        main_screen(app).update_status(note)
        await pilot.pause()
        status = main_screen(app).query_one(SessionStatus)
        assert status.region.height == 2
        assert "trusted" in screen_text(app)


async def test_every_notification_is_kept_in_full_in_the_log(app: PigeonApp) -> None:
    async with running(app, "users/list-users", size=(80, 24)) as pilot:
        message = "Not saved: " + "a reason that is far too long for one toast " * 4 + "END"
        app.notify(message, severity="error")
        await pilot.press("f2")
        await wait_for(pilot, lambda: isinstance(app.screen, LogScreen))
        await pilot.pause()
        log = app.screen.query_one(RichLog)
        text = "".join(strip.text for strip in log.lines)
        assert "END" in text and "Not saved: a reason" in text


async def test_a_warning_under_the_url_wraps_to_its_end(app: PigeonApp) -> None:
    async with running(app, "users/create-user", size=(80, 24)) as pilot:
        await pilot.pause()
        text = screen_text(app)
        assert "JSON body is not valid JSON" in text
        assert "rendered" in text  # "...; it is sent as rendered", the warning's last word
