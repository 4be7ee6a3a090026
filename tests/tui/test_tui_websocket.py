"""The WebSocket view, driven through the app: connect with the send key, send from the
composer and from the saved messages, ping, close with a code; the server's close code and its
escapes shown as they are."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from textual.widgets import Input, OptionList
from tui_support import open_request, wait_for

from pigeon.session import Session
from pigeon.tui.app import PigeonApp
from pigeon.tui.themes import bundled_theme_dirs
from pigeon.tui.widgets.response.response_pane import ResponsePane
from pigeon.tui.widgets.response.websocket_view import WebSocketView, parse_close
from ws_servers import ws_server

CHAT = """\
name = "Chat"
type = "websocket"
url = "{{ws_base}}/echo"
subprotocols = ["chat.v1"]

[[messages]]
name = "hello"
body = '{"hello": "{{who}}"}'

[[messages]]
name = "bye"
body = "bye"
"""


@pytest.fixture(scope="module")
def ws_base() -> Iterator[str]:
    with ws_server() as base:
        yield base


def make(collection: Path, ws_base: str, path: str = "/echo") -> PigeonApp:
    (collection / "sockets").mkdir()
    (collection / "sockets" / "chat.toml").write_text(CHAT.replace("/echo", path), encoding="utf-8")
    session = Session.open(collection)
    session.overrides.update({"ws_base": ws_base, "who": "me"})
    return PigeonApp(session, theme_dirs=bundled_theme_dirs(), remember_theme=False)


def view_of(app: PigeonApp) -> WebSocketView:
    return app.screen.query_one(WebSocketView)


async def connected(pilot, app: PigeonApp) -> WebSocketView:
    await open_request(pilot, "sockets/chat")
    await wait_for(pilot, lambda: app.screen.query(WebSocketView))
    view = view_of(app)
    assert app.screen.query_one(ResponsePane).has_class("-websocket")
    await wait_for(pilot, lambda: "not connected" in view.state_line)
    await pilot.press("ctrl+r")
    await wait_for(pilot, lambda: view.link is not None and "open" in view.state_line)
    return view


async def test_connect_send_ping_and_close_with_a_code(collection: Path, ws_base: str) -> None:
    app = make(collection, ws_base)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await connected(pilot, app)
        assert "● open (chat.v1)" in view.state_line
        log = view.frame_log

        view.query_one("#ws-composer", Input).focus()
        await pilot.press(*"hi {{who}}", "enter")
        await wait_for(pilot, lambda: log.lines().count("  hi me") == 2)  # sent, echoed

        saved = view.query_one("#ws-saved", OptionList)
        saved.focus()
        saved.highlighted = 0
        await pilot.press("enter")
        await wait_for(pilot, lambda: log.lines().count('    "hello": "me"') == 2)  # pretty JSON

        log.focus()
        await pilot.press("p")
        await wait_for(pilot, lambda: any("pong after" in line for line in log.lines()))
        assert "2 sent, 2 received" in view.state_line  # pings are not messages

        await pilot.press("x")
        await wait_for(
            pilot, lambda: isinstance(app.focused, Input) and app.focused.id == "prompt-input"
        )
        await pilot.press("ctrl+u", *"4000 done", "enter")
        await wait_for(pilot, lambda: "closed 4000 done by the client" in view.state_line)
        assert any("close 4000 done" in line for line in log.lines())


async def test_the_send_key_closes_an_open_connection(collection: Path, ws_base: str) -> None:
    app = make(collection, ws_base)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await connected(pilot, app)
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: "closed 1000 by the client" in view.state_line)


async def test_the_servers_close_code_is_shown(collection: Path, ws_base: str) -> None:
    app = make(collection, ws_base, "/close/1008")
    async with app.run_test(size=(120, 40)) as pilot:
        view = await connected(pilot, app)
        view.query_one("#ws-composer", Input).focus()
        await pilot.press("x", "enter")
        await wait_for(pilot, lambda: "closed 1008 closing 1008 by the server" in view.state_line)
        assert any("close 1008 closing 1008" in line for line in view.frame_log.lines())


async def test_escapes_from_the_server_are_shown_not_obeyed(collection: Path, ws_base: str) -> None:
    app = make(collection, ws_base, "/escapes")
    async with app.run_test(size=(120, 40)) as pilot:
        view = await connected(pilot, app)
        log = view.frame_log
        await wait_for(pilot, lambda: len(log.lines()) >= 4)
        text = "\n".join(log.lines())
        assert "\\x1b[31mALERT" in text and "\\x07" in text and "\x1b" not in text
        assert "ff fe 1b 5b 32 4a" in text


async def test_a_refused_connection_is_one_line(collection: Path, ws_base: str) -> None:
    app = make(collection, ws_base, "/reject")
    async with app.run_test(size=(120, 40)) as pilot:
        await open_request(pilot, "sockets/chat")
        await wait_for(pilot, lambda: app.screen.query(WebSocketView))
        view = view_of(app)
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: "failed" in view.state_line)
        assert "403 Forbidden, not 101 Switching Protocols" in view.state_line


def test_close_codes_a_client_may_send() -> None:
    assert parse_close("4000 bye now") == (4000, "bye now")
    assert parse_close("1000") == (1000, "")
    assert isinstance(parse_close("1006"), str)
    assert isinstance(parse_close("go"), str)
    assert isinstance(parse_close("1000 " + "x" * 124), str)


SCRIPTED = """
[scripts]
post_response = '''
pigeon.ws.send(pigeon.render("from {{who}}"))
reply = pigeon.ws.receive(timeout=5)
pigeon.log("script got", reply.text)
assert reply.text == "something else"
'''
"""


async def test_post_response_scripts_run_once_connected(collection: Path, ws_base: str) -> None:
    app = make(collection, ws_base)
    path = collection / "sockets" / "chat.toml"
    path.write_text(path.read_text(encoding="utf-8") + SCRIPTED, encoding="utf-8")
    app.session.collection = Session.open(collection).collection  # the file as changed
    app.session.trust()
    async with app.run_test(size=(120, 40)) as pilot:
        view = await connected(pilot, app)
        log = app.session.log
        await wait_for(pilot, lambda: any(e.error for e in log))
        assert any(e.text.endswith("script got from me") for e in log)
        assert any("something else" in e.text for e in log if e.error)
        await wait_for(pilot, lambda: view.frame_log.lines().count("  from me") == 2)


ROOM = """\
name = "Room"
type = "websocket"
url = "{{ws_base}}/chat/{{room}}"

[[messages]]
name = "greet"
body = "hello {{room}}"

[scripts]
pre_request = '''
pigeon.setVar("room", "lobby")
'''
"""


def room_app(collection: Path, ws_base: str) -> PigeonApp:
    (collection / "room.toml").write_text(ROOM, encoding="utf-8")
    session = Session.open(collection)
    session.overrides.update({"ws_base": ws_base})
    return PigeonApp(session, theme_dirs=bundled_theme_dirs(), remember_theme=False)


async def test_a_connection_runs_pre_request_scripts_renders_and_is_recorded(
    collection: Path, ws_base: str
) -> None:
    from pigeon.history import list_entries

    app = room_app(collection, ws_base)
    app.session.trust()
    async with app.run_test(size=(120, 40)) as pilot:
        await open_request(pilot, "room")
        await wait_for(pilot, lambda: app.screen.query(WebSocketView))
        view = view_of(app)
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: view.link is not None and view.link.state == "open")
        log = view.frame_log
        await wait_for(pilot, lambda: "  joined /chat/lobby" in log.lines())  # the server's path
        assert view.link.handshake.url.endswith("/chat/lobby")

        saved = view.query_one("#ws-saved", OptionList)
        saved.focus()
        saved.highlighted = 0
        await pilot.press("enter")
        await wait_for(pilot, lambda: log.lines().count("  hello lobby") == 2)  # sent, echoed

        assert list_entries(collection) == []  # recorded when it ends
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: "closed 1000 by the client" in view.state_line)
        await wait_for(pilot, lambda: list_entries(collection))
        (entry,) = list_entries(collection)
        assert entry.url.endswith("/chat/lobby") and entry.status == 101


async def test_an_untrusted_collection_is_asked_before_connecting(
    collection: Path, ws_base: str
) -> None:
    from pigeon.tui.dialogs.trust import TrustScreen

    app = room_app(collection, ws_base)
    async with app.run_test(size=(120, 40)) as pilot:
        await open_request(pilot, "room")
        await wait_for(pilot, lambda: app.screen.query(WebSocketView))
        view = view_of(app)
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: isinstance(app.screen, TrustScreen))
        assert view.link is None  # nothing goes out before the answer
        wants = str(app.screen.query_one("#trust-wants").render())
        assert "room.toml [scripts.pre_request]" in wants
        await pilot.press("t")
        await wait_for(pilot, lambda: view.link is not None and view.link.state == "open")
        await wait_for(pilot, lambda: "  joined /chat/lobby" in view.frame_log.lines())
        assert app.session.is_trusted()


async def test_enter_in_the_empty_composer_sends_the_highlighted_saved_message(
    collection: Path, ws_base: str
) -> None:
    app = make(collection, ws_base)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await connected(pilot, app)
        log = view.frame_log
        view.query_one("#ws-saved", OptionList).highlighted = 1  # "bye"
        composer = view.query_one("#ws-composer", Input)
        composer.focus()
        assert composer.value == ""
        await pilot.press("enter")
        await wait_for(pilot, lambda: log.lines().count("  bye") == 2)  # sent, echoed
        view.query_one("#ws-saved", OptionList).highlighted = 0
        await pilot.press("enter")
        await wait_for(pilot, lambda: log.lines().count('    "hello": "me"') == 2)  # rendered


async def test_a_websocket_shows_ws_and_no_method_or_body(collection: Path, ws_base: str) -> None:
    """A WebSocket has no method to choose and no body (its messages are in the response pane):
    the tree and the URL bar say ``WS``, and there is no Body tab."""
    from textual.widgets import Label, Select, TabbedContent

    from pigeon.tui.widgets.collection.collection_tree import CollectionTree

    app = make(collection, ws_base)
    async with app.run_test(size=(120, 40)) as pilot:
        await open_request(pilot, "sockets/chat")
        tree = app.screen.query_one(CollectionTree)
        label = next(
            str(n.label) for n in tree._all_nodes() if getattr(n.data, "id", "") == "sockets/chat"
        )
        assert label.startswith("WS ") and "GET" not in label
        assert not app.screen.query_one("#method", Select).display
        badge = app.screen.query_one("#method-ws", Label)
        assert badge.display and str(badge.render()) == "WS"
        tabs = app.screen.query_one("#editor-tabs", TabbedContent)
        assert tabs.get_tab("tab-body").display is False
        assert tabs.get_tab("tab-headers").display is not False
