"""What kind of body this is (JSON, text, image, binary, empty), and one line for a body that
is not shown as text.

The decision reads the declared content type and the first bytes only, so it costs the same
for a 1 KB and a 1 GB body. Image sizes are read from the format's header, without an image
library.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import Literal

BodyKind = Literal["json", "text", "image", "binary", "empty"]

_TEXT_TYPES = (
    "application/json",
    "application/xml",
    "application/javascript",
    "application/ecmascript",
    "application/x-www-form-urlencoded",
    "application/graphql",
    "application/yaml",
    "application/x-yaml",
    "application/toml",
    "application/x-ndjson",
    "application/problem+json",
    "application/sql",
    "application/csv",
    "image/svg+xml",
)


# One JSON value per line: shown line for line, highlighted as JSON.
JSON_LINES_TYPES = frozenset(
    {
        "application/x-ndjson",
        "application/ndjson",
        "application/jsonl",
        "application/x-jsonlines",
        "application/jsonlines",
        "application/json-seq",
    }
)


def is_text_type(content_type: str) -> bool:
    ctype = content_type.lower()
    return (
        ctype.startswith("text/")
        or ctype in _TEXT_TYPES
        or ctype in JSON_LINES_TYPES
        or ctype.endswith(("+json", "+xml", "+yaml"))
    )


def is_json_type(content_type: str) -> bool:
    ctype = content_type.lower()
    return ctype in ("application/json", "text/json") or ctype.endswith("+json")


def looks_binary(head: bytes) -> bool:
    """NUL bytes or invalid UTF-8 in the first bytes: not something to show as text."""
    sample = head[:8192]
    if b"\x00" in sample:
        return True
    try:
        sample.decode("utf-8")
    except UnicodeDecodeError as exc:
        # A multi-byte character cut off at the end of the sample is still text.
        return exc.start < len(sample) - 3
    return False


def classify_body(content_type: str, head: bytes, size: int) -> BodyKind:
    """How to show a body, from its declared type and its first bytes."""
    if size == 0:
        return "empty"
    if image_info(head) is not None and not is_text_type(content_type):
        return "image"
    if is_json_type(content_type):
        return "json"
    if is_text_type(content_type):
        return "text"
    # A declared image, audio or font that is text (an HTML error page) is shown as text.
    return "binary" if looks_binary(head) else "text"


def shows_as_json(kind: BodyKind, content_type: str, text: str, truncated: bool) -> bool:
    """Whether a text body is laid out as JSON: declared JSON, or undeclared or plain text
    that starts like JSON; never a body cut short, which would not parse."""
    from pigeon.bodies.json import looks_like_json

    if truncated:
        return False
    return kind == "json" or (content_type in ("", "text/plain") and looks_like_json(text))


def claims_binary(content_type: str) -> bool:
    """A media type whose body should not be text (``image/png``; not ``image/svg+xml``)."""
    return content_type.startswith(("image/", "audio/", "video/", "font/")) and not is_text_type(
        content_type
    )


@dataclass
class ImageInfo:
    format: str
    width: int | None = None
    height: int | None = None


def image_info(head: bytes) -> ImageInfo | None:
    """Format and pixel size of a PNG, GIF, JPEG, WebP, AVIF or BMP from its first bytes."""
    try:
        if head.startswith(b"\x89PNG\r\n\x1a\n") and len(head) >= 24:
            width, height = struct.unpack(">II", head[16:24])
            return ImageInfo("PNG", width, height)
        if head[:6] in (b"GIF87a", b"GIF89a"):
            width, height = struct.unpack("<HH", head[6:10])
            return ImageInfo("GIF", width, height)
        if head.startswith(b"\xff\xd8\xff"):
            return ImageInfo("JPEG", *_jpeg_size(head))
        if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
            return ImageInfo("WebP", *_webp_size(head))
        if head[4:8] == b"ftyp" and head[8:12] in (b"avif", b"avis"):
            return ImageInfo("AVIF")  # its size is deep in the file: Pillow reads it
        if head.startswith(b"BM") and len(head) >= 26:
            width, height = struct.unpack("<ii", head[18:26])
            return ImageInfo("BMP", width, abs(height))
    except struct.error:
        return None
    return None


def _jpeg_size(data: bytes) -> tuple[int | None, int | None]:
    pos = 2
    while pos + 9 < len(data):
        if data[pos] != 0xFF:
            pos += 1
            continue
        marker = data[pos + 1]
        if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7 or marker == 0xFF:
            pos += 1 if marker == 0xFF else 2
            continue
        length = struct.unpack(">H", data[pos + 2 : pos + 4])[0]
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
            height, width = struct.unpack(">HH", data[pos + 5 : pos + 9])
            return width, height
        pos += 2 + length
    return None, None


def _webp_size(data: bytes) -> tuple[int | None, int | None]:
    chunk = data[12:16]
    if chunk == b"VP8 " and len(data) >= 30:
        width, height = struct.unpack("<HH", data[26:30])
        return width & 0x3FFF, height & 0x3FFF
    if chunk == b"VP8L" and len(data) >= 25:
        bits = int.from_bytes(data[21:25], "little")
        return (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1
    if chunk == b"VP8X" and len(data) >= 30:
        width = int.from_bytes(data[24:27], "little") + 1
        height = int.from_bytes(data[27:30], "little") + 1
        return width, height
    return None, None


def human_size(size: int) -> str:
    """``512 B``, ``4.2 KB``, ``5.0 MB`` (1 KB = 1024 bytes)."""
    if size < 1024:
        return f"{size} B"
    value = float(size)
    for unit in ("KB", "MB", "GB", "TB"):
        value /= 1024
        if value < 1024 or unit == "TB":
            return f"{value:.1f} {unit}"
    raise AssertionError("unreachable")


def describe_binary(content_type: str, head: bytes, size: int) -> str:
    """One line for a body that is not shown as text."""
    info = image_info(head)
    if info is not None:
        dims = f" ({info.width}x{info.height})" if info.width and info.height else ""
        return f"{info.format} image, {size:,} bytes{dims}"
    kind = content_type or "unknown type"
    return f"Binary body, {kind}, {human_size(size)}"
