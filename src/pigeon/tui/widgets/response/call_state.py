"""A gRPC call's state line: one line of text that changes with every batch of replies, so it
is repainted, never laid out again (a ``Static``'s update lays the whole screen out anew,
which a stream would pay every redraw)."""

from __future__ import annotations

from rich.text import Text
from textual.reactive import reactive
from textual.widget import Widget


class CallState(Widget):
    text: reactive[str] = reactive("", layout=False)

    def render(self) -> Text:
        return Text(self.text, no_wrap=True, overflow="ellipsis")
