"""A WebSocket server on 127.0.0.1 for the tests (``websockets``), one behaviour per path.

``/echo`` sends back every message; ``/push`` sends ``tick 1``, ``tick 2``... on its own
(``?count=N&every=S``); ``/close/CODE`` closes with CODE and reason ``closing CODE`` after
the first message; ``/headers`` sends the upgrade request's headers as a JSON object, then
echoes; ``/huge?mb=N`` sends one message of N MB in fragments, then ``after``; ``/escapes``
sends text holding terminal escapes and invalid UTF-8 as binary; ``/chat/ROOM`` sends ``joined
/chat/ROOM`` (the path it was asked for), then echoes; ``/silent`` never answers;
``/reject`` answers the upgrade with 403. Subprotocols ``chat.v1`` and ``chat.v2`` are
negotiated. The server runs in a daemon thread with its own loop and stops on exit.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import ssl
import threading
from collections.abc import Iterator
from http import HTTPStatus
from urllib.parse import parse_qs, urlsplit

from websockets.asyncio.server import ServerConnection, serve
from websockets.exceptions import ConnectionClosed
from websockets.http11 import Request, Response

SUBPROTOCOLS = ("chat.v1", "chat.v2")
ESCAPES = "red \x1b[31mALERT\x1b[0m title \x1b]0;pwned\x07 end"


def _query(path: str) -> dict[str, str]:
    return {k: v[-1] for k, v in parse_qs(urlsplit(path).query).items()}


async def _handler(ws: ServerConnection) -> None:
    path = ws.request.path if ws.request is not None else "/"
    route, query = urlsplit(path).path, _query(path)
    if route == "/push":
        for i in range(int(query.get("count", "3"))):
            await ws.send(f"tick {i + 1}")
            await asyncio.sleep(float(query.get("every", "0.05")))
        await ws.wait_closed()
    elif route.startswith("/close/"):
        code = int(route.rpartition("/")[2])
        await ws.recv()
        await ws.close(code, f"closing {code}")
    elif route == "/headers":
        headers = {k.lower(): v for k, v in ws.request.headers.raw_items()} if ws.request else {}
        await ws.send(json.dumps(headers))
        await _echo(ws)
    elif route == "/huge":
        chunk = "x" * (1024 * 1024)
        await ws.send(chunk for _ in range(int(query.get("mb", "8"))))
        await ws.send("after")
        await ws.wait_closed()
    elif route == "/escapes":
        await ws.send(ESCAPES)
        await ws.send(b"\xff\xfe\x1b[2J")
        await _echo(ws)
    elif route.startswith("/chat/"):
        await ws.send(f"joined {route}")
        await _echo(ws)
    elif route == "/silent":
        await ws.wait_closed()
    else:
        await _echo(ws)


async def _echo(ws: ServerConnection) -> None:
    with contextlib.suppress(ConnectionClosed):  # the client may close between the two
        async for message in ws:
            await ws.send(message)


def _select_subprotocol(ws: ServerConnection, offered: list[str]) -> str | None:
    return next((p for p in offered if p in SUBPROTOCOLS), None)  # none offered: none


def _process_request(ws: ServerConnection, request: Request) -> Response | None:
    if urlsplit(request.path).path == "/reject":
        return ws.respond(HTTPStatus.FORBIDDEN, "no sockets for you\n")
    return None


@contextlib.contextmanager
def ws_server(tls: ssl.SSLContext | None = None) -> Iterator[str]:
    """``ws://127.0.0.1:PORT`` (``wss://`` with ``tls``) of a running server, stopped on exit."""
    ready = threading.Event()
    state: dict[str, object] = {}

    async def main() -> None:
        stop = asyncio.Event()
        state["loop"], state["stop"] = asyncio.get_running_loop(), stop
        async with serve(
            _handler,
            "127.0.0.1",
            0,
            select_subprotocol=_select_subprotocol,  # type: ignore[arg-type]
            process_request=_process_request,
            max_size=None,
            ping_interval=None,
            ssl=tls,
        ) as server:
            state["port"] = server.sockets[0].getsockname()[1]
            ready.set()
            await stop.wait()
            server.close(close_connections=True)

    thread = threading.Thread(target=asyncio.run, args=(main(),), daemon=True)
    thread.start()
    if not ready.wait(10):
        raise RuntimeError("the WebSocket server did not start")
    try:
        yield f"{'wss' if tls else 'ws'}://127.0.0.1:{state['port']}"
    finally:
        loop = state["loop"]
        loop.call_soon_threadsafe(state["stop"].set)  # type: ignore[attr-defined]
        thread.join(10)
