"""gRPC servers on 127.0.0.1 for the tests (grpcio), built from ``GREETER_PROTO`` compiled at
test time with grpcio-tools (dynamic messages, no generated code).

``Greeter`` has every method kind and the hostile cases:

- ``SayHello`` (unary): ``Hello, NAME`` with ``n`` = ``count``; initial metadata
  ``x-greeted: NAME``, trailer ``x-trailer: done``.
- ``Metadata`` (unary): the metadata it got, as ``key=value`` lines in ``message``.
- ``Fail`` (unary): the status named by ``name`` (``NOT_FOUND``...) with details
  ``details of NAME`` and, for ``name = "ESCAPES"``, details holding terminal escapes.
- ``Count`` (server stream): ``n`` = 1..``count``.
- ``Sum`` (client stream): the sum and the count of the numbers sent.
- ``Echo`` (bidirectional): each number back, doubled, as it comes.
- ``Hang`` (unary): never answers (until the client's deadline).
- ``Huge`` (unary): a reply whose ``blob`` is ``count`` MB.
- ``Flood`` (server stream): ``count`` replies as fast as it can.
- ``BadUtf8`` (unary): a reply whose string field holds bytes that are not UTF-8, and
  binary metadata.

``serve(reflection=..., tls=...)`` starts one; ``hostile_reflection(mode)`` starts a server
whose reflection answers are made to hurt (``cyclic``, ``huge``, ``endless``); ``raw_server()``
speaks HTTP/2 itself (h2) to send metadata and status details grpcio refuses to send. Servers run in
grpc's own threads with a few workers, stop when their fixture ends, and stop by themselves
after ``LIFETIME`` seconds in any case.
"""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Iterator
from concurrent import futures
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

LIFETIME = 120.0  # seconds a test server lives at most
ESCAPED_DETAILS = "bad \x1b[31mred\x1b[0m \x07bell\r\nnext"

GREETER_PROTO = """\
syntax = "proto3";
package pigeon.test;

message Inner { string note = 1; }
message HelloRequest {
  string name = 1;
  int32 count = 2;
  int64 big = 3;
  Inner inner = 4;
  repeated string tags = 5;
}
message HelloReply {
  string message = 1;
  int32 n = 2;
  bytes blob = 3;
}
message Number { int32 n = 1; }
message Total { int32 sum = 1; int32 count = 2; }

service Greeter {
  rpc SayHello (HelloRequest) returns (HelloReply);
  rpc Metadata (HelloRequest) returns (HelloReply);
  rpc Fail (HelloRequest) returns (HelloReply);
  rpc Count (HelloRequest) returns (stream Number);
  rpc Sum (stream Number) returns (Total);
  rpc Echo (stream Number) returns (stream Number);
  rpc Hang (HelloRequest) returns (HelloReply);
  rpc Huge (HelloRequest) returns (HelloReply);
  rpc Flood (HelloRequest) returns (stream Number);
  rpc BadUtf8 (HelloRequest) returns (HelloReply);
}
"""


def compile_greeter(folder: Path) -> tuple[Path, bytes]:
    """Write ``protos/greeter.proto`` under ``folder`` and compile it (grpcio-tools, in this
    process): the file, and its serialized ``FileDescriptorSet``."""
    from grpc_tools import protoc

    protos = folder / "protos"
    protos.mkdir(parents=True, exist_ok=True)
    source = protos / "greeter.proto"
    source.write_text(GREETER_PROTO, encoding="utf-8")
    out = folder / "greeter.binpb"
    code = protoc.main(
        [
            "protoc",
            f"--descriptor_set_out={out}",
            "--include_imports",
            f"-I{protos}",
            "greeter.proto",
        ]
    )
    assert code == 0
    return source, out.read_bytes()


@dataclass
class Messages:
    pool: Any
    request: Any
    reply: Any
    number: Any
    total: Any


def _messages(descriptor_set: bytes) -> Messages:
    pool = descriptor_pool.DescriptorPool()
    for proto in descriptor_pb2.FileDescriptorSet.FromString(descriptor_set).file:
        pool.Add(proto)

    def cls(name: str) -> Any:
        return message_factory.GetMessageClass(pool.FindMessageTypeByName(f"pigeon.test.{name}"))

    return Messages(pool, cls("HelloRequest"), cls("HelloReply"), cls("Number"), cls("Total"))


class _Greeter:
    def __init__(self, m: Messages, stop: threading.Event) -> None:
        self.m = m
        self.stop = stop

    def SayHello(self, request: Any, context: Any) -> Any:
        context.send_initial_metadata((("x-greeted", request.name or "nobody"),))
        context.set_trailing_metadata((("x-trailer", "done"),))
        return self.m.reply(message=f"Hello, {request.name}", n=request.count)

    def Metadata(self, request: Any, context: Any) -> Any:
        lines = [
            f"{k}={v if isinstance(v, str) else v.hex()}"
            for k, v in context.invocation_metadata()
            if not k.startswith((":", "grpc-")) and k != "user-agent"
        ]
        return self.m.reply(message="\n".join(sorted(lines)))

    def Fail(self, request: Any, context: Any) -> Any:
        name = request.name or "INTERNAL"
        if name == "ESCAPES":
            context.abort(grpc.StatusCode.INVALID_ARGUMENT, ESCAPED_DETAILS)
        context.abort(getattr(grpc.StatusCode, name), f"details of {name}")

    def Count(self, request: Any, context: Any) -> Iterator[Any]:
        for i in range(request.count):
            yield self.m.number(n=i + 1)

    def Sum(self, requests: Iterator[Any], context: Any) -> Any:
        total = count = 0
        for number in requests:
            total += number.n
            count += 1
        return self.m.total(sum=total, count=count)

    def Echo(self, requests: Iterator[Any], context: Any) -> Iterator[Any]:
        for number in requests:
            yield self.m.number(n=number.n * 2)

    def Hang(self, request: Any, context: Any) -> Any:
        while context.is_active() and not self.stop.wait(0.05):
            pass
        return self.m.reply()

    def Huge(self, request: Any, context: Any) -> Any:
        return self.m.reply(message="huge", blob=b"x" * (request.count * 1024 * 1024))

    def Flood(self, request: Any, context: Any) -> Iterator[Any]:
        for i in range(request.count):
            if not context.is_active():
                return
            yield self.m.number(n=i + 1)

    def BadUtf8(self, request: Any, context: Any) -> bytes:
        context.send_initial_metadata((("x-raw-bin", b"\xff\xfe\x00\x1b"),))
        bad = b"ok \xff\xfe not utf-8"
        return b"\x0a" + bytes([len(bad)]) + bad + b"\x10\x07"  # message (bad), n = 7


_KINDS = {
    "SayHello": "unary",
    "Metadata": "unary",
    "Fail": "unary",
    "Count": "server",
    "Sum": "client",
    "Echo": "bidi",
    "Hang": "unary",
    "Huge": "unary",
    "Flood": "server",
    "BadUtf8": "unary",
}


def _greeter_handler(m: Messages, stop: threading.Event) -> Any:
    impl = _Greeter(m, stop)
    handlers = {}
    for name, kind in _KINDS.items():
        request = m.number if name in ("Sum", "Echo") else m.request
        serialize = (lambda b: b) if name == "BadUtf8" else (lambda msg: msg.SerializeToString())
        make = {
            "unary": grpc.unary_unary_rpc_method_handler,
            "server": grpc.unary_stream_rpc_method_handler,
            "client": grpc.stream_unary_rpc_method_handler,
            "bidi": grpc.stream_stream_rpc_method_handler,
        }[kind]
        handlers[name] = make(
            getattr(impl, name),
            request_deserializer=request.FromString,
            response_serializer=serialize,
        )
    return grpc.method_handlers_generic_handler("pigeon.test.Greeter", handlers)


@dataclass
class Server:
    """A running server: its port, address and (with TLS) the CA's PEM file."""

    port: int
    tls: bool
    ca_pem: Path | None
    server: Any
    stop_event: threading.Event

    @property
    def url(self) -> str:
        return f"{'grpcs' if self.tls else 'grpc'}://127.0.0.1:{self.port}"

    def stop(self) -> None:
        self.stop_event.set()
        self.server.stop(grace=None)


def _start(
    server: Any, port_of: Any, tls: Any, folder: Path | None, client_auth: bool = False
) -> tuple[int, Path | None]:
    ca_pem = None
    if tls is None:
        port = server.add_insecure_port("127.0.0.1:0")
    else:
        ca, cert = tls
        creds = grpc.ssl_server_credentials(
            [(cert.private_key_pem.bytes(), cert.cert_chain_pems[0].bytes())],
            root_certificates=ca.cert_pem.bytes() if client_auth else None,
            require_client_auth=client_auth,
        )
        port = server.add_secure_port("127.0.0.1:0", creds)
        assert folder is not None
        ca_pem = folder / "ca.pem"
        ca.cert_pem.write_to_path(str(ca_pem))
    server.start()
    return port, ca_pem


@contextlib.contextmanager
def serve(
    folder: Path, *, reflection: bool = True, tls: bool = False, client_auth: bool = False
) -> Iterator[Server]:
    """The Greeter on a free loopback port (with reflection, over TLS with a trustme CA if
    asked, requiring a client certificate of that CA with ``client_auth``: its files are
    ``client.pem`` and ``client.key`` beside ``ca.pem``); stopped when the block ends, or
    after ``LIFETIME`` seconds."""
    _, descriptor_set = compile_greeter(folder)
    m = _messages(descriptor_set)
    stop = threading.Event()
    server = grpc.server(
        futures.ThreadPoolExecutor(max_workers=8),
        maximum_concurrent_rpcs=32,
        options=[("grpc.max_send_message_length", 200 * 1024 * 1024)],
    )
    server.add_generic_rpc_handlers((_greeter_handler(m, stop),))
    if reflection:
        from grpc_reflection.v1alpha import reflection as refl

        refl.enable_server_reflection(
            ("pigeon.test.Greeter", refl.SERVICE_NAME), server, pool=m.pool
        )
    material = None
    if tls:
        import trustme

        ca = trustme.CA()
        material = (ca, ca.issue_cert("127.0.0.1", "localhost"))
        client = ca.issue_cert("client@example.com")
        client.cert_chain_pems[0].write_to_path(str(folder / "client.pem"))
        client.private_key_pem.write_to_path(str(folder / "client.key"))
    port, ca_pem = _start(server, None, material, folder, client_auth)
    running = Server(port, tls, ca_pem, server, stop)
    timer = threading.Timer(LIFETIME, running.stop)
    timer.daemon = True
    timer.start()
    try:
        yield running
    finally:
        timer.cancel()
        running.stop()


# -- a reflection service made to hurt ----------------------------------------------------------


def _file(name: str, deps: list[str], service: bool, padding: int = 0) -> bytes:
    proto = descriptor_pb2.FileDescriptorProto(name=name, package="evil", syntax="proto3")
    proto.dependency.extend(deps)
    message = proto.message_type.add(name=f"M{abs(hash(name)) % 10**8}")
    if padding:
        message.field.add(name="f", number=1, type=9, label=1, json_name="x" * padding)
    if service:
        svc = proto.service.add(name="Evil")
        method = svc.method.add(name="Call")
        method.input_type = method.output_type = f".evil.{message.name}"
    return proto.SerializeToString()


def _hostile_answers(mode: str, request: Any) -> list[bytes]:
    """The descriptor files a hostile reflection answers ``request`` with."""
    which = request.WhichOneof("message_request")
    if mode == "cyclic":
        if which == "file_containing_symbol" or request.file_by_filename == "a.proto":
            return [_file("a.proto", ["b.proto"], True)]
        return [_file("b.proto", ["a.proto"], False)]
    if mode == "huge":
        return [_file("a.proto", [], True, padding=20 * 1024 * 1024)]
    # endless: every file imports a new one
    name = "f0.proto" if which == "file_containing_symbol" else request.file_by_filename
    n = int(name[1:].split(".")[0])
    return [_file(name, [f"f{n + 1}.proto"], which == "file_containing_symbol")]


@contextlib.contextmanager
def hostile_reflection(mode: str) -> Iterator[Server]:
    """A server whose only service is reflection, answering as ``mode`` says: ``cyclic``
    (two files importing each other), ``huge`` (one answer of 20 MB), ``endless`` (each file
    imports one more)."""
    from grpc_reflection.v1alpha import reflection_pb2 as pb

    def info(requests: Iterator[Any], context: Any) -> Iterator[Any]:
        for request in requests:
            answer = pb.ServerReflectionResponse(original_request=request)
            answer.file_descriptor_response.file_descriptor_proto.extend(
                _hostile_answers(mode, request)
            )
            yield answer

    handler = grpc.method_handlers_generic_handler(
        "grpc.reflection.v1alpha.ServerReflection",
        {
            "ServerReflectionInfo": grpc.stream_stream_rpc_method_handler(
                info,
                request_deserializer=pb.ServerReflectionRequest.FromString,
                response_serializer=pb.ServerReflectionResponse.SerializeToString,
            )
        },
    )
    server = grpc.server(
        futures.ThreadPoolExecutor(max_workers=4),
        options=[("grpc.max_send_message_length", 64 * 1024 * 1024)],
    )
    server.add_generic_rpc_handlers((handler,))
    port, _ = _start(server, None, None, None)
    running = Server(port, False, None, server, threading.Event())
    timer = threading.Timer(LIFETIME, running.stop)
    timer.daemon = True
    timer.start()
    try:
        yield running
    finally:
        timer.cancel()
        running.stop()


def wait_until(check: Any, limit: float = 10.0) -> bool:
    """Poll ``check`` until it is true or ``limit`` seconds passed (setup only, never an
    assertion on time)."""
    end = time.monotonic() + limit
    while time.monotonic() < end:
        if check():
            return True
        time.sleep(0.01)
    return bool(check())


# -- a server written by hand, on HTTP/2 itself (h2): what grpcio will not send ----------------


def _raw_connection(sock: socket.socket, stop: threading.Event) -> None:
    """Answer every call on one connection with a reply ``message = "ok"``, initial metadata
    and trailers that are not UTF-8 (and hold an escape), and status 3 whose details hold
    control characters and a byte that is not UTF-8."""
    import h2.config
    import h2.connection
    import h2.events

    config = h2.config.H2Configuration(
        client_side=False,
        header_encoding=None,
        validate_outbound_headers=False,
        normalize_outbound_headers=False,
        validate_inbound_headers=False,
    )
    conn = h2.connection.H2Connection(config=config)
    conn.initiate_connection()
    sock.settimeout(0.2)
    with sock:
        sock.sendall(conn.data_to_send())
        while not stop.is_set():
            try:
                data = sock.recv(65535)
            except TimeoutError:
                continue
            except OSError:
                return
            if not data:
                return
            for event in conn.receive_data(data):
                if isinstance(event, h2.events.DataReceived):
                    conn.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
                elif isinstance(event, h2.events.StreamEnded):
                    stream = event.stream_id
                    conn.send_headers(
                        stream,
                        [
                            (b":status", b"200"),
                            (b"content-type", b"application/grpc"),
                            (b"x-bad", b"caf\xe9 \xff\x1b[31m"),
                        ],
                    )
                    reply = b"\x0a\x02ok"  # HelloReply { message: "ok" }
                    conn.send_data(stream, b"\x00" + len(reply).to_bytes(4, "big") + reply)
                    conn.send_headers(
                        stream,
                        [
                            (b"grpc-status", b"3"),
                            (b"grpc-message", b"bad%1B%5B31mred%07%FF"),
                            (b"x-bad-trailer", b"\xff\xfe"),
                        ],
                        end_stream=True,
                    )
            sock.sendall(conn.data_to_send())


@contextlib.contextmanager
def raw_server() -> Iterator[Server]:
    """``_raw_connection`` for each connection, on a free loopback port; stopped when the
    block ends, or after ``LIFETIME`` seconds."""
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(0.2)
    stop = threading.Event()

    def accept() -> None:
        with listener:
            while not stop.is_set():
                try:
                    sock, _ = listener.accept()
                except TimeoutError:
                    continue
                except OSError:
                    return
                threading.Thread(target=_raw_connection, args=(sock, stop), daemon=True).start()

    class _Stopper:
        def stop(self, grace: Any = None) -> None:
            stop.set()

    threading.Thread(target=accept, daemon=True).start()
    running = Server(listener.getsockname()[1], False, None, _Stopper(), stop)
    timer = threading.Timer(LIFETIME, running.stop)
    timer.daemon = True
    timer.start()
    try:
        yield running
    finally:
        timer.cancel()
        running.stop()
