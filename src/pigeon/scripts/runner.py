"""Run a phase's scripts with the ``pigeon`` object, and catch everything they do (DESIGN §8).

Scripts are ordinary, trusted Python: they run in this process with full access to it. There
is no sandbox -- a script can read files, open sockets or import anything -- which is exactly
why ``run_scripts`` refuses to run anything when ``trusted`` is false.

Every script gets a fresh namespace holding ``pigeon``, ``datetime``, ``timezone``,
``timedelta``, ``date`` and ``json``, and a ``print`` that writes to the outcome's log instead
of the terminal, so the app and the CLI decide where output goes. An exception stops the
remaining scripts of the phase (they usually depend on what the failing one was setting up);
a failed ``assert`` in ``post_response`` ends only its own script. Variables set and request
edits made before an error are kept.

Python cannot stop a thread from outside, so a script that never returns blocks its caller.
The app therefore runs scripts in a worker thread, and callers may pass ``timeout`` /
``cancel``: a line tracer then raises ``ScriptInterrupted`` at the script's next line once the
time is up or the event is set. That interrupts Python loops in the script, not a blocking call
into C (a ``time.sleep`` or socket read ends first).

``run_scripts`` is the whole seam: it takes the model, the scopes and the runtime variables,
and returns a ``ScriptOutcome`` of plain records, never raising for anything a script does.
"""

from __future__ import annotations

import builtins
import copy
import io
import json
import sys
import threading
import time
from datetime import date, datetime, timedelta, timezone
from functools import lru_cache
from types import CodeType, FrameType
from typing import Any

from pigeon.model import Collection, Folder, Request
from pigeon.scopes import RuntimeVars, Scopes
from pigeon.scripts.api import PigeonAPI, ScriptResponse
from pigeon.scripts.outcome import (
    LogLine,
    ScriptOutcome,
    assertion_failure,
    script_error,
    syntax_error,
)
from pigeon.scripts.sources import Phase, ScriptSource, check_phase, script_sources


class ScriptInterrupted(BaseException):
    """Raised inside a script that ran out of time or was cancelled.

    A ``BaseException`` so that a script's own ``except Exception`` cannot swallow it.
    """


@lru_cache(maxsize=512)
def _compile(code: str, filename: str) -> CodeType:
    """Compile a script once per text (and location, which its tracebacks name)."""
    return compile(code, filename, "exec", dont_inherit=True)


# -- running --------------------------------------------------------------------------------


def run_scripts(
    phase: Phase | str,
    collection: Collection,
    chain: list[Folder] | tuple[Folder, ...],
    request: Request,
    scopes: Scopes,
    runtime: RuntimeVars,
    *,
    trusted: bool,
    response: Any = None,
    exchange: Any = None,
    timeout: float | None = None,
    cancel: threading.Event | None = None,
) -> ScriptOutcome:
    """Run the scripts of ``phase`` for one send; never raises for anything a script does.

    ``request`` is not modified: scripts edit a deep copy, returned as ``outcome.request``
    (the very same object as ``request`` when no script changed it). When it differs, the
    caller builds new scopes for it before rendering, since its variables may have changed.
    ``response`` (or its alias ``exchange``) is the exchange a ``post_response`` script
    reads. ``timeout`` (seconds, all scripts of the phase together) and ``cancel`` interrupt a
    script between two of its lines.
    """
    check_phase(phase)
    sources = script_sources(collection, chain, request, phase)
    outcome = ScriptOutcome(phase=phase, request=request)
    if not sources:
        return outcome
    if not trusted:
        outcome.skipped_untrusted = True
        return outcome

    work = copy.deepcopy(request)
    exchange = response if response is not None else exchange
    if exchange is not None and not isinstance(exchange, ScriptResponse):
        exchange = ScriptResponse(exchange)
    deadline = None if timeout is None else time.monotonic() + timeout

    for index, source in enumerate(sources):
        writer = _LineWriter(outcome, source)
        api = PigeonAPI(phase, work, scopes, runtime, exchange, writer.write)
        namespace = _namespace(api, writer)
        failed = _run_one(source, namespace, outcome, deadline, timeout, cancel)
        writer.flush()
        work = api.request  # a script may have replaced the request object
        outcome.ran += 1
        if failed:
            outcome.not_run = [s.label for s in sources[index + 1 :]]
            break

    outcome.request = request if work == request else work
    return outcome


def _namespace(api: PigeonAPI, writer: _LineWriter) -> dict[str, Any]:
    return {
        "__name__": "__pigeon_script__",
        "__builtins__": builtins,
        "pigeon": api,
        "datetime": datetime,
        "timezone": timezone,
        "timedelta": timedelta,
        "date": date,
        "json": json,
        "print": writer.print,
    }


def _run_one(
    source: ScriptSource,
    namespace: dict[str, Any],
    outcome: ScriptOutcome,
    deadline: float | None,
    timeout: float | None,
    cancel: threading.Event | None,
) -> bool:
    """Run one script; record what went wrong. True when the phase should stop."""
    lines = source.code.splitlines()
    try:
        code = _compile(source.code, source.filename)
    except SyntaxError as exc:
        outcome.errors.append(syntax_error(source, exc))
        return True
    try:
        if deadline is None and cancel is None:
            exec(code, namespace)
        else:
            with _Watch(source.filename, deadline, timeout, cancel):
                exec(code, namespace)
    except AssertionError as exc:
        if source.phase != "post_response":
            outcome.errors.append(script_error(source, exc, lines))
            return True
        outcome.assertion_failures.append(assertion_failure(source, exc, lines))
        return False
    except (Exception, SystemExit, ScriptInterrupted) as exc:
        outcome.errors.append(script_error(source, exc, lines))
        return True
    return False


class _Watch:
    """Install a line tracer for the script's own frames while it runs (timeout / cancel)."""

    def __init__(
        self,
        filename: str,
        deadline: float | None,
        timeout: float | None,
        cancel: threading.Event | None,
    ) -> None:
        self.filename = filename
        self.deadline = deadline
        self.timeout = timeout
        self.cancel = cancel
        self.previous: Any = None

    def _check(self) -> None:
        if self.cancel is not None and self.cancel.is_set():
            raise ScriptInterrupted("the script was cancelled")
        if self.deadline is not None and time.monotonic() >= self.deadline:
            raise ScriptInterrupted(f"the script ran longer than {self.timeout:g} s")

    def _local(self, frame: FrameType, event: str, arg: Any) -> Any:
        if event == "line":
            self._check()
        return self._local

    def _global(self, frame: FrameType, event: str, arg: Any) -> Any:
        if frame.f_code.co_filename == self.filename:
            self._check()
            return self._local
        return None

    def __enter__(self) -> None:
        self._check()
        self.previous = sys.gettrace()
        sys.settrace(self._global)

    def __exit__(self, *exc: object) -> None:
        sys.settrace(self.previous)


class _LineWriter:
    """Collects one script's printed text and turns it into labelled log lines."""

    def __init__(self, outcome: ScriptOutcome, source: ScriptSource) -> None:
        self._outcome = outcome
        self._source = source
        self._pending = ""

    def write(self, text: str) -> None:
        text = self._pending + text
        *complete, self._pending = text.split("\n")
        for line in complete:
            self._outcome.log.append(LogLine(self._source.label, self._source.phase, line))

    def flush(self) -> None:
        if self._pending:
            pending, self._pending = self._pending, ""
            self._outcome.log.append(LogLine(self._source.label, self._source.phase, pending))

    def print(
        self,
        *values: Any,
        sep: str | None = " ",
        end: str | None = "\n",
        file: Any = None,
        flush: bool = False,
    ) -> None:
        """``print`` for scripts: to the log, unless a ``file`` is named."""
        if file is not None:
            builtins.print(*values, sep=sep, end=end, file=file, flush=flush)
            return
        buffer = io.StringIO()
        builtins.print(*values, sep=sep, end=end, file=buffer)
        self.write(buffer.getvalue())
