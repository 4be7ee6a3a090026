"""GraphQL schemas cached per collection (DESIGN §7): ``.pigeon/graphql/<key>.json`` holds
what introspection answered for one endpoint (the URL without its query and fragment).

The folder is git-ignored and never written through a link (``files.private_dir``). A cache
file may still be hostile (a repository can ship one), so reading it is capped, and a file
that does not build a schema counts as none. Building a big schema takes a while: it is done
off the app's loop, and the result is kept while the file stays the same.
"""

from __future__ import annotations

import hashlib
import json
from collections import OrderedDict
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit, urlunsplit

from pigeon.errors import PigeonError
from pigeon.files import LinkedOut, atomic_write, private_dir, read_capped

if TYPE_CHECKING:
    from graphql import GraphQLSchema

CACHE_DIR = "graphql"
LIMIT = 32 * 1024 * 1024  # an introspection answer (GitHub's whole API is about 10 MB)
_BUILT: OrderedDict[tuple[str, int, int], GraphQLSchema] = OrderedDict()
_KEEP = 4  # schemas kept built in memory


class SchemaError(PigeonError):
    """A schema that cannot be fetched, read or built; the message is one line (exit 1)."""


def endpoint_of(url: str) -> str:
    """The cache's key for a request URL: scheme, host and path."""
    parts = urlsplit(url.strip())
    return urlunsplit((parts.scheme.lower(), parts.netloc.lower(), parts.path, "", ""))


def cache_path(root: Path, endpoint: str, create: bool = False) -> Path:
    name = hashlib.sha256(endpoint.encode("utf-8")).hexdigest()[:32] + ".json"
    return private_dir(root, CACHE_DIR, create=create) / name


def introspection_data(answer: Any) -> dict[str, Any]:
    """The ``data`` of an introspection answer, or ``SchemaError`` saying what is wrong."""
    if not isinstance(answer, dict):
        raise SchemaError("the answer is not a JSON object")
    data = answer.get("data")
    if not isinstance(data, dict) or not isinstance(data.get("__schema"), dict):
        errors = answer.get("errors")
        if isinstance(errors, list) and errors and isinstance(errors[0], dict):
            raise SchemaError(f"the server refused introspection: {errors[0].get('message')!s}")
        raise SchemaError("the answer holds no data.__schema")
    return data


def build(data: dict[str, Any]) -> GraphQLSchema:
    """A schema from introspection's ``data``; ``SchemaError`` when it does not build."""
    from graphql import build_client_schema

    try:
        return build_client_schema(data)  # type: ignore[arg-type]
    except RecursionError:
        raise SchemaError("the schema nests too deeply") from None
    except Exception as exc:  # graphql-core raises TypeError and others on a bad answer
        raise SchemaError(
            f"the schema does not build: {' '.join(str(exc).split())[:200]}"
        ) from None


def save(root: Path, endpoint: str, data: dict[str, Any]) -> Path:
    """Cache introspection's ``data`` for ``endpoint``; ``SchemaError`` when it cannot be
    written (a ``.pigeon/`` that links out, a read-only folder)."""
    record = {
        "endpoint": endpoint,
        "fetched": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "data": data,
    }
    try:
        path = cache_path(root, endpoint, create=True)
        atomic_write(path, json.dumps(record, ensure_ascii=False), durable=False)
    except (OSError, LinkedOut) as exc:
        raise SchemaError(f"the schema could not be cached: {exc}") from None
    return path


def load(root: Path, endpoint: str) -> GraphQLSchema | None:
    """The cached schema of ``endpoint``, or ``None`` when none is cached or it does not
    build (blocking and possibly slow: call it in a thread)."""
    try:
        path = cache_path(root, endpoint)
        if path.is_symlink() or not path.is_file():
            return None
        stat = path.stat()
        key = (str(path), stat.st_mtime_ns, stat.st_size)
        if key in _BUILT:
            _BUILT.move_to_end(key)
            return _BUILT[key]
        record = json.loads(read_capped(path, LIMIT))
        if not isinstance(record, dict) or record.get("endpoint") != endpoint:
            return None
        schema = build(introspection_data(record))
    except (OSError, LinkedOut, ValueError, RecursionError, SchemaError):
        return None
    _BUILT[key] = schema
    while len(_BUILT) > _KEEP:
        _BUILT.popitem(last=False)
    return schema
