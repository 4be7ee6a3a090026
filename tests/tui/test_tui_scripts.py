"""Scripts and sending with Pilot: trust prompt, runtime variables, errors and the log, cancelling, filtering the response."""

from __future__ import annotations

from pathlib import Path

from tui_support import (
    main_screen,
    make_app,
    open_request,
    press_and_settle,
    running,
    settle,
    wait_for,
)

from pigeon.echo import EchoServer
from pigeon.tui.app import PigeonApp
from pigeon.tui.screens.main import MainScreen
from pigeon.tui.widgets.variables.variables_pane import VariablesPane


async def test_script_sets_variable_after_trust(app: PigeonApp, collection: Path) -> None:
    from pigeon.config import TrustStore
    from pigeon.tui.dialogs.trust import TrustScreen

    async with running(app, "auth/login") as pilot:
        await pilot.press("ctrl+r")
        await pilot.pause()
        assert isinstance(app.screen, TrustScreen)
        await press_and_settle(pilot, "t")
        screen = main_screen(app)
        assert screen.last_exchange.status == 200
        token = app.session.runtime.get("token")
        assert isinstance(token, str) and token
        assert TrustStore().is_trusted(collection)
        pane = screen.query_one(VariablesPane)
        assert pane.rows["token"][0].scope == "runtime"
        # "Who am I" sends the token the script kept: the echo server accepts it.
        await open_request(pilot, "auth/me")
        await press_and_settle(pilot, "ctrl+r")
        assert screen.last_exchange.status == 200


async def test_untrusted_scripts_are_skipped_and_asked_once(app: PigeonApp) -> None:
    from pigeon.tui.dialogs.trust import TrustScreen

    async with running(app, "auth/login") as pilot:
        await pilot.press("ctrl+r")
        await pilot.pause()
        assert isinstance(app.screen, TrustScreen)
        await pilot.press("n")  # not now
        await pilot.pause()
        await settle(pilot)
        assert main_screen(app).last_exchange.status == 200  # sent all the same
        assert app.session.runtime.get("token") is None
        await pilot.press("ctrl+r")
        await pilot.pause()
        assert not isinstance(app.screen, TrustScreen)  # not asked again this session
        await app.workers.wait_for_complete()


async def test_script_error_shows_toast_and_log(collection: Path, echo: EchoServer) -> None:
    from pigeon.config import TrustStore
    from pigeon.tui.screens.log import LogScreen

    (collection / "users" / "failing.toml").write_text(
        'name = "Failing"\nurl = "{{base_url}}/x"\n\n[scripts]\n'
        "pre_request = '''\nprint(\"about to fail\")\nraise ValueError(\"boom\")\n'''\n",
        encoding="utf-8",
    )
    TrustStore().trust(collection)
    app = make_app(collection, echo)
    async with running(app, "users/failing") as pilot:
        await press_and_settle(pilot, "ctrl+r")
        assert main_screen(app).last_exchange is None  # a failed pre-request script stops it
        assert main_screen(app).query_one("#response").state == "empty"  # not left pending
        messages = [n.message for n in app._notifications]
        assert any("ValueError: boom" in m for m in messages)
        assert any(e.error and "boom" in e.text for e in app.session.log)
        assert any("about to fail" in e.text for e in app.session.log)
        await pilot.press("f2")
        await pilot.pause()
        assert isinstance(app.screen, LogScreen)
        await pilot.press("escape")
        await pilot.pause()
        assert app.is_running and isinstance(app.screen, MainScreen)


async def test_escape_cancels_a_slow_send(app: PigeonApp) -> None:
    async with running(app, "responses/slow") as pilot:
        await pilot.press("ctrl+r")
        screen = main_screen(app)
        await wait_for(pilot, screen._sending_workers)  # the slow request is in flight
        await press_and_settle(pilot, "escape")
        assert not screen._sending_workers()
        assert screen.last_exchange is None
        assert screen.query_one("#response").state == "cancelled"
        assert app.is_running


async def test_response_body_filter_after_send(app: PigeonApp) -> None:
    async with running(app, "users/list-users") as pilot:
        await press_and_settle(pilot, "ctrl+r")
        pane = main_screen(app).query_one("#response")
        view = pane.body_view
        await wait_for(pilot, lambda: view.is_json)  # the pretty view is built in a worker
        view.focus()
        await pilot.press("f")
        await pilot.pause()
        await pilot.press(*"query.q[0]", "enter")
        await wait_for(pilot, lambda: view.filter_expression)
        assert view.filter_expression == "query.q[0]"
        assert view.phase == "filtered"
        assert view.text.strip() == '"Ada & Grace = #1 / 100%"'
