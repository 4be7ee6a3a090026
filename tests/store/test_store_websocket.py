"""A WebSocket request's file (DESIGN §2): its keys read, kept as written, and refused when
wrong with the line named."""

from __future__ import annotations

from pathlib import Path

import pytest

from pigeon.errors import LoadError
from pigeon.model import Message, Request, WebSocket
from pigeon.store import save_request
from pigeon.store.read import request_from_toml
from pigeon.store.write import request_to_toml

CHAT = """\
# a chat socket
name = "Chat"   # shown
type = "websocket"
url = "{{ws_base}}/chat"
subprotocols = ["chat.v1", "chat.v2"]  # offered
replies = 2
x-note = "kept"

[[headers]]
name = "X-Token"
value = "{{token}}"

[[messages]]
name = "hello"   # greeting
body = "hello {{user}}"

[[messages]]
name = "join"
body = '''
{"op": "join", "room": "{{room}}"}
'''
x-extra = 1
"""


def test_the_keys_are_read(tmp_path: Path) -> None:
    request = request_from_toml(CHAT, tmp_path / "chat.toml")
    assert request.kind == "websocket" and request.type == "websocket"
    ws = request.websocket
    assert ws.subprotocols == ["chat.v1", "chat.v2"] and ws.replies == 2
    assert [(m.name, m.body) for m in ws.messages] == [
        ("hello", "hello {{user}}"),
        ("join", '{"op": "join", "room": "{{room}}"}\n'),
    ]
    assert ws.messages[1].extra == {"x-extra": 1}
    assert request.extra == {"x-note": "kept"}


def test_a_ws_url_alone_makes_a_websocket_request() -> None:
    request = request_from_toml('name = "x"\nurl = "wss://example.com/live"\n')
    assert request.type == "http" and request.kind == "websocket"
    assert request_from_toml('name = "x"\nurl = "https://example.com/"\n').kind == "http"


def test_an_unchanged_save_is_the_file_and_an_edit_is_its_own_line(tmp_path: Path) -> None:
    path = tmp_path / "chat.toml"
    path.write_text(CHAT, encoding="utf-8")
    request = request_from_toml(CHAT, path)
    save_request(request)
    assert path.read_text(encoding="utf-8") == CHAT
    request.websocket.messages[0].body = "bye"
    request.websocket.subprotocols.append("chat.v3")
    save_request(request)
    after = path.read_text(encoding="utf-8")
    assert after == CHAT.replace('body = "hello {{user}}"', 'body = "bye"').replace(
        '"chat.v2"]', '"chat.v2", "chat.v3"]'
    )


def test_a_new_file_leaves_out_the_method_and_writes_messages_last() -> None:
    request = Request(
        name="Live",
        url="wss://example.com/live",
        type="websocket",
        websocket=WebSocket(["v1"], [Message("a", "one"), Message("b", "two\nlines\n")]),
    )
    text = request_to_toml(request)
    assert text == (
        'name = "Live"\ntype = "websocket"\nurl = "wss://example.com/live"\n'
        'subprotocols = ["v1"]\n\n[[messages]]\nname = "a"\nbody = "one"\n\n'
        "[[messages]]\nname = \"b\"\nbody = '''\ntwo\nlines\n'''\n"
    )
    assert request_from_toml(text) == request


@pytest.mark.parametrize(
    ("text", "line", "words"),
    [
        ('type = "carrier-pigeon"\n', 1, "not one of http, websocket"),
        ("subprotocols = [1]\n", 1, "subprotocol names"),
        ('subprotocols = ["a b"]\n', 1, "subprotocol names"),
        ("replies = -1\n", 1, "count from 0"),
        ("replies = true\n", 1, "count from 0"),
        ('[[messages]]\nname = "a"\nbody = 3\n', 3, "expected a string"),
        ('messages = "hi"\n', 1, "array of tables"),
    ],
)
def test_wrong_keys_name_their_line(text: str, line: int, words: str) -> None:
    with pytest.raises(LoadError) as info:
        request_from_toml(text, Path("bad.toml"))
    assert words in info.value.message
    assert info.value.line == line
