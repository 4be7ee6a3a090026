"""Run a collection's Python scripts with the ``pigeon`` object (DESIGN §8).

Scripts are ordinary, trusted Python: they run in this process with full access to it. There
is no sandbox -- a script can read files, open sockets or import anything -- which is exactly
why they run only in a collection the user has trusted (``pigeon.config.TrustStore``; asked
once in the app, ``--trust`` on the command line). ``run_scripts`` refuses to run anything when
``trusted`` is false.

Each phase (``pre_request`` before rendering, ``post_response`` after the response) runs the
collection's script, then each folder's (outer -> inner), then the request's. Every script gets
a fresh namespace holding ``pigeon``, ``datetime``, ``timezone``, ``timedelta``, ``date`` and
``json``, and a ``print`` that writes to the outcome's log instead of the terminal, so the app
and the CLI decide where output goes.

Failures are facts for the caller, never exceptions out of ``run_scripts``:

* An exception in a script becomes a ``ScriptError`` (with a traceback limited to the
  script's own frames and numbered by the script's own lines) and stops the remaining scripts
  of that phase: they usually depend on what the failing script was setting up, and running
  them would bury the real error under follow-on ones. Variables set and request edits made
  before the error are kept. Whether the request is still sent is the caller's choice:
  ``pigeon run`` and ``pigeon render`` count a pre-request error as a failed request; the app
  may send anyway.
* In ``post_response``, an ``AssertionError`` is a test failure (``AssertionFailure``), not an
  error: it ends that script, the following scripts still run, and ``pigeon run`` fails the
  request.

Python cannot stop a thread from outside, so a script that never returns blocks its caller.
The app therefore runs scripts in a worker thread (the UI stays responsive), and callers may
pass ``timeout`` / ``cancel``: a line tracer then raises ``ScriptInterrupted`` at the script's
next line once the time is up or the event is set. That interrupts Python loops in the script,
not a blocking call into C (a ``time.sleep`` or socket read ends first).
"""

from __future__ import annotations

import builtins
import copy
import io
import json
import sys
import threading
import time
import traceback
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta, timezone
from functools import lru_cache
from types import CodeType, FrameType
from typing import Any, Literal

from pigeon.model import Collection, Folder, Header, QueryParam, Request
from pigeon.render import Renderer
from pigeon.scopes import MISSING, Layer, RuntimeVars, Scopes
from pigeon.template import PATH, parse
from pigeon.values import check_name

Phase = Literal["pre_request", "post_response"]
PHASES: tuple[str, ...] = ("pre_request", "post_response")


# -- what ran and what happened -----------------------------------------------------------


@dataclass(frozen=True)
class ScriptSource:
    """One script about to run: where it comes from, and its text."""

    label: str  # "collection", "users/" (a folder), "users/create-user" (a request)
    filename: str  # "users/create-user.toml [scripts.pre_request]": shown in tracebacks
    phase: str
    code: str


@dataclass
class ScriptError:
    """An exception raised by a script (or a syntax error in it)."""

    source: str
    phase: str
    filename: str
    type: str  # the exception's class name, e.g. "ValueError"
    message: str
    line: int | None  # the script's own line number (1 = its first line)
    traceback: str  # Python's format, limited to the script's frames

    def summary(self) -> str:
        """One line for a status bar or stderr."""
        where = f"{self.filename} line {self.line}" if self.line else self.filename
        message = self.message.strip().splitlines()[0] if self.message.strip() else ""
        return f"{where}: {self.type}: {message}" if message else f"{where}: {self.type}"

    def __str__(self) -> str:
        return self.summary()


@dataclass
class AssertionFailure:
    """A failed ``assert`` in a post-response script: a failed test, not a broken script."""

    source: str
    filename: str
    message: str  # the assert's message, or its source line when it has none
    line: int | None
    traceback: str = ""

    def summary(self) -> str:
        where = f"{self.filename} line {self.line}" if self.line else self.filename
        return f"{where}: assertion failed: {self.message}"

    def __str__(self) -> str:
        return self.summary()


@dataclass
class LogLine:
    source: str
    phase: str
    text: str

    def __str__(self) -> str:
        return f"[{self.source} {self.phase}] {self.text}"


@dataclass
class ScriptOutcome:
    """What one phase's scripts did. ``request`` is what should be rendered and sent."""

    phase: str
    request: Request
    log: list[LogLine] = field(default_factory=list)
    errors: list[ScriptError] = field(default_factory=list)
    assertion_failures: list[AssertionFailure] = field(default_factory=list)
    ran: int = 0
    skipped_untrusted: bool = False  # scripts exist but the collection is not trusted
    not_run: list[str] = field(default_factory=list)  # labels skipped after an error

    @property
    def output(self) -> list[str]:
        """Log lines labelled by source: ``[users/create-user pre_request] hello``."""
        return [str(line) for line in self.log]

    @property
    def ok(self) -> bool:
        return not self.errors and not self.assertion_failures


class ScriptInterrupted(BaseException):
    """Raised inside a script that ran out of time or was cancelled.

    A ``BaseException`` so that a script's own ``except Exception`` cannot swallow it.
    """


# -- the response a post-response script sees -----------------------------------------------


class ResponseHeaders(Mapping[str, str]):
    """Response headers, looked up case-insensitively; repeated headers join with ``", "``.

    ``get_list`` returns every value of a repeated header (``Set-Cookie``).
    """

    def __init__(self, pairs: list[tuple[str, str]] | tuple[tuple[str, str], ...]) -> None:
        self._pairs = [(str(k), str(v)) for k, v in pairs]
        self._names: dict[str, str] = {}
        for key, _ in self._pairs:
            self._names.setdefault(key.lower(), key)

    def __getitem__(self, name: str) -> str:
        values = self.get_list(name)
        if not values:
            raise KeyError(name)
        return ", ".join(values)

    def get_list(self, name: str) -> list[str]:
        lname = name.lower() if isinstance(name, str) else name
        return [v for k, v in self._pairs if k.lower() == lname]

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name.lower() in self._names

    def __iter__(self) -> Iterator[str]:
        return iter(list(self._names.values()))

    def __len__(self) -> int:
        return len(self._names)

    def multi_items(self) -> list[tuple[str, str]]:
        return list(self._pairs)

    def __repr__(self) -> str:
        return f"ResponseHeaders({self._pairs!r})"


_UNPARSED: Any = object()


class ScriptResponse:
    """``pigeon.response``: a read-only view of the exchange's response.

    Built from anything shaped like ``pigeon.send.Exchange``: ``status``, ``reason``,
    ``headers`` (pairs), ``text``, ``json()``, and ``elapsed_ms`` or ``timings``.
    """

    def __init__(self, exchange: Any) -> None:
        self._exchange = exchange
        self.status: int | None = getattr(exchange, "status", None)
        self.reason: str = getattr(exchange, "reason", "") or ""
        self.headers = ResponseHeaders(list(getattr(exchange, "headers", []) or []))
        self.url: str = getattr(exchange, "url", "") or ""
        self.http_version: str = getattr(exchange, "http_version", "") or ""
        self.elapsed_ms: float | None = _elapsed_ms(exchange)
        self._json: Any = _UNPARSED

    @property
    def text(self) -> str:
        text = getattr(self._exchange, "text", "")
        return text() if callable(text) else (text or "")

    @property
    def body(self) -> bytes:
        body = getattr(self._exchange, "body", None)
        return body if isinstance(body, bytes) else self.text.encode("utf-8")

    @property
    def ok(self) -> bool:
        return self.status is not None and self.status < 400

    def json(self) -> Any:
        """The body parsed as JSON; ``ValueError`` if it is not JSON.

        The scripts get their own parsed copy, so one that edits it cannot change what the
        app shows as the response.
        """
        if self._json is _UNPARSED:
            check = getattr(self._exchange, "json", None)
            if callable(check):
                check()  # the exchange's own errors: not JSON, empty, truncated
            self._json = json.loads(self.text)
        return self._json

    def __repr__(self) -> str:
        return f"<response {self.status} {self.reason}>"


def _elapsed_ms(exchange: Any) -> float | None:
    elapsed = getattr(exchange, "elapsed_ms", None)
    if isinstance(elapsed, (int, float)):
        return float(elapsed)
    timings = getattr(exchange, "timings", None)
    if isinstance(timings, Mapping):
        total = timings.get("total", timings.get("total_ms"))
    else:
        total = getattr(timings, "total_ms", None)
    return float(total) if isinstance(total, (int, float)) else None


# -- the pigeon object ----------------------------------------------------------------------


class EnvView(Mapping[str, str]):
    """``pigeon.env``: the process environment, then the collection's ``.env`` (read-only)."""

    def __init__(self, environ: Mapping[str, str], dotenv: Mapping[str, str]) -> None:
        self._environ = environ
        self._dotenv = dotenv

    def __getitem__(self, name: str) -> str:
        if name in self._environ:
            return self._environ[name]
        return self._dotenv[name]

    def __iter__(self) -> Iterator[str]:
        yield from self._environ
        for name in self._dotenv:
            if name not in self._environ:
                yield name

    def __len__(self) -> int:
        return len(self._environ) + sum(1 for n in self._dotenv if n not in self._environ)


class PigeonAPI:
    """The ``pigeon`` object a script sees.

    Variables set here are runtime variables: they outrank every file scope and are visible to
    every request of the collection for the rest of the session (or ``pigeon run``).
    """

    def __init__(
        self,
        phase: str,
        request: Request,
        scopes: Scopes,
        runtime: RuntimeVars,
        response: Any = None,
        write: Callable[[str], None] | None = None,
    ) -> None:
        self.phase = phase
        self._request = request  # this send's request (a copy): edits are what gets sent
        self._scopes = scopes
        self._runtime = runtime
        self._response = response
        self._write = write or (lambda text: None)
        self.env: Mapping[str, str] = EnvView(scopes.environ, scopes.dotenv)

    # -- variables --

    def set_var(self, name: str, value: Any) -> None:
        """Set a runtime variable. ``ValueError`` for a bad name (quoting the name and the
        rule) or a value outside DESIGN §3.1 (naming the variable and the path to the part)."""
        self._runtime.set(name, value)

    setVar = set_var

    def get_var(self, name: str) -> Any:
        """The winning value of ``name`` with its placeholders rendered, or ``None``.

        A dotted or indexed path (``user.id``) is looked up as in a placeholder. The value is
        a copy: changing it changes nothing until it is set again.
        """
        if not isinstance(name, str):
            raise TypeError(f"getVar: a variable name must be a string, not {type(name).__name__}")
        renderer = Renderer(self._current_scopes())
        value = renderer.variable(name)
        if value is MISSING:
            tpl = parse("{{" + name + "}}") if "{" not in name and "}" not in name else None
            ph = tpl.single if tpl is not None else None
            if ph is not None and ph.kind == PATH:
                value = renderer.lookup(ph)
        if value is MISSING or not _is_value(value):
            return None
        return copy.deepcopy(value)

    getVar = get_var

    def delete_var(self, name: str) -> None:
        """Forget a runtime variable (file-defined variables are not touched)."""
        check_name(name)
        self._runtime.delete(name)

    deleteVar = delete_var

    def render(self, text: str) -> str:
        """The current rendering of any template, as in a text place (URL, header)."""
        if not isinstance(text, str):
            raise TypeError(f"render: expected a string, not {type(text).__name__}")
        return Renderer(self._current_scopes()).render_text(text)

    def _current_scopes(self) -> Scopes:
        """The caller's scopes with this copy's request variables and the runtime variables.

        Rebuilt on every call: a script may edit ``pigeon.request.variables`` between two
        lookups, and render caches only know about runtime changes.
        """
        return _script_scopes(self._scopes, self.request, self._runtime)

    # -- request and response --

    @property
    def request(self) -> Request:
        """This send's request, a copy the script may edit (or replace): what gets sent."""
        return self._request

    @request.setter
    def request(self, value: Request) -> None:
        if not isinstance(value, Request):
            raise TypeError(f"pigeon.request must be a Request, not {type(value).__name__}")
        self._request = value

    def set_header(self, name: str, value: str) -> None:
        """Set a header on this send's request, replacing the request's own headers of that
        name; like any request header it also replaces collection and folder ones."""
        if not isinstance(name, str) or not isinstance(value, str):
            raise TypeError("setHeader: the name and the value must be strings")
        lname = name.lower()
        self.request.headers = [h for h in self.request.headers if h.name.lower() != lname]
        self.request.headers.append(Header(name, value))

    setHeader = set_header

    def remove_header(self, name: str) -> None:
        """Drop the request's own headers of that name (collection and folder ones stay)."""
        lname = name.lower()
        self.request.headers = [h for h in self.request.headers if h.name.lower() != lname]

    removeHeader = remove_header

    def set_query(self, name: str, value: str) -> None:
        """Set a ``[[query]]`` parameter (percent-encoded when rendered), replacing others of
        that name."""
        if not isinstance(name, str) or not isinstance(value, str):
            raise TypeError("setQuery: the name and the value must be strings")
        self.request.query = [q for q in self.request.query if q.name != name]
        self.request.query.append(QueryParam(name, value))

    setQuery = set_query

    @property
    def response(self) -> ScriptResponse:
        if self._response is None:
            if self.phase != "post_response":
                raise RuntimeError("pigeon.response is only available in post_response scripts")
            raise RuntimeError("there is no response (the request was not sent)")
        error = getattr(self._response, "_exchange", None)
        error = getattr(error, "error", None)
        if error:
            raise RuntimeError(f"there is no response: {error}")
        return self._response

    # -- output --

    def log(self, *values: Any, sep: str = " ") -> None:
        """Write a line to the script log (like ``print``)."""
        self._write(sep.join(str(v) for v in values) + "\n")

    def __repr__(self) -> str:
        return f"<pigeon {self.phase} {self.request.id or self.request.name}>"


def _is_value(value: Any) -> bool:
    return value is None or isinstance(value, (str, int, float, bool, dict, list, date))


def _script_scopes(scopes: Scopes, request: Request, runtime: RuntimeVars) -> Scopes:
    layers: list[Layer] = []
    have_request = have_runtime = False
    label = f"request {request.id or request.name}"
    for layer in scopes.layers:
        if layer.scope in ("runtime", "cli") and not have_request:
            layers.append(Layer("request", label, request.variables))
            have_request = True
        if layer.scope == "cli" and not have_runtime:
            layers.append(Layer("runtime", "runtime (scripts)", runtime.mapping))
            have_runtime = True
        if layer.scope == "request":
            layers.append(Layer("request", layer.label, request.variables))
            have_request = True
        elif layer.scope == "runtime":
            layers.append(Layer("runtime", layer.label, runtime.mapping))
            have_runtime = True
        else:
            layers.append(layer)
    if not have_request:
        layers.append(Layer("request", label, request.variables))
    if not have_runtime:
        layers.append(Layer("runtime", "runtime (scripts)", runtime.mapping))
    return Scopes(layers, scopes.environ, scopes.dotenv, runtime)


# -- which scripts run ----------------------------------------------------------------------


def script_sources(
    collection: Collection,
    chain: list[Folder] | tuple[Folder, ...],
    request: Request,
    phase: str,
) -> list[ScriptSource]:
    """The non-empty scripts of a phase, in the order they run."""
    _check_phase(phase)
    out: list[ScriptSource] = []
    code = getattr(collection.scripts, phase)
    if code.strip():
        out.append(ScriptSource("collection", f"collection.toml [scripts.{phase}]", phase, code))
    for folder in chain:
        code = getattr(folder.scripts, phase)
        if code.strip():
            where = folder.id or folder.name
            out.append(
                ScriptSource(f"{where}/", f"{where}/folder.toml [scripts.{phase}]", phase, code)
            )
    code = getattr(request.scripts, phase)
    if code.strip():
        where = request.id or request.name
        out.append(ScriptSource(where, f"{where}.toml [scripts.{phase}]", phase, code))
    return out


def has_scripts(
    collection: Collection,
    chain: list[Folder] | tuple[Folder, ...],
    request: Request,
    phase: str | None = None,
) -> bool:
    """Whether any script would run for this request (in ``phase``, or in either phase)."""
    phases = PHASES if phase is None else (phase,)
    return any(script_sources(collection, chain, request, p) for p in phases)


def _check_phase(phase: str) -> None:
    if phase not in PHASES:
        raise ValueError(f"unknown script phase {phase!r} (expected one of {', '.join(PHASES)})")


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
    _check_phase(phase)
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
        outcome.errors.append(_syntax_error(source, exc))
        return True
    try:
        if deadline is None and cancel is None:
            exec(code, namespace)
        else:
            with _Watch(source.filename, deadline, timeout, cancel):
                exec(code, namespace)
    except AssertionError as exc:
        if source.phase != "post_response":
            outcome.errors.append(_script_error(source, exc, lines))
            return True
        outcome.assertion_failures.append(_assertion_failure(source, exc, lines))
        return False
    except (Exception, SystemExit, ScriptInterrupted) as exc:
        outcome.errors.append(_script_error(source, exc, lines))
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


# -- describing failures --------------------------------------------------------------------


def _script_frames(
    exc: BaseException, filename: str, lines: list[str]
) -> list[traceback.FrameSummary]:
    """The traceback's frames that belong to the script, with the script's source lines."""
    frames = []
    for frame in traceback.extract_tb(exc.__traceback__):
        if frame.filename != filename or frame.lineno is None:
            continue
        text = lines[frame.lineno - 1] if 0 < frame.lineno <= len(lines) else ""
        frames.append(
            traceback.FrameSummary(
                frame.filename,
                frame.lineno,
                "<script>" if frame.name == "<module>" else frame.name,
                lookup_line=False,
                line=text,
                end_lineno=frame.end_lineno,
                colno=frame.colno,
                end_colno=frame.end_colno,
            )
        )
    return frames


def _format(exc: BaseException, frames: list[traceback.FrameSummary]) -> str:
    head = "Traceback (most recent call last):\n" if frames else ""
    stack = "".join(traceback.StackSummary.from_list(frames).format())
    return head + stack + "".join(traceback.format_exception_only(exc))


def _message(exc: BaseException) -> str:
    if isinstance(exc, SystemExit):
        return (
            f"the script called exit({exc.code!r})"
            if exc.code is not None
            else "the script called exit()"
        )
    if isinstance(exc, KeyError) and len(exc.args) == 1:
        return repr(exc.args[0])  # str() of a KeyError is its repr already; keep it readable
    return str(exc)


def _script_error(source: ScriptSource, exc: BaseException, lines: list[str]) -> ScriptError:
    frames = _script_frames(exc, source.filename, lines)
    return ScriptError(
        source=source.label,
        phase=source.phase,
        filename=source.filename,
        type=type(exc).__name__,
        message=_message(exc),
        line=frames[-1].lineno if frames else None,
        traceback=_format(exc, frames),
    )


def _syntax_error(source: ScriptSource, exc: SyntaxError) -> ScriptError:
    return ScriptError(
        source=source.label,
        phase=source.phase,
        filename=source.filename,
        type=type(exc).__name__,
        message=exc.msg or str(exc),
        line=exc.lineno,
        traceback="".join(traceback.format_exception_only(exc)),
    )


def _assertion_failure(
    source: ScriptSource, exc: AssertionError, lines: list[str]
) -> AssertionFailure:
    frames = _script_frames(exc, source.filename, lines)
    line = frames[-1].lineno if frames else None
    message = str(exc)
    if not message:
        text = (frames[-1].line or "").strip() if frames else ""
        message = text or "assert"
    return AssertionFailure(
        source=source.label,
        filename=source.filename,
        message=message,
        line=line,
        traceback=_format(exc, frames),
    )
