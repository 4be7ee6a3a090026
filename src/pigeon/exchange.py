"""What one send produced (DESIGN §7): the request as sent, the response or a clear error,
timings and size. ``Exchange`` is the pipeline's result type: history, scripts, reports, the
console and the app all read it, and only ``send`` makes one.

Status is labelled with its class (1xx Informational ... 5xx Server error); ``status_kind``
is the same class as a short name for styling.
"""

from __future__ import annotations

import codecs
import contextlib
import json
import os
import shutil
import threading
import time
import weakref
from collections.abc import Generator, Iterator
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, Literal

from pigeon.render import RenderedRequest

if TYPE_CHECKING:
    from pigeon.stream import Event, StreamSink

_replaced = threading.local()  # bytes the decoder replaced, for the thread decoding
_COUNT_REPLACE = "pigeon-count-replace"


def _count_and_replace(exc: UnicodeError) -> tuple[str, int]:
    """``errors="replace"``, counting the bytes it replaces."""
    if not isinstance(exc, UnicodeDecodeError):
        raise exc
    _replaced.count = getattr(_replaced, "count", 0) + exc.end - exc.start
    return "\ufffd", exc.end


codecs.register_error(_COUNT_REPLACE, _count_and_replace)

ErrorKind = Literal[
    "connect",
    "dns",
    "tls",
    "timeout",
    "read",
    "redirects",
    "cancelled",
    "protocol",
    "invalid",
    "other",
]

STATUS_CLASSES = {
    1: "Informational",
    2: "Successful",
    3: "Redirection",
    4: "Client error",
    5: "Server error",
}


def status_class(status: int | None) -> str:
    """The label of a status code's class (DESIGN §7), or "" outside 100-599."""
    if status is None:
        return ""
    return STATUS_CLASSES.get(status // 100, "") if 100 <= status <= 599 else ""


@dataclass
class Timings:
    """Where the time went, in milliseconds.

    ``connect_ms`` (TCP connect, including the DNS lookup) and ``tls_ms`` are summed over the
    connections opened for this exchange (redirect hops included); ``None`` means an existing
    connection was reused. ``ttfb_ms`` is the wait from sending the final request's headers
    to receiving its response headers; ``download_ms`` the time spent reading the body.
    """

    total_ms: float = 0.0
    connect_ms: float | None = None
    tls_ms: float | None = None
    ttfb_ms: float | None = None
    download_ms: float | None = None


@dataclass
class Progress:
    """Live state of a send in flight, for progress display; updated as events arrive."""

    phase: Literal["connecting", "sending", "waiting", "receiving", "done"] = "connecting"
    status: int | None = None
    bytes_received: int = 0
    content_length: int | None = None
    # A body streamed from disk (a file body): its bytes sent so far, of ``bytes_to_send``.
    bytes_sent: int = 0
    bytes_to_send: int | None = None
    # Sees the body as it arrives and can stop it (``pigeon.stream``); ``None``: nobody looks.
    sink: StreamSink | None = None
    # The URL as the pipeline rendered it (``pipeline.build``); "" until then.
    url: str = ""

    def sent(self, count: int) -> None:
        """A streamed body's pass has sent ``count`` bytes: sending until all are out."""
        self.bytes_sent = count
        self.phase = "sending" if count < (self.bytes_to_send or 0) else "waiting"


@dataclass
class GrpcFacts:
    """A gRPC call's own part of its exchange (DESIGN §10). The exchange's ``status`` is the
    call's status code (0 = OK), ``reason`` its name, ``headers`` the initial metadata and
    ``body`` the kept replies as a JSON array (so history keeps them, capped, and two calls
    diff as two responses do)."""

    rpc: str  # "package.Service/Method"
    kind: str  # "unary", "server stream", "client stream", "bidirectional"
    details: str = ""  # the status's message
    trailers: list[tuple[str, str]] = field(default_factory=list)
    messages: list[Any] = field(default_factory=list)  # the replies kept, oldest first
    received: int = 0  # every reply that came
    dropped: int = 0  # the oldest replies not kept (``received - len(messages)``, at least)
    sent: int = 0
    notes: list[str] = field(default_factory=list)  # replies that did not decode, and such

    @classmethod
    def recorded(cls, data: dict[str, Any], body: bytes | None) -> GrpcFacts:
        """A history entry's gRPC part; its replies from its ``body`` (``None``: cut)."""
        messages: list[Any] = []
        with contextlib.suppress(ValueError):
            parsed = json.loads(body) if body else []
            messages = parsed if isinstance(parsed, list) else []
        return cls(
            rpc=str(data.get("rpc") or ""),
            kind=str(data.get("kind") or ""),
            details=str(data.get("details") or ""),
            trailers=[(str(k), str(v)) for k, v in data.get("trailers") or []],
            messages=messages,
            received=int(data.get("received") or 0),
            dropped=int(data.get("dropped") or 0),
            sent=int(data.get("sent") or 0),
        )


@dataclass
class Exchange:
    """A request as sent and its response (or the error that stopped it)."""

    request: RenderedRequest
    # The final request as it went on the wire (after redirects), transport headers included.
    method: str = ""
    url: str = ""
    sent_headers: list[tuple[str, str]] = field(default_factory=list)
    # The response.
    status: int | None = None
    reason: str = ""
    http_version: str = ""
    headers: list[tuple[str, str]] = field(default_factory=list)
    # The whole body, or its first ``max_body_in_memory`` bytes if truncated.
    body: bytes = field(default=b"", repr=False)
    body_size: int = 0  # always the full (decoded) body size
    body_path: Path | None = None  # the complete body on disk when it was too big for memory
    truncated: bool = False
    # The SHA-256 of the whole body when ``body`` is only its start (a history entry keeps
    # a large body's start and this): a comparison still tells same from different.
    body_sha256: str | None = None
    # The body stopped before its end (a timeout, a dropped connection, a cancel): ``error``
    # says why, and the body holds what had arrived.
    cut_off: bool = False
    wire_body_size: int = 0  # bytes on the wire (before Content-Encoding was undone)
    headers_size: int = 0
    charset: str | None = None
    timings: Timings = field(default_factory=Timings)
    redirects: list[tuple[int, str]] = field(default_factory=list)  # (status, url that said it)
    warnings: list[str] = field(default_factory=list)  # e.g. credentials a redirect left behind
    error: str | None = None
    error_kind: ErrorKind | None = None
    # A stream stopped on purpose before its end ("stopped at max_events"): not an error.
    stopped: str = ""
    # The Server-Sent Events received, when a sink decoded them (the newest, bounded).
    events: list[Event] | None = None
    # A gRPC call's status details, trailers and replies; ``None`` for HTTP.
    grpc: GrpcFacts | None = None
    started_at: datetime = field(default_factory=lambda: datetime.now(timezone.utc))
    _cleanup: weakref.finalize[..., Exchange] | None = field(
        default=None, init=False, repr=False, compare=False
    )
    _text: str | None = field(default=None, init=False, repr=False, compare=False)
    _undecodable: int = field(default=0, init=False, repr=False, compare=False)
    _json: Any = field(default=None, init=False, repr=False, compare=False)
    _json_error: ValueError | None = field(default=None, init=False, repr=False, compare=False)
    _json_done: bool = field(default=False, init=False, repr=False, compare=False)

    @classmethod
    def failed(cls, request: RenderedRequest, kind: ErrorKind, message: str) -> Exchange:
        """An exchange that never reached the network (e.g. the request could not be built)."""
        return cls(
            request=request,
            method=request.method,
            url=request.url,
            error=message,
            error_kind=kind,
        )

    # -- status --

    @property
    def ok(self) -> bool:
        """A response arrived and its status is below 400 (a gRPC call's: OK, 0)."""
        if self.grpc is not None:
            return self.error is None and self.status == 0
        return self.error is None and self.status is not None and self.status < 400

    @property
    def status_class(self) -> str:
        return status_class(self.status)

    @property
    def elapsed_ms(self) -> float:
        return self.timings.total_ms

    @property
    def size(self) -> int:
        """Response size as the user sees it: headers plus (decoded) body."""
        return self.headers_size + self.body_size

    # -- headers --

    def header(self, name: str) -> str | None:
        """The first value of a response header, case-insensitively."""
        lname = name.lower()
        for key, value in self.headers:
            if key.lower() == lname:
                return value
        return None

    def header_values(self, name: str) -> list[str]:
        lname = name.lower()
        return [value for key, value in self.headers if key.lower() == lname]

    @property
    def content_type(self) -> str:
        """The media type without parameters, lower-cased ("application/json"), or ""."""
        value = self.header("content-type") or ""
        return value.split(";", 1)[0].strip().lower()

    @property
    def is_json(self) -> bool:
        ctype = self.content_type
        return ctype in ("application/json", "text/json") or ctype.endswith("+json")

    # -- body --

    @property
    def encoding(self) -> str:
        """The codec ``text`` decodes with: the declared charset, UTF-8 if none or unknown."""
        if self.charset:
            with contextlib.suppress(LookupError):
                return codecs.lookup(self.charset).name
        return "utf-8"

    @property
    def text(self) -> str:
        """The in-memory body decoded with ``encoding``; bytes it cannot decode become U+FFFD
        (``undecodable`` counts them)."""
        if self._text is None:
            encoding = self.encoding
            data = self.body
            if encoding == "utf-8" and data.startswith(codecs.BOM_UTF8):
                encoding = "utf-8-sig"
            _replaced.count = 0
            self._text = data.decode(encoding, errors=_COUNT_REPLACE)
            self._undecodable = _replaced.count
        return self._text

    @property
    def undecodable(self) -> int:
        """How many bytes of the body ``text`` could not decode (shown as U+FFFD)."""
        self.text  # noqa: B018  (decoding counts them)
        return self._undecodable

    def json(self) -> Any:
        """The body parsed as JSON (cached). ValueError if it is not JSON or was truncated."""
        if not self._json_done:
            try:
                if self.truncated:
                    raise ValueError(
                        f"the body is too large to parse in memory ({self.body_size} bytes)"
                    )
                if not self.body.strip():
                    raise ValueError("the body is empty")
                self._json = json.loads(self.text)
            except ValueError as exc:
                self._json_error = ValueError(f"Response is not JSON: {exc}")
            self._json_done = True
        if self._json_error is not None:
            raise self._json_error
        return self._json

    @contextlib.contextmanager
    def open_body(self) -> Generator[IO[bytes], None, None]:
        """A binary file over the complete body, wherever it lives."""
        if self.body_path is not None:
            with open(self.body_path, "rb") as fh:
                yield fh
        else:
            import io

            yield io.BytesIO(self.body)

    def iter_body(self, chunk_size: int = 1024 * 1024) -> Iterator[bytes]:
        with self.open_body() as fh:
            while chunk := fh.read(chunk_size):
                yield chunk

    def save_body(self, dest: str | os.PathLike[str]) -> None:
        """Write the complete body to ``dest``."""
        with self.open_body() as src, open(dest, "wb") as out:
            shutil.copyfileobj(src, out, 1024 * 1024)

    def discard(self) -> None:
        """Delete the spooled body file, if any. The in-memory part stays readable."""
        if self._cleanup is not None:
            self._cleanup()
        self.body_path = None


MAX_FRAMES = 1000  # frames a WebSocket's log keeps (the oldest go first)

FrameKind = Literal["text", "binary", "ping", "pong", "close"]


@dataclass(slots=True)
class Frame:
    """One WebSocket frame (a whole message) in a connection's log: ``data`` is its first
    ``frame_cap`` bytes (characters for text); ``size`` the whole message's bytes."""

    direction: Literal["sent", "received"]
    kind: FrameKind
    data: str | bytes
    size: int
    at: float = field(default_factory=time.time)  # wall clock, for display
    truncated: bool = False
    note: str = ""  # a close frame's code and reason, a pong's round trip

    @property
    def text(self) -> str:
        """The data as text: text as it came, binary as hex, a control frame's note."""
        if isinstance(self.data, bytes):
            return self.data.hex(" ") if self.kind == "binary" else self.note
        return self.data if self.kind == "text" else self.note

    def json(self) -> Any:
        """The text parsed as JSON (``ValueError`` when it is not, or was cut)."""
        if self.kind != "text" or self.truncated:
            raise ValueError("not a whole text message")
        return json.loads(self.data)


def duration(ms: float | None) -> str:
    """``4.2 ms``, ``123 ms``, ``1.23 s``, ``1 m 05 s``."""
    if ms is None:
        return "—"
    if ms < 10:
        return f"{ms:.1f} ms"
    if ms < 1000:
        return f"{ms:.0f} ms"
    seconds = ms / 1000
    if seconds < 60:
        return f"{seconds:.2f} s"
    minutes, rest = divmod(int(seconds), 60)
    return f"{minutes} m {rest:02d} s"


def status_kind(status: int | None) -> str:
    """A short, style-friendly name for a status code's class (``"success"``, ``"client-error"``
    ...); ``"error"`` when there is no status."""
    if status is None:
        return "error"
    return {1: "info", 2: "success", 3: "redirect", 4: "client-error", 5: "server-error"}.get(
        status // 100, "error"
    )
