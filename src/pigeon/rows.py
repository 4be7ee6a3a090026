"""Data rows for a data-driven run (DESIGN §6, `pigeon run --data`): one set of variables per
iteration, read from CSV, JSON or JSON Lines.

JSON values keep their kinds; CSV cells are strings unless a column says otherwise, in its
header (``age:number``) or with ``--data-types age=number``. Kinds: ``string``, ``number``
(an integer when it reads as one), ``int``, ``float``, ``bool`` and ``json``. Every name and
value is checked like a ``--var``; a bad cell names its file, line and column.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any, TextIO

from pigeon.errors import UsageError
from pigeon.values import check_name, check_value

MAX_DATA_BYTES = 50_000_000  # a .json file (or one line of JSON Lines) is read whole: its bound
KINDS = ("string", "number", "int", "float", "bool", "json")
_TRUE, _FALSE = {"true", "yes", "1", "on"}, {"false", "no", "0", "off", ""}


class DataError(UsageError):
    """A data file that cannot drive a run: bad usage (exit 2), before anything is sent."""


def parse_types(spec: str | None) -> dict[str, str]:
    """``--data-types age=number,active=bool`` -> ``{"age": "number", "active": "bool"}``."""
    out: dict[str, str] = {}
    for part in (spec or "").split(","):
        if not part.strip():
            continue
        name, sep, kind = part.partition("=")
        name, kind = name.strip(), kind.strip()
        if not sep or kind not in KINDS:
            raise DataError(
                f"--data-types {part.strip()!r}: expected NAME=KIND, KIND one of {', '.join(KINDS)}"
            )
        out[name] = kind
    return out


def convert(text: str, kind: str) -> Any:
    """A CSV cell as ``kind``; ``ValueError`` saying what it expected."""
    if kind == "string":
        return text
    if kind == "bool":
        low = text.strip().lower()
        if low in _TRUE:
            return True
        if low in _FALSE:
            return False
        raise ValueError(f"expected a boolean (true/false), got {text!r}")
    if kind == "json":
        try:
            return json.loads(text)
        except json.JSONDecodeError as exc:
            raise ValueError(f"not JSON: {exc.msg}") from exc
    try:
        if kind == "int":
            return int(text)
        if kind == "float":
            return float(text)
        try:
            return int(text)
        except ValueError:
            return float(text)
    except ValueError:
        raise ValueError(f"expected a {kind}, got {text!r}") from None


def read_rows(path: Path, types: Mapping[str, str] | None = None) -> list[dict[str, Any]]:
    """The rows of a ``.csv``, ``.json`` (an array of objects) or ``.jsonl`` file, all held."""
    rows = list(iter_rows(path, types))
    if not rows:
        raise DataError(f"--data {path}: no rows")
    return rows


def iter_rows(path: Path, types: Mapping[str, str] | None = None) -> Iterator[dict[str, Any]]:
    """The rows one at a time, read as they are asked for: a CSV or JSON Lines file of any
    length costs one row's memory (a ``.json`` array is parsed whole, within
    ``MAX_DATA_BYTES``). ``DataError`` names the file and line of the first bad one."""
    suffix = path.suffix.lower()
    if suffix not in (".csv", ".json", ".jsonl", ".ndjson"):
        raise DataError(f"--data {path}: expected a .csv, .json or .jsonl file")
    try:
        with open(path, encoding="utf-8-sig", newline="") as fh:
            if suffix == ".csv":
                yield from _csv_rows(path, fh, dict(types or {}))
            elif suffix == ".json":
                yield from _json_rows(path, fh.read(MAX_DATA_BYTES + 1))
            else:
                yield from _jsonl_rows(path, fh)
    except OSError as exc:
        raise DataError(f"--data {path}: {exc.strerror or exc}") from exc
    except UnicodeDecodeError as exc:
        raise DataError(f"--data {path}: not UTF-8") from exc


class DataRows:
    """A data file's rows as ``(label, variables)`` iterations, read afresh each time they are
    iterated (checked whole once, up front, by ``check``): none is held."""

    def __init__(self, path: Path, types: Mapping[str, str] | None = None) -> None:
        self.path, self.types = path, dict(types or {})
        self.count = 0

    def check(self) -> DataRows:
        """Read every row once: a bad one is bad usage before anything is sent."""
        self.count = sum(1 for _ in iter_rows(self.path, self.types))
        if not self.count:
            raise DataError(f"--data {self.path}: no rows")
        return self

    def __len__(self) -> int:
        return self.count

    def __iter__(self) -> Iterator[tuple[str, dict[str, Any]]]:
        for n, row in enumerate(iter_rows(self.path, self.types), 1):
            yield f"row {n}", row


def _checked(path: Path, where: str, row: Mapping[str, Any]) -> dict[str, Any]:
    out = {}
    for name, value in row.items():
        try:
            check_name(name)
            out[name] = check_value(value, name)
        except ValueError as exc:
            raise DataError(f"--data {path}:{where}: {exc}") from exc
    return out


def _csv_rows(path: Path, lines: Iterable[str], types: dict[str, str]) -> Iterator[dict[str, Any]]:
    reader = csv.reader(lines)
    try:
        header = next(reader)
    except StopIteration:
        return
    except csv.Error as exc:
        raise DataError(f"--data {path}:1: {exc}") from exc
    columns: list[tuple[str, str]] = []
    for cell in header:
        name, sep, kind = cell.strip().partition(":")
        if sep and kind not in KINDS:
            raise DataError(
                f"--data {path}:1: column {cell!r}: unknown kind (one of {', '.join(KINDS)})"
            )
        columns.append((name, types.get(name, kind or "string")))
    names = [name for name, _ in columns]
    if len(set(names)) != len(names):
        raise DataError(f"--data {path}:1: a column name is repeated")
    try:
        for cells in reader:
            line = reader.line_num
            if not any(c.strip() for c in cells):
                continue  # a blank line
            if len(cells) != len(columns):
                raise DataError(
                    f"--data {path}:{line}: {len(cells)} cells for {len(columns)} columns"
                )
            row = {}
            for number, ((name, kind), cell) in enumerate(zip(columns, cells, strict=True)):
                try:
                    row[name] = convert(cell, kind)
                except ValueError as exc:
                    raise DataError(f"--data {path}:{line}:{number + 1}: {name}: {exc}") from exc
            yield _checked(path, str(line), row)
    except csv.Error as exc:
        raise DataError(f"--data {path}:{reader.line_num}: {exc}") from exc


def _json_rows(path: Path, text: str) -> list[dict[str, Any]]:
    if len(text) > MAX_DATA_BYTES:
        raise DataError(f"--data {path}: a .json file is read whole: over {MAX_DATA_BYTES} bytes")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise DataError(f"--data {path}:{exc.lineno}:{exc.colno}: {exc.msg}") from exc
    except RecursionError as exc:
        raise DataError(f"--data {path}: nested too deeply") from exc
    if not isinstance(data, list) or not all(isinstance(row, dict) for row in data):
        raise DataError(f"--data {path}: expected an array of objects")
    return [_checked(path, f"row {n}", row) for n, row in enumerate(data, 1)]


def _jsonl_rows(path: Path, fh: TextIO) -> Iterator[dict[str, Any]]:
    line_no = 0
    while line := fh.readline(MAX_DATA_BYTES + 1):
        line_no += 1
        if len(line) > MAX_DATA_BYTES:
            raise DataError(f"--data {path}:{line_no}: a line over {MAX_DATA_BYTES} characters")
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise DataError(f"--data {path}:{line_no}:{exc.colno}: {exc.msg}") from exc
        except RecursionError as exc:
            raise DataError(f"--data {path}:{line_no}: nested too deeply") from exc
        if not isinstance(row, dict):
            raise DataError(f"--data {path}:{line_no}: expected an object")
        yield _checked(path, str(line_no), row)
