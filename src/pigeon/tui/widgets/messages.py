"""Messages shared by the request editor's parts."""

from __future__ import annotations

from textual.message import Message


class RequestEdited(Message):
    """Some part of the request being edited changed; the editor re-checks dirty state."""
