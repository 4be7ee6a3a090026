"""Sending with httpx's sync client in a worker thread, for `pigeon run` (DESIGN §7).

A sequential run waits on one exchange at a time, and httpx's sync stack costs about half of
its async one per request (no event-loop round trips, cancel scopes or async locks between
the socket and the response). ``ThreadedSession`` keeps everything ``HttpSession``
guarantees, on that cheaper path:

- the whole-exchange deadline: at the deadline the event loop shuts the session's sockets
  down, which ends whatever the worker waits on (a trickling body or header, a stalled
  write), and the send fails with the timeout message naming its stage, as before. A connect
  in progress has no socket to shut yet: httpcore reads each phase's limit from the request's
  timeout mapping just before it waits, and that mapping answers with the time left.
- redirects followed by hand with ``RedirectCredentials``, the body cap and spooling, the
  timings from httpcore's trace events, HTTP/2, the cookie jar;
- cancelling: the awaiting task's cancellation (Ctrl-C) shuts the session's sockets down,
  which ends the worker's blocking read at once, and the send's spooled file is removed.
"""

from __future__ import annotations

import asyncio
import contextlib
import queue
import socket
import threading
import time
import weakref
from typing import Any, cast

import httpx

from pigeon.auth_flows import flow_for
from pigeon.exchange import Exchange
from pigeon.redirects import RedirectCredentials
from pigeon.send import (
    _REDIRECT_BODY_LIMIT,
    HttpSession,
    _Attempt,
    _describable,
    _describe,
    _describe_os,
    _timed_out,
)

__all__ = ["ThreadedSession"]

# A read never waits less than this, even past the deadline: a zero socket timeout would mean
# "do not block" rather than "time is up".
_LEAST_WAIT = 0.001


class _TimeLeft(dict):  # type: ignore[type-arg]
    """httpx's timeout mapping whose every phase answers with the time left to a deadline."""

    def __init__(self, deadline: float) -> None:
        super().__init__(connect=None, read=None, write=None, pool=None)
        self.deadline = deadline

    def get(self, key: Any, default: Any = None) -> float:
        return max(self.deadline - time.monotonic(), _LEAST_WAIT)


class _Job:
    __slots__ = ("attempt", "loop", "future", "finished", "cancelled", "expired", "cut", "stopped")

    def __init__(
        self, attempt: _Attempt, loop: asyncio.AbstractEventLoop, future: asyncio.Future[None]
    ) -> None:
        self.attempt = attempt
        self.loop = loop
        self.future = future
        self.finished = threading.Event()
        self.cancelled = False
        self.expired: str | None = None  # the stage the deadline fell in
        self.cut = False  # the deadline fell while the body was being read
        self.stopped = False  # a stream's stop shut the sockets


def _settle(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)


class ThreadedSession(HttpSession):
    """An ``HttpSession`` whose sends run one at a time on httpx's sync client in a worker
    thread; the awaiting side is the same (``send``, ``send_cancellable``, ``aclose``)."""

    # How long a cancelled send may take to let go of its sockets and files.
    CANCEL_WAIT = 2.0

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self._jobs: queue.SimpleQueue[_Job | None] = queue.SimpleQueue()
        self._worker: threading.Thread | None = None
        # Every connection's socket, so a cancel can end a read blocked on any of them.
        self._sockets: weakref.WeakSet[socket.socket] = weakref.WeakSet()

    _sync = True

    def _new_client(self, options: dict[str, Any]) -> Any:
        """A sync client: this session's sends run on its worker thread."""
        return httpx.Client(**options)

    async def aclose(self) -> None:
        self._closed = True
        if self._worker is not None:
            self._jobs.put(None)
            self._worker = None
        clients, self._clients = list(self._clients.values()), {}
        for client in clients:  # sync clients: this session's _new_client makes them
            with contextlib.suppress(Exception):
                cast(httpx.Client, client).close()
        await super().aclose()

    async def _run(self, attempt: _Attempt) -> Exchange:
        loop = asyncio.get_running_loop()
        job = _Job(attempt, loop, loop.create_future())
        if self._worker is None:
            self._worker = threading.Thread(target=self._work, name="pigeon-send", daemon=True)
            self._worker.start()
        timeout = attempt.rendered.settings.timeout
        watchdog = loop.call_later(timeout, self._expire, job) if timeout and timeout > 0 else None
        sink, limit = attempt.sink, None
        if sink is not None:
            sink.on_stop = lambda: loop.call_soon_threadsafe(self._stop, job)
            if sink.max_seconds is not None:
                limit = loop.call_later(sink.max_seconds, sink.stop, "max_seconds")
        self._jobs.put(job)
        try:
            await job.future
        except asyncio.CancelledError:
            job.cancelled = True
            self._shut_sockets()
            job.finished.wait(self.CANCEL_WAIT)  # brief: the worker's read has just ended
            raise
        finally:
            for handle in (watchdog, limit):
                if handle is not None:
                    handle.cancel()
        return attempt.exchange()

    def _expire(self, job: _Job) -> None:
        if not job.finished.is_set():
            job.expired = job.attempt.stage  # before the shut socket moves the send on
            job.cut = job.attempt.reading  # the body was still arriving
            self._shut_sockets()

    def _stop(self, job: _Job) -> None:
        """A stream's stop while the worker waits (for a chunk, or the response): the wait
        ends. Between chunks, the body loop sees the stop by itself."""
        attempt = job.attempt
        if not job.finished.is_set() and (attempt.reading or attempt.response is None):
            job.stopped = True
            self._shut_sockets()

    def _shut_sockets(self) -> None:
        for sock in list(self._sockets):
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)

    def _work(self) -> None:
        while True:
            job = self._jobs.get()
            if job is None:
                return
            try:
                self._send(job)
            finally:
                job.finished.set()
                with contextlib.suppress(RuntimeError):  # the loop is gone (Ctrl-C)
                    job.loop.call_soon_threadsafe(_settle, job.future)

    def _send(self, job: _Job) -> None:
        attempt = job.attempt
        try:
            self._transfer_sync(attempt)
        except Exception as exc:  # anything unforeseen still becomes an Exchange
            attempt.fail("other", f"{type(exc).__name__}: {exc}")
        if job.stopped and attempt.error is not None and job.expired is None:
            attempt.stopped_early()  # the shut socket's error is no error
        if attempt.sink is not None:
            attempt.sink.on_stop = None
        stopped = attempt.sink is not None and attempt.sink.stop_reason is not None
        cut = job.cut and not stopped
        if job.expired is not None and (attempt.error is not None or cut):
            # An error is the shut socket's; no error is the shut socket read as the end of
            # a body that ends when its connection closes: either way the deadline cut it.
            attempt.stage = job.expired  # not what the shut socket made it say
            attempt.fail("timeout", _timed_out(attempt))
        attempt.t_end = time.perf_counter()
        if attempt.response is not None:
            with contextlib.suppress(Exception):
                attempt.response.close()
        # A body cut off by an error is kept whole too; a cancelled send's is removed.
        attempt.drop_spool(keep_spool=not job.cancelled)
        attempt.progress.phase = "done"

    def _trace(self, attempt: _Attempt) -> Any:
        def trace(event: str, info: dict[str, Any]) -> None:
            if event.endswith(("connect_tcp.complete", "start_tls.complete")):
                stream = info.get("return_value")
                sock = stream.get_extra_info("socket") if stream is not None else None
                if sock is not None:
                    self._sockets.add(sock)
            attempt.on_trace(event, info)

        return trace

    def _transfer_sync(self, attempt: _Attempt) -> None:
        prepared = self._prepare(attempt, self._trace(attempt))
        if prepared is None:
            return
        client, request, timeout = prepared
        if timeout is not None:
            request.extensions["timeout"] = _TimeLeft(time.monotonic() + timeout)
        try:
            self._exchange_sync(attempt, client, request)
        except httpx.HTTPError as exc:
            attempt.fail(*_describe(exc, attempt))
        except Exception as exc:
            if not _describable(exc):
                raise
            attempt.fail(*_describe_os(exc, attempt))

    def _exchange_sync(
        self,
        attempt: _Attempt,
        client: httpx.Client,
        request: httpx.Request,
    ) -> None:
        """``HttpSession._exchange`` on the sync client: every hop and the final body."""
        credentials = RedirectCredentials(attempt.rendered)
        flow = flow_for(attempt.rendered)
        while True:
            attempt.sending(request)
            response = client.send(
                request, stream=True, follow_redirects=False, auth=credentials.auth(flow)
            )
            next_request = attempt.answered(response)
            if next_request is None:
                break
            read = 0
            for chunk in response.iter_raw():  # bounded, so the connection can be reused
                read += len(chunk)
                if read > _REDIRECT_BODY_LIMIT:
                    break
            response.close()
            if not attempt.follow(credentials, request, next_request, self.max_redirects):
                return
            request = next_request
        attempt.receiving(response)
        for chunk in response.iter_bytes():
            if attempt.add(chunk):
                break
        attempt.reading = False
