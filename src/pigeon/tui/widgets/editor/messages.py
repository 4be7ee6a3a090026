"""Messages shared by the request editor's parts."""

from __future__ import annotations

from textual.message import Message


class RequestEdited(Message):
    """Some part of the request being edited changed; the editor re-checks dirty state."""


class MethodWanted(Message):
    """A part of the editor wants the request's method changed (a GraphQL body: POST)."""

    def __init__(self, method: str) -> None:
        super().__init__()
        self.method = method
