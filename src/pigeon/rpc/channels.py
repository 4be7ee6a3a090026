"""The channels of gRPC calls (DESIGN §10): the loop every gRPC operation runs on, the
channel over the collection's transport (TLS with its CA bundle and client certificates,
``verify_tls``, proxies), server reflection (bounded) and the descriptors each service was
found with, kept for a session or a run.

gRPC's asyncio API binds a channel to the loop it was made on, and keeps state per loop that
a loop closed under it breaks. The app runs loops of its own (its own, a thread's for a
live view), so its channels live on one loop of their own, in a daemon thread started on the
first call, and callers hop to it and back (``on_grpc_loop``, ``Channels(own_loop=True)``).
``pigeon run`` lives on one loop from its first call to its ``aclose``, so its channels stay
on it (``own_loop=False``), sparing each call two trips between threads.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from collections.abc import Coroutine, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from pigeon.render import RenderedRequest
from pigeon.rpc import INSTALL_HINT, GrpcError, Target, split_rpc
from pigeon.rpc.descriptors import Descriptors

MESSAGE_CAP = 4 * 1024 * 1024  # bytes of one message received (grpc's own default, set)

_REFLECTION = (
    "/grpc.reflection.v1.ServerReflection/ServerReflectionInfo",
    "/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo",
)


T = TypeVar("T")
_LOOP: asyncio.AbstractEventLoop | None = None
_LOOP_LOCK = threading.Lock()


def grpc_loop() -> asyncio.AbstractEventLoop:
    """The loop every gRPC operation runs on, started (in a daemon thread) on first use."""
    global _LOOP
    with _LOOP_LOCK:
        if _LOOP is None or _LOOP.is_closed():
            loop = asyncio.new_event_loop()
            threading.Thread(target=loop.run_forever, name="pigeon-grpc", daemon=True).start()
            _LOOP = loop
        return _LOOP


async def on_grpc_loop(coro: Coroutine[Any, Any, T]) -> T:
    """Await ``coro`` on the gRPC loop (cancelling the caller cancels it there too)."""
    loop = grpc_loop()
    if asyncio.get_running_loop() is loop:
        return await coro
    return await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(coro, loop))


def grpc_module() -> Any:
    """grpc, or ``GrpcError`` saying how to install it."""
    try:
        import grpc
        import grpc.aio  # noqa: F401
    except ImportError:
        raise GrpcError(INSTALL_HINT) from None
    return grpc


def _read(path: str, what: str) -> bytes:
    from pigeon.files import read_capped

    try:
        return read_capped(path, 10 * 1024 * 1024)
    except OSError as exc:
        raise GrpcError(f"{what} {path}: {exc.strerror or exc}") from None


def _pem_key(pem: bytes) -> bytes | None:
    start = pem.find(b"-----BEGIN ")
    while start >= 0:
        line_end = pem.find(b"\n", start)
        header = pem[start:line_end]
        if b"PRIVATE KEY" in header:
            end_marker = b"-----END " + header[len(b"-----BEGIN ") :].strip()
            end = pem.find(end_marker, start)
            if end >= 0:
                return pem[start : end + len(end_marker)] + b"\n"
        start = pem.find(b"-----BEGIN ", start + 1)
    return None


def _options(rendered: RenderedRequest, target: Target) -> tuple[list[tuple[str, Any]], Any]:
    """The channel's options and, with TLS, its credentials material (what the collection's
    ``[settings]`` and ``[[certificates]]`` say, as an HTTP send reads them)."""
    from pigeon import __version__
    from pigeon.proxies import proxy_for

    spec = rendered.transport
    options: list[tuple[str, Any]] = [
        ("grpc.max_receive_message_length", MESSAGE_CAP),
        ("grpc.primary_user_agent", f"pigeon/{__version__}"),
        ("grpc.enable_retries", 0),
    ]
    if not spec.trust_env:
        options.append(("grpc.enable_http_proxy", 0))
    proxy = proxy_for(spec, f"{'https' if target.tls else 'http'}://{target.address}")
    if proxy is not None:
        if not proxy.startswith("http://"):
            raise GrpcError(f"proxy {proxy}: gRPC calls go through http:// proxies only")
        options.append(("grpc.http_proxy", spec.proxy))
    if not target.tls:
        return options, None
    if not rendered.settings.verify_tls:
        raise GrpcError(
            "verify_tls = false is not available for gRPC calls: name the server's CA in "
            "settings.ca_bundle"
        )
    if spec.ca_bundle:
        roots: bytes | None = _read(spec.ca_bundle, "settings.ca_bundle")
    elif spec.system_trust:
        import ssl

        cafile = ssl.get_default_verify_paths().cafile
        roots = _read(cafile, "the system's trust store") if cafile else None
    else:
        import certifi

        roots = _read(certifi.where(), "certifi's roots")
    key = chain = None
    if spec.cert:
        if spec.password:
            raise GrpcError("a client key with a password is not available for gRPC calls")
        chain = _read(spec.cert, "the client certificate")
        key = _read(spec.key, "the client key") if spec.key else _pem_key(chain)
        if key is None:
            raise GrpcError(f"the client certificate {spec.cert} holds no private key")
    return options, (roots, key, chain)


@dataclass
class Channels:
    """The channels of one app session or one run, made on first use and reused by target
    and transport, with the descriptors each service was found with; ``aclose`` ends them.
    ``own_loop``: every gRPC operation on the gRPC loop (the app); else on the caller's
    loop, which must outlive the channels (``pigeon run``: ``aclose`` before it ends)."""

    own_loop: bool = True
    channels: dict[tuple[Any, ...], Any] = field(default_factory=dict)
    described: dict[tuple[Any, ...], Descriptors] = field(default_factory=dict)

    async def on_loop(self, coro: Coroutine[Any, Any, T]) -> T:
        """Await ``coro`` where this set's gRPC operations run."""
        if self.own_loop:
            return await on_grpc_loop(coro)
        return await coro

    def channel(self, rendered: RenderedRequest, target: Target) -> Any:
        grpc = grpc_module()
        options, tls = _options(rendered, target)
        key = (target, tuple(options), tls, None if self.own_loop else asyncio.get_running_loop())
        found = self.channels.get(key)
        if found is not None:
            return found
        if tls is None:
            channel = grpc.aio.insecure_channel(target.address, options=options)
        else:
            roots, key_pem, chain = tls
            creds = grpc.ssl_channel_credentials(roots, key_pem, chain)
            channel = grpc.aio.secure_channel(target.address, creds, options=options)
        self.channels[key] = channel
        return channel

    async def aclose(self) -> None:
        channels, self.channels = list(self.channels.values()), {}

        async def close() -> None:
            for channel in channels:
                with contextlib.suppress(Exception):
                    await channel.close()

        if channels:
            await self.on_loop(close())


def _protos_key(files: Sequence[Path], dirs: Sequence[Path]) -> tuple[Any, ...]:
    stats = []
    for path in files:
        try:
            info = path.stat()
            stats.append((str(path), info.st_mtime_ns, info.st_size))
        except OSError:
            stats.append((str(path), 0, -1))
    return ("protos", tuple(stats), tuple(map(str, dirs)))


async def descriptors_for(
    channels: Channels,
    root: Path,
    grpc_keys: Any,
    target: Target,
    channel: Any,
    deadline: float,
    gate: Any = None,
) -> tuple[Descriptors, list[str]]:
    """The descriptors of the request's method, and notes: from its ``protos`` (compiled
    once per version of the files; outside the collection only through ``gate``), else by
    reflection from the server (once per service and session, cached on disk; when the
    server has no reflection, the cache is used with a note)."""
    from pigeon.rpc import descriptors as d

    notes: list[str] = []
    if grpc_keys.protos:
        paths = [_file(root, p, gate, "protos") for p in grpc_keys.protos]
        dirs = [_file(root, p, gate, "import_paths") for p in grpc_keys.import_paths]
        key = _protos_key(paths, dirs)
        found = channels.described.get(key)
        if found is None:
            compiled = await asyncio.to_thread(d.compile_protos, paths, dirs, root)
            found = channels.described[key] = Descriptors(compiled)
        return found, notes
    service, _ = split_rpc(grpc_keys.rpc)
    key = ("reflection", target.url, service)
    found = channels.described.get(key)
    if found is not None:
        return found, notes
    try:
        files: list[bytes] = await reflect(channel, service, deadline)
    except GrpcError as exc:
        cached = await asyncio.to_thread(d.load, root, target.url)
        if cached is None or "no reflection" not in str(exc):
            raise
        notes.append(f"{exc}: the descriptors cached in .pigeon/grpc/ were used")
        files = cached
    else:
        cached = await asyncio.to_thread(d.load, root, target.url) or []
        merged = {_file_name(f): f for f in cached}
        merged.update((_file_name(f), f) for f in files)
        with contextlib.suppress(GrpcError):  # a cache that cannot be written: no matter
            if len(merged) <= d.MAX_FILES:
                await asyncio.to_thread(d.save, root, target.url, list(merged.values()))
    found = channels.described[key] = Descriptors(files)
    return found, notes


def _file_name(data: bytes) -> str:
    from google.protobuf import descriptor_pb2

    try:
        name: str = descriptor_pb2.FileDescriptorProto.FromString(data).name
    except Exception:
        return ""
    return name


def _file(root: Path, text: str, gate: Any, what: str) -> Path:
    path = Path(text).expanduser()
    if not path.is_absolute():
        path = root / path
    if gate is not None:
        gate.file(path, what)
    return path


class _Asking:
    """A reflection stream fed from a queue: grpc writes each request in its own task, so a
    server that ends the call at once (``UNIMPLEMENTED``) is seen as that status on the next
    read, never as a failed write."""

    def __init__(self, channel: Any, path: str, deadline: float) -> None:
        from grpc_reflection.v1alpha import reflection_pb2 as pb

        self.queue: asyncio.Queue[Any] = asyncio.Queue()
        stream = channel.stream_stream(
            path,
            request_serializer=pb.ServerReflectionRequest.SerializeToString,
            response_deserializer=pb.ServerReflectionResponse.FromString,
        )
        self.call = stream(self._requests(), timeout=max(deadline - time.monotonic(), 0.001))

    async def _requests(self) -> Any:
        while (request := await self.queue.get()) is not None:
            yield request

    def ask(self, **request: str) -> None:
        from grpc_reflection.v1alpha import reflection_pb2 as pb

        self.queue.put_nowait(pb.ServerReflectionRequest(**request))

    async def answer(self) -> Any:
        """The next answer (``grpc.aio.EOF`` at the end); ``AioRpcError`` for the status."""
        return await self.call.read()

    def close(self) -> None:
        self.queue.put_nowait(None)
        self.call.cancel()


def _absent(exc: Any, path: str) -> bool:
    """Whether a failed reflection call means the server lacks that version of the service.
    A server without it may end the call before grpc has written the request, which grpc
    reports as INTERNAL rather than UNIMPLEMENTED, for v1 and v1alpha alike; v1 is asked
    first, so an INTERNAL there is always taken as absent, and on v1alpha only when grpc says
    the call ended in its own core (a server's own INTERNAL carries the server's details)."""
    grpc = grpc_module()
    code = exc.code()
    if code == grpc.StatusCode.UNIMPLEMENTED or path != _REFLECTION[-1]:
        return True
    return bool(code == grpc.StatusCode.INTERNAL and exc.details() == "Internal error from Core")


def _reflection_error(exc: Any) -> GrpcError:
    grpc = grpc_module()
    code = exc.code()
    if code == grpc.StatusCode.RESOURCE_EXHAUSTED:
        return GrpcError(f"reflection: an answer larger than {MESSAGE_CAP // 2**20} MiB")
    return GrpcError(f"reflection: {code.name} {printable_text(exc.details() or '')}".strip())


async def reflect(channel: Any, symbol: str, deadline: float) -> list[bytes]:
    """The descriptor files of ``symbol`` and all it imports, asked of the server's
    reflection service (v1, else v1alpha), before ``deadline`` (``time.monotonic``).
    Bounded: ``MAX_FILES`` files and ``MAX_BYTES`` bytes at most; each file asked once."""
    grpc = grpc_module()
    from pigeon.rpc.descriptors import MAX_BYTES, MAX_FILES

    for path in _REFLECTION:
        asking = _Asking(channel, path, deadline)
        files: dict[str, bytes] = {}
        size = 0
        try:
            asking.ask(file_containing_symbol=symbol)
            asked = 1
            wanted: list[str] = []
            while asked:
                answer = await asking.answer()
                if answer is grpc.aio.EOF:
                    break
                asked -= 1
                if answer.HasField("error_response"):
                    message = answer.error_response.error_message or "not found"
                    raise GrpcError(f"reflection: {symbol}: {printable_text(message)}")
                for data in answer.file_descriptor_response.file_descriptor_proto:
                    size += len(data)
                    if size > MAX_BYTES:
                        raise GrpcError(
                            f"reflection: the descriptors are larger than {MAX_BYTES // 2**20} MiB"
                        )
                    name = _file_name(data)
                    if name in files:
                        continue
                    files[name] = data
                    if len(files) > MAX_FILES:
                        raise GrpcError(f"reflection: more than {MAX_FILES} descriptor files")
                    wanted += [dep for dep in _dependencies(data) if dep not in files]
                while not asked and wanted:
                    name = wanted.pop()
                    if name not in files:
                        asking.ask(file_by_filename=name)
                        asked = 1
        except grpc.aio.AioRpcError as exc:
            if _absent(exc, path):
                continue
            raise _reflection_error(exc) from None
        finally:
            asking.close()
        if not files:
            raise GrpcError(f"reflection: the server gave nothing for {symbol}")
        return list(files.values())
    raise GrpcError("the server has no reflection service")


async def list_services(channel: Any, deadline: float) -> list[str]:
    """The services the server's reflection lists (at most 1,000)."""
    grpc = grpc_module()
    for path in _REFLECTION:
        asking = _Asking(channel, path, deadline)
        try:
            asking.ask(list_services="")
            answer = await asking.answer()
        except grpc.aio.AioRpcError as exc:
            if _absent(exc, path):
                continue
            raise _reflection_error(exc) from None
        finally:
            asking.close()
        if answer is grpc.aio.EOF:
            return []
        return [s.name for s in answer.list_services_response.service][:1000]
    raise GrpcError("the server has no reflection service")


def _dependencies(data: bytes) -> list[str]:
    from google.protobuf import descriptor_pb2

    try:
        return list(descriptor_pb2.FileDescriptorProto.FromString(data).dependency)
    except Exception:
        return []


def printable_text(text: str) -> str:
    """Text from a server, its control characters shown escaped."""
    from pigeon.terminal import printable

    return printable(text)
