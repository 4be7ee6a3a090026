"""Two responses side by side (or unified): status, headers and body, their differences
marked. Computed in a thread (``response_diff.compare``); ``u`` switches the layout, ``o``
compares JSON with its keys sorted or in the document's order."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, ClassVar

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label, Static
from textual.worker import get_current_worker

from pigeon.bodies.cancel import Stopped
from pigeon.history import HistoryEntry, list_entries
from pigeon.response_diff import DiffSide, ResponseDiff, compare, side_of
from pigeon.terminal import printable
from pigeon.tui.css import beside
from pigeon.tui.dialogs.choose import ChooseScreen
from pigeon.tui.dialogs.diff_view import DiffView

if TYPE_CHECKING:
    from textual.app import App

    from pigeon.exchange import Exchange

CHOICES = 200  # the newest responses of a request offered to compare with
HINT = "u: unified/side by side   o: sort keys   n/N: next/prev change   esc: close"


def entry_label(entry: HistoryEntry) -> str:
    """When an entry was sent, and what it got."""
    return f"{entry.started_at.astimezone():%Y-%m-%d %H:%M:%S} · {entry.label}"


def entry_side(entry: HistoryEntry) -> DiffSide:
    """A history entry's response, labelled with when it was sent."""
    return side_of(entry.to_exchange(), entry_label(entry))


async def diff_with_history(app: App[object], exchange: Exchange) -> None:
    """Ask which earlier response of the same request to compare ``exchange`` with (its
    history is read in a thread), then show the two."""
    session = getattr(app, "session", None)
    request_id = exchange.request.request_id
    if session is None or not request_id:
        return
    entries = await asyncio.to_thread(list_entries, session.root)
    entries = [
        e for e in entries if e.request_id == request_id and e.started_at != exchange.started_at
    ][:CHOICES]
    if not entries:
        app.notify("No other response of this request in the history to compare with.")
        return
    options = [(str(i), printable(entry_label(e))) for i, e in enumerate(entries)]

    def chosen(key: str | None) -> None:
        if key is not None:
            old = entry_side(entries[int(key)])
            app.push_screen(DiffScreen(old, side_of(exchange, "this response")))

    app.push_screen(ChooseScreen("Compare this response with…", options), chosen)


class DiffScreen(ModalScreen[None]):
    """The diff of ``old`` (left, ``-``) and ``new`` (right, ``+``)."""

    DEFAULT_CSS = beside(__file__)
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q", "close", "Close", id="diff.close"),
        Binding("u", "toggle_layout", "Unified/split", id="diff.layout"),
        Binding("o", "toggle_order", "Sort keys", id="diff.sort_keys"),
    ]

    def __init__(self, old: DiffSide, new: DiffSide) -> None:
        super().__init__()
        self.old, self.new = old, new
        self.sort_keys = False
        self.diff: ResponseDiff | None = None
        """The comparison on show (``None`` while it is computed)."""

    def compose(self) -> ComposeResult:
        with Vertical(id="diff-box"):
            yield Label(
                f"- {printable(self.old.label)}\n+ {printable(self.new.label)}", id="diff-title"
            )
            yield Static("comparing…", id="diff-notes")
            yield DiffView(id="diff-view")
            yield Label(HINT, id="diff-hint")

    @property
    def view(self) -> DiffView:
        return self.query_one(DiffView)

    def on_mount(self) -> None:
        self.view.focus()
        self._compare(self.sort_keys)

    @work(thread=True, exclusive=True, group="diff", exit_on_error=False)
    def _compare(self, sort_keys: bool) -> None:
        worker = get_current_worker()
        try:
            diff = compare(
                self.old, self.new, sort_keys=sort_keys, cancelled=lambda: worker.is_cancelled
            )
        except Stopped:
            return
        if not worker.is_cancelled:
            self.app.call_from_thread(self._show, diff, sort_keys)

    def _show(self, diff: ResponseDiff, sort_keys: bool) -> None:
        if sort_keys != self.sort_keys:
            return  # a newer toggle is being computed
        self.diff = diff
        self.view.show(diff)
        notes = list(diff.notes)
        if not diff.changes and diff.body_unknown:
            notes.insert(0, "Status and headers are the same; the bodies could not be compared.")
        elif not diff.changes:
            notes.insert(0, "The two responses are the same.")
        self.query_one("#diff-notes", Static).update("\n".join(notes))
        self.query_one("#diff-notes", Static).display = bool(notes)

    def action_close(self) -> None:
        self.dismiss(None)

    def action_toggle_layout(self) -> None:
        view = self.view
        view.mode = "unified" if view.mode == "split" else "split"

    def action_toggle_order(self) -> None:
        self.sort_keys = not self.sort_keys
        self.query_one("#diff-notes", Static).update("comparing…")
        self._compare(self.sort_keys)
