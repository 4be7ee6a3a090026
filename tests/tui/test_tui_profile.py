"""The latency profile in the app: alt+p on the open request asks how many sends and how many
at once, runs them off the keys' way with a live line, draws the result; escape stops a
running profile (what finished is shown, marked stopped) and closes the screen after."""

from __future__ import annotations

from textual.widgets import Input, Label
from tui_support import main_screen, paste_url, running, wait_for

from pigeon.tui.keys import palette_actions
from pigeon.tui.screens.main import MainScreen
from pigeon.tui.screens.profile import ProfileScreen
from pigeon.tui.widgets.profile_report import ProfileReport
from servers import silent_server


async def open_profile(pilot) -> ProfileScreen:
    await pilot.press("alt+p")
    await wait_for(pilot, lambda: isinstance(pilot.app.screen, ProfileScreen))
    screen = pilot.app.screen
    assert isinstance(screen, ProfileScreen)
    await wait_for(pilot, lambda: screen.focused is screen.query_one("#profile-sends"))
    return screen


async def ask(pilot, sends: str, at_once: str) -> None:
    """Type the counts over the defaults (50 and 1) and press enter in the last field."""
    await pilot.press("end", "backspace", "backspace", *sends, "enter")
    await pilot.press("end", "backspace", *at_once, "enter")


async def test_alt_p_profiles_the_open_request_and_escape_closes(app) -> None:
    async with running(app, "responses/status-418") as pilot:
        screen = await open_profile(pilot)
        assert screen.query_one("#profile-sends", Input).value == "50"
        assert screen.query_one("#profile-at-once", Input).value == "1"
        await ask(pilot, "12", "3")
        report = screen.query_one(ProfileReport)
        await wait_for(pilot, lambda: report.stats is not None)
        stats = report.stats
        assert stats is not None and stats.done == 12 and len(stats.latencies) == 12
        assert [(e.kind, e.count) for e in stats.errors] == [("status 4xx", 12)]
        await pilot.pause()
        drawn = str(report.render())
        assert "12 of 12 sent" in drawn and "status 4xx  12  418 I'm a Teapot" in drawn
        assert "p50" in drawn and "│" in drawn
        assert app.session.runtime.as_dict() == {}  # its post-response scripts did not run
        await pilot.press("escape")
        await wait_for(pilot, lambda: isinstance(app.screen, MainScreen))


async def test_keys_work_while_it_runs_and_escape_stops_it_then_closes(app) -> None:
    """Against a server that never answers, the sends are in flight until escape: the keys
    are heard meanwhile, the first escape cancels the sends and shows that none finished,
    the second closes."""
    with silent_server() as url:
        async with running(app, "users/list-users") as pilot:
            await paste_url(pilot, f"{url}/x")
            screen = await open_profile(pilot)
            await ask(pilot, "10", "2")
            await wait_for(
                pilot, lambda: screen.running is not None and screen.running.started == 2
            )
            at_once = screen.query_one("#profile-at-once", Input)
            await pilot.press("backspace")  # typed while the profile runs
            await wait_for(pilot, lambda: at_once.value == "")
            assert screen.running is not None and screen.running.samples.done == 0
            await pilot.press("escape")
            report = screen.query_one(ProfileReport)
            await wait_for(pilot, lambda: report.stats is not None)
            stats = report.stats
            assert stats is not None and stats.stopped and stats.done == 0
            assert screen.running is None and app.screen is screen  # the first escape stops
            assert str(report.render()).startswith("Stopped: 0 of 10 sent")
            await pilot.press("escape")
            await wait_for(pilot, lambda: isinstance(app.screen, MainScreen))


async def test_counts_out_of_bounds_are_refused_in_the_screen(app) -> None:
    async with running(app, "responses/status-418") as pilot:
        screen = await open_profile(pilot)
        await ask(pilot, "10", "99")
        progress = screen.query_one("#profile-progress", Label)
        await wait_for(pilot, lambda: "from 1 to 64" in str(progress.render()))
        assert screen.running is None and screen.query_one(ProfileReport).stats is None


async def test_the_palette_offers_profile_request(app) -> None:
    async with running(app, "responses/status-418") as pilot:
        screen = main_screen(pilot.app)
        titles = [a.title for a in palette_actions([screen, app], app.help_groups(), {})]
        assert any(t.startswith("Profile request…") for t in titles)


async def test_a_websocket_url_is_not_profiled(app) -> None:
    async with running(app, "users/list-users") as pilot:
        await paste_url(pilot, "ws://127.0.0.1:9/chat")
        await pilot.press("alt+p")
        await wait_for(
            pilot, lambda: any("HTTP requests only" in n.message for n in app._notifications)
        )
        assert isinstance(app.screen, MainScreen)
