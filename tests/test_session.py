"""The open collection's verbs, the app's one door to how a request goes out: render and
preview, a cancelled send recorded, a stream resumed, the schema fetch's and the send's
context, and a WebSocket connection through the pipeline (pre-request scripts, trust,
rendered messages, history)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest

from collection_files import write
from pigeon.errors import RenderError
from pigeon.history import list_entries
from pigeon.model import Header, Request
from pigeon.session import Session
from ws_servers import ws_server

ROOM = """\
name = "Room"
type = "websocket"
url = "{{ws_base}}/chat/{{room}}"

[scripts]
pre_request = '''
pigeon.setVar("room", "lobby")
'''
"""


@pytest.fixture(scope="module")
def ws_base() -> Iterator[str]:
    with ws_server() as base:
        yield base


def open_collection(root: Path, **requests: str) -> Session:
    write(root, "collection.toml", 'name = "c"\n[variables]\nbase = "http://127.0.0.1:9"\n')
    for name, text in requests.items():
        write(root, f"{name}.toml", text)
    return Session.open(root)


def test_render_and_preview_use_the_sessions_scopes_and_gate(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PIGEON_T", "from-env")
    s = open_collection(tmp_path / "c", a='name = "a"\nurl = "{{base}}/{{$env.PIGEON_T}}"\n')
    (request,) = s.collection.requests()
    assert s.render(request).url == "http://127.0.0.1:9/from-env"
    with pytest.raises(RenderError, match="needs trust"):
        s.render(request, leaving=True)  # what leaves an untrusted collection is gated
    preview = s.preview(request)  # shows what a send would send: $env is not read
    assert preview.url == "http://127.0.0.1:9/{{$env.PIGEON_T}}"
    assert "from-env" not in preview.url and preview.unresolved == ["$env.PIGEON_T"]
    assert any("needs trust" in w and "$env.PIGEON_T" in w for w in preview.warnings)
    s.trust()
    assert s.render(request, leaving=True).url.endswith("/from-env")
    preview = s.preview(request)
    assert preview.url == "http://127.0.0.1:9/from-env" and not preview.unresolved
    assert not any("needs trust" in w for w in preview.warnings)


def test_a_preview_never_raises(tmp_path: Path) -> None:
    s = open_collection(tmp_path / "c")
    preview = s.preview(Request(name="x", url="http://h/", headers=[Header("a\nb", "v")]))
    assert preview.url == "" and preview.error


def test_a_cancelled_send_is_recorded_with_its_time(tmp_path: Path) -> None:
    s = open_collection(tmp_path / "c", a='name = "a"\nurl = "{{base}}/slow"\n')
    (request,) = s.collection.requests()
    exchange = s.cancelled(request, 1500.0)
    assert exchange is not None
    assert exchange.error_kind == "cancelled" and exchange.error == "cancelled after 1.50 s"
    assert exchange.timings.total_ms == 1500.0 and exchange.url == "http://127.0.0.1:9/slow"
    assert s.record_cancelled(request, 1500.0) is None
    (entry,) = list_entries(s.root)
    assert entry.url == "http://127.0.0.1:9/slow" and entry.status is None
    broken = Request(name="b", url="http://h/", headers=[Header("a\nb", "v")])
    assert s.cancelled(broken, 10.0) is None  # not renderable: it was not sent either


def test_a_resumed_stream_says_where_it_stopped(tmp_path: Path) -> None:
    s = open_collection(tmp_path / "c")
    request = Request(name="s", url="http://h/", headers=[Header("last-event-id", "old")])
    assert s.resumed(request, "42", 120_000) == 60.0  # the server's retry, at most a minute
    assert [(h.name, h.value) for h in request.headers] == [("Last-Event-ID", "42")]
    assert s.resumed(request, "", None) == 0.0
    assert request.headers == []


def test_the_run_context_carries_the_session(tmp_path: Path) -> None:
    s = open_collection(tmp_path / "c")
    s.environment, s.overrides["x"] = "", "1"
    ctx = s.run_context(trusted=True)
    assert ctx.collection is s.collection and ctx.runtime is s.runtime
    assert ctx.cli_vars == {"x": "1"} and ctx.trusted and ctx.allow_scripts
    assert ctx.http is s.http_session() and ctx.scripts is s.script_worker()
    fetch = s.run_context(trusted=False, allow_scripts=False)
    assert not fetch.allow_scripts and fetch.scripts is None


async def converse(s: Session, trusted: bool) -> tuple[list[str], object]:
    """Connect, send one message with a placeholder, close; the texts received."""
    (request,) = s.collection.requests()
    connection = await s.connect(request, trusted)
    link = connection.link
    assert link is not None, connection.result.error
    task = asyncio.create_task(link.run())
    assert await link.opened()
    await link.send_text(connection.message("hello {{room}}")[0])
    assert await link.wait_received(2)
    await link.close()
    await task
    result = await connection.finish()
    return [f.text for f in link.log if f.direction == "received"], result


async def test_a_connection_runs_pre_request_scripts_and_is_recorded(
    tmp_path: Path, ws_base: str
) -> None:
    s = open_collection(tmp_path / "c", room=ROOM)
    s.overrides["ws_base"] = ws_base
    received, result = await converse(s, trusted=True)
    assert received == ["joined /chat/lobby", "hello lobby"]
    (entry,) = list_entries(s.root)
    assert entry.url.endswith("/chat/lobby")
    assert entry.status == 101 and result.frames == (1, 2)  # type: ignore[attr-defined]
    s.cancel_scripts()


async def test_an_untrusted_connection_skips_its_scripts(tmp_path: Path, ws_base: str) -> None:
    s = open_collection(tmp_path / "c", room=ROOM)
    s.overrides.update({"ws_base": ws_base, "room": "hall"})
    received, result = await converse(s, trusted=False)
    assert received == ["joined /chat/hall", "hello hall"]  # the script did not set lobby
    assert result.scripts_skipped == ["pre_request"]  # type: ignore[attr-defined]


async def test_oauth2_is_refused_for_a_connection(tmp_path: Path, ws_base: str) -> None:
    text = ROOM.split("[scripts]")[0] + (
        '[auth]\ntype = "oauth2"\ngrant = "client_credentials"\n'
        'token_url = "http://127.0.0.1:9/token"\nclient_id = "c"\n'
    )
    s = open_collection(tmp_path / "c", room=text)
    s.overrides.update({"ws_base": ws_base, "room": "r"})
    (request,) = s.collection.requests()
    connection = await s.connect(request, trusted=True)
    assert connection.link is None
    assert connection.result.error == (
        "not sent: OAuth 2.0 auth is not available for WebSocket requests"
    )
