"""The script worker: the child process that runs one collection's scripts (DESIGN §8).

A fresh Python (started by ``process.ScriptWorker`` with the collection's directory as its
working directory) that loops: read a ``Job``, run its scripts with ``runner.run_sources``,
report as it goes (``channel`` says what is sent when), answer ``Done``. It holds no state
between jobs beyond imports and compiled scripts: the parent ships what each phase reads.

The process exists so that it can be killed: a script in ``time.sleep``, a C call or a
catastrophic regex stops only when the parent sends SIGKILL. It also carries the limits a
thread could not: an address-space limit (``RLIMIT_AS``), so a script that allocates without
bound gets a ``MemoryError`` here instead of taking the app down, and SIGINT ignored, so the
ctrl+c a terminal sends to its whole process group is the parent's to act on.

The protocol's descriptors are moved off 0 and 1, which then point at ``/dev/null``: a script
that reads stdin or writes to the file descriptors cannot disturb the pipe.
"""

from __future__ import annotations

import contextlib
import os
import resource
import signal
import sys
from typing import Any

from pigeon.scopes import Layer, RuntimeVars, Scopes
from pigeon.scripts.api import ScriptResponse
from pigeon.scripts.channel import Done, Job, Pipe, ResponseFacts, encode
from pigeon.scripts.outcome import ScriptError
from pigeon.scripts.runner import run_sources

EXIT_OUT_OF_MEMORY = 86  # the worker could not even report a MemoryError


def out_of_memory(memory_mb: float) -> str:
    return f"script ran out of memory (limit {memory_mb:g} MB)"


class _SharedRuntime(RuntimeVars):
    """The job's runtime variables; every change also goes to the parent at once."""

    def __init__(self, pipe: Pipe, initial: dict[str, Any]) -> None:
        super().__init__()
        self._vars = initial  # checked by the parent already
        self._pipe = pipe

    def set(self, name: str, value: Any) -> None:
        super().set(name, value)
        try:
            frame = encode(("var", name, self._vars[name]))
        except Exception as exc:  # a str subclass defined by the script, say
            del self._vars[name]
            raise ValueError(f"variable {name}: this value cannot be stored ({exc})") from None
        self._pipe.write(frame)

    def delete(self, name: str) -> None:
        super().delete(name)
        self._pipe.send(("del", name))


class _RemoteExchange:
    """The exchange as a ``ScriptResponse`` reads it; the body is asked of the parent when a
    script first reads it, so a large body crosses the pipe only if it is used."""

    def __init__(self, facts: ResponseFacts, pipe: Pipe) -> None:
        self.status = facts.status
        self.reason = facts.reason
        self.headers = facts.headers
        self.url = facts.url
        self.http_version = facts.http_version
        self.elapsed_ms = facts.elapsed_ms
        self.error = facts.error
        self.grpc = facts.grpc
        self._pipe = pipe
        self._text: str | None = None
        self._body: bytes | None = None

    @property
    def text(self) -> str:
        if self._text is None:
            self._text = self._pipe.call("text")
        return self._text

    @property
    def body(self) -> bytes:
        if self._body is None:
            self._body = self._pipe.call("body")
        return self._body

    def json(self) -> None:
        """The exchange's own check (not JSON, empty, truncated): ``ValueError`` if it fails."""
        self._pipe.call("json")

    def messages(self) -> list[Any]:
        """A gRPC call's replies, asked of the parent."""
        messages: list[Any] = self._pipe.call("messages")
        return messages

    def events(self) -> list[dict[str, Any]]:
        events: list[dict[str, Any]] = self._pipe.call("events")
        return events

    def event(self) -> dict[str, Any] | None:
        event: dict[str, Any] | None = self._pipe.call("event")
        return event

    def stop_stream(self) -> None:
        self._pipe.send(("stop_stream",))


def run_job(job: Job, pipe: Pipe, memory_mb: float) -> Done:
    runtime = _SharedRuntime(pipe, job.runtime)
    layers = [
        Layer(layer.scope, layer.label, runtime.mapping) if layer.scope == "runtime" else layer
        for layer in job.layers
    ]
    scopes = Scopes(layers, job.environ, job.dotenv, runtime)
    response = None
    if job.response is not None:
        response = ScriptResponse(_RemoteExchange(job.response, pipe))
    outcome = run_sources(
        job.phase,
        job.sources,
        job.request,
        scopes,
        runtime,
        response,
        log=lambda line: pipe.send(("log", line)),
        started=lambda index: _started(pipe, index),
        sender=lambda ref, values: pipe.call(("send", ref, values)),
        ws=lambda *call: pipe.call(("ws", *call)),
    )
    for error in outcome.errors:
        if error.type == "MemoryError":
            _mark_out_of_memory(error, memory_mb)
    changed = outcome.request if outcome.request is not job.request else None
    return Done(outcome.errors, outcome.assertion_failures, outcome.ran, outcome.not_run, changed)


def _started(pipe: Pipe, index: int) -> None:
    if index:  # the parent assumes the first script until told otherwise
        pipe.send(("start", index))


def _mark_out_of_memory(error: ScriptError, memory_mb: float) -> None:
    error.type, error.message, error.stopped = "OutOfMemory", out_of_memory(memory_mb), True
    error.traceback = error.message


def _limit_memory(memory_mb: float) -> None:
    if memory_mb <= 0:
        return
    wanted = int(memory_mb * 1024 * 1024)
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    if hard != resource.RLIM_INFINITY:
        wanted = min(wanted, hard)
    resource.setrlimit(resource.RLIMIT_AS, (wanted, hard))


def _protocol_pipe() -> Pipe:
    """The pipe on descriptors of its own; 0 and 1 become ``/dev/null``."""
    reader, writer = os.dup(0), os.dup(1)
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 0)
    os.dup2(null, 1)
    os.close(null)
    return Pipe(os.fdopen(reader, "rb"), os.fdopen(writer, "wb"))


def _die_with_parent(parent: int) -> None:
    """On Linux, ask for SIGKILL when the parent dies, so a script stuck in a loop does not
    outlive an app that was itself killed."""
    if not sys.platform.startswith("linux"):
        return
    import ctypes

    pr_set_pdeathsig = 1
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None).prctl(pr_set_pdeathsig, signal.SIGKILL)
    if os.getppid() != parent:  # it died before we asked
        os._exit(0)


def main(argv: list[str] | None = None) -> None:
    """The worker's life; arguments: the memory limit in MB, and the parent's pid. Ends when
    the parent closes the pipe (or kills it)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    args = sys.argv[1:] if argv is None else argv
    memory_mb = float(args[0]) if args else 0
    if len(args) > 1:
        _die_with_parent(int(args[1]))
    try:
        _limit_memory(memory_mb)
        _serve(_protocol_pipe(), memory_mb)
    except MemoryError:
        os._exit(EXIT_OUT_OF_MEMORY)
    except (BrokenPipeError, SystemExit):  # the parent has gone
        os._exit(0)


def _serve(pipe: Pipe, memory_mb: float) -> None:
    pipe.send(("ready", os.getpid()))
    while (job := pipe.receive()) is not None:
        try:
            done = run_job(job, pipe, memory_mb)
        except MemoryError:  # outside a script's own frames: while reporting, say
            pipe.send(("oom", out_of_memory(memory_mb)))
            done = Done()
        pipe.send(("done", done))
