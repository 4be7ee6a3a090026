"""A binary body as a hex dump (DESIGN §9): offset, sixteen bytes in hex, the same bytes as
ASCII (a dot for anything else), as ``hexdump -C`` prints it, so a search for ``89 50 4e``
or for a word finds it. Only the first ``HEX_LIMIT`` bytes are dumped: the text is about
four times the bytes, and a bigger body is saved (``s``) rather than read on screen.
"""

from __future__ import annotations

from collections.abc import Callable

from pigeon.bodies.cancel import Stopped

HEX_LIMIT = 1024 * 1024
_ASCII = bytes(c if 0x20 <= c < 0x7F else 0x2E for c in range(256))


def hex_dump(data: bytes, cancelled: Callable[[], bool] | None = None) -> str:
    """``00000000  89 50 4e 47 0d 0a 1a 0a  00 00 00 0d 49 48 44 52  |.PNG........IHDR|``."""
    lines: list[str] = []
    for offset in range(0, min(len(data), HEX_LIMIT), 16):
        if cancelled is not None and offset % 65536 == 0 and cancelled():
            raise Stopped
        row = data[offset : offset + 16]
        left, right = row[:8].hex(" "), row[8:].hex(" ")
        text = row.translate(_ASCII).decode("ascii")
        lines.append(f"{offset:08x}  {left:<23}  {right:<23}  |{text}|")
    return "\n".join(lines)
