"""One gRPC call (DESIGN §10): prepared on a channel (``rpc.channels``) with its method's
descriptors, the request's messages sent, the replies received live and bounded, the status,
metadata and trailers.

Every kind of method goes through one path: on the wire the four kinds are one HTTP/2 stream
of length-prefixed messages, so a call writes its messages, half-closes, and reads replies
until the status (a unary call takes grpc's unary path, the quickest). ``GrpcCall.open``
starts it for a holder that sends as it goes (a script's ``pigeon.grpc``); ``converse``
runs it whole for ``pigeon run``.

Every gRPC operation runs on the gRPC loop (``rpc.channels``): the public coroutines here hop
to it and back, and ``on_change`` is called on its thread.

Hostile servers are normal: a reply is at most ``MESSAGE_CAP`` bytes (grpc refuses a larger
one with ``RESOURCE_EXHAUSTED``); the newest ``MAX_REPLIES`` replies are kept within
``KEPT_BYTES`` of JSON, the rest counted as dropped; a reply that does not decode (bad UTF-8
in a string field) is noted and counted, never raised; metadata that is not text is shown as
base64; the request's timeout is the deadline of the whole call, reflection included.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import re
import time
from collections import deque
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pigeon.render import RenderedRequest
from pigeon.rpc import GrpcError, Target, split_rpc, status_name, target_of
from pigeon.rpc.channels import (
    Channels,
    descriptors_for,
    grpc_module,
    on_grpc_loop,
    printable_text,
)
from pigeon.rpc.descriptors import KINDS, Descriptors

MAX_REPLIES = 1000  # replies a call keeps, the newest (the rest are counted as dropped)
KEPT_BYTES = 16 * 1024 * 1024  # bytes of JSON the kept replies hold together
CLOSE_WAIT = 5.0  # seconds a call's end may take once the deadline is not the limit

# Metadata names gRPC itself sets: a header of the request by these names is not sent.
_RESERVED = {"content-type", "te", "host", "connection", "user-agent", "grpc-timeout"}

# -- metadata -----------------------------------------------------------------------------------


_KEY = re.compile(r"[0-9a-z_.-]+")
_TEXT_VALUE = re.compile(r"[\x20-\x7e]*")


def metadata_of(headers: Sequence[tuple[str, str]]) -> tuple[list[tuple[str, Any]], list[str]]:
    """The request's headers as call metadata (names lowercased; a ``-bin`` value given as
    base64 is sent as its bytes) and what was left out, for the warnings: the names gRPC sets
    itself (the JSON body's ``Content-Type`` among them). ``GrpcError`` for a name or a
    value gRPC cannot send (a text value is printable ASCII; bytes go in a ``-bin`` key)."""
    out: list[tuple[str, Any]] = []
    left: list[str] = []
    for name, value in headers:
        key = name.strip().lower()
        if not _KEY.fullmatch(key):
            raise GrpcError(f"metadata {name!r}: a name is letters, digits, '-', '_' and '.'")
        if not key.endswith("-bin") and not _TEXT_VALUE.fullmatch(value):
            raise GrpcError(
                f"metadata {name!r}: a value is printable ASCII (bytes go in a key ending -bin)"
            )
        if key in _RESERVED or key.startswith((":", "grpc-")):
            if key != "content-type":
                left.append(f"metadata {name!r} is set by gRPC itself: not sent")
            continue
        if key.endswith("-bin"):
            try:
                out.append((key, base64.b64decode(value, validate=True)))
            except ValueError:
                out.append((key, value.encode("utf-8")))
        else:
            out.append((key, value))
    return out, left


def metadata_text(pairs: Any) -> list[tuple[str, str]]:
    """Metadata received, as text pairs: binary values (``-bin``) as base64, like grpcurl."""
    out: list[tuple[str, str]] = []
    for key, value in pairs or ():
        if isinstance(value, bytes):
            out.append((str(key), base64.b64encode(value).decode("ascii")))
        else:
            out.append((str(key), str(value)))
    return out


# -- the call -------------------------------------------------------------------------------------


@dataclass(slots=True)
class Reply:
    """One reply as kept: its JSON value (``None`` when it did not decode: ``note`` says
    why), its size on the wire and when it came (wall clock)."""

    seq: int
    value: Any
    size: int
    at: float = field(default_factory=time.time)
    note: str = ""


class GrpcCall:
    """A call in flight, or done: what the holder sees live (``replies``, ``status``...)
    and drives (``send``, ``close_sending``, ``receive``); ``on_change`` hears every change.

    Made by ``prepare`` (rendered, descriptors found); ``open`` starts it. Its end is
    ``finished()``; ``code`` is ``None`` until then."""

    def __init__(
        self,
        rendered: RenderedRequest,
        rpc: str,
        target: Target,
        descriptors: Descriptors,
        method: Any,
        channel: Any,
        deadline: float,
        on_change: Callable[[], None] | None = None,
        on_loop: Callable[[Coroutine[Any, Any, Any]], Awaitable[Any]] | None = None,
    ) -> None:
        """Made on the loop its gRPC operations run on; ``on_loop`` takes a holder there."""
        self._loop = asyncio.get_running_loop()
        self._on_loop: Callable[[Coroutine[Any, Any, Any]], Awaitable[Any]] = (
            on_loop or on_grpc_loop
        )
        self.rendered = rendered
        self.rpc = rpc
        self.target = target
        self.descriptors = descriptors
        self.method = method
        self.channel = channel
        self.deadline = deadline  # time.monotonic()
        self.on_change = on_change
        self.kind = KINDS[(method.client_streaming, method.server_streaming)]
        self.metadata, self.notes = metadata_of(rendered.headers)
        self.replies: deque[Reply] = deque()
        self.kept_bytes = 0
        self.received = 0  # every reply that came, kept or not
        self.dropped = 0
        self.undecodable = 0
        self.sent = 0
        self.sent_messages: list[str] = []  # the JSON of each message sent (the newest kept)
        self.bytes_received = 0
        self.initial_metadata: list[tuple[str, str]] = []
        self.trailers: list[tuple[str, str]] = []
        self.code: int | None = None
        self.details = ""
        self.error: str | None = None  # the call could not be made at all
        self.started = time.perf_counter()
        self.started_at = time.time()
        self.elapsed_ms = 0.0
        self._call: Any = None
        self._reader: asyncio.Task[None] | None = None
        self._done = asyncio.Event()
        self._arrived = asyncio.Event()
        self._taken = 0  # the seq of the last reply ``receive`` returned

    # -- what it is -----------------------------------------------------------------------------

    @property
    def path(self) -> str:
        service, method = split_rpc(self.rpc)
        return f"/{service}/{method}"

    @property
    def status_name(self) -> str:
        return status_name(self.code)

    @property
    def done(self) -> bool:
        return self._done.is_set()

    def values(self) -> list[Any]:
        """The kept replies' JSON values, oldest first (those that did not decode left out)."""
        return [r.value for r in self.replies if r.note == ""]

    def status_line(self) -> str:
        if self.error:
            return self.error
        if self.code is None:
            return f"{self.kind}: {self.sent} sent, {self.received} received"
        line = f"{self.status_name} ({self.code})"
        return f"{line}: {printable_text(self.details)}" if self.details and self.code else line

    def _changed(self) -> None:
        if self.on_change is not None:
            self.on_change()

    def _remaining(self) -> float:
        return max(self.deadline - time.monotonic(), 0.001)

    # -- driving it -----------------------------------------------------------------------------

    def encode(self, text: str | None) -> bytes:
        """A message of the method's input type from JSON text (``GrpcError`` if not one)."""
        return self.descriptors.encode(self.method.input_type, text)

    async def unary(self, text: str | None) -> None:
        """The whole of a unary call, grpc's quickest way."""
        await self._on_loop(self._unary(text))

    async def _unary(self, text: str | None) -> None:
        grpc = grpc_module()
        data = self.encode(text)
        self._note_sent(text)
        call = self.channel.unary_unary(self.path)(
            data, metadata=self.metadata or None, timeout=self._remaining()
        )
        self._call = call
        try:
            reply = await call
            self._take(reply)
        except grpc.aio.AioRpcError:
            pass
        except asyncio.CancelledError:
            call.cancel()
            self._finish(1, "cancelled")  # ended here: its status never comes
            raise
        await self._end(call)

    async def open(self) -> None:
        """Start the call (any kind) and its reader; messages go with ``send``."""
        await self._on_loop(self._open())

    async def _open(self) -> None:
        stream = self.channel.stream_stream(self.path)
        self._call = stream(metadata=self.metadata or None, timeout=self._remaining())
        self._reader = asyncio.create_task(self._read())

    async def send(self, text: str | None) -> None:
        """Send one message (JSON text); ``ConnectionError`` once the call has ended."""
        await self._on_loop(self._send(text))

    async def _send(self, text: str | None) -> None:
        data = self.encode(text)
        if self._call is None or self.done:
            raise ConnectionError(f"the call has ended: {self.status_line()}")
        try:
            await self._call.write(data)
        except Exception as exc:  # the call ended meanwhile (grpc raises its own kinds)
            raise ConnectionError(f"the call has ended: {self.status_line()}") from exc
        self._note_sent(text)
        self._changed()

    async def close_sending(self) -> None:
        """No more messages (half-close); the replies still come."""
        await self._on_loop(self._close_sending())

    async def _close_sending(self) -> None:
        if self._call is not None and not self.done:
            with contextlib.suppress(Exception):
                await self._call.done_writing()

    async def receive(self, timeout: float | None = None) -> Reply | None:
        """The next reply no ``receive`` returned yet (the oldest still kept), waiting at most
        ``timeout`` seconds (``None``: until the call ends); ``None`` when none came."""
        reply: Reply | None = await self._on_loop(self._receive(timeout))
        return reply

    async def _receive(self, timeout: float | None) -> Reply | None:
        give_up = None if timeout is None else time.monotonic() + timeout
        while True:
            for reply in self.replies:
                if reply.seq > self._taken:
                    self._taken = reply.seq
                    return reply
            if self.done:
                return None
            self._arrived.clear()
            wait = None if give_up is None else give_up - time.monotonic()
            if wait is not None and wait <= 0:
                return None
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(wait):
                    arrived = asyncio.ensure_future(self._arrived.wait())
                    ended = asyncio.ensure_future(self._done.wait())
                    try:
                        await asyncio.wait({arrived, ended}, return_when=asyncio.FIRST_COMPLETED)
                    finally:
                        arrived.cancel()
                        ended.cancel()

    async def finished(self) -> None:
        """Wait for the call's end (its status), at most until its deadline and a little."""
        await self._on_loop(self._finished())

    async def _finished(self) -> None:
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(self._remaining() + CLOSE_WAIT):
                await self._done.wait()
        if not self.done:
            if self._call is not None:
                self._call.cancel()
            self._finish(1, "cancelled: the call did not end")

    def cancel(self) -> None:
        """Cancel the call (from any thread); its status becomes CANCELLED."""
        call = self._call
        if call is not None and not self.done:
            self._loop.call_soon_threadsafe(call.cancel)

    # -- what comes back ------------------------------------------------------------------------

    def _note_sent(self, text: str | None) -> None:
        self.sent += 1
        self.sent_messages.append(text or "{}")
        del self.sent_messages[:-MAX_REPLIES]

    def _take(self, data: bytes) -> None:
        self.received += 1
        self.bytes_received += len(data)
        try:
            value = self.descriptors.decode(self.method.output_type, data)
            reply = Reply(self.received, value, len(data))
            weight = len(json.dumps(value, ensure_ascii=False))
        except ValueError as exc:
            self.undecodable += 1
            note = f"reply {self.received} is not a {self.method.output_type.full_name}: {exc}"
            reply, weight = Reply(self.received, None, len(data), note=note), len(note)
        self.replies.append(reply)
        self.kept_bytes += weight
        while len(self.replies) > 1 and (
            len(self.replies) > MAX_REPLIES or self.kept_bytes > KEPT_BYTES
        ):
            old = self.replies.popleft()
            self.dropped += 1
            self.kept_bytes -= (
                len(old.note) if old.note else len(json.dumps(old.value, ensure_ascii=False))
            )
        self._arrived.set()
        self._changed()

    async def _read(self) -> None:
        grpc = grpc_module()
        call = self._call
        try:
            while True:
                data = await call.read()
                if data is grpc.aio.EOF:
                    break
                self._take(data)
        except grpc.aio.AioRpcError:
            pass
        except asyncio.CancelledError:
            call.cancel()
        await self._end(call)

    async def _end(self, call: Any) -> None:
        grpc = grpc_module()
        try:
            code = await call.code()
            details = await call.details()
            self.initial_metadata = metadata_text(await call.initial_metadata())
            self.trailers = metadata_text(await call.trailing_metadata())
        except (grpc.aio.AioRpcError, asyncio.CancelledError):
            code, details = grpc.StatusCode.CANCELLED, "cancelled"
        self._finish(code.value[0], details or "")

    def _finish(self, code: int, details: str) -> None:
        if self.done:
            return
        self.code, self.details = code, details
        self.elapsed_ms = (time.perf_counter() - self.started) * 1000
        self._done.set()
        self._arrived.set()
        self._changed()


async def prepare(
    channels: Channels,
    root: Path,
    rendered: RenderedRequest,
    grpc_keys: Any,
    gate: Any = None,
    on_change: Callable[[], None] | None = None,
    unary: str | None | bool = False,
) -> GrpcCall:
    """A call of the request ``rendered`` is (not yet open): the target read from its URL,
    the channel, the method's descriptors. ``GrpcError`` says why it cannot be made; the
    deadline (the request's timeout) starts here, reflection counts in it.

    ``unary`` (a message's JSON text, or ``None`` for the empty message): when the method
    is unary, the whole call is made at once, in the same trip to the gRPC loop (``pigeon
    run``'s common case); the call comes back ``done``."""

    async def both() -> GrpcCall:
        call = await _prepare(channels, root, rendered, grpc_keys, gate, on_change)
        if unary is not False and call.kind == "unary":
            assert not isinstance(unary, bool)
            await call._unary(unary)
        return call

    return await channels.on_loop(both())


async def _prepare(
    channels: Channels,
    root: Path,
    rendered: RenderedRequest,
    grpc_keys: Any,
    gate: Any,
    on_change: Callable[[], None] | None,
) -> GrpcCall:
    grpc = grpc_module()
    deadline = time.monotonic() + rendered.settings.timeout
    target = target_of(rendered.url)
    if not grpc_keys.rpc.strip():
        raise GrpcError('the request names no method: rpc = "package.Service/Method"')
    split_rpc(grpc_keys.rpc)
    channel = channels.channel(rendered, target)
    try:
        descriptors, notes = await descriptors_for(
            channels, root, grpc_keys, target, channel, deadline, gate
        )
    except grpc.aio.AioRpcError as exc:
        raise GrpcError(f"{exc.code().name}: {printable_text(exc.details() or '')}") from None
    method = descriptors.method(grpc_keys.rpc)
    call = GrpcCall(
        rendered,
        grpc_keys.rpc,
        target,
        descriptors,
        method,
        channel,
        deadline,
        on_change,
        channels.on_loop,
    )
    call.notes += notes
    return call


@dataclass
class Described:
    """What ``describe`` found of a server or a request's ``.proto`` files: the text of its
    services, methods and message types, and for the request's ``rpc`` its kind and the
    fields of its input message (for completion in the app)."""

    target: str
    lines: list[str]
    kind: str = ""  # the rpc's kind ("unary"...), "" when the request names no method
    input_type: str = ""
    fields: list[tuple[str, str]] = field(default_factory=list)  # (JSON name, type)
    notes: list[str] = field(default_factory=list)


async def describe(
    channels: Channels,
    root: Path,
    rendered: RenderedRequest,
    grpc_keys: Any,
    gate: Any = None,
) -> Described:
    """Describe what a request reaches: its ``.proto`` files, or by reflection its ``rpc``'s
    service (every service the server lists when it names none, at most 50); the method's
    kind and input fields when it names one. ``GrpcError`` says why not."""
    return await channels.on_loop(_describe(channels, root, rendered, grpc_keys, gate))


async def _describe(
    channels: Channels, root: Path, rendered: RenderedRequest, grpc_keys: Any, gate: Any
) -> Described:
    from pigeon.rpc.channels import list_services, reflect

    grpc = grpc_module()
    deadline = time.monotonic() + rendered.settings.timeout
    target = target_of(rendered.url)
    channel = channels.channel(rendered, target)
    notes: list[str] = []
    try:
        if grpc_keys.protos or grpc_keys.rpc.strip():
            descriptors, notes = await descriptors_for(
                channels, root, grpc_keys, target, channel, deadline, gate
            )
        else:
            files: dict[bytes, None] = {}
            for name in (await list_services(channel, deadline))[:50]:
                if not name.startswith("grpc.reflection."):
                    files.update(dict.fromkeys(await reflect(channel, name, deadline)))
            descriptors = Descriptors(list(files))
    except grpc.aio.AioRpcError as exc:
        raise GrpcError(f"{exc.code().name}: {printable_text(exc.details() or '')}") from None
    described = Described(target.url, descriptors.describe(), notes=notes)
    if grpc_keys.rpc.strip():
        method = descriptors.method(grpc_keys.rpc)
        described.kind = KINDS[(method.client_streaming, method.server_streaming)]
        described.input_type = method.input_type.full_name
        described.fields = descriptors.fields(method.input_type)
    return described


async def converse(
    call: GrpcCall,
    messages: Sequence[str | None],
    scripts: Callable[[], Awaitable[Any]] | None = None,
) -> None:
    """``pigeon run``'s whole call: send ``messages`` in order, then half-close and read
    every reply until the status. ``scripts`` (a bidirectional call's post-response scripts,
    with ``pigeon.grpc``) run while it is open, before the half-close."""
    if call.done:  # made whole by ``prepare``
        return
    if call.kind == "unary" and scripts is None:
        await call.unary(messages[0] if messages else None)
        return
    await call.open()
    try:
        with contextlib.suppress(ConnectionError):
            for text in messages:
                await call.send(text)
        if scripts is not None:
            await scripts()
        await call.close_sending()
        await call.finished()
    finally:
        if not call.done:
            call.cancel()
            with contextlib.suppress(Exception):
                await call.finished()
