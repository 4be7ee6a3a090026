"""Run a phase's scripts with the ``pigeon`` object, and catch everything they do (DESIGN §8).

Scripts are ordinary, trusted Python with full access to the process that runs them. There is
no sandbox -- a script can read files, open sockets or import anything -- which is exactly why
``run_scripts`` refuses to run anything when ``trusted`` is false.

Every script gets a fresh namespace holding ``pigeon``, ``datetime``, ``timezone``,
``timedelta``, ``date`` and ``json``, and a ``print`` that writes to the outcome's log instead
of the terminal (``sys.stdout`` and ``sys.stderr`` included), so the app and the CLI decide
where output goes; each script's output is capped at ``OUTPUT_CAP`` bytes, the rest counted.
An exception stops the remaining scripts of the phase (they usually depend on what the failing
one was setting up); a failed ``assert`` in ``post_response`` ends only its own script.
Variables set and request edits made before an error are kept.

This module runs scripts in the calling process and has no time limit: the app, ``pigeon
run`` and ``pigeon render`` call it inside the script worker (``worker``, driven by the
parent's ``process.ScriptWorker``), which a time limit, the app's escape and ctrl+c kill.
``run_scripts`` is the whole seam: it takes the model, the scopes and the runtime variables,
and returns a ``ScriptOutcome`` of plain records, never raising for anything a script does.
"""

from __future__ import annotations

import builtins
import copy
import io
import json
import sys
from collections.abc import Callable
from datetime import date, datetime, timedelta, timezone
from functools import lru_cache
from types import CodeType
from typing import Any

from pigeon.model import Collection, Folder, Request
from pigeon.scopes import RuntimeVars, Scopes
from pigeon.scripts.api import PigeonAPI, ScriptResponse
from pigeon.scripts.asserts import EXPLAIN, explain, rewrite
from pigeon.scripts.outcome import (
    LogLine,
    ScriptOutcome,
    assertion_failure,
    script_error,
    syntax_error,
)
from pigeon.scripts.sources import Phase, ScriptSource, check_phase, script_sources

OUTPUT_CAP = 1024 * 1024  # bytes of print/log output kept per script


@lru_cache(maxsize=512)
def _compile(code: str, filename: str) -> CodeType:
    """Compile a script once per text (and location, which its tracebacks name), its asserts
    rewritten to explain a failure (``pigeon.scripts.asserts``)."""
    return compile(rewrite(code, filename), filename, "exec", dont_inherit=True)


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
) -> ScriptOutcome:
    """Run the scripts of ``phase`` for one send; never raises for anything a script does.

    ``request`` is not modified: scripts edit a deep copy, returned as ``outcome.request``
    (the very same object as ``request`` when no script changed it). When it differs, the
    caller builds new scopes for it before rendering, since its variables may have changed.
    ``response`` (or its alias ``exchange``) is the exchange a ``post_response`` script reads.
    """
    check_phase(phase)
    sources = script_sources(collection, chain, request, phase)
    if sources and not trusted:
        return ScriptOutcome(phase=phase, request=request, skipped_untrusted=True)
    exchange = response if response is not None else exchange
    return run_sources(phase, sources, request, scopes, runtime, exchange)


def run_sources(
    phase: str,
    sources: list[ScriptSource],
    request: Request,
    scopes: Scopes,
    runtime: RuntimeVars,
    exchange: Any = None,
    *,
    log: Callable[[LogLine], None] | None = None,
    started: Callable[[int], None] | None = None,
    sender: Callable[[str, dict[str, Any]], Any] | None = None,
    ws: Callable[..., Any] | None = None,
) -> ScriptOutcome:
    """Run these scripts, in order, as ``run_scripts`` does once they are known and trusted.

    ``log`` hears each output line as it is written (default: the outcome's own list) and
    ``started`` the index of each script as it starts: the worker passes them on at once, so
    the parent keeps them when it has to kill a script.
    """
    outcome = ScriptOutcome(phase=phase, request=request)
    if not sources:
        return outcome
    work = copy.deepcopy(request)
    if exchange is not None and not isinstance(exchange, ScriptResponse):
        exchange = ScriptResponse(exchange)
    emit = log if log is not None else outcome.log.append

    for index, source in enumerate(sources):
        if started is not None:
            started(index)
        writer = _LineWriter(emit, source)
        api = PigeonAPI(phase, work, scopes, runtime, exchange, writer.write, sender, ws)
        failed = _run_one(source, _namespace(api, writer), outcome)
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
        EXPLAIN: explain,
    }


def _run_one(source: ScriptSource, namespace: dict[str, Any], outcome: ScriptOutcome) -> bool:
    """Run one script; record what went wrong. True when the phase should stop."""
    lines = source.code.splitlines()
    try:
        code = _compile(source.code, source.filename)
    except SyntaxError as exc:
        outcome.errors.append(syntax_error(source, exc))
        return True
    try:
        exec(code, namespace)
    except AssertionError as exc:
        if source.phase != "post_response":
            outcome.errors.append(script_error(source, exc, lines))
            return True
        outcome.assertion_failures.append(assertion_failure(source, exc, lines))
        return False
    except (Exception, SystemExit) as exc:
        outcome.errors.append(script_error(source, exc, lines))
        return True
    return False


class _LineWriter:
    """Collects one script's printed text and turns it into labelled log lines.

    Keeps the first ``OUTPUT_CAP`` bytes and counts the rest, so a chatty script costs a
    bounded amount of memory wherever its log goes.
    """

    def __init__(self, emit: Callable[[LogLine], None], source: ScriptSource) -> None:
        self._emit = emit
        self._source = source
        self._pending = ""
        self._room = OUTPUT_CAP
        self._dropped = 0

    def write(self, text: str) -> None:
        if self._room <= 0:
            self._dropped += len(text.encode("utf-8", "replace"))
            return
        data = text.encode("utf-8", "replace")
        if len(data) > self._room:
            self._dropped += len(data) - self._room
            text = data[: self._room].decode("utf-8", "ignore")
            self._room = 0
        else:
            self._room -= len(data)
        text = self._pending + text
        *complete, self._pending = text.split("\n")
        for line in complete:
            self._emit(LogLine(self._source.label, self._source.phase, line))

    def flush(self) -> None:
        if self._pending:
            pending, self._pending = self._pending, ""
            self._emit(LogLine(self._source.label, self._source.phase, pending))
        if self._dropped:
            dropped, self._dropped = self._dropped, 0
            note = f"... {dropped:,} more bytes not shown"
            self._emit(LogLine(self._source.label, self._source.phase, note))

    def print(
        self,
        *values: Any,
        sep: str | None = " ",
        end: str | None = "\n",
        file: Any = None,
        flush: bool = False,
    ) -> None:
        """``print`` for scripts: to the log, unless a file other than stdout/stderr is named."""
        if file is not None and file is not sys.stdout and file is not sys.stderr:
            builtins.print(*values, sep=sep, end=end, file=file, flush=flush)
            return
        buffer = io.StringIO()
        builtins.print(*values, sep=sep, end=end, file=buffer)
        self.write(buffer.getvalue())
