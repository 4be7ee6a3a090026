"""The main screen: tree | editor over response | variables, and what ties them together.

Each pane owns its work: the collection pane (``widgets/collection/collection_pane.py``) the tree's file
commands and the environment, the variables pane its edits, the history pane its entries.
They post typed messages up; this screen opens requests in the editor, saves them, keeps the
preview and the variables in step with them, and sends. State lives in the app's ``Session``;
nothing here is module-level.
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
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.worker import Worker, WorkerState

from pigeon.model import Collection, Request
from pigeon.terminal import printable
from pigeon.tui import start_gc
from pigeon.tui.pane_widths import STEP, PaneWidths
from pigeon.tui.widgets.collection.collection_pane import CollectionPane
from pigeon.tui.widgets.collection.collection_tree import CollectionTree
from pigeon.tui.widgets.editor.request_editor import RequestEditor
from pigeon.tui.widgets.editor.save_as import SaveAs
from pigeon.tui.widgets.key_footer import KeyFooter
from pigeon.tui.widgets.pane import Pane
from pigeon.tui.widgets.session_status import SessionStatus
from pigeon.tui.widgets.variables.variables_pane import VariablesPane

if TYPE_CHECKING:
    from pathlib import Path

    from textual.dom import DOMNode
    from textual.widget import Widget

    from pigeon.exchange import Exchange, Progress
    from pigeon.scopes import Scopes
    from pigeon.session import SendOutcome, Session
    from pigeon.store import ChangedOnDisk
    from pigeon.tui.widgets.collection.history_pane import HistoryPane
    from pigeon.tui.widgets.disk_watch import DiskWatch
    from pigeon.tui.widgets.response.events_panel import EventsPanel
    from pigeon.tui.widgets.response.response_pane import ResponsePane
    from pigeon.tui.widgets.response.websocket_view import WebSocketView

WRITER_MOMENT = 0.005  # seconds the first frame's writing is given before the rest is built
PENDING_AFTER = 0.05  # seconds before a send in flight replaces the last response

# Dialogs and the renderer are imported where they are used: they are not needed for the
# first paint, and start-up time is part of the product.


def _lights(node: DOMNode) -> bool:
    """Whether ``node`` is a pane whose border lights up while it holds the focus."""
    return isinstance(node, (Pane, RequestEditor)) or node.id == "response"


class MainScreen(Screen[None]):
    # main.tcss is loaded by the app (see PigeonApp.CSS_PATH).
    AUTO_FOCUS = "CollectionTree"

    # The tooltips name the actions in the help screen and the palette; the footer keeps the
    # short labels. ctrl+t, not ctrl+b: ctrl+b is tmux's prefix (ctrl+a is screen's).
    BINDINGS = [
        Binding("ctrl+r,f5", "send", "Send", id="send", priority=True, tooltip="Send the request"),
        Binding(
            "escape", "cancel_send", "Cancel send", id="cancel_send", tooltip="Cancel the send"
        ),
        Binding(
            "ctrl+s",
            "save",
            "Save",
            id="save",
            priority=True,
            tooltip="Save the request (a new one asks a name)",
        ),
        Binding("ctrl+l", "focus_url", "Go to URL", id="focus_url", priority=True, show=False),
        Binding(
            "ctrl+n",
            "new_request",
            "New",
            id="new_request",
            show=False,
            tooltip="New scratch request (a file once saved)",
        ),
        Binding(
            "ctrl+t",
            "toggle_tree",
            "Tree",
            id="toggle_tree",
            priority=True,
            tooltip="Show or hide the collection tree",
        ),
        Binding(
            "ctrl+g",
            "toggle_variables",
            "Vars",
            id="toggle_variables",
            priority=True,
            tooltip="Show or hide the variables pane",
        ),
        Binding(
            "ctrl+o",
            "maximize_pane",
            "Zoom",
            id="maximize",
            priority=True,
            tooltip="Maximise the focused pane, or restore it",
        ),
        Binding(
            "ctrl+right",
            "resize_pane(1)",
            "Wider",
            id="pane_wider",
            show=False,
            tooltip="Widen the focused pane (the centre keeps 60 columns)",
        ),
        Binding(
            "ctrl+left",
            "resize_pane(-1)",
            "Narrower",
            id="pane_narrower",
            show=False,
            tooltip="Narrow the focused pane",
        ),
        Binding("f4", "choose_environment", "Env", id="environment", tooltip="Choose environment"),
        Binding(
            "f2",
            "show_log",
            "Log",
            id="log",
            tooltip="Log: every message in full, script output and errors",
        ),
        Binding(
            "f7",
            "show_cookies",
            "Cookies",
            id="cookies",
            show=False,
            tooltip="Cookies: list, edit, delete or clear the jar",
        ),
        Binding(
            "f3",
            "copy_curl",
            "Copy as curl",
            id="copy_curl",
            show=False,
            tooltip="Copy the request as a curl command",
        ),
        Binding(
            "f6",
            "toggle_history",
            "History / collection",
            id="toggle_history",
            show=False,
            tooltip="Show the history of sends, or the collection again",
        ),
    ]

    @staticmethod
    def help_subgroups() -> list[tuple[str, type]]:
        from pigeon.tui.widgets.collection.history_list import HistoryList

        return [("History (f6)", HistoryList)]

    FOLLOW_DISK = True  # watch the collection's directory and follow what changes there

    def __init__(self, session: Session) -> None:
        super().__init__()
        self.session = session
        self.last_exchange: Exchange | None = None  # the latest exchange shown
        self._in_flight: Progress | None = None  # the send in flight, watched as it arrives
        self._last_sent: Request | None = None  # what the last send sent, for a reconnect
        self.first_paint_at = 0.0  # wall-clock time the screen was first on display
        self._lit_pane: DOMNode | None = None  # the pane whose border shows it holds the focus
        self.built_at = 0.0  # ... and when the editor's widgets and the response pane were in
        self._trust_asked = False
        self._tree_hidden_by_user: bool | None = None
        self._vars_hidden_by_user: bool | None = None
        self.pane_widths = PaneWidths()
        self.editor = RequestEditor(self._scopes_for, session.preview, id="editor")
        self.collection_pane = CollectionPane(
            session, self.editor, self.guard_unsaved, id="tree-pane"
        )
        self.variables_pane = VariablesPane(session, self.editor, self._scopes_for, id="variables")
        self.status = SessionStatus(id="status")
        self.response_pane: ResponsePane | None = None  # mounted just after the first paint
        self.save_as = SaveAs(session, self.editor, self.collection_pane, self.save_current)

    # -- layout -------------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        with Horizontal(id="panes"):
            yield self.collection_pane
            with Vertical(id="centre"):
                yield self.editor
            with Pane(id="vars-pane"):
                yield self.variables_pane
        yield self.status
        yield KeyFooter(compact=True)

    def on_mount(self) -> None:
        self.query_one("#vars-pane").border_title = "Variables"
        from pigeon.tui.dialogs.oauth2_person import AppPerson

        self.session.person = AppPerson(self.app)  # OAuth 2.0 sign-ins show their dialogs
        self._apply_width(self.size.width)
        self.update_status()
        # In a worker: waiting for the first frame must not hold this screen's messages.
        self.run_worker(self._after_first_paint(), group="build")
        broken = self.session.collection.broken
        if broken:
            self.notify(
                f"{len(broken)} file(s) could not be loaded; they are marked ⚠ in the tree.",
                severity="warning",
            )

    async def _write_first_frame(self) -> None:
        """Put the screen on the terminal now. Textual draws the first frame inside its start-up
        batch, writes none of it and leaves nothing marked to draw again: the screen stayed
        blank until later work marked parts of it, piece by piece, tens of milliseconds on.
        Composed again from the lines each widget cached, the whole screen costs a few ms."""
        await self.app.frames_written.wait()  # the batch is over
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
        await self.collection_pane.collection_tree.painted()
        await self._write_first_frame()
        if not self.is_attached:  # the app quit as soon as the screen showed
            return
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
            self._response_for(self.editor.request)
        self.built_at = time.time()
        if self.session.echo is not None:
            self.session.echo.start()
        if self.FOLLOW_DISK:
            from pigeon.tui.widgets.disk_watch import DiskWatch

            await self.mount(DiskWatch(self.session))

    def on_resize(self, event: events.Resize) -> None:
        self._apply_width(event.size.width)

    def _apply_width(self, width: int) -> None:
        """The side panes narrow, then start hidden, so the centre keeps its 60 columns
        (``tui/pane_widths``); a maximised pane takes the whole screen."""
        tree, variables = self.collection_pane, self.query_one("#vars-pane")
        tree_shown, vars_shown = PaneWidths.shown_at_start(width)
        if self._tree_hidden_by_user is None:
            tree.display = tree_shown
        if self._vars_hidden_by_user is None:
            variables.display = vars_shown
        widths = self.pane_widths.fit(width, (tree.display, variables.display))
        for side, pane in (("tree", tree), ("vars", variables)):
            if pane is self.maximized:
                pane.styles.width = "1fr"
            elif side in widths:
                pane.styles.width = widths[side]

    def watch_maximized(self) -> None:
        self._apply_width(self.size.width)

    def watch_focused(self, focused: Widget | None) -> None:
        """Light the border of the pane that holds the focus: a class on that pane alone, set
        when the focus changes pane. (``:focus-within`` restyled every widget of the pane it
        left and the pane it entered on every move of the focus, even within one pane.)"""
        lit = None
        if focused is not None:
            lit = next((node for node in focused.ancestors_with_self if _lights(node)), None)
        if lit is self._lit_pane:
            return
        changed = [node for node in (self._lit_pane, lit) if node is not None]
        if self._lit_pane is not None:
            self._lit_pane.remove_class("-lit", update=False)
        if lit is not None:
            lit.add_class("-lit", update=False)
        self._lit_pane = lit
        self.app.stylesheet.update_nodes(changed, animate=True)

    def action_resize_pane(self, direction: int) -> None:
        """Widen or narrow the focused side pane, or the centre (the side panes give way)."""
        focused = self.focused
        ancestors = focused.ancestors_with_self if focused is not None else []
        tree, variables = self.collection_pane, self.query_one("#vars-pane")
        target = "tree" if tree in ancestors else "vars" if variables in ancestors else "centre"
        shown = (tree.display, variables.display)
        if self.pane_widths.resize(target, direction * STEP, self.size.width, shown):
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
        request = self.editor.request
        if unresolved is None:
            unresolved = self.session.preview(request).unresolved if request is not None else []
        self.variables_pane.show_request(request, unresolved, force)

    @on(VariablesPane.Changed)
    @on(CollectionPane.EnvironmentChanged)
    def refresh_after_variables(self) -> None:
        """Variables changed (environment, runtime, an edit): preview and pane follow."""
        self.editor.refresh_preview()
        self._refresh_variables()
        self.update_status()

    def on_collection_pane_collection_changed(self) -> None:
        self._refresh_variables()

    # -- the request in the editor ------------------------------------------------------------

    @on(CollectionTree.RequestChosen)
    @on(CollectionPane.RequestCreated)
    def _open_request(
        self, event: CollectionTree.RequestChosen | CollectionPane.RequestCreated
    ) -> None:
        editor = self.editor
        if editor.saved is event.request:
            editor.focus_url()
            return

        def open_it() -> None:
            self._load(event.request)
            editor.focus_url()

        self.guard_unsaved(open_it)

    def _load(self, request: Request) -> None:
        self.editor.load(request)
        self._refresh_variables()
        self._response_for(request)

    def _response_for(self, request: Request) -> WebSocketView | None:
        """The view the response pane picks for ``request``'s kind (``None``: its tabs)."""
        return self.response_pane.view_for(request) if self.response_pane is not None else None

    def on_collection_tree_broken_chosen(self, event: CollectionTree.BrokenChosen) -> None:
        def show() -> None:
            self.editor.show_broken(event.broken)
            self._refresh_variables()

        self.guard_unsaved(show)

    def on_request_editor_changed(self, event: RequestEditor.Changed) -> None:
        editor = self.editor
        if editor.saved is not None:
            tree = self.collection_pane.collection_tree
            tree.show_method(editor.saved.path, event.request.method)  # before the save
            tree.mark_dirty(editor.saved.path, event.dirty)
        self._refresh_variables(
            editor.last_preview.unresolved if editor.last_preview else None, force=False
        )

    def guard_unsaved(self, then: Callable[[], object]) -> None:
        """Run ``then`` once unsaved edits are saved or discarded (or not at all: cancel)."""
        from pigeon.tui.dialogs.confirm import UnsavedScreen

        editor = self.editor
        if not editor.edited or editor.request is None:
            then()
            return
        name = editor.request.name

        def answered(answer: str | None) -> None:
            if answer == "save":
                self.save_as.save(then)
            elif answer == "discard":
                self._discard_current()
                then()

        self.app.push_screen(UnsavedScreen(f"“{name}”"), answered)

    def reload_collection(self) -> None:
        """The session reloaded from disk: rebuild the tree, reopen the request by path."""
        editor = self.editor
        path = editor.saved.path if editor.saved is not None else None
        self.collection_pane.reload(path)
        reopened = next(
            (r for r in self.session.collection.requests() if path is not None and r.path == path),
            None,
        )
        if reopened is not None:
            editor.load(reopened)
        else:
            editor.show_message("Choose a request in the collection.")
        self.refresh_after_variables()

    def _discard_current(self) -> None:
        editor = self.editor
        if editor.saved is not None:
            self.collection_pane.collection_tree.mark_dirty(editor.saved.path, False)
            editor.load(editor.saved, editor.origin)

    def action_choose_environment(self) -> None:
        self.collection_pane.choose_environment()

    # -- save ---------------------------------------------------------------------------------

    def save_current(self, force: bool = False) -> bool:
        """Save the request being edited; ``False`` (with a message) when it could not be.
        A file changed on disk since it was read is overwritten only when ``force``; else
        the user is asked whose version wins."""
        from pigeon.store import ChangedOnDisk

        editor = self.editor
        if editor.request is None:
            self.notify("Nothing to save: choose a request first.", severity="warning")
            return False
        try:
            saved = self.session.commit_request(editor.request, force)
        except ChangedOnDisk as exc:
            self._ask_whose_request(exc)
            return False
        except Exception as exc:
            self.notify(f"Not saved: {exc}", severity="error", timeout=10)
            return False
        editor.mark_saved(saved)
        tree = self.collection_pane.collection_tree
        tree.mark_dirty(saved.path, False)
        tree.update_request_label(saved)
        self.notify(f"Saved {saved.path.name if saved.path else saved.name}")
        return True

    def action_save(self) -> None:
        self.save_as.save()

    # -- the disk: the files are the truth ------------------------------------------------------

    def _ask_whose_request(self, exc: ChangedOnDisk) -> None:
        """The open request's file changed (or went away) on disk since it was read."""
        from rich.text import Text

        from pigeon import store
        from pigeon.tui.dialogs.changed_on_disk import ChangedOnDiskScreen

        editor, tree = self.editor, self.collection_pane.collection_tree
        mine = editor.request

        def answered(answer: str | None) -> None:
            if answer is None or mine is None or editor.request is not mine:
                return  # escape: nothing written, the edits stay
            if answer == "mine":
                if self.save_current(force=True):
                    self.follow_disk()
                return
            tree.mark_dirty(exc.path, False)
            if answer == "beside":
                try:
                    copy = store.write_beside(exc.path, store.request_to_toml(mine))
                except Exception as error:
                    self.notify(f"Not saved: {error}", severity="error", timeout=10)
                    return
                theirs = printable(exc.path.name)
                self.notify(
                    f"Saved yours as {printable(copy.name)}; {theirs} is theirs.", markup=False
                )
                editor.show_message("")
                self.follow_disk(open_path=exc.path)  # the copy is no request until merged
            else:  # theirs: the disk's version, or nothing when it was deleted
                gone = f"{printable(exc.path.name)} was deleted on disk." if exc.deleted else ""
                editor.show_message(Text(gone))
                self.follow_disk(open_path=None if exc.deleted else exc.path)

        self.app.push_screen(ChangedOnDiskScreen(exc.path.name, exc.deleted), answered)

    def on_disk_watch_changed(self, event: DiskWatch.Changed) -> None:
        from pigeon.tui.widgets.disk_watch import follow_renames  # a rename: it follows

        follow_renames(self.session, self.editor, self.collection_pane.collection_tree, event.paths)
        self.follow_disk(event.collection)

    def on_disk_watch_failed(self, event: DiskWatch.Failed) -> None:
        message = f"Not following the disk: {printable(event.message)}"
        self.notify(message, severity="warning", timeout=10, markup=False)

    def on_variables_pane_reload_wanted(self) -> None:
        self.follow_disk()

    def follow_disk(self, loaded: Collection | None = None, open_path: Path | None = None) -> None:
        """Take the collection as it is on disk (``loaded``: read off the loop, else read now)
        and rebuild the tree where it was. The open request follows its file when it has no
        unsaved edits; with them it keeps them, and its save asks whose version wins.
        ``open_path``: the request to open instead."""
        editor, session = self.editor, self.session
        base = editor.saved.path if editor.saved is not None else None
        path = open_path or base
        before = session.collection.seen.get(base) if base is not None else None
        cursor = self.collection_pane.collection_tree.cursor_node
        data = cursor.data if cursor is not None else None
        session.reload(loaded)
        seen = session.collection.seen
        reopened = next((r for r in session.collection.requests() if r.path == path), None)
        self.collection_pane.reload(getattr(data, "path", None) or path)
        if open_path is not None and reopened is not None:
            editor.load(reopened)
        elif base is not None and editor.request is not None:
            changed = before is not None and seen.get(base) != before
            name = printable(base.name)
            if editor.dirty or reopened is None:
                if before is not None:  # the edits stand on what was read: a save asks
                    seen[base] = before
                if changed and reopened is None:
                    editor.mark_unsaved()
                    broken = any(b.path == base for b in session.collection.broken)
                    why = "no longer loads" if broken else "was deleted on disk"
                    self.notify(f"{name} {why}: yours is kept unsaved.", markup=False)
                elif changed:
                    self.notify(
                        f"{name} changed on disk: your unsaved edits are kept.", markup=False
                    )
            elif changed:
                editor.load(reopened)
                self.notify(f"{name} changed on disk: reloaded.", markup=False)
            else:
                editor.saved = reopened
        self.refresh_after_variables()

    # -- send ---------------------------------------------------------------------------------

    def action_send(self) -> None:
        editor = self.query_one(RequestEditor)
        if editor.request is None:
            self.notify("Choose a request to send.", severity="warning")
            return
        view = self._response_for(editor.request)
        if view is not None:
            view.toggle(editor.request, self._ensure_trust)  # connect or close
            return
        self._send(editor.request)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "cancel_send":
            return bool(self._sending_workers())
        return True

    def _sending_workers(self) -> list[Worker[Any]]:
        return [
            w
            for w in self.workers
            if w.group == "send" and w.state in (WorkerState.PENDING, WorkerState.RUNNING)
        ]

    def action_cancel_send(self) -> None:
        progress = self._in_flight
        sink = progress.sink if progress is not None else None
        if sink is not None and progress.phase == "receiving" and sink.stop_reason is None:
            sink.stop()  # a body arriving stops there: what came is kept and shown
            return
        self.session.cancel_scripts()  # a script stops now, whatever it is doing
        for worker in self._sending_workers():
            worker.cancel()

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.worker.group != "send":
            return
        if event.state == WorkerState.ERROR:
            error = event.worker.error
            self.session.add_log(
                "send", "".join(traceback.format_exception(error)) if error else "?", error=True
            )
            self.notify(f"Send failed: {error}", severity="error", timeout=8)
            if self.response_pane is not None:
                self.response_pane.clear()
        if event.state not in (WorkerState.PENDING, WorkerState.RUNNING):
            self.refresh_bindings()  # a send in flight shows esc when it shows as pending

    @work(exclusive=True, group="send", exit_on_error=False)
    async def _send(self, request: Request, resume: tuple[str, int | None] | None = None) -> None:
        import copy

        pane = self.response_pane
        if pane is None:  # a send before the pane is built: it is, a moment after the first paint
            pane = await self._wait_for_response_pane()
        snapshot = copy.deepcopy(request)  # edits made while it flies do not change it
        if snapshot.body.type == "graphql":
            from pigeon.tui.widgets.editor.graphql_check import refusal

            if refused := await refusal(self.session, snapshot):
                pane.show_refused(refused, self.last_exchange)
                self.notify(refused, severity="error", timeout=8)
                return
        if resume is not None:
            await self._resume_after(snapshot, *resume)
        self._last_sent = snapshot
        trusted = await self._ensure_trust(snapshot)
        started = time.monotonic()
        try:
            outcome = await self._exchange(pane, snapshot, trusted)
        except asyncio.CancelledError:
            self._cancelled(pane, snapshot, (time.monotonic() - started) * 1000)
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
            self.last_exchange = outcome.exchange
            pane.show_status(outcome.exchange)
            await pane.status_line.painted()  # the status first; the body and the rest after
            pane.show_exchange(outcome.exchange)
            self._record(partial(self.session.record, outcome.exchange))
        else:  # refused before sending: the last response stays, the refusal heads it
            status = outcome.error or "Not sent"
            pane.show_refused(status, self.last_exchange)
            self.notify(status, severity="error", timeout=8)
        self.refresh_after_variables()
        if status:
            self.update_status(status)

    def _cancelled(self, pane: ResponsePane, request: Request, elapsed_ms: float) -> None:
        """A send was stopped after ``elapsed_ms``: recorded in the history; shown unless a
        new send replaced it (that one's spinner stays)."""
        from textual.worker import get_current_worker

        this = get_current_worker()
        if not any(w is not this for w in self._sending_workers()):
            pane.show_cancelled(elapsed_ms)
            self.update_status("send cancelled")
        self._record(partial(self.session.record_cancelled, request, elapsed_ms))

    async def _exchange(self, pane: ResponsePane, request: Request, trusted: bool) -> SendOutcome:
        """Send ``request``. The exchange starts before any drawing: the pane shows it in
        flight (and drops the last response) only when it is not back within a frame or two,
        so a fast exchange never waits behind a redraw, nor flickers."""
        from pigeon.exchange import Progress
        from pigeon.stream import StreamSink

        progress = self._in_flight = Progress(sink=StreamSink())
        sending = asyncio.ensure_future(self.session.send(request, trusted, progress))
        try:
            await asyncio.wait([sending], timeout=PENDING_AFTER)
            if not sending.done():
                pane.show_pending(request.method, request.url, progress)  # then progress.url
                self.refresh_bindings()  # esc cancels it
            return await sending
        finally:
            sending.cancel()  # the worker was cancelled (escape, a new send): so is the send
            if self._in_flight is progress:
                self._in_flight = None

    async def _resume_after(self, request: Request, last_id: str, retry_ms: int | None) -> None:
        """A stream sent again: ``Last-Event-ID`` says where it stopped, and the server's
        ``retry:`` wait (at most a minute) passes first."""
        if seconds := self.session.resumed(request, last_id, retry_ms):
            self.update_status(f"reconnecting in {seconds:g} s (the server's retry)")
            await asyncio.sleep(seconds)

    def on_events_panel_reconnect_requested(self, event: EventsPanel.ReconnectRequested) -> None:
        """The stream on show sent again (as it was sent, whatever the editor shows now)."""
        request = self._last_sent or self.query_one(RequestEditor).request
        if request is not None:
            self._send(request, (event.last_id, event.retry_ms))

    async def _wait_for_response_pane(self) -> ResponsePane:
        """The response pane, waiting (boundedly) for a send pressed in the first instant."""
        for _ in range(500):
            if self.response_pane is not None:
                return self.response_pane
            await asyncio.sleep(0.01)
        raise RuntimeError("the response pane was not built")

    async def _ensure_trust(self, request: Request) -> bool:
        """Ask once per session, when a request needs trust, whether to trust the collection,
        listing what all of it wants; record a yes in the trust store. Untrusted, the
        pipeline skips the scripts and refuses the rest (``pigeon.trust``)."""
        s = self.session
        if s.is_trusted():
            return True
        if self._trust_asked or not s.needs(request):
            return False
        self._trust_asked = True
        from pigeon.tui.dialogs.trust import TrustScreen

        wants = await asyncio.to_thread(s.trust_wants)  # renders every request: off the loop
        if await self.app.push_screen_wait(TrustScreen(s.trust_key(), wants)):
            s.trust()
            return True
        return False

    # -- history ------------------------------------------------------------------------------

    @work(group="history", exit_on_error=False)
    async def _record(self, record: Callable[[], str | None]) -> None:
        """Record an exchange (``record``: the session's), in a thread and outside the send
        worker (cancelling a send must not cancel its record). A failure is reported once
        per session."""
        problem = await asyncio.to_thread(record)
        if problem and not self.session.history_warned:
            self.session.history_warned = True
            self.notify(f"History not recorded: {problem}", severity="warning", timeout=8)
        if self.collection_pane.history is not None:
            self.collection_pane.history.reload()

    def on_web_socket_view_finished(self) -> None:
        """A connection ended, recorded in the history by the pipeline."""
        if self.collection_pane.history is not None:
            self.collection_pane.history.reload()

    async def action_toggle_history(self) -> None:
        """Switch the left pane between the collection tree and the history (showing the pane
        if it was hidden)."""
        pane = self.collection_pane
        to_history = not (pane.display and pane.showing_history)
        await pane.show_history(to_history)
        if not pane.display:
            self._toggle_side("#tree-pane", "#vars-pane")
        else:
            pane.shown.focus()

    def on_history_pane_open_requested(self, event: HistoryPane.OpenRequested) -> None:
        """Load the entry as an unsaved copy in the editor (ctrl+r re-sends it) and show its
        stored exchange."""

        def open_it() -> None:
            self.save_as.open_copy(event.request, event.exchange.request.request_id)
            self._refresh_variables()
            if event.refused:
                self.notify(event.refused, severity="warning", timeout=10)
            if self.response_pane is not None:
                self.last_exchange = event.exchange
                self._last_sent = None  # a reconnect sends this entry's copy, in the editor
                self.response_pane.show_exchange(event.exchange)

        self.guard_unsaved(open_it)

    def on_history_pane_send_requested(self, event: HistoryPane.SendRequested) -> None:
        def send_it() -> None:
            self.save_as.open_copy(event.request, event.request_id)
            self._refresh_variables()
            self._send(self.editor.request)

        self.guard_unsaved(send_it)

    # -- panes --------------------------------------------------------------------------------

    def action_toggle_tree(self) -> None:
        self._toggle_side("#tree-pane", "#vars-pane")

    def action_toggle_variables(self) -> None:
        self._toggle_side("#vars-pane", "#tree-pane")

    def _toggle_side(self, selector: str, other: str) -> None:
        """Show or hide a side pane. Below 100 columns only one side pane shows at a time, so
        the editor keeps room to work."""
        pane = self.query_one(selector)
        focused = self.focused
        pane.display = not pane.display
        hidden = {selector: not pane.display}
        if (
            pane.display
            and not PaneWidths.fits_both(self.size.width)
            and self.query_one(other).display
        ):
            self.query_one(other).display = False
            hidden[other] = True
        for key, value in hidden.items():
            if key == "#tree-pane":
                self._tree_hidden_by_user = value
            else:
                self._vars_hidden_by_user = value
        self._apply_width(self.size.width)
        if pane.display:
            if selector == "#vars-pane":
                self._refresh_variables()
            if selector == "#tree-pane":
                self.collection_pane.shown.focus()
            else:
                self.variables_pane.focus()
        elif focused is None or pane in focused.ancestors:
            editor = self.editor
            if editor.request is not None:
                editor.focus_url()
            else:
                self.set_focus(None)

    def focus_pane(self, pane: str) -> None:
        """alt+1…4 (the app's keys): focus a pane, showing a hidden side pane (and leaving a zoomed one)."""
        if self.maximized is not None:
            self.minimize()
        if pane == "tree":
            if self.collection_pane.display:
                self.collection_pane.shown.focus()
            else:
                self._toggle_side("#tree-pane", "#vars-pane")
        elif pane == "variables":
            if self.query_one("#vars-pane").display:
                self.variables_pane.focus()
            else:
                self._toggle_side("#vars-pane", "#tree-pane")
        elif pane == "editor":
            self.editor.focus_tab()
        elif self.response_pane is not None:
            self.response_pane.focus_tab()

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
        self.guard_unsaved(self.save_as.new_scratch)

    def action_show_log(self) -> None:
        from pigeon.tui.screens.log import LogScreen

        self.app.push_screen(LogScreen(self.session.log))

    def action_show_cookies(self) -> None:
        from pigeon.tui.screens.cookies import CookiesScreen

        self.app.push_screen(CookiesScreen(self.session))

    def action_copy_curl(self) -> None:
        editor = self.editor
        if editor.request is None:
            return
        try:
            from pigeon.exporters.curl import to_curl

            rendered = self.session.render(editor.request, leaving=True)
            command = to_curl(self.session.with_jar_cookies(rendered))  # the jar's, as a send
        except Exception as exc:
            self.notify(f"Cannot export: {exc}", severity="error")
            return
        self.app.copy_to_clipboard(command)
        self.notify("Copied the request as a curl command.")

    def clear_runtime(self) -> None:
        """Forget every variable scripts have set (the palette's command)."""
        self.variables_pane.clear_runtime()
