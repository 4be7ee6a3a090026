"""The plumbing Pigeon's dialogs share, so each screen holds only its own fields and answers."""

from __future__ import annotations

from typing import ClassVar, TypeVar

from textual.binding import Binding
from textual.containers import Horizontal
from textual.screen import ModalScreen
from textual.widgets import Button, Input

from pigeon.tui.css import beside

DIALOG_CSS = beside(__file__, "dialogs.tcss")

ResultT = TypeVar("ResultT")


def button_row(*buttons: Button) -> Horizontal:
    """The right-aligned row of buttons at the foot of a dialog."""
    return Horizontal(*buttons, classes="buttons")


def save_cancel_row() -> Horizontal:
    """Cancel and Save: Save (``#save``) accepts, any other button cancels."""
    return button_row(Button("Cancel", id="cancel"), Button("Save", id="save", variant="primary"))


class Dialog(ModalScreen[ResultT]):
    """A dialog centred over the dimmed app, its buttons always in view: on a small screen
    the body scrolls (``dialogs.tcss``)."""

    DEFAULT_CSS = DIALOG_CSS


class FormModal(Dialog[ResultT]):
    """A dialog of input fields closed by ``_accept`` (``None`` on cancel).

    ``enter`` in one of ``FIELDS`` moves to the next and in the last one accepts, so a form can
    be filled without the mouse; ``escape`` or any button but Save cancels.
    """

    BINDINGS = [Binding("escape", "cancel", "Cancel", id="dialog.cancel")]
    FIELDS: ClassVar[tuple[str, ...]] = ()
    """Ids of the inputs ``enter`` walks through, in order."""

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        fields = self.FIELDS
        if event.input.id in fields[:-1]:
            self.query_one(f"#{fields[fields.index(event.input.id) + 1]}", Input).focus()
        else:
            self._accept()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "save":
            self._accept()
        else:
            self.dismiss(None)

    def _accept(self) -> None:
        """Dismiss with the result, or show what is wrong and stay open."""
        raise NotImplementedError

    def action_cancel(self) -> None:
        self.dismiss(None)


class AnswerModal(Dialog[ResultT]):
    """A question answered by a button or by a key bound to ``answer(...)``."""

    FIRST_FOCUS: str = "no"
    """Id of the button focused on opening: the harmless answer, so ``enter`` is safe (a
    dialog may choose it per instance)."""

    def on_mount(self) -> None:
        self.query_one(f"#{self.FIRST_FOCUS}", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(self._answer_for(event.button.id))

    def _answer_for(self, button_id: str | None) -> ResultT:
        """The answer a pressed button gives."""
        raise NotImplementedError

    def action_answer(self, answer: ResultT) -> None:
        self.dismiss(answer)


class YesNoModal(AnswerModal[bool]):
    """The ``#yes`` button answers ``True``, any other ``False``."""

    def _answer_for(self, button_id: str | None) -> bool:
        return button_id == "yes"
