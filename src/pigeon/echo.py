"""A small HTTP echo server for trying requests out and for tests (`pigeon echo`).

Every request gets a JSON description of itself. A few routes exercise a client:
``POST /login`` + ``GET /me`` (bearer tokens), ``/status/{code}``, ``/redirect/{n}``,
``/delay/{s}``, ``/bytes/{n}``, ``/json/large?mb=N``, ``/close-mid-body``, ``/image.png``,
``/cookies``, ``/cookies/set``, ``/cookies/delete``, ``/response-headers``, ``/gzip`` and
``/text?charset=NAME``. HTTP/1.1 with keep-alive, loopback by default, standard library only.
"""

from __future__ import annotations

import argparse
import contextlib
import email.parser
import email.policy
import gzip
import http.cookies
import ipaddress
import json
import random
import secrets
import signal
import socket
import ssl
import struct
import sys
import threading
import zlib
from collections.abc import Iterator
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any
from urllib.parse import parse_qs, urlsplit

MAX_REQUEST_BODY = 64 * 1024 * 1024
MAX_DELAY = 30.0
MAX_LARGE_JSON_MB = 200
MAX_REDIRECTS = 100
CHUNK = 64 * 1024
SAMPLE_TEXT = "Grüße aus Köln: café, crème brûlée, naïve façade."


def _png(width: int = 8, height: int = 8) -> bytes:
    """A small valid RGB PNG (a colour gradient), built by hand to avoid a dependency."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return (
            struct.pack(">I", len(data))
            + kind
            + data
            + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
        )

    rows = b"".join(
        b"\x00" + b"".join(bytes((x * 32, y * 32, 160)) for x in range(width))
        for y in range(height)
    )
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(rows, 9))
        + chunk(b"IEND", b"")
    )


PNG = _png()
_BYTES_BLOCK = random.Random(1234).randbytes(CHUNK)

_FIRST = [
    "Ada",
    "Alan",
    "Grace",
    "Edsger",
    "Barbara",
    "Donald",
    "Margaret",
    "Dennis",
    "Frances",
    "Ken",
    "Radia",
    "John",
    "Sophie",
    "Tim",
    "Hedy",
    "Linus",
    "Katherine",
    "Niklaus",
]
_LAST = [
    "Lovelace",
    "Turing",
    "Hopper",
    "Dijkstra",
    "Liskov",
    "Knuth",
    "Hamilton",
    "Ritchie",
    "Allen",
    "Thompson",
    "Perlman",
    "McCarthy",
    "Wilson",
    "Berners-Lee",
    "Lamarr",
    "Wirth",
]
_CITIES = [
    ("Berlin", "DE", 52.52, 13.405),
    ("Lyon", "FR", 45.764, 4.8357),
    ("Osaka", "JP", 34.6937, 135.5023),
    ("Austin", "US", 30.2672, -97.7431),
    ("Porto", "PT", 41.1579, -8.6291),
    ("Nairobi", "KE", -1.2921, 36.8219),
    ("Quito", "EC", -0.1807, -78.4678),
    ("Perth", "AU", -31.9523, 115.8613),
]
_STREETS = ["Main St", "Rue de la Paix", "Hauptstraße", "Elm Road", "Harbour Way", "Via Roma"]
_ROLES = ["admin", "editor", "viewer", "billing", "support", "developer"]
_TAGS = ["beta", "vip", "newsletter", "trial", "partner", "internal", "legacy", "mobile"]


def large_user(i: int) -> dict[str, Any]:
    """User number ``i`` of the large JSON document: deterministic, varied, nested."""
    first, last = _FIRST[i % len(_FIRST)], _LAST[(i * 7) % len(_LAST)]
    city, country, lat, lng = _CITIES[(i * 3) % len(_CITIES)]
    return {
        "id": i + 1,
        "username": f"{first.lower()}.{last.lower()}{i}",
        "name": f"{first} {last}",
        "email": f"{first.lower()}.{last.lower()}.{i}@example.com",
        "active": i % 5 != 0,
        "score": round((i * 37 % 1000) / 10, 1),
        "roles": [_ROLES[(i + k) % len(_ROLES)] for k in range(1 + i % 3)],
        "address": {
            "street": f"{1 + i % 250} {_STREETS[i % len(_STREETS)]}",
            "city": city,
            "country": country,
            "postcode": f"{10000 + (i * 7919) % 89999}",
            "geo": {
                "lat": round(lat + (i % 100) / 1000, 4),
                "lng": round(lng - (i % 100) / 1000, 4),
            },
        },
        "tags": [_TAGS[(i * k) % len(_TAGS)] for k in range(1, 1 + i % 4)],
        "created_at": f"20{10 + i % 15:02d}-{1 + i % 12:02d}-{1 + i % 28:02d}T{i % 24:02d}:{i % 60:02d}:00Z",
        "last_login": None if i % 7 == 0 else f"2026-{1 + i % 12:02d}-{1 + i % 28:02d}",
        "bio": f"{first} works on {_TAGS[i % len(_TAGS)]} projects in {city}.",
    }


def large_json_chunks(size: int) -> Iterator[bytes]:
    """A JSON array of users of about ``size`` bytes, in ~64 KiB pieces."""
    produced = 0
    i = 0
    parts: list[bytes] = [b"["]
    pending = 1
    while produced + pending < size or i == 0:
        item = json.dumps(large_user(i), ensure_ascii=False).encode("utf-8")
        if i:
            item = b",\n" + item
        parts.append(item)
        pending += len(item)
        i += 1
        if pending >= CHUNK:
            yield b"".join(parts)
            produced += pending
            parts, pending = [], 0
    parts.append(b"]\n")
    yield b"".join(parts)


class _ServerState:
    """What the routes remember between requests (issued tokens, connections seen)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.tokens: dict[str, str] = {}
        self.connections = 0
        self.requests = 0
        self.stopping = threading.Event()
        self.open_sockets: set[socket.socket] = set()


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    state: _ServerState
    quiet: bool
    ssl_context: ssl.SSLContext | None = None

    def handle_error(self, request: Any, client_address: Any) -> None:
        if not self.quiet:
            super().handle_error(request, client_address)


class _HTTP6Server(_HTTPServer):
    address_family = socket.AF_INET6


class _Reply:
    """A response to write: status, headers and a body (bytes or an iterator of chunks)."""

    def __init__(
        self,
        status: int = 200,
        body: bytes | Iterator[bytes] = b"",
        content_type: str | None = None,
        headers: list[tuple[str, str]] | None = None,
        length: int | None = None,
    ) -> None:
        self.status = status
        self.body = body
        self.headers = list(headers or [])
        if content_type:
            self.headers.insert(0, ("Content-Type", content_type))
        self.length = length


def _json_reply(
    data: Any, status: int = 200, headers: list[tuple[str, str]] | None = None
) -> _Reply:
    body = json.dumps(data, indent=2, ensure_ascii=False).encode("utf-8") + b"\n"
    return _Reply(status, body, "application/json", headers)


def _error(status: int, message: str, headers: list[tuple[str, str]] | None = None) -> _Reply:
    return _json_reply({"error": message, "status": status}, status, headers)


class EchoHandler(BaseHTTPRequestHandler):
    """Answers any method on any path; see the module docstring for the routes."""

    protocol_version = "HTTP/1.1"
    server_version = "PigeonEcho"
    timeout = 60  # an idle keep-alive connection is dropped after this
    disable_nagle_algorithm = True  # headers and body go in separate writes
    server: _HTTPServer

    # -- plumbing --

    def setup(self) -> None:
        context = self.server.ssl_context
        if context is not None:
            self.request.settimeout(10)
            self.request = context.wrap_socket(self.request, server_side=True)
        super().setup()
        state = self.server.state
        with state.lock:
            state.connections += 1
            state.open_sockets.add(self.connection)

    def finish(self) -> None:
        with self.server.state.lock:
            self.server.state.open_sockets.discard(self.connection)
        with contextlib.suppress(OSError):
            super().finish()

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        if not self.server.quiet:
            sys.stderr.write(f"{self.address_string()} - {format % args}\n")

    def __getattr__(self, name: str) -> Any:
        # BaseHTTPRequestHandler looks up do_<METHOD>: every method is answered the same way.
        if name.startswith("do_"):
            return self._handle
        raise AttributeError(name)

    def _read_body(self) -> bytes | None:
        """The request body, or None after replying with an error (connection closed)."""
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            data = bytearray()
            while True:
                line = self.rfile.readline(1024)
                try:
                    size = int(line.split(b";", 1)[0].strip() or b"x", 16)
                except ValueError:
                    self.close_connection = True
                    self._send(_error(400, "malformed chunked body"))
                    return None
                if size == 0:
                    while self.rfile.readline(1024) not in (b"\r\n", b"\n", b""):
                        pass
                    return bytes(data)
                if len(data) + size > MAX_REQUEST_BODY:
                    self.close_connection = True
                    self._send(_error(413, "request body too large"))
                    return None
                data += self.rfile.read(size)
                self.rfile.readline(1024)
        length_text = self.headers.get("Content-Length", "0") or "0"
        try:
            length = int(length_text)
        except ValueError:
            self.close_connection = True
            self._send(_error(400, f"bad Content-Length {length_text!r}"))
            return None
        if length > MAX_REQUEST_BODY:
            self.close_connection = True
            self._send(_error(413, "request body too large"))
            return None
        return self.rfile.read(length) if length > 0 else b""

    def _send(self, reply: _Reply) -> None:
        body = reply.body
        head = self.command == "HEAD"
        no_body = head or reply.status in (204, 304) or reply.status < 200
        self.send_response(reply.status)
        for key, value in reply.headers:
            self.send_header(key, value)
        if isinstance(body, bytes):
            if reply.status >= 200 and reply.status != 204:  # neither may carry a length
                self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if not no_body:
                self.wfile.write(body)
            return
        if reply.length is not None:
            self.send_header("Content-Length", str(reply.length))
            self.end_headers()
            if not no_body:
                for chunk in body:
                    self.wfile.write(chunk)
            return
        if no_body:
            self.end_headers()
            return
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        for chunk in body:
            if chunk:
                self.wfile.write(b"%X\r\n%s\r\n" % (len(chunk), chunk))
        self.wfile.write(b"0\r\n\r\n")

    def _handle(self) -> None:
        with self.server.state.lock:
            self.server.state.requests += 1
        body = self._read_body()
        if body is None:
            return
        try:
            reply = self._route(body)
        except Exception as exc:  # a bug in a route must not kill the connection silently
            reply = _error(500, f"{type(exc).__name__}: {exc}")
        if reply is not None:
            try:
                self._send(reply)
            except (BrokenPipeError, ConnectionResetError):
                self.close_connection = True

    # -- description of the request --

    def describe(self, body: bytes) -> dict[str, Any]:
        parts = urlsplit(self.path)
        host = self.headers.get("Host", "")
        scheme = "https" if self.server.ssl_context is not None else "http"
        ctype = self.headers.get("Content-Type", "")
        info: dict[str, Any] = {
            "method": self.command,
            "url": f"{scheme}://{host}{self.path}" if host else self.path,
            "path": parts.path,
            "query": parse_qs(parts.query, keep_blank_values=True),
            "headers": [[k, v] for k, v in self.headers.items()],
            "http_version": self.request_version,
            "client": f"{self.client_address[0]}:{self.client_address[1]}",
            "size": len(body),
            "body": body.decode("utf-8", errors="replace"),
        }
        media = ctype.split(";", 1)[0].strip().lower()
        if body:
            with contextlib.suppress(ValueError):
                info["json"] = json.loads(body)
        if media == "application/x-www-form-urlencoded":
            info["form"] = parse_qs(body.decode("utf-8", errors="replace"), keep_blank_values=True)
        elif media == "multipart/form-data":
            info["form"], info["files"] = _parse_multipart(ctype, body)
        return info

    # -- routes --

    def _route(self, body: bytes) -> _Reply | None:
        parts = urlsplit(self.path)
        path = parts.path.rstrip("/") or "/"
        query = parse_qs(parts.query, keep_blank_values=True)
        segments = path.strip("/").split("/")
        head, arg = segments[0], "/".join(segments[1:])
        if path == "/login" and self.command == "POST":
            return self._login(body)
        if path == "/me":
            return self._me()
        if head == "status" and arg:
            return self._status(arg, body)
        if head == "redirect" and arg:
            return self._redirect(arg, query, body)
        if head == "delay" and arg:
            return self._delay(arg, body)
        if head == "bytes" and arg:
            return self._bytes(arg)
        if path == "/json/large":
            return self._large_json(query)
        if path == "/close-mid-body":
            self._close_mid_body()
            return None
        if path == "/image.png":
            return _Reply(200, PNG, "image/png")
        if path == "/cookies":
            return _json_reply({"cookies": self._cookies()})
        if path == "/cookies/set":
            return self._set_cookies(query)
        if path == "/cookies/delete":
            return self._delete_cookies(query)
        if path == "/response-headers":
            headers = [(k, v) for k, values in query.items() for v in values]
            return _json_reply({"headers": [[k, v] for k, v in headers]}, 200, headers)
        if path == "/gzip":
            data = json.dumps({"gzipped": True, **self.describe(body)}, indent=2).encode()
            return _Reply(
                200, gzip.compress(data), "application/json", [("Content-Encoding", "gzip")]
            )
        if path == "/text":
            return self._text(query)
        return _json_reply(self.describe(body))

    def _login(self, body: bytes) -> _Reply:
        ctype = self.headers.get("Content-Type", "").split(";", 1)[0].strip().lower()
        fields: dict[str, Any] = {}
        # JSON when declared or when it looks like it (curl -d labels everything a form).
        if ctype.endswith("json") or body.lstrip().startswith(b"{"):
            try:
                data = json.loads(body or b"null")
            except ValueError:
                return _error(400, "send username and password as JSON or a form")
            if isinstance(data, dict):
                fields = data
        else:
            fields = {k: v[-1] for k, v in parse_qs(body.decode("utf-8", "replace")).items()}
        username, password = fields.get("username"), fields.get("password")
        if not isinstance(username, str) or not username or not isinstance(password, str):
            return _error(400, "username and password are required")
        if not password:
            return _error(401, "wrong username or password")
        token = secrets.token_urlsafe(24)
        with self.server.state.lock:
            self.server.state.tokens[token] = username
        return _json_reply({"token": token, "token_type": "Bearer", "expires_in": 3600})

    def _me(self) -> _Reply:
        challenge = [("WWW-Authenticate", 'Bearer realm="pigeon-echo"')]
        auth = self.headers.get("Authorization", "")
        scheme, _, token = auth.partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            return _error(401, "missing bearer token", challenge)
        with self.server.state.lock:
            username = self.server.state.tokens.get(token.strip())
        if username is None:
            return _error(401, "invalid or expired token", challenge)
        user_id = 1 + zlib.crc32(username.encode()) % 100000
        return _json_reply(
            {
                "id": user_id,
                "username": username,
                "email": f"{username}@example.com",
                "roles": ["user"],
            }
        )

    def _status(self, arg: str, body: bytes) -> _Reply:
        try:
            code = int(arg)
        except ValueError:
            return _error(400, f"not a status code: {arg!r}")
        if not 100 <= code <= 599:
            return _error(400, f"status code out of range: {code}")
        if code == 101:
            return _error(400, "101 Switching Protocols is not available here")
        if code < 200:
            # An informational response is never final: send it, then a 200.
            self.send_response_only(code)
            self.end_headers()
            return _json_reply({"informational": code})
        try:
            phrase = HTTPStatus(code).phrase
        except ValueError:
            phrase = ""
        headers = [("Location", "/")] if 300 <= code < 400 else []
        if code in (204, 304):
            return _Reply(code, b"", None, headers)
        return _json_reply({"status": code, "reason": phrase}, code, headers)

    def _redirect(self, arg: str, query: dict[str, list[str]], body: bytes) -> _Reply:
        try:
            hops = int(arg)
        except ValueError:
            return _error(400, f"not a number of hops: {arg!r}")
        if not 0 <= hops <= MAX_REDIRECTS:
            return _error(400, f"hops must be between 0 and {MAX_REDIRECTS}")
        if hops == 0:
            return _json_reply(self.describe(body))
        status = int(query.get("status", ["302"])[-1])
        if status not in (301, 302, 303, 307, 308):
            return _error(400, "status must be one of 301, 302, 303, 307, 308")
        suffix = f"?status={status}" if "status" in query else ""
        return _Reply(status, b"", None, [("Location", f"/redirect/{hops - 1}{suffix}")])

    def _delay(self, arg: str, body: bytes) -> _Reply:
        try:
            seconds = float(arg)
        except ValueError:
            return _error(400, f"not a number of seconds: {arg!r}")
        seconds = max(0.0, min(seconds, MAX_DELAY))
        self.server.state.stopping.wait(seconds)
        return _json_reply({"delay": seconds, **self.describe(body)})

    def _bytes(self, arg: str) -> _Reply:
        try:
            size = int(arg)
        except ValueError:
            return _error(400, f"not a number of bytes: {arg!r}")
        if size < 0:
            return _error(400, "the number of bytes must not be negative")

        def chunks() -> Iterator[bytes]:
            left = size
            while left > 0:
                piece = _BYTES_BLOCK[: min(left, CHUNK)]
                left -= len(piece)
                yield piece

        return _Reply(200, chunks(), "application/octet-stream", length=size)

    def _large_json(self, query: dict[str, list[str]]) -> _Reply:
        try:
            mb = float(query.get("mb", ["1"])[-1])
        except ValueError:
            return _error(400, "mb must be a number")
        mb = max(0.0, min(mb, MAX_LARGE_JSON_MB))
        return _Reply(200, large_json_chunks(int(mb * 1024 * 1024)), "application/json")

    def _close_mid_body(self) -> None:
        self.close_connection = True
        self.send_response(200)
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Content-Length", "1000")
        self.end_headers()
        self.wfile.write(b"x" * 100)
        self.wfile.flush()
        with contextlib.suppress(OSError):
            self.connection.shutdown(socket.SHUT_RDWR)

    def _cookies(self) -> dict[str, str]:
        jar = http.cookies.SimpleCookie()
        try:
            jar.load(self.headers.get("Cookie", ""))
        except http.cookies.CookieError:
            return {}
        return {key: morsel.value for key, morsel in jar.items()}

    def _set_cookies(self, query: dict[str, list[str]]) -> _Reply:
        cookies = self._cookies()
        headers = []
        for name, values in query.items():
            headers.append(("Set-Cookie", f"{name}={values[-1]}; Path=/"))
            cookies[name] = values[-1]
        return _json_reply({"cookies": cookies}, 200, headers)

    def _delete_cookies(self, query: dict[str, list[str]]) -> _Reply:
        cookies = self._cookies()
        headers = []
        for name in query:
            headers.append(("Set-Cookie", f"{name}=; Path=/; Max-Age=0"))
            cookies.pop(name, None)
        return _json_reply({"cookies": cookies}, 200, headers)

    def _text(self, query: dict[str, list[str]]) -> _Reply:
        charset = query.get("charset", ["utf-8"])[-1]
        text = query.get("text", [SAMPLE_TEXT])[-1]
        try:
            data = text.encode(charset)
        except LookupError:
            return _error(400, f"unknown charset {charset!r}")
        except UnicodeEncodeError:
            return _error(400, f"the text cannot be written in {charset}")
        return _Reply(200, data, f"text/plain; charset={charset}")


def _parse_multipart(
    content_type: str, body: bytes
) -> tuple[dict[str, list[str]], list[dict[str, Any]]]:
    """Form fields and file descriptions of a multipart/form-data body."""
    message = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(
        b"Content-Type: " + content_type.encode("latin-1") + b"\r\n\r\n" + body
    )
    fields: dict[str, list[str]] = {}
    files: list[dict[str, Any]] = []
    if not message.is_multipart():
        return fields, files
    for part in message.iter_parts():
        name = part.get_param("name", header="content-disposition")
        filename = part.get_filename()
        payload = part.get_payload(decode=True) or b""
        if filename is not None:
            files.append(
                {
                    "name": name,
                    "filename": filename,
                    "content_type": part.get_content_type(),
                    "size": len(payload),
                }
            )
        elif name is not None:
            fields.setdefault(str(name), []).append(payload.decode("utf-8", errors="replace"))
    return fields, files


class EchoServer:
    """The echo server in a daemon thread: ``with EchoServer() as server: server.url``."""

    def __init__(
        self,
        host: str = "127.0.0.1",
        port: int = 0,
        *,
        quiet: bool = True,
        ssl_context: ssl.SSLContext | None = None,
        sock: socket.socket | None = None,
    ) -> None:
        """``sock``: a socket already bound and listening, to serve on instead of binding
        one (its port can be handed out before this module is even imported)."""
        self.host = host
        self._sock = sock
        self._requested_port = port
        self._bound_port = 0
        self.quiet = quiet
        self.ssl_context = ssl_context
        self.state = _ServerState()
        self._server: _HTTPServer | None = None
        self._thread: threading.Thread | None = None

    def _bind(self) -> _HTTPServer:
        cls = _HTTP6Server if ":" in self.host else _HTTPServer
        if self._sock is not None:
            server = cls((self.host, self._requested_port), EchoHandler, bind_and_activate=False)
            server.socket.close()
            server.socket, self._sock = self._sock, None
            server.server_address = server.socket.getsockname()[:2]
        else:
            server = cls((self.host, self._requested_port), EchoHandler)
        server.state = self.state
        server.quiet = self.quiet
        server.ssl_context = self.ssl_context
        return server

    def start(self) -> EchoServer:
        """Bind (OSError if the port is taken) and serve in a daemon thread."""
        if self._server is not None:
            return self
        self._server = self._bind()
        self._bound_port = int(self._server.server_address[1])
        self._thread = threading.Thread(
            target=self._server.serve_forever,
            kwargs={"poll_interval": 0.05},
            name=f"pigeon-echo-{self.port}",
            daemon=True,
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving, wake delayed replies and close open connections."""
        server = self._server
        if server is None:
            return
        self.state.stopping.set()
        if self._thread is not None:
            server.shutdown()
            self._thread.join(timeout=5)
            self._thread = None
        self._close()

    def _close(self) -> None:
        server, self._server = self._server, None
        if server is None:
            return
        server.server_close()
        with self.state.lock:
            sockets = list(self.state.open_sockets)
        for sock in sockets:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)

    @property
    def port(self) -> int:
        """The bound port (still known after ``stop()``), or the requested one before start."""
        if self._server is not None:
            self._bound_port = int(self._server.server_address[1])
        return self._bound_port or self._requested_port

    @property
    def url(self) -> str:
        """The base URL, without a trailing slash."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        scheme = "https" if self.ssl_context is not None else "http"
        return f"{scheme}://{host}:{self.port}"

    @property
    def connection_count(self) -> int:
        """Connections accepted so far (lets tests see connection reuse)."""
        with self.state.lock:
            return self.state.connections

    @property
    def request_count(self) -> int:
        with self.state.lock:
            return self.state.requests

    def __enter__(self) -> EchoServer:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def main(argv: list[str] | None = None) -> int:
    """``pigeon echo [--host 127.0.0.1] [--port 8787] [--quiet]``; Ctrl-C stops it."""
    parser = argparse.ArgumentParser(
        prog="pigeon echo", description="Run the built-in echo server."
    )
    parser.add_argument(
        "--host", default="127.0.0.1", help="address to listen on (default: 127.0.0.1)"
    )
    parser.add_argument("--port", type=int, default=8787, help="port (default: 8787; 0 picks one)")
    parser.add_argument("--quiet", action="store_true", help="do not log requests")
    args = parser.parse_args(argv)
    if not 0 <= args.port <= 65535:
        print(f"pigeon echo: port out of range: {args.port}", file=sys.stderr)
        return 2
    server = EchoServer(args.host, args.port, quiet=args.quiet)
    try:
        server.start()
    except OSError as exc:
        print(
            f"pigeon echo: cannot listen on {args.host}:{args.port}: {exc.strerror or exc}",
            file=sys.stderr,
        )
        return 1
    if not _is_loopback(args.host):
        print(
            f"pigeon echo: warning: {args.host} is reachable from other machines", file=sys.stderr
        )
    print(f"Pigeon echo server on {server.url} (Ctrl-C to stop)", flush=True)
    stop = threading.Event()
    previous = None
    if threading.current_thread() is threading.main_thread():
        previous = signal.signal(signal.SIGTERM, lambda *_: stop.set())
    try:
        while not stop.wait(0.5):
            pass
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)
    print("Stopped.", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
