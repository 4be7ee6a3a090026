"""The parent's handle on a collection's script worker process: start, run, kill (DESIGN §8).

Scripts run in a worker process so that they can be stopped at once: Python cannot stop a
thread, but it can kill a process. One ``ScriptWorker`` per open collection (the app's
``Session``, one ``pigeon run`` or ``pigeon render``) starts its process on the first phase
that has scripts to run, reuses it for later ones, and starts a new one after a kill. A
collection that is not trusted never starts one.

``run_scripts`` mirrors ``runner.run_scripts`` and returns the same ``ScriptOutcome``. The
time limit is wall-clock: when it passes, the process gets SIGKILL, whatever the script is
doing (``time.sleep``, a C call, a regex). Cancelling the awaiting task (the app's escape,
ctrl+c in ``pigeon run``) kills it the same way, and ``kill()`` may be called at any time
(quitting the app). Everything the scripts did before the kill (variables, output) has
already reached the parent and is kept.

The pipe is read with asyncio on the caller's event loop: no thread of ours waits on a
script, so nothing stands in the way of the interpreter's shutdown.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import subprocess
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pigeon
from pigeon.config import DEFAULT_SCRIPT_MEMORY_MB
from pigeon.errors import PigeonError
from pigeon.model import Collection, Folder, Request
from pigeon.scopes import Layer, RuntimeVars, Scopes
from pigeon.scripts.api import _elapsed_ms
from pigeon.scripts.channel import (
    HEADER,
    Done,
    Job,
    ResponseFacts,
    decode_from_worker,
    encode,
)
from pigeon.scripts.outcome import LogLine, ScriptOutcome, stopped_error
from pigeon.scripts.sources import ScriptSource, check_phase, script_sources

DEFAULT_MEMORY_MB = DEFAULT_SCRIPT_MEMORY_MB  # config.toml's script_memory_mb
MAX_MESSAGE = 2**31  # bytes; more than a worker within its memory limit can send
START_TIMEOUT = 30.0  # seconds for a fresh worker to say it is ready (a loaded CI box)

_BOOT = "import sys; sys.path[:0] = {path!r}; from pigeon.scripts.worker import main; main()"


class WorkerFailed(PigeonError):
    """The worker could not start, went away, or broke the protocol: the phase's scripts
    stop with one line saying so (exit 1 if it ever reaches the command line)."""


class WorkerGone(WorkerFailed):
    """The worker's end of the pipe closed: it exited or was killed."""


class ScriptWorker:
    """One collection's script worker: a process started on first need."""

    def __init__(self, cwd: Path | None = None, memory_mb: float = DEFAULT_MEMORY_MB) -> None:
        self.cwd = cwd
        self.memory_mb = memory_mb
        self._proc: subprocess.Popen[bytes] | None = None
        self._reader: asyncio.StreamReader | None = None
        self._writer: asyncio.WriteTransport | None = None
        self._read_transport: asyncio.BaseTransport | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._lock: asyncio.Lock | None = None
        self.starts = 0  # processes started so far

    @property
    def pid(self) -> int | None:
        """The running worker's process id, or ``None`` when there is none."""
        return self._proc.pid if self._proc is not None else None

    # -- running a phase ------------------------------------------------------------------------

    async def run_scripts(
        self,
        phase: str,
        collection: Collection,
        chain: list[Folder] | tuple[Folder, ...],
        request: Request,
        scopes: Scopes,
        runtime: RuntimeVars,
        *,
        trusted: bool,
        exchange: Any = None,
        timeout: float | None = None,
        send: Sender | None = None,
        ws: WsCaller | None = None,
    ) -> ScriptOutcome:
        """Run the scripts of ``phase`` in the worker; never raises for anything a script does.

        ``send`` is what ``pigeon.send`` calls (``None``: not available); the time it takes
        counts in the phase's ``timeout``. ``ws`` serves ``pigeon.ws`` (a WebSocket request's
        connection) the same way.

        ``timeout`` (seconds, all scripts of the phase together, from the moment the worker
        has them) kills the worker when it passes. Cancelling the caller kills it too, and
        the cancellation goes on.
        """
        check_phase(phase)
        sources = script_sources(collection, chain, request, phase)
        outcome = ScriptOutcome(phase=phase, request=request)
        if not sources:
            return outcome
        if not trusted:
            outcome.skipped_untrusted = True
            return outcome
        job = _job(phase, sources, _as_seen(request, collection, scopes), scopes, runtime, exchange)
        loop = asyncio.get_running_loop()
        if self._loop is not loop:  # a new event loop: pipes and lock belong to the old one
            self.kill()
            self._loop, self._lock = loop, asyncio.Lock()
        assert self._lock is not None
        async with self._lock:
            current = [0]
            stopped: tuple[str, str] | None = None
            running: subprocess.Popen[bytes] | None = None
            try:
                await self._ensure_started()
                running = self._proc
                async with asyncio.timeout(timeout):
                    await self._converse(job, runtime, outcome, exchange, current, send, ws)
            except TimeoutError:
                self.kill()
                stopped = ("TimedOut", f"{phase} script timed out after {timeout:g} s; stopped")
            except WorkerFailed as exc:
                if self._proc is None and running is not None:  # kill() while it ran
                    stopped = ("Cancelled", f"{phase} script cancelled; stopped")
                else:
                    stopped = ("WorkerDied", self._died(exc))
            except BaseException:  # cancelled (escape, ctrl+c): the script stops now
                self.kill()
                raise
            if stopped is not None:
                outcome.errors.append(stopped_error(sources[current[0]], *stopped))
                outcome.ran = current[0] + 1
                outcome.not_run = [s.label for s in sources[current[0] + 1 :]]
        return outcome

    async def _converse(
        self,
        job: Job,
        runtime: RuntimeVars,
        outcome: ScriptOutcome,
        exchange: Any,
        current: list[int],
        send: Sender | None,
        ws: WsCaller | None = None,
    ) -> None:
        """Send the job, then serve the worker's messages until it says it is done."""
        self._send(job)
        while True:
            message = await self._receive()
            if message[0] == "call" and isinstance(message[1], tuple):
                call = message[1]
                answer = await (_ws(ws, call[1:]) if call[:1] == ("ws",) else _sent(send, call))
                self._send(answer)
                continue
            try:
                if self._handle(message, job, runtime, outcome, exchange, current):
                    return
            except (ValueError, TypeError, IndexError, AttributeError) as exc:
                raise WorkerFailed(f"the script worker sent something unusable: {exc}") from None

    def _handle(
        self,
        message: tuple[Any, ...],
        job: Job,
        runtime: RuntimeVars,
        outcome: ScriptOutcome,
        exchange: Any,
        current: list[int],
    ) -> bool:
        """Act on one message from the worker; True once the phase is done."""
        kind = message[0]
        if kind == "start":
            current[0] = min(max(int(message[1]), 0), len(job.sources) - 1)
        elif kind == "var":
            runtime.set(message[1], message[2])
        elif kind == "del":
            runtime.delete(message[1])
        elif kind == "log" and isinstance(message[1], LogLine):
            outcome.log.append(message[1])
        elif kind == "call":
            self._send(_answer(exchange, message[1]))
        elif kind == "stop_stream":
            stop = getattr(exchange, "stop_stream", None)
            if callable(stop):
                stop()
        elif kind == "oom":
            source = job.sources[current[0]]
            outcome.errors.append(stopped_error(source, "OutOfMemory", message[1]))
        elif kind == "done":
            done = message[1]
            if not isinstance(done, Done):
                raise WorkerFailed("the script worker sent something unreadable")
            outcome.errors += done.errors
            outcome.assertion_failures += done.assertion_failures
            outcome.ran, outcome.not_run = done.ran, done.not_run
            if done.request is not None:
                outcome.request = done.request
            return True
        else:
            raise WorkerFailed(f"unexpected message {kind!r}")
        return False

    # -- the process ----------------------------------------------------------------------------

    async def _ensure_started(self) -> None:
        if self._proc is not None and self._proc.poll() is None:
            return
        self.kill()
        cwd = self.cwd if self.cwd is not None and self.cwd.is_dir() else None
        path = [str(Path(pigeon.__file__).resolve().parents[1])]
        try:
            proc = subprocess.Popen(
                [
                    sys.executable,
                    "-P",  # the collection's folder is not on sys.path: its files are not modules
                    "-c",
                    _BOOT.format(path=path),
                    f"{self.memory_mb:g}",
                    str(os.getpid()),
                ],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                cwd=cwd,
                close_fds=True,
            )
        except OSError as exc:
            raise WorkerFailed(f"cannot start the script worker: {exc}") from exc
        self._proc = proc
        self.starts += 1
        loop = asyncio.get_running_loop()
        reader = asyncio.StreamReader()
        protocol = asyncio.StreamReaderProtocol(reader)
        assert proc.stdout is not None and proc.stdin is not None
        self._read_transport, _ = await loop.connect_read_pipe(lambda: protocol, proc.stdout)
        self._writer, _ = await loop.connect_write_pipe(asyncio.Protocol, proc.stdin)
        self._reader = reader
        try:
            async with asyncio.timeout(START_TIMEOUT):
                ready = await self._receive()
        except TimeoutError:
            raise WorkerFailed(f"the script worker did not start in {START_TIMEOUT:g} s") from None
        if ready[0] != "ready":
            raise WorkerFailed("the script worker did not start")

    def _send(self, message: Any) -> None:
        if self._writer is None or self._writer.is_closing():
            raise WorkerGone("the script worker has gone")
        self._writer.write(encode(message))

    async def _receive(self) -> Any:
        if self._reader is None:
            raise WorkerGone("the script worker has gone")
        try:
            (size,) = HEADER.unpack(await self._reader.readexactly(HEADER.size))
            if size > MAX_MESSAGE:
                raise WorkerFailed(f"the script worker sent a message of {size:,} bytes")
            data = await self._reader.readexactly(size)
        except asyncio.IncompleteReadError:
            raise WorkerGone("the script worker has gone") from None
        try:
            message = decode_from_worker(data)
        except Exception as exc:
            raise WorkerFailed(f"the script worker sent something unreadable: {exc}") from None
        if not isinstance(message, tuple) or not message:
            raise WorkerFailed("the script worker sent something unreadable")
        return message

    def _died(self, exc: WorkerFailed) -> str:
        """One line for a worker that went away or broke the protocol (it is killed)."""
        proc = self._proc
        if proc is not None and isinstance(exc, WorkerGone):
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=1)  # it closed the pipe: let it finish exiting
        self.kill()
        code = proc.returncode if proc is not None else None
        from pigeon.scripts.worker import EXIT_OUT_OF_MEMORY, out_of_memory

        if code == EXIT_OUT_OF_MEMORY:
            return out_of_memory(self.memory_mb)
        if isinstance(exc, WorkerGone) and code is not None:
            if code < 0:
                return f"the script worker was killed (signal {-code}); stopped"
            return f"the script worker exited (code {code}); stopped"
        return f"{exc}; stopped"

    def kill(self) -> None:
        """Stop the worker now (SIGKILL) and forget it; the next phase starts a new one."""
        proc, self._proc = self._proc, None
        for transport in (self._writer, self._read_transport):
            if transport is not None:
                with contextlib.suppress(Exception):  # its event loop may be closed already
                    transport.close()
        self._writer = self._read_transport = self._reader = None
        if proc is None:
            return
        if proc.poll() is None:
            proc.kill()
            with contextlib.suppress(subprocess.TimeoutExpired):  # stuck in the kernel
                proc.wait(timeout=2)
        for pipe in (proc.stdin, proc.stdout):
            if pipe is not None and not pipe.closed:
                with contextlib.suppress(OSError):
                    pipe.close()

    async def aclose(self) -> None:
        self.kill()


def _as_seen(request: Request, collection: Collection, scopes: Scopes) -> Request:
    """The request as its scripts see it: a file body's ``content`` is its description,
    ``<file PATH, N bytes, TYPE>`` (DESIGN §11), never the file; a copy, the request is left
    as it is."""
    body = request.body
    if body.type != "file":
        return request
    from dataclasses import replace

    from pigeon.file_body import inspect, resolve
    from pigeon.render import RenderError, render_text

    shown = render_text(body.path, scopes).text.strip()
    try:
        content_type = render_text(body.content_type, scopes).text.strip()
        described = inspect(resolve(shown, collection.root), shown, content_type).describe()
    except RenderError as exc:
        described = f"<file {shown}: {exc}>"
    return replace(request, body=replace(body, content=described))


def _job(
    phase: str,
    sources: list[ScriptSource],
    request: Request,
    scopes: Scopes,
    runtime: RuntimeVars,
    exchange: Any,
) -> Job:
    layers = [
        Layer(layer.scope, layer.label, {}) if layer.scope == "runtime" else layer
        for layer in scopes.layers
    ]
    response = None
    if exchange is not None:
        response = ResponseFacts(
            status=getattr(exchange, "status", None),
            reason=getattr(exchange, "reason", "") or "",
            headers=[(str(k), str(v)) for k, v in getattr(exchange, "headers", []) or []],
            url=getattr(exchange, "url", "") or "",
            http_version=getattr(exchange, "http_version", "") or "",
            elapsed_ms=_elapsed_ms(exchange),
            error=getattr(exchange, "error", None),
        )
        grpc = getattr(exchange, "grpc", None)
        if grpc is not None:
            response.grpc = {
                "details": str(grpc.details),
                "trailers": [(str(k), str(v)) for k, v in grpc.trailers],
            }
    return Job(
        phase,
        sources,
        request,
        layers,
        dict(scopes.environ),
        dict(scopes.dotenv),
        runtime.as_dict(),
        response,
    )


Sender = Callable[[str, dict[str, Any]], Awaitable[dict[str, Any]]]


async def _sent(send: Sender | None, call: tuple[Any, ...]) -> tuple[str, Any]:
    """The parent's answer to ``pigeon.send``: the response's facts and body, or why not."""
    if send is None:
        return ("err", "pigeon.send is not available here")
    if len(call) != 3 or call[0] != "send" or not isinstance(call[1], str):
        return ("err", "pigeon.send: unreadable call")
    if not isinstance(call[2], dict):
        return ("err", "pigeon.send: vars must be a dict")
    try:
        return ("ok", await send(call[1], call[2]))
    except (ValueError, LookupError, RuntimeError) as exc:
        return ("err", str(exc))


WsCaller = Callable[[tuple[Any, ...]], Awaitable[Any]]


async def _ws(ws: WsCaller | None, call: tuple[Any, ...]) -> tuple[str, Any]:
    """The parent's answer to a ``pigeon.ws`` call (``pigeon.websocket.script_call``)."""
    if ws is None:
        if call and isinstance(call[0], str) and call[0].startswith("grpc."):
            return ("err", "pigeon.grpc is only there in a gRPC request's post-response script")
        return ("err", "pigeon.ws is only there in a WebSocket request's post-response script")
    try:
        return ("ok", await ws(call))
    except (ValueError, ConnectionError, TypeError) as exc:
        return ("err", str(exc))


def _answer(exchange: Any, name: str) -> tuple[str, Any]:
    """The parent's answer to a worker's call about the exchange."""
    if exchange is None:
        return ("err", "there is no response")
    try:
        if name == "text":
            text = getattr(exchange, "text", "")
            return ("ok", text() if callable(text) else (text or ""))
        if name == "body":
            body = getattr(exchange, "body", None)
            return ("ok", body if isinstance(body, bytes) else None)
        if name in ("events", "event"):
            from pigeon.stream import script_events

            if name == "events":
                return ("ok", script_events(exchange))
            event = getattr(exchange, "event", None)
            return ("ok", event.as_dict() if event is not None else None)
        if name == "messages":
            grpc = getattr(exchange, "grpc", None)
            return ("ok", list(grpc.messages) if grpc is not None else [])
        if name == "json":
            check = getattr(exchange, "json", None)
            if callable(check):
                check()
            return ("ok", None)
    except ValueError as exc:
        return ("err", str(exc))
    return ("err", f"unknown call {name!r}")
