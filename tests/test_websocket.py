"""WebSocket connections (``pigeon.websocket``) against a real server on 127.0.0.1."""

from __future__ import annotations

import asyncio
import json
import tracemalloc
from pathlib import Path

import pytest
import trustme

from pigeon.model import Auth, Collection, Header, QueryParam, Request, Settings
from pigeon.render import RenderedRequest, render_request
from pigeon.scopes import build_scopes
from pigeon.transport import TransportSpec
from pigeon.websocket import WebSocketLink
from servers import free_port, server_tls_context, silent_server
from ws_servers import ESCAPES, ws_server


@pytest.fixture(scope="module")
def ws_base() -> str:
    with ws_server() as base:
        yield base


def rendered(
    url: str, timeout: float = 10.0, verify_tls: bool = True, **extra: object
) -> RenderedRequest:
    settings = Settings(timeout=timeout, verify_tls=verify_tls)
    return RenderedRequest(method="GET", url=url, settings=settings, **extra)  # type: ignore[arg-type]


async def opened(link: WebSocketLink) -> asyncio.Task[None]:
    task = asyncio.create_task(link.run())
    await link.opened()
    return task


async def test_echo_text_binary_and_json_with_the_handshake_recorded(ws_base: str) -> None:
    link = WebSocketLink(rendered(f"{ws_base}/echo"), ["chat.v2", "nope"])
    task = await opened(link)
    assert link.state == "open", link.error
    hs = link.handshake
    assert (hs.status, hs.reason, hs.subprotocol) == (101, "Switching Protocols", "chat.v2")
    assert dict((k.lower(), v) for k, v in hs.headers)["upgrade"].lower() == "websocket"
    assert hs.url.startswith("ws://")
    await link.send_text('{"a": [1, 2]}')
    await link.send_bytes(b"\x00\x01\xff")
    text, binary = await link.receive(5), await link.receive(5)
    assert text is not None and text.json() == {"a": [1, 2]}
    assert binary is not None and (binary.kind, binary.data, binary.text) == (
        "binary",
        b"\x00\x01\xff",
        "00 01 ff",
    )
    assert link.status_line() == "open (chat.v2)"
    await link.close(1000, "done")
    await asyncio.wait_for(task, 5)
    assert link.status_line() == "closed 1000 done by the client"
    assert [(f.direction, f.kind) for f in link.log] == [
        ("sent", "text"), ("sent", "binary"), ("received", "text"), ("received", "binary"),
        ("sent", "close"),
    ]  # fmt: skip
    assert (link.sent, link.received) == (2, 2)


@pytest.mark.parametrize("code", [1000, 1008, 4000])
async def test_the_servers_close_code_and_reason(ws_base: str, code: int) -> None:
    link = WebSocketLink(rendered(f"{ws_base}/close/{code}"))
    task = await opened(link)
    await link.send_text("bye")
    await asyncio.wait_for(task, 5)
    assert (link.state, link.close_code, link.close_reason, link.closed_by) == (
        "closed", code, f"closing {code}", "server",
    )  # fmt: skip
    assert link.log[-1].kind == "close" and link.log[-1].note == f"{code} closing {code}"
    with pytest.raises(ConnectionError, match="closed"):
        await link.send_text("too late")


async def test_server_push_arrives_without_a_send(ws_base: str) -> None:
    link = WebSocketLink(rendered(f"{ws_base}/push?count=3&every=0.01"))
    task = await opened(link)
    got = [await link.receive(5) for _ in range(3)]
    assert [f.data for f in got if f] == ["tick 1", "tick 2", "tick 3"]
    assert await link.receive(0.05) is None  # nothing more: the wait has its deadline
    await link.close()
    await asyncio.wait_for(task, 5)


async def test_ping_measures_a_round_trip(ws_base: str) -> None:
    link = WebSocketLink(rendered(f"{ws_base}/echo"))
    task = await opened(link)
    rtt = await link.ping()
    assert rtt > 0
    assert [f.kind for f in link.log] == ["ping", "pong"]
    await link.close()
    await asyncio.wait_for(task, 5)


async def test_headers_auth_and_query_render_as_for_http(ws_base: str, tmp_path: Path) -> None:
    col = Collection(name="c", root=tmp_path, variables={"token": "s3cret", "base": ws_base})
    request = Request(
        name="sock",
        url="{{base}}/headers",
        type="websocket",
        headers=[Header("X-Team", "blue")],
        query=[QueryParam("room", "1")],
        auth=Auth(type="bearer", token="{{token}}"),
    )
    sent = render_request(col, [], request, build_scopes(col, [], request, None))
    link = WebSocketLink(sent, user_agent="pigeon/test")
    task = await opened(link)
    first = await link.receive(5)
    assert first is not None
    headers = json.loads(first.data)
    assert headers["authorization"] == "Bearer s3cret"
    assert (headers["x-team"], headers["user-agent"]) == ("blue", "pigeon/test")
    assert link.handshake.url.endswith("/headers?room=1")
    await link.close()
    await asyncio.wait_for(task, 5)


async def test_a_refused_upgrade_is_one_line_with_its_status(ws_base: str) -> None:
    link = WebSocketLink(rendered(f"{ws_base}/reject"))
    await asyncio.wait_for(link.run(), 10)
    assert link.state == "failed"
    assert link.error == "the server answered 403 Forbidden, not 101 Switching Protocols"
    assert link.handshake.status == 403


async def test_connection_refused_is_one_line() -> None:
    with free_port() as port:
        link = WebSocketLink(rendered(f"ws://127.0.0.1:{port}/x"))
        await asyncio.wait_for(link.run(), 10)
    assert link.state == "failed"
    assert link.error is not None and link.error.startswith(
        f"could not connect to 127.0.0.1:{port}"
    )
    assert "\n" not in link.error


async def test_the_handshake_has_the_requests_timeout_as_deadline() -> None:
    with silent_server() as url:
        link = WebSocketLink(rendered(url.replace("http://", "ws://"), timeout=0.3))
        await asyncio.wait_for(link.run(), 10)
    assert link.state == "failed"
    assert link.error is not None and link.error.startswith("timed out")


async def test_not_a_websocket_url() -> None:
    link = WebSocketLink(rendered("ftp://example.com/"))
    await link.run()
    assert link.error == "'ftp://example.com/' is not a WebSocket URL (ws:// or wss://)"


async def test_a_huge_message_costs_the_frame_cap_and_the_ring_keeps_the_newest(
    ws_base: str,
) -> None:
    link = WebSocketLink(rendered(f"{ws_base}/huge?mb=16"), max_frames=2, frame_cap=1000)
    tracemalloc.start()
    try:
        task = await opened(link)
        huge = await link.receive(10)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 8 * 1024 * 1024  # a 16 MB message is never held whole
    assert huge is not None
    assert (huge.size, huge.truncated, len(huge.data)) == (16 * 1024 * 1024, True, 1000)
    with pytest.raises(ValueError):
        huge.json()
    after = await link.receive(10)
    assert after is not None and after.data == "after"
    await link.send_text("x")
    assert [f.kind for f in link.log] == ["text", "text"]  # the ring of 2: the oldest went
    assert link.log[0].data == "after"
    await link.close()
    await asyncio.wait_for(task, 5)


async def test_escapes_and_invalid_utf8_are_kept_as_data(ws_base: str) -> None:
    link = WebSocketLink(rendered(f"{ws_base}/escapes"))
    task = await opened(link)
    text, binary = await link.receive(5), await link.receive(5)
    assert text is not None and text.data == ESCAPES
    assert binary is not None and binary.data == b"\xff\xfe\x1b[2J"
    await link.close()
    await asyncio.wait_for(task, 5)


async def test_close_refuses_a_code_a_client_may_not_send(ws_base: str) -> None:
    link = WebSocketLink(rendered(f"{ws_base}/echo"))
    task = await opened(link)
    with pytest.raises(ValueError, match="1006"):
        await link.close(1006)
    await link.close(4001, "x" * 10)
    await asyncio.wait_for(task, 5)
    assert link.status_line() == f"closed 4001 {'x' * 10} by the client"


async def test_wss_through_the_collections_ca_bundle(tmp_path: Path) -> None:
    ca = trustme.CA()
    bundle = tmp_path / "ca.pem"
    ca.cert_pem.write_to_path(bundle)
    with ws_server(server_tls_context(ca)) as base:
        untrusted = WebSocketLink(rendered(f"{base}/echo"))
        await asyncio.wait_for(untrusted.run(), 10)
        assert untrusted.error is not None and untrusted.error.startswith("TLS handshake")
        link = WebSocketLink(
            rendered(f"{base}/echo", transport=TransportSpec(ca_bundle=str(bundle)))
        )
        task = await opened(link)
        assert link.state == "open", link.error
        await link.send_text("secure")
        got = await link.receive(5)
        assert got is not None and got.data == "secure"
        await link.close()
        await asyncio.wait_for(task, 5)
        unverified = WebSocketLink(rendered(f"{base}/echo", verify_tls=False))
        task = await opened(unverified)
        assert unverified.state == "open", unverified.error
        await unverified.close()
        await asyncio.wait_for(task, 5)


async def test_a_flood_keeps_the_newest_frames_only(ws_base: str) -> None:
    link = WebSocketLink(rendered(f"{ws_base}/push?count=3000&every=0"), max_frames=100)
    task = await opened(link)
    assert await link.wait_received(3000, timeout=30)
    assert len(link.log) == 100 and link.log[-1].data == "tick 3000"
    assert link.frames_total == 3000
    await link.close()
    await asyncio.wait_for(task, 5)
