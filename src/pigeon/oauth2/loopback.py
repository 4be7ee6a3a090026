"""The loopback redirect of the authorization code grant (RFC 8252 §7.3, DESIGN §7).

When the redirect URI is ``http://127.0.0.1:PORT/...`` (or ``localhost``, or left empty for
a free port), a one-shot listener on that loopback address receives the browser's redirect
and hands its URL to the grant. Over SSH the browser is on another machine and never gets
there: the person pastes the redirected URL instead, and whichever comes first wins.
"""

from __future__ import annotations

import asyncio
import contextlib
from urllib.parse import urlsplit

_LOOPBACK_HOSTS = {"127.0.0.1": "127.0.0.1", "localhost": "127.0.0.1", "::1": "::1"}
_PAGE = (
    b"HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nConnection: close\r\n\r\n"
    b"<!doctype html><title>Pigeon</title><p>Signed in: you can close this tab and go back "
    b"to Pigeon.</p>"
)


def loopback_redirect(redirect_uri: str) -> tuple[str, int, str] | None:
    """(host to listen on, port, path) of a loopback redirect URI; ``None`` for any other."""
    if not redirect_uri:
        return "127.0.0.1", 0, "/callback"
    parts = urlsplit(redirect_uri)
    host = _LOOPBACK_HOSTS.get(parts.hostname or "")
    try:
        port = parts.port or 80
    except ValueError:
        return None
    if parts.scheme != "http" or host is None:
        return None
    return host, port, parts.path or "/"


class Loopback:
    """A listener for one redirect; ``received`` gets the redirected URL."""

    def __init__(self, server: asyncio.Server, redirect_uri: str, path: str) -> None:
        self.server = server
        self.redirect_uri = redirect_uri
        self.path = path
        self.received: asyncio.Future[str] = asyncio.get_running_loop().create_future()

    @classmethod
    async def open(cls, redirect_uri: str) -> Loopback | None:
        """Listen for ``redirect_uri`` when it is a loopback one and its port is free."""
        where = loopback_redirect(redirect_uri)
        if where is None:
            return None
        host, port, path = where
        holder: list[Loopback] = []

        async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(holder[0]._answer(reader, writer), 10.0)
            writer.close()

        try:
            server = await asyncio.start_server(handle, host, port)
        except OSError:
            return None  # the port is taken: pasting still works
        if not redirect_uri:
            redirect_uri = f"http://127.0.0.1:{server.sockets[0].getsockname()[1]}{path}"
        holder.append(cls(server, redirect_uri, path))
        return holder[0]

    async def _answer(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        head = await reader.readuntil(b"\r\n\r\n")  # at most the reader's 64 KiB limit
        line = head.split(b"\r\n", 1)[0].decode("latin-1")
        method, _, rest = line.partition(" ")
        target = rest.rpartition(" ")[0]
        if method != "GET" or urlsplit(target).path != self.path:
            writer.write(
                b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
            )
            return
        writer.write(_PAGE)
        await writer.drain()
        if not self.received.done():
            parts = urlsplit(self.redirect_uri)
            self.received.set_result(f"{parts.scheme}://{parts.netloc}{target}")

    def close(self) -> None:
        self.server.close()
        if not self.received.done():
            self.received.cancel()
