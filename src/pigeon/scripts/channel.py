"""The pipe between the app (or ``pigeon run``) and its script worker process (DESIGN §8).

Messages are pickled tuples, each framed by its length (8 bytes, big-endian). Pickle keeps
the exact kinds of values (dates, datetimes, the model's dataclasses) without a schema to keep
in step. Either side may call the other while a phase runs, over the same pipe:

parent -> worker
    ``Job`` (run one phase's scripts); ``("ok", value)`` / ``("err", message)`` replies.
worker -> parent
    ``("ready", pid)`` once started; then, for a job, ``("start", index)`` as each script
    starts, ``("var", name, value)`` / ``("del", name)`` as runtime variables change,
    ``("log", LogLine)`` as output is written, ``("call", name)`` to ask the parent for
    something only it holds (the response body: ``"text"``, ``"body"``, ``"json"``; or
    ``("send", ref, variables)``: send another request, ``pigeon.send``), and finally
    ``("done", Done)``.

Everything a phase did is sent as it happens, so a worker killed mid-script still leaves its
variables and output with the parent. The parent reads the worker's messages with
``decode_from_worker``, which builds only the plain kinds and records listed below: whatever
a script does to the worker, it cannot make the parent run code by unpickling.
"""

from __future__ import annotations

import io
import pickle
import struct
from dataclasses import dataclass, field
from typing import Any, BinaryIO

from pigeon.model import Request
from pigeon.scopes import Layer
from pigeon.scripts.outcome import AssertionFailure, ScriptError
from pigeon.scripts.sources import ScriptSource

HEADER = struct.Struct("!Q")


@dataclass
class ResponseFacts:
    """What a ``post_response`` script may read of the exchange without asking the parent."""

    status: int | None
    reason: str
    headers: list[tuple[str, str]]
    url: str
    http_version: str
    elapsed_ms: float | None
    error: str | None
    # A gRPC call's ``details`` and ``trailers`` (pairs); ``None`` for HTTP. Its replies are
    # asked of the parent (``("call", "messages")``) when a script first reads them.
    grpc: dict[str, Any] | None = None


@dataclass
class Job:
    """One phase to run: the scripts, and the state they may read (the runtime variables as
    a plain dict; the scopes' layers with the runtime layer left for the worker to fill)."""

    phase: str
    sources: list[ScriptSource]
    request: Request
    layers: list[Layer]
    environ: dict[str, str]
    dotenv: dict[str, str]
    runtime: dict[str, Any]
    response: ResponseFacts | None = None


@dataclass
class Done:
    """The end of a phase: what is not sent as it happens. ``request`` is ``None`` when no
    script changed it."""

    errors: list[ScriptError] = field(default_factory=list)
    assertion_failures: list[AssertionFailure] = field(default_factory=list)
    ran: int = 0
    not_run: list[str] = field(default_factory=list)
    request: Request | None = None


def encode(message: Any) -> bytes:
    """A framed message (``pickle.PicklingError`` or ``TypeError`` for a value pickle refuses)."""
    data = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
    return HEADER.pack(len(data)) + data


# The classes a worker's message may hold; anything else is refused.
_ALLOWED = {
    ("datetime", "date"),
    ("datetime", "datetime"),
    ("datetime", "time"),
    ("datetime", "timedelta"),
    ("datetime", "timezone"),
    ("pathlib", "PosixPath"),
    ("pathlib", "PurePosixPath"),
    ("pathlib", "WindowsPath"),
    ("pathlib", "PureWindowsPath"),
    *(
        ("pigeon.model", name)
        for name in (
            "Request",
            "Header",
            "QueryParam",
            "FormField",
            "Body",
            "Auth",
            "Scripts",
            "Settings",
            "WebSocket",
            "Grpc",
            "Message",
            "Stream",
        )
    ),
    ("pigeon.scripts.outcome", "ScriptError"),
    ("pigeon.scripts.outcome", "AssertionFailure"),
    ("pigeon.scripts.outcome", "LogLine"),
    ("pigeon.scripts.channel", "Done"),
}


class _WorkerUnpickler(pickle.Unpickler):
    def find_class(self, module: str, name: str) -> Any:
        if (module, name) not in _ALLOWED:
            raise pickle.UnpicklingError(f"the script worker sent a {module}.{name}")
        return super().find_class(module, name)


def decode_from_worker(data: bytes) -> Any:
    """A worker's message, holding only plain values and the classes above."""
    return _WorkerUnpickler(io.BytesIO(data)).load()


class Pipe:
    """The worker's end: blocking reads and writes of framed messages."""

    def __init__(self, reader: BinaryIO, writer: BinaryIO) -> None:
        self._reader = reader
        self._writer = writer

    def send(self, message: Any) -> None:
        self.write(encode(message))

    def write(self, frame: bytes) -> None:
        self._writer.write(frame)
        self._writer.flush()

    def receive(self) -> Any:
        """The parent's next message (trusted: the parent started this process), or
        ``None`` when the parent has gone."""
        header = self._reader.read(HEADER.size)
        if len(header) < HEADER.size:
            return None
        (size,) = HEADER.unpack(header)
        data = self._reader.read(size)
        if len(data) < size:
            return None
        return pickle.loads(data)

    def call(self, name: str | tuple[Any, ...]) -> Any:
        """Ask the parent for ``name`` and wait for its answer."""
        self.send(("call", name))
        reply = self.receive()
        if reply is None:
            raise SystemExit(0)  # the parent has gone: nothing left to answer for
        kind, value = reply
        if kind == "err":
            raise ValueError(value)
        return value
