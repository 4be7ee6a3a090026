"""One open request tab: its working copy and unsaved state, and its own side of the response
(the last exchange, the send in flight), so switching tabs brings each back as it was left.

``TabResponse`` is what a send writes its progress to: the response pane while its tab is the
one on show, and the tab's record always, so the result of a send lands in its own tab
whichever tab is on show when it arrives.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from textual.worker import Worker, WorkerState

from pigeon.tui.widgets.editor.request_editor import FROM_HISTORY, SCRATCH
from pigeon.tui.widgets.editor.tab_strip import TabLabel

if TYPE_CHECKING:
    from pigeon.exchange import Exchange, Progress
    from pigeon.model import Request
    from pigeon.tui.widgets.response.response_pane import ResponsePane

_keys = itertools.count(1)


class _Tabs(Protocol):
    current: RequestTab | None


@dataclass(eq=False)
class RequestTab:
    """A request open in a tab. ``request`` is the working copy of ``saved`` (the
    collection's object, or the scratch or history request it was made from)."""

    request: Request
    saved: Request
    origin: str = ""  # "", SCRATCH or FROM_HISTORY (see ``RequestEditor``)
    dirty: bool = False
    preview: bool = False  # the next request opened from the tree takes this tab's place
    history_of: str = ""  # a copy from history: the id of the request it was sent from
    part: str | None = None  # the editor's tab on show (Headers, Body...)
    key: int = field(default_factory=lambda: next(_keys))  # names its send worker
    last_exchange: Exchange | None = None  # the latest exchange this tab's sends brought
    last_sent: Request | None = None  # what its last send sent, for a reconnect
    in_flight: Progress | None = None  # its send in flight, watched as it arrives
    shown: tuple[str, tuple[Any, ...]] = ("clear", ())  # what the response pane shows for it
    sends: list[Worker[Any]] = field(default_factory=list)  # its send workers

    def sending(self) -> list[Worker[Any]]:
        """Its sends in flight (each tab's go on whichever tab is on show)."""
        self.sends = [
            w for w in self.sends if w.state in (WorkerState.PENDING, WorkerState.RUNNING)
        ]
        return list(self.sends)

    @property
    def edited(self) -> bool:
        """Whether closing it would lose edits (``RequestEditor.edited``)."""
        if self.origin == FROM_HISTORY:
            return self.request != self.saved
        return self.dirty

    @property
    def label(self) -> TabLabel:
        name = "Scratch" if self.origin == SCRATCH else self.request.name
        return TabLabel(name, self.dirty, self.preview)


class TabResponse:
    """The response pane as one tab's send sees it: each call is kept as what the tab shows,
    and reaches the pane only while the tab is the one on show."""

    def __init__(self, tab: RequestTab, pane: ResponsePane, tabs: _Tabs) -> None:
        """``tabs`` says which tab is on show (``OpenRequests``)."""
        self.tab, self.pane, self._tabs = tab, pane, tabs

    def _on_show(self) -> bool:
        return self._tabs.current is self.tab

    def _do(self, what: str, *args: Any) -> None:
        if what != "show_status":  # the status alone is a step to the exchange shown next
            self.tab.shown = (what, args)
        if self._on_show():
            getattr(self.pane, what)(*args)

    def show_pending(self, method: str, url: str, progress: Progress | None = None) -> None:
        self._do("show_pending", method, url, progress)

    def show_status(self, exchange: Exchange) -> None:
        self._do("show_status", exchange)

    async def status_painted(self) -> None:
        if self._on_show():
            await self.pane.status_line.painted()

    def show_exchange(self, exchange: Exchange) -> None:
        self._do("show_exchange", exchange)

    def show_refused(self, reason: str, last: Exchange | None) -> None:
        self._do("show_refused", reason, last)

    def show_cancelled(self, elapsed_ms: float | None = None) -> None:
        self._do("show_cancelled", elapsed_ms)

    def clear(self) -> None:
        self._do("clear")


def show_tab_response(pane: ResponsePane, tab: RequestTab | None) -> None:
    """Show in ``pane`` what ``tab`` last showed there (nothing: no tab)."""
    what, args = tab.shown if tab is not None else ("clear", ())
    if what == "show_pending" and (tab is None or tab.in_flight is None):
        what, args = "clear", ()  # its send ended while another tab was on show
    getattr(pane, what)(*args)
