"""Every key, grouped by where it works, read from the live bindings (remaps included), with
the action id that ``config.toml [keys]`` remaps."""

from __future__ import annotations

from rich.console import Console, ConsoleOptions, RenderResult
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from pigeon.tui.css import beside

Section = tuple[str, list[tuple[str, str, str]]]  # (pane, [(keys, description, action id)])

# Below this many columns for the descriptions, each action id goes under its description
# instead of in a column of its own: a small terminal keeps descriptions readable.
READABLE_DESCRIPTION = 20


class KeyTable:
    """One section's rows, laid out for the width they are given: keys, description and id
    side by side when the description keeps ``READABLE_DESCRIPTION`` columns, else the id
    on a dim line under the description and the keys column narrowed to a third."""

    def __init__(self, rows: list[tuple[str, str, str]], keys_width: int, id_width: int) -> None:
        self.rows = rows
        self.keys_width = keys_width
        self.id_width = id_width

    def table(self, width: int) -> Table:
        table = Table(box=None, show_header=False, padding=(0, 2, 0, 0), expand=True)
        side_by_side = width - self.keys_width - self.id_width - 4 >= READABLE_DESCRIPTION
        keys_width = self.keys_width if side_by_side else min(self.keys_width, width // 3)
        table.add_column(style="bold", width=keys_width, overflow="fold")
        table.add_column(ratio=1, overflow="fold")
        if side_by_side:
            table.add_column(style="dim", no_wrap=True, width=self.id_width)
        for keys, description, action_id in self.rows:
            if side_by_side:
                table.add_row(keys, description, action_id)
            else:
                stacked = Text(description)
                stacked.append(f"\n{action_id}", style="dim")
                table.add_row(keys, stacked)
        return table

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield self.table(options.max_width)


class HelpScreen(ModalScreen[None]):
    DEFAULT_CSS = beside(__file__)
    BINDINGS = [Binding("escape,f1,q,question_mark", "close", "Close", id="help.close")]

    def __init__(self, sections: list[Section]) -> None:
        super().__init__()
        self._sections = sections

    def compose(self) -> ComposeResult:
        with Vertical(id="help-box"):
            yield Static(
                "Pigeon keys — escape to close. To remap one, give its action id (last column) "
                'a key in config.toml [keys]: send = "ctrl+r,f9"',
                id="help-title",
                markup=False,
            )
            # The same widths in every section, so the ids line up in one column at the right;
            # the description takes what is left and wraps, so no id is ever cut off (on a
            # small terminal each id goes under its description: ``KeyTable``).
            every_row = [row for _, rows in self._sections for row in rows]
            keys_width = min(max((len(row[0]) for row in every_row), default=0), 20)
            id_width = max((len(row[2]) for row in every_row), default=0)
            with VerticalScroll(id="help-scroll"):
                for title, rows in self._sections:
                    yield Static(Text(title, style="bold underline"), classes="help-section")
                    yield Static(KeyTable(rows, keys_width, id_width), classes="help-table")

    def on_mount(self) -> None:
        self.query_one("#help-scroll").focus()

    def action_close(self) -> None:
        self.dismiss(None)
