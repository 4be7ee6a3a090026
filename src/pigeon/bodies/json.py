"""JSON bodies for display: faithful parsing, fast pretty-printing and per-line tokens.

Display is not re-encoding: numbers print as they were written (``1.10`` stays ``1.10``) and
an object whose keys repeat keeps every pair, so the pretty view hides nothing the server sent.
JSON strings cannot hold a raw line break, so a highlighter can tokenize one visible line
alone.
"""

from __future__ import annotations

import json
import re
from array import array
from dataclasses import dataclass, field
from json.encoder import encode_basestring
from typing import Any, Literal

from pigeon.bodies.cancel import Cancelled, Stopped, never

# -- pretty-printing ------------------------------------------------------------------------


class _Number(float):
    """A parsed JSON number that prints as it was written (``1.10`` stays ``1.10``)."""

    __slots__ = ("raw",)
    raw: str

    def __new__(cls, raw: str) -> _Number:
        obj = super().__new__(cls, raw)
        obj.raw = raw
        return obj


class _Pairs(dict[str, Any]):
    """An object whose keys repeat: every pair is kept so the pretty view hides nothing."""

    __slots__ = ("pairs",)
    pairs: list[tuple[str, Any]]

    def items(self) -> Any:
        return self.pairs


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj = dict(pairs)
    if len(obj) != len(pairs):
        dup = _Pairs(obj)
        dup.pairs = pairs
        return dup
    return obj


def _float_text(value: float) -> str:
    if isinstance(value, _Number):
        return value.raw
    if value != value:
        return "NaN"
    if value in (float("inf"), float("-inf")):
        return "Infinity" if value > 0 else "-Infinity"
    return float.__repr__(value)


def parse_json(text: str) -> Any:
    """Parse JSON, keeping numbers as written and repeated keys, for faithful display."""
    return json.loads(text, parse_float=_Number, object_pairs_hook=_object)


def _scalar(value: Any) -> str:
    kind = type(value)
    if kind is str:
        return encode_basestring(value)
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if kind is int:
        return int.__repr__(value)
    if isinstance(value, float):
        return _float_text(value)
    if isinstance(value, int):
        return int.__repr__(value)
    if isinstance(value, str):
        return encode_basestring(value)
    raise TypeError(f"a {kind.__name__} cannot be shown as JSON")


_MAX_DEPTH = 255  # depths are kept in bytes (as the outline keeps them)
_CHUNK = 1 << 16  # pieces joined into one string at a time: 5 MB held as 1.5M pieces was 80 MB


@dataclass
class Nesting:
    """Where each non-empty object and array of a pretty-printed text opens and closes, in the
    order they open, as :func:`dumps_pretty` wrote them: the outline of that text, with no
    second scan of it (``pigeon.bodies.outline.Outline`` holds the same arrays)."""

    opens: array[int] = field(default_factory=lambda: array("q"))
    closes: array[int] = field(default_factory=lambda: array("q"))
    parents: array[int] = field(default_factory=lambda: array("q"))
    after: array[int] = field(default_factory=lambda: array("q"))
    depths: bytearray = field(default_factory=bytearray)
    closed: bytearray = field(default_factory=bytearray)


def dumps_pretty(
    obj: Any, indent: int = 2, cancelled: Cancelled = never, nesting: Nesting | None = None
) -> str:
    """Pretty JSON text (non-ASCII kept as is) of a value from :func:`parse_json` or plain
    Python values.

    Appends straight to one list instead of chaining generators as ``json.dumps(indent=...)``
    does: the same text in a little over half the time, joined a chunk at a time so the
    pieces never all live at once. ``cancelled`` is checked at each container near the top
    (raising ``Stopped``). ``nesting`` records where each container opens and closes.
    """
    chunks: list[str] = []
    out: list[str] = []
    append = out.append
    pads = ["\n"]
    line = 0  # the line being written
    stack: list[int] = []  # the containers open, by their number in ``nesting``

    def pad(level: int) -> str:
        while len(pads) <= level:
            pads.append("\n" + " " * (indent * len(pads)))
        return pads[level]

    def opened(nesting: Nesting) -> None:
        nesting.parents.append(stack[-1] if stack else -1)
        nesting.depths.append(min(len(stack), _MAX_DEPTH))
        stack.append(len(nesting.opens))
        nesting.opens.append(line)
        nesting.closes.append(line)
        nesting.closed.append(0)
        nesting.after.append(0)

    def closed(nesting: Nesting) -> None:
        node = stack.pop()
        nesting.closes[node] = line
        nesting.closed[node] = 1
        nesting.after[node] = len(nesting.opens)

    def write(value: Any, level: int) -> None:
        nonlocal line
        if isinstance(value, dict):
            if not value:
                append("{}")
                return
            if level < 3 and cancelled():
                raise Stopped
            if nesting is not None:
                opened(nesting)
            inner = pad(level + 1)
            sep = "," + inner
            append("{" + inner)
            line += 1
            first = True
            for key, item in value.items():
                if not first:
                    append(sep)
                    line += 1
                first = False
                append(encode_basestring(key if isinstance(key, str) else str(key)))
                append(": ")
                if isinstance(item, (dict, list, tuple)):
                    write(item, level + 1)
                else:
                    append(_scalar(item))
            append(pad(level) + "}")
        elif isinstance(value, (list, tuple)):
            if not value:
                append("[]")
                return
            if level < 3 and cancelled():
                raise Stopped
            if nesting is not None:
                opened(nesting)
            inner = pad(level + 1)
            sep = "," + inner
            append("[" + inner)
            line += 1
            first = True
            for item in value:
                if not first:
                    append(sep)
                    line += 1
                first = False
                if isinstance(item, (dict, list, tuple)):
                    write(item, level + 1)
                else:
                    append(_scalar(item))
            append(pad(level) + "]")
        else:
            append(_scalar(value))
            return
        line += 1  # the closing bracket's line
        if nesting is not None:
            closed(nesting)
        if len(out) > _CHUNK:
            chunks.append("".join(out))
            out.clear()

    write(obj, 0)
    chunks.append("".join(out))
    return "".join(chunks)


def pretty_json(text: str, cancelled: Cancelled = never, nesting: Nesting | None = None) -> str:
    """``text`` re-indented by two spaces. ``ValueError`` if it is not JSON. ``nesting``
    records where each object and array opens and closes."""
    data = parse_json(text)
    if cancelled():
        raise Stopped
    return dumps_pretty(data, cancelled=cancelled, nesting=nesting)


def looks_like_json(text: str) -> bool:
    """Cheap sniff for bodies served without a JSON content type."""
    head = text[:64].lstrip("\ufeff \t\r\n")
    return head[:1] in ("{", "[")


# -- per-line JSON tokens ---------------------------------------------------------------------

TokenKind = Literal["key", "string", "number", "literal", "punct"]

_JSON_TOKEN = re.compile(
    r"""
    (?P<key>"(?:[^"\\]|\\.)*")(?=\s*:)
  | (?P<string>"(?:[^"\\]|\\.)*"?)
  | (?P<number>-?(?:\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|Infinity)\b|NaN\b)
  | (?P<literal>\b(?:true|false|null)\b)
  | (?P<punct>[{}\[\],:])
    """,
    re.VERBOSE,
)


def json_line_tokens(line: str, stop: int | None = None) -> list[tuple[int, int, TokenKind]]:
    """``(start, end, kind)`` for each JSON token on one line, up to character ``stop``.

    JSON strings cannot hold a raw line break, so one line can be tokenized alone; a string
    cut off at the end of the line is still a string.
    """
    out: list[tuple[int, int, TokenKind]] = []
    for match in _JSON_TOKEN.finditer(line):
        start = match.start()
        if stop is not None and start >= stop:
            break
        out.append((start, match.end(), match.lastgroup))  # type: ignore[arg-type]
    return out
