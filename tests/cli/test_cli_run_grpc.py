"""``pigeon run`` with gRPC requests (DESIGN §10): every method kind against a loopback grpcio
server, found by reflection or by ``.proto`` files compiled in-process, over TLS with the
collection's CA; the status in the console and the reports, ``pigeon.response`` and
``pigeon.grpc`` in scripts, calls in the history; and servers made to hurt."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from collection_files import write
from grpc_servers import ESCAPED_DETAILS, Server, hostile_reflection, serve
from pigeon.cli import main


@pytest.fixture(scope="module")
def greeter(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with serve(tmp_path_factory.mktemp("greeter")) as server:
        yield server


@pytest.fixture(scope="module")
def bare(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """The same server without reflection: its requests name their .proto files."""
    with serve(tmp_path_factory.mktemp("bare"), reflection=False) as server:
        yield server


def request(
    rpc: str, body: str = "", extra: str = "", url: str = "grpc://127.0.0.1:{{port}}"
) -> str:
    text = f'type = "grpc"\nurl = "{url}"\nrpc = "pigeon.test.Greeter/{rpc}"\n'
    if extra:
        text += extra.strip("\n") + "\n"
    if body:
        text += f"\n[body]\ntype = \"json\"\ncontent = '''{body}'''\n"
    return text


def collection(root: Path, **requests: str) -> Path:
    write(root, "collection.toml", 'name = "calls"\n')
    for name, text in requests.items():
        write(root, f"{name}.toml", text)
    return root


def run(
    capsys: pytest.CaptureFixture[str], root: Path, port: int, *argv: str
) -> tuple[int, str, str]:
    code = main(["run", str(root), "--var", f"port={port}", "--no-color", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_a_unary_call_passes_with_its_status_and_reply_counted(
    tmp_path: Path, greeter: Server, capsys: pytest.CaptureFixture[str]
) -> None:
    root = collection(tmp_path, hello=request("SayHello", '{"name": "{{who}}", "count": 3}'))
    report = tmp_path / "report.json"
    code, out, err = run(
        capsys, root, greeter.port, "--var", "who=Ada", "--report", f"json:{report}"
    )
    assert code == 0, out + err
    assert "✔ GRPC   hello" in out and " OK " in out and "1 sent, 1 reply" in out
    (result,) = json.loads(report.read_text())["requests"]
    assert result["status"] == 0 and result["passed"]
    assert result["frames"] == {"sent": 1, "received": 1}
    # What the reports fold under it: the message sent and the replies, as JSON.
    sent, got = result["exchange"]["request"], result["exchange"]["response"]
    assert sent["method"] == "GRPC" and sent["body"]["text"] == '{"name": "Ada", "count": 3}'
    assert got["status"] == 0 and got["reason"] == "OK" and ["x-greeted", "Ada"] in got["headers"]
    assert json.loads(got["body"]["text"]) == [{"message": "Hello, Ada", "n": 3}]


SCRIPTED_UNARY = """
[scripts]
post_response = '''
r = pigeon.response
assert r.status == 0 and r.status_name == "OK" and r.ok
assert r.headers["x-greeted"] == "Ada"
assert r.trailers["x-trailer"] == "done"
assert r.json() == {"message": "Hello, Ada", "n": 3}
assert r.messages == [r.json()]
pigeon.setVar("greeting", r.json()["message"])
'''
"""


def test_scripts_read_the_status_metadata_trailers_and_replies(
    tmp_path: Path, greeter: Server, capsys: pytest.CaptureFixture[str]
) -> None:
    hello = request("SayHello", '{"name": "Ada", "count": 3}', SCRIPTED_UNARY)
    echo = request(
        "Metadata",
        '{"name": "{{greeting}}"}',
        '[[headers]]\nname = "X-Said"\nvalue = "{{greeting}}"',
    )
    root = collection(tmp_path, a=hello, b=echo)
    code, out, err = run(capsys, root, greeter.port, "--trust")
    assert code == 0, out + err
    assert out.count("✔ GRPC") == 2


def test_a_server_stream_counts_every_reply_and_a_client_stream_sends_every_message(
    tmp_path: Path, greeter: Server, capsys: pytest.CaptureFixture[str]
) -> None:
    count = request(
        "Count",
        '{"count": 4}',
        "[scripts]\npost_response = '''\nassert [m[\"n\"] for m in pigeon.response.messages] == [1, 2, 3, 4]\n'''",
    )
    total = request(
        "Sum",
        extra="""
[[messages]]
body = '{"n": 1}'
[[messages]]
body = '{"n": {{two}}}'
[scripts]
post_response = '''
assert pigeon.response.json() == {"sum": 3, "count": 2}
'''
""",
    )
    root = collection(tmp_path, count=count, total=total)
    code, out, err = run(capsys, root, greeter.port, "--var", "two:=2", "--trust")
    assert code == 0, out + err
    assert "1 sent, 4 replies" in out and "2 sent, 1 reply" in out


BIDI = """
[[messages]]
body = '{"n": 5}'
[scripts]
post_response = '''
assert pigeon.grpc.receive(timeout=5) == {"n": 10}
pigeon.grpc.send({"n": 7})
assert pigeon.grpc.receive(timeout=5) == {"n": 14}
pigeon.grpc.send('{"n": 1}')
pigeon.grpc.close()
assert pigeon.grpc.receive(timeout=5) == {"n": 2}
assert pigeon.grpc.receive(timeout=5) is None
'''
"""


def test_a_bidirectional_call_is_driven_from_its_post_response_script(
    tmp_path: Path, greeter: Server, capsys: pytest.CaptureFixture[str]
) -> None:
    root = collection(tmp_path, echo=request("Echo", extra=BIDI))
    code, out, err = run(capsys, root, greeter.port, "--trust")
    assert code == 0, out + err
    assert "3 sent, 3 replies" in out


def test_a_status_other_than_ok_fails_the_request_naming_it_and_its_details(
    tmp_path: Path, greeter: Server, capsys: pytest.CaptureFixture[str]
) -> None:
    root = collection(tmp_path, fail=request("Fail", '{"name": "PERMISSION_DENIED"}'))
    report = tmp_path / "report.json"
    code, out, err = run(capsys, root, greeter.port, "--report", f"json:{report}")
    assert code == 1
    assert "✘ GRPC   fail" in out and "PERMISSION_DENIED" in out
    assert "gRPC status PERMISSION_DENIED (7): details of PERMISSION_DENIED" in out
    (result,) = json.loads(report.read_text())["requests"]
    assert result["status"] == 7 and not result["passed"]


def test_status_details_with_control_characters_are_shown_escaped(
    tmp_path: Path, greeter: Server, capsys: pytest.CaptureFixture[str]
) -> None:
    root = collection(tmp_path, fail=request("Fail", '{"name": "ESCAPES"}'))
    code, out, err = run(capsys, root, greeter.port)
    assert code == 1
    assert "\x1b[31m" not in out and "\x07" not in out and "\x1b" not in out
    assert "INVALID_ARGUMENT" in out and "red" in out
    assert ESCAPED_DETAILS not in out


def test_the_timeout_is_the_deadline_of_a_call_the_server_never_answers(
    tmp_path: Path, greeter: Server, capsys: pytest.CaptureFixture[str]
) -> None:
    root = collection(tmp_path, hang=request("Hang", "{}", "[settings]\ntimeout = 0.5"))
    code, out, err = run(capsys, root, greeter.port)
    assert code == 1
    assert "DEADLINE_EXCEEDED" in out


def test_a_reply_over_the_cap_ends_the_call_saying_so(
    tmp_path: Path, greeter: Server, capsys: pytest.CaptureFixture[str]
) -> None:
    root = collection(tmp_path, huge=request("Huge", '{"count": 100}'))
    code, out, err = run(capsys, root, greeter.port)
    assert code == 1
    assert "RESOURCE_EXHAUSTED" in out and "4194304" in out


def test_a_flood_of_replies_keeps_the_newest_and_counts_the_dropped(
    tmp_path: Path, greeter: Server, capsys: pytest.CaptureFixture[str]
) -> None:
    script = (
        "[scripts]\npost_response = '''\nm = pigeon.response.messages\n"
        'assert len(m) == 1000 and m[0] == {"n": 1501} and m[-1] == {"n": 2500}\n\'\'\''
    )
    root = collection(tmp_path, flood=request("Flood", '{"count": 2500}', script))
    code, out, err = run(capsys, root, greeter.port, "--trust")
    assert code == 0, out + err
    assert "2500 replies" in out
    assert "2500 replies received (the newest 1000 kept, 1500 dropped)" in out


def test_bad_utf8_in_a_string_field_and_binary_metadata_are_one_line_each(
    tmp_path: Path, greeter: Server, capsys: pytest.CaptureFixture[str]
) -> None:
    script = (
        "[scripts]\npost_response = '''\n"
        "assert pigeon.response.headers['x-raw-bin'] == '//4AGw=='\n"
        "assert pigeon.response.messages == []\n'''"
    )
    root = collection(tmp_path, bad=request("BadUtf8", "{}", script))
    code, out, err = run(capsys, root, greeter.port, "--trust")
    assert code == 0, out + err
    assert "warning: reply 1 is not a pigeon.test.HelloReply:" in out
    assert "Traceback" not in out + err


def test_protos_compiled_in_process_describe_a_server_without_reflection(
    tmp_path: Path, bare: Server, capsys: pytest.CaptureFixture[str]
) -> None:
    from grpc_servers import compile_greeter

    compile_greeter(tmp_path)  # writes protos/greeter.proto into the collection
    extra = 'protos = ["protos/greeter.proto"]\nimport_paths = ["protos"]'
    root = collection(tmp_path, hello=request("SayHello", '{"name": "Ada"}', extra))
    code, out, err = run(capsys, root, bare.port)
    assert code == 0, out + err
    missing = collection(tmp_path, hello=request("SayHello", '{"name": "Ada"}'))
    code, out, err = run(capsys, missing, bare.port)
    assert code == 1 and "no reflection service" in out


def test_a_proto_file_that_does_not_compile_is_one_line_naming_file_and_line(
    tmp_path: Path, bare: Server, capsys: pytest.CaptureFixture[str]
) -> None:
    write(tmp_path, "protos/bad.proto", 'syntax = "proto3";\nmessage A { strin a = 1; }\n')
    extra = 'protos = ["protos/bad.proto"]'
    root = collection(tmp_path, hello=request("SayHello", "{}", extra))
    code, out, err = run(capsys, root, bare.port)
    assert code == 1
    assert "not sent: protos/bad.proto:2:" in out or "not sent: bad.proto:2:" in out
    assert '"strin" is not defined' in out


def test_unknown_methods_and_message_fields_stop_the_call_before_it_is_made(
    tmp_path: Path, greeter: Server, capsys: pytest.CaptureFixture[str]
) -> None:
    root = collection(
        tmp_path,
        a=request("SayHelo", "{}"),
        b=request("SayHello", '{"nmae": "x"}'),
    )
    code, out, err = run(capsys, root, greeter.port)
    assert code == 1
    assert "has no method 'SayHelo' (did you mean SayHello?)" in out
    assert "the message is not a pigeon.test.HelloRequest" in out and "nmae" in out


def test_tls_uses_the_collections_ca_bundle(
    tmp_path: Path, tmp_path_factory: pytest.TempPathFactory, capsys: pytest.CaptureFixture[str]
) -> None:
    with serve(tmp_path_factory.mktemp("tls"), tls=True) as server:
        assert server.ca_pem is not None
        hello = request("SayHello", '{"name": "Ada"}', url="grpcs://localhost:{{port}}")
        root = collection(tmp_path, hello=hello)
        code, out, err = run(capsys, root, server.port)
        assert code == 1 and "UNAVAILABLE" in out  # certifi's roots do not know this CA
        write(
            tmp_path,
            "collection.toml",
            f'name = "calls"\n[settings]\nca_bundle = "{server.ca_pem}"\n',
        )
        code, out, err = run(capsys, root, server.port, "--trust")
        assert code == 0, out + err


def test_a_server_that_asks_for_a_client_certificate_gets_the_collections(
    tmp_path: Path, tmp_path_factory: pytest.TempPathFactory, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path_factory.mktemp("mtls")
    with serve(folder, tls=True, client_auth=True) as server:
        hello = request("SayHello", '{"name": "Ada"}', url="grpcs://localhost:{{port}}")
        settings = f'name = "calls"\n[settings]\nca_bundle = "{server.ca_pem}"\n'
        root = collection(tmp_path, hello=hello)
        write(root, "collection.toml", settings)
        code, out, err = run(capsys, root, server.port, "--trust")
        assert code == 1  # no certificate: the handshake fails
        certificate = f'[[certificates]]\nhost = "localhost"\ncert = "{folder / "client.pem"}"\nkey = "{folder / "client.key"}"\n'
        write(root, "collection.toml", settings + certificate)
        code, out, err = run(capsys, root, server.port, "--trust")
        assert code == 0, out + err


def test_metadata_comes_from_headers_and_auth(
    tmp_path: Path, greeter: Server, capsys: pytest.CaptureFixture[str]
) -> None:
    extra = """
[[headers]]
name = "X-Token"
value = "{{token}}"

[auth]
type = "bearer"
token = "t0k"

[scripts]
post_response = '''
lines = pigeon.response.json()["message"].split("\\n")
assert "x-token=abc" in lines, lines
assert "authorization=Bearer t0k" in lines, lines
assert not any(l.startswith("content-type") for l in lines), lines
'''
"""
    root = collection(tmp_path, meta=request("Metadata", "{}", extra))
    code, out, err = run(capsys, root, greeter.port, "--var", "token=abc", "--trust")
    assert code == 0, out + err


def test_calls_go_to_the_history_with_their_replies(
    tmp_path: Path, greeter: Server, capsys: pytest.CaptureFixture[str]
) -> None:
    from pigeon import history
    from pigeon.history import list_entries
    from pigeon.response_diff import compare, side_of

    root = collection(tmp_path, count=request("Count", '{"count": 3}'))
    code, out, err = run(capsys, root, greeter.port, "--history")
    assert code == 0, out + err
    (entry,) = list_entries(root)
    assert entry.status == 0 and entry.reason == "OK" and entry.ok
    assert json.loads(entry.body) == [{"n": 1}, {"n": 2}, {"n": 3}]
    assert entry.to_exchange().grpc is not None
    again = history.to_request(entry)
    assert again.kind == "grpc" and again.grpc.rpc == "pigeon.test.Greeter/Count"
    # a second call, with one reply more, compares as two HTTP responses do
    write(root, "count.toml", request("Count", '{"count": 4}'))
    code, out, err = run(capsys, root, greeter.port, "--history")
    assert code == 0, out + err
    newer, older = list_entries(root)
    diff = compare(side_of(older.to_exchange(), "a"), side_of(newer.to_exchange(), "b"))
    added = [row.right for row in diff.unified if row.kind == "change" and row.right]
    assert diff.changes == 1 and added == ["  },", "  {", '    "n": 4']


@pytest.mark.parametrize(
    ("mode", "said"),
    [
        ("cyclic", "import each other in a circle: a.proto -> b.proto -> a.proto"),
        ("huge", "reflection: an answer larger than 4 MiB"),
        ("endless", "more than 1000 descriptor files"),
    ],
)
def test_a_hostile_reflection_answer_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], mode: str, said: str
) -> None:
    with hostile_reflection(mode) as server:
        text = 'type = "grpc"\nurl = "grpc://127.0.0.1:{{port}}"\nrpc = "evil.Evil/Call"\n'
        root = collection(tmp_path, evil=text)
        code, out, err = run(capsys, root, server.port)
    assert code == 1
    assert said in out, out
    assert "Traceback" not in out + err


PROBE = """
import json, sys
from pigeon.cli import main
code = main(["run", sys.argv[1], "--no-color"])
print(json.dumps([code, sorted(sys.modules)]))
"""


def test_a_run_without_grpc_requests_loads_nothing_of_grpc(tmp_path: Path, echo_url: str) -> None:
    import subprocess
    import sys

    write(tmp_path, "collection.toml", 'name = "plain"\n')
    write(tmp_path, "get.toml", f'url = "{echo_url}/get"\n')
    out = subprocess.run(
        [sys.executable, "-c", PROBE, str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    ).stdout
    code, loaded = json.loads(out.splitlines()[-1])
    assert code == 0
    assert [m for m in loaded if m.split(".")[0] in ("grpc", "grpc_tools", "grpc_reflection")] == []
    assert [m for m in loaded if m.startswith(("google.protobuf", "pigeon.rpc"))] == []


def test_proto_files_outside_the_collection_need_trust(
    tmp_path: Path, tmp_path_factory: pytest.TempPathFactory, bare: Server,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    from grpc_servers import compile_greeter

    outside = tmp_path_factory.mktemp("elsewhere")
    source, _ = compile_greeter(outside)
    extra = f'protos = ["{source}"]\nimport_paths = ["{source.parent}"]'
    root = collection(tmp_path / "c", hello=request("SayHello", '{"name": "Ada"}', extra))
    code, out, err = run(capsys, root, bare.port)
    assert code == 2
    assert f"protos reads {source}, outside the collection" in err
    code, out, err = run(capsys, root, bare.port, "--trust")
    assert code == 0, out + err


def test_metadata_and_details_that_are_not_utf8_or_hold_escapes_are_shown_safely(
    tmp_path: Path,
) -> None:
    import subprocess
    import sys

    from grpc_servers import compile_greeter, raw_server

    compile_greeter(tmp_path)
    script = (
        "[scripts]\npost_response = '''\nr = pigeon.response\n"
        "assert r.status == 3 and r.status_name == 'INVALID_ARGUMENT'\n"
        "assert r.headers['x-bad'].startswith('caf') and r.trailers['x-bad-trailer']\n"
        "assert r.details.startswith('bad') and r.json() == {'message': 'ok'}\n'''"
    )
    extra = f'protos = ["protos/greeter.proto"]\n{script}'
    root = collection(tmp_path, raw=request("SayHello", "{}", extra))
    with raw_server() as server:
        done = subprocess.run(
            [sys.executable, "-m", "pigeon", "run", str(root), "--var", f"port={server.port}"]
            + ["--trust", "--no-color"],
            capture_output=True,
            text=True,
            timeout=120,
        )
    out, err = done.stdout, done.stderr
    assert done.returncode == 1, out + err
    assert "gRPC status INVALID_ARGUMENT (3): bad" in out
    assert "\x1b" not in out + err and "\x07" not in out + err
    assert "assertion failed" not in out and "Traceback" not in out + err
    assert err == ""


def test_an_oauth2_token_is_the_calls_authorization_metadata(
    tmp_path: Path, greeter: Server, capsys: pytest.CaptureFixture[str]
) -> None:
    from oauth_server import oauth_server

    script = """
[auth]
type = "oauth2"
token_url = "{{oauth}}/token"
grant = "client_credentials"
client_id = "cc-client"
client_secret = "cc-secret-9f8e7d"

[scripts]
post_response = '''
lines = pigeon.response.json()["message"].split("\\n")
assert any(l.startswith("authorization=Bearer at-") for l in lines), lines
'''
"""
    with oauth_server() as (base, state):
        root = collection(tmp_path, meta=request("Metadata", "{}", script))
        code, out, err = run(capsys, root, greeter.port, "--var", f"oauth={base}", "--trust")
        assert code == 0, out + err
        assert state.grants == {"client_credentials": 1}


def test_verify_tls_off_is_refused_with_what_to_do_instead(
    tmp_path: Path, greeter: Server, capsys: pytest.CaptureFixture[str]
) -> None:
    hello = request("SayHello", "{}", "[settings]\nverify_tls = false", url="grpcs://localhost:1")
    root = collection(tmp_path, hello=hello)
    code, out, err = run(capsys, root, greeter.port)
    assert code == 1
    assert "not sent: verify_tls = false is not available for gRPC calls" in out
