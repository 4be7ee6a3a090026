"""Response bodies for display: line indexes, JSON pretty-printing, per-line JSON tokens,
text search, JSON filters and a one-line description of binary bodies.

Everything here is pure and UI-free so a viewer can run it in a worker thread and render only
the lines on screen. A 5 MB JSON body becomes one string plus an array of line starts instead
of hundreds of thousands of line objects.
"""

from __future__ import annotations

import json
import re
import struct
import sys
from array import array
from bisect import bisect_right
from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import accumulate, repeat
from json.encoder import encode_basestring  # type: ignore[attr-defined]
from operator import add
from typing import Any, Literal

BodyKind = Literal["json", "text", "image", "binary", "empty"]

# A check the caller passes in so long loops can stop early (a worker's ``is_cancelled``).
Cancelled = Callable[[], bool]


def _never() -> bool:
    return False


class Stopped(Exception):
    """Raised from a long loop when the caller's ``cancelled`` check says so."""


# -- line index -----------------------------------------------------------------------------


@dataclass
class LineIndex:
    """A text and the offset where each of its lines starts.

    ``width`` is the widest line in terminal cells (as measured by the ``cell_len`` given to
    :func:`build_index`), so a viewer can size its horizontal scroll without touching every
    line again.
    """

    text: str
    starts: array = field(default_factory=lambda: array("q", [0]))
    width: int = 0

    def __post_init__(self) -> None:
        # Where the last line ends: a final line break belongs to no line.
        self._end = len(self.text) - (1 if self.text.endswith("\n") else 0)

    def __len__(self) -> int:
        return len(self.starts) if self.text else 0

    def line(self, number: int) -> str:
        """Line ``number`` (0-based) without its line ending."""
        starts = self.starts
        begin = starts[number]
        end = starts[number + 1] - 1 if number + 1 < len(starts) else self._end
        if end > begin and self.text[end - 1] == "\r":
            end -= 1
        return self.text[begin:end]

    def line_of(self, offset: int) -> int:
        """The line holding character ``offset``."""
        return bisect_right(self.starts, offset) - 1

    def line_length(self, number: int) -> int:
        starts = self.starts
        end = starts[number + 1] - 1 if number + 1 < len(starts) else self._end
        return end - starts[number]


EMPTY_INDEX = LineIndex("")

# A line holding a character that may take two terminal cells (East Asian wide or
# fullwidth, emoji).
_WIDE_LINE = re.compile(
    "^[^\n]*?[\u1100-\u115f\u231a-\u23ff\u2600-\u27bf\u2e80-\ua4cf\uac00-\ud7a3"
    "\uf900-\ufaff\ufe10-\ufe6f\uff00-\uff60\uffe0-\uffe6\U0001f000-\U0001faff"
    "\U00020000-\U0003fffd][^\n]*",
    re.MULTILINE,
)


def _narrow_only(text: str) -> bool:
    """True when no character can be wide. Wide characters all lie above U+1100, so a string
    CPython stores at one byte per character (Latin-1 at most) has none; that storage shows
    in its size, which saves scanning megabytes of accented text."""
    if text.isascii():
        return True
    return len(text) > 256 and sys.getsizeof(text) < len(text) + 256


def build_index(
    text: str,
    cell_len: Callable[[str], int] = len,
    cancelled: Cancelled = _never,
) -> LineIndex:
    """Index the lines of ``text`` (``\\n`` or ``\\r\\n`` endings) and measure the widest.

    ASCII text is measured by character count alone; otherwise only lines long enough to
    possibly be the widest are measured with ``cell_len`` (wide characters take two cells).
    A trailing newline does not make an extra empty line.
    """
    if not text:
        return LineIndex(text)
    # split() and map() run in C: about twice as fast as scanning for line breaks.
    lengths = array("q", map(len, text.split("\n")))
    if text.endswith("\n"):
        lengths.pop()
    if cancelled():
        raise Stopped
    starts = array("q", accumulate(map(add, lengths, repeat(1)), initial=0))
    starts.pop()
    width = max(lengths, default=0)
    if not _narrow_only(text):
        # Only lines holding wide characters (CJK, emoji) can be wider than they are long.
        for count, match in enumerate(_WIDE_LINE.finditer(text)):
            width = max(width, cell_len(match.group()))
            if count % 1024 == 0 and cancelled():
                raise Stopped
    return LineIndex(text, starts, width)


# -- JSON pretty-printing ---------------------------------------------------------------------


class _Number(float):
    """A parsed JSON number that prints as it was written (``1.10`` stays ``1.10``)."""

    __slots__ = ("raw",)
    raw: str

    def __new__(cls, raw: str) -> _Number:
        obj = super().__new__(cls, raw)
        obj.raw = raw
        return obj


class _Pairs(dict):  # type: ignore[type-arg]
    """An object whose keys repeat: every pair is kept so the pretty view hides nothing."""

    __slots__ = ("pairs",)

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


def dumps_pretty(obj: Any, indent: int = 2, cancelled: Cancelled = _never) -> str:
    """Pretty JSON text (non-ASCII kept as is) of a value from :func:`parse_json` or plain
    Python values.

    Appends straight to one list instead of chaining generators as ``json.dumps(indent=...)``
    does: the same text in a little over half the time. ``cancelled`` is checked at each
    container near the top (raising ``Stopped``).
    """
    out: list[str] = []
    append = out.append
    pads = ["\n"]

    def pad(level: int) -> str:
        while len(pads) <= level:
            pads.append("\n" + " " * (indent * len(pads)))
        return pads[level]

    def write(value: Any, level: int) -> None:
        if isinstance(value, dict):
            if not value:
                append("{}")
                return
            if level < 3 and cancelled():
                raise Stopped
            inner = pad(level + 1)
            sep = "," + inner
            append("{" + inner)
            first = True
            for key, item in value.items():
                if not first:
                    append(sep)
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
            inner = pad(level + 1)
            sep = "," + inner
            append("[" + inner)
            first = True
            for item in value:
                if not first:
                    append(sep)
                first = False
                if isinstance(item, (dict, list, tuple)):
                    write(item, level + 1)
                else:
                    append(_scalar(item))
            append(pad(level) + "]")
        else:
            append(_scalar(value))

    write(obj, 0)
    return "".join(out)


def pretty_json(text: str, cancelled: Cancelled = _never) -> str:
    """``text`` re-indented by two spaces. ``ValueError`` if it is not JSON."""
    data = parse_json(text)
    if cancelled():
        raise Stopped
    return dumps_pretty(data, cancelled=cancelled)


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


# -- search ---------------------------------------------------------------------------------


@dataclass
class Matches:
    """Where a query occurs in a text: character offsets, in order."""

    query: str = ""
    starts: array = field(default_factory=lambda: array("q"))
    ends: array = field(default_factory=lambda: array("q"))
    capped: bool = False  # more matches exist than were recorded

    def __len__(self) -> int:
        return len(self.starts)

    def between(self, begin: int, end: int) -> range:
        """Indexes of matches starting in ``[begin, end)``."""
        return range(bisect_right(self.starts, begin - 1), bisect_right(self.starts, end - 1))


def search_pattern(query: str) -> re.Pattern[str]:
    """A literal search; case-insensitive unless the query has an upper-case letter."""
    flags = 0 if any(c.isupper() for c in query) else re.IGNORECASE
    return re.compile(re.escape(query), flags)


def find_all(text: str, query: str, limit: int = 100_000, cancelled: Cancelled = _never) -> Matches:
    """Every occurrence of ``query`` in ``text`` (at most ``limit``)."""
    found = Matches(query)
    if not query:
        return found
    starts, ends = found.starts, found.ends
    for count, match in enumerate(search_pattern(query).finditer(text)):
        if count >= limit:
            found.capped = True
            break
        if count % 2048 == 0 and cancelled():
            raise Stopped
        if match.end() > match.start():
            starts.append(match.start())
            ends.append(match.end())
    return found


# -- JSON filters ---------------------------------------------------------------------------


class FilterError(ValueError):
    """The filter expression is invalid or failed on this document; ``str()`` says why."""


def filter_language(expression: str) -> Literal["jsonpath", "jmespath"]:
    return "jsonpath" if expression.lstrip().startswith("$") else "jmespath"


def apply_filter(obj: Any, expression: str) -> Any:
    """Evaluate a JMESPath expression, or JSONPath when it starts with ``$``, against ``obj``
    (plain JSON values). JSONPath yields the list of matched values."""
    expression = expression.strip()
    if not expression:
        raise FilterError("empty expression")
    if filter_language(expression) == "jsonpath":
        try:
            from jsonpath_ng.ext import parse as jsonpath_parse
        except ImportError:
            raise FilterError(
                "JSONPath needs the jsonpath-ng package; JMESPath (no leading $) works as is"
            ) from None

        try:
            compiled = jsonpath_parse(expression)
        except Exception as exc:  # its lexer and parser raise several unrelated types
            raise FilterError(f"JSONPath: {_one_line(exc)}") from None
        try:
            return [match.value for match in compiled.find(obj)]
        except Exception as exc:
            raise FilterError(f"JSONPath: {_one_line(exc)}") from None

    import jmespath
    from jmespath.exceptions import JMESPathError

    try:
        compiled = jmespath.compile(expression)
    except JMESPathError as exc:
        raise FilterError(f"JMESPath: {_jmespath_problem(exc, expression)}") from None
    try:
        return compiled.search(obj)
    except JMESPathError as exc:
        raise FilterError(f"JMESPath: {_one_line(exc)}") from None
    except Exception as exc:  # a function applied to the wrong shape of data
        raise FilterError(f"JMESPath: {_one_line(exc)}") from None


def _jmespath_problem(exc: Exception, expression: str) -> str:
    """jmespath's messages span lines with a caret; say the same on one line."""
    from jmespath.exceptions import IncompleteExpressionError, LexerError, ParseError

    if isinstance(exc, IncompleteExpressionError):
        return f"incomplete expression (column {len(expression)})"
    if isinstance(exc, LexerError):
        return f"{exc.message} at column {exc.lexer_position}"
    if isinstance(exc, ParseError) and getattr(exc, "token_value", None) is not None:
        return f"unexpected {exc.token_value!r} at column {exc.lex_position}"
    return _one_line(exc)


def _one_line(exc: BaseException) -> str:
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    text = lines[0] if lines else type(exc).__name__
    # jmespath puts the expression and a caret on later lines; keep the useful first one.
    return text[:300]


# -- binary bodies ----------------------------------------------------------------------------

_TEXT_TYPES = (
    "application/json",
    "application/xml",
    "application/javascript",
    "application/ecmascript",
    "application/x-www-form-urlencoded",
    "application/graphql",
    "application/yaml",
    "application/x-yaml",
    "application/toml",
    "application/x-ndjson",
    "application/problem+json",
    "application/sql",
    "application/csv",
    "image/svg+xml",
)


# One JSON value per line: shown line for line, highlighted as JSON.
JSON_LINES_TYPES = frozenset(
    {
        "application/x-ndjson",
        "application/ndjson",
        "application/jsonl",
        "application/x-jsonlines",
        "application/jsonlines",
        "application/json-seq",
    }
)


def is_text_type(content_type: str) -> bool:
    ctype = content_type.lower()
    return (
        ctype.startswith("text/")
        or ctype in _TEXT_TYPES
        or ctype in JSON_LINES_TYPES
        or ctype.endswith(("+json", "+xml", "+yaml"))
    )


def is_json_type(content_type: str) -> bool:
    ctype = content_type.lower()
    return ctype in ("application/json", "text/json") or ctype.endswith("+json")


def looks_binary(head: bytes) -> bool:
    """NUL bytes or invalid UTF-8 in the first bytes: not something to show as text."""
    sample = head[:8192]
    if b"\x00" in sample:
        return True
    try:
        sample.decode("utf-8")
    except UnicodeDecodeError as exc:
        # A multi-byte character cut off at the end of the sample is still text.
        return exc.start < len(sample) - 3
    return False


def classify_body(content_type: str, head: bytes, size: int) -> BodyKind:
    """How to show a body, from its declared type and its first bytes."""
    if size == 0:
        return "empty"
    if image_info(head) is not None and not is_text_type(content_type):
        return "image"
    if is_json_type(content_type):
        return "json"
    if is_text_type(content_type):
        return "text"
    if content_type.startswith(("image/", "audio/", "video/", "font/")) or looks_binary(head):
        return "binary"
    return "text"


@dataclass
class ImageInfo:
    format: str
    width: int | None = None
    height: int | None = None


def image_info(head: bytes) -> ImageInfo | None:
    """Format and pixel size of a PNG, GIF, JPEG, WebP or BMP from its first bytes."""
    try:
        if head.startswith(b"\x89PNG\r\n\x1a\n") and len(head) >= 24:
            width, height = struct.unpack(">II", head[16:24])
            return ImageInfo("PNG", width, height)
        if head[:6] in (b"GIF87a", b"GIF89a"):
            width, height = struct.unpack("<HH", head[6:10])
            return ImageInfo("GIF", width, height)
        if head.startswith(b"\xff\xd8\xff"):
            return ImageInfo("JPEG", *_jpeg_size(head))
        if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
            return ImageInfo("WebP", *_webp_size(head))
        if head.startswith(b"BM") and len(head) >= 26:
            width, height = struct.unpack("<ii", head[18:26])
            return ImageInfo("BMP", width, abs(height))
    except struct.error:
        return None
    return None


def _jpeg_size(data: bytes) -> tuple[int | None, int | None]:
    pos = 2
    while pos + 9 < len(data):
        if data[pos] != 0xFF:
            pos += 1
            continue
        marker = data[pos + 1]
        if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7 or marker == 0xFF:
            pos += 1 if marker == 0xFF else 2
            continue
        length = struct.unpack(">H", data[pos + 2 : pos + 4])[0]
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
            height, width = struct.unpack(">HH", data[pos + 5 : pos + 9])
            return width, height
        pos += 2 + length
    return None, None


def _webp_size(data: bytes) -> tuple[int | None, int | None]:
    chunk = data[12:16]
    if chunk == b"VP8 " and len(data) >= 30:
        width, height = struct.unpack("<HH", data[26:30])
        return width & 0x3FFF, height & 0x3FFF
    if chunk == b"VP8L" and len(data) >= 25:
        bits = int.from_bytes(data[21:25], "little")
        return (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1
    if chunk == b"VP8X" and len(data) >= 30:
        width = int.from_bytes(data[24:27], "little") + 1
        height = int.from_bytes(data[27:30], "little") + 1
        return width, height
    return None, None


def human_size(size: int) -> str:
    """``512 B``, ``4.2 KB``, ``5.0 MB`` (1 KB = 1024 bytes)."""
    if size < 1024:
        return f"{size} B"
    value = float(size)
    for unit in ("KB", "MB", "GB", "TB"):
        value /= 1024
        if value < 1024 or unit == "TB":
            return f"{value:.1f} {unit}"
    raise AssertionError("unreachable")


def describe_binary(content_type: str, head: bytes, size: int) -> str:
    """One line for a body that is not shown as text."""
    info = image_info(head)
    if info is not None:
        dims = f" ({info.width}x{info.height})" if info.width and info.height else ""
        return f"{info.format} image, {size:,} bytes{dims}"
    kind = content_type or "unknown type"
    return f"Binary body, {kind}, {human_size(size)}"
