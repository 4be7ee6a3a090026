"""TOML as users write it: read fast and locate errors, write by editing their document (DESIGN §2).

Every user file Pigeon writes -- requests, folders, collections, environments, ``config.toml``,
the trust list -- goes through this module:

* **Reading** uses ``tomllib`` (fast). A file that does not load names its path, line and
  column: syntax errors from tomllib's position, content errors by locating the key path in
  the text (``locate``).
* **Writing a file that exists** edits its document with ``tomlkit`` (``update``). Only what
  differs between the data the file loads to (``old``) and the data to save (``new``) is
  touched, so an unchanged save is byte for byte the file, a changed field is a diff of that
  field's lines, and the user's comments, blank lines, key order, inline tables, literal and
  multi-line strings all stay.
* **Writing a new file** builds a document in a fixed, readable layout (``dumps``): plain keys
  first, then tables, arrays of tables as ``[[name]]`` entries, and text marked ``Block`` (bodies,
  scripts, descriptions) as ``'''`` blocks so JSON and code read as written.
"""

from __future__ import annotations

import difflib
import json
import math
import re
import tomllib
from collections.abc import Callable, Mapping
from datetime import date, datetime, time
from pathlib import Path
from typing import Any

import tomlkit
from tomlkit.container import Container
from tomlkit.items import AoT, Array, InlineTable, Item, String, StringType, Table, Trivia

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
        return a == b and a.tzinfo == b.tzinfo and a.utcoffset() == b.utcoffset()
    return bool(a == b)


# -- new items ---------------------------------------------------------------------------------

_CONTROL = frozenset(chr(i) for i in range(32)) - {"\t", "\n"} | {"\x7f"}


def text_block(value: str) -> Item:
    """A body or script as a TOML string that reads as written.

    Multi-line text becomes ``'''`` + newline + text + ``'''`` (TOML drops that first newline),
    so editing one line of a body is a one-line diff. Text a literal string cannot hold falls
    back to escaped forms; ``\\r`` forces the single-line form, which keeps it exact.
    """
    literal_ok = not (_CONTROL & set(value))
    if "\n" not in value:
        if literal_ok and "'" not in value:
            return String(StringType.SLL, value, value, Trivia())
        if literal_ok and "'''" not in value and not value.endswith("'"):
            return String(StringType.MLL, value, value, Trivia())  # one line, no escapes
        return tomlkit.string(value)
    if not value.endswith("\n") and (closed := _closed_block(value)) is not None:
        return closed
    if literal_ok and "'''" not in value and not value.endswith("'"):
        return String(StringType.MLL, value, "\n" + value, Trivia())
    return _escaped_block(value)


def _closed_block(value: str) -> Item | None:
    """Multi-line text without a final newline, its closing quotes still on a line of their
    own: a basic block whose last line ends with a backslash (TOML trims that line break).
    Only for text a basic string holds without escapes (no backslash, no control character,
    no double quote at the end)."""
    if _CONTROL & set(value) or "\\" in value or '"""' in value or value.endswith('"'):
        return None
    return String(StringType.MLB, value, "\n" + value + "\\\n", Trivia())


# What a basic string must escape besides ``"""`` (a control character without a short form
# becomes ``\uXXXX``); ``\t`` and ``\n`` are written as they are.
_BASIC_ESCAPES = {"\\": "\\\\", "\r": "\\r", "\b": "\\b", "\f": "\\f"}


def _escaped_block(value: str) -> Item:
    """Multi-line text no literal block holds (a control character, three single quotes, a
    final single quote): a basic block escaping only what it must, a line of text a line of
    TOML, the closing quotes on a line of their own (a final backslash trims that break).

    Literal text with a backslash stays a literal block even though its closing quotes then
    end its last line: code reads as written (a regex's ``\\d`` is not doubled)."""
    out = []
    for c in value:
        escape = _BASIC_ESCAPES.get(c)
        if escape is None and c in _CONTROL:
            escape = f"\\u{ord(c):04x}"
        out.append(escape or c)
    escaped = "".join(out).replace('"""', '""\\"')
    end = "" if value.endswith("\n") else "\\\n"
    return String(StringType.MLB, value, "\n" + escaped + end, Trivia())


def _string_like(value: str, old: Item | None) -> Item:
    """A string in the style the user chose for the value it replaces, where it can hold it;
    a new ``Block`` as a text block."""
    if not isinstance(old, String):
        return text_block(value) if isinstance(value, Block) else tomlkit.string(value)
    literal_ok = not (_CONTROL & set(value))
    if old.type is StringType.SLL and literal_ok and "'" not in value and "\n" not in value:
        return String(StringType.SLL, value, value, Trivia())
    triple = "\x27" * 3
    mll_ok = literal_ok and triple not in value and not value.endswith("\x27")
    multiline = old.type in (StringType.MLL, StringType.MLB) and "\n" in old.as_string()
    if multiline and value and value[-1] != "\n":
        closed = _closed_block(value)
        if closed is not None:  # the closing quotes stay on a line of their own
            return closed
    if old.type is StringType.MLL and mll_ok:
        # TOML drops a newline right after the opening quotes: keep the user's, and add one
        # when the text itself starts with a newline, so that newline is not the one dropped.
        lead = "\n" if old.as_string().startswith(triple + "\n") or value[:1] == "\n" else ""
        return String(StringType.MLL, value, lead + value, Trivia())
    if old.type is StringType.MLB and "\n" in value:
        return _escaped_block(value)
    if isinstance(value, Block):
        return text_block(value)
    return tomlkit.string(value)


def _inline(value: Any) -> Any:
    """A value for a place that must stay on one line (inside an inline table or array)."""
    if isinstance(value, Mapping):
        table = tomlkit.inline_table()
        for k, v in value.items():
            table.append(k, _inline(v))
        return table
    if isinstance(value, (list, tuple)):
        array = tomlkit.array()
        array.extend(_inline(v) for v in value)
        return array
    if isinstance(value, str):
        return tomlkit.string(str(value))
    return tomlkit.item(value)


def _new_item(value: Any, old: Any = None) -> Any:
    """An item for ``value``, shaped like ``old`` (the item it replaces) where that fits."""
    if isinstance(value, str):
        return _string_like(value, old if isinstance(old, Item) else None)
    if isinstance(value, Mapping):
        if isinstance(old, InlineTable):
            return _inline(value)
        return _table(value)
    if isinstance(value, (list, tuple)):
        if value and all(isinstance(v, Mapping) for v in value) and not isinstance(old, Array):
            return _aot(value)
        if isinstance(old, Array) and "\n" in old.as_string():
            return _multiline_array(value, old)
        return _inline(value)
    return tomlkit.item(value)


def _multiline_array(value: list[Any] | tuple[Any, ...], old: Array) -> Array:
    """One element a line, indented as the array it replaces was."""
    match = re.search(r"\n([ \t]*)\S", old.as_string())
    indent = match[1] if match and match[1] else "  "
    lines = "".join(f"{indent}{_inline(v).as_string()},\n" for v in value)
    return tomlkit.parse(f"v = [\n{lines}]\n")["v"]


def _table(data: Mapping[str, Any]) -> Table:
    """A ``[table]``; one that holds only tables is written as their headers alone."""
    only_tables = bool(data) and all(isinstance(v, Mapping) for v in data.values())
    table = tomlkit.table(is_super_table=only_tables)
    _fill(table, data)
    return table


def _aot(entries: list[Mapping[str, Any]] | tuple[Mapping[str, Any], ...]) -> AoT:
    aot = tomlkit.aot()
    for entry in entries:
        aot.append(_aot_table(entry))
    return aot


def _aot_table(entry: Mapping[str, Any]) -> Table:
    """One ``[[name]]`` entry: nested tables stay inline, so an entry is one block of lines."""
    table = tomlkit.table()
    for k, v in entry.items():
        table.append(k, _string_like(v, None) if isinstance(v, str) else _inline(v))
    return table


def _fill(container: Container | Table, data: Mapping[str, Any]) -> None:
    """Plain keys first, then tables and arrays of tables, in the order given."""
    later = []
    for k, v in data.items():
        if isinstance(v, Mapping) or (
            isinstance(v, (list, tuple)) and v and all(isinstance(e, Mapping) for e in v)
        ):
            later.append((k, v))
        else:
            container.append(k, _new_item(v))
    for k, v in later:
        container.append(k, _new_item(v))


def dumps(data: Mapping[str, Any]) -> str:
    """A new file in the readable layout: plain keys, then ``[tables]``, ``[[entries]]`` and
    ``'''`` blocks for ``Block`` text."""
    doc = tomlkit.document()
    _fill(doc, data)
    return doc.as_string()


def value_text(value: Any) -> str:
    """One TOML value on one line, as it is written after ``key = ``."""
    return _inline(value).as_string()


# -- editing a user's document -----------------------------------------------------------------


def update(text: str, old: Mapping[str, Any], new: Mapping[str, Any]) -> str:
    """``text`` with what differs between ``old`` (the data ``text`` stands for) and ``new``
    written into it, everything else -- comments, blank lines, order, styles -- as it was."""
    if same(old, new):
        return text  # nothing to write: skip tomlkit's parse, the slow part of a save
    doc = tomlkit.parse(text)
    _merge(doc, old, new)
    edited = doc.as_string()
    if text.endswith("\n") and not text.endswith("\n\n"):
        edited = edited.rstrip("\n") + "\n"  # a removed last table leaves no blank tail
    return edited


def _merge(container: Any, old: Mapping[str, Any], new: Mapping[str, Any]) -> None:
    for key in [k for k in old if k not in new]:
        if key in container:
            del container[key]
    order = list(new)
    for key, value in new.items():
        before = old.get(key)
        if key in old and same(before, value):
            continue
        current = container.get(key) if key in container else None
        if (
            isinstance(value, Mapping)
            and isinstance(before, Mapping)
            and isinstance(current, (Table, InlineTable))
        ):
            _merge(current, before, value)
        elif isinstance(current, AoT) and isinstance(before, (list, tuple)) and _entries(value):
            _merge_aot(current, list(before), list(value))
        elif current is not None:
            container[key] = _new_item(value, current)
        else:
            _add(container, key, value, order)


def _entries(value: Any) -> bool:
    return isinstance(value, (list, tuple)) and all(isinstance(v, Mapping) for v in value)


def _is_table(item: Any) -> bool:
    return isinstance(item, (Table, AoT)) and not isinstance(item, InlineTable)


def _body(container: Any) -> list[tuple[Any, Any]]:
    return container.value.body if isinstance(container, Table) else container.body


def _add(container: Any, key: str, value: Any, order: list[str]) -> None:
    """A key the file did not have, placed before the next key of ``order`` that the file has
    (so a new ``name`` goes first, a new ``[auth]`` before ``[scripts]``), else at the end."""
    item = _new_item(value)
    is_table = isinstance(item, (Table, AoT))
    body = _body(container)
    for later in order[order.index(key) + 1 :]:
        at = next((i for i, (k, _) in enumerate(body) if k is not None and k.key == later), None)
        if at is None:
            continue
        if is_table:
            (item.body[-1] if isinstance(item, AoT) else item).add(tomlkit.nl())
        # tomlkit has no public insert-before; _insert_at is its stable way to place a key
        container_of = container.value if isinstance(container, Table) else container
        container_of._insert_at(at, key, item)
        return
    if not is_table:  # after the last plain key, before the comments that open a table
        plain = [i for i, (k, v) in enumerate(body) if k is not None and not _is_table(v)]
        if plain and plain[-1] + 1 < len(body):
            container_of = container.value if isinstance(container, Table) else container
            container_of._insert_at(plain[-1] + 1, key, item)
            return
    if is_table and body and not container.as_string().endswith("\n\n"):
        if not isinstance(body[-1][1], (Table, AoT)):
            container.add(tomlkit.nl())
        else:
            last = body[-1][1]
            (last.body[-1] if isinstance(last, AoT) else last).add(tomlkit.nl())
    container[key] = item


def _merge_aot(aot: AoT, old: list[Mapping], new: list[Mapping]) -> None:
    """Entries matched in order: unchanged ones (and their comments) stay as they are."""
    key = [json.dumps(e, sort_keys=True, default=repr) for e in old]
    key_new = [json.dumps(e, sort_keys=True, default=repr) for e in new]
    tables = list(aot.body)
    out: list[Table] = []
    matcher = difflib.SequenceMatcher(a=key, b=key_new, autojunk=False)
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            out += tables[i1:i2]
            continue
        pairs = min(i2 - i1, j2 - j1) if op == "replace" else 0
        for n in range(pairs):
            table = tables[i1 + n]
            _merge(table, old[i1 + n], new[j1 + n])
            out.append(table)
        for entry in new[j1 + pairs : j2]:
            table = _aot_table(entry)
            spaced = bool(tables) and tables[min(i1, len(tables) - 1)].as_string().endswith("\n\n")
            if spaced:
                table.add(tomlkit.nl())
            out.append(table)
    last_text = tables[-1].as_string() if tables else ""
    while len(aot):
        del aot[0]
    for table in out:
        aot.append(table)
    if out and last_text.endswith("\n\n") and not out[-1].as_string().endswith("\n\n"):
        out[-1].add(tomlkit.nl())


__all__ = [
    "Block",
    "Invalid",
    "check_writable",
    "describe",
    "dumps",
    "key_path",
    "load_document",
    "locate",
    "parse",
    "read_text",
    "same",
    "text_block",
    "update",
    "value_text",
]
