"""The one-line field a WebSocket message is written in: ``enter`` sends it (empty, the saved
message highlighted), ``{{`` completes placeholders as in the URL bar, and the text is rendered
with the variables when it is sent."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar

from textual.binding import Binding, BindingType
from textual.message import Message
from textual.widgets import Input

from pigeon.scopes import Scopes
from pigeon.tui.placeholder_suggester import PlaceholderSuggester


class MessageComposer(Input):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "send_message", "Send message", id="websocket.send"),
    ]

    @dataclass
    class Send(Message):
        """Send ``text`` (placeholders not yet rendered) as a text frame."""

        text: str

    class SendSaved(Message):
        """``enter`` in the empty field: send the saved message highlighted."""

    def __init__(self, scopes: Callable[[], Scopes | None], *, id: str | None = None) -> None:
        super().__init__(
            placeholder="a message ({{ for variables), enter sends",
            suggester=PlaceholderSuggester(scopes),
            id=id,
        )

    def action_send_message(self) -> None:
        if not self.value:
            self.post_message(self.SendSaved())
            return
        self.post_message(self.Send(self.value))
        self.value = ""
