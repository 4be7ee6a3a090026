"""TOML files -> the model, and loading a whole collection (DESIGN §2).

Loading never stops at a bad file: each one becomes a ``BrokenFile`` naming the file, line,
column and problem, and the rest of the collection still loads. Secrets belong in the
collection's git-ignored ``.env``, read into ``Collection.dotenv`` only (never into variables)
and never written.

Why one module: every table's reader (a request's body, auth, settings, a folder, an
environment) speaks through the same located checks (``_get_str``, ``_get_table``, ``Invalid``
with its key path), and the loader that walks the folders turns what they raise into
``BrokenFile`` entries; apart, each reader would import the same helpers and the loader all of
them.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Callable, Mapping
from datetime import time
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

from pigeon.auth_kinds import FIELDS as AUTH_FIELDS
from pigeon.auth_kinds import Field
from pigeon.errors import LoadError
from pigeon.model import (
    AUTH_TYPES,
    BODY_TYPES,
    DEFAULT_TIMEOUT,
    MAX_EXAMPLE_BODY,
    METHODS,
    REQUEST_TYPES,
    Auth,
    Body,
    BrokenFile,
    Certificate,
    Collection,
    Environment,
    Example,
    Folder,
    FormField,
    Grpc,
    Header,
    Message,
    QueryParam,
    Request,
    Scripts,
    Settings,
    Stream,
    Transport,
    WebSocket,
)
from pigeon.store.dotenv import read_dotenv
from pigeon.store.order import sort_items
from pigeon.store.schema import (
    AUTH_KEYS,
    BODY_KEYS,
    CERTIFICATE_KEYS,
    COLLECTION_FILE,
    COLLECTION_KEYS,
    DOTENV_FILE,
    ENVIRONMENT_KEYS,
    ENVIRONMENTS_DIR,
    EXAMPLE_KEYS,
    FIELD_KEYS,
    FOLDER_FILE,
    FOLDER_KEYS,
    GRPC_KEYS,
    MESSAGE_KEYS,
    OAUTH2_KEYS,
    PAIR_KEYS,
    REQUEST_KEYS,
    SCRIPT_KEYS,
    SETTINGS_KEYS,
    STREAM_KEYS,
    TRANSPORT_SETTINGS,
    WEBSOCKET_KEYS,
)
from pigeon.store.secrets import secrets_of
from pigeon.store.seen import beside_of, conflict_message, digest
from pigeon.store.unknown import COLLECTION, ENVIRONMENT, FOLDER, REQUEST, Table, noting_unknown
from pigeon.tomltext import Invalid, describe, load_document, read_text
from pigeon.values import MAX_DEPTH, check_name, is_token

_At = tuple[str | int, ...]  # a key path, for ``tomltext.locate``
_Pair = TypeVar("_Pair", Header, QueryParam)

# -- TOML data -> model ----------------------------------------------------------------------


def _get_str(table: Mapping[str, Any], key: str, at: _At, default: str = "") -> str:
    value = table.get(key, default)
    if not isinstance(value, str):
        raise Invalid((*at, key), f"expected a string, got {describe(value)}")
    return value


def _get_bool(table: Mapping[str, Any], key: str, at: _At, default: bool) -> bool:
    value = table.get(key, default)
    if not isinstance(value, bool):
        raise Invalid((*at, key), f"expected true or false, got {describe(value)}")
    return value


def _get_choice(
    table: Mapping[str, Any], key: str, at: _At, default: str, choices: tuple[str, ...]
) -> str:
    value = _get_str(table, key, at, default)
    if value not in choices:
        raise Invalid((*at, key), f"{value!r} is not one of {', '.join(choices)}")
    return value


def _get_table(table: Mapping[str, Any], key: str, at: _At) -> dict[str, Any] | None:
    value = table.get(key)
    if value is None:
        return None
    if not isinstance(value, dict):
        raise Invalid((*at, key), f"expected a table, got {describe(value)}")
    return value


def _get_tables(table: Mapping[str, Any], key: str, at: _At) -> list[dict[str, Any]]:
    value = table.get(key, [])
    if not isinstance(value, list) or not all(isinstance(item, dict) for item in value):
        raise Invalid(
            (*at, key),
            f"expected an array of tables ([[{key}]] with name = ..., value = ...), "
            f"got {describe(value)}",
        )
    return value


def _extra(table: Mapping[str, Any], known: tuple[str, ...] | frozenset[str]) -> dict[str, Any]:
    return {k: v for k, v in table.items() if k not in known}


def _check_variable(value: Any, at: _At, depth: int = 0) -> None:
    """Refuse what DESIGN §3.1 has no kind for: local times, NaN and infinities, and objects or
    arrays nested past ``MAX_DEPTH``."""
    if isinstance(value, time):
        raise Invalid(
            at,
            "a local time (hh:mm:ss) is not a variable kind; "
            "use a string, a local date or a date-time",
        )
    if isinstance(value, float) and not math.isfinite(value):
        raise Invalid(at, f"{value} is not a finite number")
    if depth > MAX_DEPTH and isinstance(value, (dict, list)):
        raise Invalid(at, f"objects and arrays nest more than {MAX_DEPTH} levels deep")
    if isinstance(value, dict):
        for key, item in value.items():
            _check_variable(item, (*at, key), depth + 1)
    elif isinstance(value, list):
        for i, item in enumerate(value):
            _check_variable(item, (*at, i), depth + 1)


def _variables(table: Mapping[str, Any], at: _At) -> dict[str, Any]:
    variables = _get_table(table, "variables", at)
    if variables is None:
        return {}
    for name, value in variables.items():
        try:
            check_name(name)
        except ValueError as exc:
            raise Invalid((*at, "variables", name), str(exc)) from None
        _check_variable(value, (*at, "variables", name))
    return variables


def _pairs(table: Mapping[str, Any], key: str, cls: type[_Pair]) -> list[_Pair]:
    if key not in table:
        return []
    out = []
    for i, item in enumerate(_get_tables(table, key, ())):
        at = (key, i)
        if "name" not in item:
            raise Invalid(at, "missing name")
        out.append(
            cls(
                name=_get_str(item, "name", at),
                value=_get_str(item, "value", at),
                enabled=_get_bool(item, "enabled", at, True),
                extra=_extra(item, PAIR_KEYS),
            )
        )
    return out


def _headers(table: Mapping[str, Any]) -> list[Header]:
    return _pairs(table, "headers", Header)


def _auth(table: Mapping[str, Any]) -> Auth | None:
    """``[auth]``: every kind's fields are read whatever its type, so none is lost."""
    data = _get_table(table, "auth", ())
    if data is None:
        return None
    at = ("auth",)
    auth = Auth(
        type=_get_choice(data, "type", at, Auth().type, AUTH_TYPES),
        extra=_extra(data, AUTH_KEYS + OAUTH2_KEYS),
    )
    for f in AUTH_FIELDS:
        f.set(auth, _auth_field(data, f, at))
    return auth


def _auth_field(data: Mapping[str, Any], f: Field, at: _At) -> Any:
    if f.choices:
        return _get_choice(data, f.name, at, f.default, f.choices)
    if not f.table:
        return _get_str(data, f.name, at, f.default)
    entries = _get_table(data, f.name, at) or {}
    for name, value in entries.items():
        if not isinstance(value, str) and not f.typed:
            raise Invalid((*at, f.name, name), f"expected a string, got {describe(value)}")
    return dict(entries)


def _scripts(table: Mapping[str, Any]) -> Scripts:
    if "scripts" not in table:  # most files: the defaults, made without looking them up
        return Scripts()
    data = _get_table(table, "scripts", ()) or {}
    at = ("scripts",)
    return Scripts(
        pre_request=_get_str(data, "pre_request", at),
        post_response=_get_str(data, "post_response", at),
        extra=_extra(data, SCRIPT_KEYS),
    )


def _order(table: Mapping[str, Any]) -> list[str]:
    value = table.get("order", [])
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise Invalid(("order",), "expected an array of file stems and folder names")
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
            raise Invalid(fat, "missing name")
        fields.append(
            FormField(
                name=_get_str(item, "name", fat),
                value=_get_str(item, "value", fat),
                enabled=_get_bool(item, "enabled", fat, True),
                kind=_get_choice(item, "kind", fat, "text", ("text", "file")),
                content_type=_get_str(item, "content_type", fat),
                extra=_extra(item, FIELD_KEYS),
            )
        )
    return Body(
        type=_get_choice(data, "type", at, "none", BODY_TYPES),
        content=_get_str(data, "content", at),
        fields=fields,
        query=_get_str(data, "query", at),
        variables=_get_str(data, "variables", at),
        operation_name=_get_str(data, "operation_name", at),
        path=_get_str(data, "path", at),
        content_type=_get_str(data, "content_type", at),
        extra=_extra(data, BODY_KEYS),
    )


def _settings(table: Mapping[str, Any]) -> Settings:
    if "settings" not in table:
        return Settings()
    data = _get_table(table, "settings", ()) or {}
    at = ("settings",)
    timeout = data.get("timeout", DEFAULT_TIMEOUT)
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)):
        raise Invalid((*at, "timeout"), f"expected a number of seconds, got {describe(timeout)}")
    if not math.isfinite(timeout) or timeout <= 0:
        raise Invalid((*at, "timeout"), f"expected a positive number of seconds, got {timeout}")
    return Settings(
        timeout=float(timeout),
        follow_redirects=_get_bool(data, "follow_redirects", at, True),
        verify_tls=_get_bool(data, "verify_tls", at, True),
        keep_auth_on_redirect=_get_bool(data, "keep_auth_on_redirect", at, False),
        send_cookies=_get_bool(data, "send_cookies", at, True),
        extra=_extra(data, SETTINGS_KEYS),
    )


def _stream(table: Mapping[str, Any]) -> Stream:
    data = _get_table(table, "stream", ())
    if data is None:
        return Stream()
    at = ("stream",)
    count = data.get("max_events")
    if count is not None and (isinstance(count, bool) or not isinstance(count, int) or count < 1):
        raise Invalid(
            (*at, "max_events"), f"expected a positive whole number, got {describe(count)}"
        )
    seconds = data.get("max_seconds")
    if seconds is not None and (
        isinstance(seconds, bool)
        or not isinstance(seconds, (int, float))
        or not math.isfinite(seconds)
        or seconds <= 0
    ):
        raise Invalid(
            (*at, "max_seconds"), f"expected a positive number of seconds, got {describe(seconds)}"
        )
    return Stream(
        declared=True,
        max_events=count,
        max_seconds=float(seconds) if seconds is not None else None,
        extra=_extra(data, STREAM_KEYS),
    )


def _optional_bool(table: Mapping[str, Any], key: str, at: _At) -> bool | None:
    return None if key not in table else _get_bool(table, key, at, True)


def _transport(table: Mapping[str, Any]) -> Transport:
    """``[settings]`` (proxy, CA, trust) and ``[[certificates]]`` of a collection or an
    environment file."""
    data = _get_table(table, "settings", ()) or {}
    at = ("settings",)
    certificates = []
    for i, item in enumerate(_get_tables(table, "certificates", ())):
        cat = ("certificates", i)
        for key in ("host", "cert"):
            if not _get_str(item, key, cat).strip():
                raise Invalid((*cat, key), f"missing {key}")
        unknown = sorted(set(item) - set(CERTIFICATE_KEYS))
        if unknown:
            raise Invalid((*cat, unknown[0]), f"unknown key (known: {', '.join(CERTIFICATE_KEYS)})")
        host, cert, key = (_get_str(item, name, cat).strip() for name in CERTIFICATE_KEYS[:3])
        certificates.append(Certificate(host, cert, key, password=_get_str(item, "password", cat)))
    proxy, no_proxy, trust_env, ca_bundle, system_trust = TRANSPORT_SETTINGS
    return Transport(
        proxy=_get_str(data, proxy, at).strip(),
        no_proxy=_get_str(data, no_proxy, at),
        trust_env=_optional_bool(data, trust_env, at),
        ca_bundle=_get_str(data, ca_bundle, at).strip(),
        system_trust=_optional_bool(data, system_trust, at),
        certificates=certificates,
    )


def _websocket(table: Mapping[str, Any]) -> WebSocket:
    """``subprotocols``, ``replies`` and ``[[messages]]``: a WebSocket request's own keys."""
    if "subprotocols" not in table and "replies" not in table and "messages" not in table:
        return WebSocket()
    subprotocols = table.get("subprotocols", [])
    if not isinstance(subprotocols, list) or not all(
        isinstance(item, str) and is_token(item) for item in subprotocols
    ):
        raise Invalid(("subprotocols",), "expected an array of subprotocol names (tokens)")
    replies = table.get("replies")
    if replies is not None and (
        isinstance(replies, bool) or not isinstance(replies, int) or not 0 <= replies <= 100_000
    ):
        raise Invalid(("replies",), f"expected a count from 0 to 100000, got {describe(replies)}")
    messages = []
    for i, item in enumerate(_get_tables(table, "messages", ())):
        at = ("messages", i)
        messages.append(
            Message(
                name=_get_str(item, "name", at),
                body=_get_str(item, "body", at),
                extra=_extra(item, MESSAGE_KEYS),
            )
        )
    return WebSocket(subprotocols=list(subprotocols), messages=messages, replies=replies)


def example_file_problem(path: str) -> str | None:
    """Why an example's ``body_file`` may not be read, or None: it names a file inside the
    collection, relative to it, so a collection served by ``pigeon mock`` cannot send the
    server's other files."""
    if not path.strip():
        return "expected a path relative to the collection"
    if "\x00" in path or any(ord(c) < 32 for c in path):
        return "a path has no control characters"
    parts = path.replace("\\", "/").split("/")
    if path.startswith(("/", "\\")) or re.match(r"^[A-Za-z]:", path) or ".." in parts:
        return f"{path!r} is outside the collection: give a path relative to it, without '..'"
    return None


def _example_headers(item: Mapping[str, Any], at: _At) -> list[Header]:
    out = []
    for j, entry in enumerate(_get_tables(item, "headers", at)):
        where = (*at, "headers", j)
        if "name" not in entry:
            raise Invalid(where, "missing name")
        name = _get_str(entry, "name", where)
        value = _get_str(entry, "value", where)
        if not is_token(name):
            raise Invalid((*where, "name"), f"{name!r} is not a header name")
        if any(c in value for c in "\r\n\x00"):
            raise Invalid((*where, "value"), "a header value has no CR, LF or NUL")
        enabled = _get_bool(entry, "enabled", where, True)
        out.append(Header(name, value, enabled, extra=_extra(entry, PAIR_KEYS)))
    return out


def _examples(table: Mapping[str, Any]) -> list[Example]:
    """``[[examples]]``: saved responses (DESIGN §14), each named once per request."""
    out: list[Example] = []
    for i, item in enumerate(_get_tables(table, "examples", ())):
        at = ("examples", i)
        name = _get_str(item, "name", at).strip()
        if not name:
            raise Invalid(at, "an example needs a name")
        if any(e.name == name for e in out):
            raise Invalid((*at, "name"), f"a second example named {name!r}")
        status = item.get("status", 200)
        if isinstance(status, bool) or not isinstance(status, int) or not 100 <= status <= 599:
            raise Invalid(
                (*at, "status"), f"expected a status from 100 to 599, got {describe(status)}"
            )
        body = _get_str(item, "body", at)
        body_file = _get_str(item, "body_file", at)
        if body and body_file:
            raise Invalid((*at, "body_file"), "an example has a body or a body_file, not both")
        if len(body.encode("utf-8", "surrogatepass")) > MAX_EXAMPLE_BODY:
            raise Invalid((*at, "body"), f"a body is at most {MAX_EXAMPLE_BODY // 2**20} MB")
        if "body_file" in item and (problem := example_file_problem(body_file)):
            raise Invalid((*at, "body_file"), problem)
        out.append(
            Example(
                name=name,
                status=status,
                headers=_example_headers(item, at),
                body=body,
                body_file=body_file,
                extra=_extra(item, EXAMPLE_KEYS),
            )
        )
    return out


def _grpc(table: Mapping[str, Any]) -> Grpc:
    """``rpc``, ``protos`` and ``import_paths``: a gRPC request's own keys (DESIGN §10)."""
    if "rpc" not in table and "protos" not in table and "import_paths" not in table:
        return Grpc()
    paths = {key: table.get(key, []) for key in ("protos", "import_paths")}
    for key, value in paths.items():
        if not isinstance(value, list) or not all(isinstance(p, str) and p.strip() for p in value):
            raise Invalid((key,), "expected an array of paths relative to the collection")
    return Grpc(_get_str(table, "rpc", ()).strip(), **{k: list(v) for k, v in paths.items()})


def _method(table: Mapping[str, Any]) -> str:
    method = _get_str(table, "method", (), "GET").strip()
    if not is_token(method):
        raise Invalid(("method",), f"{method!r} is not an HTTP method (a token such as GET)")
    # Standard methods are case-insensitive to users; custom ones are kept as written.
    return method.upper() if method.upper() in METHODS else method


def title_from_stem(stem: str) -> str:
    """``list-users`` -> ``List users``: the name of a request or folder that has none."""
    words = re.sub(r"[-_\s]+", " ", stem).strip()
    return words[:1].upper() + words[1:] if words else stem


_REQUEST_FILE_KEYS = frozenset(REQUEST_KEYS + WEBSOCKET_KEYS + GRPC_KEYS)


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
        extra=_extra(data, _REQUEST_FILE_KEYS),
        type=_get_choice(data, "type", (), "http", REQUEST_TYPES),
        websocket=_websocket(data),
        grpc=_grpc(data),
        stream=_stream(data),
        examples=_examples(data),
    )


def request_from_toml(text: str, path: Path | None = None) -> Request:
    """Build a request from the text of a request file; ``LoadError`` says where it is wrong."""
    default = title_from_stem(path.stem) if path is not None else "Untitled request"
    request: Request = load_document(text, path, lambda data: _request(data, default))
    request.path = path
    return request


def fill_collection(data: dict[str, Any], col: Collection) -> None:
    name = _get_str(data, "name", (), "").strip()
    default_env = data.get("default_environment")
    if default_env is not None and not isinstance(default_env, str):
        raise Invalid(
            ("default_environment",), f"expected an environment name, got {describe(default_env)}"
        )
    # Validate everything before assigning anything: a broken file leaves the defaults.
    variables, headers, auth = _variables(data, ()), _headers(data), _auth(data)
    scripts, order, transport = _scripts(data), _order(data), _transport(data)
    col.secrets = secrets_of(data, "collection")
    col.name = name or col.name
    col.transport = transport
    col.default_environment = default_env or None
    col.variables, col.headers, col.auth = variables, headers, auth
    col.scripts, col.order = scripts, order
    col.extra = _extra(data, COLLECTION_KEYS)


def fill_folder(data: dict[str, Any], folder: Folder) -> None:
    name = _get_str(data, "name", (), "").strip()
    variables, headers, auth = _variables(data, ()), _headers(data), _auth(data)
    scripts, order = _scripts(data), _order(data)
    folder.name = name or folder.name
    folder.variables, folder.headers, folder.auth = variables, headers, auth
    folder.scripts, folder.order = scripts, order
    folder.extra = _extra(data, FOLDER_KEYS)


def fill_environment(data: dict[str, Any], env: Environment) -> None:
    env.variables = _variables(data, ())
    env.secrets = secrets_of(data, f"environment {env.name}")
    env.transport = _transport(data)
    env.extra = _extra(data, ENVIRONMENT_KEYS)


# -- loading a collection --------------------------------------------------------------------


def _read(col: Collection, path: Path) -> str:
    """A file's text, its digest recorded in ``col.seen`` for the saves that follow."""
    text = read_text(path)
    col.seen[path] = digest(text)
    return text


def _load(
    col: Collection, path: Path, schema: Table, build: Callable[[dict[str, Any]], Any]
) -> Any:
    """Read one file of the collection and build from it; each key it holds that Pigeon does
    not read becomes a warning naming its line and column (kept, but never silently)."""
    text = _read(col, path)
    return load_document(text, path, noting_unknown(col.warnings, path, text, schema, build))


load_file = _load  # for the global files (``store.global_files``)


def variables_of(data: Mapping[str, Any]) -> dict[str, Any]:
    """A file's ``[variables]``, checked."""
    return _variables(data, ())


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
            _load(col, col_file, COLLECTION, lambda d: fill_collection(d, col))
        except LoadError as exc:
            col.broken.append(exc.as_broken())

    env_dir = root / ENVIRONMENTS_DIR
    if env_dir.is_dir():
        for path in sorted(env_dir.glob("*.toml.mine*")):
            _is_conflict(col, path, path.name)
        for path in sorted(env_dir.glob("*.toml"), key=lambda p: (p.stem.casefold(), p.stem)):
            if path.name.startswith(".") or not path.is_file():
                continue
            env = Environment(name=path.stem, path=path)
            try:
                _load(col, path, ENVIRONMENT, partial(fill_environment, env=env))
            except LoadError as exc:
                col.broken.append(exc.as_broken())
            else:
                col.environments[env.name] = env

    dotenv_file = root / DOTENV_FILE
    if dotenv_file.is_file():
        col.dotenv = read_dotenv(dotenv_file, col.broken)

    col.items = _load_items(col, root, col.order, {os.path.realpath(root)})
    return col


def rel_id(root: Path, path: Path) -> str:
    base, text = str(root), str(path)
    if text.startswith(base) and text[len(base) : len(base) + 1] == os.sep:
        rel = text[len(base) + 1 :]  # the common case, without pathlib's parsing
        return (rel if os.sep == "/" else rel.replace(os.sep, "/")).removesuffix(".toml")
    return path.relative_to(root).as_posix().removesuffix(".toml")


def _load_items(
    col: Collection, directory: Path, order: list[str], seen: set[str]
) -> list[Folder | Request]:
    try:
        with os.scandir(directory) as listing:
            entries = sorted(listing, key=lambda e: e.name)
    except OSError as exc:
        problem = f"cannot read folder: {exc.strerror or exc}; skipped"
        col.broken.append(BrokenFile(directory, problem, skipped=True))
        return []
    items: list[Folder | Request] = []
    for entry in entries:
        if entry.name.startswith("."):
            continue
        path = Path(entry.path)
        if _is_conflict(col, path, entry.name):
            continue
        try:  # a link in a loop of links, or a folder that may not be looked into
            is_dir = entry.is_dir()
        except OSError as exc:
            problem = f"cannot read: {exc.strerror or exc}; skipped"
            col.broken.append(BrokenFile(path, problem, skipped=True))
            continue
        loads = is_dir or entry.name.endswith(".toml")
        if loads and entry.is_symlink() and _link_skipped(col, path, seen):
            continue
        if is_dir:
            if directory == col.root and entry.name == ENVIRONMENTS_DIR:
                continue
            items.append(load_folder(col, path, seen | {os.path.realpath(path)}))
        elif (
            entry.is_file()
            and entry.name.endswith(".toml")
            and entry.name not in (COLLECTION_FILE, FOLDER_FILE)
        ):
            try:
                stem = entry.name[: -len(".toml")]  # the name ends so, checked above
                build = partial(_request, default_name=title_from_stem(stem))
                request: Request = _load(col, path, REQUEST, build)
            except LoadError as exc:
                col.broken.append(exc.as_broken())
                continue
            request.path, request.id = path, rel_id(col.root, path)
            items.append(request)
    return sort_items(items, order)


def _is_conflict(col: Collection, path: Path, name: str) -> bool:
    """Whether ``path`` is a copy saved beside a file that changed on disk: never loaded (it is
    not a request until merged), listed among the skipped entries as a conflict."""
    original = beside_of(name)
    if original is None or not path.is_file():
        return False
    col.broken.append(BrokenFile(path, conflict_message(original), skipped=True))
    return True


def _link_skipped(col: Collection, path: Path, seen: set[str]) -> bool:
    """Whether the symlink at ``path`` is left out, listed as a skipped entry: one that loops
    back to a folder above it or leads out of the collection (a link to ``/`` would load the
    whole disk). A link that stays inside is followed."""
    real = os.path.realpath(path)
    root = os.path.realpath(col.root)
    if real in seen or (os.path.isdir(real) and root.startswith(real.rstrip(os.sep) + os.sep)):
        problem = f"a link to a folder that holds it (to {real}): a loop; skipped"
    elif real != root and not real.startswith(root.rstrip(os.sep) + os.sep):
        problem = f"a link out of the collection (to {real}); skipped"
    elif not os.path.exists(real):
        problem = "a link to nothing; skipped"
    else:
        return False
    col.broken.append(BrokenFile(path, problem, skipped=True))
    return True


def load_folder(col: Collection, path: Path, seen: set[str]) -> Folder:
    folder = Folder(name=title_from_stem(path.name), path=path, id=rel_id(col.root, path))
    folder_file = path / FOLDER_FILE
    if os.path.isfile(folder_file):  # False, not an error, in a folder that cannot be read
        folder.has_file = True
        try:
            _load(col, folder_file, FOLDER, lambda d: fill_folder(d, folder))
        except LoadError as exc:
            col.broken.append(exc.as_broken())
    folder.items = _load_items(col, path, folder.order, seen)
    return folder
