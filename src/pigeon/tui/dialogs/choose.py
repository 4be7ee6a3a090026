"""Pick one of a list (environment, destination folder, body type...)."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import Label, OptionList
from textual.widgets.option_list import Option

from pigeon.tui.dialogs.form_modal import Dialog


class ChooseScreen(Dialog[str | None]):
    """Options are ``(id, label)``; dismisses with the chosen id, or ``None`` on ``escape``."""

    BINDINGS = [Binding("escape", "cancel", "Cancel", id="dialog.cancel")]

    def __init__(
        self, title: str, options: list[tuple[str, str]], current: str | None = None
    ) -> None:
        super().__init__()
        self._title, self._options, self._current = title, options, current

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label(self._title, classes="title")
            yield OptionList(*[Option(label, id=key) for key, label in self._options])
            yield Label("enter: choose   escape: cancel", classes="hint")

    def on_mount(self) -> None:
        options = self.query_one(OptionList)
        for index, (key, _) in enumerate(self._options):
            if key == self._current:
                options.highlighted = index
        options.focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(event.option.id)

    def action_cancel(self) -> None:
        self.dismiss(None)
