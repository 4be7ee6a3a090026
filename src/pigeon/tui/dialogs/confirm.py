"""A yes/no question, and the save / discard / cancel question for unsaved changes."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import Button, Label

from pigeon.tui.dialogs.form_modal import AnswerModal, YesNoModal, button_row


class ConfirmScreen(YesNoModal):
    """Ask before something that cannot be undone; ``escape`` or ``n`` answers no."""

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
            yield button_row(
                Button(self._no, id="no"), Button(self._yes, id="yes", variant="error")
            )


class UnsavedScreen(AnswerModal[str]):
    """Unsaved changes: answers ``"save"``, ``"discard"`` or ``"cancel"``. Cancel (keep
    editing) has the focus as it opens: an ``enter`` pressed in passing loses nothing and
    writes nothing; ←/→ move between the buttons."""

    FIRST_FOCUS = "cancel"
    BINDINGS = [
        Binding("escape,c", "answer('cancel')", "Cancel", id="dialog.cancel"),
        Binding("s", "answer('save')", "Save", id="dialog.save"),
        Binding("d", "answer('discard')", "Discard", id="dialog.discard"),
        Binding("left", "app.focus_previous", "Previous button", show=False, id="dialog.left"),
        Binding("right", "app.focus_next", "Next button", show=False, id="dialog.right"),
    ]

    def __init__(self, what: str) -> None:
        super().__init__()
        self._what = what

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label("Unsaved changes", classes="title")
            yield Label(f"{self._what} has unsaved changes.", classes="message")
            yield button_row(
                Button("Cancel", id="cancel"),
                Button("Discard", id="discard", variant="error"),
                Button("Save", id="save", variant="primary"),
            )

    def _answer_for(self, button_id: str | None) -> str:
        return button_id or "cancel"
