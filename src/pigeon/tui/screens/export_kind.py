"""The export kinds f3 offers (DESIGN §12): a short list, the one last copied highlighted,
so f3 then enter copies the same kind again."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label, OptionList
from textual.widgets.option_list import Option

from pigeon.exporters import REQUEST_KINDS
from pigeon.tui.css import beside


class ExportKindScreen(ModalScreen[str | None]):
    """Dismissed with the chosen kind, or ``None`` on escape."""

    DEFAULT_CSS = beside(__file__)
    BINDINGS = [Binding("escape", "cancel", "Close", id="export.close")]

    def __init__(self, last: str) -> None:
        super().__init__()
        self._last = last if last in REQUEST_KINDS else REQUEST_KINDS[0]

    def compose(self) -> ComposeResult:
        with Vertical(id="export-box"):
            yield Label("Copy the request as", id="export-title")
            yield OptionList(*(Option(kind, id=kind) for kind in REQUEST_KINDS), id="export-kinds")

    def on_mount(self) -> None:
        kinds = self.query_one(OptionList)
        kinds.highlighted = REQUEST_KINDS.index(self._last)
        kinds.focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(event.option.id)

    def action_cancel(self) -> None:
        self.dismiss(None)
