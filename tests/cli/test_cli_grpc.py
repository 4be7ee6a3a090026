"""gRPC at the command line (DESIGN §6, §10): `pigeon render` shows the call as it would go,
`pigeon export grpcurl` writes it as grpcurl's command and `pigeon import grpcurl` reads one
back, `pigeon grpc-describe` lists what a request reaches and caches it, and `pigeon check`
finds unknown methods and fields against those descriptors, without a network."""

from __future__ import annotations

import json
import shlex
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from collection_files import write
from grpc_servers import Server, compile_greeter, serve
from pigeon.cli import main
from pigeon.store import load_collection


@pytest.fixture(scope="module")
def greeter(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with serve(tmp_path_factory.mktemp("greeter")) as server:
        yield server


HELLO = """\
name = "Hello"
type = "grpc"
url = "grpc://127.0.0.1:{{port}}"
rpc = "pigeon.test.Greeter/SayHello"

[[headers]]
name = "X-Token"
value = "{{token}}"

[body]
type = "json"
content = '''{"name": "{{who}}", "tags": {{tags}}}'''

[settings]
timeout = 5
"""

SUM = """\
type = "grpc"
url = "grpcs://api.example:8443"
rpc = "pigeon.test.Greeter/Sum"

[[messages]]
body = '{"n": {{n}}}'
[[messages]]
body = '{"n": 2}'
"""


def collection(root: Path, **requests: str) -> Path:
    write(root, "collection.toml", 'name = "calls"\n[variables]\nport = 50051\ntoken = "t"\n')
    for name, text in requests.items():
        write(root, f"{name}.toml", text)
    return root


def cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_render_shows_the_call_as_it_would_go(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = collection(tmp_path, hello=HELLO, sum=SUM)
    code, out, err = cli(
        capsys, "render", str(root), "hello", "--var", "who=Ada", "--var", 'tags:=["a","b"]'
    )
    assert code == 0, err
    assert json.loads(out) == {
        "type": "grpc",
        "target": "grpc://127.0.0.1:50051",
        "rpc": "pigeon.test.Greeter/SayHello",
        "metadata": [["x-token", "t"]],  # not the JSON body's Content-Type
        "message": '{"name": "Ada", "tags": ["a","b"]}',
        "messages": [],
        "unresolved": [],
        "warnings": [],
    }
    code, out, err = cli(capsys, "render", str(root), "sum", "--var", "n:=1", "--format", "http")
    assert code == 0, err
    assert out == 'GRPC grpcs://api.example:8443 pigeon.test.Greeter/Sum\n\n{"n": 1}\n\n{"n": 2}\n'
    code, out, err = cli(capsys, "render", str(root), "sum", "--format", "curl")
    assert code == 2 and "pigeon export grpcurl" in err


def test_export_grpcurl_writes_the_same_call_and_import_reads_it_back(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = collection(tmp_path / "c", hello=HELLO, sum=SUM)
    code, out, err = cli(
        capsys, "export", "grpcurl", str(root), "hello", "--var", "who=Ada", "--var", "tags:=[]"
    )
    assert code == 0, err
    argv = shlex.split(out.replace("\\\n", " "))
    assert argv == [
        "grpcurl", "-plaintext", "-H", "x-token: t", "-max-time", "5",
        "-d", '{"name": "Ada", "tags": []}', "127.0.0.1:50051", "pigeon.test.Greeter/SayHello",
    ]  # fmt: skip
    code, out, err = cli(capsys, "export", "grpcurl", str(root), "sum", "--var", "n:=7")
    assert code == 0, err
    assert shlex.split(out.replace("\\\n", " "))[-4:] == [
        "-d", '{"n": 7}\n{"n": 2}', "api.example:8443", "pigeon.test.Greeter/Sum"
    ]  # fmt: skip
    into = tmp_path / "imported"
    code, _, err = cli(capsys, "import", "grpcurl", out, "--into", str(into))
    assert code == 0, err
    (request,) = load_collection(into).requests()
    assert request.kind == "grpc" and request.url == "grpcs://api.example:8443"
    assert request.grpc.rpc == "pigeon.test.Greeter/Sum"
    assert [m.body for m in request.messages] == ['{"n": 7}', '{"n": 2}']


def test_import_grpcurl_reads_metadata_message_protos_and_timeout(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    command = (
        "grpcurl -plaintext -H 'authorization: Bearer x' -rpc-header 'x-a: 1' "
        "-import-path protos -proto greeter.proto -max-time=2.5 -cacert ca.pem "
        '-d \'{"name": "Ada"}\' localhost:50051 pigeon.test.Greeter.SayHello'
    )
    code, _, err = cli(capsys, "import", "grpcurl", command, "--into", str(tmp_path))
    assert code == 0, err
    assert "-cacert: set it in the collection's [settings]" in err
    (request,) = load_collection(tmp_path).requests()
    assert (
        request.url == "grpc://localhost:50051"
        and request.grpc.rpc == "pigeon.test.Greeter/SayHello"
    )
    assert [(h.name, h.value) for h in request.headers] == [
        ("authorization", "Bearer x"),
        ("x-a", "1"),
    ]
    assert request.body.type == "json" and json.loads(request.body.content) == {"name": "Ada"}
    assert request.grpc.protos == ["protos/greeter.proto"] and request.grpc.import_paths == [
        "protos"
    ]
    assert request.settings.timeout == 2.5


@pytest.mark.parametrize(
    ("command", "said"),
    [
        ("grpcurl -plaintext localhost:1 list", "list and describe are not calls"),
        ("grpcurl -plaintext localhost:1", "expected an address and a method"),
        ("grpcurl -d '{bad' localhost:1 a.B/C", "-d is not JSON"),
    ],
)
def test_import_grpcurl_refuses_what_is_no_call(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str, said: str
) -> None:
    code, _, err = cli(capsys, "import", "grpcurl", command, "--into", str(tmp_path))
    assert code == 2 and said in err


def test_describe_lists_what_the_request_reaches_and_check_uses_the_cache(
    tmp_path: Path, greeter: Server, capsys: pytest.CaptureFixture[str]
) -> None:
    bad_field = HELLO.replace('"name": "{{who}}"', '"nmae": "{{who}}"')
    root = collection(
        tmp_path, hello=HELLO, typo=HELLO.replace("SayHello", "SayHelo"), field=bad_field
    )
    write(
        root,
        "collection.toml",
        f'name = "calls"\n[variables]\nport = {greeter.port}\ntoken = "t"\nwho = "a"\ntags = []\n',
    )
    code, out, err = cli(capsys, "check", str(root))
    assert code == 0, out + err  # nothing cached yet: nothing to check against
    code, out, err = cli(capsys, "grpc-describe", str(root), "hello")
    assert code == 0, err
    assert out.startswith("service pigeon.test.Greeter\n")
    assert "  Echo(pigeon.test.Number) returns (pigeon.test.Number)  bidirectional" in out
    assert "pigeon.test.Greeter/SayHello: unary, pigeon.test.HelloRequest: name string," in out
    assert list((root / ".pigeon" / "grpc").glob("*.json"))
    code, out, err = cli(capsys, "check", str(root), "--format", "json")
    assert code == 1
    found = {(f["rule"], Path(f["path"]).name, f["line"]) for f in json.loads(out)["findings"]}
    assert found == {("grpc-method", "typo.toml", 4), ("grpc-field", "field.toml", 12)}
    messages = " ".join(f["message"] for f in json.loads(out)["findings"])
    assert "(did you mean SayHello?)" in messages and "$.nmae (did you mean name?)" in messages


def test_check_reads_a_requests_proto_files_without_a_server(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    compile_greeter(tmp_path)
    extra = 'protos = ["protos/greeter.proto"]\nimport_paths = ["protos"]\n'
    text = HELLO.replace(
        'rpc = "pigeon.test.Greeter/SayHello"\n', 'rpc = "pigeon.test.Greeter/Sai"\n' + extra
    )
    root = collection(tmp_path, hello=text)
    write(
        root,
        "collection.toml",
        'name = "c"\n[variables]\nport = 1\ntoken = "t"\nwho = "a"\ntags = []\n',
    )
    code, out, err = cli(capsys, "check", str(root))
    assert code == 1
    assert "error [grpc-method] service pigeon.test.Greeter has no method 'Sai'" in out


def test_describe_of_a_request_that_is_not_grpc_is_bad_usage(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = collection(tmp_path, plain='url = "http://127.0.0.1:1/"\n')
    code, _, err = cli(capsys, "grpc-describe", str(root), "plain")
    assert code == 2 and "not a gRPC request" in err


@pytest.mark.skipif(shutil.which("grpcurl") is None, reason="grpcurl is not installed")
def test_the_exported_grpcurl_command_makes_the_same_call(
    tmp_path: Path, greeter: Server, capsys: pytest.CaptureFixture[str]
) -> None:
    root = collection(tmp_path, hello=HELLO)
    code, out, err = cli(
        capsys, "export", "grpcurl", str(root), "hello", "--var", f"port={greeter.port}",
        "--var", "who=Ada", "--var", "tags:=[]",
    )  # fmt: skip
    assert code == 0, err
    done = subprocess.run(
        shlex.split(out.replace("\\\n", " ")), capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {"message": "Hello, Ada"}
