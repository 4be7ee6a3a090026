"""Send a RenderedRequest with httpx and record what happened as an :class:`Exchange` (DESIGN §7).

Transport failures never raise: a refused connection, a failed DNS lookup, a TLS problem, a
timeout or a connection dropped mid-body all become an ``Exchange`` whose ``error`` is one
clear line, so the app and ``pigeon run`` show the failure like any other result.

The request's timeout is one deadline for the whole exchange (connect, TLS, 1xx responses,
every redirect hop and the body), kept by ``asyncio.timeout`` around the transfer: httpx's own
limits are per read, so a server trickling a byte at a time would stretch them forever. The
message names the stage the deadline fell in, tracked from httpcore's trace events.

Bodies are streamed. The first ``max_body_in_memory`` bytes stay in memory; the rest is
spooled to a temporary file, so a 1 GB download never sits whole in memory.

Why one module: the checks before a send, the record of one attempt (trace marks, body,
spool) and the one-line messages for its failures are one exchange's life, which
``send_thread`` (the same send on httpx's sync client) reuses whole.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
import ssl
import tempfile
import time
import weakref
from collections.abc import Generator, Iterator
from datetime import datetime, timezone
from pathlib import Path
from types import TracebackType
from typing import IO, Any
from urllib.parse import urlsplit

import httpx

from pigeon import __version__, cookies
from pigeon.auth_flows import flow_for
from pigeon.exchange import (  # noqa: F401  (send is where callers have always found them)
    STATUS_CLASSES,
    ErrorKind,
    Exchange,
    Progress,
    Timings,
    status_class,
)
from pigeon.proxies import client_options, proxy_for
from pigeon.redirects import RedirectCredentials
from pigeon.render import RenderedRequest, control_character
from pigeon.tls import TLSSetupError, shared_verify, ssl_context
from pigeon.transport import TransportSpec
from pigeon.values import is_token

_DEFAULT_SPEC = TransportSpec()
DEFAULT_MAX_BODY_IN_MEMORY = 32 * 1024 * 1024
DEFAULT_MAX_REDIRECTS = 20
# Connections a client keeps open between sends (httpx keeps 20): a profile's 64 sends at
# once (``pigeon.profile.MAX_AT_ONCE``) each reuse theirs, so no latency pays for a new one.
KEEP_ALIVE = 64
# A watched body lets the event loop run something else at least this often (seconds).
_TURN = 0.01
# A redirect's own body is read (so the connection can be reused) up to this size.
_REDIRECT_BODY_LIMIT = 1024 * 1024


def _unlink_quietly(path: str) -> None:
    with contextlib.suppress(OSError):
        os.unlink(path)


def _charset_of(content_type: str | None) -> str | None:
    if not content_type:
        return None
    for part in content_type.split(";")[1:]:
        key, _, value = part.partition("=")
        if key.strip().lower() == "charset":
            return value.strip().strip('"').strip("'") or None
    return None


def _format_seconds(seconds: float) -> str:
    text = f"{seconds:.1f}"
    return text if float(text) == seconds else f"{seconds:g}"


def _decode_header(data: bytes) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("latin-1")


def _host_port(url: str) -> str:
    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError:
        return url
    if ":" in host:
        host = f"[{host}]"
    return f"{host}:{port}"


def _hostname(url: str) -> str:
    try:
        return urlsplit(url).hostname or url
    except ValueError:
        return url


def _causes(exc: BaseException) -> Iterator[BaseException]:
    """The exception, its causes and contexts, and members of exception groups."""
    seen: set[int] = set()
    todo: list[BaseException] = [exc]
    while todo:
        current = todo.pop(0)
        if id(current) in seen:
            continue
        seen.add(id(current))
        yield current
        if isinstance(current, BaseExceptionGroup):
            todo.extend(current.exceptions)
        if current.__cause__ is not None:
            todo.append(current.__cause__)
        if current.__context__ is not None:
            todo.append(current.__context__)


def _content(rendered: RenderedRequest, progress: Progress, sync: bool = False) -> Any:
    """The body for httpx: the rendered bytes, or a file body streamed from disk (its length
    said up front, not chunked; read again from its start when a redirect re-sends it)."""
    body = rendered.body_file
    if body is None:
        return rendered.body
    progress.bytes_to_send = body.size
    return body.stream(progress.sent, sync=sync)


def _check_headers(headers: list[tuple[str, str]]) -> str | None:
    for name, value in headers:
        if not is_token(name):
            return f"Invalid header name {name!r}: nothing was sent"
        what = control_character(value)
        if what is not None:
            return f"Header {name} contains {what}: nothing was sent"
    return None


def _encode_headers(headers: list[tuple[str, str]]) -> list[tuple[bytes, bytes]]:
    """Names are ASCII tokens; values go as ASCII, or UTF-8 when they need it (as curl does)."""
    return [(name.encode("ascii"), value.strip(" \t").encode("utf-8")) for name, value in headers]


_TRACED = frozenset(
    {
        "connect_tcp.started",
        "connect_tcp.complete",
        "start_tls.started",
        "start_tls.complete",
        "send_request_headers.started",
        "receive_response_headers.started",
        "receive_response_headers.complete",
    }
)

# httpcore's event names ("http11.send_request_headers.started") to the step they name when
# it is one of ``_TRACED``, else None: learned once each, so the other events cost a lookup.
_STEP_OF: dict[str, str | None] = {}


def traced_step(event: str) -> str | None:
    """The step of a trace event that matters here, ``None`` for the others."""
    try:
        return _STEP_OF[event]
    except KeyError:
        step: str | None = event[event.find(".") + 1 :]
        _STEP_OF[event] = step = step if step in _TRACED else None
        return step


# Where a send is, for the message of a timeout: set from these trace events and by the loop
# over the hops (``HttpSession._exchange``).
_STAGES = {
    "connect_tcp.started": "connecting",
    "start_tls.started": "tls",
    "send_request_headers.started": "sending",
    "receive_response_headers.started": "waiting",
}


class _Attempt:
    """Everything learned during one send, so a cancelled or failed send still reports it."""

    def __init__(self, rendered: RenderedRequest, cap: int, progress: Progress | None) -> None:
        self.rendered = rendered
        self.cap = cap
        self.progress = progress if progress is not None else Progress()
        self.sink = self.progress.sink
        self.reading = False  # in the body loop: a stop asked for now must end a read
        self.started_at = datetime.now(timezone.utc)
        self.t0 = time.perf_counter()
        self.t_end: float | None = None
        self.request: httpx.Request | None = None
        self.response: httpx.Response | None = None
        self.redirects: list[tuple[int, str]] = []
        self.warnings: list[str] = []
        self.buffer = bytearray()
        self.body_size = 0
        self.spool: IO[bytes] | None = None
        self.spool_path: str | None = None
        self.error: str | None = None
        self.error_kind: ErrorKind | None = None
        self.stage = "connecting"  # connecting, tls, sending, waiting, redirect, receiving
        self.deadline: float | None = None  # time.monotonic()'s, on httpx's sync client
        # Timing marks from httpcore's trace extension.
        self.connect_ms: float | None = None
        self.tls_ms: float | None = None
        self._marks: dict[str, float] = {}
        self.t_headers_sent: float | None = None
        self.t_headers_received: float | None = None

    async def trace(self, event: str, info: dict[str, Any]) -> None:
        """httpcore's async trace hook."""
        self.on_trace(event, info)

    def on_trace(self, event: str, info: dict[str, Any]) -> None:
        """httpcore calls this about ten times a request: only a few events matter here."""
        step = traced_step(event)
        if step is not None:
            self.on_step(step)

    def on_step(self, step: str) -> None:
        now = time.perf_counter()
        self.stage = _STAGES.get(step, self.stage)
        if step == "send_request_headers.started":
            self.t_headers_sent = now
            self.progress.phase = "waiting"
        elif step == "receive_response_headers.started":
            return  # the stage is all it tells
        elif step == "receive_response_headers.complete":
            self.t_headers_received = now
        elif step.endswith(".started"):
            self._marks[step] = now
        else:  # connect_tcp / start_tls complete: summed, a redirect may connect again
            begun = self._marks.pop(step.replace(".complete", ".started"), None)
            if begun is None:
                return
            elapsed = (now - begun) * 1000
            if step == "connect_tcp.complete":
                self.connect_ms = (self.connect_ms or 0.0) + elapsed
            else:
                self.tls_ms = (self.tls_ms or 0.0) + elapsed

    def add(self, chunk: bytes) -> bool:
        """Record a chunk of the body; ``True`` when the stream's sink says to stop."""
        self._keep(chunk)
        return self.sink is not None and self.sink.feed(chunk)

    def _keep(self, chunk: bytes) -> None:
        self.body_size += len(chunk)
        self.progress.bytes_received = self.body_size
        if self.spool is not None:
            self.spool.write(chunk)
            return
        room = self.cap - len(self.buffer)
        if len(chunk) <= room:
            self.buffer += chunk
            return
        # Too big for memory: the whole body goes to disk, the first ``cap`` bytes stay here.
        fh = tempfile.NamedTemporaryFile(prefix="pigeon-", suffix=".body", delete=False)  # noqa: SIM115
        self.spool, self.spool_path = fh, fh.name
        fh.write(self.buffer)
        fh.write(chunk)
        self.buffer += chunk[:room]

    def fail(self, kind: ErrorKind, message: str) -> None:
        self.error_kind, self.error = kind, message

    def stopped_early(self) -> None:
        """A stop ended a wait: what arrived is the exchange, not an error; with no response
        yet, nothing arrived and it says so."""
        self.reading = False
        if self.response is not None and self.stage == "receiving":
            self.error = self.error_kind = None
            return
        reason = self.sink.stopped if self.sink is not None else "stopped"
        self.fail("cancelled", f"{reason[:1].upper()}{reason[1:]} before the response")

    # One exchange's steps, the same for the async and the sync client: each loop does the I/O
    # between them.

    def sending(self, request: httpx.Request) -> None:
        self.request = request
        self.progress.phase = "connecting"
        self.stage = "connecting"

    def answered(self, response: httpx.Response) -> httpx.Request | None:
        """Record a response; the redirect to follow, ``None`` when this is the final one."""
        self.response = response
        self.progress.status = response.status_code
        for name in cookies.refused(response.request.extensions):
            self.warnings.append(
                f"cookie {name!r} from {_hostname(str(response.url))} not kept: "
                "a cookie is printable ASCII, without ;"
            )
        next_request = response.next_request
        if not self.rendered.settings.follow_redirects or next_request is None:
            return None
        self.redirects.append((response.status_code, str(response.url)))
        self.stage = "redirect"
        return next_request

    def follow(
        self,
        credentials: RedirectCredentials,
        request: httpx.Request,
        next_request: httpx.Request,
        max_redirects: int,
    ) -> bool:
        """Whether to send ``next_request`` (its credentials set by the redirect rules); a
        failure when the redirects are too many."""
        if len(self.redirects) > max_redirects:
            self.fail("redirects", f"Too many redirects (max {max_redirects})")
            return False
        note = credentials.follow(request, next_request)
        if note:
            self.warnings.append(note)
        if not self.rendered.settings.send_cookies:
            _no_jar_cookies(self.rendered, next_request)
        return True

    def receiving(self, response: httpx.Response) -> None:
        self.progress.phase = "receiving"
        self.stage = "receiving"
        length = response.headers.get("content-length", "")
        self.progress.content_length = int(length) if length.isdigit() else None
        sink = self.sink
        if sink is not None:
            kind = response.headers.get("content-type", "")
            if sink.start(kind, response.charset_encoding, self.buffer) == "events":
                sink.head = self.exchange()  # status and headers, for per-event scripts
        self.reading = True

    async def close(self, *, keep_spool: bool) -> None:
        if self.response is not None:
            with contextlib.suppress(Exception):
                await self.response.aclose()
        self.drop_spool(keep_spool=keep_spool)

    def drop_spool(self, *, keep_spool: bool) -> None:
        """Close the spooled body's file; unless it is kept, remove it."""
        if self.spool is not None:
            with contextlib.suppress(OSError):
                self.spool.close()
            self.spool = None
        if not keep_spool and self.spool_path is not None:
            _unlink_quietly(self.spool_path)
            self.spool_path = None

    def exchange(self) -> Exchange:
        end = self.t_end if self.t_end is not None else time.perf_counter()
        rendered = self.rendered
        ex = Exchange(
            request=rendered,
            method=rendered.method,
            url=rendered.url,
            started_at=self.started_at,
            redirects=list(self.redirects),
            warnings=list(self.warnings),
            error=self.error,
            error_kind=self.error_kind,
        )
        if self.request is not None:
            ex.method = self.request.method
            ex.url = str(self.request.url)
            ex.sent_headers = [
                (_decode_header(k), _decode_header(v)) for k, v in self.request.headers.raw
            ]
        ttfb = download = None
        if self.t_headers_sent is not None and self.t_headers_received is not None:
            ttfb = (self.t_headers_received - self.t_headers_sent) * 1000
            download = (end - self.t_headers_received) * 1000
        ex.timings = Timings(
            total_ms=(end - self.t0) * 1000,
            connect_ms=self.connect_ms,
            tls_ms=self.tls_ms,
            ttfb_ms=ttfb,
            download_ms=download,
        )
        response = self.response
        if response is not None:
            ex.status = response.status_code
            ex.reason = response.reason_phrase
            ex.http_version = response.http_version
            encoding = response.headers.encoding
            ex.headers = [
                (k.decode(encoding, errors="replace"), v.decode(encoding, errors="replace"))
                for k, v in response.headers.raw
            ]
            ex.headers_size = len(f"{ex.http_version} {ex.status} {ex.reason}\r\n") + 2
            ex.headers_size += sum(len(k) + len(v) + 4 for k, v in response.headers.raw)
            ex.charset = _charset_of(response.headers.get("content-type"))
            ex.wire_body_size = response.num_bytes_downloaded
        ex.body = bytes(self.buffer)
        ex.body_size = self.body_size
        ex.truncated = self.body_size > len(self.buffer)
        ex.cut_off = self.error is not None and self.stage == "receiving"
        sink = self.sink
        if sink is not None:
            ex.stopped = sink.stopped if self.error is None else ""
            if sink.kind == "events":
                ex.events = list(sink.events)
        if self.spool_path is not None:
            ex.body_path = Path(self.spool_path)
            ex._cleanup = weakref.finalize(ex, _unlink_quietly, self.spool_path)
            self.spool_path = None
        return ex


class SendHandle:
    """A send running in its own task that the UI can cancel.

    ``await handle`` gives the Exchange; after ``cancel()`` that Exchange has error
    "Cancelled" (with whatever had arrived). If the awaiting task is itself cancelled, the
    send is cancelled too and CancelledError propagates as usual.
    """

    def __init__(self, session: HttpSession, rendered: RenderedRequest) -> None:
        self.progress = Progress()
        self._attempt = _Attempt(rendered, session.max_body_in_memory, self.progress)
        self._cancel_requested = False
        self._task = asyncio.ensure_future(session._run(self._attempt))

    def cancel(self) -> None:
        self._cancel_requested = True
        self._task.cancel()

    def done(self) -> bool:
        return self._task.done()

    async def wait(self) -> Exchange:
        try:
            return await self._task
        except asyncio.CancelledError:
            current = asyncio.current_task()
            if self._cancel_requested and (current is None or current.cancelling() == 0):
                self._attempt.fail("cancelled", "Cancelled")
                return self._attempt.exchange()
            self._task.cancel()
            raise

    def __await__(self) -> Generator[Any, None, Exchange]:
        return self.wait().__await__()


class HttpSession:
    """One per collection session: the httpx clients, their connection pools and cookie jar.

    httpx fixes TLS verification per client, so requests with ``verify_tls = false`` go
    through a second client, created on first use, that shares the cookie jar.
    """

    def __init__(
        self,
        *,
        max_body_in_memory: int = DEFAULT_MAX_BODY_IN_MEMORY,
        max_redirects: int = DEFAULT_MAX_REDIRECTS,
        http2: bool = True,
        verify: ssl.SSLContext | bool = True,
        trust_env: bool = True,
        user_agent: str = f"pigeon/{__version__}",
    ) -> None:
        self.max_body_in_memory = max_body_in_memory
        self.max_redirects = max_redirects
        self.cookie_jar = cookies.new_jar()
        self._options: dict[str, Any] = {
            "http2": http2,
            "trust_env": trust_env,
            "headers": {"User-Agent": user_agent},
            "cookies": self.cookie_jar,
            "max_redirects": max_redirects,
            "limits": httpx.Limits(max_connections=100, max_keepalive_connections=KEEP_ALIVE),
        }
        self._verify = verify
        self._clients: dict[tuple[bool, TransportSpec], httpx.AsyncClient] = {}
        self._making = asyncio.Lock()  # one client made at a time, so none is made twice
        self._closed = False

    def _client(self, verify_tls: bool, spec: TransportSpec = _DEFAULT_SPEC) -> httpx.AsyncClient:
        """The session's client for verified or unverified TLS and one transport spec (proxy,
        trust, client certificate), made on first use. ``TLSSetupError`` when the spec's
        files cannot be used."""
        if self._closed:
            raise RuntimeError("the HTTP session is closed")
        key = (verify_tls, spec)
        client = self._clients.get(key)
        if client is None:
            if spec.default:
                verify = self._verify if verify_tls else False
                verify = shared_verify(
                    verify, http2=self._options["http2"], trust_env=self._options["trust_env"]
                )
            else:
                verify = ssl_context(spec, verify_tls)
            options = client_options(
                spec,
                verify,
                sync=self._sync,
                http2=self._options["http2"],
                trust_env=self._options["trust_env"],
            )
            client = self._new_client({**self._options, **options, "verify": verify})
            self._clients[key] = client
        return client

    _sync = False  # whether _new_client makes sync clients (pigeon run's threaded session)

    def _new_client(self, options: dict[str, Any]) -> httpx.AsyncClient:
        return httpx.AsyncClient(**options)

    async def aclose(self) -> None:
        self._closed = True
        clients, self._clients = list(self._clients.values()), {}
        for client in clients:
            await client.aclose()

    async def __aenter__(self) -> HttpSession:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    async def send(
        self,
        rendered: RenderedRequest,
        progress: Progress | None = None,
        *,
        hold_loop: bool = False,
    ) -> Exchange:
        """Send and return the Exchange; transport failures are recorded, not raised.

        If the awaiting task is cancelled, the response is closed, any spooled file removed,
        and CancelledError propagates. ``hold_loop``: the caller has nothing else for the event
        loop to do until this send is over, so a session that sends faster by holding it may
        (``ThreadedSession``); this one never does.
        """
        return await self._run(_Attempt(rendered, self.max_body_in_memory, progress))

    def send_cancellable(self, rendered: RenderedRequest) -> SendHandle:
        """Start a send in its own task; ``handle.cancel()`` yields an error "Cancelled"."""
        return SendHandle(self, rendered)

    async def _run(self, attempt: _Attempt) -> Exchange:
        sink = attempt.sink
        task = asyncio.current_task()
        timer = None
        if sink is not None and task is not None:
            loop = asyncio.get_running_loop()
            sink.on_stop = lambda: loop.call_soon_threadsafe(_stop_reading, attempt, task)
            if sink.max_seconds is not None:
                timer = loop.call_later(sink.max_seconds, sink.stop, "max_seconds")
        try:
            await self._transfer(attempt)
        except asyncio.CancelledError:
            stopped = sink is not None and sink.stop_reason is not None
            if not (stopped and task is not None and task.uncancel() == 0):
                attempt.t_end = time.perf_counter()
                await attempt.close(keep_spool=False)
                raise
            attempt.stopped_early()
        except Exception as exc:  # anything unforeseen still becomes an Exchange
            attempt.fail("other", f"{type(exc).__name__}: {exc}")
        finally:
            if timer is not None:
                timer.cancel()
            if sink is not None:
                sink.on_stop = None
        attempt.t_end = time.perf_counter()
        await attempt.close(keep_spool=True)  # a body cut off by an error is kept whole too
        attempt.progress.phase = "done"
        return attempt.exchange()

    async def _transfer(self, attempt: _Attempt) -> None:
        await self._make_client(attempt.rendered)
        prepared = self._prepare(attempt, attempt.trace)
        if prepared is None:
            return
        client, request, timeout = prepared
        try:
            async with asyncio.timeout(timeout):
                await self._exchange(attempt, client, request)
        except TimeoutError:
            attempt.fail("timeout", _timed_out(attempt))

    async def _make_client(self, rendered: RenderedRequest) -> None:
        """Make the client a send needs in a thread: loading the CA bundle takes 20-50 ms,
        which the event loop (the app's) spends answering keys instead."""
        key = (rendered.settings.verify_tls, rendered.transport)
        if key in self._clients or self._closed:
            return
        async with self._making:
            if key not in self._clients and not self._closed:
                with contextlib.suppress(TLSSetupError):  # _prepare says it, in one line
                    await asyncio.to_thread(self._client, *key)

    def _prepare(
        self, attempt: _Attempt, trace: Any
    ) -> tuple[Any, httpx.Request, float | None] | None:
        """The client, the first request and the deadline in seconds (``None``: none); or
        ``None`` when the request cannot be sent (``attempt`` says why)."""
        rendered = attempt.rendered
        settings = rendered.settings
        if not rendered.url.strip():
            attempt.fail("invalid", "The request has no URL")
            return None
        problem = _check_headers(rendered.headers)
        if problem:
            attempt.fail("invalid", problem)
            return None
        scheme = urlsplit(rendered.url).scheme.lower() if "://" in rendered.url else ""
        if scheme not in ("http", "https"):
            attempt.fail("invalid", _unsupported_scheme(rendered.url))
            return None
        if self._closed:
            attempt.fail("other", "The HTTP session is closed")
            return None
        timeout = settings.timeout if settings.timeout and settings.timeout > 0 else None
        try:
            client = self._client(settings.verify_tls, rendered.transport)
        except TLSSetupError as exc:
            attempt.fail("tls", str(exc))
            return None
        attempt.t0 = time.perf_counter()  # creating a client (TLS setup) is not the request's time
        headers = _encode_headers(rendered.headers)
        content = _content(rendered, attempt.progress, self._sync)
        if rendered.body_file is not None and rendered.header("Content-Length") is None:
            headers.append((b"Content-Length", str(rendered.body_file.size).encode()))
        try:
            request = client.build_request(
                rendered.method,
                rendered.url,
                headers=headers,
                content=content,
                # httpx's per-phase limits stay as a backstop; the deadline below comes first.
                timeout=httpx.Timeout(timeout),
                extensions={"trace": trace},
            )
        except httpx.UnsupportedProtocol:
            attempt.fail("invalid", _unsupported_scheme(rendered.url))
            return None
        except (httpx.InvalidURL, ValueError, TypeError) as exc:
            attempt.fail("invalid", f"Invalid URL {rendered.url!r}: {exc}")
            return None
        if not settings.send_cookies:
            _no_jar_cookies(rendered, request)
        return client, request, timeout

    async def _exchange(
        self, attempt: _Attempt, client: httpx.AsyncClient, request: httpx.Request
    ) -> None:
        """Every hop and the final body, recorded in ``attempt``; the deadline is the caller's."""
        credentials = RedirectCredentials(attempt.rendered)
        flow = flow_for(attempt.rendered)
        try:
            while True:
                attempt.sending(request)
                response = await client.send(
                    request, stream=True, follow_redirects=False, auth=credentials.auth(flow)
                )
                next_request = attempt.answered(response)
                if next_request is None:
                    break
                await _drain(response)
                await response.aclose()
                if not attempt.follow(credentials, request, next_request, self.max_redirects):
                    return
                request = next_request
            attempt.receiving(response)
            watched = attempt.sink is not None
            turn = time.perf_counter() + _TURN
            async for chunk in response.aiter_bytes():
                if attempt.add(chunk):
                    break
                if watched and (now := time.perf_counter()) > turn:
                    # A fast stream never waits on its socket, so it would never let the loop
                    # run anything else: whoever watches it (the UI) gets a turn.
                    await asyncio.sleep(0)
                    turn = now + _TURN
            attempt.reading = False
        except httpx.HTTPError as exc:
            kind, message = _describe(exc, attempt)
            attempt.fail(kind, message)
        except Exception as exc:
            if not _describable(exc):
                raise
            attempt.fail(*_describe_os(exc, attempt))


def _stop_reading(attempt: _Attempt, task: asyncio.Task[Any]) -> None:
    """A stop asked for while the send waits (for the next chunk, or for the response):
    the wait ends. Between chunks, the body loop sees the stop by itself."""
    if (attempt.reading or attempt.response is None) and not task.done():
        task.cancel()


async def _drain(response: httpx.Response) -> None:
    """Read a redirect's body (bounded) so its connection can be reused."""
    read = 0
    async for chunk in response.aiter_raw():
        read += len(chunk)
        if read > _REDIRECT_BODY_LIMIT:
            break


def _no_jar_cookies(rendered: RenderedRequest, request: httpx.Request) -> None:
    """``send_cookies = false``: the jar's cookies stay home; a hand-set Cookie still goes."""
    if rendered.header("Cookie") is None:
        request.headers.pop("Cookie", None)


def _unsupported_scheme(url: str) -> str:
    scheme = urlsplit(url).scheme if "://" in url else ""
    if not scheme:
        return f"URL {url!r} has no scheme: start it with http:// or https://"
    return f"Unsupported URL scheme {scheme!r}: use http or https"


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


def _timed_out(attempt: _Attempt) -> str:
    """The deadline's message: the stage it fell in, what had arrived, the hops followed."""
    url = str(attempt.request.url) if attempt.request is not None else attempt.rendered.url
    where = {
        "connecting": f"while connecting to {_host_port(url)}",
        "tls": f"during the TLS handshake with {_host_port(url)}",
        "sending": "while sending the request",
        "waiting": "waiting for the response headers",
        "redirect": "while reading a redirect's body",
        "receiving": f"while reading the body, {_count(attempt.body_size, 'byte')} in",
    }[attempt.stage]
    hops = len(attempt.redirects)
    after = f", after {_count(hops, 'redirect')}" if hops else ""
    seconds = _format_seconds(attempt.rendered.settings.timeout)
    return f"Timed out after {seconds} s {where}{after}"


def _describe(exc: httpx.HTTPError, attempt: _Attempt) -> tuple[ErrorKind, str]:
    """One clear line for a transport failure, and its kind."""
    url = str(attempt.request.url) if attempt.request is not None else attempt.rendered.url
    got_headers = attempt.response is not None and attempt.progress.phase == "receiving"
    received = attempt.response.num_bytes_downloaded if attempt.response is not None else 0

    if isinstance(exc, httpx.TimeoutException):
        return "timeout", _timed_out(attempt)

    if isinstance(exc, httpx.ConnectError | httpx.ProxyError):
        proxy = proxy_for(attempt.rendered.transport, url)
        for cause in _causes(exc):
            if isinstance(cause, ssl.SSLCertVerificationError):
                reason = cause.verify_message or str(cause)
                return "tls", _tls_unverified(url, reason)
            if isinstance(cause, ssl.SSLError):
                reason = cause.reason or str(cause)
                return "tls", f"TLS handshake with {_hostname(url)} failed: {reason}"
            if isinstance(cause, socket.gaierror | ConnectionRefusedError) and proxy:
                return _unreachable_proxy(cause, proxy)
            if isinstance(cause, socket.gaierror):
                return "dns", f"DNS lookup failed for host {_hostname(url)}"
            if isinstance(cause, ConnectionRefusedError):
                return "connect", f"Connection refused: {_host_port(url)}"
        text = str(exc)
        if "CERTIFICATE_VERIFY_FAILED" in text:
            return "tls", _tls_unverified(url, text)
        if "Name or service not known" in text or "nodename nor servname" in text:
            return "dns", f"DNS lookup failed for host {_hostname(url)}"
        if "refused" in text.lower():
            if proxy:
                return "connect", f"Connection refused by the proxy {proxy}"
            return "connect", f"Connection refused: {_host_port(url)}"
        if isinstance(exc, httpx.ProxyError):
            where = f"The proxy {proxy}" if proxy else "The proxy"
            return "connect", f"{where} did not take the request for {_host_port(url)}: {text}"
        return "connect", f"Could not connect to {_host_port(url)}: {text or type(exc).__name__}"

    if isinstance(exc, httpx.TooManyRedirects):  # redirects are followed here, not by httpx
        return "redirects", f"Too many redirects: {exc}"

    if isinstance(exc, httpx.DecodingError):
        return "protocol", f"Could not decode the response body: {exc}"

    if isinstance(exc, httpx.RemoteProtocolError | httpx.ReadError):
        text = str(exc)
        if got_headers:
            return "read", f"Server closed the connection mid-body after {received} bytes"
        if "without sending" in text or isinstance(exc, httpx.ReadError):
            detail = f": {text}" if isinstance(exc, httpx.ReadError) and text else ""
            return "read", f"Server closed the connection without sending a response{detail}"
        return "protocol", f"Protocol error: {text}"

    if isinstance(exc, httpx.WriteError):
        return "read", f"Connection lost while sending the request: {exc}"

    if isinstance(exc, httpx.LocalProtocolError):
        return "invalid", f"Invalid request: {exc}"

    if isinstance(exc, httpx.UnsupportedProtocol):
        return "invalid", _unsupported_scheme(url)

    if isinstance(exc, httpx.InvalidURL):
        return "invalid", f"Invalid URL: {exc}"

    return "other", f"{type(exc).__name__}: {exc}"


def _tls_unverified(url: str, reason: str) -> str:
    return (
        f"TLS verification failed for {_hostname(url)}: {reason} (a private CA: name it in "
        "ca_bundle; or verify_tls = false)"
    )


def _unreachable_proxy(cause: BaseException, proxy: str) -> tuple[ErrorKind, str]:
    """The connection to the proxy itself failed: its name or its port."""
    if isinstance(cause, socket.gaierror):
        return "dns", f"DNS lookup failed for the proxy {proxy}"
    return "connect", f"Connection refused by the proxy {proxy}: check its address in proxy"


def _describe_os(exc: Exception, attempt: _Attempt) -> tuple[ErrorKind, str]:
    """One line for a failure outside httpx's own errors: a socket's, or a SOCKS proxy's
    (python-socks raises its own, around the socket error that caused them)."""
    url = str(attempt.request.url) if attempt.request is not None else attempt.rendered.url
    proxy = proxy_for(attempt.rendered.transport, url)
    socks = type(exc).__module__.startswith("python_socks")
    if socks:
        for cause in _causes(exc):
            if cause is not exc and isinstance(cause, socket.gaierror | ConnectionRefusedError):
                return _unreachable_proxy(cause, proxy or "")
        if isinstance(exc, TimeoutError):
            return "timeout", f"The proxy {proxy} did not answer in time"
        reason = str(exc.args[0] if exc.args else exc) or type(exc).__name__
        return "connect", f"The proxy {proxy} could not reach {_host_port(url)}: {reason}"
    if isinstance(exc, socket.gaierror):
        if proxy and proxy.startswith("socks5://"):
            return "dns", (
                f"DNS lookup failed for host {_hostname(url)} (looked up here, not by the "
                "proxy: socks5h:// has the proxy look names up)"
            )
        return "dns", f"DNS lookup failed for host {_hostname(url)}"
    if isinstance(exc, OSError):
        return "other", f"{exc.strerror or exc}"
    return "other", f"{type(exc).__name__}: {exc}"


def _describable(exc: Exception) -> bool:
    """Whether ``_describe_os`` says what ``exc`` means (else it is a defect, said as one)."""
    return isinstance(exc, OSError) or type(exc).__module__.startswith("python_socks")
