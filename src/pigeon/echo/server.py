"""The echo server's lifecycle (start, stop, the bound port) and ``pigeon echo``'s command line.

``EchoServer`` serves in a daemon thread, for tests, benchmarks and the app's demo;
``main`` runs it in the foreground until Ctrl-C or SIGTERM.
"""

from __future__ import annotations

import argparse
import contextlib
import ipaddress
import signal
import socket
import ssl
import sys
import threading
from types import TracebackType
from typing import Any

from pigeon.echo.handler import EchoHandler, EchoHTTP6Server, EchoHTTPServer, ServerState


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
        self.state = ServerState()
        self._server: EchoHTTPServer | None = None
        self._thread: threading.Thread | None = None

    def _bind(self) -> EchoHTTPServer:
        cls = EchoHTTP6Server if ":" in self.host else EchoHTTPServer
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


def is_loopback(host: str) -> bool:
    """Whether a listening address is this machine's own (a wider one earns a warning)."""
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
    if not is_loopback(args.host):
        print(
            f"pigeon echo: warning: {args.host} is reachable from other machines", file=sys.stderr
        )
    return serve_until_stopped(server, f"Pigeon echo server on {server.url} (Ctrl-C to stop)")


def serve_until_stopped(server: Any, banner: str) -> int:
    """Say ``banner``, then serve until Ctrl-C or SIGTERM, and stop ``server`` (anything with
    a ``stop()``) either way: `pigeon echo` and `pigeon mock` end alike."""
    stop = threading.Event()
    previous = None
    if threading.current_thread() is threading.main_thread():
        previous = signal.signal(signal.SIGTERM, lambda *_: stop.set())
    try:
        print(banner, flush=True)
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
