"""Where a copy opened from history is saved: over the request it was sent from, or as a new
request. Saying so before anything is written is the point: the copy holds what was sent
(rendered values, no scripts or variables), so replacing the file changes more than a field."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import Button, Label

from pigeon.terminal import printable
from pigeon.tui.dialogs.form_modal import AnswerModal, button_row


class SaveCopyScreen(AnswerModal[str]):
    """Answers ``"replace"``, ``"new"`` or ``"cancel"`` (the button focused first)."""

    FIRST_FOCUS = "cancel"
    BINDINGS = [
        Binding("escape,c", "answer('cancel')", "Cancel", id="dialog.cancel"),
        Binding("r", "answer('replace')", "Replace", id="dialog.replace"),
        Binding("n", "answer('new')", "New request", id="dialog.new"),
    ]

    def __init__(self, name: str, where: str) -> None:
        super().__init__()
        self._request, self._where = name, where  # not _name: Textual's, the screen's name

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label("Save the copy from history", classes="title")
            yield Label(
                f"Replace “{printable(self._request)}” in {printable(self._where)} with what "
                "this entry sent? Its URL, headers and body become the values sent, and "
                "its own variables, auth and scripts are dropped.",
                classes="message",
                markup=False,
            )
            yield Label("r: replace   n: new request   c: cancel", classes="hint")
            yield button_row(
                Button("Cancel", id="cancel"),
                Button("New request…", id="new", variant="primary"),
                Button("Replace", id="replace", variant="error"),
            )

    def _answer_for(self, button_id: str | None) -> str:
        return button_id or "cancel"
