"""gRPC requests (DESIGN §10): what a gRPC request names, read without loading gRPC.

A request is a gRPC call when its ``type`` is ``"grpc"`` or its URL starts ``grpc://`` or
``grpcs://`` (``model.Request.kind``). Its URL names the server (``grpcs://`` and
``https://`` with TLS; ``grpc://``, ``http://`` or a bare ``host:port`` without), its
``rpc`` the method (``package.Service/Method``), its ``protos`` and ``import_paths`` the
``.proto`` files that describe it (else server reflection does).

This module is what the store, the trust gate, ``pigeon check`` and the app need to know of
a call without importing grpcio or protobuf: those are an optional extra
(``pigeon[grpc]``), imported by ``rpc.descriptors`` and ``rpc.call`` on the first call.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from pigeon.errors import PigeonError
from pigeon.model import Request

# The status codes, by number (grpc's ``StatusCode``, without loading grpc).
STATUS_NAMES = (
    "OK",
    "CANCELLED",
    "UNKNOWN",
    "INVALID_ARGUMENT",
    "DEADLINE_EXCEEDED",
    "NOT_FOUND",
    "ALREADY_EXISTS",
    "PERMISSION_DENIED",
    "RESOURCE_EXHAUSTED",
    "FAILED_PRECONDITION",
    "ABORTED",
    "OUT_OF_RANGE",
    "UNIMPLEMENTED",
    "INTERNAL",
    "UNAVAILABLE",
    "DATA_LOSS",
    "UNAUTHENTICATED",
)

INSTALL_HINT = "gRPC requests need the grpc extra: pip install 'pigeon-http[grpc]'"


class GrpcError(PigeonError):
    """A gRPC call that cannot be made as asked: no such method, a ``.proto`` file that does
    not compile, a reflection answer that cannot be used. One line (exit 1)."""


def status_name(code: int | None) -> str:
    """``5`` -> ``"NOT_FOUND"``; a code outside the table reads ``"CODE_42"``."""
    if code is None:
        return ""
    return STATUS_NAMES[code] if 0 <= code < len(STATUS_NAMES) else f"CODE_{code}"


@dataclass(frozen=True, slots=True)
class Target:
    """Where a call goes: ``host:port``, and whether over TLS."""

    host: str
    port: int
    tls: bool

    @property
    def address(self) -> str:
        """``host:port`` as grpc's channel takes it (an IPv6 host in brackets)."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{host}:{self.port}"

    @property
    def url(self) -> str:
        return f"{'grpcs' if self.tls else 'grpc'}://{self.address}"


_SCHEMES = {"grpc": False, "http": False, "grpcs": True, "https": True}


def target_of(url: str) -> Target:
    """The server a rendered URL names: ``grpc://host:port``, ``grpcs://host:port`` (also
    ``http://``, ``https://``, or a bare ``host:port``, which is plaintext). Without a port,
    443 with TLS and 80 without. ``GrpcError`` for what names no server (a path is refused:
    the method is the request's ``rpc``)."""
    text = url.strip()
    if "://" not in text:
        text = f"grpc://{text}"
    try:
        parts = urlsplit(text)
        port = parts.port
    except ValueError as exc:
        raise GrpcError(f"{url!r} is not a gRPC server address: {exc}") from None
    scheme = parts.scheme.lower()
    if scheme not in _SCHEMES:
        raise GrpcError(f"{url!r}: a gRPC URL starts grpc:// or grpcs://")
    if not parts.hostname:
        raise GrpcError(f"{url!r} names no host (grpc://host:port)")
    if parts.path.strip("/") or parts.query or parts.fragment:
        raise GrpcError(f"{url!r}: a gRPC URL is grpc://host:port alone; the method goes in rpc")
    tls = _SCHEMES[scheme]
    return Target(parts.hostname, port if port is not None else (443 if tls else 80), tls)


def split_rpc(rpc: str) -> tuple[str, str]:
    """``"pkg.Service/Method"`` (also ``pkg.Service.Method``, grpcurl's other spelling, and a
    leading ``/``) -> ``("pkg.Service", "Method")``; ``GrpcError`` when it names no method."""
    text = rpc.strip().lstrip("/")
    service, sep, method = text.rpartition("/")
    if not sep:
        service, sep, method = text.rpartition(".")
    if not sep or not service or not method or "/" in service:
        raise GrpcError(f"rpc {rpc!r}: name the method as package.Service/Method")
    return service, method


def _resolve(root: Path, text: str) -> Path:
    path = Path(text).expanduser()
    return path if path.is_absolute() else root / path


def proto_files(root: Path, request: Request) -> list[Path]:
    """The request's ``protos`` as paths (relative ones under the collection), as written:
    the trust gate judges where they lead."""
    return [_resolve(root, p) for p in request.grpc.protos]


def import_dirs(root: Path, request: Request) -> list[Path]:
    """The request's ``import_paths`` as paths (relative ones under the collection)."""
    return [_resolve(root, p) for p in request.grpc.import_paths]


def within(path: Path, root: Path) -> bool:
    """Whether ``path``, links resolved, is inside ``root``."""
    real, base = os.path.realpath(path), os.path.realpath(root)
    return real == base or real.startswith(base.rstrip(os.sep) + os.sep)
