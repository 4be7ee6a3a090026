"""Shell commands for the exporters that write one (DESIGN §6; curl, httpie, wget): words
quoted for a POSIX shell with ``shlex.quote`` (single quotes, inside which no byte is
special), a body that cannot be a command-line argument written by ``printf`` from octal
escapes."""

from __future__ import annotations

import shlex
from typing import Any

__all__ = ["command", "printf", "safe_text_body"]


def safe_text_body(rendered: Any) -> str | None:
    """The body as one shell word, or ``None`` when it must be written by :func:`printf`
    (not UTF-8, or holding a NUL or a control character a terminal would act on)."""
    body: bytes | None = rendered.body
    if body is None:
        return None
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        return None
    # A control character (CR, ESC...) is exact inside quotes but not safe to paste into a
    # terminal, so such a body goes through printf and stdin too.
    return None if any(_unsafe(ch) for ch in text) else text


def _unsafe(ch: str) -> bool:
    code = ord(ch)
    return (code < 0x20 and ch not in "\t\n\r") or 0x7F <= code < 0xA0


def printf(data: bytes) -> str:
    """A ``printf`` command that writes exactly ``data`` (octal escapes, POSIX printf). A
    leading ``-`` is escaped too: a format starting with one (a multipart body's ``--boundary``)
    would be read as an option."""
    out = []
    for i, b in enumerate(data):
        c = chr(b)
        if 0x20 <= b < 0x7F and c not in "'\\%" and not (i == 0 and c == "-"):
            out.append(c)
        else:
            out.append(f"\\{b:03o}")
    return "printf '" + "".join(out) + "'"


def command(groups: list[list[str]]) -> str:
    """Words quoted and joined, one group (an option and its value) a line."""
    return " \\\n  ".join(" ".join(shlex.quote(w) for w in group) for group in groups)
