"""The export kinds f3 offers (DESIGN §12): a short list, the one last copied highlighted,
so f3 then enter copies the same kind again."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label, OptionList
from textual.widgets.option_list import Option

from pigeon.exporters import REQUEST_KINDS
from pigeon.tui.css import beside

if TYPE_CHECKING:
    from textual.screen import Screen

    from pigeon.session import Session
    from pigeon.tui.widgets.editor.request_editor import RequestEditor


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


def export_request(screen: Screen[None], editor: RequestEditor, session: Session) -> None:
    """Render the open request as a send would go (what cannot be rendered says so before
    the choice), offer the kinds, copy the chosen one and remember it in the config."""
    if editor.request is None:
        return
    try:
        rendered = session.render(editor.request, leaving=True)
        rendered = session.with_jar_cookies(rendered)  # as a send goes
    except Exception as exc:
        screen.notify(f"Cannot export: {exc}", severity="error")
        return
    config = session.config

    def copy(kind: str | None) -> None:
        if kind is None:
            return
        from pigeon.tui.format import export_text

        try:
            text = export_text(kind, rendered)
        except Exception as exc:
            screen.notify(f"Cannot export: {exc}", severity="error")
            return
        screen.app.copy_to_clipboard(text)
        screen.notify(f"Copied the request as {kind}.")
        if config.export_kind != kind:
            config.export_kind = kind
            try:
                config.save()
            except Exception as exc:  # the copy is done; only the choice is not kept
                screen.notify(f"Cannot save the config: {exc}", severity="warning")

    screen.app.push_screen(ExportKindScreen(config.export_kind), copy)
