"""What a gRPC call's messages look like (DESIGN §10): descriptors compiled from ``.proto``
files in-process (grpcio-tools' protoc, no ``protoc`` on PATH), or fetched by server
reflection and cached in ``.pigeon/grpc/``; JSON to a message and back.

Descriptors come from outside (a server, a cached file a repository ships), so everything
about them is bounded: at most ``MAX_FILES`` files and ``MAX_BYTES`` bytes together, files
that import each other in a circle refused with their names, a cache file read capped and
never through a link. A set that does not build is a ``GrpcError`` in one line.
"""

from __future__ import annotations

import base64
import difflib
import hashlib
import importlib.resources
import json
import os
import tempfile
from collections.abc import Iterable, Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from pigeon.files import LinkedOut, atomic_write, private_dir, read_capped
from pigeon.rpc import GrpcError, split_rpc

MAX_FILES = 1000  # descriptor files one set may hold (a service and all it imports)
MAX_BYTES = 16 * 1024 * 1024  # their bytes together
CACHE_DIR = "grpc"
KINDS = {  # (client streaming, server streaming) -> the method's kind
    (False, False): "unary",
    (False, True): "server stream",
    (True, False): "client stream",
    (True, True): "bidirectional",
}

# The well-known types protobuf ships: a set that imports one without holding it finds it here.
_WELL_KNOWN = (
    "any_pb2",
    "api_pb2",
    "duration_pb2",
    "empty_pb2",
    "field_mask_pb2",
    "source_context_pb2",
    "struct_pb2",
    "timestamp_pb2",
    "type_pb2",
    "wrappers_pb2",
)


def _well_known(name: str) -> bytes | None:
    """The serialized descriptor of a well-known ``google/protobuf/*.proto``, or ``None``."""
    if not name.startswith("google/protobuf/"):
        return None
    import importlib

    from google.protobuf import descriptor_pb2, descriptor_pool

    for module in _WELL_KNOWN:
        importlib.import_module(f"google.protobuf.{module}")
    try:
        found = descriptor_pool.Default().FindFileByName(name)
    except KeyError:
        return None
    proto = descriptor_pb2.FileDescriptorProto()
    found.CopyToProto(proto)
    data: bytes = proto.SerializeToString()
    return data


class Descriptors:
    """A set of descriptor files built into a pool: the services, methods and messages a call
    and ``pigeon check`` look up. Built once per set; lookups are cheap."""

    def __init__(self, files: Sequence[bytes]) -> None:
        from google.protobuf import descriptor_pb2, descriptor_pool

        if len(files) > MAX_FILES:
            raise GrpcError(f"the descriptors hold {len(files)} files (at most {MAX_FILES})")
        if sum(map(len, files)) > MAX_BYTES:
            raise GrpcError(f"the descriptors are larger than {MAX_BYTES // 2**20} MiB")
        protos: dict[str, Any] = {}
        for data in files:
            proto = descriptor_pb2.FileDescriptorProto()
            try:
                proto.ParseFromString(data)
            except Exception:
                raise GrpcError("a descriptor file does not parse") from None
            protos.setdefault(proto.name, (proto, data))
        self.files: list[bytes] = []
        self.pool = descriptor_pool.DescriptorPool()
        for name in _in_import_order(protos):
            proto, data = protos[name]
            try:
                self.pool.Add(proto)
            except Exception as exc:
                raise GrpcError(f"descriptor {name!r} does not build: {_one_line(exc)}") from None
            self.files.append(data)
        self._classes: dict[str, Any] = {}

    # -- lookups ----------------------------------------------------------------------------

    def services(self) -> list[Any]:
        """Every service the set describes, by full name."""
        found = []
        for data in self.files:
            from google.protobuf import descriptor_pb2

            proto = descriptor_pb2.FileDescriptorProto.FromString(data)
            for service in proto.service:
                full = f"{proto.package}.{service.name}" if proto.package else service.name
                found.append(self.pool.FindServiceByName(full))
        return sorted(found, key=lambda s: s.full_name)

    def method(self, rpc: str) -> Any:
        """The method ``rpc`` names; ``GrpcError`` (with a near name, if any) when there is
        none."""
        service_name, method_name = split_rpc(rpc)
        try:
            service = self.pool.FindServiceByName(service_name)
        except KeyError:
            names = [s.full_name for s in self.services()]
            raise GrpcError(f"no service {service_name!r}{_near(service_name, names)}") from None
        method = service.methods_by_name.get(method_name)
        if method is None:
            names = list(service.methods_by_name)
            raise GrpcError(
                f"service {service_name} has no method {method_name!r}{_near(method_name, names)}"
            )
        return method

    def message_class(self, descriptor: Any) -> Any:
        """The Python class of a message type (made once per type)."""
        cls = self._classes.get(descriptor.full_name)
        if cls is None:
            from google.protobuf import message_factory

            cls = self._classes[descriptor.full_name] = message_factory.GetMessageClass(descriptor)
        return cls

    # -- messages ---------------------------------------------------------------------------

    def encode(self, descriptor: Any, text: str | None) -> bytes:
        """A message from its JSON text (protobuf's JSON mapping; empty: the empty message);
        ``GrpcError`` naming the type when the text is not one."""
        from google.protobuf import json_format

        message = self.message_class(descriptor)()
        if text is not None and text.strip():
            try:
                json_format.Parse(text, message, descriptor_pool=self.pool)
            except json_format.ParseError as exc:
                raise GrpcError(
                    f"the message is not a {descriptor.full_name}: {_one_line(exc)}"
                ) from None
            except RecursionError:
                raise GrpcError("the message nests too deeply") from None
        data: bytes = message.SerializeToString()
        return data

    def decode(self, descriptor: Any, data: bytes) -> Any:
        """A reply as JSON values (protobuf's JSON mapping); ``ValueError`` saying why not."""
        from google.protobuf import json_format

        message = self.message_class(descriptor)()
        try:
            message.ParseFromString(data)
            return json_format.MessageToDict(message, descriptor_pool=self.pool)
        except RecursionError:
            raise ValueError("it nests too deeply") from None
        except Exception as exc:  # DecodeError (bad UTF-8 in a string field...), TypeError
            raise ValueError(_one_line(exc) or type(exc).__name__) from None

    def fields(self, descriptor: Any) -> list[tuple[str, str]]:
        """A message type's fields: their JSON names and types, in field-number order."""
        ordered = sorted(descriptor.fields, key=lambda f: f.number)
        return [(f.json_name, _field_type(f)) for f in ordered]

    def unknown_fields(self, descriptor: Any, value: Any) -> list[str]:
        """The keys of a message's JSON that its type has no field for, as JSON paths
        (``$.user.nmae``, with a near name); ``[]`` when all are known."""
        out: list[str] = []
        _walk_fields(descriptor, value, "$", out, 0)
        return out

    # -- description ------------------------------------------------------------------------

    def describe(self) -> list[str]:
        """Services, their methods (kind, input and output types), then each message type
        they use with its fields: the text ``pigeon grpc-describe`` prints."""
        lines: list[str] = []
        used: dict[str, Any] = {}
        for service in self.services():
            lines.append(f"service {service.full_name}")
            for method in service.methods:
                kind = KINDS[(method.client_streaming, method.server_streaming)]
                lines.append(
                    f"  {method.name}({method.input_type.full_name}) returns "
                    f"({method.output_type.full_name})  {kind}"
                )
                for message in (method.input_type, method.output_type):
                    _collect(message, used)
        for name in sorted(used):
            message = used[name]
            lines.append(f"message {name}")
            for f in message.fields:
                lines.append(f"  {_field_type(f)} {f.name} = {f.number}")
        return lines


def _in_import_order(protos: dict[str, tuple[Any, bytes]]) -> list[str]:
    """The files, each after those it imports (an import the set lacks is taken from the
    well-known types, else refused); files importing each other in a circle are refused."""
    order: list[str] = []
    state: dict[str, int] = {}  # 1: on the way, 2: done
    for start in list(protos):
        if state.get(start) == 2:
            continue
        path = [start]
        stack = [(start, iter(protos[start][0].dependency))]
        state[start] = 1
        while stack:
            name, deps = stack[-1]
            dep = next(deps, None)
            if dep is None:
                stack.pop()
                path.pop()
                state[name] = 2
                order.append(name)
                continue
            if state.get(dep) == 2:
                continue
            if state.get(dep) == 1:
                circle = " -> ".join([*path[path.index(dep) :], dep])
                raise GrpcError(f"the descriptors import each other in a circle: {circle}")
            if dep not in protos:
                data = _well_known(dep)
                if data is None:
                    raise GrpcError(f"descriptor {name!r} imports {dep!r}, which is missing")
                from google.protobuf import descriptor_pb2

                protos[dep] = (descriptor_pb2.FileDescriptorProto.FromString(data), data)
            if len(protos) > MAX_FILES:
                raise GrpcError(f"the descriptors hold more than {MAX_FILES} files")
            state[dep] = 1
            path.append(dep)
            stack.append((dep, iter(protos[dep][0].dependency)))
    return order


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split())[:300]


def _near(name: str, names: Iterable[str]) -> str:
    close = difflib.get_close_matches(name, list(names), n=1)
    return f" (did you mean {close[0]}?)" if close else ""


def _collect(message: Any, into: dict[str, Any]) -> None:
    """``message`` and the message types its fields use, each once (iterative: a type may
    hold itself)."""
    todo = [message]
    while todo:
        current = todo.pop()
        if current.full_name in into or current.GetOptions().map_entry:
            if current.GetOptions().map_entry:
                todo += [f.message_type for f in current.fields if f.message_type is not None]
            continue
        into[current.full_name] = current
        todo += [f.message_type for f in current.fields if f.message_type is not None]


_TYPE_NAMES = {
    1: "double", 2: "float", 3: "int64", 4: "uint64", 5: "int32", 6: "fixed64", 7: "fixed32",
    8: "bool", 9: "string", 12: "bytes", 13: "uint32", 15: "sfixed32", 16: "sfixed64",
    17: "sint32", 18: "sint64",
}  # fmt: skip


def _field_type(f: Any) -> str:
    if f.message_type is not None and f.message_type.GetOptions().map_entry:
        key, value = f.message_type.fields_by_name["key"], f.message_type.fields_by_name["value"]
        return f"map<{_field_type(key)}, {_field_type(value)}>"
    if f.message_type is not None:
        name = f.message_type.full_name
    elif f.enum_type is not None:
        name = f.enum_type.full_name
    else:
        name = _TYPE_NAMES.get(f.type, "?")
    repeated = getattr(f, "is_repeated", None)
    if repeated is None:
        repeated = f.label == 3
    return f"repeated {name}" if repeated else name


_OPAQUE = (  # message types whose JSON is not an object of their fields
    "google.protobuf.Any",
    "google.protobuf.Struct",
    "google.protobuf.Value",
    "google.protobuf.ListValue",
    "google.protobuf.Timestamp",
    "google.protobuf.Duration",
    "google.protobuf.FieldMask",
)


def _walk_fields(descriptor: Any, value: Any, path: str, out: list[str], depth: int) -> None:
    if depth > 64 or not isinstance(value, dict) or descriptor.full_name in _OPAQUE:
        return
    if descriptor.full_name.startswith("google.protobuf.") and descriptor.full_name.endswith(
        "Value"
    ):
        return  # wrappers: their JSON is the bare value
    by_name = {}
    for f in descriptor.fields:
        by_name[f.name] = f
        by_name[f.json_name] = f
    for key, item in value.items():
        f = by_name.get(key)
        if f is None:
            out.append(f"{path}.{key}{_near(key, [g.json_name for g in descriptor.fields])}")
            continue
        sub = f.message_type
        if sub is None:
            continue
        if sub.GetOptions().map_entry:
            inner = sub.fields_by_name["value"].message_type
            if inner is not None and isinstance(item, dict):
                for k, v in item.items():
                    _walk_fields(inner, v, f"{path}.{key}[{k!r}]", out, depth + 1)
        elif isinstance(item, list):
            for i, v in enumerate(item):
                _walk_fields(sub, v, f"{path}.{key}[{i}]", out, depth + 1)
        else:
            _walk_fields(sub, item, f"{path}.{key}", out, depth + 1)


# -- .proto files, compiled in-process --------------------------------------------------------


def compile_protos(files: Sequence[Path], import_dirs: Sequence[Path], root: Path) -> list[bytes]:
    """The descriptor files of ``files`` and everything they import, compiled with
    grpcio-tools' protoc in this process. A file is named relative to the first import folder
    holding it (else the collection); ``GrpcError`` with protoc's first error otherwise."""
    try:
        from grpc_tools import _protoc_compiler
    except ImportError:
        from pigeon.rpc import INSTALL_HINT

        raise GrpcError(INSTALL_HINT) from None
    from google.protobuf import descriptor_pb2

    include = [*import_dirs, root]
    bundled = str(importlib.resources.files("grpc_tools") / "_proto")
    names = []
    for path in files:
        if not path.is_file():
            raise GrpcError(f"protos: {path} is not a file")
        names.append(_relative(path, include))
    includes = [os.fsencode(p) for p in include] + [os.fsencode(bundled)]
    for name in names:  # protoc's errors as an exception, not on stderr
        try:
            _protoc_compiler.get_protos(os.fsencode(name), includes)
        except _protoc_compiler.ProtocErrors as exc:
            first = exc.errors()[0]
            where = os.fsdecode(first.filename)
            if first.line >= 0:
                where += f":{first.line + 1}:{first.column + 1}"
            raise GrpcError(f"{where}: {first.message.decode('utf-8', 'replace')}") from None
    with tempfile.TemporaryDirectory(prefix="pigeon-protos-") as tmp:
        out = Path(tmp) / "set.binpb"
        args = [
            b"protoc",
            b"--descriptor_set_out=" + os.fsencode(out),
            b"--include_imports",
            *(b"-I" + p for p in includes),
            *(os.fsencode(n) for n in names),
        ]
        if _protoc_compiler.run_main(args) != 0 or not out.is_file():
            raise GrpcError(f"protoc could not compile {', '.join(names)}")
        data = read_capped(out, MAX_BYTES)
    fds = descriptor_pb2.FileDescriptorSet.FromString(data)
    return [f.SerializeToString() for f in fds.file]


def _relative(path: Path, include: Sequence[Path]) -> str:
    real = os.path.realpath(path)
    for folder in include:
        base = os.path.realpath(folder)
        if real.startswith(base.rstrip(os.sep) + os.sep):
            return Path(os.path.relpath(real, base)).as_posix()
    raise GrpcError(f"protos: {path} is in none of the import paths, nor the collection")


# -- the cache of what reflection answered ----------------------------------------------------


def cache_path(root: Path, target: str, create: bool = False) -> Path:
    name = hashlib.sha256(target.encode("utf-8")).hexdigest()[:32] + ".json"
    return private_dir(root, CACHE_DIR, create=create) / name


def save(root: Path, target: str, files: Sequence[bytes]) -> Path:
    """Cache the descriptor files reflection gave for ``target`` (``grpc://host:port``);
    ``GrpcError`` when it cannot be written (a ``.pigeon/`` that links out, a read-only
    folder)."""
    record = {
        "target": target,
        "fetched": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "files": [base64.b64encode(f).decode("ascii") for f in files],
    }
    try:
        path = cache_path(root, target, create=True)
        atomic_write(path, json.dumps(record), durable=False)
    except (OSError, LinkedOut) as exc:
        raise GrpcError(f"the descriptors could not be cached: {exc}") from None
    return path


def load(root: Path, target: str) -> list[bytes] | None:
    """The descriptor files cached for ``target``, or ``None`` (none, a link, too large,
    unreadable: a cache file is never trusted to be well-formed)."""
    try:
        path = cache_path(root, target)
        if path.is_symlink() or not path.is_file():
            return None
        record = json.loads(read_capped(path, MAX_BYTES * 2))
        if not isinstance(record, dict) or record.get("target") != target:
            return None
        files = record.get("files")
        if not isinstance(files, list) or len(files) > MAX_FILES:
            return None
        return [base64.b64decode(f, validate=True) for f in files if isinstance(f, str)]
    except (OSError, LinkedOut, ValueError, RecursionError):
        return None
