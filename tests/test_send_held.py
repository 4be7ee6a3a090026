"""A one-lane `pigeon run` sends on the event loop's own thread (DESIGN §7): the same
exchange as the worker thread's (its deadlines: ``tests/test_deadline.py``), ctrl+c ending it
at once (and ``tests/cli/test_cli_run_interrupt.py``)."""

from __future__ import annotations

import asyncio
import os
import signal
import threading
from collections.abc import AsyncIterator
from typing import Any

import pytest

from pigeon.echo import EchoServer
from pigeon.exchange import Exchange, Progress
from pigeon.render import RenderedRequest
from pigeon.send_thread import ThreadedSession
from servers import body_a_byte_at_a_time, slow_server
from test_send import req


class HeldSession(ThreadedSession):
    """`pigeon run`'s session with one lane, every send asked to hold the loop, as the
    pipeline asks for a request that no script waits on and no stream is watched."""

    def __init__(self, **options: Any) -> None:
        super().__init__(alone=True, **options)

    async def send(
        self, rendered: RenderedRequest, progress: Progress | None = None, *, hold_loop: bool = True
    ) -> Exchange:
        return await super().send(rendered, progress, hold_loop=hold_loop)


@pytest.fixture
async def session() -> AsyncIterator[HeldSession]:
    async with HeldSession() as s:
        yield s


def worker_started(session: ThreadedSession) -> bool:
    return session._worker is not None


async def test_a_held_send_runs_on_the_loops_thread(session: HeldSession, echo_url: str) -> None:
    ex = await session.send(req(f"{echo_url}/redirect/2"))
    assert ex.status == 200 and len(ex.redirects) == 2
    assert not worker_started(session)
    assert not any(t.name == "pigeon-send" for t in threading.enumerate())


async def test_a_send_not_asked_to_hold_goes_through_the_worker(echo_url: str) -> None:
    async with ThreadedSession(alone=True) as session:
        ex = await session.send(req(f"{echo_url}/x"))
        assert ex.status == 200 and worker_started(session)


async def test_a_session_with_other_lanes_never_holds_the_loop(echo_url: str) -> None:
    async with ThreadedSession() as session:
        ex = await session.send(req(f"{echo_url}/x"), hold_loop=True)
        assert ex.status == 200 and worker_started(session)


async def test_timings_cookies_and_compression(session: HeldSession, echo_url: str) -> None:
    timed = await session.send(req(f"{echo_url}/delay/0.2"))
    t = timed.timings
    assert t.total_ms >= 200 and t.connect_ms is not None
    assert t.ttfb_ms is not None and t.ttfb_ms >= 190
    await session.send(req(f"{echo_url}/cookies/set?a=1"))
    assert (await session.send(req(f"{echo_url}/cookies"))).json() == {"cookies": {"a": "1"}}
    gz = await session.send(req(f"{echo_url}/gzip"))
    assert gz.json()["gzipped"] is True and gz.body_size == len(gz.body) > gz.wire_body_size
    assert not worker_started(session)


async def test_a_body_over_the_cap_is_spooled(echo_url: str) -> None:
    async with HeldSession(max_body_in_memory=1000) as session:
        ex = await session.send(req(f"{echo_url}/bytes/5000"))
    assert ex.truncated and len(ex.body) == 1000 and ex.body_size == 5000
    assert ex.body_path is not None and os.path.getsize(ex.body_path) == 5000
    ex.discard()


async def test_a_server_closing_mid_body_keeps_what_came(
    session: HeldSession, echo_url: str
) -> None:
    ex = await session.send(req(f"{echo_url}/close-mid-body"))
    assert ex.error == "Server closed the connection mid-body after 100 bytes"
    assert ex.body == b"x" * 100 and ex.cut_off


async def test_ctrl_c_ends_a_held_send_and_lets_go_of_the_connection() -> None:
    """SIGINT while the send waits on a body that never ends: the send stops at once, its
    connection let go, and the handler before the session's hears it (asyncio.run's cancels
    the run's task, as this one does), so the task ends cancelled."""
    task = asyncio.current_task()
    assert task is not None
    heard: list[int] = []

    def loop_handler(signum: int, frame: Any) -> None:
        heard.append(signum)
        task.cancel()

    previous = signal.signal(signal.SIGINT, loop_handler)
    try:
        with slow_server(body_a_byte_at_a_time, interval=0.05) as server:
            async with HeldSession() as session:
                timer = threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGINT))
                timer.start()
                try:
                    with pytest.raises(asyncio.CancelledError):
                        await session.send(req(server.url, timeout=60))
                finally:
                    timer.cancel()
                    task.uncancel()
                assert not worker_started(session)
                for _ in range(100):  # bounded wait for the server to see the hang-up
                    if server.hung_up:
                        break
                    await asyncio.sleep(0.02)
                assert server.hung_up == 1
            assert signal.getsignal(signal.SIGINT) is loop_handler  # the session put it back
    finally:
        signal.signal(signal.SIGINT, previous)
    assert heard == [signal.SIGINT]


async def test_a_run_of_fast_sends_never_wakes_the_watchdog(
    session: HeldSession, echo_url: str
) -> None:
    """Each send arms a later deadline than the last, which the sleeping watchdog already
    waits beyond: it looks once, when it starts, however many sends follow."""
    for _ in range(30):
        assert (await session.send(req(f"{echo_url}/x", timeout=30))).status == 200
    watchdog = session._watchdog
    assert watchdog is not None and watchdog.wakes == 1


async def test_a_cancel_between_held_sends_ends_the_next_before_it_sends(
    session: HeldSession, echo_server: EchoServer
) -> None:
    """A ctrl+c that comes while no send holds the loop cancels the run's task (asyncio.run's
    handler); held sends never wait on the loop, so the next one lets the cancel in."""
    url = f"{echo_server.url}/x"
    assert (await session.send(req(url))).status == 200
    before = echo_server.request_count
    task = asyncio.current_task()
    assert task is not None
    task.cancel()
    try:
        with pytest.raises(asyncio.CancelledError):
            await session.send(req(url))
    finally:
        task.uncancel()
    assert echo_server.request_count == before  # nothing more was sent
