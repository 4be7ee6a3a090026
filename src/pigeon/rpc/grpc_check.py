"""`pigeon check` of a gRPC request (DESIGN §6, §10): its ``rpc`` and its messages' fields
against descriptors found without a network: its ``.proto`` files (inside the collection;
one outside is left to a trusted send) or what reflection answered before, cached in
``.pigeon/grpc/``. Nothing to check against is no finding.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pigeon.model import Request
from pigeon.rpc import GrpcError, import_dirs, proto_files, target_of, within


def _descriptors(root: Path, request: Request, url: str, built: dict[Any, Any]) -> Any:
    """The request's descriptors, or ``None`` when there are none to read offline."""
    from pigeon.rpc import descriptors as d

    if request.grpc.protos:
        files, dirs = proto_files(root, request), import_dirs(root, request)
        if not all(within(p, root) for p in [*files, *dirs]):
            return None
        key: Any = ("protos", tuple(map(str, files)), tuple(map(str, dirs)))
        if key not in built:
            built[key] = d.Descriptors(d.compile_protos(files, dirs, root))
        return built[key]
    try:
        target = target_of(url).url
    except GrpcError:
        return None
    key = ("cache", target)
    if key not in built:
        cached = d.load(root, target)
        built[key] = d.Descriptors(cached) if cached is not None else None
    return built[key]


def method_and_fields(
    root: Path,
    request: Request,
    url: str,
    bodies: Sequence[tuple[str, str]],
    built: dict[Any, Any],
) -> list[tuple[str, str, str]]:
    """What is wrong, as (rule, TOML key, message): an ``rpc`` the descriptors lack
    (``grpc-method``), a message field its type lacks (``grpc-field``). ``bodies``: each
    message's key and rendered JSON text (one that is not JSON is another rule's finding).
    ``GrpcError`` when the descriptors themselves do not build."""
    try:
        descriptors = _descriptors(root, request, url, built)
    except ImportError:  # the grpc extra is not installed: nothing to check against
        return []
    if descriptors is None:
        return []
    try:
        method = descriptors.method(request.grpc.rpc)
    except GrpcError as exc:
        return [("grpc-method", "rpc", str(exc))]
    out = []
    for key, text in bodies:
        try:
            value = json.loads(text)
        except ValueError:
            continue
        for where in descriptors.unknown_fields(method.input_type, value):
            out.append(("grpc-field", key, f"{method.input_type.full_name} has no field {where}"))
    return out
