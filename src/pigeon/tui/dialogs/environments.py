"""The environment chooser: pick one, or make, rename or delete one from the same list."""

from __future__ import annotations

from dataclasses import dataclass

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label, OptionList
from textual.widgets.option_list import Option

from pigeon.tui.css import beside

NO_ENV = "__none__"


@dataclass(frozen=True)
class EnvironmentAnswer:
    """What was asked of the chooser: ``choose``, ``new``, ``rename`` or ``delete``, and the
    environment highlighted (``""``: no environment)."""

    action: str
    name: str


class EnvironmentScreen(ModalScreen[EnvironmentAnswer | None]):
    """``enter`` chooses the highlighted environment; ``n``, ``r`` and ``d`` ask for a new
    one, or to rename or delete the highlighted one; ``escape`` answers ``None``."""

    DEFAULT_CSS = beside(__file__, "dialogs.tcss")
    BINDINGS = [
        Binding("escape", "cancel", "Cancel", id="dialog.cancel"),
        Binding("n", "answer('new')", "New environment", id="environments.new"),
        Binding("r", "answer('rename')", "Rename environment", id="environments.rename"),
        Binding("d,delete", "answer('delete')", "Delete environment", id="environments.delete"),
    ]

    def __init__(self, names: list[str], current: str, marks: dict[str, str] | None = None) -> None:
        super().__init__()
        self._names, self._current = names, current
        self._marks = marks or {}  # a name's note: a global environment says so

    def compose(self) -> ComposeResult:
        options = [Option("(no environment)", id=NO_ENV)]
        options += [
            Option(f"{name}  {self._marks[name]}" if name in self._marks else name, id=name)
            for name in self._names
        ]
        with Vertical(classes="dialog"):
            yield Label("Environment", classes="title")
            yield OptionList(*options)
            yield Label("enter: choose  n: new  r: rename  d: delete  esc: cancel", classes="hint")

    def on_mount(self) -> None:
        options = self.query_one(OptionList)
        if self._current in self._names:
            options.highlighted = self._names.index(self._current) + 1
        else:
            options.highlighted = 0
        options.focus()

    def _highlighted(self) -> str:
        options = self.query_one(OptionList)
        index = options.highlighted
        option_id = options.get_option_at_index(index).id if index is not None else NO_ENV
        return "" if option_id in (None, NO_ENV) else option_id

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.action_answer("choose")

    def action_answer(self, action: str) -> None:
        self.dismiss(EnvironmentAnswer(action, self._highlighted()))

    def action_cancel(self) -> None:
        self.dismiss(None)
