"""Ask once whether to run a collection's scripts."""

from __future__ import annotations

from pathlib import Path

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Label

_CSS = (Path(__file__).parent / "dialogs.tcss").read_text()


class TrustScreen(ModalScreen[bool]):
    """``True``: trust the collection (recorded); ``False``: not now (scripts skipped)."""

    DEFAULT_CSS = _CSS
    BINDINGS = [
        Binding("escape,n", "answer(False)", "Not now", id="dialog.not_now"),
        Binding("t", "answer(True)", "Trust", id="dialog.trust"),
    ]

    def __init__(self, root: Path) -> None:
        super().__init__()
        self._root = root

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label("Run this collection's scripts?", classes="title")
            yield Label(
                f"{self._root}\n\nIts requests have Python scripts. Scripts run with your "
                "permissions: trust only collections you wrote or have read. The answer is "
                "remembered.",
                classes="message",
            )
            with Horizontal(classes="buttons"):
                yield Button("Not now", id="no")
                yield Button("Trust", id="yes", variant="warning")

    def on_mount(self) -> None:
        self.query_one("#no", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "yes")

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)
