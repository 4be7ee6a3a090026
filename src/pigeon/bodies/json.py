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


CONTAINERS = (dict, list, tuple)
_KEYS_KEPT = 4096  # key pieces kept per level


def dumps_pretty(
    obj: Any, indent: int = 2, cancelled: Cancelled = never, nesting: Nesting | None = None
) -> str:
    """Pretty JSON text (non-ASCII kept as is) of a value from :func:`parse_json` or plain
    Python values.

    Appends straight to one list instead of chaining generators as ``json.dumps(indent=...)``
    does, each key with its line break and indent in one piece made once per level (an API
    listing repeats its keys): the same text in well under half the time. The pieces are
    joined a chunk at a time so they never all live at once. ``cancelled`` is checked at each
    container near the top (raising ``Stopped``). ``nesting`` records where each container
    opens and closes.
    """
    chunks: list[str] = []
    out: list[str] = []
    append = out.append
    pads = ["\n"]
    keyed: list[dict[str, str]] = []  # per level: a key's line break, indent, name and ": "
    record = nesting is not None
    opens, closes, parents, after, depths, closed = (
        (nesting.opens, nesting.closes, nesting.parents, nesting.after)
        + (nesting.depths, nesting.closed)
        if nesting is not None
        else (array("q"),) * 4 + (bytearray(),) * 2
    )
    stack: list[int] = []  # the containers open, by their number in ``nesting``

    def pad(level: int) -> str:
        while len(pads) <= level:
            pads.append("\n" + " " * (indent * len(pads)))
        return pads[level]

    def key_pieces(level: int) -> dict[str, str]:
        while len(keyed) <= level:
            keyed.append({})
        return keyed[level]

    def write(value: Any, level: int, line: int) -> int:
        """Write ``value``, which starts on ``line``; the line it ends on."""
        kind = type(value)
        if kind is dict or isinstance(value, dict):
            if not value:
                append("{}")
                return line
            if level < 3 and cancelled():
                raise Stopped
            node = len(opens)
            if record:
                parents.append(stack[-1] if stack else -1)
                depths.append(min(len(stack), _MAX_DEPTH))
                stack.append(node)
                opens.append(line)
                closes.append(line)
                closed.append(0)
                after.append(0)
            pieces = key_pieces(level + 1)
            sep = "," + pad(level + 1)
            append("{")
            first = True
            for key, item in value.items():
                piece = pieces.get(key)
                if piece is None:
                    name = key if isinstance(key, str) else str(key)
                    piece = sep + encode_basestring(name) + ": "
                    if len(pieces) < _KEYS_KEPT:  # not a map of ids: a listing's keys
                        pieces[key] = piece
                append(piece[1:] if first else piece)
                first = False
                line += 1
                item_kind = type(item)
                if item_kind is str:
                    append(encode_basestring(item))
                elif item_kind is dict or item_kind is list or isinstance(item, CONTAINERS):
                    line = write(item, level + 1, line)
                else:
                    append(_scalar(item))
            append(pad(level) + "}")
        elif kind is list or isinstance(value, CONTAINERS):
            if not value:
                append("[]")
                return line
            if level < 3 and cancelled():
                raise Stopped
            node = len(opens)
            if record:
                parents.append(stack[-1] if stack else -1)
                depths.append(min(len(stack), _MAX_DEPTH))
                stack.append(node)
                opens.append(line)
                closes.append(line)
                closed.append(0)
                after.append(0)
            inner = pad(level + 1)
            sep = "," + inner
            append("[")
            piece = inner
            for item in value:
                append(piece)
                piece = sep
                line += 1
                item_kind = type(item)
                if item_kind is str:
                    append(encode_basestring(item))
                elif item_kind is dict or item_kind is list or isinstance(item, CONTAINERS):
                    line = write(item, level + 1, line)
                else:
                    append(_scalar(item))
            append(pad(level) + "]")
        else:
            append(_scalar(value))
            return line
        line += 1  # the closing bracket's
        if record:
            stack.pop()
            closes[node] = line
            closed[node] = 1
            after[node] = len(opens)
        if len(out) > _CHUNK:
            chunks.append("".join(out))
            out.clear()
        return line

    write(obj, 0, 0)
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
