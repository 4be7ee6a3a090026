"""The history of sends, shown in the tree's place (f6): the list, and what its keys do (``m``
marks an entry, ``=`` compares another with it).

Deleting and pruning entries the pane does itself. Opening or re-sending one is the screen's
work (the editor and the send are there): the pane turns the entry into a request (and the
exchange it recorded) and posts ``OpenRequested`` or ``SendRequested``. An entry whose URL or
body holds the history's mask is never re-sent: the mask would go out in place of the secret.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import TYPE_CHECKING

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import Input

from pigeon.history import delete_entry, prune, to_request
from pigeon.masking import MASK
from pigeon.model import Request
from pigeon.tui.css import beside
from pigeon.tui.dialogs.prompt import PromptScreen
from pigeon.tui.widgets.collection.history_list import HistoryList

if TYPE_CHECKING:
    from pigeon.exchange import Exchange
    from pigeon.session import Session


def masked_parts(request: Request) -> list[str]:
    """Which parts of a request made from a history entry still carry the history's mask
    (masked headers come back switched off, so they are not listed)."""
    parts = []
    if MASK in request.url or any(MASK in q.value for q in request.query if q.enabled):
        parts.append("URL")
    if MASK in request.body.content:
        parts.append("body")
    return parts


class HistoryPane(Vertical):
    """The history list of the session's collection, with its entries' commands and a search
    line (``/``) over it."""

    DEFAULT_CSS = beside(__file__)
    BINDINGS = [
        Binding("escape", "end_search", "End search", show=False, id="history.end_search"),
    ]

    @dataclass
    class OpenRequested(Message):
        """Open an entry's request in the editor (an unsaved copy: ctrl+r re-sends it) and
        show the exchange it recorded."""

        request: Request
        """The request the entry sent."""
        exchange: Exchange
        """The exchange the entry recorded."""
        refused: str = ""
        """Why a re-send was not made, to show once the entry is open ("": none asked)."""

    @dataclass
    class SendRequested(Message):
        """Open an entry's request in the editor (an unsaved copy) and send it again."""

        request: Request
        """The request the entry sent."""
        request_id: str = ""
        """The id of the collection's request it was sent from."""

    def __init__(self, session: Session, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.session = session
        self.list = HistoryList(session.root, id="history")

    def compose(self) -> ComposeResult:
        yield Input(placeholder="search: name, URL, status, environment", id="history-search")
        yield self.list

    def on_history_list_search_requested(self, event: HistoryList.SearchRequested) -> None:
        event.stop()
        self.add_class("-searching")
        self.query_one("#history-search", Input).focus()

    @on(Input.Changed, "#history-search")
    def _search_changed(self, event: Input.Changed) -> None:
        event.stop()
        self.list.set_search(event.value)

    @on(Input.Submitted, "#history-search")
    def _search_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.list.focus()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "end_search":  # esc cancels a send otherwise
            return self.has_class("-searching")
        return True

    def action_end_search(self) -> None:
        """Show every entry again."""
        self.query_one("#history-search", Input).value = ""
        self.list.set_search("")
        self.remove_class("-searching")
        self.list.focus()

    def reload(self) -> None:
        """Read the history again (off the UI loop) and redraw it."""
        self.list.reload()

    def on_history_list_open(self, event: HistoryList.Open) -> None:
        event.stop()
        entry = event.entry
        self.post_message(self.OpenRequested(to_request(entry), entry.to_exchange()))

    def on_history_list_resend(self, event: HistoryList.Resend) -> None:
        event.stop()
        request = to_request(event.entry)
        masked = masked_parts(request)
        if not masked:
            self.post_message(self.SendRequested(request, event.entry.request_id))
            return
        verb = "holds" if len(masked) == 1 else "hold"
        refused = (
            f"Not sent: the {' and '.join(masked)} of this entry {verb} masked secrets "
            "(•••). Put the values back in the editor, then ctrl+r."
        )
        self.post_message(self.OpenRequested(request, event.entry.to_exchange(), refused))

    def on_history_list_diff(self, event: HistoryList.Diff) -> None:
        event.stop()
        from pigeon.tui.dialogs.diff import DiffScreen, entry_side

        self.app.push_screen(DiffScreen(entry_side(event.old), entry_side(event.new)))

    def on_history_list_delete(self, event: HistoryList.Delete) -> None:
        event.stop()
        try:
            delete_entry(event.entry)
        except OSError as exc:
            self.notify(f"Not deleted: {exc}", severity="error", timeout=8)
            return
        self.notify("Deleted the history entry.")
        self.reload()

    def on_history_list_prune(self, event: HistoryList.Prune) -> None:
        event.stop()

        def check(value: str) -> str | None:
            return None if value.isdigit() else "a whole number, 0 or more"

        def answered(value: str | None) -> None:
            if value is not None:
                self._prune(int(value))

        title = f"Keep the newest N of {event.count} history entries"
        default = str(self.session.config.history_keep)
        self.app.push_screen(PromptScreen(title, default, check=check), answered)

    @work(group="history", exit_on_error=False)
    async def _prune(self, keep: int) -> None:
        try:
            removed = await asyncio.to_thread(prune, self.session.root, keep)
        except (OSError, ValueError) as exc:
            self.notify(f"Not pruned: {exc}", severity="error", timeout=8)
            return
        self.notify(f"Removed {removed} history entr{'y' if removed == 1 else 'ies'}.")
        self.reload()
