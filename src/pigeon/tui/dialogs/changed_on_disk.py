"""A file changed on disk since the app read it, and the app is about to write it: whose
version wins. Answers ``"theirs"`` (reload the disk's version, dropping mine), ``"mine"``
(overwrite, now knowingly; for a deleted file: write it again) or ``"beside"`` (write mine as a
copy next to theirs); escape answers ``None``: nothing is written and the edits stay."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import Button, Label

from pigeon.terminal import printable
from pigeon.tui.dialogs.form_modal import AnswerModal, button_row


class ChangedOnDiskScreen(AnswerModal[str | None]):
    """Ask whose version of ``name`` wins; ``deleted``: the file is gone from disk."""

    BINDINGS = [
        Binding("escape", "answer(None)", "Cancel", id="dialog.cancel"),
        Binding("r,d", "answer('theirs')", "Reload theirs / drop mine", id="dialog.theirs"),
        Binding("k,w", "answer('mine')", "Keep mine", id="dialog.mine"),
        Binding("b", "answer('beside')", "Save mine beside", id="dialog.beside"),
    ]

    def __init__(self, name: str, deleted: bool = False) -> None:
        super().__init__()
        self._file, self._deleted = name, deleted
        self.FIRST_FOCUS = "mine" if deleted else "beside"  # the answer that loses nothing

    def compose(self) -> ComposeResult:
        name = printable(self._file)
        with Vertical(classes="dialog"):
            if self._deleted:
                yield Label("Deleted on disk", classes="title")
                message = (
                    f"{name} was deleted on disk since it was loaded. Write your version "
                    "again, or drop it?"
                )
                buttons = [
                    Button("Drop mine", id="theirs", variant="error"),
                    Button("Write it again", id="mine", variant="primary"),
                ]
            else:
                yield Label("Changed on disk", classes="title")
                message = (
                    f"{name} changed on disk since it was loaded. Reload theirs (your edits "
                    "are dropped), keep yours (theirs is overwritten), or save yours beside it?"
                )
                buttons = [
                    Button("Reload theirs", id="theirs", variant="error"),
                    Button("Keep mine", id="mine", variant="warning"),
                    Button("Save mine beside", id="beside", variant="primary"),
                ]
            yield Label(Text(message), classes="message")
            yield button_row(*buttons)

    def _answer_for(self, button_id: str | None) -> str | None:
        return button_id

    def action_answer(self, answer: str | None) -> None:
        if answer == "beside" and self._deleted:
            return  # nothing to put it beside: "Write it again" is that
        self.dismiss(answer)
