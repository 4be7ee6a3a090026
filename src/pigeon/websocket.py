"""A WebSocket connection (DESIGN §7): the handshake over the collection's transport, the
frames sent and received, ping, close, and a bounded log of it all.

The handshake is an HTTP/1.1 GET through ``httpx-ws`` on an httpx client made like the HTTP
session's (proxy, CA bundle, client certificate, ``verify_tls``), so a request's headers,
auth and query apply as they are rendered for HTTP. The connection lives in one task
(``WebSocketLink.run``); other tasks send, ping and close through it.

Hostile servers are normal: the log keeps the last ``max_frames`` frames and at most
``frame_cap`` bytes of each (a message of a gigabyte, or one that never ends, costs
``frame_cap``); every wait has a deadline, the request's timeout unless the caller gives one;
every failure is one line in ``error``.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal
from urllib.parse import urlsplit

from pigeon.exchange import MAX_FRAMES, Frame  # noqa: F401  (also known from here)
from pigeon.exchange import FrameKind as Kind
from pigeon.render import RenderedRequest

if TYPE_CHECKING:
    import httpx
    from httpx_ws import AsyncWebSocketSession

FRAME_CAP = 64 * 1024  # bytes of one frame's data the log keeps
CLOSE_WAIT = 5.0  # seconds the closing handshake may take at most

State = Literal["connecting", "open", "closing", "closed", "failed"]


@dataclass(slots=True)
class Handshake:
    """The server's answer to the upgrade request."""

    url: str = ""
    status: int | None = None
    reason: str = ""
    http_version: str = ""
    headers: list[tuple[str, str]] = field(default_factory=list)
    sent_headers: list[tuple[str, str]] = field(default_factory=list)
    subprotocol: str = ""
    elapsed_ms: float = 0.0


def http_url(url: str) -> str:
    """``ws://`` -> ``http://``, ``wss://`` -> ``https://``: the URL httpx sends the upgrade to."""
    scheme, sep, rest = url.partition("://")
    mapped = {"ws": "http", "wss": "https"}.get(scheme.lower())
    return f"{mapped}{sep}{rest}" if mapped and sep else url


def ws_url(url: str) -> str:
    """The URL as a WebSocket one, for display."""
    scheme, sep, rest = url.partition("://")
    mapped = {"http": "ws", "https": "wss"}.get(scheme.lower())
    return f"{mapped}{sep}{rest}" if mapped and sep else url


class _Accumulator:
    """A message's fragments, of which the first ``cap`` bytes (characters) are kept."""

    def __init__(self, cap: int) -> None:
        self.cap = cap
        self.parts: list[Any] = []
        self.kept = 0
        self.size = 0
        self.truncated = False

    def add(self, data: str | bytes) -> None:
        self.size += len(data.encode("utf-8", "replace")) if isinstance(data, str) else len(data)
        room = self.cap - self.kept
        if len(data) > room:
            data, self.truncated = data[:room], True
        if data:
            self.parts.append(data)
            self.kept += len(data)


@dataclass(slots=True)
class _Received:
    kind: Kind
    data: str | bytes
    size: int
    truncated: bool


def _session_class(cap: int) -> type[AsyncWebSocketSession]:
    """httpx-ws's session with a receive loop that keeps at most ``cap`` of each message
    (httpx-ws itself would join every fragment of a message, however many)."""
    import httpcore
    import wsproto.events as ev
    from httpx_ws import AsyncWebSocketSession, WebSocketNetworkError
    from httpx_ws._api import EndOfStream
    from wsproto.frame_protocol import CloseReason

    class CappedSession(AsyncWebSocketSession):
        async def _background_receive(self, max_bytes: int) -> None:
            partial: _Accumulator | None = None
            try:
                while not self._should_close.is_set():
                    data = await self._read_stream(max_bytes)
                    self.connection.receive_data(data)
                    for event in self.connection.events():
                        if isinstance(event, ev.Ping):
                            out = self.connection.send(event.response())
                            async with self._write_lock:
                                await self.stream.write(out)
                            continue
                        if isinstance(event, ev.Pong):
                            self._ping_manager.ack(event.payload)
                            continue
                        if isinstance(event, ev.Message):
                            partial = partial or _Accumulator(cap)
                            partial.add(event.data)
                            if event.message_finished:
                                kind: Kind = (
                                    "text" if isinstance(event, ev.TextMessage) else "binary"
                                )
                                joined = ("" if kind == "text" else b"").join(partial.parts)
                                got = _Received(kind, joined, partial.size, partial.truncated)
                                partial = None
                                # Not one of httpx-ws's events: its receive() hands it on
                                # as it is, and the link's loop reads it.
                                await self._send_event.send(got)  # type: ignore[arg-type]
                            continue
                        if isinstance(event, ev.CloseConnection):
                            self._should_close.set()
                        await self._send_event.send(event)
            except (httpcore.ReadError, httpcore.WriteError, EndOfStream):
                await self.close(CloseReason.INTERNAL_ERROR, "Stream error")
                await self._send_event.send(WebSocketNetworkError())

    return CappedSession


def _host_port(url: str) -> str:
    try:
        parts = urlsplit(url)
        port = parts.port or (443 if parts.scheme in ("https", "wss") else 80)
        return f"{parts.hostname}:{port}"
    except ValueError:
        return url


def connect_error(exc: BaseException, url: str) -> str:
    """One line for why the connection failed."""
    import ssl

    import httpx

    where = _host_port(url)
    for cause in _chain(exc):
        if isinstance(cause, ssl.SSLError | ssl.CertificateError):
            return f"TLS handshake with {where} failed: {getattr(cause, 'reason', None) or cause}"
    if isinstance(exc, httpx.ConnectTimeout | httpx.PoolTimeout):
        return f"timed out connecting to {where}"
    if isinstance(exc, httpx.TimeoutException):
        return f"timed out waiting for {where} to answer the upgrade"
    if isinstance(exc, httpx.ConnectError):
        text = str(exc) or type(exc).__name__
        if "Name or service not known" in text or "nodename nor servname" in text:
            return f"could not resolve {urlsplit(url).hostname}"
        return f"could not connect to {where}: {text.rpartition('] ')[2]}"
    if isinstance(exc, httpx.UnsupportedProtocol | httpx.InvalidURL):
        return f"invalid URL {url!r}: {exc}"
    if isinstance(exc, httpx.HTTPError):
        return f"{type(exc).__name__} from {where}: {exc}"
    return f"{type(exc).__name__}: {exc}"


def _chain(exc: BaseException) -> list[BaseException]:
    out, seen = [], set()
    todo = [exc]
    while todo:
        current = todo.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        out.append(current)
        if isinstance(current, BaseExceptionGroup):
            todo.extend(current.exceptions)
        todo.extend(c for c in (current.__cause__, current.__context__) if c is not None)
    return out


class WebSocketLink:
    """One connection, from the handshake to the close, and its log.

    ``run()`` is the connection's life (await it in a task of its own); ``opened()`` waits for
    the handshake; ``send_text``, ``send_bytes``, ``ping``, ``close`` and ``receive`` may be
    called from other tasks of the same loop. ``on_change`` is called after every change
    (state, a frame), on the loop running the link: a UI on another thread schedules its
    redraw from there.
    """

    def __init__(
        self,
        rendered: RenderedRequest,
        subprotocols: list[str] | tuple[str, ...] = (),
        *,
        max_frames: int = MAX_FRAMES,
        frame_cap: int = FRAME_CAP,
        on_change: Callable[[], None] | None = None,
        user_agent: str = "",
    ) -> None:
        self.rendered = rendered
        self.subprotocols = list(subprotocols)
        self.frame_cap = frame_cap
        self.on_change = on_change
        self.user_agent = user_agent
        timeout = rendered.settings.timeout
        self.timeout: float = timeout if timeout and timeout > 0 else 30.0
        self.state: State = "connecting"
        self.handshake = Handshake(url=rendered.url)
        self.log: deque[Frame] = deque(maxlen=max_frames)
        self.frames_total = 0  # frames ever logged: a reader of the ring knows what is new
        self.sent = 0
        self.received = 0
        self.bytes_received = 0
        self.error: str | None = None
        self.close_code: int | None = None
        self.close_reason = ""
        self.closed_by: Literal["server", "client", ""] = ""
        self._inbox: deque[Frame] = deque(maxlen=max_frames)  # messages receive() hands out
        self._arrived = asyncio.Event()
        self._open = asyncio.Event()
        self._done = asyncio.Event()
        self._ws: Any = None

    # -- life ------------------------------------------------------------------------------

    async def run(self) -> None:
        """Connect, then receive until the connection ends; never raises for what the network
        or the server does (``error`` says it). Cancelling closes the connection."""
        try:
            await self._run()
        except Exception as exc:  # noqa: BLE001  (anything unforeseen is still one line)
            if self.state in ("connecting", "open"):
                self._fail(connect_error(exc, self.rendered.url))
        finally:
            if self.state not in ("closed", "failed"):
                self.state = "closed"
            self._ws = None
            self._open.set()
            self._done.set()
            self._wake()
            self._changed()

    async def _run(self) -> None:
        import httpx
        from httpx_ws import WebSocketUpgradeError, aconnect_ws

        from pigeon.auth_flows import flow_for

        url = self.rendered.url.strip()
        scheme = url.partition("://")[0].lower() if "://" in url else ""
        if scheme not in ("ws", "wss", "http", "https"):
            self._fail(f"{url!r} is not a WebSocket URL (ws:// or wss://)")
            return
        try:
            client = _client(self.rendered, self.timeout)
        except Exception as exc:  # noqa: BLE001  (a CA or key file that cannot be used)
            self._fail(str(exc))
            return
        headers = httpx.Headers(self.rendered.headers)
        if self.user_agent and "user-agent" not in headers:
            headers["User-Agent"] = self.user_agent
        started = time.perf_counter()
        async with client, contextlib.AsyncExitStack() as stack:
            try:
                async with asyncio.timeout(self.timeout):
                    ws = await stack.enter_async_context(
                        aconnect_ws(
                            http_url(url),
                            client,
                            subprotocols=self.subprotocols or None,
                            headers=headers,
                            auth=flow_for(self.rendered),
                            session_class=_session_class(self.frame_cap),
                            max_message_size_bytes=64 * 1024,  # one read's size, not a message's
                        )
                    )
            except TimeoutError:
                self._fail(f"timed out after {self.timeout:g} s connecting to {_host_port(url)}")
                return
            except WebSocketUpgradeError as exc:
                response = exc.response
                self._record(response, started)
                self._fail(
                    f"the server answered {response.status_code} {response.reason_phrase}, "
                    "not 101 Switching Protocols"
                )
                return
            self._ws = ws
            assert ws.response is not None  # the session is made from the upgrade's answer
            self._record(ws.response, started)
            self.handshake.subprotocol = ws.subprotocol or ""
            self.state = "open"
            self._open.set()
            self._changed()
            await self._receive_loop(ws)

    async def _receive_loop(self, ws: Any) -> None:
        import wsproto.events as ev
        from httpx_ws import WebSocketDisconnect, WebSocketNetworkError

        while True:
            try:
                event = await ws.receive()
            except WebSocketDisconnect as exc:
                self._closed(exc.code, exc.reason or "")
                return
            except WebSocketNetworkError:
                if self.state == "closing":  # our close: the server dropped the line for it
                    self._closed(self.close_code, self.close_reason, by="client")
                else:
                    self._fail("the connection was lost")
                return
            if isinstance(event, _Received):
                frame = Frame("received", event.kind, event.data, event.size)
                frame.truncated = event.truncated
                self.received += 1
                self.bytes_received += event.size
                self._inbox.append(frame)
                self._add(frame)
                self._wake()
            elif isinstance(event, ev.CloseConnection):  # pragma: no cover  (receive raises)
                self._closed(event.code, event.reason or "")
                return

    def _record(self, response: httpx.Response, started: float) -> None:
        hs = self.handshake
        hs.status, hs.reason = response.status_code, response.reason_phrase
        hs.http_version = response.http_version
        hs.headers = [(k.decode("latin-1"), v.decode("latin-1")) for k, v in response.headers.raw]
        hs.sent_headers = [
            (k.decode("latin-1"), v.decode("latin-1")) for k, v in response.request.headers.raw
        ]
        hs.url = ws_url(str(response.request.url))
        hs.elapsed_ms = (time.perf_counter() - started) * 1000

    def _closed(
        self, code: int | None, reason: str, by: Literal["server", "client"] = "server"
    ) -> None:
        if self.state == "closing":
            by = "client"
        self.state, self.closed_by = "closed", by
        if by == "server" or self.close_code is None:
            self.close_code, self.close_reason = code, reason
        direction: Literal["sent", "received"] = "received" if by == "server" else "sent"
        if by == "server":
            note = f"{code} {reason}".strip()
            self._add(Frame(direction, "close", reason, len(reason.encode()) + 2, note=note))

    def _wake(self) -> None:
        """Wake every waiter (``receive``, ``wait_received``): each waits on the event of its
        moment, and a new one takes its place."""
        arrived, self._arrived = self._arrived, asyncio.Event()
        arrived.set()

    def _fail(self, message: str) -> None:
        self.state, self.error = "failed", message
        self._changed()

    def _add(self, frame: Frame) -> None:
        self.log.append(frame)
        self.frames_total += 1
        self._changed()

    def _changed(self) -> None:
        if self.on_change is not None:
            self.on_change()

    # -- what callers do ----------------------------------------------------------------------

    async def opened(self, timeout: float | None = None) -> bool:
        """Wait for the handshake (at most the request's timeout); whether the link is open."""
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(timeout if timeout is not None else self.timeout + 1):
                await self._open.wait()
        return self.state == "open"

    async def finished(self, timeout: float | None = None) -> bool:
        """Wait for ``run`` to end; whether it did within ``timeout``."""
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(timeout):
                await self._done.wait()
        return self._done.is_set()

    def _live(self) -> Any:
        if self._ws is None or self.state != "open":
            raise ConnectionError(f"the connection is {self.state}")
        return self._ws

    async def send_text(self, text: str) -> None:
        """Send one text frame; ``ConnectionError`` when the link is not open or the send did
        not finish within the request's timeout."""
        ws = self._live()
        await self._write(ws.send_text(text))
        self.sent += 1
        data = text.encode("utf-8", "replace")
        cut = len(text) > self.frame_cap
        self._add(Frame("sent", "text", text[: self.frame_cap], len(data), truncated=cut))

    async def send_bytes(self, data: bytes) -> None:
        ws = self._live()
        await self._write(ws.send_bytes(data))
        self.sent += 1
        cut = len(data) > self.frame_cap
        self._add(Frame("sent", "binary", data[: self.frame_cap], len(data), truncated=cut))

    async def _write(self, sending: Any) -> None:
        try:
            async with asyncio.timeout(self.timeout):
                await sending
        except TimeoutError:
            raise ConnectionError(f"sending took longer than {self.timeout:g} s") from None
        except Exception as exc:  # noqa: BLE001  (httpx-ws's network errors, wsproto's state)
            raise ConnectionError(f"could not send: {type(exc).__name__}") from exc

    async def ping(self, timeout: float | None = None) -> float:
        """Send a ping and wait for its pong; the round trip in milliseconds.
        ``ConnectionError`` when no pong came within ``timeout`` (the request's)."""
        ws = self._live()
        started = time.perf_counter()
        self._add(Frame("sent", "ping", b"", 0, note="ping"))
        limit = timeout if timeout is not None else self.timeout
        try:
            async with asyncio.timeout(limit):
                pong = await ws.ping()
                waits = [
                    asyncio.ensure_future(pong.wait()),
                    asyncio.ensure_future(self._done.wait()),
                ]
                try:
                    await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
                finally:
                    for wait in waits:
                        wait.cancel()
        except TimeoutError:
            raise ConnectionError(f"no pong within {limit:g} s") from None
        except Exception as exc:  # noqa: BLE001
            raise ConnectionError(f"could not ping: {type(exc).__name__}") from exc
        if self._done.is_set():
            raise ConnectionError(f"the connection is {self.state}")
        rtt = (time.perf_counter() - started) * 1000
        self._add(Frame("received", "pong", b"", 0, note=f"pong after {rtt:.1f} ms"))
        return rtt

    async def close(self, code: int = 1000, reason: str = "") -> None:
        """Start the closing handshake and wait (at most ``CLOSE_WAIT`` seconds) for the
        server's answer; the line is dropped after that in any case."""
        import wsproto.events as ev

        if not 1000 <= code <= 4999 or code in (1004, 1005, 1006, 1015):
            raise ValueError(f"{code} is not a close code a client may send (1000, 3000-4999)")
        if len(reason.encode("utf-8")) > 123:
            raise ValueError("a close reason holds at most 123 bytes")
        ws = self._ws
        if ws is None or self.state != "open":
            return
        self.state, self.close_code, self.close_reason = "closing", code, reason
        note = f"{code} {reason}".strip()
        self._add(Frame("sent", "close", reason, len(reason.encode()) + 2, note=note))
        with contextlib.suppress(Exception):
            async with asyncio.timeout(min(CLOSE_WAIT, self.timeout)):
                await ws.send(ev.CloseConnection(code, reason))
        if not await self.finished(min(CLOSE_WAIT, self.timeout)):
            with contextlib.suppress(Exception):
                await ws.stream.aclose()
            await self.finished(1.0)

    async def receive(self, timeout: float | None = None) -> Frame | None:
        """The next received message not yet handed out, waiting at most ``timeout`` seconds
        (the request's by default); ``None`` when none came or the link ended."""
        await self._wait(lambda: bool(self._inbox), timeout)
        return self._inbox.popleft() if self._inbox else None

    async def wait_received(self, count: int, timeout: float | None = None) -> bool:
        """Wait until ``count`` messages have arrived in all (or the link ended, or
        ``timeout``, the request's by default, passed); whether they did."""
        await self._wait(lambda: self.received >= count, timeout)
        return self.received >= count

    async def _wait(self, ready: Callable[[], bool], timeout: float | None) -> None:
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(timeout if timeout is not None else self.timeout):
                while not ready() and not self._done.is_set():
                    await self._arrived.wait()

    @property
    def messages(self) -> list[Frame]:
        """The text and binary frames in the log, sent and received, oldest first."""
        return [f for f in self.log if f.kind in ("text", "binary")]

    def status_line(self) -> str:
        """The state in a few words: ``open (chat.v1)``, ``closed 1000 by the server``."""
        if self.state == "failed":
            return f"failed: {self.error}"
        if self.state == "closed":
            code = f" {self.close_code}" if self.close_code is not None else ""
            reason = f" {self.close_reason}" if self.close_reason else ""
            by = f" by the {self.closed_by}" if self.closed_by else ""
            return f"closed{code}{reason}{by}"
        if self.state == "open" and self.handshake.subprotocol:
            return f"open ({self.handshake.subprotocol})"
        return self.state


def _client(rendered: RenderedRequest, timeout: float) -> httpx.AsyncClient:
    """An HTTP/1.1 client for the handshake, made as the HTTP session makes its clients: the
    transport spec's proxy, trust and certificate, and ``verify_tls``."""
    import httpx

    from pigeon.proxies import client_options
    from pigeon.tls import shared_verify, ssl_context

    spec, verify_tls = rendered.transport, rendered.settings.verify_tls
    if spec.default:
        verify: Any = shared_verify(verify_tls, http2=False, trust_env=True)
    else:
        verify = ssl_context(spec, verify_tls)
    options = client_options(spec, verify, sync=False, http2=False, trust_env=True)
    return httpx.AsyncClient(
        **options,
        verify=verify,
        http2=False,
        timeout=httpx.Timeout(timeout),
        follow_redirects=False,
    )
