"""Edit one name/value row (a header, a query parameter, a form field)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Checkbox, Input, Label

_CSS = (Path(__file__).parent / "dialogs.tcss").read_text()


@dataclass
class PairValue:
    name: str
    value: str
    enabled: bool = True


class PairEditScreen(ModalScreen[PairValue | None]):
    """``enter`` in the value field (or Save) accepts; ``escape`` cancels."""

    DEFAULT_CSS = _CSS
    BINDINGS = [Binding("escape", "cancel", "Cancel", id="dialog.cancel")]

    def __init__(self, title: str, pair: PairValue, value_label: str = "Value") -> None:
        super().__init__()
        self._title, self._pair, self._value_label = title, pair, value_label

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label(self._title, classes="title")
            yield Label("Name")
            yield Input(self._pair.name, id="pair-name")
            yield Label(self._value_label)
            yield Input(self._pair.value, id="pair-value")
            yield Checkbox("Enabled (sent)", self._pair.enabled, id="pair-enabled")
            yield Label("", classes="error", id="pair-error")
            with Horizontal(classes="buttons"):
                yield Button("Cancel", id="cancel")
                yield Button("Save", id="save", variant="primary")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if event.input.id == "pair-name":
            self.query_one("#pair-value", Input).focus()
        else:
            self._accept()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "save":
            self._accept()
        else:
            self.dismiss(None)

    def _accept(self) -> None:
        name = self.query_one("#pair-name", Input).value.strip()
        if not name:
            self.query_one("#pair-error", Label).update("a name is needed")
            return
        value = self.query_one("#pair-value", Input).value
        enabled = self.query_one("#pair-enabled", Checkbox).value
        self.dismiss(PairValue(name, value, enabled))

    def action_cancel(self) -> None:
        self.dismiss(None)
