"""The main screen: tree | editor over response | variables, and what ties them together.

Widgets report through messages; this screen turns them into store calls, renders and sends.
State lives in the app's ``Session``; nothing here is module-level.
"""

from __future__ import annotations

import asyncio
import time
import traceback
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Footer, Static
from textual.worker import Worker, WorkerState

from pigeon.model import Request
from pigeon.tui.screens.tree_commands import TreeCommands
from pigeon.tui.screens.variable_commands import VariableCommands
from pigeon.tui.widgets.collection_tree import CollectionTree
from pigeon.tui.widgets.environment_label import EnvironmentLabel
from pigeon.tui.widgets.request_editor import Preview, RequestEditor
from pigeon.tui.widgets.variables_pane import VariablesPane, env_references, request_texts

if TYPE_CHECKING:
    from pigeon.session import Session
    from pigeon.tui.widgets.response_pane import ResponsePane

# Dialogs and the renderer are imported where they are used: they are not needed for the
# first paint, and start-up time is part of the product.

NO_ENV = "__none__"
TREE_HINT = "n new · r rename · d delete · f1"
HISTORY_HINT = "f6 tree · f1 keys"


def _masked_parts(request: Request) -> list[str]:
    """Which parts of a request made from a history entry still carry the history's mask
    (masked headers come back switched off, so they are not listed)."""
    from pigeon.masking import MASK

    parts = []
    if MASK in request.url or any(MASK in q.value for q in request.query if q.enabled):
        parts.append("URL")
    if MASK in request.body.content:
        parts.append("body")
    return parts


class Pane(Vertical):
    """A titled, bordered pane that can be maximised; its border lights up when focused."""

    ALLOW_MAXIMIZE = True


class MainScreen(TreeCommands, VariableCommands, Screen[None]):
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
            tooltip="Save the request to its file",
        ),
        Binding("ctrl+l", "focus_url", "Go to URL", id="focus_url", priority=True, show=False),
        Binding(
            "ctrl+n", "new_request", "New", id="new_request", show=False, tooltip="New request"
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
        Binding("f4", "choose_environment", "Env", id="environment", tooltip="Choose environment"),
        Binding("f2", "show_log", "Log", id="log", tooltip="Script log: output and errors"),
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
        from pigeon.tui.widgets.history_list import HistoryList

        return [("History (f6)", HistoryList)]

    def __init__(self, session: Session) -> None:
        super().__init__()
        self.session = session
        self.last_exchange: Any = None  # the latest pigeon.send.Exchange shown
        self.first_paint_at = 0.0  # wall-clock time the screen was first on display
        self.built_at = 0.0  # ... and when the editor's widgets and the response pane were in
        self._vars_key: tuple[Any, ...] = ()
        self._trust_asked = False
        self._tree_hidden_by_user: bool | None = None
        self._vars_hidden_by_user: bool | None = None
        self.response_pane: ResponsePane | None = None  # mounted just after the first paint

    # -- layout -------------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        with Horizontal(id="panes"):
            with Pane(id="tree-pane"):
                yield EnvironmentLabel(id="env")
                yield CollectionTree(id="tree")
            with Vertical(id="centre"):
                yield RequestEditor(self._scopes_for, self._preview, id="editor")
            with Pane(id="vars-pane"):
                yield VariablesPane(id="variables")
        yield Static("", id="status")
        yield Footer(compact=True)

    def on_mount(self) -> None:
        self.query_one("#tree-pane").border_title = "Collection"
        self.query_one("#tree-pane").border_subtitle = TREE_HINT
        self.query_one(EnvironmentLabel).show(self.session.environment)
        self.query_one("#vars-pane").border_title = "Variables"
        self.query_one(CollectionTree).show_collection(self.session.collection)
        self._apply_width(self.size.width)
        self.update_status()
        self.call_after_refresh(self._after_first_paint)
        broken = self.session.collection.broken
        if broken:
            self.notify(
                f"{len(broken)} file(s) could not be loaded; they are marked ⚠ in the tree.",
                severity="warning",
            )

    async def _after_first_paint(self) -> None:
        """The variables, the editor's widgets and the response pane are filled or mounted
        once the screen is on display: the tree is what is needed first."""
        self.first_paint_at = time.time()
        self._refresh_variables()
        await self.query_one(RequestEditor).build_body()
        from pigeon.tui.widgets.response_pane import ResponsePane

        response = ResponsePane(id="response")
        response.border_title = "Response"
        await self.query_one("#centre").mount(response)
        self.response_pane = response
        self.built_at = time.time()
        if self.session.echo is not None:
            self.session.echo.start()

    def on_resize(self, event: Any) -> None:
        self._apply_width(event.size.width)

    def _apply_width(self, width: int) -> None:
        """Below 120 columns the side panes narrow, below 110 the variables pane starts
        hidden (the editor keeps 50 columns or more), below 70 the tree too."""
        self.set_class(width < 120, "narrow")
        if self._vars_hidden_by_user is None:
            self.query_one("#vars-pane").display = width >= 110
        if self._tree_hidden_by_user is None:
            self.query_one("#tree-pane").display = width >= 70

    # -- status -------------------------------------------------------------------------------

    def update_status(self, extra: str = "") -> None:
        s = self.session
        parts = [Text.assemble(("env ", "dim"), (s.environment or "none", "bold"))]
        if s.echo is not None:
            parts.append(Text(f"echo server on {s.echo.url}", style="green"))
        if len(s.runtime):
            parts.append(Text(f"{len(s.runtime)} runtime var(s)", style="yellow"))
        errors = sum(1 for e in s.log if e.error)
        if errors:
            parts.append(Text(f"{errors} script error(s): f2", style="red"))
        if extra:
            parts.append(Text(extra))
        self.query_one("#status", Static).update(Text("  ·  ").join(parts))

    # -- scopes and preview -------------------------------------------------------------------

    def _scopes_for(self, request: Request | None) -> Any:
        try:
            return self.session.scopes_for(request)
        except Exception:
            return None

    def _preview(self, request: Request) -> Preview:
        from pigeon.render import RenderError, render_request

        s = self.session
        try:
            scopes = s.scopes_for(request)
            rendered = render_request(s.collection, s.chain_of(request), request, scopes)
        except RenderError as exc:
            return Preview("", [], [], str(exc))
        except Exception as exc:  # a half-typed edit must never crash the editor
            return Preview("", [], [], f"{type(exc).__name__}: {exc}")
        return Preview(rendered.url, rendered.unresolved, rendered.warnings)

    def _refresh_variables(self, unresolved: list[str] | None = None, force: bool = True) -> None:
        """Redraw the variables pane; with ``force=False`` only when what it shows for the
        request (unresolved names, ``$env`` names, request variables) changed -- typing in the
        URL bar must not rebuild the pane on every key."""
        editor = self.query_one(RequestEditor)
        request = editor.request
        if unresolved is None:
            unresolved = self._preview(request).unresolved if request is not None else []
        env_names: list[str] = []
        if request is not None:
            from pigeon.render import effective_auth

            s = self.session
            chain = s.chain_of(request)
            headers = [*s.collection.headers, *(h for f in chain for h in f.headers)]
            texts = request_texts(request, headers, effective_auth(s.collection, chain, request))
            env_names = env_references(texts)
        key = (
            id(request),
            tuple(unresolved),
            tuple(env_names),
            repr(request.variables) if request else "",
        )
        if not force and key == self._vars_key:
            return
        self._vars_key = key
        self.query_one(VariablesPane).show_scopes(self._scopes_for(request), unresolved, env_names)

    def refresh_after_variables(self) -> None:
        """Variables changed (environment, runtime, an edit): preview and pane follow."""
        self.query_one(RequestEditor).refresh_preview()
        self._refresh_variables()
        self.update_status()

    # -- tree ---------------------------------------------------------------------------------

    def on_collection_tree_request_chosen(self, event: CollectionTree.RequestChosen) -> None:
        editor = self.query_one(RequestEditor)
        if editor.saved is event.request:
            editor.focus_url()
            return

        def open_it() -> None:
            editor.load(event.request)
            self._refresh_variables()
            editor.focus_url()

        self.guard_unsaved(open_it)

    def on_collection_tree_broken_chosen(self, event: CollectionTree.BrokenChosen) -> None:
        broken = event.broken

        def show() -> None:
            self.query_one(RequestEditor).show_message(
                Text.assemble(
                    ("⚠ This file could not be loaded\n\n", "bold red"),
                    (str(broken), "red"),
                    "\n\nFix it in an editor; Pigeon never overwrites a file it cannot read. "
                    "The collection reloads when you save another request, or with the "
                    "palette's “Reload collection”.",
                )
            )
            self._refresh_variables()

        self.guard_unsaved(show)

    def on_request_editor_changed(self, event: RequestEditor.Changed) -> None:
        tree = self.query_one(CollectionTree)
        editor = self.query_one(RequestEditor)
        if editor.saved is not None:
            tree.mark_dirty(editor.saved.path, event.dirty)
        self._refresh_variables(
            editor.last_preview.unresolved if editor.last_preview else None, force=False
        )

    def guard_unsaved(self, then: Any) -> None:
        """Run ``then`` once unsaved edits are saved or discarded (or not at all: cancel)."""
        from pigeon.tui.dialogs.confirm import UnsavedScreen

        editor = self.query_one(RequestEditor)
        if not editor.dirty or editor.request is None:
            then()
            return
        name = editor.request.name

        def answered(answer: str | None) -> None:
            if answer == "save":
                if self.save_current():
                    then()
            elif answer == "discard":
                self._discard_current()
                then()

        self.app.push_screen(UnsavedScreen(f"“{name}”"), answered)

    def reload_collection(self) -> None:
        """The session reloaded from disk: rebuild the tree, reopen the request by path."""
        editor = self.query_one(RequestEditor)
        path = editor.saved.path if editor.saved is not None else None
        self._rebuild_tree(path)
        reopened = next(
            (r for r in self.session.collection.requests() if path is not None and r.path == path),
            None,
        )
        if reopened is not None:
            editor.load(reopened)
        else:
            editor.show_message("Choose a request in the collection.")
        self.query_one(EnvironmentLabel).show(self.session.environment)
        self.refresh_after_variables()

    def _discard_current(self) -> None:
        editor = self.query_one(RequestEditor)
        if editor.saved is not None:
            self.query_one(CollectionTree).mark_dirty(editor.saved.path, False)
            editor.load(editor.saved)

    def on_collection_tree_new_request_requested(
        self, event: CollectionTree.NewRequestRequested
    ) -> None:
        self._tree_new_request(event.item)

    def on_collection_tree_new_folder_requested(
        self, event: CollectionTree.NewFolderRequested
    ) -> None:
        self._tree_new_folder(event.item)

    def on_collection_tree_rename_requested(self, event: CollectionTree.RenameRequested) -> None:
        self._tree_rename(event.item)

    def on_collection_tree_duplicate_requested(
        self, event: CollectionTree.DuplicateRequested
    ) -> None:
        self._tree_duplicate(event.item)

    def on_collection_tree_move_requested(self, event: CollectionTree.MoveRequested) -> None:
        self._tree_move(event.item)

    def on_collection_tree_delete_requested(self, event: CollectionTree.DeleteRequested) -> None:
        self._tree_delete(event.item)

    # -- environment --------------------------------------------------------------------------

    def _env_value(self) -> str:
        return self.session.environment or NO_ENV

    def on_environment_label_clicked(self, event: EnvironmentLabel.Clicked) -> None:
        self.action_choose_environment()

    def set_environment(self, name: str) -> None:
        if name == self.session.environment:
            return
        self.session.environment = name
        self.query_one(EnvironmentLabel).show(name)
        self.refresh_after_variables()
        self.notify(f"Environment: {name or 'none'}")

    def action_choose_environment(self) -> None:
        from pigeon.tui.dialogs.choose import ChooseScreen

        options = [
            (NO_ENV, "(no environment)"),
            *((n, n) for n in self.session.environment_names()),
        ]

        def chosen(value: str | None) -> None:
            if value is not None:
                self.set_environment("" if value == NO_ENV else value)

        self.app.push_screen(ChooseScreen("Environment", options, self._env_value()), chosen)

    # -- save ---------------------------------------------------------------------------------

    def save_current(self) -> bool:
        """Save the request being edited; ``False`` (with a message) when it could not be."""
        editor = self.query_one(RequestEditor)
        if editor.request is None:
            self.notify("Nothing to save: choose a request first.", severity="warning")
            return False
        try:
            saved = self.session.commit_request(editor.request)
        except Exception as exc:
            self.notify(f"Not saved: {exc}", severity="error", timeout=10)
            return False
        editor.mark_saved(saved)
        tree = self.query_one(CollectionTree)
        tree.mark_dirty(saved.path, False)
        tree.update_request_label(saved)
        self.notify(f"Saved {saved.path.name if saved.path else saved.name}")
        return True

    def action_save(self) -> None:
        self.save_current()

    # -- send ---------------------------------------------------------------------------------

    def action_send(self) -> None:
        editor = self.query_one(RequestEditor)
        if editor.request is None:
            self.notify("Choose a request to send.", severity="warning")
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
        elif event.state == WorkerState.CANCELLED:
            if self.response_pane is not None:
                self.response_pane.show_cancelled()
            self.update_status("send cancelled")
        self.refresh_bindings()

    @work(exclusive=True, group="send", exit_on_error=False)
    async def _send(self, request: Request) -> None:
        import copy

        pane = self.response_pane
        if pane is None:  # a send before the pane is built: it is, a moment after the first paint
            pane = await self._wait_for_response_pane()
        snapshot = copy.deepcopy(request)  # edits made while it flies do not change it
        trusted = await self._ensure_trust(snapshot)
        preview = self._preview(snapshot)
        pane.show_pending(snapshot.method, preview.url or snapshot.url)
        self.refresh_bindings()
        try:
            outcome = await self.session.send(snapshot, trusted)
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
            pane.show_exchange(outcome.exchange)
            self._record(outcome.exchange)
        else:  # not sent: the pane must not keep saying it is waiting
            pane.clear()
            self.notify(outcome.error or "Not sent", severity="error", timeout=8)
            status = outcome.error or "Not sent"
        self.refresh_after_variables()
        if status:
            self.update_status(status)

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
        from pigeon.trust import summary
        from pigeon.tui.dialogs.trust import TrustScreen

        wants = summary(await asyncio.to_thread(s.needs))  # renders every request: off the loop
        if await self.app.push_screen_wait(TrustScreen(s.trust_key(), wants)):
            s.trust()
            return True
        return False

    # -- history ------------------------------------------------------------------------------

    @work(group="history", exit_on_error=False)
    async def _record(self, exchange: Any) -> None:
        """Record a finished exchange, in a thread and outside the send worker (cancelling a
        send must not cancel its record). A failure is reported once per session."""
        problem = await asyncio.to_thread(self.session.record, exchange)
        if problem and not self.session.history_warned:
            self.session.history_warned = True
            self.notify(f"History not recorded: {problem}", severity="warning", timeout=8)
        self._refresh_history()

    def _history_list(self) -> Any:
        from pigeon.tui.widgets.history_list import HistoryList

        found = self.query(HistoryList)
        return found.first() if found else None

    def _left_widget(self) -> Any:
        """What the left pane shows now: the collection tree or the history list."""
        history = self._history_list()
        return (
            history if history is not None and history.display else self.query_one(CollectionTree)
        )

    def _refresh_history(self) -> None:
        history = self._history_list()
        if history is not None:
            history.reload()

    async def action_toggle_history(self) -> None:
        """Switch the left pane between the collection tree and the history (showing the pane
        if it was hidden)."""
        from pigeon.tui.widgets.history_list import HistoryList

        pane = self.query_one("#tree-pane")
        history = self._history_list()
        to_history = not (pane.display and history is not None and history.display)
        if to_history:
            if history is None:
                history = HistoryList(self.session.root, id="history")
                await pane.mount(history)
            history.reload()
        tree = self.query_one(CollectionTree)
        tree.display = not to_history
        if history is not None:
            history.display = to_history
        pane.border_title = "History" if to_history else "Collection"
        pane.border_subtitle = HISTORY_HINT if to_history else TREE_HINT
        if not pane.display:
            self._toggle_side("#tree-pane", "#vars-pane")
        else:
            (history if to_history else tree).focus()

    def on_history_list_open(self, event: Any) -> None:
        self._open_history(event.entry, send=False)

    def on_history_list_resend(self, event: Any) -> None:
        self._open_history(event.entry, send=True)

    def _open_history(self, entry: Any, send: bool) -> None:
        """Load an entry as an unsaved copy in the editor (ctrl+r re-sends it) and show its
        stored exchange, or send it straight away."""
        from pigeon.history import to_request
        from pigeon.tui.widgets.history_list import entry_exchange

        def open_it() -> None:
            editor = self.query_one(RequestEditor)
            request = to_request(entry)
            editor.load(request)
            self._refresh_variables()
            masked = _masked_parts(request)
            if send and masked:  # never send the mask in place of a secret
                self.notify(
                    f"Not sent: the {' and '.join(masked)} of this entry hold masked secrets "
                    "(•••). Put the values back in the editor, then ctrl+r.",
                    severity="warning",
                    timeout=10,
                )
            elif send:
                self._send(editor.request)
                return
            if self.response_pane is not None:
                self.last_exchange = exchange = entry_exchange(entry)
                self.response_pane.show_exchange(exchange)

        self.guard_unsaved(open_it)

    def on_history_list_delete(self, event: Any) -> None:
        from pigeon.history import delete_entry

        try:
            delete_entry(event.entry)
        except OSError as exc:
            self.notify(f"Not deleted: {exc}", severity="error", timeout=8)
            return
        self.notify("Deleted the history entry.")
        self._refresh_history()

    def on_history_list_prune(self, event: Any) -> None:
        from pigeon.tui.dialogs.prompt import PromptScreen

        default = self.session.config.history_keep

        def check(value: str) -> str | None:
            return None if value.isdigit() else "a whole number, 0 or more"

        def answered(value: str | None) -> None:
            if value is not None:
                self._prune(int(value))

        title = f"Keep the newest N of {event.count} history entries"
        self.app.push_screen(PromptScreen(title, str(default), check=check), answered)

    @work(group="history", exit_on_error=False)
    async def _prune(self, keep: int) -> None:
        from pigeon.history import prune

        try:
            removed = await asyncio.to_thread(prune, self.session.root, keep)
        except (OSError, ValueError) as exc:
            self.notify(f"Not pruned: {exc}", severity="error", timeout=8)
            return
        self.notify(f"Removed {removed} history entr{'y' if removed == 1 else 'ies'}.")
        self._refresh_history()

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
        if pane.display and self.size.width < 100 and self.query_one(other).display:
            self.query_one(other).display = False
            hidden[other] = True
        for key, value in hidden.items():
            if key == "#tree-pane":
                self._tree_hidden_by_user = value
            else:
                self._vars_hidden_by_user = value
        if pane.display:
            if selector == "#vars-pane":
                self._refresh_variables()
            if selector == "#tree-pane":
                self._left_widget().focus()
            else:
                pane.query_one(VariablesPane).focus()
        elif focused is None or pane in focused.ancestors:
            editor = self.query_one(RequestEditor)
            if editor.request is not None:
                editor.focus_url()
            else:
                self.set_focus(None)

    def action_maximize_pane(self) -> None:
        if self.maximized is not None:
            self.minimize()
        elif self.focused is not None:
            self.maximize(self.focused)

    def action_focus_url(self) -> None:
        editor = self.query_one(RequestEditor)
        if editor.request is None:
            self.notify("Choose a request first.", severity="warning")
        editor.focus_url()

    def action_new_request(self) -> None:
        self._tree_new_request(None)

    def action_show_log(self) -> None:
        from pigeon.tui.screens.log import LogScreen

        self.app.push_screen(LogScreen(self.session.log))

    def action_copy_curl(self) -> None:
        from pigeon.render import render_request

        editor = self.query_one(RequestEditor)
        if editor.request is None:
            return
        try:
            from pigeon.exporters.curl import to_curl

            s = self.session
            rendered = render_request(
                s.collection,
                s.chain_of(editor.request),
                editor.request,
                s.scopes_for(editor.request, leaving=True),
            )
            command = to_curl(rendered)
        except Exception as exc:
            self.notify(f"Cannot export: {exc}", severity="error")
            return
        self.app.copy_to_clipboard(command)
        self.notify("Copied the request as a curl command.")

    # -- variables ----------------------------------------------------------------------------

    def on_variables_pane_clear_runtime(self, event: VariablesPane.ClearRuntime) -> None:
        self.clear_runtime()

    def clear_runtime(self) -> None:
        count = len(self.session.runtime)
        self.session.runtime.clear()
        self.refresh_after_variables()
        self.notify(f"Cleared {count} runtime variable(s).")

    def on_variables_pane_edit_requested(self, event: VariablesPane.EditRequested) -> None:
        self.edit_variable(event.name, event.value, event.scope)
