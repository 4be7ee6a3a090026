"""A rendered gRPC request as the grpcurl command that makes the same call (`pigeon export
grpcurl`, DESIGN §6, §10, §12).

The command carries the rendered values: metadata as ``-H``, the message (or a stream's
messages, one JSON text each) as ``-d``, ``-plaintext`` for ``grpc://``, the collection's CA
bundle and client certificate, the ``.proto`` files and import paths (else grpcurl asks the
server's reflection, as Pigeon does), and the timeout as ``-max-time``. Each word is quoted
for a POSIX shell with ``shlex.quote``.
"""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from pathlib import Path

from pigeon.model import DEFAULT_TIMEOUT, Request
from pigeon.render import RenderedRequest
from pigeon.rpc import import_dirs, proto_files, target_of
from pigeon.rpc.call import metadata_of


def grpcurl_argv(
    rendered: RenderedRequest, request: Request, messages: Sequence[str], root: Path
) -> list[str]:
    """grpcurl's arguments for the call (``GrpcError`` for a URL that names no server)."""
    target = target_of(rendered.url)
    argv = ["grpcurl"]
    if not target.tls:
        argv.append("-plaintext")
    elif not rendered.settings.verify_tls:
        argv.append("-insecure")
    spec = rendered.transport
    if target.tls and spec.ca_bundle:
        argv += ["-cacert", spec.ca_bundle]
    if target.tls and spec.cert:
        argv += ["-cert", spec.cert]
        if spec.key:
            argv += ["-key", spec.key]
    for folder in import_dirs(root, request):
        argv += ["-import-path", str(folder)]
    for proto in proto_files(root, request):
        name = proto
        for folder in import_dirs(root, request):
            if proto.is_relative_to(folder):
                name = proto.relative_to(folder)
                break
        argv += ["-proto", str(name)]
    metadata, _ = metadata_of(rendered.headers)
    for key, value in metadata:
        text = value if isinstance(value, str) else _base64(value)
        argv += ["-H", f"{key}: {text}"]
    if rendered.settings.timeout != DEFAULT_TIMEOUT:
        argv += ["-max-time", f"{rendered.settings.timeout:g}"]
    sent = [m for m in messages if m.strip()]
    if sent:
        argv += ["-d", "\n".join(sent)]
    argv += [target.address, request.grpc.rpc.strip().lstrip("/")]
    return argv


def _base64(data: bytes) -> str:
    import base64

    return base64.b64encode(data).decode("ascii")


def to_grpcurl(
    rendered: RenderedRequest, request: Request, messages: Sequence[str], root: Path
) -> str:
    """The grpcurl command, quoted for a POSIX shell, one option a line."""
    argv = grpcurl_argv(rendered, request, messages, root)
    words = [shlex.quote(w) for w in argv]
    lines, i = [words[0]], 1
    while i < len(words):
        if (
            argv[i].startswith("-")
            and i + 1 < len(words)
            and argv[i] not in ("-plaintext", "-insecure")
        ):
            lines.append(f"{words[i]} {words[i + 1]}")
            i += 2
        else:
            lines.append(words[i])
            i += 1
    return " \\\n  ".join(lines)
