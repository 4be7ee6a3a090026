"""Hostile values never change the shape of what goes on the wire (DESIGN §5): a header with a
control character is refused before anything is sent, and multipart names, file names and
content types cannot open a header of their own. Checked on a raw socket."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from pigeon.errors import RenderError
from pigeon.model import Body, Collection, FormField, Header, Request
from pigeon.render import render_request
from pigeon.scopes import build_scopes
from pigeon.send import HttpSession
from servers import recording_server


@pytest.fixture
async def session() -> AsyncIterator[HttpSession]:
    async with HttpSession() as s:
        yield s


def rendered(root: Path, request: Request):
    col = Collection(name="t", root=root)
    scopes = build_scopes(col, [], request, environment="", environ={})
    return render_request(col, [], request, scopes)


@pytest.mark.parametrize(
    ("value", "named"),
    [("a\x7fb", "DEL"), ("a\x1b[2Jb", "ESC"), ("a\x01b", "0x01"), ("a\rb", "CR"), ("a\0", "NUL")],
)
async def test_a_header_with_a_control_character_is_refused_and_nothing_is_sent(
    tmp_path: Path, value: str, named: str
) -> None:
    with recording_server() as server:
        request = Request(name="r", url=server.url, headers=[Header("X-Evil", value)])
        with pytest.raises(RenderError, match=rf"header 'X-Evil'.*contains {named}"):
            rendered(tmp_path, request)
        assert server.connections == 0


async def test_a_tab_in_a_header_value_is_sent(tmp_path: Path, session: HttpSession) -> None:
    with recording_server() as server:
        request = Request(name="r", url=server.url, headers=[Header("X-Tab", "a\tb")])
        exchange = await session.send(rendered(tmp_path, request))
        assert exchange.error is None
        assert b"\r\nX-Tab: a\tb\r\n" in server.requests[0]


async def test_multipart_names_cannot_add_a_header_to_their_part(
    tmp_path: Path, session: HttpSession
) -> None:
    upload = tmp_path / 'a"\r\nX-File: 1.txt'
    upload.write_bytes(b"file body")
    body = Body(
        type="multipart",
        fields=[
            FormField('n"\r\nX-Injected: 1\r\n\r\nevil', "v"),
            FormField("file", str(upload), kind="file", content_type="text/plain"),
        ],
    )
    with recording_server() as server:
        request = Request(name="r", method="POST", url=server.url, body=body)
        exchange = await session.send(rendered(tmp_path, request))
        assert exchange.error is None
        wire = server.requests[0]
    assert b"\r\nX-Injected" not in wire and b"\r\nX-File" not in wire
    assert b'name="n%22%0D%0AX-Injected: 1%0D%0A%0D%0Aevil"' in wire
    assert b'filename="a%22%0D%0AX-File: 1.txt"' in wire
    assert b"\r\n\r\nfile body\r\n" in wire


@pytest.mark.parametrize("content_type", ["text/plain\r\nX-Injected: 1", "text/plain\x7f"])
def test_a_multipart_content_type_with_a_control_character_is_refused(
    tmp_path: Path, content_type: str
) -> None:
    body = Body(type="multipart", fields=[FormField("a", "b", content_type=content_type)])
    request = Request(name="r", method="POST", url="http://127.0.0.1:9/", body=body)
    with pytest.raises(RenderError, match=r"multipart field 'a': its content type contains"):
        rendered(tmp_path, request)
