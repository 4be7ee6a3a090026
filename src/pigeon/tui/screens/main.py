"""The main screen: tree | request tabs over response | variables, and what ties them together.

Each pane owns its work: the collection pane (``widgets/collection/collection_pane.py``) the
tree's file commands and the environment, the open requests (``widgets/editor/open_requests.py``)
the tabs and their saving, the variables pane its edits, the history pane its entries. They post
typed messages up and never reach into one another; this screen applies each change to the
others, keeps the preview and the variables in step, and sends: each tab's send is its own and
lands in its own tab. State lives in the app's ``Session``; nothing here is module-level.
"""

from __future__ import annotations

import asyncio
import time
import traceback
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Any

from textual import events, on, work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.worker import Worker, WorkerState

from pigeon.model import Collection, Request
from pigeon.terminal import printable
from pigeon.tui import start_gc
from pigeon.tui.pane_order import step_target
from pigeon.tui.screens.main_keys import MAIN_KEYS, help_subgroups
from pigeon.tui.side_panes import Side, SidePanes
from pigeon.tui.widgets.collection.collection_pane import CollectionPane
from pigeon.tui.widgets.collection.collection_tree import CollectionTree
from pigeon.tui.widgets.editor.open_requests import OpenRequests
from pigeon.tui.widgets.editor.request_editor import RequestEditor
from pigeon.tui.widgets.editor.request_tab import RequestTab, TabResponse, show_tab_response
from pigeon.tui.widgets.key_footer import KeyFooter
from pigeon.tui.widgets.pane import Pane, light_pane
from pigeon.tui.widgets.session_status import SessionStatus
from pigeon.tui.widgets.variables.variables_pane import VariablesPane

if TYPE_CHECKING:
    from pathlib import Path

    from textual.dom import DOMNode
    from textual.widget import Widget

    from pigeon.exchange import Exchange
    from pigeon.scopes import Scopes
    from pigeon.session import SendOutcome, Session
    from pigeon.tui.widgets.collection.history_pane import HistoryPane
    from pigeon.tui.widgets.disk_watch import DiskWatch
    from pigeon.tui.widgets.response.events_panel import EventsPanel
    from pigeon.tui.widgets.response.response_pane import KindView, ResponsePane

WRITER_MOMENT = 0.005  # seconds the first frame's writing is given before the rest is built
PENDING_AFTER = 0.05  # seconds before a send in flight replaces the last response

# Dialogs and the renderer are imported where they are used: they are not needed for the
# first paint, and start-up time is part of the product.


class MainScreen(Screen[None]):
    # main.tcss is loaded by the app (see PigeonApp.CSS_PATH).
    AUTO_FOCUS = "CollectionTree"

    BINDINGS = MAIN_KEYS  # tui/screens/main_keys.py

    help_subgroups = staticmethod(help_subgroups)  # tui/screens/main_keys.py

    FOLLOW_DISK = True  # watch the collection's directory and follow what changes there
    VERTICAL_BREAKPOINTS = [(0, "-short"), (24, "-tall")]  # under 24 rows: main.tcss

    def __init__(self, session: Session) -> None:
        super().__init__()
        self.session = session
        self.first_paint_at = 0.0  # wall-clock time the screen was first on display
        self._lit_pane: DOMNode | None = None  # the pane whose border shows it holds the focus
        self.built_at = 0.0  # ... and when the editor's widgets and the response pane were in
        self.open_requests = OpenRequests(
            session,
            self._scopes_for,
            session.preview,
            lambda: self.collection_pane.folder_for_new(),
            id="open-requests",
        )
        tabs = self.open_requests
        self.collection_pane = CollectionPane(
            session, tabs.guard_inside, tabs.unsaved_in, id="tree-pane"
        )
        self.editor = self.open_requests.editor
        self.variables_pane = VariablesPane(
            session, self._scopes_for, lambda r: session.preview(r).unresolved, id="variables"
        )
        self.side_panes = SidePanes(
            self.collection_pane,
            Pane(id="vars-pane"),
            lambda: self.collection_pane.shown,
            lambda: self.variables_pane,
        )
        self.status = SessionStatus(id="status")
        self.response_pane: ResponsePane | None = None  # mounted just after the first paint
        self.disk_watch: DiskWatch | None = None  # started just after the first paint

    # -- layout -------------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        with Horizontal(id="panes"):
            yield self.collection_pane
            with Vertical(id="centre"):
                yield self.open_requests
            with self.side_panes.panes["vars"]:
                yield self.variables_pane
        yield self.status
        yield KeyFooter(compact=True)

    def on_mount(self) -> None:
        self.side_panes.panes["vars"].border_title = "Variables"
        from pigeon.tui.dialogs.oauth2_person import AppPerson

        self.session.person = AppPerson(self.app)  # OAuth 2.0 sign-ins show their dialogs
        self._apply_width(self.size.width)
        self.update_status()
        # In a worker: waiting for the first frame must not hold this screen's messages.
        self.run_worker(self._after_first_paint(), group="build")

    async def _write_first_frame(self) -> None:
        """Put the screen on the terminal now. Textual draws the first frame inside its start-up
        batch, writes none of it and leaves nothing marked to draw again: the screen stayed
        blank until later work marked parts of it, piece by piece, tens of milliseconds on.
        Composed again from the lines each widget cached, the whole screen costs a few ms."""
        # Textual types the app as App[Any]; PigeonApp's module is a layer up, not imported.
        await self.app.frames_written.wait()  # type: ignore[attr-defined]  # the batch is over
        self._compositor._dirty_regions.add(self.size.region)  # all of it: a full frame
        self._compositor_refresh()
        self.first_paint_at = time.time()
        start_gc.resume()
        # Textual's writer thread needs the GIL to write the frame out: give it a moment
        # before the rest is built (it waited 20-30 ms for the building to pause).
        await asyncio.sleep(WRITER_MOMENT)

    async def _after_first_paint(self) -> None:
        """The variables, the editor's widgets and the response pane are filled or mounted
        once the screen is on display: the tree is what is needed first."""
        # Building in the same turn as the mount put the first frame out only once all was
        # built: wait until the tree has been drawn, and write that frame out first.
        # The rule (docs/architecture.md, "Start-up"): what the first frame does not show is
        # imported and mounted here or when first shown (a tab's contents, a response view),
        # never at import or compose time.
        await self.collection_pane.painted()
        await self._write_first_frame()
        if not self.is_attached:  # the app quit as soon as the screen showed
            return
        self.collection_pane.fill_tree()  # the rows below the first screen
        self._refresh_variables()
        await self.editor.build_body()
        if not self.is_attached:
            return
        from pigeon.tui.widgets.response.response_pane import ResponsePane

        response = ResponsePane(id="response")
        response.border_title = "Response"
        await self.query_one("#centre").mount(response)
        self.response_pane = response
        if self.editor.request is not None:
            self._show_response_of(response, self.open_requests.current)
        else:
            self.open_requests.reopen()  # the tabs open when the app last left the collection
        self.built_at = time.time()
        if self.session.echo is not None:
            self.session.echo.start()
        if self.FOLLOW_DISK:
            from pigeon.tui.widgets.disk_watch import DiskWatch

            self.disk_watch = DiskWatch(self.session, self)
            self.disk_watch.start()

    def on_unmount(self) -> None:
        if self.disk_watch is not None:
            self.disk_watch.stop()

    def on_resize(self, event: events.Resize) -> None:
        self._apply_width(event.size.width)

    def _apply_width(self, width: int) -> None:
        self.side_panes.apply(width, self.maximized)

    def watch_maximized(self) -> None:
        self._apply_width(self.size.width)

    def watch_focused(self, focused: Widget | None) -> None:
        self._lit_pane = light_pane(self._lit_pane, focused)

    def action_resize_pane(self, direction: int) -> None:
        """Widen or narrow the focused side pane, or the centre (the side panes give way)."""
        if self.side_panes.resize(direction, self.focused, self.size.width):
            self._apply_width(self.size.width)

    def update_status(self, extra: str = "") -> None:
        self.status.show(self.session, extra)

    # -- scopes and preview -------------------------------------------------------------------

    def _scopes_for(self, request: Request | None) -> Scopes | None:
        try:
            return self.session.scopes_for(request)
        except Exception:
            return None

    def _refresh_variables(self, unresolved: list[str] | None = None, force: bool = True) -> None:
        """Show the open request's variables (``force=False``: only when what the pane shows
        for it changed)."""
        self.variables_pane.show_request(self.editor.request, self.editor.saved, unresolved, force)

    @on(VariablesPane.Changed)
    @on(CollectionPane.EnvironmentChanged)
    def refresh_after_variables(self) -> None:
        """Variables changed (environment, runtime, an edit): preview and pane follow."""
        self.editor.refresh_preview()
        self._refresh_variables()
        self.update_status()

    def on_collection_pane_collection_changed(self) -> None:
        self.open_requests.follow_files()
        self._refresh_variables()

    def on_variables_pane_request_variables_changed(self) -> None:
        self.editor.load_variables_tab()

    # -- the request tabs ---------------------------------------------------------------------

    @on(CollectionTree.RequestChosen)
    @on(CollectionPane.RequestCreated)
    def _open_request(
        self, event: CollectionTree.RequestChosen | CollectionPane.RequestCreated
    ) -> None:
        """A request chosen in the tree goes to the preview tab, the focus staying in the tree
        (its next key moves there, never into the URL); a new one to a tab of its own, its
        URL to be typed."""
        preview = isinstance(event, CollectionTree.RequestChosen)
        self.open_requests.open(event.request, preview=preview)
        if not preview:
            self.editor.focus_url()

    def on_open_requests_switched(self, event: OpenRequests.Switched) -> None:
        """Another tab on show: its response and its variables follow."""
        self._refresh_variables()
        if self.response_pane is not None:
            self._show_response_of(self.response_pane, event.tab)
        self.refresh_bindings()

    def _show_response_of(self, pane: ResponsePane, tab: RequestTab | None) -> None:
        """The pane names ``tab``'s request and shows its own last response: its tab's, else
        its newest in the history (read in a thread), else none yet."""
        from rich.markup import escape

        pane.border_title = f"Response: {escape(tab.label.name)}" if tab else "Response"
        if pane.view_for(tab.request if tab else Request(name=""), tab) is not None:
            return  # its kind's own view shows it
        show_tab_response(pane, tab)  # the tabs show its responses
        if tab is not None and tab.shown[0] == "clear" and not tab.origin and tab.request.id:
            self._history_response(tab)

    @work(group="history-response", exclusive=True, exit_on_error=False)
    async def _history_response(self, tab: RequestTab) -> None:
        """Show ``tab``'s newest response in the history, when it still shows none."""
        exchange = await asyncio.to_thread(self.session.last_response, tab.request.id)
        if exchange is None or tab.shown[0] != "clear" or tab.in_flight is not None:
            return
        tab.shown = ("show_exchange", (exchange,))
        if self.open_requests.current is tab and self.response_pane is not None:
            self.response_pane.show_exchange(exchange)

    def on_open_requests_saved(self, event: OpenRequests.Saved) -> None:
        self.collection_pane.saved(event.saved, event.new_file)

    def on_open_requests_marked(self, event: OpenRequests.Marked) -> None:
        self.collection_pane.mark_dirty(event.path, event.dirty)

    def on_open_requests_disk_wanted(self, event: OpenRequests.DiskWanted) -> None:
        self.follow_disk(open_path=event.open_path)

    def on_response_pane_example_wanted(self, event: ResponsePane.ExampleWanted) -> None:
        self.open_requests.save_example(event.exchange, event.name)

    @on(CollectionPane.RequestRenamed)
    @on(CollectionPane.RequestMoved)
    @on(CollectionPane.RequestDeleted)
    def _follow_file(self, event: CollectionPane.RequestRenamed) -> None:
        """A request's file was renamed, moved or deleted in the tree: its tabs follow."""
        self.open_requests.follow_file(
            event.item, event.before, isinstance(event, CollectionPane.RequestDeleted)
        )

    def action_step_tab(self, by: int) -> None:
        self.open_requests.step(by)

    def action_close_tab(self) -> None:
        self.open_requests.close()

    def action_keep_tab(self) -> None:
        self.open_requests.keep()

    def _response_for(self, request: Request) -> KindView | None:
        """The view the response pane picks for ``request``'s kind (``None``: its tabs)."""
        return self.response_pane.view_for(request) if self.response_pane is not None else None

    def on_collection_tree_broken_chosen(self, event: CollectionTree.BrokenChosen) -> None:
        self.open_requests.show_tab(None)
        self.editor.show_broken(event.broken)

    def on_request_editor_changed(self, event: RequestEditor.Changed) -> None:
        editor = self.editor
        if editor.saved is not None and not editor.origin:
            self.collection_pane.show_method(editor.saved.path, event.request.method)
            self.collection_pane.mark_dirty(editor.saved.path, event.dirty)
        self._refresh_variables(
            editor.last_preview.unresolved if editor.last_preview else None, force=False
        )

    def guard_unsaved(self, then: Callable[[], object]) -> None:
        """Run ``then`` once every tab's unsaved edits are saved or discarded (or not at all:
        cancel). Quitting, reloading and opening another collection ask this."""
        self.open_requests.guard_all(then)

    def reload_collection(self) -> None:
        """The session reloaded from disk: rebuild the tree, each tab follows its file."""
        self.follow_disk(self.session.collection)

    def action_choose_environment(self) -> None:
        self.collection_pane.choose_environment()

    def action_save(self) -> None:
        self.open_requests.save()

    # -- the disk: the files are the truth ------------------------------------------------------

    def on_disk_watch_changed(self, event: DiskWatch.Changed) -> None:
        from pigeon.tui.widgets.disk_watch import follow_renames  # a rename: it follows

        loaded = event.loaded_for(self.session.collection.seen)
        follow_renames(self.session, self.editor, self.collection_pane.collection_tree, event.paths)
        self.follow_disk(loaded)

    def on_disk_watch_failed(self, event: DiskWatch.Failed) -> None:
        message = f"Not following the disk: {printable(event.message)}"
        self.notify(message, severity="warning", timeout=10, markup=False)

    def on_variables_pane_reload_wanted(self) -> None:
        self.follow_disk()

    def follow_disk(self, loaded: Collection | None = None, open_path: Path | None = None) -> None:
        """Take the collection as it is on disk (``loaded``: read off the loop, else read now)
        and rebuild the tree where it was; the tabs follow their files (``open_path``: the
        file the tab on show holds now)."""
        before = self.open_requests.seen()
        current = self.editor.saved.path if self.editor.saved is not None else None
        select = self.collection_pane.highlighted_path() or open_path or current
        self.session.reload(loaded)
        self.collection_pane.reload(select)
        self.open_requests.follow_disk(before, open_path)
        self.refresh_after_variables()

    # -- send ---------------------------------------------------------------------------------

    def action_send(self) -> None:
        editor, tab = self.query_one(RequestEditor), self.open_requests.current
        if editor.request is None or tab is None:
            self.notify("Choose a request to send.", severity="warning")
            return
        view = self._response_for(editor.request)
        if view is not None:
            tab.sends += view.toggle(editor.request, self._ensure_trust) or []  # esc stops
            return
        self._start_send(tab, editor.request)

    def _start_send(
        self, tab: RequestTab, request: Request, resume: tuple[str, int | None] | None = None
    ) -> None:
        """Send ``request`` for ``tab``: a send of that tab still in flight is cancelled, the
        sends of other tabs go on."""
        for worker in tab.sending():
            worker.cancel()
        tab.sends.append(self._send(tab, request, resume))

    @property
    def last_exchange(self) -> Exchange | None:
        """The latest exchange of the tab on show."""
        tab = self.open_requests.current
        return tab.last_exchange if tab is not None else None

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "cancel_send":
            return bool(self._sending_workers())
        if action == "step_tab":
            return len(self.open_requests.tabs) > 1
        return True

    def _sending_workers(self, tab: RequestTab | None = None) -> list[Worker[Any]]:
        """The sends in flight of ``tab`` (the tab on show)."""
        tab = tab or self.open_requests.current
        return tab.sending() if tab is not None else []

    def action_cancel_send(self) -> None:
        tab = self.open_requests.current
        progress = tab.in_flight if tab is not None else None
        sink = progress.sink if progress is not None else None
        receiving = progress is not None and progress.phase == "receiving"
        if sink is not None and receiving and sink.stop_reason is None:
            sink.stop()  # a body arriving stops there: what came is kept and shown
            return
        self.session.cancel_scripts()  # a script stops now, whatever it is doing
        for worker in self._sending_workers():
            worker.cancel()

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.worker.group != "send":
            return
        tab = next((t for t in self.open_requests.tabs if event.worker in t.sends), None)
        if event.state == WorkerState.ERROR:
            error = event.worker.error
            self.session.add_log(
                "send", "".join(traceback.format_exception(error)) if error else "?", error=True
            )
            self.notify(f"Send failed: {error}", severity="error", timeout=8)
            if self.response_pane is not None and tab is not None:
                TabResponse(tab, self.response_pane, self.open_requests).clear()
        if event.state not in (WorkerState.PENDING, WorkerState.RUNNING):
            self.refresh_bindings()  # a send in flight shows esc when it shows as pending

    @work(group="send", exit_on_error=False)
    async def _send(
        self, tab: RequestTab, request: Request, resume: tuple[str, int | None] | None = None
    ) -> None:
        import copy

        response = self.response_pane
        if response is None:  # a send before the pane is built: a moment after the first paint
            response = await self._wait_for_response_pane()
        pane = TabResponse(tab, response, self.open_requests)  # its tab's, on show or not
        snapshot = copy.deepcopy(request)  # edits made while it flies do not change it
        if snapshot.body.type == "graphql":
            from pigeon.tui.widgets.editor.graphql_check import refusal

            if refused := await refusal(self.session, snapshot):
                pane.show_refused(refused, tab.last_exchange)
                self.notify(refused, severity="error", timeout=8)
                return
        if resume is not None:
            await self._resume_after(snapshot, *resume)
        tab.last_sent = snapshot
        trusted = await self._ensure_trust(snapshot)
        started = time.monotonic()
        try:
            outcome = await self._exchange(tab, pane, snapshot, trusted)
        except asyncio.CancelledError:
            self._cancelled(tab, pane, snapshot, (time.monotonic() - started) * 1000)
            raise
        except Exception as exc:
            self.session.add_log("send", traceback.format_exc(), error=True)
            self.notify(f"Send failed: {exc}", severity="error", timeout=8)
            pane.clear()
            return
        for line in outcome.errors:
            self.notify(line, title="Script error", severity="error", timeout=8)
        status = ""  # why a send of an untrusted collection went without something
        if outcome.scripts_skipped:
            phases = " and ".join(p.replace("_", "-") for p in outcome.scripts_skipped)
            status = f"{phases} scripts skipped: the collection is not trusted"
        if outcome.exchange is not None:
            tab.last_exchange = outcome.exchange
            pane.show_status(outcome.exchange)
            await pane.status_painted()  # the status first; the body and the rest after
            pane.show_exchange(outcome.exchange)
            self._record(partial(self.session.record, outcome.exchange))
        else:  # refused before sending: the last response stays, the refusal heads it
            status = outcome.error or "Not sent"
            pane.show_refused(status, tab.last_exchange)
            self.notify(status, severity="error", timeout=8)
        self.refresh_after_variables()
        if status:
            self.update_status(status)

    def _cancelled(
        self, tab: RequestTab, pane: TabResponse, request: Request, elapsed_ms: float
    ) -> None:
        """A send was stopped after ``elapsed_ms``: recorded in the history; shown unless a
        new send replaced it (that one's spinner stays)."""
        from textual.worker import get_current_worker

        this = get_current_worker()
        if not any(w is not this for w in self._sending_workers(tab)):
            pane.show_cancelled(elapsed_ms)
            self.update_status("send cancelled")
        self._record(partial(self.session.record_cancelled, request, elapsed_ms))

    async def _exchange(
        self, tab: RequestTab, pane: TabResponse, request: Request, trusted: bool
    ) -> SendOutcome:
        """Send ``request``. The exchange starts before any drawing: the pane shows it in
        flight (and drops the last response) only when it is not back within a frame or two,
        so a fast exchange never waits behind a redraw, nor flickers."""
        from pigeon.exchange import Progress
        from pigeon.stream import StreamSink

        progress = tab.in_flight = Progress(sink=StreamSink())
        sending = asyncio.ensure_future(self.session.send(request, trusted, progress))
        try:
            await asyncio.wait([sending], timeout=PENDING_AFTER)
            if not sending.done():
                pane.show_pending(request.method, request.url, progress)  # then progress.url
                self.refresh_bindings()  # esc cancels it
            return await sending
        finally:
            sending.cancel()  # the worker was cancelled (escape, a new send): so is the send
            if tab.in_flight is progress:
                tab.in_flight = None

    async def _resume_after(self, request: Request, last_id: str, retry_ms: int | None) -> None:
        """A stream sent again: ``Last-Event-ID`` says where it stopped, and the server's
        ``retry:`` wait (at most a minute) passes first."""
        if seconds := self.session.resumed(request, last_id, retry_ms):
            self.update_status(f"reconnecting in {seconds:g} s (the server's retry)")
            await asyncio.sleep(seconds)

    def on_events_panel_reconnect_requested(self, event: EventsPanel.ReconnectRequested) -> None:
        """The stream on show sent again (as it was sent, whatever the editor shows now)."""
        tab = self.open_requests.current
        request = tab.last_sent or tab.request if tab is not None else None
        if tab is not None and request is not None:
            self._start_send(tab, request, (event.last_id, event.retry_ms))

    async def _wait_for_response_pane(self) -> ResponsePane:
        """The response pane, waiting (boundedly) for a send pressed in the first instant."""
        for _ in range(500):
            if self.response_pane is not None:
                return self.response_pane
            await asyncio.sleep(0.01)
        raise RuntimeError("the response pane was not built")

    async def _ensure_trust(self, request: Request) -> bool:
        from pigeon.tui.dialogs.trust import ensure_trust

        return await ensure_trust(self.app, self.session, request)

    # -- history ------------------------------------------------------------------------------

    def _record(self, record: Callable[[], str | None]) -> None:
        self.collection_pane.record(record)

    def on_web_socket_view_finished(self) -> None:
        """A connection (or a gRPC call) ended, recorded in the history by the pipeline."""
        self.collection_pane.reload_history()

    on_grpc_view_finished = on_web_socket_view_finished

    async def action_toggle_history(self) -> None:
        """Switch the left pane between tree and history (showing the pane if it was hidden)."""
        if not await self.collection_pane.toggle_history():
            self.action_toggle_side("tree")

    def on_history_pane_open_requested(self, event: HistoryPane.OpenRequested) -> None:
        """Open the entry as an unsaved copy (ctrl+r re-sends it), with its stored exchange."""
        sent_from = event.exchange.request.request_id
        self.open_requests.open_copy(event.request, sent_from, event.exchange)
        if event.refused:
            self.notify(event.refused, severity="warning", timeout=10)

    def on_history_pane_send_requested(self, event: HistoryPane.SendRequested) -> None:
        tab = self.open_requests.open_copy(event.request, event.request_id)
        self._start_send(tab, tab.request)

    # -- panes --------------------------------------------------------------------------------

    def action_toggle_side(self, side: Side) -> None:
        """Show or hide a side pane (``side_panes``); the focus goes in, or out of a pane
        that hides."""
        pane, focused = self.side_panes.panes[side], self.focused
        shown = self.side_panes.toggle(side, self.size.width)
        self._apply_width(self.size.width)
        if shown and side == "vars":
            self._refresh_variables()
        if shown:
            self.side_panes.focus(side)
        elif focused is None or pane in focused.ancestors:  # the focus leaves the pane
            self.editor.focus_url() if self.editor.request else self.set_focus(None)

    def focus_pane(self, pane: str) -> None:
        """alt+1…4 (the app's keys): focus a pane, showing a hidden side pane (and leaving a
        zoomed one)."""
        if self.maximized is not None:
            self.minimize()
        side: Side | None = "tree" if pane == "tree" else "vars" if pane == "variables" else None
        if side is not None and self.side_panes.panes[side].display:
            self.side_panes.focus(side)
        elif side is not None:
            self.action_toggle_side(side)
        elif pane == "editor":
            self.editor.focus_tab()
        elif self.response_pane is not None:
            self.response_pane.focus_tab()

    def action_step_pane(self, step: int) -> None:
        """tab (shift+tab): the pane's next (previous) field typed in, else the next (previous)
        pane, where alt+1…4 would go (``tui/pane_order``)."""
        panes = {
            "tree": self.side_panes.panes["tree"],
            "editor": self.editor if self.editor.request is not None else None,
            "response": self.response_pane,
            "variables": self.side_panes.panes["vars"],
        }
        target = step_target(panes, self.focused, self.focus_chain, step)
        if isinstance(target, str):
            self.focus_pane(target)
        elif target is not None:
            target.focus()

    def action_maximize_pane(self) -> None:
        if self.maximized is not None:
            self.minimize()
        elif self.focused is not None:
            self.maximize(self.focused)

    def action_focus_url(self) -> None:
        editor = self.editor
        if editor.request is None:
            self.notify("Choose a request first.", severity="warning")
        editor.focus_url()

    def action_new_request(self) -> None:
        self.open_requests.new_scratch()

    def action_show_log(self) -> None:
        from pigeon.tui.screens.log import LogScreen

        self.app.push_screen(LogScreen(self.session.log))

    def action_show_cookies(self) -> None:
        from pigeon.tui.screens.cookies import CookiesScreen

        self.app.push_screen(CookiesScreen(self.session))

    def action_copy_curl(self) -> None:
        """f3: the request copied as the kind chosen (tui/screens/export_kind.py)."""
        from pigeon.tui.screens.export_kind import export_request

        export_request(self, self.editor, self.session)

    def action_profile(self) -> None:
        """alt+p: the open request's latency profile (tui/screens/profile.py)."""
        from pigeon.tui.screens.profile import profile_request

        profile_request(self, self.session, self.editor.request)

    def clear_runtime(self) -> None:
        """Forget every variable scripts have set (the palette's command)."""
        self.variables_pane.clear_runtime()
