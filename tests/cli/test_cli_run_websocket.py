"""``pigeon run`` with WebSocket requests: connect, send the saved messages, wait for the
replies, run the post-response script with ``pigeon.ws``, close; the result in the console
and the reports like any request's."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from collection_files import write
from pigeon.cli import main
from ws_servers import ws_server


@pytest.fixture(scope="module")
def ws_base() -> Iterator[str]:
    with ws_server() as base:
        yield base


def collection(root: Path, request: str) -> Path:
    write(root, "collection.toml", 'name = "sockets"\n')
    write(root, "chat.toml", request)
    return root


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["run", *argv, "--no-color"])
    out, err = capsys.readouterr()
    return code, out, err


ECHO = """\
name = "Chat"
type = "websocket"
url = "{{base}}/echo"

[[messages]]
name = "hello"
body = "hello {{who}}"

[[messages]]
name = "json"
body = '{"n": 2}'
"""


def test_saved_messages_are_sent_and_their_replies_counted(
    tmp_path: Path, ws_base: str, capsys: pytest.CaptureFixture[str]
) -> None:
    root = collection(tmp_path, ECHO)
    report = tmp_path / "report.json"
    code, out, err = run(
        capsys, str(root), "--var", f"base={ws_base}", "--var", "who=me",
        "--report", f"json:{report}",
    )  # fmt: skip
    assert code == 0, out + err
    assert "✔ GET    chat" in out and "101 Informational" in out
    assert "2 sent, 2 received" in out
    (result,) = json.loads(report.read_text())["requests"]
    assert result["status"] == 101 and result["passed"]
    assert result["frames"] == {"sent": 2, "received": 2}
    assert result["url"].startswith("ws://")
    # What the reports fold under it: the handshake.
    assert result["exchange"]["request"]["url"] == result["url"]
    assert result["exchange"]["response"]["status"] == 101


SCRIPTED = (
    ECHO
    + """
[scripts]
post_response = '''
replies = [pigeon.ws.receive(timeout=2), pigeon.ws.receive(timeout=2)]
assert [m.text for m in replies] == ["hello me", '{"n": 2}']
assert replies[1].json() == {"n": 2}
pigeon.ws.send_json({"op": "more"})
assert pigeon.ws.receive(timeout=2).json() == {"op": "more"}
assert pigeon.ws.receive(timeout=0.05) is None
assert [m.direction for m in pigeon.ws.messages][:2] == ["sent", "sent"]
assert pigeon.ws.ping() > 0
assert pigeon.response.status == 101
pigeon.log("got", len(pigeon.ws.messages), "messages")
pigeon.ws.send("{{who}}-" + "EXPECTED")
assert pigeon.ws.receive(timeout=2).text == "{{who}}-UNEXPECTED"
'''
"""
)


def test_a_script_sends_receives_and_its_failed_assertion_fails_the_run(
    tmp_path: Path, ws_base: str, capsys: pytest.CaptureFixture[str]
) -> None:
    root = collection(tmp_path, SCRIPTED)
    code, out, err = run(
        capsys, str(root), "--var", f"base={ws_base}", "--var", "who=me", "--trust"
    )
    assert code == 1, out + err
    assert "got 6 messages" in out
    assert "1 assertion failure" in out
    assert "UNEXPECTED" in out and "line 12" in out
    assert "4 sent, 4 received" in out


def test_a_passing_script_passes(
    tmp_path: Path, ws_base: str, capsys: pytest.CaptureFixture[str]
) -> None:
    root = collection(tmp_path, SCRIPTED.replace("UNEXPECTED", "EXPECTED"))
    code, out, err = run(
        capsys, str(root), "--var", f"base={ws_base}", "--var", "who=me", "--trust"
    )
    assert code == 0, out + err
    assert "1 passed" in out


def test_replies_that_do_not_come_fail_within_the_timeout(
    tmp_path: Path, ws_base: str, capsys: pytest.CaptureFixture[str]
) -> None:
    root = collection(
        tmp_path,
        'name = "S"\ntype = "websocket"\nurl = "{{base}}/silent"\nreplies = 1\n'
        "[settings]\ntimeout = 0.5\n",
    )
    code, out, err = run(capsys, str(root), "--var", f"base={ws_base}")
    assert code == 1, out + err
    assert "waited for 1 message, 0 came (open)" in out


def test_a_server_that_closes_with_a_policy_code_is_named(
    tmp_path: Path, ws_base: str, capsys: pytest.CaptureFixture[str]
) -> None:
    root = collection(
        tmp_path,
        'name = "S"\ntype = "websocket"\nurl = "{{base}}/close/1008"\nreplies = 0\n'
        '[[messages]]\nname = "go"\nbody = "go"\n'
        "[scripts]\npost_response = 'assert pigeon.ws.receive(timeout=5) is None'\n",
    )
    code, out, err = run(capsys, str(root), "--var", f"base={ws_base}", "--trust")
    assert code == 0, out + err
    assert "the server closed the connection: closed 1008 closing 1008 by the server" in out


def test_a_refused_upgrade_is_a_failure_with_its_status(
    tmp_path: Path, ws_base: str, capsys: pytest.CaptureFixture[str]
) -> None:
    root = collection(tmp_path, 'name = "S"\nurl = "{{base}}/reject"\ntype = "websocket"\n')
    code, out, err = run(capsys, str(root), "--var", f"base={ws_base}")
    assert code == 1, out + err
    assert "403 Client error" in out
    assert "the server answered 403 Forbidden, not 101 Switching Protocols" in out
