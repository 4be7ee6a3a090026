"""What a phase's scripts did: the records ``run_scripts`` returns, and how a failure is told.

Failures are facts for the caller, never exceptions out of the runner. An exception in a
script becomes a ``ScriptError``; a failed ``assert`` in a ``post_response`` script becomes an
``AssertionFailure`` (a failed test, not a broken script). Both carry a traceback trimmed to
the script's own frames and numbered by the script's own lines, so the user reads their code,
not Pigeon's. The records are plain data: they can be shown, reported or carried back from
wherever the scripts ran.
"""

from __future__ import annotations

import traceback
from dataclasses import dataclass, field
from typing import Protocol

from pigeon.model import Request
from pigeon.scripts.sources import ScriptSource

# -- what ran and what happened -----------------------------------------------------------


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
    stopped: bool = False  # killed from outside (time limit, cancel, memory): no traceback

    def summary(self) -> str:
        """One line for a status bar or stderr."""
        where = f"{self.filename} line {self.line}" if self.line else self.filename
        if self.stopped:
            return f"{where}: {self.message}"
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


class Reported(Protocol):
    """A script error or an assertion failure as a run's reports read it: a merged report's,
    rebuilt from its JSON, has nothing else."""

    @property
    def traceback(self) -> str: ...

    def summary(self) -> str: ...


class ReportedError(Reported, Protocol):
    """A script error as the reports read it: its exception's class name too."""

    @property
    def type(self) -> str: ...


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


def script_error(source: ScriptSource, exc: BaseException, lines: list[str]) -> ScriptError:
    """An exception raised while ``source`` ran (``lines``: its code, for the traceback)."""
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


def stopped_error(source: ScriptSource, kind: str, message: str) -> ScriptError:
    """``source`` was stopped from outside: ``kind`` names why (``"TimedOut"``,
    ``"Cancelled"``, ``"OutOfMemory"``, ``"WorkerDied"``), ``message`` says it in one line."""
    return ScriptError(
        source=source.label,
        phase=source.phase,
        filename=source.filename,
        type=kind,
        message=message,
        line=None,
        traceback=message,
        stopped=True,
    )


def syntax_error(source: ScriptSource, exc: SyntaxError) -> ScriptError:
    """A script that does not compile."""
    return ScriptError(
        source=source.label,
        phase=source.phase,
        filename=source.filename,
        type=type(exc).__name__,
        message=exc.msg or str(exc),
        line=exc.lineno,
        traceback="".join(traceback.format_exception_only(exc)),
    )


def assertion_failure(
    source: ScriptSource, exc: AssertionError, lines: list[str]
) -> AssertionFailure:
    """A failed ``assert``; without a message, the assert's own source line says what failed."""
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
