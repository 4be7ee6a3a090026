"""Edit a variable: its name and a value written as a TOML or JSON literal, or plain text."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.suggester import Suggester
from textual.widgets import Input, Label, Select

from pigeon.tui.dialogs.form_modal import FormModal, save_cancel_row
from pigeon.tui.input_undo import UndoableInput
from pigeon.values import check_name, check_value, kind_of, parse_literal, to_literal


@dataclass
class VariableValue:
    name: str
    value: Any
    scope: str  # the key of the scope chosen in the dialog ("collection", "folder:0"...)


class VariableEditScreen(FormModal[VariableValue | None]):
    """The value is checked like a script's ``setVar`` before the dialog closes."""

    FIELDS = ("var-name", "var-value")

    def __init__(
        self,
        title: str,
        name: str = "",
        value: Any = "",
        scopes: list[tuple[str, str]] | None = None,
        scope: str | None = None,
        suggester: Suggester | None = None,
    ) -> None:
        """``suggester`` completes the value (``{{`` placeholders)."""
        super().__init__()
        self._suggester = suggester
        self._title, self._name, self._value = title, name, value
        self._scopes = scopes or [("collection", "collection")]
        self._scope = scope if scope in {k for k, _ in self._scopes} else self._scopes[0][0]

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog form"):
            yield Label(self._title, classes="title")
            yield Label("Name")
            yield UndoableInput(self._name, id="var-name")
            yield Label("Value: a literal (42, true, [1, 2], {a = 1}) or text")
            yield UndoableInput(
                to_literal(self._value) if self._name else "",
                suggester=self._suggester,
                id="var-value",
            )
            yield Label("", id="var-kind", classes="hint")
            yield Label("Save in")
            yield Select(
                [(label, key) for key, label in self._scopes],
                value=self._scope,
                allow_blank=False,
                id="var-scope",
            )
            yield Label("", classes="error", id="var-error")
            yield save_cancel_row()

    def on_mount(self) -> None:
        self._show_kind(self.query_one("#var-value", Input).value)
        if self._name:
            self.query_one("#var-value", Input).focus()

    def on_input_changed(self, event: Input.Changed) -> None:
        if event.input.id == "var-value":
            self._show_kind(event.value)

    def _show_kind(self, text: str) -> None:
        try:
            kind = kind_of(parse_literal(text))
        except TypeError:
            kind = "?"
        self.query_one("#var-kind", Label).update(f"kind: {kind}")

    def _accept(self) -> None:
        name = self.query_one("#var-name", Input).value.strip()
        text = self.query_one("#var-value", Input).value
        try:
            check_name(name)
            value = check_value(parse_literal(text), name)
        except ValueError as exc:
            self.query_one("#var-error", Label).update(str(exc))
            return
        scope = self.query_one("#var-scope", Select).value
        self.dismiss(VariableValue(name, value, str(scope)))
