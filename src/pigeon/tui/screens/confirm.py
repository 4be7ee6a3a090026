"""A yes/no question, and the save / discard / cancel question for unsaved changes."""

from __future__ import annotations

from pathlib import Path

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Label

_CSS = (Path(__file__).parent / "dialogs.tcss").read_text()


class ConfirmScreen(ModalScreen[bool]):
    """Ask before something that cannot be undone; ``escape`` or ``n`` answers no."""

    DEFAULT_CSS = _CSS
    BINDINGS = [
        Binding("escape,n", "answer(False)", "No", id="dialog.no"),
        Binding("y", "answer(True)", "Yes", id="dialog.yes"),
    ]

    def __init__(self, title: str, message: str, yes: str = "Yes", no: str = "Cancel") -> None:
        super().__init__()
        self._title, self._message, self._yes, self._no = title, message, yes, no

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label(self._title, classes="title")
            yield Label(self._message, classes="message")
            with Horizontal(classes="buttons"):
                yield Button(self._no, id="no")
                yield Button(self._yes, id="yes", variant="error")

    def on_mount(self) -> None:
        self.query_one("#no", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "yes")

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)


class UnsavedScreen(ModalScreen[str]):
    """Unsaved changes: answers ``"save"``, ``"discard"`` or ``"cancel"``."""

    DEFAULT_CSS = _CSS
    BINDINGS = [
        Binding("escape,c", "answer('cancel')", "Cancel", id="dialog.cancel"),
        Binding("s", "answer('save')", "Save", id="dialog.save"),
        Binding("d", "answer('discard')", "Discard", id="dialog.discard"),
    ]

    def __init__(self, what: str) -> None:
        super().__init__()
        self._what = what

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label("Unsaved changes", classes="title")
            yield Label(f"{self._what} has unsaved changes.", classes="message")
            with Horizontal(classes="buttons"):
                yield Button("Cancel", id="cancel")
                yield Button("Discard", id="discard", variant="error")
                yield Button("Save", id="save", variant="primary")

    def on_mount(self) -> None:
        self.query_one("#save", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id or "cancel")

    def action_answer(self, answer: str) -> None:
        self.dismiss(answer)
