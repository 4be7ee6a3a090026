"""gRPC's core pieces (DESIGN §10): the server a URL names, the method an ``rpc`` names,
descriptors built (bounded, circles refused), described and checked, metadata as sent."""

from __future__ import annotations

from pathlib import Path

import pytest
from google.protobuf import descriptor_pb2

from grpc_servers import compile_greeter
from pigeon.rpc import GrpcError, Target, split_rpc, status_name, target_of
from pigeon.rpc.call import metadata_of, metadata_text
from pigeon.rpc.descriptors import Descriptors, compile_protos


@pytest.mark.parametrize(
    ("url", "target"),
    [
        ("grpc://127.0.0.1:50051", Target("127.0.0.1", 50051, False)),
        ("grpcs://api.example:8443", Target("api.example", 8443, True)),
        ("GRPCS://api.example", Target("api.example", 443, True)),
        ("https://api.example", Target("api.example", 443, True)),
        ("localhost:9000", Target("localhost", 9000, False)),
        ("grpc://[::1]:7", Target("::1", 7, False)),
    ],
)
def test_a_url_names_the_server_and_whether_tls(url: str, target: Target) -> None:
    assert target_of(url) == target


def test_an_ipv6_target_is_written_in_brackets() -> None:
    assert Target("::1", 7, False).address == "[::1]:7"


@pytest.mark.parametrize(
    ("url", "said"),
    [
        ("grpc://h:1/pkg.S/M", "the method goes in rpc"),
        ("ftp://h:1", "starts grpc://"),
        ("grpc://:1", "names no host"),
        ("grpc://h:99999", "not a gRPC server address"),
    ],
)
def test_a_url_that_names_no_server_says_why(url: str, said: str) -> None:
    with pytest.raises(GrpcError, match=said):
        target_of(url)


@pytest.mark.parametrize("rpc", ["pkg.Service/Method", "/pkg.Service/Method", "pkg.Service.Method"])
def test_an_rpc_names_service_and_method(rpc: str) -> None:
    assert split_rpc(rpc) == ("pkg.Service", "Method")


@pytest.mark.parametrize("rpc", ["", "Method", "/M", "a/b/c"])
def test_an_rpc_that_names_no_method_is_refused(rpc: str) -> None:
    with pytest.raises(GrpcError, match="package.Service/Method"):
        split_rpc(rpc)


def test_status_names() -> None:
    assert [status_name(c) for c in (0, 5, 16, 42, None)] == [
        "OK", "NOT_FOUND", "UNAUTHENTICATED", "CODE_42", ""
    ]  # fmt: skip


@pytest.fixture
def greeter(tmp_path: Path) -> Descriptors:
    source, _ = compile_greeter(tmp_path)
    return Descriptors(compile_protos([source], [source.parent], tmp_path))


def test_protos_compile_in_process_and_describe_every_method_kind(greeter: Descriptors) -> None:
    lines = greeter.describe()
    assert lines[0] == "service pigeon.test.Greeter"
    text = "\n".join(lines)
    assert "  SayHello(pigeon.test.HelloRequest) returns (pigeon.test.HelloReply)  unary" in text
    assert "Count(pigeon.test.HelloRequest) returns (pigeon.test.Number)  server stream" in text
    assert "Sum(pigeon.test.Number) returns (pigeon.test.Total)  client stream" in text
    assert "Echo(pigeon.test.Number) returns (pigeon.test.Number)  bidirectional" in text
    assert "message pigeon.test.HelloRequest" in lines
    assert "  repeated string tags = 5" in lines and "  pigeon.test.Inner inner = 4" in lines


def test_a_method_not_there_is_named_with_a_near_one(greeter: Descriptors) -> None:
    with pytest.raises(GrpcError, match=r"no method 'SayHelo' \(did you mean SayHello\?\)"):
        greeter.method("pigeon.test.Greeter/SayHelo")
    with pytest.raises(GrpcError, match=r"no service 'pigeon.test.Greeterr' \(did you mean"):
        greeter.method("pigeon.test.Greeterr/SayHello")


def test_messages_go_to_json_and_back_and_unknown_fields_are_found(
    greeter: Descriptors,
) -> None:
    method = greeter.method("pigeon.test.Greeter/SayHello")
    data = greeter.encode(method.input_type, '{"name": "Ada", "big": "9007199254740993"}')
    assert greeter.decode(method.input_type, data) == {"name": "Ada", "big": "9007199254740993"}
    with pytest.raises(GrpcError, match="not a pigeon.test.HelloRequest"):
        greeter.encode(method.input_type, '{"nmae": "Ada"}')
    value = {"nmae": 1, "inner": {"nots": 2}, "tags": ["a"]}
    assert greeter.unknown_fields(method.input_type, value) == [
        "$.nmae (did you mean name?)",
        "$.inner.nots (did you mean note?)",
    ]


def test_bad_utf8_in_a_reply_is_a_value_error_not_a_crash(greeter: Descriptors) -> None:
    method = greeter.method("pigeon.test.Greeter/SayHello")
    with pytest.raises(ValueError):
        greeter.decode(method.output_type, b"\x0a\x02\xff\xfe")


def _file(name: str, deps: list[str]) -> bytes:
    proto = descriptor_pb2.FileDescriptorProto(name=name, package="p", syntax="proto3")
    proto.dependency.extend(deps)
    return proto.SerializeToString()


def test_files_importing_each_other_in_a_circle_are_refused() -> None:
    with pytest.raises(GrpcError, match="a.proto -> b.proto -> c.proto -> a.proto"):
        Descriptors([_file("a.proto", ["b.proto"]), _file("b.proto", ["c.proto"]),
                     _file("c.proto", ["a.proto"])])  # fmt: skip


def test_a_missing_import_is_named_and_well_known_types_are_found() -> None:
    with pytest.raises(GrpcError, match="imports 'gone.proto', which is missing"):
        Descriptors([_file("a.proto", ["gone.proto"])])
    assert Descriptors([_file("a.proto", ["google/protobuf/empty.proto"])]).files


def test_a_thousand_files_deep_build_and_one_more_is_refused() -> None:
    chain = [_file(f"f{i}.proto", [f"f{i + 1}.proto"]) for i in range(999)]
    assert len(Descriptors([*chain, _file("f999.proto", [])]).files) == 1000
    with pytest.raises(GrpcError, match="at most 1000"):
        Descriptors([*chain, _file("f999.proto", []), _file("x.proto", [])])


def test_metadata_is_lowercased_and_what_grpc_sets_is_left_out() -> None:
    sent, left = metadata_of(
        [("X-Token", "a"), ("Content-Type", "application/json"), ("TE", "x"), ("k-bin", "AAE=")]
    )
    assert sent == [("x-token", "a"), ("k-bin", b"\x00\x01")]
    assert left == ["metadata 'TE' is set by gRPC itself: not sent"]
    assert metadata_text([("k-bin", b"\xff"), ("a", "b")]) == [("k-bin", "/w=="), ("a", "b")]


@pytest.mark.parametrize(
    ("header", "said"),
    [
        (("x-a", "café"), "a value is printable ASCII"),
        (("x-a", "line\x1bbreak"), "a value is printable ASCII"),
        (("x a", "v"), "a name is letters"),
    ],
)
def test_metadata_grpc_cannot_send_is_refused_before_the_call(
    header: tuple[str, str], said: str
) -> None:
    with pytest.raises(GrpcError, match=said):
        metadata_of([header])
    assert metadata_of([("x-a-bin", "café")])[0] == [("x-a-bin", "café".encode())]


def test_the_descriptor_cache_round_trips_and_is_never_read_or_written_through_a_link(
    tmp_path: Path,
) -> None:
    from pigeon.rpc import descriptors as d

    files = [_file("a.proto", [])]
    path = d.save(tmp_path, "grpc://h:1", files)
    assert d.load(tmp_path, "grpc://h:1") == files
    assert d.load(tmp_path, "grpc://other:1") is None
    path.write_text('{"target": "grpc://h:1", "files": ["not base64!"]}', encoding="utf-8")
    assert d.load(tmp_path, "grpc://h:1") is None  # a hostile cache is none
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    linked = tmp_path / "linked"
    linked.mkdir()
    (linked / ".pigeon").symlink_to(elsewhere, target_is_directory=True)
    with pytest.raises(GrpcError, match="could not be cached"):
        d.save(linked, "grpc://h:1", files)
    assert list(elsewhere.iterdir()) == []


def test_a_channel_takes_the_collections_http_proxy_and_refuses_others() -> None:
    from pigeon.render import RenderedRequest
    from pigeon.rpc.channels import _options
    from pigeon.transport import TransportSpec

    target = Target("api.example", 50051, False)
    spec = TransportSpec(proxy="http://proxy.local:3128", trust_env=False)
    options, tls = _options(
        RenderedRequest("GRPC", "grpc://api.example:50051", transport=spec), target
    )
    assert ("grpc.http_proxy", "http://proxy.local:3128") in options
    assert ("grpc.enable_http_proxy", 0) in options and tls is None
    socks = TransportSpec(proxy="socks5://proxy.local:1080")
    with pytest.raises(GrpcError, match="http:// proxies only"):
        _options(RenderedRequest("GRPC", "grpc://api.example:50051", transport=socks), target)
    skipped = TransportSpec(proxy="http://proxy.local:3128", no_proxy=("api.example",))
    options, _ = _options(RenderedRequest("GRPC", "x", transport=skipped), target)
    assert not any(name == "grpc.http_proxy" for name, _ in options)


def test_two_calls_compare_their_status_details_and_trailers_too() -> None:
    from pigeon.exchange import Exchange, GrpcFacts
    from pigeon.render import RenderedRequest
    from pigeon.response_diff import compare, side_of

    def call(code: int, name: str, details: str, trailer: str) -> Exchange:
        exchange = Exchange(RenderedRequest("GRPC", "grpc://h:1"), status=code, reason=name)
        exchange.grpc = GrpcFacts("a.B/C", "unary", details, [("x-t", trailer)])
        return exchange

    diff = compare(
        side_of(call(0, "OK", "", "1"), "a"), side_of(call(5, "NOT_FOUND", "gone", "2"), "b")
    )
    added = [row.right for row in diff.unified if row.kind == "change" and row.right]
    assert added == ["5 NOT_FOUND: gone", "trailer x-t: 2"]
