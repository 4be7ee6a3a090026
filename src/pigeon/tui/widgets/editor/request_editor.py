"""The request editor: URL bar, live preview, and tabs for every part of a request.

It edits a deep copy of the collection's request; ``dirty`` is that copy differing from the
saved one, so undoing an edit by hand clears the mark. A request with no file of its own says
where it came from (``origin``): a scratch request (ctrl+n) is dirty once edited, a copy opened
from history is dirty from the start (it is not what its file holds).
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import Input, Static

from pigeon.model import BrokenFile, Request
from pigeon.scopes import Scopes
from pigeon.session import Preview  # noqa: F401  (its old home: importable here too)
from pigeon.tui.css import beside
from pigeon.tui.widgets.editor.messages import RequestEdited

if TYPE_CHECKING:  # the URL bar is built with the editor's body, after the first frame
    from textual.timer import Timer

    from pigeon.tui.widgets.editor.url_bar import UrlBar

SCRATCH = "scratch"
FROM_HISTORY = "from history"
LARGE_BODY = 100_000  # characters of body from which the preview waits for a pause in typing
TYPING_PAUSE = 0.25  # seconds without an edit after which a large request's preview follows


class RequestEditor(Vertical):
    DEFAULT_CSS = beside(__file__)
    ALLOW_MAXIMIZE = True

    @dataclass
    class Changed(Message):
        """The edited request changed (``dirty``: it differs from the saved file)."""

        request: Request
        dirty: bool

    def __init__(
        self,
        scopes: Callable[[Request | None], Scopes | None],
        preview: Callable[[Request], Preview],
        *,
        id: str | None = None,
    ) -> None:
        super().__init__(id=id)
        self._scopes = scopes
        self._preview = preview
        self.request: Request | None = None  # the working copy
        self.saved: Request | None = None  # the collection's object
        self.dirty = False
        self.origin = ""  # "": a request of the collection; SCRATCH or FROM_HISTORY: no file yet
        self.last_preview: Preview | None = None
        self._settle: Timer | None = None  # a large request's preview, after a pause in typing

    def compose(self) -> ComposeResult:
        yield Static("", id="editor-empty")

    def on_mount(self) -> None:
        self.show_message(
            "Choose a request in the collection (enter), or press ctrl+n for a new one."
        )

    _body_ready = False  # the editing widgets are mounted (``build_body``)

    async def build_body(self) -> None:
        """Import and mount the editing widgets (TextAreas with syntax highlighting, tables,
        tabs). The screen calls this after its first paint: the tree is usable sooner, and the
        editor is hidden until a request is chosen anyway."""
        if self.query("#editor-body"):
            return
        from pigeon.tui.widgets.editor.editor_body import EditorBody

        await self.mount(EditorBody(lambda: self._scopes(self.request), id="editor-body"))
        self._body_ready = True

    # -- loading ------------------------------------------------------------------------------

    def show_message(self, text: str | Text) -> None:
        """No request to edit: show why (nothing chosen, or a broken file's error)."""
        self._stop_settling()
        self.request = self.saved = None
        self.dirty = False
        self.origin = ""
        self.query_one("#editor-empty", Static).update(text)
        self._editing(False)
        self.border_title = "Request"

    def show_broken(self, broken: BrokenFile) -> None:
        """A file that does not load was chosen: say where and why, and what to do."""
        self.show_message(
            Text.assemble(
                ("⚠ This file could not be loaded\n\n", "bold red"),
                (str(broken), "red"),
                "\n\nFix it in an editor; Pigeon never overwrites a file it cannot read. "
                "The collection reloads when you save another request, or with the "
                "palette's “Reload collection”.",
            )
        )

    def load(self, request: Request, origin: str = "") -> None:
        """Edit a copy of ``request`` (``origin``: ``SCRATCH`` or ``FROM_HISTORY`` for one that
        has no file yet)."""
        self.resume(copy.deepcopy(request), request, origin, origin == FROM_HISTORY)

    def resume(
        self, work: Request, saved: Request, origin: str, dirty: bool, part: str | None = None
    ) -> None:
        """Edit ``work``, the working copy of ``saved`` kept by a request tab, as it was left
        (``part``: the editor's tab to show; ``None``: the first for another request)."""
        if not self._body_ready:  # still being mounted: right after start-up
            self.call_after_refresh(self._resume_later, work, saved, origin, dirty, part)
            return
        self._stop_settling()
        another = self.saved is None or self.saved.id != saved.id
        self.saved = saved
        self.request = work
        self.origin = origin
        self.dirty = dirty
        self._editing(True)
        if part is not None:
            self.body.show_part(part)
        elif another:  # a new request starts on the first tab, as its tab strip does
            self.body.first_tab()
        self.body.show(work)
        self._update_title()
        self.refresh_preview()

    @property
    def part(self) -> str | None:
        """The id of the editor's tab on show (``tab-body``...), once built."""
        return self.body.part if self._body_ready else None

    def _editing(self, editing: bool) -> None:
        """Show the editing widgets or the message. Set on the two children, not as a class on
        the editor: a class restyles every widget in it, some 20 ms on the first request."""
        self.query_one("#editor-empty").display = not editing
        for body in self.query("#editor-body"):
            body.display = editing

    @property
    def body(self) -> Any:
        """The editing widgets (``EditorBody``), once mounted."""
        return self.query_one("#editor-body")

    def _resume_later(self, *args: Any) -> None:
        self.resume(*args)
        if self.request is not None:
            self.focus_url()
            self.post_message(self.Changed(self.request, self.dirty))

    def mark_saved(self, saved: Request) -> None:
        """After a save: the working copy is the new reference (and has a file)."""
        self.saved = saved
        self.dirty = False
        self.origin = ""
        self._update_title()

    def mark_unsaved(self) -> None:
        """Its file went away on disk: what the editor holds is unsaved now."""
        self.dirty = True
        self._update_title()

    @property
    def edited(self) -> bool:
        """Whether leaving would lose edits: ``dirty``, but for a copy from history as its
        entry sent it, which the history still holds."""
        if self.origin == FROM_HISTORY:
            return self.request is not None and self.request != self.saved
        return self.dirty

    # -- edits --------------------------------------------------------------------------------

    def on_url_bar_method_changed(self, event: UrlBar.MethodChanged) -> None:
        if self.request is not None:
            self.request.method = event.method
            self._edited()

    def on_url_bar_url_changed(self, event: UrlBar.UrlChanged) -> None:
        if self.request is not None:
            self.request.url = event.url
            self.body.url_changed()
            self._edited()

    def on_url_bar_curl_pasted(self, event: UrlBar.CurlPasted) -> None:
        """Turn the working copy into what the curl command sends; notes say what was lost."""
        event.stop()
        if self.request is None:
            return
        from pigeon.importers import ImportFailed
        from pigeon.importers.curl import adopt, parse_curl

        # Terminals paste line breaks as CR: a continued command must still read as one.
        command = event.command.replace("\r\n", "\n").replace("\r", "\n")
        command = command.lstrip().removeprefix("$").lstrip()
        try:
            result = parse_curl(command)
        except ImportFailed as exc:
            self.notify(f"Could not read the curl command: {exc}", severity="error")
            return
        if not result.requests:
            self.notify("The curl command holds no request", severity="error")
            return
        imported = result.requests[0][1]
        adopt(self.request, imported)
        self.body.show(self.request)
        self._edited()
        self.focus_url()
        lost = result.notes + (
            [f"{len(result.requests) - 1} more curl command(s) ignored"]
            if len(result.requests) > 1
            else []
        )
        summary = f"From curl: {imported.method} {imported.url}"
        if lost:
            self.notify(summary + "\nNot carried over:\n" + "\n".join(lost), severity="warning")
        else:
            self.notify(summary)

    def on_request_edited(self, event: RequestEdited) -> None:
        event.stop()
        self._edited()

    def load_variables_tab(self) -> None:
        """The request's variables were changed from outside (the variables pane)."""
        if self.request is not None:
            self.body.show_variables(self.request.variables)
            self._edited()

    def _edited(self) -> None:
        if self.request is None:
            return
        self.dirty = self.origin == FROM_HISTORY or self.request != self.saved
        self._update_title()
        self.body.show_counts(self.request)
        if len(self.request.body.content) < LARGE_BODY:
            self.refresh_preview()
        elif self._settle is None:  # the preview renders the whole body: not on every key
            self._settle = self.set_timer(TYPING_PAUSE, self._settled)
        else:
            self._settle.reset()
        self.post_message(self.Changed(self.request, self.dirty))

    def _stop_settling(self) -> None:
        """Another request is shown: its own preview replaces the one waited for."""
        if self._settle is not None:
            self._settle.stop()
            self._settle = None

    def _settled(self) -> None:
        """Typing paused in a large request: the preview follows, then what reads it."""
        self._settle = None
        if self.request is not None:
            self.refresh_preview()
            self.post_message(self.Changed(self.request, self.dirty))

    def refresh_preview(self) -> None:
        """Re-render the URL (after an edit, an environment switch, a script)."""
        if self.request is None:
            return
        p = self.last_preview = self._preview(self.request)
        self.body.show_preview(p.url, p.unresolved, p.warnings, p.error)

    def _update_title(self) -> None:
        if self.request is None:
            self.border_title = "Request"
            return
        mark = " •" if self.dirty else ""
        if self.origin == SCRATCH:
            self.border_title = f"Scratch request{mark}"
        else:
            origin = f" ({self.origin})" if self.origin else ""
            self.border_title = f"Request: {self.request.name}{origin}{mark}"

    def focus_url(self) -> None:
        if self.request is not None:
            url = self.query_one("#url", Input)
            url.focus()
            url.cursor_position = len(url.value)

    def focus_tab(self) -> None:
        """Focus what the open tab holds (a table, the body...), else the URL."""
        if self.request is None:
            return
        from textual.widgets import TabbedContent

        pane = self.query_one("#editor-tabs", TabbedContent).active_pane
        target = next((w for w in self.screen.focus_chain if pane in w.ancestors), None)
        if target is None:
            self.focus_url()
        else:
            target.focus()
