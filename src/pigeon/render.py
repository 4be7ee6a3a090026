"""A Request + scopes -> RenderedRequest (the exact request to send), plus what went wrong."""

from __future__ import annotations

from dataclasses import dataclass, field

from pigeon.model import Settings


class RenderError(Exception):
    """The request cannot be built (e.g. a header with CR/LF); nothing is sent."""


@dataclass
class RenderedRequest:
    method: str
    url: str
    headers: list[tuple[str, str]] = field(default_factory=list)
    body: bytes | None = None  # exactly what goes on the wire
    body_text: str | None = None  # the same, as text, for display and `pigeon render`
    unresolved: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    settings: Settings = field(default_factory=Settings)
