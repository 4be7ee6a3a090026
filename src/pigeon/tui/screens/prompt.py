"""Ask for one line of text (a name), validated before the dialog closes."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label

_CSS = (Path(__file__).parent / "dialogs.tcss").read_text()


class PromptScreen(ModalScreen[str | None]):
    """``enter`` accepts, ``escape`` cancels (``None``); ``check`` returns an error or ``None``."""

    DEFAULT_CSS = _CSS
    BINDINGS = [Binding("escape", "cancel", "Cancel", id="dialog.cancel")]

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
            yield Input(self._value, placeholder=self._placeholder, id="prompt-input")
            yield Label("", classes="error", id="prompt-error")
            yield Label("enter: accept   escape: cancel", classes="hint")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        value = event.value.strip()
        problem = self._check(value) if self._check else (None if value else "a name is needed")
        if problem:
            self.query_one("#prompt-error", Label).update(problem)
            return
        self.dismiss(value)

    def action_cancel(self) -> None:
        self.dismiss(None)
