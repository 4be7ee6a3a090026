"""Data rows for a data-driven run (DESIGN §6, `pigeon run --data`): one set of variables per
iteration, read from CSV, JSON or JSON Lines.

JSON values keep their kinds; CSV cells are strings unless a column says otherwise, in its
header (``age:number``) or with ``--data-types age=number``. Kinds: ``string``, ``number``
(an integer when it reads as one), ``int``, ``float``, ``bool`` and ``json``. Every name and
value is checked like a ``--var``; a bad cell names its file, line and column.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pigeon.errors import UsageError
from pigeon.files import read_capped
from pigeon.values import check_name, check_value

MAX_DATA_BYTES = 50_000_000  # a data file is read whole: this bounds what it may cost
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
    """The rows of a ``.csv``, ``.json`` (an array of objects) or ``.jsonl`` file."""
    try:
        raw = read_capped(path, MAX_DATA_BYTES)
    except OSError as exc:
        raise DataError(f"--data {path}: {exc.strerror or exc}") from exc
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise DataError(f"--data {path}: not UTF-8 (byte {exc.start})") from exc
    suffix = path.suffix.lower()
    if suffix == ".csv":
        rows = _csv_rows(path, text, dict(types or {}))
    elif suffix == ".json":
        rows = _json_rows(path, text)
    elif suffix in (".jsonl", ".ndjson"):
        rows = _jsonl_rows(path, text)
    else:
        raise DataError(f"--data {path}: expected a .csv, .json or .jsonl file")
    if not rows:
        raise DataError(f"--data {path}: no rows")
    return rows


def _checked(path: Path, where: str, row: Mapping[str, Any]) -> dict[str, Any]:
    out = {}
    for name, value in row.items():
        try:
            check_name(name)
            out[name] = check_value(value, name)
        except ValueError as exc:
            raise DataError(f"--data {path}:{where}: {exc}") from exc
    return out


def _csv_rows(path: Path, text: str, types: dict[str, str]) -> list[dict[str, Any]]:
    reader = csv.reader(io.StringIO(text, newline=""))
    try:
        header = next(reader)
    except StopIteration:
        return []
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
    rows = []
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
            rows.append(_checked(path, str(line), row))
    except csv.Error as exc:
        raise DataError(f"--data {path}:{reader.line_num}: {exc}") from exc
    return rows


def _json_rows(path: Path, text: str) -> list[dict[str, Any]]:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise DataError(f"--data {path}:{exc.lineno}:{exc.colno}: {exc.msg}") from exc
    except RecursionError as exc:
        raise DataError(f"--data {path}: nested too deeply") from exc
    if not isinstance(data, list) or not all(isinstance(row, dict) for row in data):
        raise DataError(f"--data {path}: expected an array of objects")
    return [_checked(path, f"row {n}", row) for n, row in enumerate(data, 1)]


def _jsonl_rows(path: Path, text: str) -> list[dict[str, Any]]:
    rows = []
    for line_no, line in enumerate(text.splitlines(), 1):
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
        rows.append(_checked(path, str(line_no), row))
    return rows
