"""A response saved as an example (DESIGN §14): what the app's "Save as example" writes.

The example is a file the user commits, so nothing secret goes in it: header values whose
name says secret, secret fields of a JSON or form body, and every copy of a secret the send
used (``.env`` values, secret variables) are masked as history masks them. Transport headers
(length, encoding, date, connection) are left out: the mock server sets its own. A body over
``MAX_SAVED`` is cut there, and one that is not text is not kept.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from pigeon.exchange import Exchange
from pigeon.masking import Masker
from pigeon.model import Example, Header

MAX_SAVED = 256 * 1024  # bytes of a response body an example keeps
_LEFT_OUT = frozenset(
    {
        "content-length", "content-encoding", "transfer-encoding", "connection", "keep-alive",
        "date", "server", "set-cookie", "alt-svc", "strict-transport-security",
    }
)  # fmt: skip


@dataclass(frozen=True)
class Captured:
    """The example, and what was left of the response (for the app's notice)."""

    example: Example
    cut: bool = False  # the body was longer than ``MAX_SAVED``
    binary: bool = False  # the body was not text, and is not kept


def capture(exchange: Exchange, name: str, secrets: Iterable[str] = ()) -> Captured:
    """``exchange``'s response as an example named ``name``, its secrets masked."""
    rendered = exchange.request
    masker = Masker([*secrets, *getattr(rendered, "secrets", ())])
    masker.url(getattr(rendered, "url", "") or "")  # what these teach applies to the body
    masker.headers(getattr(rendered, "headers", []) or [])
    headers = [
        Header(n, masker.header(n, v)) for n, v in exchange.headers if n.lower() not in _LEFT_OUT
    ]
    content_type = next((h.value for h in headers if h.name.lower() == "content-type"), "")
    data = exchange.body
    cut = exchange.truncated or len(data) > MAX_SAVED
    data = data[:MAX_SAVED]
    text = _text(data, exchange.charset or "utf-8", cut)
    if text is None:
        return Captured(Example(name, exchange.status or 200, headers), cut, binary=True)
    masked = masker.body(text.encode("utf-8"), content_type).decode("utf-8", "replace")
    # the mock renders a body as a template: a literal {{ in the response stays literal
    masked = masked.replace("{{", "{{ '{{' }}")
    return Captured(Example(name, exchange.status or 200, headers, masked), cut)


def _text(data: bytes, charset: str, cut: bool) -> str | None:
    """The body as text, or None when it is not text (a body cut mid-character loses that
    character only)."""
    for end in range(len(data), max(len(data) - 4, -1) if cut else len(data) - 1, -1):
        try:
            return data[:end].decode(charset)
        except (UnicodeDecodeError, LookupError):
            continue
    return None
