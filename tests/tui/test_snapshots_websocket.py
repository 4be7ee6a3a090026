"""SVG snapshots of the WebSocket view (80x24 and 120x40): a real exchange with the loopback
server, its clock and port then fixed so the picture is the same on every run."""

from __future__ import annotations

import shutil
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from textual.widgets import Input
from tui_support import open_request, wait_for

from pigeon.session import Session, demo_collection_dir
from pigeon.tui.app import PigeonApp
from pigeon.tui.themes import bundled_theme_dirs
from pigeon.tui.widgets.collection.collection_tree import CollectionTree
from pigeon.tui.widgets.response.websocket_view import WebSocketView
from ws_servers import ws_server

CHAT = """\
name = "Chat"
type = "websocket"
url = "{{ws_base}}/echo"
subprotocols = ["chat.v1"]

[[messages]]
name = "join"
body = '{"op": "join", "room": "{{room}}", "tags": ["a", "b"]}'

[[messages]]
name = "ping text"
body = "are you there?"
"""


@pytest.fixture(autouse=True)
def _private_config(tmp_path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


@pytest.fixture(scope="module")
def ws_base() -> Iterator[str]:
    with ws_server() as base:
        yield base


def chat_app(tmp_path: Path, ws_base: str) -> PigeonApp:
    demo = demo_collection_dir()
    assert demo is not None
    root = tmp_path / "demo"
    shutil.copytree(demo, root, ignore=shutil.ignore_patterns(".pigeon"))
    (root / "chat.toml").write_text(CHAT, encoding="utf-8")
    session = Session.open(root)
    session.overrides.update({"ws_base": ws_base, "room": "lobby"})
    return PigeonApp(session, theme_dirs=bundled_theme_dirs(), remember_theme=False)


async def exchange(pilot) -> None:
    app = pilot.app
    await open_request(pilot, "chat")
    await wait_for(pilot, lambda: app.screen.query(WebSocketView))
    view = app.screen.query_one(WebSocketView)
    await pilot.press("ctrl+r")
    await wait_for(pilot, lambda: view.link is not None and view.link.state == "open")
    view.query_one("#ws-saved").focus()
    await pilot.press("enter")
    await wait_for(pilot, lambda: view.link.received == 1)
    view.query_one("#ws-composer", Input).focus()
    await pilot.press(*"hello {{room}}", "enter")
    await wait_for(pilot, lambda: view.link.received == 2)
    link = view.link
    for i, frame in enumerate(link.log):  # the clock and the port, fixed for the picture
        frame.at = 1_700_000_000 + i * 0.25
    link.handshake.url = "ws://127.0.0.1:8765/echo"
    app.screen.session.overrides["ws_base"] = "ws://127.0.0.1:8765"
    app.screen.refresh_after_variables()
    view.frame_log.clear()
    view._redraw()
    app.screen.query_one(CollectionTree).focus()  # no blinking cursor in the picture
    await pilot.pause()


def test_websocket_view_80x24(snap_compare, tmp_path, ws_base) -> None:
    assert snap_compare(chat_app(tmp_path, ws_base), terminal_size=(80, 24), run_before=exchange)


def test_websocket_view_120x40(snap_compare, tmp_path, ws_base) -> None:
    assert snap_compare(chat_app(tmp_path, ws_base), terminal_size=(120, 40), run_before=exchange)
