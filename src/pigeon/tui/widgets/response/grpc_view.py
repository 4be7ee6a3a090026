"""A gRPC request in the response pane (DESIGN §10): the call's status, each reply as it
arrives, the replies as JSON (pretty, foldable, searchable) and the metadata and trailers.

The call is made by ``Session.call_grpc``, the pipeline ``pigeon run`` takes (pre-request
scripts, the trust gate, render, descriptors; post-response scripts and history when it
ends). The network and the descriptors are gRPC's own loop's, in its thread: the replies are
heard there (``on_change``) and the view redraws at most every ``REDRAW_EVERY`` seconds from
what the call holds, taking only the replies it has not shown yet. The send key calls, or
stops a call in flight; so does ``escape``, since the call is its tab's send.

Each request keeps its latest call for the session, so switching tabs brings it back, live
or done; a request without one shows its newest call in the history.
"""

from __future__ import annotations

import asyncio
import copy
import json
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import DataTable, TabbedContent, TabPane
from textual.worker import Worker, WorkerState

from pigeon.terminal import printable
from pigeon.tui.css import beside
from pigeon.tui.format import duration
from pigeon.tui.session_of import session_of
from pigeon.tui.widgets.response.body_panel import BodyPanel
from pigeon.tui.widgets.response.call_state import CallState
from pigeon.tui.widgets.response.reply_panel import ReplyPanel, reply_event

if TYPE_CHECKING:
    from pigeon.exchange import Exchange
    from pigeon.model import Request
    from pigeon.session import Call, Session

REDRAW_EVERY = 0.05  # seconds between redraws while replies arrive
JSON_LIMIT = 5_000_000  # characters of the replies' JSON laid out in the JSON tab


def key_of(request: Request) -> str:
    """Which request a call belongs to: its id (its file), else its name (a scratch)."""
    return request.id or f"name:{request.name}"


@dataclass
class Shown:
    """What the view draws of a call, live or recorded: the same for both."""

    line: str  # the state line
    state: str  # "live", "ok", "failed", "none"
    kind: str = ""
    values: list[Any] | None = None  # the kept replies (None: the call is still live)
    metadata: list[tuple[str, str]] | None = None
    trailers: list[tuple[str, str]] | None = None


def shown_of_exchange(exchange: Exchange) -> Shown:
    """A recorded call (the history's), as the view draws it."""
    facts = exchange.grpc
    kind = facts.kind if facts is not None else ""
    if exchange.status is None:
        return Shown(f"✘ {printable(exchange.error or 'not called')}", "failed", kind, [])
    details = printable(facts.details) if facts is not None and facts.details else ""
    line = f"{exchange.reason} ({exchange.status})"
    line += f": {details}" if details and exchange.status else ""
    received = facts.received if facts is not None else 0
    sent = facts.sent if facts is not None else 0
    took = duration(exchange.timings.total_ms)
    mark = "✔" if exchange.status == 0 else "✘"
    line = f"{mark} {line} · {kind} · {sent} sent, {received} received · {took}"
    return Shown(
        line,
        "ok" if exchange.status == 0 else "failed",
        kind,
        list(facts.messages) if facts is not None else [],
        list(exchange.headers),
        list(facts.trailers) if facts is not None else [],
    )


def shown_of_call(holder: Call) -> Shown:
    """A call made this session, live or done."""
    call = holder.call
    assert call is not None
    counts = f"{call.sent} sent, {call.received} received"
    if not call.done:
        return Shown(f"● {call.kind} · {counts} · {printable(call.rpc)}", "live", call.kind)
    mark = "✔" if call.code == 0 and not call.error else "✘"
    line = f"{mark} {printable(call.status_line())} · {call.kind} · {counts}"
    line += f" · {duration(call.elapsed_ms)}"
    return Shown(
        line,
        "ok" if mark == "✔" else "failed",
        call.kind,
        call.values(),
        list(call.initial_metadata),
        list(call.trailers),
    )


class GrpcView(Vertical):
    DEFAULT_CSS = beside(__file__)
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("slash", "search", "Search replies", id="grpc.search"),
        Binding("d", "diff_with", "Diff with…", id="grpc.diff", show=False),
    ]

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.request: Request | None = None
        self.holder: Call | None = None  # the call on show (of ``request``)
        self.exchange: Exchange | None = None  # or a recorded call on show
        self._calls: dict[str, Call] = {}  # each request's latest call this session
        self._workers: dict[str, Worker[None]] = {}  # each request's call in flight
        self._refused: dict[str, str] = {}  # why a request's latest call was not made
        self._redraw_due = False
        self._seq = 0  # the last reply shown in the rows
        self._ended = False  # the call on show was drawn done

    @property
    def session(self) -> Session:
        return session_of(self)

    def compose(self) -> ComposeResult:
        yield CallState(id="grpc-state")
        with TabbedContent(id="grpc-tabs"):
            with TabPane("Replies", id="grpc-tab-replies"):
                yield ReplyPanel(id="grpc-replies", classes="-shown")
            with TabPane("JSON", id="grpc-tab-json"):
                yield BodyPanel(view_id="grpc-json-view", id="grpc-json")
            with TabPane("Metadata", id="grpc-tab-metadata"):
                yield DataTable(id="grpc-metadata", cursor_type="row", zebra_stripes=True)

    def on_mount(self) -> None:
        table = self.query_one("#grpc-metadata", DataTable)
        for name in ("", "Name", "Value"):
            table.add_column(name, key=name or "where")
        self._show()
        # grpc and protobuf load now, in a thread, while the request is read: not at the call.
        self.run_worker(self.session.load_grpc, thread=True, group="grpc-load", exit_on_error=False)

    # -- parts ----------------------------------------------------------------------------------

    @property
    def replies(self) -> ReplyPanel:
        return self.query_one(ReplyPanel)

    @property
    def json_panel(self) -> BodyPanel:
        return self.query_one("#grpc-json", BodyPanel)

    @property
    def state_line(self) -> str:
        return self.query_one(CallState).text

    @property
    def live(self) -> bool:
        """The call on show is in flight (its worker runs)."""
        worker = self._workers.get(key_of(self.request)) if self.request is not None else None
        return worker is not None and worker.state in (WorkerState.PENDING, WorkerState.RUNNING)

    # -- the request shown ----------------------------------------------------------------------

    def load(self, request: Request, last: Exchange | None = None) -> None:
        """Show ``request``: its latest call this session, else ``last`` (a recorded call,
        from the history), else its newest call in the history."""
        key = key_of(request)
        same = self.request is not None and key_of(self.request) == key
        self.request = request
        if same and (self.holder is not None or self.exchange is not None) and last is None:
            return
        self.holder = self._calls.get(key)
        self.exchange = last if self.holder is None and last and last.grpc else None
        if self.is_mounted:
            self._show()
        if (
            self.holder is None
            and self.exchange is None
            and request.id
            and key not in self._refused
        ):
            self._from_history(request)

    @work(group="grpc-history", exclusive=True, exit_on_error=False)
    async def _from_history(self, request: Request) -> None:
        exchange = await asyncio.to_thread(self.session.last_response, request.id)
        if exchange is None or exchange.grpc is None or self.request is not request or self.live:
            return
        if self.holder is None and self.exchange is None:
            self.exchange = exchange
            self._show()

    def _show(self) -> None:
        """Draw the call on show from the start."""
        self._seq, self._ended = 0, False
        self.replies.clear()
        self.json_panel.reset()
        self.query_one("#grpc-metadata", DataTable).clear()
        if self.holder is not None:
            self._redraw()
            return
        if self.exchange is not None:
            shown = shown_of_exchange(self.exchange)
            facts = self.exchange.grpc
            values = shown.values or []
            first = (facts.received - len(values) + 1) if facts is not None else 1
            events = [reply_event(first + i, v) for i, v in enumerate(values)]
            self.replies.show(events, facts.received if facts is not None else len(values))
            self._draw(shown)
            return
        request = self.request
        refused = self._refused.get(key_of(request)) if request is not None else None
        if refused:
            self._draw(Shown(f"✘ Not called: {refused}", "failed"))
            return
        if request is not None and self.live:  # called, not yet made: the call shows soon
            self._draw(Shown(f"… calling {printable(request.grpc.rpc)}", "live"))
            return
        rpc = printable(request.grpc.rpc) if request is not None else ""
        self._draw(Shown(f"○ not called · ctrl+r calls · {rpc or 'no method chosen'}", "none"))

    def _draw(self, shown: Shown) -> None:
        state = self.query_one(CallState)
        state.text = shown.line
        if not state.has_class(f"-{shown.state}"):
            state.set_classes(f"-{shown.state}")
        self.replies.live = shown.state == "live"
        if shown.values is None:
            return
        self._ended = True
        table = self.query_one("#grpc-metadata", DataTable)
        table.clear()
        for where, pairs in (("header", shown.metadata), ("trailer", shown.trailers)):
            for name, value in pairs or []:
                table.add_row(where, printable(name), printable(value))
        tabs = self.query_one(TabbedContent)
        count = len(shown.metadata or []) + len(shown.trailers or [])
        label = f"Metadata ({count})" if count else "Metadata"
        tab = tabs.get_tab("grpc-tab-metadata")
        if tab.label.plain != label:  # each change costs a relayout
            tab.label = label
        values: Any = shown.values
        if shown.kind in ("unary", "client stream") and len(values) == 1:
            values = values[0]  # one reply: the message itself
        text = json.dumps(values, indent=2, ensure_ascii=False)[:JSON_LIMIT]
        if shown.values or shown.state != "failed":
            self.json_panel.view.show_text(text, is_json=True)
        else:
            self.json_panel.view.show_message("No reply.")

    # -- calling --------------------------------------------------------------------------------

    def toggle(
        self, request: Request, trusted: Callable[[Request], Awaitable[bool]]
    ) -> list[Worker[None]]:
        """The send key: call ``request`` (``trusted`` asks, as for a send, whether the
        collection is trusted), or stop its call in flight. The call's worker is returned: it
        is the tab's send, which ``escape`` cancels."""
        self.load(request)
        key = key_of(request)
        worker = self._workers.get(key)
        if worker is not None and worker.state in (WorkerState.PENDING, WorkerState.RUNNING):
            worker.cancel()
            return []
        self._refused.pop(key, None)
        worker = self.run_worker(
            self._call(copy.deepcopy(request), trusted, key), group="grpc-call", exit_on_error=False
        )
        self._workers[key] = worker
        if self.request is not None and key_of(self.request) == key:
            self.holder, self.exchange = None, None
            self._show()
        self.screen.refresh_bindings()  # escape stops it
        return [worker]

    async def _call(
        self, request: Request, trusted: Callable[[Request], Awaitable[bool]], key: str
    ) -> None:
        started = time.monotonic()
        try:
            await asyncio.to_thread(self.session.load_grpc)  # its imports: not on the UI loop
            holder = await self.session.call_grpc(
                request, await trusted(request), on_change=self._call_changed
            )
        except asyncio.CancelledError:  # stopped before the call was made: kept as stopped
            self._refused[key] = "stopped before the call was made"
            self._stopped(key, request, (time.monotonic() - started) * 1000)
            raise
        for problem in holder.result.script_errors:
            self.notify(printable(problem.summary()), title="Script error", severity="error")
        call = holder.call
        if call is None:
            why = printable((holder.result.error or "not built").removeprefix("not sent: "))
            self._refused[key] = why
            self.notify(f"Not called: {why}", title="gRPC", severity="error", timeout=8)
            self._done(key, holder)
            return
        self._calls[key] = holder
        if self.request is not None and key_of(self.request) == key:
            self.holder, self.exchange = holder, None
            self._show()
            streams = call.kind in ("server stream", "bidirectional")  # replies, as they come
            self.query_one(TabbedContent).active = (
                "grpc-tab-replies" if streams else "grpc-tab-json"
            )
        try:
            await holder.run()
        except asyncio.CancelledError:
            call.cancel()
            if holder.result.exchange is None:  # not recorded yet: it is, as it ended
                self._finish(key, holder)
            raise
        self._done(key, holder)

    @work(group="grpc-finish", exit_on_error=False)
    async def _stopped(self, key: str, request: Request, elapsed_ms: float) -> None:
        """A call stopped before it was made: recorded as a cancelled send is."""
        if self.request is not None and key_of(self.request) == key:
            self._show()
        await asyncio.to_thread(self.session.record_cancelled, request, elapsed_ms)
        self.screen.refresh_bindings()
        self.post_message(self.Finished())

    @work(group="grpc-finish", exit_on_error=False)
    async def _finish(self, key: str, holder: Call) -> None:
        """A call stopped: its end waited for, then recorded (``Call.finish``)."""
        if holder.call is not None:
            await holder.call.finished()
        await holder.finish()
        self._done(key, holder)

    def _done(self, key: str, holder: Call) -> None:
        if holder.result.error and holder.call is not None and holder.call.code:
            self.notify(printable(holder.result.error), title="gRPC", severity="error", timeout=8)
        if self.request is not None and key_of(self.request) == key:
            if holder.call is None:
                self._show()
            else:
                self._redraw()
        self.screen.refresh_bindings()
        self.post_message(self.Finished())

    class Finished(Message):
        """A call ended and was recorded in the history."""

    def _call_changed(self) -> None:
        """From gRPC's thread: redraw soon, once however many replies come meanwhile."""
        if self._redraw_due:
            return
        self._redraw_due = True
        self.post_message(self.CallChanged())  # post_message is safe from another thread

    class CallChanged(Message):
        """A call changed (posted from gRPC's thread)."""

    def on_grpc_view_call_changed(self, event: CallChanged) -> None:
        event.stop()
        self.set_timer(REDRAW_EVERY, self._redraw)

    def _redraw(self) -> None:
        """Take what the call on show holds now: its new replies, its state."""
        self._redraw_due = False
        holder = self.holder
        if holder is None or holder.call is None or self._ended:
            return
        call = holder.call
        shown = shown_of_call(holder)
        kept = list(call.replies)  # whole, in one step: gRPC's thread appends meanwhile
        fresh = [r for r in kept if r.seq > self._seq]
        if fresh or call.received != self.replies.total:
            self._seq = fresh[-1].seq if fresh else self._seq
            self.replies.add(
                [reply_event(r.seq, r.value, r.note, r.at) for r in fresh], call.received
            )
        self._draw(shown)

    def on_tabbed_content_tab_activated(self, event: TabbedContent.TabActivated) -> None:
        """The JSON tab opened while a call goes on: the replies so far (at its end, all)."""
        event.stop()
        holder = self.holder
        if event.pane.id != "grpc-tab-json" or self._ended or holder is None or not holder.call:
            return
        kept = list(holder.call.replies)  # whole, in one step: gRPC's thread appends meanwhile
        values = [r.value for r in kept if not r.note]
        text = json.dumps(values, indent=2, ensure_ascii=False)[:JSON_LIMIT]
        self.json_panel.view.show_text(text, is_json=True)

    def stop(self) -> None:
        """Stop every call in flight (the app is closing)."""
        for holder in self._calls.values():
            if holder.call is not None and not holder.call.done:
                holder.call.cancel()

    def on_unmount(self) -> None:
        self.stop()

    # -- keys -----------------------------------------------------------------------------------

    def action_search(self) -> None:
        """``/`` searches what the open tab shows: the replies' rows, or the JSON."""
        tabs = self.query_one(TabbedContent)
        if tabs.active == "grpc-tab-json":
            self.json_panel.action_search()
        else:
            tabs.active = "grpc-tab-replies"
            self.replies.action_filter()

    def show_tab(self, pane: str) -> None:
        """Bring a tab to the front: ``grpc-tab-replies``, ``grpc-tab-json``, ``-metadata``."""
        self.query_one(TabbedContent).active = pane

    @property
    def shown_exchange(self) -> Exchange | None:
        """The call on show as recorded: this session's once it has ended, or the history's."""
        if self.holder is not None:
            return self.holder.result.exchange
        return self.exchange

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "diff_with":
            exchange = self.shown_exchange
            return exchange is not None and bool(exchange.request.request_id)
        return True

    def action_diff_with(self) -> None:
        """Compare the call on show with another of the same request's in the history (its
        replies, status, details, metadata and trailers)."""
        from pigeon.tui.dialogs.diff import diff_with_history

        exchange = self.shown_exchange
        if exchange is not None:
            self.run_worker(
                diff_with_history(self.app, exchange),
                group="diff",
                exclusive=True,
                exit_on_error=False,
            )
