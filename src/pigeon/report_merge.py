"""`pigeon report merge` (DESIGN §6): the JSON reports of a sharded run made one again.

Each shard's JSON report holds, per request, its place in the whole run (``seq``) and what a
JUnit report needs; merged, the requests are back in the order one unsharded run would have
given, and the totals and exit code are those of that run (times are the shards' sum). Each
request's ``exchange`` (its masked headers and bodies) goes into a spool as it is read, so the
merged HTML and Markdown reports show them as one run's would; those merged from a report
written without them say so where they would be.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from pigeon.errors import UsageError
from pigeon.excerpts import Excerpts, checked
from pigeon.files import read_capped
from pigeon.model import Collection
from pigeon.pipeline import ResultRecord
from pigeon.run import RunSummary

MAX_REPORT_BYTES = 500_000_000


@dataclass(frozen=True)
class _Stored:
    """A script error or assertion failure as a report kept it: its line, its traceback."""

    line_text: str
    traceback: str = ""
    type: str = "Error"

    def summary(self) -> str:
        return self.line_text


class _Tampered(ValueError):
    """A report entry that is not what ``pigeon run`` writes: the file is named by the caller."""


_STR, _INT, _NUM, _LIST = (str,), (int,), (int, float), (list,)
_KIND_NAMES = {_STR: "text", _INT: "a whole number", _NUM: "a number", _LIST: "a list"}


def _field(item: dict[str, Any], key: str, kinds: tuple[type, ...], *, null: bool = False) -> Any:
    """``item[key]`` when it is one of ``kinds`` (or ``None`` where ``null``); else ``_Tampered``."""
    if key not in item:
        raise _Tampered(f"a request entry lacks {key!r}")
    value = item[key]
    if value is None and null:
        return None
    if isinstance(value, bool) and bool not in kinds or not isinstance(value, kinds):
        raise _Tampered(f"a request entry's {key!r} is not {_KIND_NAMES[kinds]}")
    return value


def _texts(item: dict[str, Any], key: str, *, default: list[str] | None = None) -> list[str]:
    value = item.get(key, default) if default is not None else _field(item, key, _LIST)
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise _Tampered(f"a request entry's {key!r} is not a list of text")
    return value


def _optional(item: dict[str, Any], key: str) -> str | None:
    """A key ``pigeon run`` added later: its text, or ``None``."""
    value = item.get(key)
    return value if isinstance(value, str) else None


def _record(item: Any, spool: Excerpts) -> ResultRecord:
    """One request entry back as a result, its exchange kept in ``spool``; ``_Tampered`` when
    it is not a report's."""
    if not isinstance(item, dict):
        raise _Tampered("a request entry is not an object")
    try:
        exchange = checked(item.get("exchange"))
    except ValueError as exc:
        raise _Tampered(
            f"a request entry's 'exchange' is not one pigeon run writes: {exc}"
        ) from None
    script_errors = _texts(item, "script_errors")
    failures = _texts(item, "assertion_failures")
    details = item.get("script_error_details") or [{} for _ in script_errors]
    if not isinstance(details, list) or not all(isinstance(d, dict) for d in details):
        raise _Tampered("a request entry's 'script_error_details' is not a list of objects")
    tracebacks = _texts(item, "assertion_tracebacks", default=["" for _ in failures])
    duration = item.get("duration_ms", item.get("time_ms"))
    return ResultRecord(
        id=_field(item, "id", _STR),
        name=_field(item, "name", _STR),
        folder=_optional(item, "folder"),
        method=_field(item, "method", _STR),
        url=_field(item, "url", _STR, null=True),
        status=_field(item, "status", _INT, null=True),
        reason=_optional(item, "reason") or "",
        elapsed_ms=_field(item, "time_ms", _NUM, null=True),
        size=_field(item, "size", _INT, null=True),
        error_kind=_optional(item, "error_kind"),
        error=_field(item, "error", _STR, null=True),
        script_errors=tuple(
            _Stored(text, str(d.get("traceback", "")), str(d.get("type", "Error")))
            for text, d in zip(script_errors, details, strict=False)
        ),
        assertion_failures=tuple(
            _Stored(text, tb) for text, tb in zip(failures, tracebacks, strict=False)
        ),
        log=tuple(_texts(item, "log")),
        unresolved=tuple(_texts(item, "unresolved")),
        warnings=tuple(_texts(item, "warnings")),
        strict_failure=bool(item.get("strict_failure", False)),
        scripts_skipped=tuple(_texts(item, "scripts_skipped")),
        duration_ms=float(duration) if isinstance(duration, int | float) else 0.0,
        seq=_field(item, "seq", _INT) if "seq" in item else 0,
        frames=_frames(item.get("frames")),
        excerpt=spool.add(exchange) if exchange is not None else None,
    )


def _frames(value: Any) -> tuple[int, int] | None:
    if not isinstance(value, dict):
        return None
    sent, received = value.get("sent", 0), value.get("received", 0)
    if not isinstance(sent, int) or not isinstance(received, int):
        raise _Tampered("a request entry's 'frames' are not whole numbers")
    return sent, received


def read_report(path: Path) -> dict[str, Any]:
    """A ``pigeon run`` JSON report, its shape checked; anything else is one line naming it."""
    try:
        data = json.loads(read_capped(path, MAX_REPORT_BYTES))
    except OSError as exc:
        raise UsageError(f"{path}: {exc.strerror or exc}") from exc
    except (json.JSONDecodeError, UnicodeDecodeError, RecursionError) as exc:
        raise UsageError(f"{path}: not a JSON report ({exc})") from exc
    if not isinstance(data, dict) or data.get("schema") != 1 or "requests" not in data:
        raise UsageError(f"{path}: not a pigeon run JSON report (schema 1)")
    if not isinstance(data.get("collection"), str) or not isinstance(data["requests"], list):
        raise UsageError(f"{path}: not a pigeon run JSON report (no collection or requests)")
    totals = data.get("totals", {})
    if not isinstance(totals, dict) or not isinstance(totals.get("time_ms", 0.0), int | float):
        raise UsageError(f"{path}: not a pigeon run JSON report (its totals are not numbers)")
    return data


def _records(path: Path, report: dict[str, Any], spool: Excerpts) -> list[ResultRecord]:
    """A report's requests as results; a tampered entry is one line naming the file."""
    try:
        return [_record(item, spool) for item in report["requests"]]
    except _Tampered as exc:
        raise UsageError(f"{path}: {exc}") from None


def merge(paths: list[Path], excerpts: Excerpts | None = None) -> RunSummary:
    """The run the shards' reports add up to; their requests' exchanges go to ``excerpts``
    (a spool of its own when none is given)."""
    if not paths:
        raise UsageError("report merge: name the shards' JSON reports")
    spool = excerpts if excerpts is not None else Excerpts()
    reports, records = [], []
    for path in paths:  # one report's entries in memory at a time: their exchanges are spooled
        report = read_report(path)
        records += _records(path, report, spool)
        reports.append({**report, "requests": None})
    names = {r["collection"] for r in reports}
    if len(names) != 1:
        raise UsageError(
            f"report merge: reports of different collections ({', '.join(sorted(names))})"
        )
    seqs = [r.seq for r in records]
    if len(set(seqs)) != len(seqs):
        raise UsageError("report merge: two reports hold the same request (the same shard twice?)")
    records.sort(key=lambda r: r.seq)
    totals = [r.get("totals", {}) for r in reports]
    summary = RunSummary(
        Collection(names.pop(), Path(".")),
        records,
        duration_ms=sum(float(t.get("time_ms", 0.0)) for t in totals),
        bailed=any(t.get("bailed") for t in totals),
        interrupted=any(t.get("interrupted") for t in totals),
    )
    starts = [s for s in map(_started_at, reports) if s is not None]
    if starts:
        summary.started_at = min(starts)  # the first shard's start
    return summary


def _started_at(report: dict[str, Any]) -> datetime | None:
    """When a shard's run started (reports written before ``started_at`` have none)."""
    try:
        start = datetime.fromisoformat(report["started_at"])
    except (KeyError, TypeError, ValueError):
        return None
    return start if start.tzinfo is not None else start.replace(tzinfo=timezone.utc)
