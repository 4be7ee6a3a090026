"""A loopback server that takes uploads and says what arrived: each request's method, path,
headers, and its body's size and SHA-256 (and the bytes themselves, unless told to discard
them, as a benchmark's 1 GB must be). ``/redirect/CODE`` answers with that redirect to
``/landed`` once the body has been read, as a server that moved a resource does."""

from __future__ import annotations

import contextlib
import hashlib
import http.server
import json
from collections.abc import Iterator
from dataclasses import dataclass, field

from servers import serving

HOST = "127.0.0.1"


@dataclass
class Upload:
    method: str
    path: str
    headers: dict[str, str]  # lower-cased names
    size: int
    sha256: str
    body: bytes = b""


@dataclass
class UploadServer:
    url: str
    keep: bool = True
    seen: list[Upload] = field(default_factory=list)


class _Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def _handle(self) -> None:
        server: UploadServer = self.server.upload  # type: ignore[attr-defined]
        headers = {k.lower(): v for k, v in self.headers.items()}
        digest, size, kept = hashlib.sha256(), 0, bytearray()
        if "transfer-encoding" in headers:  # never expected: the tests check it is absent
            self.send_response(411)
            self.send_header("Content-Length", "0")
            self.send_header("Connection", "close")
            self.end_headers()
            server.seen.append(Upload(self.command, self.path, headers, -1, ""))
            return
        left = int(headers.get("content-length", "0") or 0)
        while left:
            chunk = self.rfile.read(min(left, 1 << 20))
            if not chunk:
                break
            left -= len(chunk)
            size += len(chunk)
            digest.update(chunk)
            if server.keep:
                kept += chunk
        server.seen.append(
            Upload(self.command, self.path, headers, size, digest.hexdigest(), bytes(kept))
        )
        if self.path.startswith("/redirect/"):
            self.send_response(int(self.path.rsplit("/", 1)[1]))
            self.send_header("Location", "/landed")
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        answer = json.dumps({"size": size, "sha256": digest.hexdigest()}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)

    do_GET = do_POST = do_PUT = do_PATCH = _handle

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        pass


@contextlib.contextmanager
def upload_server(keep: bool = True) -> Iterator[UploadServer]:
    """An :class:`UploadServer` on 127.0.0.1, stopped on exit."""
    httpd = http.server.ThreadingHTTPServer((HOST, 0), _Handler)
    httpd.daemon_threads = True
    server = UploadServer(f"http://{HOST}:{httpd.server_address[1]}", keep)
    httpd.upload = server  # type: ignore[attr-defined]
    with serving(httpd):
        yield server
