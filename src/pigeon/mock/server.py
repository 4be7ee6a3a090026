"""``pigeon mock``'s HTTP server (DESIGN §14): each call answered from a saved example.

Built on the standard library's threading server, as the echo server is: no extra dependency,
and a thread per connection answers a hundred clients at once (``tests/mock``). It is bounded
all the same: at most ``MAX_CONNECTIONS`` connections (one more is answered 503 and closed), a
request body over ``MAX_BODY`` is refused 413 from its length alone, and a reaper closes a
connection whose request has not arrived whole within ``deadline`` seconds, and a write
waits as long at most (a slow client, sending or reading, cannot hold a thread). An example's body is a template rendered per call in the call's own
scope -- ``request.path``, ``request.query``, ``request.headers``, ``request.body`` and the
dynamic values -- never the process environment, ``.env`` or a secret.
"""

from __future__ import annotations

import contextlib
import json
import socket
import sys
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any
from urllib.parse import parse_qsl, unquote, urlsplit

from pigeon.mock.routes import Route, closest, match
from pigeon.model import Example
from pigeon.render import render_json, render_text
from pigeon.scopes import Layer, Scopes

MAX_BODY = 10 * 1024 * 1024  # a request body larger is refused (413) unread
MAX_PATH = 8 * 1024  # a longer request target is refused (414)
MAX_CONNECTIONS = 256
DEADLINE = 10.0  # seconds for a request to arrive whole, and for an idle keep-alive


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    routes: list[Route]
    log: Callable[[str], None] | None
    delay: float
    deadline: float
    slots: threading.BoundedSemaphore
    lock: threading.Lock
    deadlines: dict[socket.socket, float]
    stopping: threading.Event

    def process_request(self, request: Any, client_address: Any) -> None:
        if not self.slots.acquire(blocking=False):  # full: refuse at once, never queue
            with contextlib.suppress(OSError):
                request.sendall(
                    b"HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\n"
                    b"Connection: close\r\nRetry-After: 1\r\n\r\n"
                )
            self.shutdown_request(request)
            return
        try:
            super().process_request(request, client_address)
        except BaseException:
            self.slots.release()
            raise

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            with self.lock:
                self.deadlines.pop(request, None)
            self.slots.release()

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # a client gone mid-reply is not the server's error

    def reap(self) -> None:
        """Close every connection past its deadline, until the server stops."""
        while not self.stopping.wait(min(0.2, self.deadline / 4)):
            now = time.monotonic()
            with self.lock:
                late = [s for s, at in self.deadlines.items() if at < now]
                for sock in late:
                    del self.deadlines[sock]
            for sock in late:
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)


class _Server6(_Server):
    address_family = socket.AF_INET6


class _Reply:
    def __init__(
        self, status: int, body: bytes, headers: list[tuple[str, str]], example: str = ""
    ) -> None:
        self.status, self.body, self.headers, self.example = status, body, headers, example


def _json_reply(
    status: int, data: dict[str, Any], extra: tuple[tuple[str, str], ...] = ()
) -> _Reply:
    body = json.dumps(data, indent=2, ensure_ascii=False).encode() + b"\n"
    return _Reply(status, body, [("Content-Type", "application/json"), *extra])


class MockHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "PigeonMock"
    sys_version = ""  # the Server header names no Python version
    disable_nagle_algorithm = True
    server: _Server

    def setup(self) -> None:
        super().setup()
        # a client that stops reading cannot hold the thread: each write waits this long at most
        self.connection.settimeout(max(self.server.deadline, 1.0))
        self._arm()

    def _arm(self) -> None:
        with self.server.lock:
            self.server.deadlines[self.request] = time.monotonic() + self.server.deadline

    def _disarm(self) -> None:
        with self.server.lock:
            self.server.deadlines.pop(self.request, None)

    def handle_one_request(self) -> None:
        self._arm()  # the next request line, headers and body: all within the deadline
        super().handle_one_request()

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        pass  # one line per call, written by _answer

    def log_error(self, format: str, *args: Any) -> None:  # noqa: A002
        pass

    def __getattr__(self, name: str) -> Any:
        if name.startswith("do_"):  # every method, custom ones too
            return self._answer
        raise AttributeError(name)

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        """The standard library's own refusals (a line too long, a bad request line) as
        this server's JSON, the connection closed."""
        self.close_connection = True
        self.request_version = "HTTP/1.1"  # a status line even for what looked like HTTP/0.9
        reply = _json_reply(code, {"error": message or self.responses.get(code, ("",))[0]})
        with contextlib.suppress(OSError):
            self._write(reply, head=False)

    # -- one call --

    def _answer(self) -> None:
        started = time.perf_counter()
        try:
            reply = self._reply()
        except Exception as exc:  # a bug must answer, not drop the connection unanswered
            self.close_connection = True
            reply = _json_reply(500, {"error": f"{type(exc).__name__}: {exc}"})
        self._disarm()  # the request is in: the reply's writes have the socket's timeout
        if self.server.delay and reply.status < 500:
            self.server.stopping.wait(self.server.delay)
        try:
            self._write(reply, head=self.command == "HEAD")
        except OSError:
            self.close_connection = True
        log = self.server.log
        if log is not None:
            ms = (time.perf_counter() - started) * 1000
            shown = self.path if len(self.path) <= 200 else self.path[:200] + "…"
            shown = shown.encode("ascii", "backslashreplace").decode()
            example = f" {reply.example}" if reply.example else ""
            log(f"{self.command} {shown} → {reply.status}{example} ({ms:.0f} ms)")

    def _reply(self) -> _Reply:
        if len(self.path) > MAX_PATH:
            self.close_connection = True
            return _json_reply(414, {"error": "request target too long"})
        body = self._body()
        if isinstance(body, _Reply):
            return body
        target = urlsplit(self.path)
        raw_path = target.path or "/"
        path = unquote(raw_path, errors="replace") if "%" in raw_path else raw_path
        problem = _path_problem(raw_path, path)
        if problem:
            return _json_reply(400, {"error": problem})
        found = match(self.server.routes, self.command, path)
        if found is None:
            return self._not_found(path)
        if found.route is None:
            allow = ", ".join(found.allowed)
            return _json_reply(
                405,
                {
                    "error": f"{self.command} is not served for {path}",
                    "allowed": list(found.allowed),
                },
                (("Allow", allow),),
            )
        query = dict(parse_qsl(target.query, keep_blank_values=True))
        wanted = query.get("example") or _preferred(self.headers.get("Prefer", ""))
        example = found.route.example(wanted)
        if example is None:
            names = [e.name for e in found.route.examples]
            return _json_reply(404, {"error": f"no example named {wanted!r}", "examples": names})
        scope = {
            "path": found.values,
            "query": query,
            "headers": {k.lower(): v for k, v in self.headers.items()},
            "body": _body_value(body),
        }
        return _example_reply(found.route, example, scope)

    def _body(self) -> bytes | _Reply:
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            data = bytearray()
            while True:
                line = self.rfile.readline(1024)
                try:
                    size = int(line.split(b";", 1)[0].strip() or b"x", 16)
                except ValueError:
                    self.close_connection = True
                    return _json_reply(400, {"error": "malformed chunked body"})
                if size == 0:
                    while self.rfile.readline(1024) not in (b"\r\n", b"\n", b""):
                        pass
                    return bytes(data)
                if len(data) + size > MAX_BODY:
                    self.close_connection = True
                    return _json_reply(413, {"error": "request body too large"})
                data += self.rfile.read(size)
                self.rfile.readline(1024)
        text = self.headers.get("Content-Length", "0") or "0"
        if not text.isdigit():
            self.close_connection = True
            return _json_reply(400, {"error": f"bad Content-Length {text[:40]!r}"})
        length = int(text)
        if length > MAX_BODY:
            self.close_connection = True  # the body is never read
            return _json_reply(413, {"error": f"request body over {MAX_BODY} bytes"})
        return self.rfile.read(length) if length else b""

    def _not_found(self, path: str) -> _Reply:
        near = closest(self.server.routes, self.command, path)
        message = f"no request matches {self.command} {path}"
        accept = self.headers.get("Accept", "")
        if "text/plain" in accept and "json" not in accept:
            lines = [message, *(["closest:"] + [f"  {n}" for n in near] if near else [])]
            return _Reply(
                404,
                ("\n".join(lines) + "\n").encode(),
                [("Content-Type", "text/plain; charset=utf-8")],
            )
        return _json_reply(404, {"error": message, "closest": near})

    def _write(self, reply: _Reply, head: bool) -> None:
        self.send_response(reply.status)
        names = {k.lower() for k, _ in reply.headers}
        for key, value in reply.headers:
            if key.lower() not in ("content-length", "transfer-encoding", "connection"):
                self.send_header(key, value)
        if "content-type" not in names and reply.body:
            self.send_header("Content-Type", "application/octet-stream")
        if reply.status >= 200 and reply.status not in (204, 304):
            self.send_header("Content-Length", str(len(reply.body)))
        if self.close_connection:
            self.send_header("Connection", "close")
        self.end_headers()
        if not head and reply.status >= 200 and reply.status not in (204, 304):
            self.wfile.write(reply.body)


def _path_problem(raw: str, path: str) -> str | None:
    """Why a request path is refused (400): not absolute, ``..`` or ``.`` segments, control
    characters (NUL among them) once decoded."""
    if not raw.startswith("/"):
        return "the request target must be a path starting with /"
    if any(ord(c) < 32 or ord(c) == 127 for c in path):
        return "the path holds a control character"
    if any(part in (".", "..") for part in path.split("/")):
        return "the path holds a '.' or '..' segment"
    return None


def _preferred(prefer: str) -> str | None:
    """``Prefer: example=NAME`` (RFC 7240's form, among other preferences)."""
    for part in prefer.split(","):
        key, _, value = part.strip().partition("=")
        if key.strip().lower() == "example" and value.strip():
            return value.strip().strip('"')
    return None


def _body_value(body: bytes) -> Any:
    text = body.decode("utf-8", "replace")
    try:
        return json.loads(text)
    except ValueError:
        return text


def _example_reply(route: Route, example: Example, request: dict[str, Any]) -> _Reply:
    """The example as a reply: headers and body rendered in the call's scope (a body from a
    file goes as it is)."""
    scopes = Scopes([Layer("request", "this call", {"request": request})], environ={}, dotenv={})
    headers = [(h.name, render_text(h.value, scopes).text) for h in example.headers if h.enabled]
    # a rendered value goes out as its UTF-8 bytes; one that would split the header is dropped
    headers = [
        (k, v.encode().decode("latin-1")) for k, v in headers if not any(c in v for c in "\r\n\x00")
    ]
    content_type = next((v for k, v in headers if k.lower() == "content-type"), "")
    if example.body_file:
        body = route.files.get(example.name, b"")
    elif "json" in content_type.lower() or (
        not content_type
        and example.body.lstrip()[:2] not in ("", "{{")
        and example.body.lstrip()[0] in "{["
    ):
        body = render_json(example.body, scopes).text.encode()
        if not content_type:
            headers.append(("Content-Type", "application/json"))
    else:
        body = render_text(example.body, scopes).text.encode()
        if not content_type and body:
            headers.append(("Content-Type", "text/plain; charset=utf-8"))
    return _Reply(example.status, body, headers, example.name)


class MockServer:
    """The mock server in a daemon thread: ``with MockServer(routes) as server: server.url``."""

    def __init__(
        self,
        routes: list[Route],
        host: str = "127.0.0.1",
        port: int = 0,
        *,
        log: Callable[[str], None] | None = None,
        delay: float = 0.0,
        deadline: float = DEADLINE,
        max_connections: int = MAX_CONNECTIONS,
    ) -> None:
        self.routes, self.host, self._port = routes, host, port
        self.log, self.delay, self.deadline = log, delay, deadline
        self.max_connections = max_connections
        self._server: _Server | None = None
        self._threads: list[threading.Thread] = []

    def start(self) -> MockServer:
        """Bind (OSError if the address is taken) and serve."""
        cls = _Server6 if ":" in self.host else _Server
        server = cls((self.host, self._port), MockHandler, bind_and_activate=False)
        server.routes, server.log, server.delay = self.routes, self.log, self.delay
        server.deadline = self.deadline
        server.slots = threading.BoundedSemaphore(self.max_connections)
        server.lock = threading.Lock()
        server.deadlines = {}
        server.stopping = threading.Event()
        server.request_queue_size = 128
        try:
            server.server_bind()
            server.server_activate()
        except OSError:
            server.server_close()
            raise
        self._server = server
        self._port = int(server.server_address[1])
        for target, name in ((server.serve_forever, "serve"), (server.reap, "reap")):
            thread = threading.Thread(target=target, name=f"pigeon-mock-{name}", daemon=True)
            thread.start()
            self._threads.append(thread)
        return self

    def stop(self) -> None:
        server, self._server = self._server, None
        if server is None:
            return
        server.stopping.set()
        server.shutdown()
        for thread in self._threads:
            thread.join(timeout=5)
        self._threads = []
        server.server_close()
        with server.lock:
            open_sockets = list(server.deadlines)
        for sock in open_sockets:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)

    @property
    def port(self) -> int:
        return self._port

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self._port}"

    def __enter__(self) -> MockServer:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()


def stderr_log(line: str) -> None:
    """A call's log line on stderr, in the terminal's encoding whatever it holds."""
    encoding = sys.stderr.encoding or "utf-8"
    sys.stderr.write(line.encode(encoding, "replace").decode(encoding) + "\n")
    sys.stderr.flush()
