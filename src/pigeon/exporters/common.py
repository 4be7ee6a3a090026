"""What every exported program shares (DESIGN §6, §12): the URL as sent, the body's bytes or file, and the
notes for what a static program cannot carry (auth that acts at send time)."""

from __future__ import annotations

from typing import Any

from pigeon.exporters.curl import as_sent

__all__ = ["as_sent", "body_bytes", "body_path", "flow_note", "has_header", "text_or_none"]


def body_bytes(rendered: Any) -> bytes | None:
    """The body's bytes (``None``: no body, or a file body: see :func:`body_path`)."""
    body: bytes | None = rendered.body
    return None if body is None else bytes(body)


def body_path(rendered: Any) -> str | None:
    """Where a file body is on disk: the program reads it when it runs, as the send does."""
    body_file = getattr(rendered, "body_file", None)
    return None if body_file is None else str(body_file.path)


def text_or_none(data: bytes) -> str | None:
    """``data`` as UTF-8 text when it is, else ``None`` (a program writes it as bytes)."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def has_header(rendered: Any, name: str) -> bool:
    return any(key.lower() == name.lower() for key, _ in rendered.headers)


def flow_note(rendered: Any) -> str | None:
    """A line saying the auth that acts as the request is sent (digest answers a challenge,
    SigV4, OAuth 1.0a, Hawk sign it) is not in the program, or ``None`` when there is none."""
    flow = getattr(rendered, "flow_auth", None)
    if flow is None:
        return None
    return (
        f"{flow.type} auth is applied as the request is sent (a signature or a challenge's "
        "answer): add it with this tool's own support for it"
    )
