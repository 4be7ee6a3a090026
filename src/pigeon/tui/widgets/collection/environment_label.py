"""The selected environment above the tree; a click (or f4) opens the chooser."""

from __future__ import annotations

from rich.text import Text
from textual.message import Message
from textual.widgets import Static

from pigeon.tui.css import beside


class EnvironmentLabel(Static):
    DEFAULT_CSS = beside(__file__)

    class Clicked(Message):
        """Open the environment chooser."""

    def show(self, name: str) -> None:
        self.environment = name
        self.update(Text.assemble(("env ", "dim"), (name or "none", "bold"), ("  f4 ▾", "dim")))

    def on_click(self) -> None:
        self.post_message(self.Clicked())
