"""TOML as users write it: read fast and locate errors, write by editing their document (DESIGN §2).

Every user file Pigeon writes -- requests, folders, collections, environments, ``config.toml``,
the trust list -- goes through this module and ``tomlwrite`` (the writing half, apart so that
reading never loads ``tomlkit``):

* **Reading** uses ``tomllib`` (fast). A file that does not load names its path, line and
  column: syntax errors from tomllib's position, content errors by locating the key path in
  the text (``locate``).
* **Writing a file that exists** edits its document with ``tomlkit`` (``tomlwrite.update``).
  Only what differs between the data the file loads to (``old``) and the data to save
  (``new``) is touched, so an unchanged save is byte for byte the file, a changed field is a
  diff of that field's lines, and the user's comments, blank lines, key order, inline tables,
  literal and multi-line strings all stay.
* **Writing a new file** builds a document in a fixed, readable layout (``tomlwrite.dumps``):
  plain keys first, then tables, arrays of tables as ``[[name]]`` entries, and text marked
  ``Block`` (bodies, scripts, descriptions) as ``'''`` blocks so JSON and code read as written.
"""

from __future__ import annotations

import math
import re
import tomllib
from collections.abc import Callable, Mapping
from datetime import date, datetime, time
from pathlib import Path
from typing import Any

from pigeon.errors import LoadError, SaveError
from pigeon.values import MAX_DEPTH

_POSITION_RE = re.compile(r"\s*\(at line (\d+), column (\d+)\)\s*$")
_BARE_KEY_RE = re.compile(r"[A-Za-z0-9_-]+")


class Block(str):
    """Text written as a ``'''`` block when it is new: a body, a script, a description."""

    __slots__ = ()


class Invalid(Exception):
    """Well-formed TOML whose content does not fit; ``at`` is the key path, for ``locate``."""

    def __init__(self, at: tuple[str | int, ...], message: str) -> None:
        super().__init__(message)
        self.at = at
        self.message = message


# -- reading ---------------------------------------------------------------------------------


def read_text(path: Path) -> str:
    """A file's text; ``LoadError`` naming it when it cannot be read or is not UTF-8."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise LoadError(path, None, None, f"cannot read file: {exc.strerror or exc}") from exc
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise LoadError(path, line, None, "not UTF-8 text") from exc
    return text.removeprefix("\ufeff")


def parse(text: str, path: Path | None) -> dict[str, Any]:
    """``tomllib.loads`` with a syntax error turned into a located ``LoadError``."""
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        message = str(exc)
        line = column = None
        match = _POSITION_RE.search(message)
        if match:
            line, column = int(match[1]), int(match[2])
            message = message[: match.start()]
        message = message.removesuffix(_AT_END)
        if message in _UNCLOSED:  # tomllib points at the end: point at the opening quotes
            line, column, message = _unclosed_string(text, _UNCLOSED[message])
        raise LoadError(path, line, column, f"TOML syntax error: {message}") from exc
    except RecursionError:  # tomllib recurses once per level of arrays and inline tables
        line = _too_deep_line(text)
        raise LoadError(
            path, line, None, f"arrays or inline tables nested more than {MAX_DEPTH} levels deep"
        ) from None


_AT_END = " (at end of document)"
# tomllib's messages for a string the file never closes, and the quote that opens it.
_UNCLOSED = {"Unterminated string": '"', "Expected \"'''\"": "'''", 'Expected "\'"': "'"}


def _unclosed_string(text: str, quote: str) -> tuple[int, int, str]:
    """Line and column of the string that runs to the end of the file. A one-line string
    cannot hold a line break, so it opens on the last line; otherwise the last triple quote
    of its kind opens it."""
    last_line = text.rfind("\n") + 1
    triple = quote * 3 if len(quote) == 1 else quote
    opening = text.rfind(triple)
    if opening < last_line and len(quote) == 1 and quote in text[last_line:]:
        opening = text.index(quote, last_line)
    if opening < 0:
        opening = len(text)
    line = text.count("\n", 0, opening) + 1
    column = opening - (text.rfind("\n", 0, opening) + 1) + 1
    return line, column, "this string is never closed (the file ends inside it)"


def _too_deep_line(text: str) -> int | None:
    """The line where brackets first open deeper than ``MAX_DEPTH`` (strings are not parsed:
    a pointer for the user, not a parser)."""
    depth = 0
    for match in _BRACKET_RE.finditer(text):
        depth += 1 if match.group() in "[{" else -1
        if depth > MAX_DEPTH:
            return text.count("\n", 0, match.start()) + 1
    return None


_BRACKET_RE = re.compile(r"[\[\]{}]")


def load_document(text: str, path: Path | None, build: Callable[[dict[str, Any]], Any]) -> Any:
    """Parse ``text`` and build from it; any problem becomes a located ``LoadError``."""
    data = parse(text, path)
    try:
        return build(data)
    except Invalid as exc:
        line, column = locate(text, exc.at)
        where = key_path(exc.at)
        message = f"{where}: {exc.message}" if where else exc.message
        raise LoadError(path, line, column, message) from exc


def key_path(at: tuple[str | int, ...]) -> str:
    """``("headers", 0, "name")`` -> ``headers[0].name``; a path deeper than 12 keys shows its
    first and last keys around the count of those left out, so a message stays one line."""
    if len(at) > 12:
        return f"{key_path(at[:6])}…({len(at) - 8} more)…{key_path(at[-2:])}"
    out = ""
    for step in at:
        if isinstance(step, int):
            out += f"[{step}]"
        elif _BARE_KEY_RE.fullmatch(step):
            out += f".{step}" if out else step
        else:
            out += f"[{step!r}]"
    return out


def describe(value: Any) -> str:
    """A TOML-flavoured description of a value, for error messages."""
    if isinstance(value, bool):
        return f"boolean {str(value).lower()}"
    if isinstance(value, int):
        return f"integer {value}"
    if isinstance(value, float):
        return f"float {value}"
    if isinstance(value, str):
        return f"string {value!r}"
    if isinstance(value, datetime):
        return "date-time" if value.tzinfo else "local date-time"
    if isinstance(value, date):
        return "local date"
    if isinstance(value, time):
        return "local time"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "a table"
    return type(value).__name__


# Locating a key path in the source text. tomllib gives positions for syntax errors only, so
# for content errors the file is scanned for the table header or key line that names the
# deepest part of the path. It is a best effort for error messages, never used to read data.

_HEADER_RE = re.compile(r"^\s*(\[\[?)(.*?)\]\]?\s*(?:#.*)?$")
_KEY_LINE_RE = re.compile(
    r"""^\s*((?:"(?:[^"\\]|\\.)*"|'[^']*'|[A-Za-z0-9_-]+)"""
    r"""(?:\s*\.\s*(?:"(?:[^"\\]|\\.)*"|'[^']*'|[A-Za-z0-9_-]+))*)\s*=\s*(.*)$"""
)


def _key_parts(key_text: str) -> list[str] | None:
    try:
        data: Any = tomllib.loads(f"{key_text} = 0")
    except tomllib.TOMLDecodeError:
        return None
    parts: list[str] = []
    while isinstance(data, dict) and len(data) == 1:
        ((key, data),) = data.items()
        parts.append(key)
    return parts


def locate(text: str, at: tuple[str | int, ...]) -> tuple[int | None, int | None]:
    """The line and column where the key path ``at`` is written, as near as can be told."""
    best: tuple[int, int, int] | None = None  # (depth matched, line, column)
    table: list[str | int] = []
    aot_counts: dict[tuple[str | int, ...], int] = {}
    closing: str | None = None
    for number, line in enumerate(text.split("\n"), start=1):
        if closing is not None:  # inside a multi-line string
            if closing in line:
                closing = None
            continue
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        column = len(line) - len(line.lstrip()) + 1
        path: list[str | int] | None = None
        header = _HEADER_RE.match(line) if stripped.startswith("[") else None
        if header:
            parts = _key_parts(header[2])
            if parts is None:
                continue
            path = []
            for i, part in enumerate(parts):
                path.append(part)
                key = tuple(path)
                if header[1] == "[[" and i == len(parts) - 1:
                    aot_counts[key] = aot_counts.get(key, 0) + 1
                if key in aot_counts:
                    path.append(aot_counts[key] - 1)
            table = path
        else:
            key_line = _KEY_LINE_RE.match(line)
            if not key_line:
                continue
            parts = _key_parts(key_line[1])
            if parts is None:
                continue
            path = [*table, *parts]
            rest = key_line[2]
            for quote in ("'''", '"""'):
                if rest.startswith(quote) and quote not in rest[3:]:
                    closing = quote
        depth = 0
        for mine, wanted in zip(path, at, strict=False):
            if mine != wanted:
                break
            depth += 1
        if depth == len(path) and depth > 0 and (best is None or depth > best[0]):
            best = (depth, number, column)
    if best is None:
        return None, None
    return best[1], best[2]


# -- what TOML can hold ------------------------------------------------------------------------


def check_writable(value: Any, at: str) -> None:
    """Refuse values TOML cannot hold before anything is written, naming where they are."""
    if value is None:
        raise SaveError(f"{at}: null cannot be written to TOML")
    if isinstance(value, float) and not math.isfinite(value):
        raise SaveError(f"{at}: {value} is not a finite number")
    if isinstance(value, time):
        raise SaveError(f"{at}: a time of day alone is not a variable kind")
    if not isinstance(value, (str, int, float, date, Mapping, list, tuple)):
        raise SaveError(f"{at}: {type(value).__name__} is not TOML serializable")
    if isinstance(value, Mapping):
        for k, v in value.items():
            if not isinstance(k, str):
                raise SaveError(f"{at}: key {k!r} is not a string")
            check_writable(v, f"{at}.{k}")
    elif isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            check_writable(v, f"{at}[{i}]")


def same(a: Any, b: Any) -> bool:
    """Equal as TOML values: ``1``, ``1.0`` and ``true`` differ, as do naive and aware times."""
    if type(a) is not type(b) and not (
        isinstance(a, str)
        and isinstance(b, str)
        or isinstance(a, Mapping)
        and isinstance(b, Mapping)
        or isinstance(a, (list, tuple))
        and isinstance(b, (list, tuple))
    ):
        return False
    if isinstance(a, Mapping):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, float) and math.isnan(a):
        return isinstance(b, float) and math.isnan(b)
    if isinstance(a, datetime):
        return bool(a == b and a.tzinfo == b.tzinfo and a.utcoffset() == b.utcoffset())
    return bool(a == b)


__all__ = [
    "Block",
    "Invalid",
    "check_writable",
    "describe",
    "key_path",
    "load_document",
    "locate",
    "parse",
    "read_text",
    "same",
]
