"""The echo server's request handler: HTTP plumbing (bodies in, replies out) and the routes.

Every request gets a JSON description of itself unless a route says otherwise. The routes
exercise a client: bearer login, status codes, redirects, delays, sized and chunked bodies, a
connection closed mid-body, cookies, chosen response headers, gzip and text in any charset (the
list is in ``pigeon.echo``'s docstring). ``ServerState`` is what the routes remember between
requests; the lifecycle lives in ``server.py``.
"""

from __future__ import annotations

import contextlib
import email.parser
import email.policy
import gzip
import http.cookies
import json
import secrets
import socket
import ssl
import sys
import threading
import zlib
from collections.abc import Iterator
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

from pigeon.echo.data import BYTES_BLOCK, CHUNK, PNG, SAMPLE_TEXT, large_json_chunks

MAX_REQUEST_BODY = 64 * 1024 * 1024
MAX_DELAY = 30.0
MAX_LARGE_JSON_MB = 200
MAX_REDIRECTS = 100


class ServerState:
    """What the routes remember between requests (issued tokens, connections seen)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.tokens: dict[str, str] = {}
        self.connections = 0
        self.requests = 0
        self.stopping = threading.Event()
        self.open_sockets: set[socket.socket] = set()


class EchoHTTPServer(ThreadingHTTPServer):
    """The standard library's threading server, carrying the routes' shared state; tracebacks
    from broken connections are printed only when the server is not quiet."""

    daemon_threads = True
    allow_reuse_address = True
    state: ServerState
    quiet: bool
    ssl_context: ssl.SSLContext | None = None

    def handle_error(self, request: Any, client_address: Any) -> None:
        if not self.quiet:
            super().handle_error(request, client_address)


class EchoHTTP6Server(EchoHTTPServer):
    """The same, listening on an IPv6 address."""

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
    server: EchoHTTPServer

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
                piece = BYTES_BLOCK[: min(left, CHUNK)]
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
        raw = part.get_payload(decode=True)  # bytes for a leaf part, None for a multipart one
        payload = raw if isinstance(raw, bytes) else b""
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
