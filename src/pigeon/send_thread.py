"""Sending with httpx's sync client, in a worker thread or on the loop's own, for `pigeon run` (DESIGN §7).

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

A run with nothing else for its event loop to do while a request is out (one lane, no
stream, not a script's ``pigeon.send``: ``alone`` and ``hold_loop``) skips the worker: the
send runs on the loop's own thread, which saves a hand-off each way per request. There a
watchdog thread keeps the deadline the loop kept, shutting the sockets down when it passes;
it sleeps until the earliest deadline it knows of, so a run of fast requests never wakes it.
Ctrl-C ends such a send at once: while it runs, SIGINT raises inside it, the connection is
let go, and the handler before the session's (asyncio.run's) cancels the run's task.
"""

from __future__ import annotations

import asyncio
import contextlib
import queue
import signal
import socket
import threading
import time
import weakref
from collections.abc import Callable
from typing import Any, cast

import httpx

from pigeon.auth_flows import flow_for
from pigeon.exchange import Exchange, Progress
from pigeon.redirects import RedirectCredentials
from pigeon.render import RenderedRequest
from pigeon.send import (
    _REDIRECT_BODY_LIMIT,
    HttpSession,
    _Attempt,
    _describable,
    _describe,
    _describe_os,
    _timed_out,
    traced_step,
)

__all__ = ["ThreadedSession"]

# A read never waits less than this, even past the deadline: a zero socket timeout would mean
# "do not block" rather than "time is up".
_LEAST_WAIT = 0.001


class _Interrupted(BaseException):
    """Ctrl-C while a send holds the loop: raised inside the send, caught around it."""


class _TimeLeft(dict):  # type: ignore[type-arg]
    """httpx's timeout mapping whose every phase answers with the time left to a deadline."""

    def __init__(self, deadline: float) -> None:
        super().__init__(connect=None, read=None, write=None, pool=None)
        self.deadline = deadline

    def get(self, key: Any, default: Any = None) -> float:
        return max(self.deadline - time.monotonic(), _LEAST_WAIT)


class _Job:
    __slots__ = (
        "attempt", "loop", "future", "finished", "done", "cancelled", "expired", "cut", "stopped",
    )  # fmt: skip

    def __init__(
        self,
        attempt: _Attempt,
        loop: asyncio.AbstractEventLoop | None = None,
        future: asyncio.Future[None] | None = None,
    ) -> None:
        self.attempt = attempt
        self.loop = loop
        self.future = future
        # The worker's job is awaited across threads; a held send's is over when it returns.
        self.finished = threading.Event() if loop is not None else None
        self.done = False
        self.cancelled = False
        self.expired: str | None = None  # the stage the deadline fell in
        self.cut = False  # the deadline fell while the body was being read
        self.stopped = False  # a stream's stop shut the sockets


def _settle(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)


class _Watchdog:
    """One thread that calls ``expire(job)`` once the armed send passes its deadline.

    It sleeps until the last deadline armed and is woken only when a send is armed with an
    earlier one (or it has none ahead): sends that each arm a deadline later than the last
    one's, as a run's do, cost two locked assignments and no wake-up, so the thread never
    contends for the interpreter with the sends. Waking on time, it looks at the send armed
    then, and sleeps on towards that one's deadline if it has not passed.
    """

    def __init__(self, expire: Callable[[_Job], None]) -> None:
        self._expire = expire
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._job: _Job | None = None
        self._deadline = 0.0  # the last one armed
        self._due: float | None = None  # what the thread sleeps towards; None: nothing
        self._closed = False
        self._thread: threading.Thread | None = None
        self.wakes = 0  # times the thread looked (a run of fast sends: once)

    def arm(self, job: _Job, deadline: float) -> None:
        with self._lock:
            self._job, self._deadline = job, deadline
            if self._due is None or deadline < self._due:
                self._wake.set()
        if self._thread is None:
            self._thread = threading.Thread(target=self._watch, name="pigeon-deadline", daemon=True)
            self._thread.start()

    def disarm(self) -> None:
        """The send is over: once this returns, the watchdog no longer acts on it."""
        with self._lock:
            self._job = None

    def close(self) -> None:
        with self._lock:
            self._closed, self._job = True, None
            self._wake.set()

    def _watch(self) -> None:
        while True:
            with self._lock:
                self.wakes += 1
                if self._closed:
                    return
                job, now = self._job, time.monotonic()
                if job is not None and now >= self._deadline:
                    self._job = None
                    self._expire(job)  # under the lock: the send cannot end meanwhile
                # Towards the last deadline armed, whether its send is still out or not: the
                # next one's is later, and arming it then wakes nobody.
                self._due = self._deadline if self._deadline > now else None
                self._wake.clear()
            self._wake.wait(None if self._due is None else self._due - now)


class ThreadedSession(HttpSession):
    """An ``HttpSession`` whose sends run one at a time on httpx's sync client in a worker
    thread; the awaiting side is the same (``send``, ``send_cancellable``, ``aclose``)."""

    # How long a cancelled send may take to let go of its sockets and files.
    CANCEL_WAIT = 2.0

    def __init__(self, *, alone: bool = False, **options: Any) -> None:
        super().__init__(**options)
        # Nothing else runs on the caller's event loop while a request is out (a run of one
        # lane): a send asked to hold the loop runs on its thread, without the worker.
        self.alone = alone
        self._holding = False  # a send runs on the loop's thread now
        self._sigint_prior: Any = None  # the SIGINT handler ours stands in front of
        self._sigint_ours: Any = None
        self._watchdog: _Watchdog | None = None
        self._jobs: queue.SimpleQueue[_Job | None] = queue.SimpleQueue()
        self._worker: threading.Thread | None = None
        # Every connection's socket, so a cancel can end a read blocked on any of them.
        self._sockets: weakref.WeakSet[socket.socket] = weakref.WeakSet()

    _sync = True

    def _new_client(self, options: dict[str, Any]) -> Any:
        """A sync client: this session's sends run on its worker thread or hold the loop."""
        return httpx.Client(**options)

    async def send(
        self,
        rendered: RenderedRequest,
        progress: Progress | None = None,
        *,
        hold_loop: bool = False,
    ) -> Exchange:
        attempt = _Attempt(rendered, self.max_body_in_memory, progress)
        if hold_loop and self._may_hold(attempt):
            task = asyncio.current_task()
            if task is not None and task.cancelling():
                # Cancelled between two held sends (a ctrl+c while no send held the loop):
                # sends that never wait would not let the cancel in, so it goes in here.
                await asyncio.sleep(0)
            if self._send_held(attempt):
                await asyncio.sleep(0)  # the interrupt cancelled the run's task: it ends here
                raise asyncio.CancelledError
            return attempt.exchange()
        return await self._run(attempt)

    def _may_hold(self, attempt: _Attempt) -> bool:
        """Whether this send may run on the loop's thread: the session is alone on the loop,
        nothing watches the body, and ctrl+c can reach the send (the main thread, a Python
        SIGINT handler to stand in front of)."""
        if not self.alone or attempt.sink is not None:
            return False
        if self._sigint_ours is not None:  # in front of the loop's handler until aclose
            return True
        if threading.current_thread() is not threading.main_thread():
            return False
        prior = signal.getsignal(signal.SIGINT)
        if not callable(prior):
            return False
        self._sigint_ours = self._on_sigint
        signal.signal(signal.SIGINT, self._sigint_ours)
        self._sigint_prior = prior
        return True

    def _on_sigint(self, signum: int, frame: Any) -> None:
        """Ctrl-C: the handler before ours hears it (asyncio's cancels the run's task); a send
        holding the loop is ended at once, wherever it waits."""
        holding, self._holding = self._holding, False
        self._sigint_prior(signum, frame)
        if holding:
            raise _Interrupted

    def _release_sigint(self) -> None:
        if self._sigint_ours is None:
            return
        with contextlib.suppress(ValueError):  # not the main thread: nothing to put back
            if signal.getsignal(signal.SIGINT) is self._sigint_ours:
                signal.signal(signal.SIGINT, self._sigint_prior)
        self._sigint_ours = self._sigint_prior = None

    def _send_held(self, attempt: _Attempt) -> bool:
        """The send on this thread, its deadline kept by the watchdog; ``True`` when ctrl+c
        ended it (its connection let go, its spooled file removed)."""
        job = _Job(attempt)
        timeout = attempt.rendered.settings.timeout
        watchdog = None
        if timeout and timeout > 0:
            if self._watchdog is None:
                self._watchdog = _Watchdog(self._expire)
            watchdog = self._watchdog
        try:
            self._holding = True
            if watchdog is not None:
                watchdog.arm(job, time.monotonic() + timeout)
            self._send(job)
        except _Interrupted:
            job.cancelled = True
        except BaseException:
            job.cancelled = True
            raise
        finally:
            self._holding = False
            if watchdog is not None:
                watchdog.disarm()
            if job.cancelled:
                attempt.t_end = time.perf_counter()
                if attempt.response is not None:
                    with contextlib.suppress(Exception):
                        attempt.response.close()
                attempt.drop_spool(keep_spool=False)
                attempt.progress.phase = "done"
        return job.cancelled

    async def aclose(self) -> None:
        self._release_sigint()
        if self._watchdog is not None:
            self._watchdog.close()
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
        future = loop.create_future()
        job = _Job(attempt, loop, future)
        finished = job.finished
        assert finished is not None
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
            await future
        except asyncio.CancelledError:
            job.cancelled = True
            self._shut_sockets()
            finished.wait(self.CANCEL_WAIT)  # brief: the worker's read has just ended
            raise
        finally:
            for handle in (watchdog, limit):
                if handle is not None:
                    handle.cancel()
        return attempt.exchange()

    def _expire(self, job: _Job) -> None:
        """The deadline passed (on the loop, or in the watchdog for a held send)."""
        if not job.done:
            job.expired = job.attempt.stage  # before the shut socket moves the send on
            job.cut = job.attempt.reading  # the body was still arriving
            self._shut_sockets()

    def _stop(self, job: _Job) -> None:
        """A stream's stop while the worker waits (for a chunk, or the response): the wait
        ends. Between chunks, the body loop sees the stop by itself."""
        attempt = job.attempt
        if not job.done and (attempt.reading or attempt.response is None):
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
                job.done = True
                loop, future, finished = job.loop, job.future, job.finished
                assert loop is not None and future is not None and finished is not None
                finished.set()
                with contextlib.suppress(RuntimeError):  # the loop is gone (Ctrl-C)
                    loop.call_soon_threadsafe(_settle, future)

    def _send(self, job: _Job) -> None:
        attempt = job.attempt
        # The trace reaches the attempt through this list, emptied once the send is over:
        # httpx's response and its stream hold each other, and so the request and its trace,
        # until the garbage collector comes; the attempt and its body are freed at once.
        held = [attempt]
        try:
            self._transfer_sync(attempt, self._trace(held))
        except Exception as exc:  # anything unforeseen still becomes an Exchange
            attempt.fail("other", f"{type(exc).__name__}: {exc}")
        finally:
            held.clear()
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

    def _trace(self, held: list[_Attempt]) -> Any:
        def trace(event: str, info: dict[str, Any]) -> None:
            step = traced_step(event)
            if step is None or not held:
                return
            attempt = held[0]
            if step == "connect_tcp.complete" or step == "start_tls.complete":
                stream = info.get("return_value")
                sock = stream.get_extra_info("socket") if stream is not None else None
                if sock is not None:
                    self._sockets.add(sock)
            elif step == "start_tls.started" and attempt.deadline is not None:
                # httpcore gives the handshake the connect limit it read before connecting;
                # these are the arguments it is about to be called with.
                info["timeout"] = max(attempt.deadline - time.monotonic(), _LEAST_WAIT)
            attempt.on_step(step)

        return trace

    def _transfer_sync(self, attempt: _Attempt, trace: Any) -> None:
        prepared = self._prepare(attempt, trace)
        if prepared is None:
            return
        client, request, timeout = prepared
        if timeout is not None:
            attempt.deadline = time.monotonic() + timeout
            request.extensions["timeout"] = _TimeLeft(attempt.deadline)
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
