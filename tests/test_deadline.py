"""The request's timeout is one deadline for the whole exchange (DESIGN §7): servers that
trickle, stall or loop are stopped at it, with a message naming where the time ran out, in
the app's core and in `pigeon run` and its reports."""

from __future__ import annotations

import asyncio
import json
import re
import tempfile
import time
import xml.etree.ElementTree as ET
from collections.abc import AsyncIterator, Callable, Iterable
from pathlib import Path

import pytest

from collection_files import write
from pigeon.cli import main
from pigeon.echo import EchoServer
from pigeon.send import Exchange, HttpSession, Progress
from pigeon.send_thread import ThreadedSession
from pigeon.stream import StreamSink
from servers import (
    HEAD,
    SlowServer,
    body_a_byte_at_a_time,
    body_in_chunks,
    body_until_close_a_byte_at_a_time,
    deaf_server,
    events_until_close,
    headers_a_byte_at_a_time,
    processing_forever,
    redirect_again,
    redirect_body_a_byte_at_a_time,
    silent_server,
    slow_server,
    unanswered_port,
)
from test_send import req
from test_send_held import HeldSession

# Each case waits out a real deadline on the clock (a second or two): slow by design.
pytestmark = pytest.mark.slow

DEADLINE = 1.0
# The deadline plus a generous margin for a loaded machine: the point is that a server that
# keeps sending cannot stretch the exchange, not how fast it stops.
MARGIN = 2.0


@pytest.fixture(params=[HttpSession, ThreadedSession, HeldSession])
async def session(request: pytest.FixtureRequest) -> AsyncIterator[HttpSession]:
    """The app's async session, and `pigeon run`'s sync client in a worker thread and on the
    loop's own thread (one lane)."""
    async with request.param() as s:
        yield s


async def timed_send(session: HttpSession, url: str) -> tuple[Exchange, float]:
    start = time.perf_counter()
    ex = await session.send(req(url, timeout=DEADLINE))
    return ex, time.perf_counter() - start


async def hung_up(server: SlowServer) -> bool:
    """Whether the client let go of its connection to ``server`` (waits, bounded)."""
    for _ in range(100):
        if server.hung_up:
            return True
        await asyncio.sleep(0.02)
    return False


async def test_a_body_trickling_a_byte_at_a_time_stops_at_the_deadline(
    session: HttpSession, echo_server: EchoServer
) -> None:
    with slow_server(body_a_byte_at_a_time) as server:
        ex, elapsed = await timed_send(session, server.url)
        assert await hung_up(server)
    assert DEADLINE <= elapsed < DEADLINE + MARGIN
    assert ex.error_kind == "timeout"
    match = re.fullmatch(
        r"Timed out after 1\.0 s while reading the body, (\d+) bytes? in", ex.error
    )
    assert match, ex.error
    assert int(match[1]) > 0 and ex.body == b"x" * int(match[1])  # what arrived is kept
    assert ex.status == 200 and ex.cut_off and not ex.ok
    after = await session.send(req(f"{echo_server.url}/x"))
    assert after.status == 200 and after.error is None


@pytest.mark.parametrize("watched", [False, True], ids=["body", "watched-stream"])
async def test_a_body_read_until_close_cut_by_the_deadline_is_no_complete_body(
    session: HttpSession, watched: bool
) -> None:
    """With neither a length nor chunks, the end of a body is the connection's: the deadline
    shutting it must not read as that end."""
    sink = StreamSink() if watched else None
    with slow_server(body_until_close_a_byte_at_a_time, interval=0.05) as server:
        ex = await session.send(req(server.url, timeout=DEADLINE), Progress(sink=sink))
    assert ex.error_kind == "timeout" and ex.cut_off and not ex.ok
    assert ex.error == f"Timed out after 1.0 s while reading the body, {ex.body_size} bytes in"
    assert ex.body_size > 0 and ex.body == b"x" * ex.body_size


async def test_an_event_stream_read_until_close_cut_by_the_deadline(session: HttpSession) -> None:
    sink = StreamSink()
    with slow_server(events_until_close, interval=0.05) as server:
        ex = await session.send(req(server.url, timeout=DEADLINE), Progress(sink=sink))
    assert ex.error_kind == "timeout" and ex.cut_off and ex.stopped == ""
    assert ex.error is not None and ex.error.startswith("Timed out after 1.0 s while reading")
    assert ex.events  # what arrived is kept


def test_pigeon_run_fails_a_body_read_until_close_cut_by_the_deadline(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "c"
    write(root, "collection.toml", 'name = "x"\n')
    with slow_server(body_until_close_a_byte_at_a_time, interval=0.05) as server:
        script = "[scripts]\npost_response = '''\nassert pigeon.response.status == 200\n'''\n"
        settings = "[settings]\ntimeout = 1.0\n"
        write(root, "cut.toml", f'name = "cut"\nurl = "{server.url}/"\n{settings}{script}')
        code = main(["run", str(root), "--no-color", "--trust"])
    out = capsys.readouterr().out
    assert code == 1, out
    assert "✘" in out and "✔" not in out
    assert re.search(r"Timed out after 1\.0 s while reading the body, \d+ bytes in", out), out


async def test_a_cut_off_body_too_big_for_memory_is_kept_on_disk(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    async with HttpSession(max_body_in_memory=1024) as session:
        with slow_server(body_in_chunks, interval=0.1) as server:
            ex, _ = await timed_send(session, server.url)
    assert ex.error_kind == "timeout" and ex.cut_off and ex.truncated
    assert ex.error == f"Timed out after 1.0 s while reading the body, {ex.body_size} bytes in"
    assert ex.body_path is not None and ex.body_path.read_bytes() == b"x" * ex.body_size
    assert ex.body == b"x" * 1024


async def test_a_redirect_whose_body_never_ends(session: HttpSession) -> None:
    with slow_server(redirect_body_a_byte_at_a_time) as server:
        ex, elapsed = await timed_send(session, server.url)
    assert DEADLINE <= elapsed < DEADLINE + MARGIN
    assert ex.error == "Timed out after 1.0 s while reading a redirect's body, after 1 redirect"
    assert not ex.cut_off  # the body shown is the final response's, and none came


async def test_a_request_body_the_server_never_reads(session: HttpSession) -> None:
    with deaf_server() as url:
        start = time.perf_counter()
        ex = await session.send(req(url, "POST", body=b"x" * 64 * 1024 * 1024, timeout=DEADLINE))
        elapsed = time.perf_counter() - start
    assert DEADLINE <= elapsed < DEADLINE + MARGIN
    assert ex.error == "Timed out after 1.0 s while sending the request"


@pytest.mark.parametrize(
    "pieces",
    [headers_a_byte_at_a_time, processing_forever],
    ids=["status-line-and-headers-trickle", "102-processing-forever"],
)
async def test_a_response_that_never_finishes_its_headers_stops_at_the_deadline(
    session: HttpSession, pieces: Callable[[], Iterable[bytes]]
) -> None:
    with slow_server(pieces) as server:
        ex, elapsed = await timed_send(session, server.url)
        assert await hung_up(server)
        sent = server.connections
        again, _ = await timed_send(session, server.url)  # the session goes on
        assert server.connections == sent + 1  # on a fresh connection, not the dead one
    assert DEADLINE <= elapsed < DEADLINE + MARGIN
    assert ex.error == "Timed out after 1.0 s waiting for the response headers"
    assert ex.error_kind == "timeout" and ex.status is None and not ex.cut_off
    assert again.error == ex.error


async def test_a_server_that_accepts_and_never_answers(session: HttpSession) -> None:
    with silent_server() as url:
        ex, elapsed = await timed_send(session, url)
    assert DEADLINE <= elapsed < DEADLINE + MARGIN
    assert ex.error == "Timed out after 1.0 s waiting for the response headers"
    assert ex.error_kind == "timeout"


async def test_a_connect_that_is_never_answered(session: HttpSession) -> None:
    with unanswered_port() as port:
        ex, elapsed = await timed_send(session, f"http://127.0.0.1:{port}/x")
    assert DEADLINE <= elapsed < DEADLINE + MARGIN
    assert ex.error == f"Timed out after 1.0 s while connecting to 127.0.0.1:{port}"
    assert ex.error_kind == "timeout"


async def test_a_tls_handshake_that_is_never_answered(session: HttpSession) -> None:
    with silent_server() as url:
        https = url.replace("http://", "https://")
        ex, elapsed = await timed_send(session, https)
    assert DEADLINE <= elapsed < DEADLINE + MARGIN
    assert ex.error == f"Timed out after 1.0 s during the TLS handshake with {https[8:]}"


async def test_a_slow_redirect_loop_stops_at_the_deadline_not_at_the_hop_limit(
    echo_server: EchoServer,
) -> None:
    async with HttpSession(max_redirects=1000) as session:
        with slow_server(redirect_again, interval=0.3) as server:
            ex, elapsed = await timed_send(session, server.url)
            assert await hung_up(server)
        assert DEADLINE <= elapsed < DEADLINE + MARGIN
        assert ex.error_kind == "timeout"
        hops = len(ex.redirects)
        assert hops >= 1
        plural = "s" if hops != 1 else ""
        assert ex.error == (
            f"Timed out after 1.0 s waiting for the response headers, after {hops} redirect{plural}"
        )
        after = await session.send(req(f"{echo_server.url}/x"))
        assert after.status == 200


async def test_a_fast_exchange_is_untouched_by_the_deadline(
    session: HttpSession, echo_url: str
) -> None:
    ex = await session.send(req(f"{echo_url}/redirect/2", timeout=DEADLINE))
    assert ex.error is None and ex.status == 200
    assert len(ex.redirects) == 2 and not ex.cut_off


@pytest.mark.parametrize("timeout", [0, -1])
async def test_no_timeout_means_no_deadline(session: HttpSession, timeout: float) -> None:
    """``timeout`` 0 (only a caller can say it: files and the app ask for more than 0) waits
    for as long as the server takes; here until the body arrives after the 1 s a deadline of
    that size would have stopped."""
    with slow_server(lambda: [HEAD.replace(b"100000", b"1"), b"x"], interval=0.6) as server:
        ex = await session.send(req(server.url, timeout=timeout))
    assert ex.error is None and ex.body == b"x"


async def test_cancel_still_stops_a_send_under_a_deadline(session: HttpSession) -> None:
    with slow_server(body_a_byte_at_a_time) as server:
        handle = session.send_cancellable(req(server.url, timeout=30))
        for _ in range(200):  # wait (bounded) until the body is coming
            if handle.progress.bytes_received:
                break
            await asyncio.sleep(0.02)
        handle.cancel()
        ex = await handle
        assert await hung_up(server)
    assert ex.error == "Cancelled" and ex.error_kind == "cancelled"
    assert ex.cut_off and ex.body.startswith(b"x")


def test_pigeon_run_prints_a_timeout_as_one_line_and_reports_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "c"
    write(root, "collection.toml", 'name = "x"\n')
    json_report, junit = tmp_path / "r.json", tmp_path / "j.xml"
    with slow_server(body_a_byte_at_a_time) as server:
        settings = "[settings]\ntimeout = 1.0\n"
        write(root, "slow.toml", f'name = "slow"\nurl = "{server.url}/"\n\n{settings}')
        code = main(
            ["run", str(root), "--no-color", "--report", f"json:{json_report}"]
            + ["--report", f"junit:{junit}"]
        )
    out = capsys.readouterr().out
    assert code == 1
    lines = [line.strip() for line in out.splitlines() if "Timed out" in line]
    assert len(lines) == 1
    assert re.fullmatch(r"Timed out after 1\.0 s while reading the body, \d+ bytes? in", lines[0])
    assert json.loads(json_report.read_text())["requests"][0]["error"] == lines[0]
    error = ET.parse(junit).getroot().find("testsuite/testcase/error")
    assert error is not None and error.get("message") == lines[0]
    assert error.get("type") == "SendError.timeout"
