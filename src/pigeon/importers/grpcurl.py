"""A grpcurl command as a gRPC request (`pigeon import grpcurl`, DESIGN §10, §12).

``grpcurl [flags] ADDRESS SYMBOL``: the address becomes ``grpc://`` (``-plaintext``) or
``grpcs://``, the symbol the ``rpc``, ``-H``/``-rpc-header`` the metadata, ``-d`` the message
(several JSON values: a stream's ``[[messages]]``), ``-proto`` and ``-import-path`` the
request's ``protos`` and ``import_paths``, ``-max-time`` the timeout, ``-insecure``
``verify_tls = false``. ``list`` and ``describe`` are not calls; flags Pigeon has no place for
(``-cacert``, ``-cert``, ``-authority``...) are noted, never silently dropped.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from pigeon.importers.common import ImportFailed, ImportResult
from pigeon.importers.shell import shell_words
from pigeon.model import Body, Grpc, Header, Message, Request

_VALUE_FLAGS = {
    "H", "rpc-header", "reflect-header", "d", "proto", "import-path", "protoset", "max-time",
    "connect-timeout", "keepalive-time", "cacert", "cert", "key", "authority", "servername",
    "format", "max-msg-sz", "user-agent", "unix", "alts-handshaker-service",
    "alts-target-service-account", "protoset-out", "proto-out-dir", "format-error",
}  # fmt: skip
_NOTED = ("cacert", "cert", "key", "authority", "servername", "protoset", "unix")


def _flags(words: list[str]) -> tuple[list[tuple[str, str | None]], list[str]]:
    """grpcurl's flags (``-name value``, ``-name=value``, ``--name``) and its positionals."""
    flags: list[tuple[str, str | None]] = []
    positional: list[str] = []
    i = 0
    while i < len(words):
        word = words[i]
        if word.startswith("-") and len(word) > 1 and not positional:
            name, eq, value = word.lstrip("-").partition("=")
            if eq:
                flags.append((name, value))
            elif name in _VALUE_FLAGS:
                if i + 1 >= len(words):
                    raise ImportFailed(f"grpcurl: -{name} needs a value")
                flags.append((name, words[i + 1]))
                i += 1
            else:
                flags.append((name, None))
        else:
            positional.append(word)
        i += 1
    return flags, positional


def _json_values(text: str) -> list[str]:
    """The JSON values ``-d`` holds, each as its own text (grpcurl reads a stream of them)."""
    decoder = json.JSONDecoder()
    out: list[str] = []
    at = 0
    while True:
        while at < len(text) and text[at].isspace():
            at += 1
        if at >= len(text):
            return out
        try:
            _, end = decoder.raw_decode(text, at)
        except ValueError as exc:
            raise ImportFailed(f"grpcurl: -d is not JSON: {exc}") from None
        out.append(text[at:end])
        at = end


def parse_grpcurl(text: str) -> ImportResult:
    """The request a grpcurl command makes; ``ImportFailed`` when it makes no call."""
    result = ImportResult()
    words = shell_words(text.strip()).words
    if words and Path(words[0]).name == "grpcurl":
        words = words[1:]
    if not words:
        raise ImportFailed("grpcurl: no command")
    flags, positional = _flags(words)
    if len(positional) != 2 or positional[1] in ("list", "describe"):
        if positional[-1:] in (["list"], ["describe"]) or positional[:1] in (
            ["list"],
            ["describe"],
        ):
            raise ImportFailed("grpcurl: list and describe are not calls (pigeon grpc-describe)")
        raise ImportFailed(
            "grpcurl: expected an address and a method (host:port pkg.Service/Method)"
        )
    address, symbol = positional
    plaintext = any(name == "plaintext" for name, _ in flags)
    service, _, method = symbol.rpartition("/") if "/" in symbol else symbol.rpartition(".")
    rpc = f"{service}/{method}" if service and method else symbol
    request = Request(
        name=method or symbol,
        type="grpc",
        url=f"{'grpc' if plaintext else 'grpcs'}://{address}",
        grpc=Grpc(rpc=rpc),
    )
    for name, value in flags:
        if name in ("H", "rpc-header") and value is not None:
            key, sep, val = value.partition(":")
            if not sep:
                result.notes.append(f"-{name} {value!r}: not a 'name: value' header, left out")
                continue
            request.headers.append(Header(key.strip(), val.strip()))
        elif name == "d" and value is not None:
            if value.startswith("@"):
                result.notes.append("-d @: the messages read from stdin are not imported")
                continue
            values = _json_values(value)
            if len(values) == 1:
                request.body = Body(type="json", content=values[0])
            else:
                request.websocket.messages = [Message(name="", body=v) for v in values]
        elif name == "proto" and value is not None:
            request.grpc.protos.append(value)
        elif name == "import-path" and value is not None:
            request.grpc.import_paths.append(value)
        elif name == "max-time" and value is not None:
            try:
                seconds = float(value)
            except ValueError:
                result.notes.append(f"-max-time {value!r}: not a number of seconds, left out")
                continue
            if seconds > 0:
                request.settings.timeout = seconds
        elif name == "insecure":
            request.settings.verify_tls = False
        elif name in _NOTED:
            result.notes.append(
                f"-{name}: set it in the collection's [settings] or [[certificates]]"
            )
        elif name not in (
            "plaintext",
            "v",
            "vv",
            "format",
            "emit-defaults",
            "allow-unknown-fields",
        ):
            result.notes.append(f"-{name}: no place for it in a request, left out")
    if request.grpc.import_paths and request.grpc.protos:
        base = request.grpc.import_paths[0]
        request.grpc.protos = [
            p if "/" in p or re.match(r"^[A-Za-z]:", p) else f"{base.rstrip('/')}/{p}"
            for p in request.grpc.protos
        ]
        result.notes.append(
            "protos and import_paths are relative to the collection: check they are there"
        )
    result.requests.append(("", request))
    return result
