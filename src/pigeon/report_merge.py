"""`pigeon report merge` (DESIGN §6): the JSON reports of a sharded run made one again.

Each shard's JSON report holds, per request, its place in the whole run (``seq``) and what a
JUnit report needs; merged, the requests are back in the order one unsharded run would have
given, and the totals and exit code are those of that run (times are the shards' sum).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from pigeon.errors import UsageError
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


def _record(item: dict[str, Any]) -> ResultRecord:
    details = item.get("script_error_details") or [{} for _ in item["script_errors"]]
    tracebacks = item.get("assertion_tracebacks") or ["" for _ in item["assertion_failures"]]
    return ResultRecord(
        id=item["id"],
        name=item["name"],
        folder=item.get("folder"),
        method=item["method"],
        url=item["url"],
        status=item["status"],
        reason=item.get("reason", ""),
        elapsed_ms=item["time_ms"],
        size=item["size"],
        error_kind=item.get("error_kind"),
        error=item["error"],
        script_errors=tuple(
            _Stored(text, d.get("traceback", ""), d.get("type", "Error"))
            for text, d in zip(item["script_errors"], details, strict=False)
        ),
        assertion_failures=tuple(
            _Stored(text, tb)
            for text, tb in zip(item["assertion_failures"], tracebacks, strict=False)
        ),
        log=tuple(item["log"]),
        unresolved=tuple(item["unresolved"]),
        warnings=tuple(item["warnings"]),
        strict_failure=bool(item.get("strict_failure", False)),
        scripts_skipped=tuple(item["scripts_skipped"]),
        duration_ms=float(item.get("duration_ms", item["time_ms"] or 0.0)),
        seq=int(item.get("seq", 0)),
        frames=_frames(item.get("frames")),
    )


def _frames(value: Any) -> tuple[int, int] | None:
    if not isinstance(value, dict):
        return None
    return int(value.get("sent", 0)), int(value.get("received", 0))


def _read(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(read_capped(path, MAX_REPORT_BYTES))
    except OSError as exc:
        raise UsageError(f"{path}: {exc.strerror or exc}") from exc
    except (json.JSONDecodeError, UnicodeDecodeError, RecursionError) as exc:
        raise UsageError(f"{path}: not a JSON report ({exc})") from exc
    if not isinstance(data, dict) or data.get("schema") != 1 or "requests" not in data:
        raise UsageError(f"{path}: not a pigeon run JSON report (schema 1)")
    return data


def merge(paths: list[Path]) -> RunSummary:
    """The run the shards' reports add up to."""
    if not paths:
        raise UsageError("report merge: name the shards' JSON reports")
    reports = [_read(p) for p in paths]
    names = {r["collection"] for r in reports}
    if len(names) != 1:
        raise UsageError(
            f"report merge: reports of different collections ({', '.join(sorted(names))})"
        )
    try:
        records = [_record(item) for r in reports for item in r["requests"]]
    except (KeyError, TypeError, ValueError) as exc:
        raise UsageError(f"report merge: a request entry lacks {exc}") from exc
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
