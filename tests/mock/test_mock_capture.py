"""A response saved as an example (DESIGN §14): secrets masked as history masks them,
transport headers left out, the body capped, a binary body not kept; and served back by the
mock as it was saved."""

from __future__ import annotations

import json

import httpx
import pytest

from pigeon.exchange import Exchange
from pigeon.mock.capture import MAX_SAVED, capture
from pigeon.mock.routes import LITERAL, Route, Segment
from pigeon.mock.server import MockServer
from pigeon.model import Request
from pigeon.render import RenderedRequest

TOKEN = "s3cr3t-token-value"


def exchange(body: bytes, content_type: str = "application/json", **fields: object) -> Exchange:
    rendered = RenderedRequest(
        method="GET",
        url="http://127.0.0.1:9/users/7",
        headers=[("Authorization", f"Bearer {TOKEN}")],
        secrets=["dotenv-value-123"],
    )
    headers = [
        ("Content-Type", content_type),
        ("Content-Length", str(len(body))),
        ("Date", "Mon, 01 Jan 2024 00:00:00 GMT"),
        ("Set-Cookie", "session=abc; HttpOnly"),
        ("X-Api-Key", "key-in-a-header"),
        ("X-Request-Id", "r-1"),
    ]
    values: dict[str, object] = {"status": 201, "reason": "Created", "headers": headers}
    values.update(fields)
    return Exchange(rendered, body=body, body_size=len(body), **values)  # type: ignore[arg-type]


def test_secrets_are_masked_and_transport_headers_left_out() -> None:
    body = json.dumps(
        {
            "id": 7,
            "echo": f"Bearer {TOKEN}",
            "password": "hunter2",
            "note": "from .env: dotenv-value-123",
            "template": "{{not a placeholder}}",
        }
    ).encode()
    got = capture(exchange(body), "created")
    example = got.example
    assert (example.name, example.status, got.cut, got.binary) == ("created", 201, False, False)
    assert [(h.name, h.value) for h in example.headers] == [
        ("Content-Type", "application/json"),
        ("X-Api-Key", "•••"),
        ("X-Request-Id", "r-1"),
    ]
    for secret in (TOKEN, "hunter2", "dotenv-value-123"):
        assert secret not in example.body
    data = json.loads(example.body)
    assert data["id"] == 7 and data["password"] == "•••"


def test_the_mock_serves_what_was_saved() -> None:
    """A ``{{`` of the response stays literal: the mock renders the body as a template."""
    body = b'{"text": "{{x}} and {{ $uuid }}", "n": 1}'
    example = capture(exchange(body), "ok").example
    route = Route(Request("r", url="/r"), "GET", "/r", (Segment("r", LITERAL),), [example])
    with MockServer([route]) as server:
        r = httpx.get(f"{server.url}/r", timeout=10)
    assert r.status_code == 201 and r.content == body


def test_a_long_body_is_cut_at_the_cap() -> None:
    body = ("é" * MAX_SAVED).encode()  # two bytes a character: the cap falls mid-character
    got = capture(exchange(body, "text/plain; charset=utf-8"), "long")
    assert got.cut and not got.binary
    assert got.example.body == "é" * (MAX_SAVED // 2)


@pytest.mark.parametrize("truncated", [False, True])
def test_a_binary_body_is_not_kept(truncated: bool) -> None:
    got = capture(exchange(b"\x89PNG\r\n\x1a\n\xff\xfe", "image/png", truncated=truncated), "png")
    assert got.binary and got.cut is truncated
    assert got.example.body == "" and got.example.status == 201
