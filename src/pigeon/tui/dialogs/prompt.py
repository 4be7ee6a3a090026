"""Ask for one line of text (a name), validated before the dialog closes."""

from __future__ import annotations

from collections.abc import Callable

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Input, Label

from pigeon.tui.dialogs.form_modal import FormModal
from pigeon.tui.input_undo import UndoableInput


class PromptScreen(FormModal[str | None]):
    """``enter`` accepts, ``escape`` cancels (``None``); ``check`` returns an error or ``None``."""

    FIELDS = ("prompt-input",)

    def __init__(
        self,
        title: str,
        value: str = "",
        placeholder: str = "",
        check: Callable[[str], str | None] | None = None,
    ) -> None:
        super().__init__()
        self._title, self._value, self._placeholder, self._check = title, value, placeholder, check

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label(self._title, classes="title")
            yield UndoableInput(self._value, placeholder=self._placeholder, id="prompt-input")
            yield Label("", classes="error", id="prompt-error")
            yield Label("enter: accept   escape: cancel", classes="hint")

    def _accept(self) -> None:
        value = self.query_one("#prompt-input", Input).value.strip()
        problem = self._check(value) if self._check else (None if value else "a name is needed")
        if problem:
            self.query_one("#prompt-error", Label).update(problem)
            return
        self.dismiss(value)
