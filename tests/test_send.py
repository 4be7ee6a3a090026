"""Sending with HttpSession against real servers on 127.0.0.1."""

from __future__ import annotations

import asyncio
import gc
import os
import socket
import tempfile
import time
import tracemalloc
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import trustme

from pigeon.echo import EchoServer
from pigeon.model import Settings
from pigeon.render import RenderedRequest
from pigeon.send import Exchange, HttpSession, Progress, status_class
from servers import closing_server, free_port, h2_server, silent_server, tls_echo_server


def req(
    url: str,
    method: str = "GET",
    headers: list[tuple[str, str]] | None = None,
    body: bytes | None = None,
    **settings: object,
) -> RenderedRequest:
    return RenderedRequest(
        method=method,
        url=url,
        headers=list(headers or []),
        body=body,
        body_text=body.decode("utf-8", "replace") if body is not None else None,
        settings=Settings(**settings),  # type: ignore[arg-type]
    )


@pytest.fixture
async def session() -> AsyncIterator[HttpSession]:
    async with HttpSession() as s:
        yield s


@pytest.fixture(scope="module")
def ca() -> trustme.CA:
    return trustme.CA()


# -- responses --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("code", "label"),
    [
        (200, "Successful"),
        (201, "Successful"),
        (204, "Successful"),
        (302, "Redirection"),
        (304, "Redirection"),
        (404, "Client error"),
        (418, "Client error"),
        (500, "Server error"),
        (503, "Server error"),
    ],
)
async def test_every_status_class(
    session: HttpSession, echo_url: str, code: int, label: str
) -> None:
    ex = await session.send(req(f"{echo_url}/status/{code}", follow_redirects=False))
    assert ex.error is None
    assert ex.status == code
    assert ex.status_class == label
    assert ex.ok is (code < 400)
    assert ex.http_version == "HTTP/1.1"


async def test_informational_response_is_skipped_for_the_final_one(
    session: HttpSession, echo_url: str
) -> None:
    ex = await session.send(req(f"{echo_url}/status/103"))
    assert ex.status == 200
    assert ex.json() == {"informational": 103}


def test_status_class_labels() -> None:
    assert status_class(100) == "Informational"
    assert status_class(199) == "Informational"
    assert status_class(299) == "Successful"
    assert status_class(599) == "Server error"
    assert status_class(600) == ""
    assert status_class(None) == ""


async def test_reason_headers_and_sent_request(session: HttpSession, echo_url: str) -> None:
    ex = await session.send(
        req(
            f"{echo_url}/response-headers?X-Dup=one&X-Dup=two&X-Other=3",
            headers=[("X-Api-Key", "k1"), ("X-Multi", "a"), ("X-Multi", "b")],
        )
    )
    assert ex.status == 200 and ex.reason == "OK"
    dup = [(k, v) for k, v in ex.headers if k.lower() == "x-dup"]
    assert dup == [("X-Dup", "one"), ("X-Dup", "two")]  # order, case and duplicates kept
    assert ex.header("x-other") == "3"
    assert ex.header_values("X-DUP") == ["one", "two"]
    names = [k.lower() for k, _ in ex.sent_headers]
    for transport in ("host", "user-agent", "accept-encoding"):
        assert transport in names
    assert [v for k, v in ex.sent_headers if k == "X-Multi"] == ["a", "b"]
    assert ex.method == "GET" and ex.url.startswith(echo_url)
    assert ex.headers_size > 0 and ex.size == ex.headers_size + ex.body_size


async def test_request_body_and_json(session: HttpSession, echo_url: str) -> None:
    body = b'{"name": "Ada", "tags": ["x"]}'
    ex = await session.send(
        req(f"{echo_url}/users", "POST", [("Content-Type", "application/json")], body)
    )
    assert ex.is_json and ex.content_type == "application/json"
    echoed = ex.json()
    assert echoed["method"] == "POST"
    assert echoed["json"] == {"name": "Ada", "tags": ["x"]}
    assert echoed["size"] == len(body)
    assert ex.json() is echoed  # parsed once
    assert ("Content-Length", str(len(body))) in ex.sent_headers


async def test_json_of_a_non_json_body_is_a_value_error(
    session: HttpSession, echo_url: str
) -> None:
    ex = await session.send(req(f"{echo_url}/image.png"))
    assert ex.content_type == "image/png" and not ex.is_json
    assert ex.body.startswith(b"\x89PNG\r\n\x1a\n")
    with pytest.raises(ValueError, match="not JSON"):
        ex.json()
    with pytest.raises(ValueError):  # the failure is cached, and raised again
        ex.json()


@pytest.mark.parametrize("charset", ["utf-8", "iso-8859-1", "utf-16", "cp1252"])
async def test_text_is_decoded_with_the_response_charset(
    session: HttpSession, echo_url: str, charset: str
) -> None:
    ex = await session.send(req(f"{echo_url}/text?charset={charset}"))
    assert ex.charset == charset
    assert ex.text == "Grüße aus Köln: café, crème brûlée, naïve façade."
    if charset != "utf-8":
        assert ex.body != ex.text.encode("utf-8")


def test_text_falls_back_to_utf8_with_replacement() -> None:
    ex = Exchange(request=req("http://127.0.0.1/"), body=b"caf\xc3\xa9 \xff", charset="no-such")
    assert ex.text == "café \ufffd"


async def test_compressed_body_is_decoded_once(session: HttpSession, echo_url: str) -> None:
    ex = await session.send(req(f"{echo_url}/gzip"))
    assert ex.header("content-encoding") == "gzip"
    assert ex.json()["gzipped"] is True
    assert ex.body_size == len(ex.body) > ex.wire_body_size > 0


async def test_timings_are_recorded(session: HttpSession, echo_url: str) -> None:
    ex = await session.send(req(f"{echo_url}/delay/0.2"))
    t = ex.timings
    assert t.total_ms >= 200
    assert t.connect_ms is not None and t.connect_ms >= 0
    assert t.ttfb_ms is not None and t.ttfb_ms >= 190
    assert t.tls_ms is None  # plain HTTP
    assert ex.started_at.tzinfo is not None


# -- redirects --------------------------------------------------------------------------------


async def test_redirects_are_followed_with_their_hops(session: HttpSession, echo_url: str) -> None:
    ex = await session.send(req(f"{echo_url}/redirect/3"))
    assert ex.status == 200
    assert ex.redirects == [
        (302, f"{echo_url}/redirect/3"),
        (302, f"{echo_url}/redirect/2"),
        (302, f"{echo_url}/redirect/1"),
    ]
    assert ex.url == f"{echo_url}/redirect/0"
    assert ex.json()["path"] == "/redirect/0"


async def test_redirects_not_followed_when_disabled(session: HttpSession, echo_url: str) -> None:
    ex = await session.send(req(f"{echo_url}/redirect/3", follow_redirects=False))
    assert ex.status == 302
    assert ex.status_class == "Redirection"
    assert ex.header("location") == "/redirect/2"
    assert ex.redirects == []


async def test_303_turns_a_post_into_a_get(session: HttpSession, echo_url: str) -> None:
    ex = await session.send(req(f"{echo_url}/redirect/1?status=303", "POST", body=b"x=1"))
    assert ex.status == 200
    assert ex.method == "GET" and ex.json()["method"] == "GET"


async def test_too_many_redirects(echo_url: str) -> None:
    async with HttpSession(max_redirects=5) as session:
        ex = await session.send(req(f"{echo_url}/redirect/8"))
        assert ex.error == "Too many redirects (max 5)"
        assert ex.error_kind == "redirects"
        assert len(ex.redirects) == 6
        assert not ex.ok
        ok = await session.send(req(f"{echo_url}/redirect/5"))
        assert ok.status == 200 and len(ok.redirects) == 5


# -- failures ---------------------------------------------------------------------------------


async def test_connection_refused(session: HttpSession) -> None:
    with free_port() as port:
        ex = await session.send(req(f"http://127.0.0.1:{port}/x"))
    assert ex.error == f"Connection refused: 127.0.0.1:{port}"
    assert ex.error_kind == "connect"
    assert ex.status is None and not ex.ok and ex.status_class == ""


async def test_read_timeout(session: HttpSession) -> None:
    with silent_server() as url:
        start = time.perf_counter()
        ex = await session.send(req(url, timeout=0.3))
        elapsed = time.perf_counter() - start
    assert ex.error == "Timed out after 0.3 s waiting for the response headers"
    assert ex.error_kind == "timeout"
    assert 0.25 < elapsed < 2


async def test_server_closing_without_a_response(session: HttpSession) -> None:
    with closing_server() as url:
        ex = await session.send(req(url))
    assert ex.error_kind == "read"
    assert ex.error == "Server closed the connection without sending a response"


async def test_server_closing_mid_body(session: HttpSession, echo_url: str) -> None:
    ex = await session.send(req(f"{echo_url}/close-mid-body"))
    assert ex.error == "Server closed the connection mid-body after 100 bytes"
    assert ex.error_kind == "read"
    assert ex.status == 200  # what did arrive is kept
    assert ex.body == b"x" * 100 and ex.cut_off
    assert not ex.ok


async def test_dns_failure(monkeypatch: pytest.MonkeyPatch) -> None:
    """The real transport runs up to name resolution, which fails here, in the process: no
    query leaves the machine. httpx's anyio backend resolves through the event loop's
    getaddrinfo, which calls ``socket.getaddrinfo`` in a thread (with the name IDNA-encoded)."""
    real = socket.getaddrinfo
    asked: list[str] = []

    def getaddrinfo(host: str | bytes | None, *args: Any, **kwargs: Any) -> Any:
        name = host.decode("ascii") if isinstance(host, bytes) else host
        if name == "no-such-host.invalid":
            asked.append(name)
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        return real(host, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    async with HttpSession(trust_env=False) as session:  # no proxy from the environment
        ex = await session.send(req("http://no-such-host.invalid/", timeout=5))
    assert asked == ["no-such-host.invalid"]
    assert ex.error == "DNS lookup failed for host no-such-host.invalid"
    assert ex.error_kind == "dns"
    assert ex.status is None and not ex.ok


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("", "The request has no URL"),
        (
            "example.com/users",
            "URL 'example.com/users' has no scheme: start it with http:// or https://",
        ),
        ("ftp://127.0.0.1/x", "Unsupported URL scheme 'ftp': use http or https"),
    ],
)
async def test_bad_urls_are_refused(session: HttpSession, url: str, message: str) -> None:
    ex = await session.send(req(url))
    assert ex.error == message
    assert ex.error_kind == "invalid"


@pytest.mark.parametrize(
    "header",
    [("X-Bad", "a\r\nInjected: 1"), ("X-Bad", "a\nb"), ("X-Bad", "a\x00"), ("Bad Name", "v")],
)
async def test_header_injection_is_refused_and_nothing_sent(
    session: HttpSession, echo_server: EchoServer, header: tuple[str, str]
) -> None:
    ex = await session.send(req(f"{echo_server.url}/x", headers=[header]))
    assert ex.error_kind == "invalid"
    assert "nothing was sent" in (ex.error or "")
    assert echo_server.request_count == 0


async def test_non_ascii_header_values_go_as_utf8(session: HttpSession, echo_url: str) -> None:
    ex = await session.send(req(f"{echo_url}/x", headers=[("X-Name", "Zoë")]))
    assert ex.error is None and ("X-Name", "Zoë") in ex.sent_headers
    echoed = dict(ex.json()["headers"])["X-Name"]  # the stdlib server reads headers as Latin-1
    assert echoed.encode("latin-1").decode("utf-8") == "Zoë"


# -- TLS and HTTP/2 ---------------------------------------------------------------------------


async def test_self_signed_tls_is_refused_by_default(session: HttpSession, ca: trustme.CA) -> None:
    with tls_echo_server(ca) as server:
        ex = await session.send(req(f"{server.url}/x"))
        assert ex.error_kind == "tls"
        assert (ex.error or "").startswith("TLS verification failed for 127.0.0.1: ")
        assert "ca_bundle" in ex.error and "verify_tls = false" in ex.error
        assert server.request_count == 0


async def test_self_signed_tls_accepted_without_verification(
    session: HttpSession, ca: trustme.CA
) -> None:
    with tls_echo_server(ca) as server:
        ex = await session.send(req(f"{server.url}/x", verify_tls=False))
        assert ex.error is None and ex.status == 200
        assert ex.json()["url"].startswith("https://")
        assert ex.timings.tls_ms is not None
        # The verifying client still refuses: verification is per request, not sticky.
        again = await session.send(req(f"{server.url}/x"))
        assert again.error_kind == "tls"


async def test_trusted_ca_is_accepted(ca: trustme.CA) -> None:
    import ssl

    context = ssl.create_default_context()
    ca.configure_trust(context)
    with tls_echo_server(ca) as server:
        async with HttpSession(verify=context) as session:
            ex = await session.send(req(f"{server.url}/x"))
    assert ex.error is None and ex.status == 200


async def test_http2_is_negotiated_when_the_server_speaks_it(
    session: HttpSession, ca: trustme.CA
) -> None:
    with h2_server(ca) as url:
        ex = await session.send(req(f"{url}/h2", verify_tls=False))
    assert ex.error is None
    assert ex.http_version == "HTTP/2"
    assert ex.json() == {"path": "/h2", "method": "GET", "http2": True}


async def test_http1_server_with_http2_enabled_client(session: HttpSession, echo_url: str) -> None:
    ex = await session.send(req(f"{echo_url}/x"))
    assert ex.http_version == "HTTP/1.1" and ex.status == 200


# -- sessions ---------------------------------------------------------------------------------


async def test_cookies_persist_across_requests(session: HttpSession, echo_url: str) -> None:
    await session.send(req(f"{echo_url}/cookies/set?flavour=oat&sid=42"))
    ex = await session.send(req(f"{echo_url}/cookies"))
    assert ex.json() == {"cookies": {"flavour": "oat", "sid": "42"}}
    await session.send(req(f"{echo_url}/cookies/delete?sid"))
    ex = await session.send(req(f"{echo_url}/cookies"))
    assert ex.json() == {"cookies": {"flavour": "oat"}}


async def test_cookie_jar_is_shared_with_the_unverified_client(
    session: HttpSession, echo_url: str
) -> None:
    await session.send(req(f"{echo_url}/cookies/set?a=1", verify_tls=False))
    ex = await session.send(req(f"{echo_url}/cookies"))
    assert ex.json() == {"cookies": {"a": "1"}}


async def test_connection_is_reused(session: HttpSession, echo_server: EchoServer) -> None:
    first = await session.send(req(f"{echo_server.url}/a"))
    second = await session.send(req(f"{echo_server.url}/b", "POST", body=b"hello"))
    assert first.json()["client"] == second.json()["client"]
    assert echo_server.connection_count == 1
    assert first.timings.connect_ms is not None
    assert second.timings.connect_ms is None  # reused: no connect


async def test_redirect_hops_reuse_the_connection(
    session: HttpSession, echo_server: EchoServer
) -> None:
    ex = await session.send(req(f"{echo_server.url}/redirect/4"))
    assert ex.status == 200 and len(ex.redirects) == 4
    assert echo_server.connection_count == 1


async def test_sessions_do_not_share_cookies(echo_url: str) -> None:
    async with HttpSession() as one, HttpSession() as two:
        await one.send(req(f"{echo_url}/cookies/set?a=1"))
        ex = await two.send(req(f"{echo_url}/cookies"))
    assert ex.json() == {"cookies": {}}


async def test_closed_session_refuses_to_send(echo_url: str) -> None:
    session = HttpSession()
    await session.aclose()
    ex = await session.send(req(f"{echo_url}/x"))
    assert ex.error == "The HTTP session is closed" and ex.error_kind == "other"


# -- big bodies -------------------------------------------------------------------------------


async def test_large_body_is_spooled_to_disk_without_filling_memory(echo_url: str) -> None:
    size = 50 * 1024 * 1024
    cap = 1024 * 1024
    async with HttpSession(max_body_in_memory=cap) as session:
        await session.send(req(f"{echo_url}/x"))  # warm up: client and connection exist
        gc.collect()
        tracemalloc.start()
        try:
            ex = await session.send(req(f"{echo_url}/bytes/{size}"))
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
    assert ex.error is None
    assert peak < 8 * 1024 * 1024, f"peak {peak} bytes"
    assert ex.body_size == size
    assert ex.truncated
    assert len(ex.body) == cap
    assert ex.body_path is not None and ex.body_path.name.startswith("pigeon-")
    assert os.path.getsize(ex.body_path) == size
    with ex.open_body() as fh:
        assert fh.read(cap) == ex.body
    with pytest.raises(ValueError, match="too large"):
        ex.json()
    path = ex.body_path
    ex.discard()
    assert not path.exists() and ex.body_path is None


async def test_spooled_file_is_removed_when_the_exchange_is_dropped(echo_url: str) -> None:
    async with HttpSession(max_body_in_memory=1000) as session:
        ex = await session.send(req(f"{echo_url}/bytes/5000"))
    path = ex.body_path
    assert path is not None and path.exists()
    del ex
    gc.collect()
    assert not path.exists()


async def test_save_body_writes_the_whole_body(echo_url: str, tmp_path: Path) -> None:
    async with HttpSession(max_body_in_memory=4096) as session:
        big = await session.send(req(f"{echo_url}/bytes/100000"))
        small = await session.send(req(f"{echo_url}/image.png"))
    big.save_body(tmp_path / "big.bin")
    small.save_body(tmp_path / "small.png")
    assert (tmp_path / "big.bin").stat().st_size == 100000
    assert (tmp_path / "small.png").read_bytes() == small.body
    assert b"".join(big.iter_body(chunk_size=7000)) == (tmp_path / "big.bin").read_bytes()
    big.discard()


async def test_body_under_the_cap_stays_in_memory(echo_url: str) -> None:
    async with HttpSession(max_body_in_memory=4096) as session:
        ex = await session.send(req(f"{echo_url}/bytes/4096"))
    assert not ex.truncated and ex.body_path is None and len(ex.body) == 4096


async def test_progress_is_reported(session: HttpSession, echo_url: str) -> None:
    progress = Progress()
    ex = await session.send(req(f"{echo_url}/bytes/300000"), progress=progress)
    assert ex.body_size == 300000
    assert progress.phase == "done"
    assert progress.bytes_received == 300000
    assert progress.content_length == 300000
    assert progress.status == 200


# -- cancellation -----------------------------------------------------------------------------


async def test_cancelling_the_task_stops_the_send_quickly(
    session: HttpSession, echo_url: str
) -> None:
    task = asyncio.create_task(session.send(req(f"{echo_url}/delay/10")))
    await asyncio.sleep(0.2)
    start = time.perf_counter()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert time.perf_counter() - start < 0.5
    # The session is still usable afterwards.
    ex = await session.send(req(f"{echo_url}/x"))
    assert ex.status == 200


async def test_cancellable_send_returns_a_cancelled_exchange(
    session: HttpSession, echo_url: str
) -> None:
    handle = session.send_cancellable(req(f"{echo_url}/delay/10"))
    await asyncio.sleep(0.2)
    start = time.perf_counter()
    handle.cancel()
    ex = await handle
    assert time.perf_counter() - start < 0.5
    assert ex.error == "Cancelled" and ex.error_kind == "cancelled"
    assert ex.status is None and not ex.ok
    assert handle.done()


async def test_cancelled_mid_body_removes_the_spooled_file(
    echo_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    async with HttpSession(max_body_in_memory=1024) as session:
        handle = session.send_cancellable(req(f"{echo_url}/bytes/{2 * 1024**3}"))
        for _ in range(500):  # wait (bounded) until the body is streaming to disk
            if handle.progress.bytes_received > 1024 * 1024:
                break
            await asyncio.sleep(0.01)
        assert list(tmp_path.glob("pigeon-*"))  # spooling had started
        handle.cancel()
        ex = await handle
    assert ex.error_kind == "cancelled"
    assert ex.status == 200
    assert 1024 * 1024 < ex.body_size < 2 * 1024**3
    assert ex.body_path is None
    assert list(tmp_path.glob("pigeon-*")) == []


async def test_uncancelled_handle_returns_the_exchange(session: HttpSession, echo_url: str) -> None:
    handle = session.send_cancellable(req(f"{echo_url}/x"))
    ex = await handle
    assert ex.status == 200 and ex.error is None


async def test_cancel_before_the_send_starts(session: HttpSession, echo_server: EchoServer) -> None:
    handle = session.send_cancellable(req(f"{echo_server.url}/x"))
    handle.cancel()
    ex = await handle
    assert ex.error == "Cancelled" and ex.status is None
    assert echo_server.request_count == 0


async def test_cancelling_the_waiter_cancels_the_send(session: HttpSession, echo_url: str) -> None:
    handle = session.send_cancellable(req(f"{echo_url}/delay/10"))
    waiter = asyncio.create_task(handle.wait())
    await asyncio.sleep(0.2)
    waiter.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiter
    await asyncio.sleep(0)
    assert handle.done()


def test_failed_exchange_for_a_request_that_could_not_be_built() -> None:
    rendered = req("http://127.0.0.1/{{host}}")
    ex = Exchange.failed(rendered, "invalid", "Unresolved placeholder host")
    assert ex.error == "Unresolved placeholder host" and ex.error_kind == "invalid"
    assert ex.url == rendered.url and ex.method == "GET"
    assert not ex.ok and ex.status_class == "" and ex.size == 0


async def test_concurrent_sends_share_one_session(session: HttpSession, echo_url: str) -> None:
    start = time.perf_counter()
    results = await asyncio.gather(
        *(session.send(req(f"{echo_url}/delay/0.3?i={i}")) for i in range(10))
    )
    assert time.perf_counter() - start < 2.5  # in parallel, not one after another
    assert sorted(r.json()["query"]["i"][0] for r in results) == [str(i) for i in range(10)]
