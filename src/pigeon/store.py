"""Collections on disk: TOML files <-> the model (DESIGN §2).

Loading never stops at a bad file: each one becomes a ``BrokenFile`` naming the file, line,
column and problem, and the rest of the collection still loads. Saving writes TOML with
tomli-w in a fixed key order with defaults left out, so a change to one field is a one-line
diff; every write goes through ``atomic_write``; and a file that does not load is never
overwritten, so a hand edit in progress is never lost.

Secrets belong in the collection's git-ignored ``.env`` and are referenced as
``{{$env.NAME}}``: ``.env`` is read into ``Collection.dotenv`` only (never into variables) and
the store never writes it.
"""

from __future__ import annotations

import io
import math
import os
import re
import shutil
import stat
import tempfile
import tomllib
import unicodedata
import uuid
from collections.abc import Callable, Mapping
from contextlib import suppress
from dataclasses import dataclass, replace
from datetime import date, datetime, time
from pathlib import Path
from typing import Any

import tomli_w
from dotenv.parser import parse_stream

from pigeon.model import (
    AUTH_TYPES,
    BODY_TYPES,
    METHODS,
    Auth,
    Body,
    BrokenFile,
    Collection,
    Environment,
    Folder,
    FormField,
    Header,
    QueryParam,
    Request,
    Scripts,
    Settings,
)
from pigeon.values import check_name

COLLECTION_FILE = "collection.toml"
FOLDER_FILE = "folder.toml"
ENVIRONMENTS_DIR = "environments"
DOTENV_FILE = ".env"
RESERVED_STEMS = ("collection", "folder")

_REQUEST_KEYS = (
    "name", "method", "url", "description", "variables", "headers", "query", "body", "auth",
    "scripts", "settings",
)  # fmt: skip
_COLLECTION_KEYS = (
    "name", "default_environment", "order", "variables", "headers", "auth", "scripts",
)  # fmt: skip
_FOLDER_KEYS = ("name", "order", "variables", "headers", "auth", "scripts")
_ENVIRONMENT_KEYS = ("variables",)
_PAIR_KEYS = ("name", "value", "enabled")
_FIELD_KEYS = ("name", "value", "enabled", "kind", "content_type")
_BODY_KEYS = ("type", "content", "fields")
_AUTH_KEYS = ("type", "username", "password", "token", "key", "value", "location")
_SCRIPT_KEYS = ("pre_request", "post_response")
_SETTINGS_KEYS = ("timeout", "follow_redirects", "verify_tls")

# RFC 9110 token characters: what a custom method may be made of.
_METHOD_RE = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")
_POSITION_RE = re.compile(r"\s*\(at line (\d+), column (\d+)\)\s*$")
_BARE_KEY_RE = re.compile(r"[A-Za-z0-9_-]+")


# -- errors ----------------------------------------------------------------------------------


class LoadError(Exception):
    """A file (or the collection directory) that cannot be loaded, with where and why."""

    def __init__(
        self, path: Path | None, line: int | None, column: int | None, message: str
    ) -> None:
        super().__init__(message)
        self.path = path
        self.line = line
        self.column = column
        self.message = message

    def as_broken(self) -> BrokenFile:
        return BrokenFile(Path(self.path or "<text>"), self.message, self.line, self.column)

    def __str__(self) -> str:
        return str(self.as_broken())


class SaveError(Exception):
    """A save that was refused before anything on disk changed."""


class _Invalid(Exception):
    """A well-formed TOML file whose content does not fit the model; ``at`` is the key path."""

    def __init__(self, at: tuple[str | int, ...], message: str) -> None:
        super().__init__(message)
        self.at = at
        self.message = message


# -- reading TOML ----------------------------------------------------------------------------


def _read_text(path: Path) -> str:
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


def _parse_toml(text: str, path: Path | None) -> dict[str, Any]:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        message = str(exc)
        match = _POSITION_RE.search(message)
        line = column = None
        if match:
            line, column = int(match[1]), int(match[2])
            message = message[: match.start()]
        raise LoadError(path, line, column, f"TOML syntax error: {message}") from exc


def _load_document(text: str, path: Path | None, build: Callable[[dict[str, Any]], Any]) -> Any:
    """Parse ``text`` and build a model object; any problem becomes a located ``LoadError``."""
    data = _parse_toml(text, path)
    try:
        return build(data)
    except _Invalid as exc:
        line, column = _locate(text, exc.at)
        where = _where(exc.at)
        message = f"{where}: {exc.message}" if where else exc.message
        raise LoadError(path, line, column, message) from exc


def _where(at: tuple[str | int, ...]) -> str:
    out = ""
    for step in at:
        if isinstance(step, int):
            out += f"[{step}]"
        elif _BARE_KEY_RE.fullmatch(step):
            out += f".{step}" if out else step
        else:
            out += f"[{step!r}]"
    return out


def _describe(value: Any) -> str:
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


def _locate(text: str, at: tuple[str | int, ...]) -> tuple[int | None, int | None]:
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


# -- TOML data -> model ----------------------------------------------------------------------


def _get_str(table: Mapping[str, Any], key: str, at: tuple, default: str = "") -> str:
    value = table.get(key, default)
    if not isinstance(value, str):
        raise _Invalid((*at, key), f"expected a string, got {_describe(value)}")
    return value


def _get_bool(table: Mapping[str, Any], key: str, at: tuple, default: bool) -> bool:
    value = table.get(key, default)
    if not isinstance(value, bool):
        raise _Invalid((*at, key), f"expected true or false, got {_describe(value)}")
    return value


def _get_choice(
    table: Mapping[str, Any], key: str, at: tuple, default: str, choices: tuple[str, ...]
) -> str:
    value = _get_str(table, key, at, default)
    if value not in choices:
        raise _Invalid((*at, key), f"{value!r} is not one of {', '.join(choices)}")
    return value


def _get_table(table: Mapping[str, Any], key: str, at: tuple) -> dict[str, Any] | None:
    value = table.get(key)
    if value is None:
        return None
    if not isinstance(value, dict):
        raise _Invalid((*at, key), f"expected a table, got {_describe(value)}")
    return value


def _get_tables(table: Mapping[str, Any], key: str, at: tuple) -> list[dict[str, Any]]:
    value = table.get(key, [])
    if not isinstance(value, list) or not all(isinstance(item, dict) for item in value):
        raise _Invalid(
            (*at, key),
            f"expected an array of tables ([[{key}]] with name = ..., value = ...), "
            f"got {_describe(value)}",
        )
    return value


def _extra(table: Mapping[str, Any], known: tuple[str, ...]) -> dict[str, Any]:
    return {k: v for k, v in table.items() if k not in known}


def _check_variable(value: Any, at: tuple) -> None:
    """Refuse what DESIGN §3.1 has no kind for: local times, NaN and infinities."""
    if isinstance(value, time):
        raise _Invalid(
            at,
            "a local time (hh:mm:ss) is not a variable kind; "
            "use a string, a local date or a date-time",
        )
    if isinstance(value, float) and not math.isfinite(value):
        raise _Invalid(at, f"{value} is not a finite number")
    if isinstance(value, dict):
        for key, item in value.items():
            _check_variable(item, (*at, key))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            _check_variable(item, (*at, i))


def _variables(table: Mapping[str, Any], at: tuple) -> dict[str, Any]:
    variables = _get_table(table, "variables", at)
    if variables is None:
        return {}
    for name, value in variables.items():
        try:
            check_name(name)
        except ValueError as exc:
            raise _Invalid((*at, "variables", name), str(exc)) from None
        _check_variable(value, (*at, "variables", name))
    return variables


def _pairs(table: Mapping[str, Any], key: str, cls: type[Header] | type[QueryParam]) -> list:
    out = []
    for i, item in enumerate(_get_tables(table, key, ())):
        at = (key, i)
        if "name" not in item:
            raise _Invalid(at, "missing name")
        out.append(
            cls(
                name=_get_str(item, "name", at),
                value=_get_str(item, "value", at),
                enabled=_get_bool(item, "enabled", at, True),
                extra=_extra(item, _PAIR_KEYS),
            )
        )
    return out


def _headers(table: Mapping[str, Any]) -> list[Header]:
    return _pairs(table, "headers", Header)


def _auth(table: Mapping[str, Any]) -> Auth | None:
    data = _get_table(table, "auth", ())
    if data is None:
        return None
    at = ("auth",)
    return Auth(
        type=_get_choice(data, "type", at, "none", AUTH_TYPES),
        username=_get_str(data, "username", at),
        password=_get_str(data, "password", at),
        token=_get_str(data, "token", at),
        key=_get_str(data, "key", at),
        value=_get_str(data, "value", at),
        location=_get_choice(data, "location", at, "header", ("header", "query")),
        extra=_extra(data, _AUTH_KEYS),
    )


def _scripts(table: Mapping[str, Any]) -> Scripts:
    data = _get_table(table, "scripts", ()) or {}
    at = ("scripts",)
    return Scripts(
        pre_request=_get_str(data, "pre_request", at),
        post_response=_get_str(data, "post_response", at),
        extra=_extra(data, _SCRIPT_KEYS),
    )


def _order(table: Mapping[str, Any]) -> list[str]:
    value = table.get("order", [])
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise _Invalid(("order",), "expected an array of file stems and folder names")
    return list(value)


def _body(table: Mapping[str, Any]) -> Body:
    data = _get_table(table, "body", ())
    if data is None:
        return Body()
    at = ("body",)
    fields = []
    for i, item in enumerate(_get_tables(data, "fields", at)):
        fat = (*at, "fields", i)
        if "name" not in item:
            raise _Invalid(fat, "missing name")
        fields.append(
            FormField(
                name=_get_str(item, "name", fat),
                value=_get_str(item, "value", fat),
                enabled=_get_bool(item, "enabled", fat, True),
                kind=_get_choice(item, "kind", fat, "text", ("text", "file")),
                content_type=_get_str(item, "content_type", fat),
                extra=_extra(item, _FIELD_KEYS),
            )
        )
    return Body(
        type=_get_choice(data, "type", at, "none", BODY_TYPES),
        content=_get_str(data, "content", at),
        fields=fields,
        extra=_extra(data, _BODY_KEYS),
    )


def _settings(table: Mapping[str, Any]) -> Settings:
    data = _get_table(table, "settings", ()) or {}
    at = ("settings",)
    timeout = data.get("timeout", Settings.timeout)
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)):
        raise _Invalid((*at, "timeout"), f"expected a number of seconds, got {_describe(timeout)}")
    if not math.isfinite(timeout) or timeout <= 0:
        raise _Invalid((*at, "timeout"), f"expected a positive number of seconds, got {timeout}")
    return Settings(
        timeout=float(timeout),
        follow_redirects=_get_bool(data, "follow_redirects", at, True),
        verify_tls=_get_bool(data, "verify_tls", at, True),
        extra=_extra(data, _SETTINGS_KEYS),
    )


def _method(table: Mapping[str, Any]) -> str:
    method = _get_str(table, "method", (), "GET").strip()
    if not _METHOD_RE.fullmatch(method):
        raise _Invalid(("method",), f"{method!r} is not an HTTP method (a token such as GET)")
    # Standard methods are case-insensitive to users; custom ones are kept as written.
    return method.upper() if method.upper() in METHODS else method


def title_from_stem(stem: str) -> str:
    """``list-users`` -> ``List users``: the name of a request or folder that has none."""
    words = re.sub(r"[-_\s]+", " ", stem).strip()
    return words[:1].upper() + words[1:] if words else stem


def _request(data: dict[str, Any], default_name: str) -> Request:
    name = _get_str(data, "name", (), "")
    return Request(
        name=name if name.strip() else default_name,
        method=_method(data),
        url=_get_str(data, "url", ()),
        description=_get_str(data, "description", ()),
        variables=_variables(data, ()),
        headers=_headers(data),
        query=_pairs(data, "query", QueryParam),
        body=_body(data),
        auth=_auth(data),
        scripts=_scripts(data),
        settings=_settings(data),
        extra=_extra(data, _REQUEST_KEYS),
    )


def request_from_toml(text: str, path: Path | None = None) -> Request:
    """Build a request from the text of a request file; ``LoadError`` says where it is wrong."""
    default = title_from_stem(path.stem) if path is not None else "Untitled request"
    request: Request = _load_document(text, path, lambda data: _request(data, default))
    request.path = path
    return request


def _collection_data(data: dict[str, Any], col: Collection) -> None:
    name = _get_str(data, "name", (), "").strip()
    default_env = data.get("default_environment")
    if default_env is not None and not isinstance(default_env, str):
        raise _Invalid(
            ("default_environment",), f"expected an environment name, got {_describe(default_env)}"
        )
    # Validate everything before assigning anything: a broken file leaves the defaults.
    variables, headers, auth = _variables(data, ()), _headers(data), _auth(data)
    scripts, order = _scripts(data), _order(data)
    col.name = name or col.name
    col.default_environment = default_env or None
    col.variables, col.headers, col.auth = variables, headers, auth
    col.scripts, col.order = scripts, order
    col.extra = _extra(data, _COLLECTION_KEYS)


def _folder_data(data: dict[str, Any], folder: Folder) -> None:
    name = _get_str(data, "name", (), "").strip()
    variables, headers, auth = _variables(data, ()), _headers(data), _auth(data)
    scripts, order = _scripts(data), _order(data)
    folder.name = name or folder.name
    folder.variables, folder.headers, folder.auth = variables, headers, auth
    folder.scripts, folder.order = scripts, order
    folder.extra = _extra(data, _FOLDER_KEYS)


def _environment_data(data: dict[str, Any], env: Environment) -> None:
    env.variables = _variables(data, ())
    env.extra = _extra(data, _ENVIRONMENT_KEYS)


# -- loading a collection --------------------------------------------------------------------


def load_collection(root: Path | str) -> Collection:
    """Load a collection directory. Bad files are listed in ``collection.broken``.

    Raises ``LoadError`` only when ``root`` is missing or is not a directory.
    """
    root = Path(os.path.abspath(root))
    if not root.exists():
        raise LoadError(root, None, None, "collection directory not found")
    if not root.is_dir():
        raise LoadError(root, None, None, "not a directory (a collection is a directory)")
    col = Collection(name=root.name, root=root)

    col_file = root / COLLECTION_FILE
    if col_file.is_file():
        try:
            _load_document(_read_text(col_file), col_file, lambda d: _collection_data(d, col))
        except LoadError as exc:
            col.broken.append(exc.as_broken())

    env_dir = root / ENVIRONMENTS_DIR
    if env_dir.is_dir():
        for path in sorted(env_dir.glob("*.toml"), key=lambda p: (p.stem.casefold(), p.stem)):
            if path.name.startswith(".") or not path.is_file():
                continue
            env = Environment(name=path.stem, path=path)
            try:
                _load_document(_read_text(path), path, lambda d, e=env: _environment_data(d, e))
            except LoadError as exc:
                col.broken.append(exc.as_broken())
            else:
                col.environments[env.name] = env

    dotenv_file = root / DOTENV_FILE
    if dotenv_file.is_file():
        col.dotenv = _read_dotenv(dotenv_file, col.broken)

    col.items = _load_items(col, root, col.order, {os.path.realpath(root)})
    return col


def _read_dotenv(path: Path, broken: list[BrokenFile]) -> dict[str, str]:
    """Read ``.env`` literally (no ``${VAR}`` expansion: a secret is used exactly as written).

    python-dotenv's parser is used directly, rather than ``dotenv_values``, so that a line it
    cannot parse is reported here with its number instead of logged to stderr.
    """
    try:
        text = _read_text(path)
    except LoadError as exc:
        broken.append(exc.as_broken())
        return {}
    values: dict[str, str] = {}
    bad: list[int] = []
    for binding in parse_stream(io.StringIO(text)):
        if binding.error:
            bad.append(binding.original.line)
        elif binding.key is not None and binding.value is not None:
            values[binding.key] = binding.value
    if bad:
        lines = ", ".join(str(n) for n in bad)
        broken.append(
            BrokenFile(
                path,
                f"cannot parse line {lines} (expected NAME=value); the other lines were read",
                bad[0],
                1,
            )
        )
    return values


def _rel_id(root: Path, path: Path) -> str:
    rel = path.relative_to(root).as_posix()
    return rel.removesuffix(".toml")


def _stem_of(item: Folder | Request) -> str:
    if item.path is None:
        return item.name
    return item.path.name if isinstance(item, Folder) else item.path.stem


def sort_items(items: list[Folder | Request], order: list[str]) -> list[Folder | Request]:
    """``order`` entries first, in that order; the rest by name (case-insensitive).

    A folder and a request with the same stem keep the folder first.
    """
    position: dict[str, int] = {}
    for i, entry in enumerate(order):
        position.setdefault(entry.removesuffix(".toml").strip("/"), i)

    def key(item: Folder | Request) -> tuple:
        stem = _stem_of(item)
        kind = 0 if isinstance(item, Folder) else 1
        if stem in position:
            return (0, position[stem], "", "", kind)
        return (1, 0, stem.casefold(), stem, kind)

    return sorted(items, key=key)


def _load_items(
    col: Collection, directory: Path, order: list[str], seen: set[str]
) -> list[Folder | Request]:
    try:
        with os.scandir(directory) as listing:
            entries = sorted(listing, key=lambda e: e.name)
    except OSError as exc:
        col.broken.append(BrokenFile(directory, f"cannot read folder: {exc.strerror or exc}"))
        return []
    items: list[Folder | Request] = []
    for entry in entries:
        if entry.name.startswith("."):
            continue
        path = Path(entry.path)
        if entry.is_dir():
            if directory == col.root and entry.name == ENVIRONMENTS_DIR:
                continue
            real = os.path.realpath(path)
            if real in seen:  # a symlink loop
                continue
            items.append(_load_folder(col, path, seen | {real}))
        elif (
            entry.is_file()
            and entry.name.endswith(".toml")
            and entry.name not in (COLLECTION_FILE, FOLDER_FILE)
        ):
            try:
                request = request_from_toml(_read_text(path), path)
            except LoadError as exc:
                col.broken.append(exc.as_broken())
                continue
            request.id = _rel_id(col.root, path)
            items.append(request)
    return sort_items(items, order)


def _load_folder(col: Collection, path: Path, seen: set[str]) -> Folder:
    folder = Folder(name=title_from_stem(path.name), path=path, id=_rel_id(col.root, path))
    folder_file = path / FOLDER_FILE
    if folder_file.is_file():
        folder.has_file = True
        try:
            _load_document(_read_text(folder_file), folder_file, lambda d: _folder_data(d, folder))
        except LoadError as exc:
            col.broken.append(exc.as_broken())
    folder.items = _load_items(col, path, folder.order, seen)
    return folder


# -- model -> TOML text ----------------------------------------------------------------------


def _dumps(data: Mapping[str, Any]) -> str:
    try:
        return tomli_w.dumps(data)
    except (TypeError, ValueError) as exc:
        raise SaveError(f"cannot write as TOML: {exc}") from exc


def _scalar(value: Any) -> str:
    return _dumps({"v": value})[len("v = ") : -1]


def _key(key: str) -> str:
    if _BARE_KEY_RE.fullmatch(key):
        return key
    return _scalar(key)


def _inline(value: Any) -> str:
    """A value on one line, whatever it holds (for keys inside ``[[...]]`` entries)."""
    if isinstance(value, Mapping):
        if not value:
            return "{}"
        return "{ " + ", ".join(f"{_key(k)} = {_inline(v)}" for k, v in value.items()) + " }"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_inline(v) for v in value) + "]"
    return _scalar(value)


_CONTROL = frozenset(chr(i) for i in range(32)) - {"\t", "\n"} | {"\x7f"}


def _text_block(value: str) -> str:
    """A body or script as a TOML literal string, so JSON and code read as written.

    Multi-line text becomes ``'''`` + newline + text + ``'''`` (TOML drops that first newline),
    so editing one line of a body is a one-line diff. Text a literal string cannot hold falls
    back to tomli-w's escaped forms; ``\\r`` forces the single-line form, which keeps it exact.
    """
    literal_ok = not (_CONTROL & set(value))
    if "\n" not in value:
        if literal_ok and "'" not in value:
            return f"'{value}'"
        return _scalar(value)
    if literal_ok and "'''" not in value and not value.endswith("'"):
        return f"'''\n{value}'''"
    if "\r" in value:
        return _scalar(value)
    return tomli_w.dumps({"v": value}, multiline_strings=True)[len("v = ") : -1]


class _Doc:
    """Builds a file chunk by chunk; text blocks are placed through unique stand-in tokens."""

    def __init__(self) -> None:
        self.chunks: list[str] = []
        self.blocks: dict[str, str] = {}
        self.token = uuid.uuid4().hex

    def block(self, value: str) -> str:
        key = f"pigeon-block-{self.token}-{len(self.blocks)}"
        self.blocks[key] = value
        return key

    def table(self, data: Mapping[str, Any]) -> None:
        if data:
            self.chunks.append(_dumps(data))

    def array_of_tables(self, path: tuple[str, ...], entries: list[dict[str, Any]]) -> None:
        """``[[path]]`` entries always (tomli-w would inline short ones): stable diffs."""
        header = ".".join(_key(p) for p in path)
        for entry in entries:
            lines = [f"[[{header}]]"]
            nested: dict[str, Any] = {}
            for k, v in entry.items():
                if isinstance(v, Mapping):
                    nested[k] = v
                else:
                    lines.append(f"{_key(k)} = {_inline(v)}")
            chunk = "\n".join(lines) + "\n"
            if nested:
                wrapped: dict[str, Any] = nested
                for part in reversed(path):
                    wrapped = {part: wrapped}
                chunk += "\n" + _dumps(wrapped)
            self.chunks.append(chunk)

    def text(self) -> str:
        text = "\n".join(self.chunks)
        for key, value in self.blocks.items():
            quoted = f'"{key}"'
            if text.count(quoted) != 1:  # pragma: no cover - a token is unique by construction
                raise SaveError("internal error while writing a text block")
            text = text.replace(quoted, _text_block(value))
        return text


def _with_extra(data: dict[str, Any], extra: Mapping[str, Any], known: tuple[str, ...]) -> dict:
    for k, v in extra.items():
        if k not in known and k not in data:
            data[k] = v
    return data


def _split_extra(extra: Mapping[str, Any], known: tuple[str, ...]) -> tuple[dict, dict]:
    """Unknown top-level keys: plain values go before the tables, tables after them."""
    plain = {k: v for k, v in extra.items() if k not in known and not isinstance(v, Mapping)}
    tables = {k: v for k, v in extra.items() if k not in known and isinstance(v, Mapping)}
    return plain, tables


def _pair_entries(pairs: list[Header] | list[QueryParam]) -> list[dict[str, Any]]:
    out = []
    for pair in pairs:
        entry: dict[str, Any] = {"name": pair.name}
        if pair.value:
            entry["value"] = pair.value
        if not pair.enabled:
            entry["enabled"] = False
        out.append(_with_extra(entry, pair.extra, _PAIR_KEYS))
    return out


def _auth_table(auth: Auth) -> dict[str, Any]:
    data: dict[str, Any] = {"type": auth.type}
    for name in ("username", "password", "token", "key", "value"):
        if getattr(auth, name):
            data[name] = getattr(auth, name)
    if auth.location != "header":
        data["location"] = auth.location
    return _with_extra(data, auth.extra, _AUTH_KEYS)


def _scripts_table(doc: _Doc, scripts: Scripts) -> dict[str, Any]:
    data: dict[str, Any] = {}
    if scripts.pre_request:
        data["pre_request"] = doc.block(scripts.pre_request)
    if scripts.post_response:
        data["post_response"] = doc.block(scripts.post_response)
    return _with_extra(data, scripts.extra, _SCRIPT_KEYS)


def _check_writable(value: Any, at: str) -> None:
    """Refuse values TOML cannot hold before anything is written, naming where they are."""
    if value is None:
        raise SaveError(f"{at}: null cannot be written to TOML")
    if isinstance(value, float) and not math.isfinite(value):
        raise SaveError(f"{at}: {value} is not a finite number")
    if isinstance(value, time):
        raise SaveError(f"{at}: a time of day alone is not a variable kind")
    if isinstance(value, Mapping):
        for k, v in value.items():
            if not isinstance(k, str):
                raise SaveError(f"{at}: key {k!r} is not a string")
            _check_writable(v, f"{at}.{k}")
    elif isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            _check_writable(v, f"{at}[{i}]")


def _variables_table(doc: _Doc, variables: Mapping[str, Any]) -> None:
    for name, value in variables.items():
        try:
            check_name(name)
        except ValueError as exc:
            raise SaveError(str(exc)) from None
        _check_writable(value, f"variables.{name}")
    doc.table({"variables": dict(variables)} if variables else {})


def request_to_toml(req: Request) -> str:
    """The text of a request file: known keys in DESIGN §2's order, defaults left out."""
    doc = _Doc()
    plain, tables = _split_extra(req.extra, _REQUEST_KEYS)
    head: dict[str, Any] = {"name": req.name, "method": req.method, "url": req.url}
    if req.description:
        head["description"] = doc.block(req.description)
    head.update(plain)
    doc.table(head)

    _variables_table(doc, req.variables)
    doc.array_of_tables(("headers",), _pair_entries(req.headers))
    doc.array_of_tables(("query",), _pair_entries(req.query))

    body = req.body
    if body.type != "none" or body.content or body.fields or body.extra:
        data: dict[str, Any] = {"type": body.type}
        if body.content:
            data["content"] = doc.block(body.content)
        doc.table({"body": _with_extra(data, body.extra, _BODY_KEYS)})
        fields = []
        for f in body.fields:
            entry: dict[str, Any] = {"name": f.name}
            if f.value:
                entry["value"] = f.value
            if not f.enabled:
                entry["enabled"] = False
            if f.kind != "text":
                entry["kind"] = f.kind
            if f.content_type:
                entry["content_type"] = f.content_type
            fields.append(_with_extra(entry, f.extra, _FIELD_KEYS))
        doc.array_of_tables(("body", "fields"), fields)

    if req.auth is not None:
        doc.table({"auth": _auth_table(req.auth)})
    script_data = _scripts_table(doc, req.scripts)
    doc.table({"scripts": script_data} if script_data else {})

    settings = req.settings
    sdata: dict[str, Any] = {}
    if settings.timeout != Settings.timeout:
        sdata["timeout"] = float(settings.timeout)
    if not settings.follow_redirects:
        sdata["follow_redirects"] = False
    if not settings.verify_tls:
        sdata["verify_tls"] = False
    sdata = _with_extra(sdata, settings.extra, _SETTINGS_KEYS)
    doc.table({"settings": sdata} if sdata else {})

    for k, v in tables.items():
        doc.table({k: v})
    return doc.text()


def _container_to_toml(
    node: Collection | Folder, known: tuple[str, ...], own: dict[str, Any]
) -> str:
    """A collection's or a folder's file; ``own`` holds the head keys only that kind has.

    Head (``name``, ``own``, ``order``, unknown plain keys), then the tables both share, then
    the unknown tables: the same order for both, so either round-trips byte for byte.
    """
    doc = _Doc()
    plain, tables = _split_extra(node.extra, known)
    head: dict[str, Any] = {"name": node.name, **own}
    if node.order:
        head["order"] = list(node.order)
    head.update(plain)
    doc.table(head)
    _variables_table(doc, node.variables)
    doc.array_of_tables(("headers",), _pair_entries(node.headers))
    if node.auth is not None:
        doc.table({"auth": _auth_table(node.auth)})
    script_data = _scripts_table(doc, node.scripts)
    doc.table({"scripts": script_data} if script_data else {})
    for k, v in tables.items():
        doc.table({k: v})
    return doc.text()


def collection_to_toml(col: Collection) -> str:
    own = {"default_environment": col.default_environment} if col.default_environment else {}
    return _container_to_toml(col, _COLLECTION_KEYS, own)


def folder_to_toml(folder: Folder) -> str:
    return _container_to_toml(folder, _FOLDER_KEYS, {})


def environment_to_toml(env: Environment) -> str:
    doc = _Doc()
    plain, tables = _split_extra(env.extra, _ENVIRONMENT_KEYS)
    doc.table(plain)
    _variables_table(doc, env.variables)
    if not env.variables:
        doc.chunks.append("[variables]\n")
    for k, v in tables.items():
        doc.table({k: v})
    return doc.text()


# -- writing files ---------------------------------------------------------------------------


def _default_mode() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


_NEW_FILE_MODE = _default_mode()


def _fsync_dir(directory: Path) -> None:
    """Make a rename durable; not every platform can open a directory, which is fine."""
    with suppress(OSError):
        fd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def _write_temp(path: Path, text: str, durable: bool = True) -> str:
    """Write ``text`` to a temporary file beside ``path`` (synced when ``durable``); return
    its name."""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(text)
            if durable:
                fh.flush()
                os.fsync(fh.fileno())
        try:
            mode = stat.S_IMODE(os.stat(path).st_mode)
        except OSError:
            mode = _NEW_FILE_MODE
        os.chmod(tmp, mode)
    except BaseException:
        with suppress(OSError):
            os.unlink(tmp)
        raise
    return tmp


def atomic_write(path: Path | str, text: str, *, durable: bool = True) -> None:
    """Replace ``path`` with ``text`` all at once: readers see the old file or the new one.

    On any failure the temporary file is removed and the old file is left as it was.
    ``durable=False`` skips the fsyncs, for files that may be lost in a crash (history) but
    are written often enough that the syncs would cost.
    """
    path = Path(path)
    tmp = _write_temp(path, text, durable)
    try:
        os.replace(tmp, path)
    except BaseException:
        with suppress(OSError):
            os.unlink(tmp)
        raise
    if durable:
        _fsync_dir(path.parent)


def _create_exclusive(path: Path, text: str) -> None:
    """Write a new file; ``FileExistsError`` if ``path`` exists (it is never overwritten)."""
    tmp = _write_temp(path, text)
    try:
        try:
            os.link(tmp, path)
        except FileExistsError:
            raise
        except OSError:  # no hard links here: exclusive create instead
            with open(path, "x", encoding="utf-8", newline="\n") as fh:
                fh.write(text)
                fh.flush()
                os.fsync(fh.fileno())
    finally:
        with suppress(OSError):
            os.unlink(tmp)
    _fsync_dir(path.parent)


def _move_exclusive(src: Path, dst: Path) -> None:
    """Move a file without ever replacing ``dst`` (``FileExistsError`` if it exists)."""
    try:
        os.link(src, dst)
    except FileExistsError:
        raise
    except OSError:
        if dst.exists():
            raise FileExistsError(str(dst)) from None
        os.rename(src, dst)
    else:
        os.unlink(src)
    _fsync_dir(dst.parent)
    _fsync_dir(src.parent)


def _check_collection(text: str, path: Path) -> object:
    col = Collection(name="", root=path.parent)
    return _load_document(text, path, lambda d: _collection_data(d, col))


def _check_folder(text: str, path: Path) -> object:
    return _load_document(text, path, lambda d: _folder_data(d, Folder(name="")))


def _check_environment(text: str, path: Path) -> object:
    return _load_document(text, path, lambda d: _environment_data(d, Environment(name="")))


def _safe_write(path: Path, text: str, parse: Callable[[str, Path], object]) -> None:
    """Check, then write: refuse to replace a file that does not load, or to write one that
    would not load back."""
    try:
        parse(text, path)
    except LoadError as exc:
        raise SaveError(f"not saved, the result would not load back: {exc}") from exc
    if path.exists():
        try:
            parse(_read_text(path), path)
        except LoadError as exc:
            raise SaveError(
                f"not saved: {path} does not load ({exc.message}"
                f"{f' at line {exc.line}' if exc.line else ''}); "
                "it is never overwritten, fix or move it first"
            ) from exc
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(path, text)


def save_request(req: Request, path: Path | str | None = None) -> Path:
    """Write a request to ``path`` (default: its own file). Returns the path written."""
    target = Path(path) if path is not None else req.path
    if target is None:
        raise SaveError(f"request {req.name!r} has no file to save to")
    if target.suffix != ".toml" or target.name in (COLLECTION_FILE, FOLDER_FILE):
        raise SaveError(f"not saved: {target} is not a request file name (NAME.toml)")
    _safe_write(target, request_to_toml(req), request_from_toml)
    req.path = target
    return target


def save_collection_file(col: Collection) -> Path:
    target = col.root / COLLECTION_FILE
    _safe_write(target, collection_to_toml(col), _check_collection)
    return target


def save_folder_file(folder: Folder) -> Path:
    if folder.path is None:
        raise SaveError(f"folder {folder.name!r} has no directory")
    target = folder.path / FOLDER_FILE
    _safe_write(target, folder_to_toml(folder), _check_folder)
    folder.has_file = True
    return target


def save_environment(env: Environment, root: Path | None = None) -> Path:
    """Write an environment to its file, or to ``root/environments/NAME.toml``."""
    if env.path is not None:
        target = env.path
    elif root is not None:
        target = Path(root) / ENVIRONMENTS_DIR / f"{env.name}.toml"
    else:
        raise SaveError(f"environment {env.name!r} has no file to save to")
    _safe_write(target, environment_to_toml(env), _check_environment)
    env.path = target
    return target


# -- creating, renaming, moving, deleting ----------------------------------------------------
#
# Renaming, duplicating, moving or deleting a request or a folder keeps the ``order`` lists of
# the folders involved right: an entry is renamed where it stands, a copy is listed after its
# original, a moved item leaves the old list and ends a non-empty new one. Those files are
# edited in place, comments and layout kept (see ``_write_head``).


def slugify(name: str) -> str:
    """A file-name stem for a display name: ASCII, lower case, words joined by ``-``.

    At most 80 characters (well under the 255-byte file-name limit, with room for a ``-2``
    suffix), cut after a whole word where one ends late enough, so that a long name (a URL
    path, an API summary) still makes a file name.
    """
    limit = 80
    ascii_name = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode()
    slug = re.sub(r"[^A-Za-z0-9]+", "-", ascii_name).strip("-").lower()
    if len(slug) <= limit:
        return slug
    cut = slug.rfind("-", 0, limit + 1)
    return (slug[:cut] if cut >= limit // 2 else slug[:limit]).rstrip("-")


def _free_stem(col: Collection, directory: Path, base: str, keep: Path | None = None) -> str:
    """A stem in ``directory`` that names no file or folder yet, nor a reserved name."""
    reserved = set(RESERVED_STEMS)
    if directory == col.root:
        reserved.add(ENVIRONMENTS_DIR)
    for n in range(1, 10_000):
        stem = base if n == 1 else f"{base}-{n}"
        if stem in reserved:
            continue
        file, folder = directory / f"{stem}.toml", directory / stem
        if keep is not None and file == keep:
            return stem
        if not file.exists() and not folder.exists():
            return stem
    raise SaveError(f"no free file name for {base!r} in {directory}")


def _container(col: Collection, folder: Folder | None) -> tuple[list, list[str], Path]:
    if folder is None:
        return col.items, col.order, col.root
    if folder.path is None:
        raise SaveError(f"folder {folder.name!r} has no directory")
    return folder.items, folder.order, folder.path


def _parent_of(col: Collection, item: Folder | Request) -> Folder | None:
    """The folder holding ``item`` (``None`` for the collection's top level)."""

    def visit(items: list[Folder | Request], parent: Folder | None) -> Folder | None | bool:
        for it in items:
            if it is item:
                return parent if parent is not None else True
            if isinstance(it, Folder):
                found = visit(it.items, it)
                if found is not None:
                    return found
        return None

    found = visit(col.items, None)
    if found is None:
        raise SaveError(f"{item.name!r} is not part of collection {col.name!r}")
    return None if found is True else found  # type: ignore[return-value]


def _resort(col: Collection, folder: Folder | None) -> None:
    if folder is None:
        col.items[:] = sort_items(col.items, col.order)
    else:
        folder.items[:] = sort_items(folder.items, folder.order)


def create_request(
    col: Collection, folder: Folder | None, name: str, method: str = "GET"
) -> Request:
    """Create a new request file named after ``name``; an existing file is never touched."""
    items, _, directory = _container(col, folder)
    base = slugify(name) or "request"
    for _ in range(100):  # another process may take a name between the check and the write
        stem = _free_stem(col, directory, base)
        path = directory / f"{stem}.toml"
        req = Request(name=name.strip() or title_from_stem(stem), method=method, path=path)
        req.id = _rel_id(col.root, path)
        try:
            _create_exclusive(path, request_to_toml(req))
        except FileExistsError:
            continue
        items.append(req)
        _resort(col, folder)
        return req
    raise SaveError(f"could not create a file for {name!r} in {directory}")


def create_folder(col: Collection, parent: Folder | None, name: str) -> Folder:
    """Create a folder (with a ``folder.toml`` holding its name); nothing is overwritten."""
    items, _, directory = _container(col, parent)
    base = slugify(name) or "folder"
    for _ in range(100):
        stem = _free_stem(col, directory, base)
        path = directory / stem
        try:
            path.mkdir()
        except FileExistsError:
            continue
        folder = Folder(
            name=name.strip() or title_from_stem(stem),
            path=path,
            id=_rel_id(col.root, path),
            has_file=True,
        )
        _create_exclusive(path / FOLDER_FILE, folder_to_toml(folder))
        items.append(folder)
        _resort(col, parent)
        return folder
    raise SaveError(f"could not create a folder for {name!r} in {directory}")


def delete_request(col: Collection, req: Request) -> None:
    """Delete a request's file and remove it from the collection; an ``order`` listing it
    forgets it (when the file holding that list does not load, nothing is deleted)."""
    parent = _parent_of(col, req)
    items, order, directory = _container(col, parent)
    forget = None
    if req.path is not None:
        forget = _new_order(order, directory, req.path.stem, None, folder=False)
        if forget is not None:
            _on_disk_text(col, parent, "deleted")
        try:
            req.path.unlink(missing_ok=True)
        except OSError as exc:
            raise SaveError(f"not deleted: {exc}") from exc
        _fsync_dir(req.path.parent)
    items[:] = [it for it in items if it is not req]
    if forget is not None:
        _set_order(col, parent, forget)


def _named_text(path: Path, name: str, doing: str) -> str:
    """A request file's text with ``name`` set, its comments kept when that can be checked
    (else written anew from what is on disk); a file that does not load is refused."""
    try:
        text = _read_text(path)
        on_disk = request_from_toml(text, path)
    except LoadError as exc:
        raise SaveError(f"not {doing}: {exc}") from exc
    edited = _edit_head(text, {"name": name})
    if edited is None:
        on_disk.name = name
        edited = request_to_toml(on_disk)
    return edited


def rename_request(col: Collection, req: Request, new_name: str) -> Request:
    """Give a request a new name and a file named after it.

    Only the name changes in the file on disk (its comments stay; unsaved edits in ``req``
    stay unsaved); another file is never replaced, and an ``order`` entry is renamed in place.
    """
    new_name = new_name.strip()
    if not new_name:
        raise SaveError("a request needs a name")
    parent = _parent_of(col, req)
    _, order, directory = _container(col, parent)
    old = req.path
    if old is None:
        req.name = new_name
        return req
    stem = _free_stem(col, directory, slugify(new_name) or "request", keep=old)
    new = directory / f"{stem}.toml"
    new_order = _new_order(order, directory, old.stem, stem, folder=False) if new != old else None
    if new_order is not None:
        _on_disk_text(col, parent, "renamed")
    if not old.exists():  # never saved: nothing on disk to carry over
        req.name, req.id = new_name, _rel_id(col.root, new)
        save_request(req, new)
    else:
        text = _named_text(old, new_name, "renamed")
        if new == old:
            _safe_write(old, text, request_from_toml)
        else:
            try:
                _create_exclusive(new, text)
            except OSError as exc:
                raise SaveError(f"not renamed: cannot write {new}: {exc}") from exc
            old.unlink()
            _fsync_dir(directory)
    req.name, req.path, req.id = new_name, new, _rel_id(col.root, new)
    if new_order is not None:
        _set_order(col, parent, new_order)
    _resort(col, parent)
    return req


def duplicate_request(col: Collection, req: Request) -> Request:
    """Copy a request to a new file beside it, named "<name> copy" (unique among its
    siblings). Its file is copied as it is on disk, comments included; nothing is overwritten,
    and where an ``order`` lists the original the copy is listed right after it."""
    parent = _parent_of(col, req)
    items, order, directory = _container(col, parent)
    taken = {it.name.casefold() for it in items if isinstance(it, Request)}
    name = f"{req.name} copy"
    for n in range(2, 10_000):
        if name.casefold() not in taken:
            break
        name = f"{req.name} copy {n}"
    source = req.path
    if source is not None and source.exists():
        text = _named_text(source, name, "duplicated")
    else:  # never saved: the copy is written from the model
        text = request_to_toml(replace(req, name=name))
    listed = source is not None and any(_order_refers(e, source.stem, False) for e in order)
    if listed:
        _on_disk_text(col, parent, "duplicated")
    base = slugify(name) or "request"
    for _ in range(100):  # another process may take a name between the check and the write
        stem = _free_stem(col, directory, base)
        path = directory / f"{stem}.toml"
        try:
            _create_exclusive(path, text)
        except FileExistsError:
            continue
        except OSError as exc:
            raise SaveError(f"not duplicated: cannot write {path}: {exc}") from exc
        break
    else:
        raise SaveError(f"not duplicated: no free file name for {name!r} in {directory}")
    copied = request_from_toml(text, path)
    copied.id = _rel_id(col.root, path)
    items.append(copied)
    if listed and source is not None:
        new_order = _new_order(order, directory, source.stem, stem, after=True, folder=False)
        if new_order is not None:
            _set_order(col, parent, new_order)
    _resort(col, parent)
    return copied


def move_request(col: Collection, req: Request, folder: Folder | None) -> Request:
    """Move a request's file into ``folder`` (``None``: the top level), keeping its stem when
    it is free there; nothing is overwritten. Both ``order`` lists follow: the old one forgets
    it, a non-empty new one lists it last."""
    old_parent = _parent_of(col, req)
    old_items, old_order, old_directory = _container(col, old_parent)
    new_items, new_order, directory = _container(col, folder)
    old = req.path
    if old is None:
        raise SaveError(f"request {req.name!r} has no file")
    if old.parent == directory:
        return req
    stem = _free_stem(col, directory, old.stem)
    new = directory / f"{stem}.toml"
    forget = _new_order(old_order, old_directory, old.stem, None, folder=False)
    if forget is not None:
        _on_disk_text(col, old_parent, "moved")
    if new_order:
        _on_disk_text(col, folder, "moved")
    try:
        _move_exclusive(old, new)
    except OSError as exc:
        raise SaveError(f"not moved: cannot move {old} to {new}: {exc}") from exc
    old_items[:] = [it for it in old_items if it is not req]
    req.path, req.id = new, _rel_id(col.root, new)
    new_items.append(req)
    if forget is not None:
        _set_order(col, old_parent, forget)
    if new_order:  # an entry left over for a file no longer there would place it first
        kept = [e for e in new_order if not _order_refers(e, stem, False)]
        _set_order(col, folder, [*kept, stem])
    _resort(col, folder)
    return req


# -- folders: rename, duplicate, move, delete ------------------------------------------------
#
# A folder is a directory, so each of these changes a directory in one step (a rename, never
# a copy-then-delete of the original) and refuses rather than replace anything. The ``order``
# lists of the parents involved follow, as for requests; those files are edited in place
# (comments and layout kept) when that can be checked to change nothing else.


@dataclass(frozen=True)
class FolderContents:
    """What a folder holds on disk (not as loaded): what deleting it would remove."""

    requests: int = 0
    folders: int = 0
    broken: tuple[Path, ...] = ()  # .toml files that do not load: requests or folder.toml
    other: tuple[Path, ...] = ()  # anything else: notes, upload files, hidden files, links


def folder_contents(folder: Folder) -> FolderContents:
    """Count a folder's requests and subfolders, and list its broken and other files.

    Symbolic links are listed as other files and not followed: deleting removes the link only.
    """
    if folder.path is None:
        raise SaveError(f"folder {folder.name!r} has no directory")
    requests = folders = 0
    broken: list[Path] = []
    other: list[Path] = []

    def scan(directory: Path, hidden: bool) -> None:
        nonlocal requests, folders
        try:
            with os.scandir(directory) as listing:
                entries = sorted(listing, key=lambda e: e.name)
        except OSError as exc:
            raise SaveError(f"cannot read {directory}: {exc.strerror or exc}") from exc
        for entry in entries:
            path = Path(entry.path)
            inside_hidden = hidden or entry.name.startswith(".")
            if entry.is_symlink():
                other.append(path)
            elif entry.is_dir():
                if not inside_hidden:
                    folders += 1
                scan(path, inside_hidden)
            elif inside_hidden or not entry.name.endswith(".toml") or entry.name == COLLECTION_FILE:
                other.append(path)
            else:
                parse = _check_folder if entry.name == FOLDER_FILE else request_from_toml
                try:
                    parse(_read_text(path), path)
                except LoadError:
                    broken.append(path)
                else:
                    if entry.name != FOLDER_FILE:
                        requests += 1

    scan(folder.path, False)
    return FolderContents(requests, folders, tuple(broken), tuple(other))


def _rename_dir_exclusive(src: Path, dst: Path) -> None:
    """Rename a directory in one step without ever replacing ``dst`` (``FileExistsError``).

    POSIX ``rename`` would replace an empty directory, so ``dst`` is first made here (which
    fails if anything is there) and the rename replaces only that empty directory.
    """
    if os.name == "nt":  # Windows never replaces a directory by renaming onto it
        os.rename(src, dst)
    else:
        os.mkdir(dst)
        try:
            os.rename(src, dst)
        except BaseException:
            with suppress(OSError):
                os.rmdir(dst)
            raise
    _fsync_dir(dst.parent)
    _fsync_dir(src.parent)


def _is_within(path: Path, directory: Path) -> bool:
    return path == directory or directory in path.parents


def _repath(col: Collection, folder: Folder, new: Path) -> None:
    """Point ``folder``, everything in it and its broken files at ``new`` (after a rename)."""
    old = folder.path
    assert old is not None

    def moved(path: Path) -> Path:
        return new / path.relative_to(old)

    def visit(item: Folder | Request) -> None:
        if item.path is not None and _is_within(item.path, old):
            item.path = moved(item.path)
            item.id = _rel_id(col.root, item.path)
        if isinstance(item, Folder):
            for child in item.items:
                visit(child)

    visit(folder)
    for broken in col.broken:
        if _is_within(broken.path, old):
            broken.path = moved(broken.path)


def _statements(lines: list[str]) -> list[tuple[int, int, dict[str, Any]]] | None:
    """The top-level ``key = value`` statements before the first table: (first line, last
    line, what the statement parses to). ``None`` when the head cannot be read that way."""
    out: list[tuple[int, int, dict[str, Any]]] = []
    i = 0
    while i < len(lines):
        stripped = lines[i].strip()
        if stripped.startswith("["):
            break
        if not stripped or stripped.startswith("#"):
            i += 1
            continue
        for j in range(i, len(lines)):  # a value may run over several lines
            try:
                piece = tomllib.loads("\n".join(lines[i : j + 1]))
            except tomllib.TOMLDecodeError:
                continue
            break
        else:
            return None
        out.append((i, j, piece))
        i = j + 1
    return out


def _edit_head(text: str, updates: Mapping[str, Any]) -> str | None:
    """``text`` with top-level keys set (``None``: removed) and every other line kept, so its
    comments survive; ``None`` when that cannot be done and checked to change nothing else."""
    try:
        expected = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return None
    lines = text.split("\n")
    for key, value in updates.items():
        statements = _statements(lines)
        if statements is None:
            return None
        mine = [(i, j, piece) for i, j, piece in statements if list(piece) == [key]]
        new_lines = [] if value is None else [f"{_key(key)} = {_inline(value)}"]
        if mine:
            (i, j, piece), *_ = mine
            if new_lines:
                new_lines[0] += _trailing_comment(lines[j], piece if i == j else None)
            lines[i : j + 1] = new_lines
        elif value is not None:
            named = [j for i, j, piece in statements if list(piece) == ["name"]]
            if named:
                at = named[0] + 1
            elif statements:
                at = statements[0][0]
            else:  # after the leading comments
                end = len(lines) - (lines[-1] == "")
                at = next((n for n, line in enumerate(lines) if line.startswith("[")), end)
            lines[at:at] = new_lines
        if value is None:
            expected.pop(key, None)
        else:
            expected[key] = value
    edited = "\n".join(lines)
    try:
        return edited if tomllib.loads(edited) == expected else None
    except tomllib.TOMLDecodeError:
        return None


def _trailing_comment(line: str, piece: dict[str, Any] | None) -> str:
    """The comment ending a one-line statement that parses to ``piece`` (with the spaces
    before it), so that a value changed in place keeps its note."""
    if piece is None:
        return ""
    for hash_at in (m.start() for m in re.finditer("#", line)):
        head = line[:hash_at]
        try:
            if tomllib.loads(head) == piece:
                return head[len(head.rstrip()) :] + line[hash_at:]
        except tomllib.TOMLDecodeError:
            continue
    return ""


def _container_file(col: Collection, folder: Folder | None) -> tuple[Path, Callable]:
    if folder is None:
        return col.root / COLLECTION_FILE, _check_collection
    if folder.path is None:
        raise SaveError(f"folder {folder.name!r} has no directory")
    return folder.path / FOLDER_FILE, _check_folder


def _on_disk_text(col: Collection, folder: Folder | None, doing: str) -> str | None:
    """The text of a collection's or folder's file (``None``: there is none), or a refusal
    naming it when it does not load: it is never overwritten."""
    path, parse = _container_file(col, folder)
    if not path.exists():
        return None
    try:
        text = _read_text(path)
        parse(text, path)
    except LoadError as exc:
        raise SaveError(f"not {doing}: {exc}; it is never overwritten, fix it first") from exc
    return text


def _write_head(col: Collection, folder: Folder | None, updates: Mapping[str, Any]) -> None:
    """Set top-level keys of the collection's or a folder's file, keeping its comments when
    possible, else rewriting it from what is on disk (never from unsaved state)."""
    path, parse = _container_file(col, folder)
    text = _on_disk_text(col, folder, "saved")
    edited = _edit_head(text, updates) if text is not None else None
    if edited is None:
        edited = _rewritten(col, folder, text, updates)
    _safe_write(path, edited, parse)
    if folder is not None:
        folder.has_file = True


def _rewritten(
    col: Collection, folder: Folder | None, text: str | None, updates: Mapping[str, Any]
) -> str:
    """A collection's or folder's file written anew from what is on disk, with ``updates``
    (its comments are lost: only when an edit in place could not be checked)."""
    path, _ = _container_file(col, folder)
    node: Any = Collection(name=col.name, root=col.root) if folder is None else Folder(folder.name)
    if text is not None:
        fill = _collection_data if folder is None else _folder_data
        _load_document(text, path, lambda d: fill(d, node))
    for key, value in updates.items():
        setattr(node, key, [] if value is None else value)  # only ``order`` is ever removed
    return collection_to_toml(node) if folder is None else folder_to_toml(node)


def _order_refers(entry: str, stem: str, folder: bool = True) -> bool:
    """Whether an ``order`` entry names the folder ``stem`` (``folder=False``: the request):
    ``stem/`` names a folder only, ``stem.toml`` a request only, a bare ``stem`` either."""
    if entry.endswith(".toml"):
        return not folder and entry.removesuffix(".toml").strip("/") == stem
    if entry.endswith("/"):
        return folder and entry.strip("/") == stem
    return entry.strip("/") == stem


def _new_order(
    order: list[str],
    directory: Path,
    old: str,
    new: str | None,
    after: bool = False,
    folder: bool = True,
) -> list[str] | None:
    """``order`` with the folder (``folder=False``: the request) ``old`` renamed to ``new``
    (``None``: left out), in place; with ``after`` the new entry goes after the old one, which
    stays. An entry also places a request or folder of the same stem (a folder is listed
    first), so it stays while that exists. ``None``: no change."""
    twin = (directory / f"{old}.toml").exists() if folder else (directory / old).is_dir()
    keep_old = after or twin
    out: list[str] = []
    for entry in order:
        if not _order_refers(entry, old, folder):
            out.append(entry)
            continue
        added = [] if new is None else [new + (".toml" if entry.endswith(".toml") else "")]
        if not keep_old:
            out += added
        elif after or not folder:
            out += [entry, *added]
        else:  # a folder is listed before a request of the same stem
            out += [*added, entry]
    return out if out != order else None


def _set_order(col: Collection, folder: Folder | None, order: list[str]) -> None:
    _write_head(col, folder, {"order": order or None})
    if folder is None:
        col.order[:] = order
    else:
        folder.order[:] = order


def _take_out(col: Collection, folder: Folder, parent: Folder | None) -> None:
    items, _, _ = _container(col, parent)
    items[:] = [it for it in items if it is not folder]


def rename_folder(col: Collection, folder: Folder, new_name: str) -> Folder:
    """Give a folder a new name (``name`` in its ``folder.toml``).

    A directory named after the old name (or a folder without ``folder.toml``, named after its
    directory) is renamed after the new one, to a name that is free; the parent's ``order``
    follows. A ``folder.toml`` that does not load is never touched: the rename is refused.
    """
    new_name = new_name.strip()
    if not new_name:
        raise SaveError("a folder needs a name")
    parent = _parent_of(col, folder)
    _, order, directory = _container(col, parent)
    _, _, old = _container(col, folder)
    text = _on_disk_text(col, folder, "renamed")
    base = slugify(new_name) or "folder"
    stem = old.name
    named_after_it = text is None or _named_after(old.name, folder.name)
    if named_after_it and not _already_named(col, directory, stem, base):
        stem = _free_stem(col, directory, base)
    new = directory / stem
    new_order = _new_order(order, directory, old.name, stem) if new != old else None
    if new_order is not None:
        _on_disk_text(col, parent, "renamed")
    if text is not None or title_from_stem(stem) != new_name:
        _write_head(col, folder, {"name": new_name})
    if new != old:
        try:
            _rename_dir_exclusive(old, new)
        except OSError as exc:
            _restore_head(old / FOLDER_FILE, text)
            folder.has_file = text is not None
            raise SaveError(f"not renamed: cannot rename {old} to {new.name}: {exc}") from exc
        _repath(col, folder, new)
    folder.name = new_name
    if new_order is not None:
        _set_order(col, parent, new_order)
    _resort(col, parent)
    return folder


def _named_after(stem: str, name: str) -> bool:
    """Whether a directory name is what ``name`` would give (``base`` or ``base-N``)."""
    base = slugify(name) or "folder"
    return re.fullmatch(rf"{re.escape(base)}(-\d+)?", stem) is not None


def _already_named(col: Collection, directory: Path, stem: str, base: str) -> bool:
    """Whether a directory ``stem`` is what a new name of slug ``base`` would get anyway:
    ``base`` itself, or ``base-N`` while ``base`` is taken."""
    if stem == base:
        return True
    taken = (
        base in RESERVED_STEMS
        or (directory == col.root and base == ENVIRONMENTS_DIR)
        or (directory / base).exists()
        or (directory / f"{base}.toml").exists()
    )
    return taken and re.fullmatch(rf"{re.escape(base)}-\d+", stem) is not None


def _restore_head(path: Path, text: str | None) -> None:
    """Put a folder file back as it was (``None``: there was none) after a failed rename."""
    with suppress(OSError):
        if text is None:
            path.unlink(missing_ok=True)
        else:
            atomic_write(path, text)


def duplicate_folder(col: Collection, folder: Folder) -> Folder:
    """Copy a folder, everything in it included, to a new sibling named "<name> copy".

    The copy is made in a hidden directory and renamed into place in one step, so the
    collection never shows half a copy; no existing file or folder is ever replaced.
    """
    parent = _parent_of(col, folder)
    items, order, directory = _container(col, parent)
    _, _, source = _container(col, folder)
    text = _on_disk_text(col, folder, "duplicated")
    taken = {it.name.casefold() for it in items if isinstance(it, Folder)}
    name = f"{folder.name} copy"
    for n in range(2, 10_000):
        if name.casefold() not in taken:
            break
        name = f"{folder.name} copy {n}"
    stem = _free_stem(col, directory, slugify(name) or "folder")
    new_order = _new_order(order, directory, source.name, stem, after=True)
    if new_order is not None:
        _on_disk_text(col, parent, "duplicated")
    work = Path(tempfile.mkdtemp(prefix=f".{stem}.", suffix=".copy", dir=directory))
    try:
        shutil.copytree(source, work, symlinks=True, dirs_exist_ok=True)  # mode included
        if text is not None:
            _write_head(col, Folder(name=name, path=work), {"name": name})
        elif title_from_stem(stem) != name:
            _create_exclusive(work / FOLDER_FILE, folder_to_toml(Folder(name=name)))
        new = directory / stem
        _rename_dir_exclusive(work, new)
    except OSError as exc:
        shutil.rmtree(work, ignore_errors=True)
        raise SaveError(f"not duplicated: {exc}") from exc
    except BaseException:
        shutil.rmtree(work, ignore_errors=True)
        raise
    seen = {os.path.realpath(p) for p in (new, *new.parents) if _is_within(p, col.root)}
    copied = _load_folder(col, new, seen)
    items.append(copied)
    if new_order is not None:
        _set_order(col, parent, new_order)
    _resort(col, parent)
    return copied


def move_folder(col: Collection, folder: Folder, target: Folder | None) -> Folder:
    """Move a folder into ``target`` (``None``: the top level), keeping its directory name
    when it is free there; never into itself or a folder inside it, and nothing is replaced.
    Both ``order`` lists follow: the old one forgets it, a non-empty new one lists it last."""
    parent = _parent_of(col, folder)
    _, old_order, old_directory = _container(col, parent)
    _, _, old = _container(col, folder)
    if target is not None:
        _parent_of(col, target)
        _, _, inside = _container(col, target)
        if target is folder or _parent_chain_has(col, target, folder) or _is_within(inside, old):
            raise SaveError(f"cannot move {folder.name!r} into itself or a folder inside it")
    if target is parent:
        return folder
    new_items, new_order, directory = _container(col, target)
    stem = _free_stem(col, directory, old.name)
    new = directory / stem
    forget = _new_order(old_order, old_directory, old.name, None)
    if forget is not None:
        _on_disk_text(col, parent, "moved")
    if new_order:
        _on_disk_text(col, target, "moved")
    keep_name = not (old / FOLDER_FILE).exists() and title_from_stem(stem) != folder.name
    try:
        _rename_dir_exclusive(old, new)
    except OSError as exc:
        raise SaveError(f"not moved: cannot move {old} to {new}: {exc}") from exc
    _repath(col, folder, new)
    _take_out(col, folder, parent)
    new_items.append(folder)
    if keep_name:  # its directory got a -N suffix: the name it showed is kept in folder.toml
        _create_exclusive(new / FOLDER_FILE, folder_to_toml(Folder(name=folder.name)))
        folder.has_file = True
    if forget is not None:
        _set_order(col, parent, forget)
    if new_order:  # an entry left over for a folder no longer there would place it first
        kept = [e for e in new_order if not _order_refers(e, stem, True)]
        _set_order(col, target, [*kept, stem])
    _resort(col, target)
    return folder


def _parent_chain_has(col: Collection, item: Folder, ancestor: Folder) -> bool:
    """Whether ``ancestor`` holds ``item``, directly or further up."""
    parent = _parent_of(col, item)
    while parent is not None:
        if parent is ancestor:
            return True
        parent = _parent_of(col, parent)
    return False


def delete_folder(col: Collection, folder: Folder, expected: FolderContents | None = None) -> None:
    """Delete a folder and everything in it.

    With ``expected`` (what the user was shown, from ``folder_contents``), a folder whose
    contents changed since is not deleted. The directory is first renamed to a hidden name,
    so it leaves the collection in one step; if removing it then fails, what is left is put
    back under its own name.
    """
    parent = _parent_of(col, folder)
    _, order, directory = _container(col, parent)
    _, _, path = _container(col, folder)
    if expected is not None and folder_contents(folder) != expected:
        raise SaveError(f"not deleted: {path.name} changed on disk since; look again")
    forget = _new_order(order, directory, path.name, None)
    if forget is not None:
        _on_disk_text(col, parent, "deleted")
    doomed = directory / f".{path.name}.deleting-{uuid.uuid4().hex[:8]}"
    try:
        _rename_dir_exclusive(path, doomed)
    except OSError as exc:
        raise SaveError(f"not deleted: {exc}") from exc
    try:
        shutil.rmtree(doomed)
    except OSError as exc:
        try:
            _rename_dir_exclusive(doomed, path)
        except OSError:
            where = f"what is left is in {doomed}"
        else:
            where = f"what is left is still in {path}"
        raise SaveError(f"not deleted completely: {exc}; {where}") from exc
    _fsync_dir(directory)
    _take_out(col, folder, parent)
    col.broken[:] = [b for b in col.broken if not _is_within(b.path, path)]
    if forget is not None:
        _set_order(col, parent, forget)


def create_environment(col: Collection, name: str) -> Environment:
    """Create ``environments/NAME.toml`` with no variables; an existing one is kept."""
    try:
        check_name(name)
    except ValueError as exc:
        raise SaveError(f"invalid environment name {name!r}: use letters, digits, _ . -") from exc
    path = col.root / ENVIRONMENTS_DIR / f"{name}.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    env = Environment(name=name, path=path)
    try:
        _create_exclusive(path, environment_to_toml(env))
    except FileExistsError:
        raise SaveError(f"environment {name!r} already exists: {path}") from None
    col.environments[name] = env
    return env
