"""Two responses compared line by line (DESIGN §9): status, headers and body, as rows for a
side-by-side view and for a unified one.

Headers are compared sorted by name (their order is the server's whim); JSON bodies
pretty-printed, with keys in the document's order or sorted. ``difflib`` can take time that
grows with the square of the lines, and a response is written by whoever runs the server: so
each body is compared up to ``MAX_LINES`` lines, each line up to ``LINE_LIMIT`` characters, and
the result says what was left out (``notes``). A body kept only in part (a history entry keeps
a large body's start) is not compared line by line, which would show one big change where the
bodies may be the same: its verdict comes from the whole bodies' SHA-256 digests or sizes, and
is refused when neither tells. Pure and UI-free: the app runs it in a thread.
"""

from __future__ import annotations

import difflib
import hashlib
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from pigeon.bodies.cancel import Stopped, never

if TYPE_CHECKING:
    from pigeon.exchange import Exchange

MAX_LINES = 20_000
LINE_LIMIT = 2_000
CONTEXT = 3

RowKind = Literal["section", "hunk", "same", "change"]


@dataclass(frozen=True)
class DiffSide:
    """One response, as the diff reads it."""

    label: str
    status: str
    headers: Sequence[tuple[str, str]] = ()
    body: str = ""
    is_json: bool = False
    cut: bool = False
    """The body is only the start of the response's (kept so in the history, or in memory)."""
    size: int | None = None
    """The whole body's size in bytes, when known."""
    digest: str | None = None
    """The whole body's SHA-256, when known (a history entry keeps it for a body it cut)."""
    whole: bytes | None = field(default=None, repr=False)
    """The whole body's bytes when the side has them, hashed only when the other was cut."""
    path: Path | None = None
    """The whole body on disk, when it was too big for memory (hashed likewise)."""

    def sha256(self) -> str | None:
        if self.digest is not None:
            return self.digest
        if self.whole is not None and not self.cut:
            return hashlib.sha256(self.whole).hexdigest()
        if self.path is not None:
            from pigeon.files import file_sha256

            return file_sha256(self.path)
        return None


@dataclass(frozen=True)
class Row:
    """One line of a view. A ``change`` row of the unified view holds ``left`` (removed) or
    ``right`` (added); of the side-by-side view, either or both. ``section`` and ``hunk``
    rows hold their title in ``left``."""

    kind: RowKind
    left: str | None
    right: str | None = None
    left_no: int | None = None
    right_no: int | None = None


@dataclass
class ResponseDiff:
    split: list[Row] = field(default_factory=list)
    unified: list[Row] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    """What was left out of the comparison, one line each."""
    changes: int = 0
    """How many runs of changed lines there are."""
    body_unknown: bool = False
    """A body was kept only in part and nothing told whether the two are the same."""


def side_of(exchange: Exchange, label: str) -> DiffSide:
    """What of an exchange the diff compares."""
    from pigeon.bodies.kind import JSON_LINES_TYPES

    if exchange.status is None:
        status = f"no response: {exchange.error or 'none'}"
    else:
        version = f"{exchange.http_version} " if exchange.http_version else ""
        status = f"{version}{exchange.status} {exchange.reason}".strip()
    headers = list(exchange.headers)
    grpc = exchange.grpc
    if grpc is not None:  # a call's status details and trailers count as its status and headers
        if grpc.details and exchange.status:
            status += f": {grpc.details}"
        headers += [(f"trailer {name}", value) for name, value in grpc.trailers]
    content_type = exchange.content_type
    is_json = content_type not in JSON_LINES_TYPES and (
        "json" in content_type or exchange.text.lstrip()[:1] in ("{", "[")
    )
    return DiffSide(
        label,
        status,
        headers,
        exchange.text,
        is_json,
        exchange.truncated,
        size=exchange.body_size or len(exchange.body),
        digest=exchange.body_sha256,
        whole=None if exchange.truncated else exchange.body,
        path=exchange.body_path if exchange.truncated else None,
    )


def body_lines(side: DiffSide, *, sort_keys: bool) -> tuple[list[str], str]:
    """The body as the diff compares it, and how it was read ("JSON" or "text")."""
    if side.is_json:
        try:
            value = json.loads(side.body)
            text = json.dumps(value, indent=2, ensure_ascii=False, sort_keys=sort_keys)
        except (ValueError, RecursionError):
            pass
        else:
            return text.splitlines(), "JSON"
    return side.body.splitlines(), "text"


def compare(
    left: DiffSide,
    right: DiffSide,
    *,
    sort_keys: bool = False,
    cancelled: Callable[[], bool] = never,
    max_lines: int = MAX_LINES,
) -> ResponseDiff:
    """Compare two responses: status, then headers, then body."""
    diff = ResponseDiff()
    cut = [which for which, side in (("left", left), ("right", right)) if side.cut]
    for which in cut:
        diff.notes.append(
            f"Only the start of the {which} body was kept: the bodies are not compared line by line."
        )
    _section(diff, "Status", [left.status], [right.status], whole=True)
    _section(diff, "Headers", _header_lines(left), _header_lines(right), whole=True)
    if cancelled():
        raise Stopped
    if cut:
        _body_verdict(diff, left, right)
        return diff
    old, old_kind = body_lines(left, sort_keys=sort_keys)
    new, new_kind = body_lines(right, sort_keys=sort_keys)
    kinds = old_kind if old_kind == new_kind else f"{old_kind} and {new_kind}"
    if "JSON" in kinds:
        kinds += ", keys sorted" if sort_keys else ", keys in the document's order"
    if len(old) > max_lines or len(new) > max_lines:
        diff.notes.append(
            f"Bodies compared up to line {max_lines:,} (of {len(old):,} and {len(new):,}): "
            "the time to compare grows with the square of the lines."
        )
        old, new = old[:max_lines], new[:max_lines]
    if any(len(line) > LINE_LIMIT for line in (*old, *new)):
        diff.notes.append(f"Lines longer than {LINE_LIMIT:,} characters compared up to there.")
        old = [line[:LINE_LIMIT] for line in old]
        new = [line[:LINE_LIMIT] for line in new]
    if cancelled():
        raise Stopped
    _section(diff, f"Body ({kinds})", old, new, whole=False)
    return diff


def _body_verdict(diff: ResponseDiff, left: DiffSide, right: DiffSide) -> None:
    """Same or different for bodies not both whole: by their digests, else by their sizes;
    neither known, no verdict."""
    old, new = left.sha256(), right.sha256()
    if old is not None and new is not None:
        same = old == new
        how = "the whole bodies' SHA-256"
    elif left.size is not None and right.size is not None and left.size != right.size:
        same, how = False, f"{left.size:,} and {right.size:,} bytes"
    else:
        diff.body_unknown = True
        heading = "Body: not compared (only a part of it was kept)"
        diff.split.append(Row("section", heading))
        diff.unified.append(Row("section", heading))
        return
    if not same:
        diff.changes += 1
    heading = f"Body: {'same' if same else 'different'} (by {how})"
    diff.split.append(Row("section", heading))
    diff.unified.append(Row("section", heading))


def _header_lines(side: DiffSide) -> list[str]:
    ordered = sorted(side.headers, key=lambda pair: pair[0].lower())
    return [f"{name.lower()}: {value}"[:LINE_LIMIT] for name, value in ordered]


def _section(
    diff: ResponseDiff, title: str, old: list[str], new: list[str], *, whole: bool
) -> None:
    matcher = difflib.SequenceMatcher(None, old, new)
    # A short part (status, headers) shows every line; a body its changes with some context.
    groups = [matcher.get_opcodes()] if whole else list(matcher.get_grouped_opcodes(CONTEXT))
    changed = sum(1 for group in groups for op in group if op[0] != "equal")
    diff.changes += changed
    counted = f"{changed} change{'s' if changed > 1 else ''}" if changed else "same"
    heading = f"{title}: {counted}"
    diff.split.append(Row("section", heading))
    diff.unified.append(Row("section", heading))
    if not changed and not whole:
        return
    for group in groups:
        if not whole:
            first, last = group[0], group[-1]
            hunk = (
                f"@@ -{first[1] + 1},{last[2] - first[1]} +{first[3] + 1},{last[4] - first[3]} @@"
            )
            diff.split.append(Row("hunk", hunk))
            diff.unified.append(Row("hunk", hunk))
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                for i, j in zip(range(i1, i2), range(j1, j2), strict=True):
                    row = Row("same", old[i], new[j], i + 1, j + 1)
                    diff.split.append(row)
                    diff.unified.append(row)
                continue
            for k in range(max(i2 - i1, j2 - j1)):
                i, j = i1 + k, j1 + k
                diff.split.append(
                    Row(
                        "change",
                        old[i] if i < i2 else None,
                        new[j] if j < j2 else None,
                        i + 1 if i < i2 else None,
                        j + 1 if j < j2 else None,
                    )
                )
            diff.unified.extend(Row("change", old[i], None, i + 1) for i in range(i1, i2))
            diff.unified.extend(Row("change", None, new[j], None, j + 1) for j in range(j1, j2))
