"""This session's messages in full: notifications, script output and errors (with
tracebacks)."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label, RichLog

from pigeon.session import LogEntry
from pigeon.terminal import printable, printable_lines
from pigeon.tui.css import beside


class LogScreen(ModalScreen[None]):
    DEFAULT_CSS = beside(__file__)
    BINDINGS = [Binding("escape,f2,q", "dismiss_log", "Close", id="log.close")]

    def __init__(self, entries: list[LogEntry]) -> None:
        super().__init__()
        self._entries = entries

    def compose(self) -> ComposeResult:
        with Vertical(id="log-box"):
            yield Label("Log: messages, script output and errors — escape to close", id="log-title")
            yield RichLog(id="log", wrap=True, markup=False, highlight=False)

    def on_mount(self) -> None:
        log = self.query_one(RichLog)
        if not self._entries:
            log.write(
                Text(
                    "Nothing yet: messages, script output (print) and errors appear here.",
                    style="dim",
                )
            )
        for entry in self._entries:
            head = Text.assemble(
                (entry.when.strftime("%H:%M:%S "), "dim"),
                (printable(entry.source), "bold red" if entry.error else "bold"),
            )
            log.write(head)
            text = printable_lines(entry.text.rstrip("\n"))
            log.write(Text(text, style="red" if entry.error else ""))
        log.focus()

    def action_dismiss_log(self) -> None:
        self.dismiss(None)
