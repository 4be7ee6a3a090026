"""A loopback server of streams that take their time: Server-Sent Events and trickled text.

``GET /sse`` sends events ``id: n``, ``event: tick`` (``type=`` names another), data
``{"n": n}``, one every ``interval`` seconds (0: as fast as the socket takes them), ``count``
of them (0: until the client goes or the server stops), a ``retry:`` first when ``retry=`` is
given. A ``Last-Event-ID`` header resumes after that id. ``drop=k`` cuts the connection after
``k`` events without ending the chunked body: a dropped stream. ``GET /trickle`` sends
``lines`` lines of text, one every ``interval`` seconds. Every stream ends within
``LIFETIME`` seconds whatever the client does.
"""

from __future__ import annotations

import http.server
import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from urllib.parse import parse_qs, urlsplit

LIFETIME = 60.0


class _Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def log_message(self, format: str, *args: object) -> None:
        pass

    def _chunk(self, data: bytes) -> None:
        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
        self.wfile.flush()

    def do_GET(self) -> None:
        parts = urlsplit(self.path)
        query = {k: v[-1] for k, v in parse_qs(parts.query).items()}
        last_id = self.headers.get("Last-Event-ID")
        self.server.last_ids.append(last_id)
        kind = "text/event-stream" if parts.path == "/sse" else "text/plain; charset=utf-8"
        self.send_response(200)
        self.send_header("Content-Type", kind)
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        try:
            if parts.path == "/sse":
                self._events(query, last_id)
            else:
                self._trickle(query)
        except OSError:  # the client went away
            self.close_connection = True

    def _wait(self, interval: float, deadline: float) -> bool:
        """Pause; ``False`` when the stream must end (server stopping, lifetime over)."""
        if interval > 0 and self.server.stopping.wait(interval):
            return False
        return time.monotonic() < deadline and not self.server.stopping.is_set()

    def _events(self, query: dict[str, str], last_id: str | None) -> None:
        count = int(query.get("count", "0"))
        interval = float(query.get("interval", "0.05"))
        drop = int(query.get("drop", "0"))
        kind = query.get("type", "tick")
        batch = int(query.get("batch", "1"))
        deadline = time.monotonic() + LIFETIME
        if "retry" in query:
            self._chunk(f"retry: {query['retry']}\n\n".encode())
        first = int(last_id) + 1 if last_id and last_id.isdigit() else 1
        n, sent = first, 0
        while (count == 0 or n < first + count) and self._wait(interval, deadline):
            block = []
            for _ in range(batch):
                block.append(f"id: {n}\nevent: {kind}\ndata: {json.dumps({'n': n})}\n\n")
                n, sent = n + 1, sent + 1
                if drop and sent >= drop:
                    break
            self._chunk("".join(block).encode())
            if drop and sent >= drop:
                self.close_connection = True
                return  # no last chunk: the body is cut
        self.wfile.write(b"0\r\n\r\n")

    def _trickle(self, query: dict[str, str]) -> None:
        lines = int(query.get("lines", "20"))
        interval = float(query.get("interval", "0.05"))
        deadline = time.monotonic() + LIFETIME
        for n in range(1, lines + 1):
            if not self._wait(interval, deadline):
                break
            self._chunk(f"line {n}\n".encode())
        self.wfile.write(b"0\r\n\r\n")


class _Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.stopping = threading.Event()
        self.last_ids: list[str | None] = []  # the Last-Event-ID of each request (None: none)


class StreamServer:
    """The running server: ``url`` is its base, ``last_ids`` what each request resumed from."""

    def __init__(self, server: _Server) -> None:
        self._server = server
        self.url = f"http://127.0.0.1:{server.server_address[1]}"

    @property
    def last_ids(self) -> list[str | None]:
        return self._server.last_ids


@contextmanager
def stream_server() -> Iterator[StreamServer]:
    server = _Server()
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05})
    thread.daemon = True
    thread.start()
    try:
        yield StreamServer(server)
    finally:
        server.stopping.set()
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
