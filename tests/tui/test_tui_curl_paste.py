"""Pasting a curl command into the URL bar turns the open request into that command."""

from __future__ import annotations

from pathlib import Path

from textual import events
from textual.widgets import Input
from tui_support import main_screen, press_and_settle, running

from pigeon.echo import EchoServer
from pigeon.store import load_collection
from pigeon.tui.app import PigeonApp
from pigeon.tui.widgets.editor.request_editor import RequestEditor

COMMAND = """curl -X PUT 'https://api.example.com/items/42?verbose=1&tag=a%20b' \\
  -H 'Authorization: Bearer s3cret' \\
  -H 'Content-Type: application/json' \\
  -H "X-Trace: it's here" \\
  --data-raw '{"name": "Ada", "n": 1}' \\
  -k -L --max-time 7
"""


async def paste(pilot, text: str) -> None:
    url = main_screen(pilot.app).query_one("#url", Input)
    url.focus()
    await pilot.pause()
    url.post_message(events.Paste(text))
    await pilot.pause()


async def test_pasted_curl_becomes_the_request(app: PigeonApp, collection: Path) -> None:
    async with running(app, "users/list-users") as pilot:
        editor = main_screen(app).query_one(RequestEditor)
        await paste(pilot, COMMAND)
        work = editor.request
        assert work is not None
        assert work.name == "List users"  # what the request is stays
        assert work.method == "PUT"
        assert work.url == "https://api.example.com/items/42"
        assert [(q.name, q.value) for q in work.query] == [("verbose", "1"), ("tag", "a b")]
        # Content-Type goes with the JSON body, which sends it by itself.
        assert [(h.name, h.value) for h in work.headers] == [("X-Trace", "it's here")]
        assert work.auth is not None and (work.auth.type, work.auth.token) == ("bearer", "s3cret")
        assert work.body.type == "json" and '"Ada"' in work.body.content
        assert (work.settings.verify_tls, work.settings.follow_redirects) == (False, True)
        assert work.settings.timeout == 7
        assert editor.dirty
        assert main_screen(app).query_one("#url", Input).value == work.url
        await pilot.press("ctrl+s")
        await pilot.pause()
    saved = load_collection(collection).find("users/list-users")
    assert saved is not None and saved[1].method == "PUT" and saved[1].auth.token == "s3cret"


async def test_a_terminal_paste_with_cr_line_breaks_is_one_command(app: PigeonApp) -> None:
    """Terminals send a pasted newline as CR; the continuation lines still belong to it."""
    async with running(app, "users/list-users") as pilot:
        editor = main_screen(app).query_one(RequestEditor)
        await paste(pilot, COMMAND.replace("\n", "\r"))
        work = editor.request
        assert work.method == "PUT" and work.url == "https://api.example.com/items/42"
        assert work.auth is not None and work.auth.token == "s3cret"
        assert work.settings.timeout == 7
        assert not any("more curl command" in n.message for n in app._notifications)


async def test_enter_in_the_url_bar_sends_a_url(app: PigeonApp, echo: EchoServer) -> None:
    async with running(app, "users/list-users") as pilot:
        main_screen(app).query_one("#url", Input).focus()
        await press_and_settle(pilot, "enter")
        exchange = main_screen(app).last_exchange
        assert exchange is not None and exchange.status == 200


async def test_typed_curl_and_enter_converts_instead_of_sending(
    app: PigeonApp, echo: EchoServer
) -> None:
    async with running(app, "users/list-users") as pilot:
        await pilot.press("ctrl+l", "ctrl+u", "end", "ctrl+u")
        await pilot.press(*f"curl {echo.url}/typed -H 'X-One: 1'")
        await press_and_settle(pilot, "enter")
        screen = main_screen(app)
        work = screen.query_one(RequestEditor).request
        assert work is not None and work.url == f"{echo.url}/typed"
        assert [(h.name, h.value) for h in work.headers] == [("X-One", "1")]
        assert screen.last_exchange is None  # converted, not sent
        await press_and_settle(pilot, "ctrl+r")  # now it sends what curl would
        assert ["X-One", "1"] in screen.last_exchange.json()["headers"]
        assert screen.last_exchange.json()["path"] == "/typed"


async def test_other_text_pastes_as_text_and_a_bad_command_changes_nothing(
    app: PigeonApp,
) -> None:
    async with running(app, "users/list-users") as pilot:
        editor = main_screen(app).query_one(RequestEditor)
        url = main_screen(app).query_one("#url", Input)
        await pilot.press("ctrl+l", "ctrl+u", "end", "ctrl+u")
        await paste(pilot, "https://example.org/a\nsecond line")
        assert url.value == "https://example.org/a"  # an Input keeps the first line
        before = editor.request.method, editor.request.url, list(editor.request.headers)
        await paste(pilot, "curl 'https://example.org/unclosed")
        assert (editor.request.method, editor.request.url, editor.request.headers) == before
        assert any("curl" in n.message for n in app._notifications)
