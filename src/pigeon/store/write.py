"""The model -> TOML files, and saving them (DESIGN §2).

Each kind of file has one function that turns the model into plain data: known keys in DESIGN
§2's order, defaults left out, unknown keys (``extra``) kept. A new file is that data in the
readable layout of ``tomlwrite.dumps``. A file that exists is edited: the data its text loads
to is compared with the data to save, and only the difference is written into the user's own
document (``tomlwrite.update``), so an unchanged save is byte for byte the file and a change
is a diff of its own lines. Every write goes through ``files.atomic_write``; a file that does
not load is never overwritten, and a result that would not load back is never written.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, TypeVar

from pigeon.auth_kinds import FIELDS as AUTH_FIELDS
from pigeon.auth_kinds import KINDS
from pigeon.errors import LoadError, SaveError
from pigeon.files import atomic_write
from pigeon.model import (
    DEFAULT_TIMEOUT,
    Auth,
    Body,
    Collection,
    Environment,
    Example,
    Folder,
    Header,
    Message,
    QueryParam,
    Request,
    Scripts,
    Settings,
    Stream,
)
from pigeon.store.read import fill_collection, fill_environment, fill_folder, request_from_toml
from pigeon.store.schema import (
    AUTH_KEYS,
    BODY_KEYS,
    COLLECTION_FILE,
    COLLECTION_KEYS,
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
    WEBSOCKET_KEYS,
)
from pigeon.store.seen import Seen, check, digest
from pigeon.tomltext import Block, check_writable, load_document, read_text
from pigeon.tomlwrite import dumps, update
from pigeon.values import check_name

T = TypeVar("T")

# -- the model -> plain data -------------------------------------------------------------------


def _with_extra(
    data: dict[str, Any], extra: Mapping[str, Any], known: tuple[str, ...]
) -> dict[str, Any]:
    for k, v in extra.items():
        if k not in known and k not in data:
            data[k] = v
    return data


def _pairs(pairs: list[Header] | list[QueryParam]) -> list[dict[str, Any]]:
    out = []
    for pair in pairs:
        entry: dict[str, Any] = {"name": pair.name}
        if pair.value:
            entry["value"] = pair.value
        if not pair.enabled:
            entry["enabled"] = False
        out.append(_with_extra(entry, pair.extra, PAIR_KEYS))
    return out


def _auth(auth: Auth) -> dict[str, Any]:
    """Every field that differs from its default, whatever the type (the grant always, for a
    kind that uses it), in ``auth_kinds.FIELDS``' order."""
    data: dict[str, Any] = {"type": auth.type}
    used = KINDS[auth.type].fields if auth.type in KINDS else ()
    for f in AUTH_FIELDS:
        value = f.get(auth)
        if value != f.default or (f.always and f in used):
            data[f.name] = dict(value) if f.table else value
    return _with_extra(data, auth.extra, AUTH_KEYS + OAUTH2_KEYS)


def _scripts(scripts: Scripts) -> dict[str, Any]:
    data: dict[str, Any] = {}
    if scripts.pre_request:
        data["pre_request"] = Block(scripts.pre_request)
    if scripts.post_response:
        data["post_response"] = Block(scripts.post_response)
    return _with_extra(data, scripts.extra, SCRIPT_KEYS)


def _variables(variables: Mapping[str, Any]) -> dict[str, Any]:
    for name, value in variables.items():
        try:
            check_name(name)
        except ValueError as exc:
            raise SaveError(str(exc)) from None
        check_writable(value, f"variables.{name}")
    return dict(variables)


def _body(body: Body) -> dict[str, Any]:
    data: dict[str, Any] = {"type": body.type}
    if body.content:
        data["content"] = Block(body.content)
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
        fields.append(_with_extra(entry, f.extra, FIELD_KEYS))
    if fields:
        data["fields"] = fields
    if body.query:
        data["query"] = Block(body.query)
    if body.variables:
        data["variables"] = Block(body.variables)
    if body.operation_name:
        data["operation_name"] = body.operation_name
    if body.path:
        data["path"] = body.path
    if body.content_type:
        data["content_type"] = body.content_type
    return _with_extra(data, body.extra, BODY_KEYS)


def _settings(settings: Settings) -> dict[str, Any]:
    data: dict[str, Any] = {}
    if settings.timeout != DEFAULT_TIMEOUT:
        data["timeout"] = float(settings.timeout)
    if not settings.follow_redirects:
        data["follow_redirects"] = False
    if not settings.verify_tls:
        data["verify_tls"] = False
    if settings.keep_auth_on_redirect:
        data["keep_auth_on_redirect"] = True
    if not settings.send_cookies:
        data["send_cookies"] = False
    return _with_extra(data, settings.extra, SETTINGS_KEYS)


def _stream(stream: Stream) -> dict[str, Any] | None:
    """``[stream]``, written when the file had it (even empty) or a limit is set."""
    data: dict[str, Any] = {}
    if stream.max_events is not None:
        data["max_events"] = stream.max_events
    if stream.max_seconds is not None:
        data["max_seconds"] = stream.max_seconds
    data = _with_extra(data, stream.extra, STREAM_KEYS)
    return data if data or stream.declared else None


def _unknown(
    extra: Mapping[str, Any], known: tuple[str, ...]
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Unknown top-level keys: plain values go with the head, tables after the known ones."""
    plain = {k: v for k, v in extra.items() if k not in known and not isinstance(v, Mapping)}
    tables = {k: v for k, v in extra.items() if k not in known and isinstance(v, Mapping)}
    return plain, tables


def _messages(messages: list[Message]) -> list[dict[str, Any]]:
    out = []
    for message in messages:
        # a gRPC stream's messages need no name: a new file leaves an empty one out
        entry: dict[str, Any] = {"name": message.name} if message.name else {}
        if message.body:
            entry["body"] = Block(message.body) if "\n" in message.body else message.body
        out.append(_with_extra(entry, message.extra, MESSAGE_KEYS))
    return out


def _examples(examples: list[Example]) -> list[dict[str, Any]]:
    out = []
    for example in examples:
        entry: dict[str, Any] = {"name": example.name, "status": example.status}
        if example.headers:
            entry["headers"] = _pairs(example.headers)
        if example.body_file:
            entry["body_file"] = example.body_file
        elif example.body:
            entry["body"] = Block(example.body) if "\n" in example.body else example.body
        out.append(_with_extra(entry, example.extra, EXAMPLE_KEYS))
    return out


def request_data(req: Request) -> dict[str, Any]:
    """A request as a file holds it: known keys in DESIGN §2's order, defaults left out."""
    plain, tables = _unknown(req.extra, REQUEST_KEYS + WEBSOCKET_KEYS + GRPC_KEYS)
    data: dict[str, Any] = {"name": req.name}
    if req.type != "http":
        data["type"] = req.type
    # A WebSocket's handshake is a GET; a gRPC call has no method of its own
    if not (req.kind in ("websocket", "grpc") and req.method == "GET"):
        data["method"] = req.method
    data["url"] = req.url
    grpc = req.grpc
    if grpc.rpc:
        data["rpc"] = grpc.rpc
    if grpc.protos:
        data["protos"] = list(grpc.protos)
    if grpc.import_paths:
        data["import_paths"] = list(grpc.import_paths)
    ws = req.websocket
    if ws.subprotocols:
        data["subprotocols"] = list(ws.subprotocols)
    if ws.replies is not None:
        data["replies"] = ws.replies
    if req.description:
        data["description"] = Block(req.description)
    data.update(plain)
    if req.variables:
        data["variables"] = _variables(req.variables)
    if req.headers:
        data["headers"] = _pairs(req.headers)
    if req.query:
        data["query"] = _pairs(req.query)
    body = req.body
    if body.type != "none" or body != Body():
        data["body"] = _body(body)
    if req.auth is not None:
        data["auth"] = _auth(req.auth)
    if scripts := _scripts(req.scripts):
        data["scripts"] = scripts
    if settings := _settings(req.settings):
        data["settings"] = settings
    if ws.messages:
        data["messages"] = _messages(ws.messages)
    if (stream := _stream(req.stream)) is not None:
        data["stream"] = stream
    if req.examples:
        data["examples"] = _examples(req.examples)
    data.update(tables)
    return data


def _container_data(
    node: Collection | Folder, known: tuple[str, ...], own: dict[str, Any]
) -> dict[str, Any]:
    """A collection's or a folder's file; ``own`` holds the head keys only that kind has."""
    plain, tables = _unknown(node.extra, known)
    data: dict[str, Any] = {"name": node.name, **own}
    if node.order:
        data["order"] = list(node.order)
    data.update(plain)
    if node.variables:
        data["variables"] = _variables(node.variables)
    if node.headers:
        data["headers"] = _pairs(node.headers)
    if node.auth is not None:
        data["auth"] = _auth(node.auth)
    if scripts := _scripts(node.scripts):
        data["scripts"] = scripts
    data.update(tables)
    return data


def collection_data(col: Collection) -> dict[str, Any]:
    own = {"default_environment": col.default_environment} if col.default_environment else {}
    return _container_data(col, COLLECTION_KEYS, own)


def folder_data(folder: Folder) -> dict[str, Any]:
    return _container_data(folder, FOLDER_KEYS, {})


def environment_data(env: Environment) -> dict[str, Any]:
    plain, tables = _unknown(env.extra, ENVIRONMENT_KEYS)
    return {**plain, "variables": _variables(env.variables), **tables}


def request_to_toml(req: Request) -> str:
    """The text of a new request file."""
    return dumps(request_data(req))


def collection_to_toml(col: Collection) -> str:
    return dumps(collection_data(col))


def folder_to_toml(folder: Folder) -> str:
    return dumps(folder_data(folder))


def environment_to_toml(env: Environment) -> str:
    return dumps(environment_data(env))


# -- reading back what a file holds ----------------------------------------------------------


def check_collection(text: str, path: Path) -> Collection:
    col = Collection(name="", root=path.parent)
    load_document(text, path, lambda d: fill_collection(d, col))
    return col


def check_folder(text: str, path: Path) -> Folder:
    folder = Folder(name="")
    load_document(text, path, lambda d: fill_folder(d, folder))
    return folder


def check_environment(text: str, path: Path) -> Environment:
    env = Environment(name="")
    load_document(text, path, lambda d: fill_environment(d, env))
    return env


# -- saving --------------------------------------------------------------------------------------


def on_disk(path: Path, parse: Callable[[str, Path], T], doing: str = "saved") -> tuple[str, T]:
    """A file's text and what it loads to, or a refusal naming it: a file that does not load
    is never overwritten."""
    try:
        text = read_text(path)
        return text, parse(text, path)
    except LoadError as exc:
        raise SaveError(
            f"not {doing}: {path} does not load ({exc.message}"
            f"{f' at line {exc.line}' if exc.line else ''}); "
            "it is never overwritten, fix or move it first"
        ) from exc


def safe_write(
    path: Path, text: str, parse: Callable[[str, Path], object], current: str | None = None
) -> None:
    """Check, then write: refuse to write a file that would not load back, or to replace one
    that does not load (``current``: its text, already checked). Writing what is already there
    writes nothing."""
    try:
        parse(text, path)
    except LoadError as exc:
        raise SaveError(f"not saved, the result would not load back: {exc}") from exc
    if current is None and path.exists():
        current, _ = on_disk(path, parse)
    if text == current:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(path, text)


def save_data(
    path: Path,
    data: Mapping[str, Any],
    parse: Callable[[str, Path], T],
    data_of: Callable[[T], Mapping[str, Any]],
    seen: Seen | None = None,
    force: bool = False,
) -> None:
    """Write ``data`` to ``path``: a new file in the readable layout, or the difference from
    what the file holds now written into the user's own text. With ``seen`` (the app), a file
    changed or gone since it was read is ``ChangedOnDisk`` unless ``force``, and what is
    written is recorded."""
    if not path.exists():
        if not force:
            check(seen, path, None)
        text = dumps(data)
        safe_write(path, text, parse)
    else:
        current_text, current = on_disk(path, parse)
        if not force:
            check(seen, path, current_text)
        text = update(current_text, data_of(current), data)
        safe_write(path, text, parse, current=current_text)
    if seen is not None:
        seen[path] = digest(text)


def save_request(
    req: Request, path: Path | str | None = None, *, seen: Seen | None = None, force: bool = False
) -> Path:
    """Write a request to ``path`` (default: its own file). Returns the path written.
    ``seen``, ``force``: as ``save_data``."""
    target = Path(path) if path is not None else req.path
    if target is None:
        raise SaveError(f"request {req.name!r} has no file to save to")
    if target.suffix != ".toml" or target.name in (COLLECTION_FILE, FOLDER_FILE):
        raise SaveError(f"not saved: {target} is not a request file name (NAME.toml)")
    save_data(target, request_data(req), request_from_toml, request_data, seen, force)
    req.path = target
    return target


def save_collection_file(col: Collection, *, seen: Seen | None = None, force: bool = False) -> Path:
    target = col.root / COLLECTION_FILE
    save_data(target, collection_data(col), check_collection, collection_data, seen, force)
    return target


def save_folder_file(folder: Folder, *, seen: Seen | None = None, force: bool = False) -> Path:
    if folder.path is None:
        raise SaveError(f"folder {folder.name!r} has no directory")
    target = folder.path / FOLDER_FILE
    save_data(target, folder_data(folder), check_folder, folder_data, seen, force)
    folder.has_file = True
    return target


def save_environment(
    env: Environment, root: Path | None = None, *, seen: Seen | None = None, force: bool = False
) -> Path:
    """Write an environment to its file, or to ``root/environments/NAME.toml``."""
    if env.path is not None:
        target = env.path
    elif root is not None:
        target = Path(root) / ENVIRONMENTS_DIR / f"{env.name}.toml"
    else:
        raise SaveError(f"environment {env.name!r} has no file to save to")
    save_data(target, environment_data(env), check_environment, environment_data, seen, force)
    env.path = target
    return target
