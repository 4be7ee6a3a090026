"""A gRPC request's keys on disk (DESIGN §2, §10): ``type = "grpc"`` or a ``grpc://`` URL,
``rpc``, ``protos``, ``import_paths`` and ``[[messages]]`` read into the model, an unchanged
save byte-identical, a change a diff of its own lines, a new file in the readable layout."""

from __future__ import annotations

from pathlib import Path

import pytest

from collection_files import write
from pigeon.model import Message, Request
from pigeon.store import load_collection, save_request
from pigeon.store.read import request_from_toml
from pigeon.store.write import request_data
from pigeon.tomlwrite import dumps

SAY_HELLO = """\
name = "Say hello"
type = "grpc"
url = "grpc://{{host}}:50051"           # grpcs:// uses the collection's CA
rpc = "bar.Greeter/SayHello"            # package.Service/Method
protos = ["protos/greeter.proto"]       # optional; without it, server reflection
import_paths = ["protos"]

[[headers]]                             # request metadata
name = "x-token"
value = "{{token}}"

[body]                                  # the request message, protobuf's JSON mapping
type = "json"
content = '''{"name": "{{user.name}}"}'''

[[messages]]                            # client and bidirectional streams: sent in order
body = '{"n": {{n}}}'
"""


def test_a_grpc_request_reads_its_keys() -> None:
    request = request_from_toml(SAY_HELLO)
    assert request.kind == "grpc" and request.type == "grpc"
    assert request.grpc.rpc == "bar.Greeter/SayHello"
    assert request.grpc.protos == ["protos/greeter.proto"]
    assert request.grpc.import_paths == ["protos"]
    assert request.messages == [Message(name="", body='{"n": {{n}}}')]
    assert request.extra == {}


@pytest.mark.parametrize("url", ["grpc://h:1", "grpcs://h:1", "  GRPCS://h:1"])
def test_a_grpc_url_makes_a_grpc_request_without_a_type(url: str) -> None:
    assert Request("r", url=url).kind == "grpc"
    assert Request("r", url="https://h").kind == "http"


def test_an_unchanged_save_is_byte_identical(tmp_path: Path) -> None:
    write(tmp_path, "collection.toml", 'name = "c"\n')
    path = write(tmp_path, "hello.toml", SAY_HELLO)
    (request,) = load_collection(tmp_path).requests()
    save_request(request)
    assert path.read_text(encoding="utf-8") == SAY_HELLO


def test_changing_the_rpc_changes_only_its_line(tmp_path: Path) -> None:
    write(tmp_path, "collection.toml", 'name = "c"\n')
    path = write(tmp_path, "hello.toml", SAY_HELLO)
    (request,) = load_collection(tmp_path).requests()
    request.grpc.rpc = "bar.Greeter/SayBye"
    save_request(request)
    assert path.read_text(encoding="utf-8") == SAY_HELLO.replace(
        '"bar.Greeter/SayHello"', '"bar.Greeter/SayBye"'
    )


def test_a_new_grpc_file_leaves_out_the_method_and_nameless_message_names() -> None:
    request = Request("Sum", type="grpc", url="grpc://localhost:50051")
    request.grpc.rpc = "calc.Calc/Sum"
    request.messages.append(Message(name="", body='{"n": 1}'))
    text = dumps(request_data(request))
    assert "method" not in text
    assert text.startswith('name = "Sum"\ntype = "grpc"\nurl = "grpc://localhost:50051"\n')
    assert 'rpc = "calc.Calc/Sum"' in text
    assert "[[messages]]\nbody = " in text and 'name = ""' not in text
    again = request_from_toml(text)
    assert again.grpc == request.grpc and again.messages == request.messages


@pytest.mark.parametrize(
    ("line", "said"),
    [
        ('protos = "one.proto"', "expected an array of paths"),
        ("import_paths = [1]", "expected an array of paths"),
    ],
)
def test_bad_grpc_keys_are_a_broken_file_naming_the_key(
    tmp_path: Path, line: str, said: str
) -> None:
    write(tmp_path, "collection.toml", 'name = "c"\n')
    write(tmp_path, "bad.toml", f'type = "grpc"\nurl = "grpc://h:1"\n{line}\n')
    col = load_collection(tmp_path)
    (broken,) = col.broken
    assert said in broken.message and broken.line == 3


def test_an_unknown_key_beside_the_grpc_keys_is_kept_and_reported(tmp_path: Path) -> None:
    write(tmp_path, "collection.toml", 'name = "c"\n')
    path = write(tmp_path, "r.toml", 'type = "grpc"\nurl = "grpc://h:1"\nrpc = "a.B/C"\nrcp = 1\n')
    col = load_collection(tmp_path)
    assert any("rcp" in str(w) for w in col.warnings)
    (request,) = col.requests()
    save_request(request)
    assert "rcp = 1" in path.read_text(encoding="utf-8")


def test_every_toml_example_of_the_guides_grpc_page_is_a_grpc_request() -> None:
    page = (Path(__file__).parents[2] / "docs" / "guide" / "grpc.md").read_text(encoding="utf-8")
    blocks = [b.split("\n", 1)[1] for b in page.split("```toml")[1:]]
    assert len(blocks) == 4  # one per method kind
    for block in blocks:
        request = request_from_toml(block.split("```")[0])
        assert request.kind == "grpc" and request.grpc.rpc and request.extra == {}
