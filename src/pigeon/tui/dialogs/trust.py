"""Ask once whether to run a collection's scripts."""

from __future__ import annotations

from pathlib import Path

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import Button, Label

from pigeon.tui.dialogs.form_modal import YesNoModal, button_row


class TrustScreen(YesNoModal):
    """``True``: trust the collection (recorded); ``False``: not now (scripts skipped)."""

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
            yield button_row(
                Button("Not now", id="no"), Button("Trust", id="yes", variant="warning")
            )
