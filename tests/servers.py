"""Purpose-made servers on 127.0.0.1 for testing failures a well-behaved server never shows.

Each is a context manager that yields a URL (or a port) and stops its thread on exit.
"""

from __future__ import annotations

import contextlib
import http.server
import itertools
import json
import socket
import socketserver
import ssl
import threading
from collections.abc import Callable, Iterable, Iterator

import trustme

from pigeon.echo import EchoServer

HOST = "127.0.0.1"


@contextlib.contextmanager
def serving(httpd: socketserver.BaseServer) -> Iterator[None]:
    """``httpd`` answering on a thread of its own while the block runs, then shut and closed:
    every loopback server here stops by itself."""
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05})
    thread.daemon = True
    thread.start()
    try:
        yield
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=5)


class _Acceptor:
    """Accepts connections on a loopback socket in a daemon thread and hands each to ``on_accept``."""

    def __init__(self, on_accept: Callable[[socket.socket, threading.Event], None]) -> None:
        self.on_accept = on_accept
        self.stop = threading.Event()
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind((HOST, 0))
        self.sock.listen(16)
        self.sock.settimeout(0.05)
        self.port: int = self.sock.getsockname()[1]
        self.accepted = 0
        self.held: list[socket.socket] = []
        self.threads: list[threading.Thread] = []
        self.thread = threading.Thread(target=self._loop, daemon=True)

    def _loop(self) -> None:
        while not self.stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            self.accepted += 1
            self.held.append(conn)
            worker = threading.Thread(target=self.on_accept, args=(conn, self.stop), daemon=True)
            self.threads.append(worker)
            worker.start()

    def __enter__(self) -> _Acceptor:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self.thread.join(timeout=5)
        self.sock.close()
        for conn in self.held:
            with contextlib.suppress(OSError):
                conn.close()
        for worker in self.threads:
            worker.join(timeout=5)


def _close_at_once(conn: socket.socket, stop: threading.Event) -> None:
    conn.close()


def _never_answer(conn: socket.socket, stop: threading.Event) -> None:
    # Read whatever arrives and never reply, until the test is over.
    conn.settimeout(0.05)
    while not stop.is_set():
        try:
            if conn.recv(65536) == b"":
                return
        except TimeoutError:
            continue
        except OSError:
            return


@contextlib.contextmanager
def closing_server() -> Iterator[str]:
    """A server that accepts each connection and closes it without a word."""
    with _Acceptor(_close_at_once) as acceptor:
        yield f"http://{HOST}:{acceptor.port}"


@contextlib.contextmanager
def silent_server() -> Iterator[str]:
    """A server that accepts connections and never answers (for read timeouts)."""
    with _Acceptor(_never_answer) as acceptor:
        yield f"http://{HOST}:{acceptor.port}"


def _never_read(conn: socket.socket, stop: threading.Event) -> None:
    stop.wait()


@contextlib.contextmanager
def deaf_server() -> Iterator[str]:
    """A server that accepts connections and never reads from them: a large request body
    fills the socket buffers and sending it stalls."""
    with _Acceptor(_never_read) as acceptor:
        yield f"http://{HOST}:{acceptor.port}"


@contextlib.contextmanager
def free_port() -> Iterator[int]:
    """A loopback port with nothing listening on it (for connection refused)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((HOST, 0))
        port = sock.getsockname()[1]
    yield port


def server_tls_context(ca: trustme.CA, *, alpn: list[str] | None = None) -> ssl.SSLContext:
    """A server context with a certificate for 127.0.0.1 and localhost, issued by ``ca``."""
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ca.issue_cert(HOST, "localhost").configure_cert(context)
    if alpn:
        context.set_alpn_protocols(alpn)
    return context


@contextlib.contextmanager
def tls_echo_server(ca: trustme.CA) -> Iterator[EchoServer]:
    """The echo server over HTTPS with a certificate no system trusts by default."""
    with EchoServer(HOST, 0, ssl_context=server_tls_context(ca)) as server:
        yield server


def _serve_h2(conn: socket.socket, stop: threading.Event, context: ssl.SSLContext) -> None:
    import h2.config
    import h2.connection
    import h2.events

    try:
        conn.settimeout(5)
        tls = context.wrap_socket(conn, server_side=True)
    except OSError:
        return
    h2conn = h2.connection.H2Connection(h2.config.H2Configuration(client_side=False))
    h2conn.initiate_connection()
    tls.sendall(h2conn.data_to_send())
    tls.settimeout(0.05)
    requests: dict[int, dict[str, str]] = {}
    while not stop.is_set():
        try:
            data = tls.recv(65536)
        except TimeoutError:
            continue
        except OSError:
            return
        if not data:
            return
        for event in h2conn.receive_data(data):
            if isinstance(event, h2.events.RequestReceived):
                requests[event.stream_id] = {
                    (k.decode() if isinstance(k, bytes) else k): (
                        v.decode() if isinstance(v, bytes) else v
                    )
                    for k, v in event.headers
                }
            elif isinstance(event, h2.events.StreamEnded):
                headers = requests.pop(event.stream_id, {})
                body = json.dumps(
                    {"path": headers.get(":path"), "method": headers.get(":method"), "http2": True}
                ).encode()
                h2conn.send_headers(
                    event.stream_id,
                    [
                        (":status", "200"),
                        ("content-type", "application/json"),
                        ("content-length", str(len(body))),
                    ],
                )
                h2conn.send_data(event.stream_id, body, end_stream=True)
        tls.sendall(h2conn.data_to_send())


@contextlib.contextmanager
def h2_server(ca: trustme.CA) -> Iterator[str]:
    """An HTTPS server that speaks only HTTP/2 (offered through ALPN); answers JSON."""
    context = server_tls_context(ca, alpn=["h2"])
    with _Acceptor(lambda conn, stop: _serve_h2(conn, stop, context)) as acceptor:
        yield f"https://{HOST}:{acceptor.port}"


class RecordingServer:
    """What a raw socket saw: every request's bytes, exactly as they came off the wire."""

    def __init__(self, acceptor: _Acceptor, requests: list[bytes]) -> None:
        self.url = f"http://{HOST}:{acceptor.port}"
        self.requests = requests
        self._acceptor = acceptor

    @property
    def connections(self) -> int:
        return self._acceptor.accepted


@contextlib.contextmanager
def recording_server() -> Iterator[RecordingServer]:
    """A server that reads each request (headers, then a Content-Length body), keeps its raw
    bytes and answers ``204 No Content``; no parsing stands between the wire and the test."""
    requests: list[bytes] = []

    def record(conn: socket.socket, stop: threading.Event) -> None:
        conn.settimeout(0.05)
        data = b""
        while not stop.is_set():
            try:
                chunk = conn.recv(65536)
            except TimeoutError:
                continue
            except OSError:
                return
            if not chunk:
                return
            data += chunk
            head, sep, body = data.partition(b"\r\n\r\n")
            if not sep:
                continue
            length = 0
            for line in head.split(b"\r\n")[1:]:
                name, _, value = line.partition(b":")
                if name.strip().lower() == b"content-length":
                    length = int(value.strip() or 0)
            if len(body) < length:
                continue
            requests.append(head + sep + body[:length])
            data = body[length:]
            with contextlib.suppress(OSError):
                conn.sendall(b"HTTP/1.1 204 No Content\r\nContent-Length: 0\r\n\r\n")

    with _Acceptor(record) as acceptor:
        yield RecordingServer(acceptor, requests)


class HopServer:
    """A loopback HTTP server that records every request's path and headers as parsed off the
    wire, and answers ``/go/N`` with ``302`` to ``redirect_to`` + ``/go/N-1`` (``/landed`` after
    the last hop), keeping the query string, as a server moving a resource does."""

    def __init__(self, httpd: http.server.ThreadingHTTPServer, scheme: str) -> None:
        self._httpd = httpd
        self.port: int = httpd.server_address[1]
        self.url = f"{scheme}://{HOST}:{self.port}"
        self.redirect_to = self.url
        self.seen: list[tuple[str, list[tuple[str, str]]]] = []


class _HopHandler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_GET(self) -> None:
        hop: HopServer = self.server.hop  # type: ignore[attr-defined]
        hop.seen.append((self.path, list(self.headers.items())))
        path, _, query = self.path.partition("?")
        suffix = f"?{query}" if query else ""
        if path.startswith("/go/") and path[4:].isdigit() and int(path[4:]) > 0:
            left = int(path[4:]) - 1
            target = f"/go/{left}" if left else "/landed"
            self.send_response(302)
            self.send_header("Location", f"{hop.redirect_to}{target}{suffix}")
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        self.send_response(200)
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"ok")

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        pass


@contextlib.contextmanager
def hop_server(ssl_context: ssl.SSLContext | None = None) -> Iterator[HopServer]:
    """A :class:`HopServer` on 127.0.0.1 (HTTPS with ``ssl_context``), stopped on exit."""
    httpd = http.server.ThreadingHTTPServer((HOST, 0), _HopHandler)
    httpd.daemon_threads = True
    if ssl_context is not None:
        httpd.socket = ssl_context.wrap_socket(httpd.socket, server_side=True)
    hop = HopServer(httpd, "https" if ssl_context is not None else "http")
    httpd.hop = hop  # type: ignore[attr-defined]
    with serving(httpd):
        yield hop


@contextlib.contextmanager
def unanswered_port() -> Iterator[int]:
    """A loopback port whose listen queue is full: the kernel drops a new connection's SYN, so
    connecting hangs as it does to a host that never answers."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as listener:
        listener.bind((HOST, 0))
        listener.listen(0)
        port = listener.getsockname()[1]
        fillers = [socket.socket(socket.AF_INET, socket.SOCK_STREAM) for _ in range(3)]
        try:
            for filler in fillers:
                filler.setblocking(False)
                filler.connect_ex((HOST, port))
            yield port
        finally:
            for filler in fillers:
                filler.close()


class SlowServer:
    """What a :func:`slow_server` saw: how many connections it took and how many the client
    hung up on (a client that gives up must let go of its connection)."""

    def __init__(self, acceptor: _Acceptor) -> None:
        self.url = f"http://{HOST}:{acceptor.port}"
        self._acceptor = acceptor
        self._lock = threading.Lock()
        self.hung_up = 0

    @property
    def connections(self) -> int:
        return self._acceptor.accepted

    def _hang_up(self) -> None:
        with self._lock:
            self.hung_up += 1


def _read_head(conn: socket.socket, stop: threading.Event) -> bool:
    """Read a request up to its blank line (enough for a GET); False once the client is gone."""
    conn.settimeout(0.05)
    data = b""
    while b"\r\n\r\n" not in data:
        if stop.is_set():
            return False
        try:
            chunk = conn.recv(65536)
        except TimeoutError:
            continue
        except OSError:
            return False
        if not chunk:
            return False
        data += chunk
    return True


def _client_gone(conn: socket.socket) -> bool:
    try:
        return conn.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT) == b""
    except (BlockingIOError, TimeoutError):  # nothing to read: still there
        return False
    except OSError:
        return True


@contextlib.contextmanager
def slow_server(
    pieces: Callable[[], Iterable[bytes]], interval: float = 0.2
) -> Iterator[SlowServer]:
    """A server that answers each request with ``pieces()``, one piece every ``interval``
    seconds, until they run out (then it reads the next request on the connection), the client
    hangs up or the test is over. ``pieces`` may never end: that is what it is for."""

    def answer(conn: socket.socket, stop: threading.Event) -> None:
        while _read_head(conn, stop):
            for piece in pieces():
                if stop.wait(interval):
                    return
                if _client_gone(conn):
                    server._hang_up()
                    return
                try:
                    conn.sendall(piece)
                except OSError:
                    server._hang_up()
                    return
        if not stop.is_set():
            server._hang_up()

    acceptor = _Acceptor(answer)
    server = SlowServer(acceptor)
    with acceptor:
        yield server


# Answers for slow_server.
HEAD = b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 100000\r\n\r\n"
STATUS_LINE = b"HTTP/1.1 200 OK\r\n"
PROCESSING = b"HTTP/1.1 102 Processing\r\n\r\n"
REDIRECT = b"HTTP/1.1 302 Found\r\nLocation: /again\r\nContent-Length: 0\r\n\r\n"


def body_a_byte_at_a_time() -> Iterable[bytes]:
    """A 200 whose 100000-byte body never ends arriving."""
    return itertools.chain([HEAD], itertools.repeat(b"x"))


def headers_a_byte_at_a_time() -> Iterable[bytes]:
    """A status line, then a header that never ends."""
    head = STATUS_LINE + b"X-Slow: "
    return itertools.chain((head[i : i + 1] for i in range(len(head))), itertools.repeat(b"a"))


def processing_forever() -> Iterable[bytes]:
    """``102 Processing`` again and again, never the final response."""
    return itertools.repeat(PROCESSING)


def redirect_body_a_byte_at_a_time() -> Iterable[bytes]:
    """A redirect whose body never ends arriving."""
    head = b"HTTP/1.1 302 Found\r\nLocation: /next\r\nContent-Length: 1000\r\n\r\n"
    return itertools.chain([head], itertools.repeat(b"x"))


def body_in_chunks() -> Iterable[bytes]:
    """A 200 whose body arrives 4 KiB at a time and never ends."""
    return itertools.chain([HEAD.replace(b"100000", b"100000000")], itertools.repeat(b"x" * 4096))


def body_until_close_a_byte_at_a_time() -> Iterable[bytes]:
    """A 200 with neither a length nor chunks (its body ends when the connection closes)
    that never ends arriving."""
    head = b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\n"
    return itertools.chain([head], itertools.repeat(b"x"))


def events_until_close() -> Iterable[bytes]:
    """An event stream with neither a length nor chunks that never ends."""
    head = b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n"
    return itertools.chain([head], (b"data: %d\n\n" % n for n in itertools.count(1)))


def redirect_again() -> Iterable[bytes]:
    """A redirect to another path of the same server, which redirects again."""
    return [REDIRECT]


# -- auth, proxies and mutual TLS -------------------------------------------------------------


class CheckingServer:
    """A loopback HTTP server whose ``check(handler, body)`` says whether a request is
    authorised: ``None`` (200, the request described in JSON) or ``(status, headers)``."""

    def __init__(self, httpd: http.server.ThreadingHTTPServer, scheme: str) -> None:
        self.port: int = httpd.server_address[1]
        self.url = f"{scheme}://{HOST}:{self.port}"
        self.seen: list[tuple[str, str, dict[str, str]]] = []  # method, path, headers
        self.verdicts: list[bool] = []


class _CheckingHandler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def _any(self) -> None:
        server: CheckingServer = self.server.checking  # type: ignore[attr-defined]
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        server.seen.append((self.command, self.path, dict(self.headers.items())))
        refusal = self.server.check(self, body)  # type: ignore[attr-defined]
        server.verdicts.append(refusal is None)
        status, headers = refusal or (200, [])
        reply = json.dumps(
            {"method": self.command, "path": self.path, "ok": refusal is None}
        ).encode()
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(reply)))
        self.end_headers()
        self.wfile.write(reply)

    do_GET = do_POST = do_PUT = do_DELETE = _any

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        pass


@contextlib.contextmanager
def checking_server(
    check: Callable[[http.server.BaseHTTPRequestHandler, bytes], tuple | None],
    ssl_context: ssl.SSLContext | None = None,
) -> Iterator[CheckingServer]:
    httpd = http.server.ThreadingHTTPServer((HOST, 0), _CheckingHandler)
    httpd.daemon_threads = True
    if ssl_context is not None:
        httpd.socket = ssl_context.wrap_socket(httpd.socket, server_side=True)
    server = CheckingServer(httpd, "https" if ssl_context is not None else "http")
    httpd.checking, httpd.check = server, check  # type: ignore[attr-defined]
    with serving(httpd):
        yield server


def _md5(text: str) -> str:
    import hashlib

    return hashlib.md5(text.encode()).hexdigest()


@contextlib.contextmanager
def digest_server(username: str, password: str) -> Iterator[CheckingServer]:
    """RFC 7616 digest (MD5, qop=auth): a challenge, then the response hash recomputed from
    the password this server knows."""
    realm, nonce = "pigeon-tests", "dcd98b7102dd2f0e8b11d0f600bfb0c093"

    def check(handler: http.server.BaseHTTPRequestHandler, body: bytes) -> tuple | None:
        challenge = (
            401,
            [
                (
                    "WWW-Authenticate",
                    f'Digest realm="{realm}", qop="auth", nonce="{nonce}", algorithm=MD5',
                )
            ],
        )
        header = handler.headers.get("Authorization", "")
        if not header.startswith("Digest "):
            return challenge
        import urllib.request

        fields = urllib.request.parse_http_list(header[len("Digest ") :])
        params = {k.strip(): v.strip().strip('"') for k, _, v in (f.partition("=") for f in fields)}
        ha1 = _md5(f"{username}:{realm}:{password}")
        ha2 = _md5(f"{handler.command}:{params.get('uri', '')}")
        expected = _md5(f"{ha1}:{nonce}:{params.get('nc')}:{params.get('cnonce')}:auth:{ha2}")
        ok = (
            params.get("username") == username
            and params.get("uri") == handler.path
            and params.get("response") == expected
        )
        return None if ok else challenge

    with checking_server(check) as server:
        yield server


@contextlib.contextmanager
def sigv4_server(
    access_key: str, secret_key: str, region: str, service: str
) -> Iterator[CheckingServer]:
    """Recomputes each request's AWS SigV4 signature with botocore (an independent signer)
    over the headers the request says it signed and the body that arrived; 403 when it
    differs."""
    from botocore.auth import SigV4Auth
    from botocore.awsrequest import AWSRequest
    from botocore.credentials import Credentials

    def check(handler: http.server.BaseHTTPRequestHandler, body: bytes) -> tuple | None:
        header = handler.headers.get("Authorization", "")
        parts = dict(
            p.strip().split("=", 1) for p in header.removeprefix("AWS4-HMAC-SHA256 ").split(",")
        )
        signed = parts.get("SignedHeaders", "").split(";")
        token = handler.headers.get("X-Amz-Security-Token")
        creds = Credentials(access_key, secret_key, token)
        request = AWSRequest(
            method=handler.command,
            url=f"http://{handler.headers['Host']}{handler.path}",
            headers={name: handler.headers[name] for name in signed if name in handler.headers},
            data=body,
        )
        request.context["timestamp"] = handler.headers.get("X-Amz-Date", "")
        signer = SigV4Auth(creds, service, region)
        canonical = signer.canonical_request(request)
        expected = signer.signature(signer.string_to_sign(request, canonical), request)
        scope = f"{access_key}/{request.context['timestamp'][:8]}/{region}/{service}/aws4_request"
        ok = parts.get("Signature") == expected and parts.get("Credential") == scope
        return None if ok else (403, [])

    with checking_server(check) as server:
        yield server


def mtls_context(ca: trustme.CA) -> ssl.SSLContext:
    """A server context that requires a client certificate issued by ``ca``."""
    context = server_tls_context(ca)
    context.verify_mode = ssl.CERT_REQUIRED
    ca.configure_trust(context)
    return context


def _pipe(a: socket.socket, b: socket.socket, stop: threading.Event) -> None:
    """Copy bytes both ways until either side closes or the test ends."""
    import selectors

    with selectors.DefaultSelector() as sel:
        sel.register(a, selectors.EVENT_READ, b)
        sel.register(b, selectors.EVENT_READ, a)
        while not stop.is_set():
            for key, _ in sel.select(0.05):
                try:
                    data = key.fileobj.recv(65536)  # type: ignore[union-attr]
                    if not data:
                        return
                    key.data.sendall(data)
                except OSError:
                    return


def _loopback(host: str) -> str:
    if host not in (HOST, "localhost"):
        raise ConnectionRefusedError(f"the test proxy reaches loopback only, not {host}")
    return HOST


class ProxyServer:
    """A loopback proxy that records each target it was asked for."""

    def __init__(self, acceptor: _Acceptor, scheme: str) -> None:
        self.url = f"{scheme}://{HOST}:{acceptor.port}"
        self.targets: list[str] = []


@contextlib.contextmanager
def http_proxy() -> Iterator[ProxyServer]:
    """An HTTP proxy: ``CONNECT host:port`` tunnels and absolute-form requests, to loopback."""
    proxy: ProxyServer

    def serve(conn: socket.socket, stop: threading.Event) -> None:
        conn.settimeout(5)
        head = b""
        while b"\r\n\r\n" not in head and len(head) < 65536:
            chunk = conn.recv(65536)
            if not chunk:
                return
            head += chunk
        line, _, rest = head.partition(b"\r\n")
        method, target, version = line.decode("latin-1").split(" ", 2)
        proxy.targets.append(f"{method} {target}")
        if method == "CONNECT":
            host, _, port = target.rpartition(":")
            upstream = socket.create_connection((_loopback(host), int(port)), timeout=5)
            conn.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
            leftover = rest.partition(b"\r\n\r\n")[2]
        else:
            from urllib.parse import urlsplit

            url = urlsplit(target)
            upstream = socket.create_connection(
                (_loopback(url.hostname or ""), url.port or 80), timeout=5
            )
            path = url.path + (f"?{url.query}" if url.query else "")
            leftover = f"{method} {path or '/'} {version}\r\n".encode() + rest
        with upstream:
            if leftover:
                upstream.sendall(leftover)
            _pipe(conn, upstream, stop)

    with _Acceptor(serve) as acceptor:
        proxy = ProxyServer(acceptor, "http")
        yield proxy


@contextlib.contextmanager
def socks5_proxy() -> Iterator[ProxyServer]:
    """A SOCKS5 proxy (no authentication, CONNECT only), to loopback."""
    proxy: ProxyServer

    def read(conn: socket.socket, n: int) -> bytes:
        data = b""
        while len(data) < n:
            chunk = conn.recv(n - len(data))
            if not chunk:
                raise ConnectionError("closed")
            data += chunk
        return data

    def serve(conn: socket.socket, stop: threading.Event) -> None:
        conn.settimeout(5)
        try:
            _, count = read(conn, 2)
            read(conn, count)
            conn.sendall(b"\x05\x00")
            _, cmd, _, kind = read(conn, 4)
            if kind == 1:
                host = socket.inet_ntoa(read(conn, 4))
            elif kind == 3:
                host = read(conn, read(conn, 1)[0]).decode()
            else:
                return
            port = int.from_bytes(read(conn, 2), "big")
            proxy.targets.append(f"{host}:{port}")
            upstream = socket.create_connection((_loopback(host), port), timeout=5)
        except (OSError, ValueError):
            return
        with upstream:
            conn.sendall(b"\x05\x00\x00\x01" + socket.inet_aton(HOST) + (0).to_bytes(2, "big"))
            _pipe(conn, upstream, stop)

    with _Acceptor(serve) as acceptor:
        proxy = ProxyServer(acceptor, "socks5")
        yield proxy


# -- many requests at once ---------------------------------------------------------------------


class CountingServer:
    """A loopback HTTP server that numbers the requests it gets (from 0) and counts how many
    are in flight at once; ``answer(n)`` gives request ``n``'s status and body, and may wait
    first (on a barrier, an event)."""

    def __init__(self, httpd: http.server.ThreadingHTTPServer) -> None:
        self.port: int = httpd.server_address[1]
        self.url = f"http://{HOST}:{self.port}"
        self.seen = 0
        self.in_flight = 0
        self.most_in_flight = 0
        self.paths: list[str] = []
        self.clients: set[tuple[str, int]] = set()  # the connections requests came on
        self.bytes_sent = 0  # status lines, headers and bodies, as written
        self.lock = threading.Lock()


class _CountingHandler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def setup(self) -> None:
        super().setup()
        server: CountingServer = self.server.counting  # type: ignore[attr-defined]
        write = self.wfile.write

        def counted(data: bytes) -> int | None:
            with server.lock:
                server.bytes_sent += len(data)
            return write(data)

        self.wfile.write = counted  # type: ignore[method-assign]

    def do_GET(self) -> None:
        server: CountingServer = self.server.counting  # type: ignore[attr-defined]
        with server.lock:
            number = server.seen
            server.seen += 1
            server.in_flight += 1
            server.most_in_flight = max(server.most_in_flight, server.in_flight)
            server.paths.append(self.path)
            server.clients.add(self.client_address)
        try:
            status, body = self.server.answer(number)  # type: ignore[attr-defined]
        except Exception as exc:  # a broken barrier: the client sees it as a 500
            status, body = 500, f"{type(exc).__name__}".encode()
        finally:
            with server.lock:
                server.in_flight -= 1
        self.send_response(status)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        pass


class _ManyAtOnce(http.server.ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128  # a profile's 64 connections at once wait in the backlog


@contextlib.contextmanager
def counting_server(answer: Callable[[int], tuple[int, bytes]]) -> Iterator[CountingServer]:
    """A :class:`CountingServer` on 127.0.0.1, stopped on exit."""
    httpd = _ManyAtOnce((HOST, 0), _CountingHandler)
    server = CountingServer(httpd)
    httpd.counting, httpd.answer = server, answer  # type: ignore[attr-defined]
    with serving(httpd):
        yield server


class LoginServer:
    """Tokens by user: ``POST /login`` with ``{"user": NAME}`` answers a new token for NAME;
    ``GET /whoami`` answers 200 when its ``Authorization: Bearer`` token was given to the
    user its ``X-User`` header names, else 403. ``calls`` keeps each ``(user, token)``."""

    def __init__(self, httpd: http.server.ThreadingHTTPServer) -> None:
        self.url = f"http://{HOST}:{httpd.server_address[1]}"
        self.issued: dict[str, str] = {}  # token -> user
        self.calls: list[tuple[str, str]] = []
        self.lock = threading.Lock()
        self._count = itertools.count(1)


class _LoginHandler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def _reply(self, status: int, data: dict) -> None:
        reply = json.dumps(data).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(reply)))
        self.end_headers()
        self.wfile.write(reply)

    def do_POST(self) -> None:
        server: LoginServer = self.server.login  # type: ignore[attr-defined]
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        user = json.loads(body or b"{}").get("user")
        if self.path != "/login" or not isinstance(user, str):
            return self._reply(400, {"error": "POST /login with {\"user\": NAME}"})
        with server.lock:
            token = f"tok-{next(server._count)}"
            server.issued[token] = user
        self._reply(200, {"token": token})

    def do_GET(self) -> None:
        server: LoginServer = self.server.login  # type: ignore[attr-defined]
        token = self.headers.get("Authorization", "").removeprefix("Bearer ")
        user = self.headers.get("X-User", "")
        with server.lock:
            server.calls.append((user, token))
            good = self.path == "/whoami" and server.issued.get(token) == user
        self._reply(200 if good else 403, {"user": user, "ok": good})

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        pass


@contextlib.contextmanager
def login_server() -> Iterator[LoginServer]:
    httpd = http.server.ThreadingHTTPServer((HOST, 0), _LoginHandler)
    httpd.daemon_threads = True
    server = LoginServer(httpd)
    httpd.login = server  # type: ignore[attr-defined]
    with serving(httpd):
        yield server
