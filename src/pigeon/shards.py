"""Which slice of a run this machine takes (DESIGN §13): ``--shard K/N``, ``--shard auto`` read
from the CI's own variables, and ``--shard-by durations:REPORT.json``, which weighs each request
by the time an earlier run spent on it so that the shards take about as long as each other.

``--shard auto`` reads, first found wins:

=====================  ==================================  ======================================
where                  index                               total
=====================  ==================================  ======================================
``PIGEON_SHARD=K/N``   K, 1-based                          N
GitLab ``parallel:``   ``CI_NODE_INDEX``, 1-based          ``CI_NODE_TOTAL``
CircleCI               ``CIRCLE_NODE_INDEX``, 0-based      ``CIRCLE_NODE_TOTAL``
Buildkite              ``BUILDKITE_PARALLEL_JOB``, 0-based  ``BUILDKITE_PARALLEL_JOB_COUNT``
=====================  ==================================  ======================================

None set, or one malformed, is bad usage (exit 2) in one line naming the variables. A total of
1 with no index (GitLab sets ``CI_NODE_TOTAL=1`` on a job without ``parallel:``) is the whole
run. How the slices are cut is ``pigeon.run.shard``; this module says which one and by what
weight.
"""

from __future__ import annotations

import re
import statistics
from collections.abc import Callable, Mapping
from pathlib import Path

from pigeon.errors import UsageError
from pigeon.model import Request

# (CI, index variable, total variable, what the first index is)
CI_VARIABLES = (
    ("GitLab", "CI_NODE_INDEX", "CI_NODE_TOTAL", 1),
    ("CircleCI", "CIRCLE_NODE_INDEX", "CIRCLE_NODE_TOTAL", 0),
    ("Buildkite", "BUILDKITE_PARALLEL_JOB", "BUILDKITE_PARALLEL_JOB_COUNT", 0),
)
_NONE_SET = (
    "--shard auto: no shard in the environment: set PIGEON_SHARD=K/N, or run under GitLab "
    "parallel: (CI_NODE_INDEX, CI_NODE_TOTAL), CircleCI parallelism: (CIRCLE_NODE_INDEX, "
    "CIRCLE_NODE_TOTAL) or Buildkite parallelism: (BUILDKITE_PARALLEL_JOB, "
    "BUILDKITE_PARALLEL_JOB_COUNT)"
)
# An iteration's label after a request's id in a report: ``users/create [row 3]``.
_LABEL = re.compile(r" \[(?:row|iteration) \d+\]$")


def shard_spec(text: str, environ: Mapping[str, str]) -> tuple[int, int]:
    """``--shard``'s value as (K, N), K 1-based; ``auto`` reads ``environ``."""
    if text == "auto":
        return from_ci(environ)
    k, n = _whole_numbers(text.partition("/")[0], text.partition("/")[2])
    if "/" not in text or k is None or n is None:
        raise UsageError(f"--shard {text!r}: expected K/N (e.g. 2/4) or auto")
    if not 1 <= k <= n:
        raise UsageError(f"--shard {text!r}: expected K/N with 1 <= K <= N")
    return k, n


def from_ci(environ: Mapping[str, str]) -> tuple[int, int]:
    """This machine's shard as the CI says it: ``PIGEON_SHARD``, else GitLab, CircleCI or
    Buildkite (the table above)."""
    own = environ.get("PIGEON_SHARD", "").strip()
    if own:
        index, sep, total = own.partition("/")
        k, n = _whole_numbers(index, total)
        if not sep or k is None or n is None or not 1 <= k <= n:
            raise UsageError(f"--shard auto: PIGEON_SHARD={own!r} is not K/N with 1 <= K <= N")
        return k, n
    for ci, index_name, total_name, first in CI_VARIABLES:
        index, total = environ.get(index_name, "").strip(), environ.get(total_name, "").strip()
        if not index and not total:
            continue
        k, n = _whole_numbers(index or str(first), total)
        if n is not None and k is not None and 1 <= k - first + 1 <= n and (index or n == 1):
            return k - first + 1, n
        raise UsageError(
            f"--shard auto: {ci}'s {index_name}={index!r} and {total_name}={total!r} are not "
            f"an index from {first} and a total ({first} <= {index_name} <= "
            f"{total_name}{' - 1' if first == 0 else ''})"
        )
    raise UsageError(_NONE_SET)


def _whole_numbers(*texts: str) -> tuple[int | None, ...]:
    """Each text as a whole number written in ASCII digits, ``None`` where it is not one."""
    return tuple(int(t) if t.isascii() and t.isdigit() else None for t in texts)


def parse_shard_by(text: str) -> Path:
    """``--shard-by``'s value: ``durations:REPORT.json`` -> the report's path."""
    kind, sep, path = text.partition(":")
    if kind != "durations" or not sep or not path:
        raise UsageError(f"--shard-by {text!r}: expected durations:REPORT.json")
    return Path(path)


def durations(path: Path) -> dict[str, float]:
    """What an earlier run's JSON report says each request took (ms), by request id; a request
    run once per data row or iteration counts their sum."""
    from pigeon.report_merge import read_report  # only a run balanced by durations reads one

    report = read_report(path)
    out: dict[str, float] = {}
    for entry in report["requests"]:
        if not isinstance(entry, dict) or not isinstance(entry.get("id"), str):
            raise UsageError(f"{path}: a request entry has no id")
        took = entry.get("duration_ms", entry.get("time_ms"))
        if isinstance(took, bool) or not isinstance(took, int | float) or took < 0:
            continue  # never finished: no time to weigh by
        key = _LABEL.sub("", entry["id"])
        out[key] = out.get(key, 0.0) + float(took)
    return out


def weight_by(took: Mapping[str, float]) -> Callable[[Request], float]:
    """A request's weight: its time in ``took``, or the median of them for a request the earlier
    run did not have (a new one, or one that never finished); all equal when it had none."""
    median = statistics.median(took.values()) if took else 1.0

    def weight(request: Request) -> float:
        return took.get(request.id or request.name, median)

    return weight
