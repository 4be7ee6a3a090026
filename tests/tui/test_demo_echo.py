"""The demo's echo server: its port is taken before the first paint, it serves after it."""

from __future__ import annotations

import json
import socket
import threading
import urllib.request
from pathlib import Path

import pytest
from tui_support import main_screen, open_request, press_and_settle, running

from pigeon.session import DemoEcho
from pigeon.tui.app import OpenError, PigeonApp, open_session
from pigeon.tui.themes import bundled_theme_dirs


def test_a_request_sent_before_the_server_starts_is_answered() -> None:
    echo = DemoEcho()
    answers: list[dict] = []

    def ask() -> None:
        with urllib.request.urlopen(f"{echo.url}/early?x=1", timeout=10) as response:
            answers.append(json.loads(response.read()))

    asker = threading.Thread(target=ask)
    try:
        asker.start()
        asker.join(0.3)
        assert asker.is_alive() and not answers and not echo.running  # waiting in the backlog
        echo.start()
        asker.join(10)
        assert answers and answers[0]["path"] == "/early"
        assert answers[0]["query"] == {"x": ["1"]}
    finally:
        echo.stop()
        asker.join(10)
    with pytest.raises(OSError):  # stopped: the port is closed
        socket.create_connection(("127.0.0.1", int(echo.url.rsplit(":", 1)[1])), timeout=2)


def test_stopping_before_starting_frees_the_port() -> None:
    echo = DemoEcho()
    port = int(echo.url.rsplit(":", 1)[1])
    echo.stop()
    again = DemoEcho(port)  # free again
    again.stop()


def test_a_taken_port_is_a_clear_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
        with pytest.raises(OpenError, match="echo server"):
            open_session(None, None, echo_port=port)


async def test_the_demo_sends_to_its_own_echo_server(
    collection: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A copy of the demo, so the send's history entry is not written into the source tree.
    monkeypatch.setattr("pigeon.tui.app.demo_collection_dir", lambda: collection)
    session = open_session(None, None)
    assert session.echo is not None and not session.echo.running
    app = PigeonApp(session, theme_dirs=bundled_theme_dirs(), remember_theme=False)
    async with running(app) as pilot:
        await open_request(pilot, "users/list-users")
        assert session.echo is not None and session.echo.running  # started after first paint
        await press_and_settle(pilot, "ctrl+r")
        exchange = main_screen(app).last_exchange
        assert exchange.status == 200, exchange.error
        assert exchange.url.startswith(session.echo.url)
    assert session.echo is None  # stopped with the app
    assert list((collection / ".pigeon" / "history").glob("*.json"))  # recorded in the copy


def test_the_demo_override_says_where_it_comes_from() -> None:
    session = open_session(None, None)
    try:
        winner = session.scopes_for(None).explain()["base_url"][0]
        assert (winner.scope, winner.label) == ("cli", "the demo's echo server")
        assert winner.value == session.echo.url
    finally:
        session.echo.stop()
