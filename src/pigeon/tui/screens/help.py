"""Every key, grouped by where it works, read from the live bindings (remaps included)."""

from __future__ import annotations

from pathlib import Path

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Label, Static

Section = tuple[str, list[tuple[str, str]]]  # (pane, [(keys, description)])


class HelpScreen(ModalScreen[None]):
    DEFAULT_CSS = Path(__file__).with_suffix(".tcss").read_text()
    BINDINGS = [Binding("escape,f1,q,question_mark", "close", "Close", id="help.close")]

    def __init__(self, sections: list[Section]) -> None:
        super().__init__()
        self._sections = sections

    def compose(self) -> ComposeResult:
        with Vertical(id="help-box"):
            yield Label(
                "Pigeon keys — escape to close; keys can be remapped in config.toml [keys]",
                id="help-title",
            )
            with VerticalScroll(id="help-scroll"):
                for title, rows in self._sections:
                    table = Table(box=None, show_header=False, padding=(0, 2, 0, 0), expand=False)
                    table.add_column(style="bold", no_wrap=True, min_width=16)
                    table.add_column()
                    for keys, description in rows:
                        table.add_row(keys, description)
                    yield Static(Text(title, style="bold underline"), classes="help-section")
                    yield Static(table, classes="help-table")

    def on_mount(self) -> None:
        self.query_one("#help-scroll").focus()

    def action_close(self) -> None:
        self.dismiss(None)
