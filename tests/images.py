"""Image bodies for tests, good and hostile, and a loopback server that serves each one under
the content type a test names (``/png``, ``/bomb``, ``/lying-png``...)."""

from __future__ import annotations

import contextlib
import http.server
import io
import struct
import threading
import zlib
from collections.abc import Iterator

from PIL import Image

HOST = "127.0.0.1"


def picture(fmt: str, width: int = 40, height: int = 30, frames: int = 1) -> bytes:
    """An image in ``fmt`` (PNG, GIF, JPEG, WEBP...), ``frames`` of them animated."""
    shots = [Image.new("RGB", (width, height), (60 * n % 256, 120, 200)) for n in range(frames)]
    out = io.BytesIO()
    extra = {"save_all": True, "append_images": shots[1:], "duration": 100} if frames > 1 else {}
    shots[0].save(out, fmt, **extra)
    return out.getvalue()


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def png_bomb(width: int = 100_000, height: int = 100_000) -> bytes:
    """A valid PNG header claiming ``width`` x ``height`` pixels, in a few hundred bytes."""
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + _chunk(b"IHDR", header)
        + _chunk(b"IDAT", zlib.compress(b"\0" * 65536, 9))
        + _chunk(b"IEND", b"")
    )


PNG = picture("PNG", 400, 300)
GIF = picture("GIF", 20, 10, frames=5)
JPEG = picture("JPEG", 640, 480)
WEBP = picture("WEBP", 32, 16)
TRUNCATED = PNG[: len(PNG) // 2]
CORRUPT = PNG[:33] + b"\x00garbage" * 50
BOMB = png_bomb()
SVG = b'<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10"/></svg>'
HTML = b"<!doctype html><html><body><h1>502 Bad Gateway</h1></body></html>"
PROTOBUF = b"\x08\x96\x01\x12\x07testing\x1a\x03\x00\xff\x10" * 4

ROUTES: dict[str, tuple[str, bytes]] = {
    "/png": ("image/png", PNG),
    "/gif": ("image/gif", GIF),
    "/jpeg": ("image/jpeg", JPEG),
    "/webp": ("image/webp", WEBP),
    "/truncated": ("image/png", TRUNCATED),
    "/corrupt": ("image/png", CORRUPT),
    "/bomb": ("image/png", BOMB),
    "/svg": ("image/svg+xml", SVG),
    "/lying-png": ("image/png", HTML),
    "/jpeg-as-png": ("image/png", JPEG),
    "/protobuf": ("application/x-protobuf", PROTOBUF),
}


class _Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_GET(self) -> None:  # noqa: N802
        content_type, body = ROUTES.get(self.path, ("text/plain", b"no such image"))
        self.send_response(200 if self.path in ROUTES else 404)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        pass


@contextlib.contextmanager
def image_server() -> Iterator[str]:
    """Serves ``ROUTES`` on 127.0.0.1 until the block ends; yields the base URL."""
    httpd = http.server.ThreadingHTTPServer((HOST, 0), _Handler)
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05})
    thread.daemon = True
    thread.start()
    try:
        yield f"http://{HOST}:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=5)
