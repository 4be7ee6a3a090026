"""Shell commands for the exporters that write one (DESIGN §6; curl's rules, shared): words quoted for a
POSIX shell with ``shlex.quote`` (single quotes, inside which no byte is special), a body
that cannot be a command-line argument written by ``printf`` from octal escapes."""

from __future__ import annotations

import shlex
from typing import Any

from pigeon.exporters.curl import _printf, _text_body

__all__ = ["command", "printf", "safe_text_body"]


def safe_text_body(rendered: Any) -> str | None:
    """The body as one shell word, or ``None`` when it must be written by :func:`printf`
    (not UTF-8, or holding a NUL or a control character a terminal would act on)."""
    return _text_body(rendered)


def printf(data: bytes) -> str:
    """A ``printf`` command that writes exactly ``data``."""
    return _printf(data)


def command(groups: list[list[str]]) -> str:
    """Words quoted and joined, one group (an option and its value) a line."""
    return " \\\n  ".join(" ".join(shlex.quote(w) for w in group) for group in groups)
