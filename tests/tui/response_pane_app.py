"""A small app that mounts the response pane, and exchanges to show in it (tests and the
snapshot test use both)."""

from __future__ import annotations

import json
from typing import Any

from textual.app import App, ComposeResult

from pigeon.render import RenderedRequest
from pigeon.send import Exchange, Timings
from pigeon.tui.widgets.response.body_panel import BodyPanel
from pigeon.tui.widgets.response.body_view import BodyView
from pigeon.tui.widgets.response.response_pane import ResponsePane

USERS = {
    "users": [
        {
            "id": 1,
            "name": "Ada Lovelace",
            "email": "ada@example.com",
            "admin": True,
            "score": 97.50,
            "manager": None,
            "tags": ["math", "engines"],
        },
        {
            "id": 2,
            "name": "Grace Hopper",
            "email": "grace@example.com",
            "admin": False,
            "score": 88.25,
            "manager": 1,
            "tags": ["cobol"],
        },
    ],
    "total": 2,
    "next": None,
}


def make_exchange(
    body: bytes | str | Any = USERS,
    content_type: str = "application/json",
    *,
    status: int | None = 200,
    reason: str = "OK",
    headers: list[tuple[str, str]] | None = None,
    **fields: Any,
) -> Exchange:
    """A finished exchange with fixed timings, so what it shows never depends on the clock."""
    if not isinstance(body, (bytes, str)):
        body = json.dumps(body)
    data = body.encode() if isinstance(body, str) else body
    rendered = RenderedRequest(
        method="POST",
        url="http://127.0.0.1:8000/users?page=1",
        headers=[
            ("Content-Type", "application/json"),
            ("Authorization", "Bearer s3cr3t-token"),
            ("X-Trace", "abc"),
        ],
        body=b'{"name": "Ada"}',
        body_text='{"name": "Ada"}',
    )
    if headers is None:
        headers = [("Content-Length", str(len(data)))]
        if content_type:
            headers.insert(0, ("Content-Type", content_type))
    values: dict[str, Any] = {
        "request": rendered,
        "method": rendered.method,
        "url": rendered.url,
        "sent_headers": [("Host", "127.0.0.1:8000"), *rendered.headers],
        "status": status,
        "reason": reason,
        "http_version": "HTTP/1.1",
        "headers": headers,
        "body": data,
        "body_size": len(data),
        "wire_body_size": len(data),
        "headers_size": 120,
        "timings": Timings(
            total_ms=123.4, connect_ms=1.5, tls_ms=None, ttfb_ms=110.0, download_ms=2.0
        ),
    }
    values.update(fields)
    return Exchange(**values)


class ResponsePaneApp(App[None]):
    """The response pane alone, showing ``exchange`` once mounted (if given)."""

    def __init__(self, exchange: Exchange | None = None) -> None:
        super().__init__()
        self.exchange = exchange
        self.loaded: list[str] = []

    def compose(self) -> ComposeResult:
        yield ResponsePane(id="response")

    def on_mount(self) -> None:
        if self.exchange is not None:
            self.query_one(ResponsePane).show_exchange(self.exchange)
        self.query_one("#body-view", BodyView).focus()

    def on_body_view_loaded(self, event: BodyView.Loaded) -> None:
        self.loaded.append(event.phase)


class BodyApp(App[None]):
    """A body panel alone; records what it reports."""

    def __init__(self) -> None:
        super().__init__()
        self.loaded: list[str] = []
        self.ticks = 0

    def compose(self) -> ComposeResult:
        yield BodyPanel()

    def on_mount(self) -> None:
        self.query_one(BodyView).focus()

    def on_body_view_loaded(self, event: BodyView.Loaded) -> None:
        self.loaded.append(event.phase)


if __name__ == "__main__":
    ResponsePaneApp(make_exchange()).run()
