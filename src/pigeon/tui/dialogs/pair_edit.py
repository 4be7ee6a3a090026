"""Edit one name/value row (a header, a query parameter, a form field)."""

from __future__ import annotations

from dataclasses import dataclass

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.suggester import Suggester
from textual.widgets import Checkbox, Input, Label

from pigeon.tui.dialogs.form_modal import FormModal, save_cancel_row
from pigeon.tui.input_undo import UndoableInput


@dataclass
class PairValue:
    name: str
    value: str
    enabled: bool = True


class PairEditScreen(FormModal[PairValue | None]):
    """``enter`` in the value field (or Save) accepts; ``escape`` cancels."""

    FIELDS = ("pair-name", "pair-value")

    def __init__(
        self,
        title: str,
        pair: PairValue,
        value_label: str = "Value",
        suggester: Suggester | None = None,
    ) -> None:
        """``suggester`` completes the value (``{{`` placeholders)."""
        super().__init__()
        self._title, self._pair, self._value_label = title, pair, value_label
        self._suggester = suggester

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog form"):
            yield Label(self._title, classes="title")
            yield Label("Name")
            yield UndoableInput(self._pair.name, id="pair-name")
            yield Label(self._value_label)
            yield UndoableInput(self._pair.value, suggester=self._suggester, id="pair-value")
            yield Checkbox("Enabled (sent)", self._pair.enabled, id="pair-enabled")
            yield Label("", classes="error", id="pair-error")
            yield save_cancel_row()

    def _accept(self) -> None:
        name = self.query_one("#pair-name", Input).value.strip()
        if not name:
            self.query_one("#pair-error", Label).update("a name is needed")
            return
        value = self.query_one("#pair-value", Input).value
        enabled = self.query_one("#pair-enabled", Checkbox).value
        self.dismiss(PairValue(name, value, enabled))
