"""The requests open in tabs over the editor, and the flow that keeps their edits: save (a
scratch request or a copy from history asks a name, ``SaveAs``), the unsaved-changes question
before a tab closes or the app leaves, and whose version wins when a file changed on disk.

One ``RequestEditor`` shows the tab on show: each tab keeps its own working copy, unsaved
state and response (``request_tab``), and switching hands the editor the other one. A request
opened from the tree goes to the preview tab (italic), which the next one replaces, until it is
edited or kept. The tabs are remembered per collection (``Session.remember_tabs``).

What the screen must do is posted up: ``Switched`` (show that tab's response and variables),
``Saved`` (the tree follows), ``Marked`` (a file's unsaved mark) and ``DiskWanted`` (read the
collection again). A tab that closes stops its own send.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.message import Message

from pigeon.model import Folder, Request
from pigeon.terminal import printable
from pigeon.tui.widgets.editor.request_editor import FROM_HISTORY, SCRATCH, RequestEditor
from pigeon.tui.widgets.editor.request_tab import RequestTab
from pigeon.tui.widgets.editor.save_as import SaveAs
from pigeon.tui.widgets.editor.tab_strip import TabStrip

if TYPE_CHECKING:
    from pigeon.exchange import Exchange
    from pigeon.scopes import Scopes
    from pigeon.session import Preview, Session
    from pigeon.store import ChangedOnDisk

Then = Callable[[], object]
EMPTY = "Choose a request in the collection (enter), or press ctrl+n for a new one."


class OpenRequests(Vertical):
    """The tab strip and the editor showing the tab on show."""

    DEFAULT_CSS = """
    OpenRequests {
        height: 1fr;
        min-height: 9;
    }
    """

    @dataclass
    class Switched(Message):
        """Another tab is on show (``None``: none is)."""

        tab: RequestTab | None

    @dataclass
    class Saved(Message):
        """``saved`` was written to its file (``new_file``: a file made by this save)."""

        saved: Request
        new_file: bool

    @dataclass
    class Marked(Message):
        """The request at ``path`` has unsaved edits in a tab, or no longer has."""

        path: Path
        dirty: bool

    @dataclass
    class DiskWanted(Message):
        """The collection is to be read again from disk (``open_path``: the file the tab on
        show is to hold then)."""

        open_path: Path | None

    def __init__(
        self,
        session: Session,
        scopes: Callable[[Request | None], Scopes | None],
        preview: Callable[[Request], Preview],
        folder_for_new: Callable[[], Folder | None],
        *,
        id: str | None = None,
    ) -> None:
        super().__init__(id=id)
        self.session = session
        self.editor = RequestEditor(scopes, preview, id="editor")
        self.strip = TabStrip(id="tab-strip")
        self.strip.display = False  # shown while a tab is open
        self.tabs: list[RequestTab] = []
        self.current: RequestTab | None = None
        self._remembered: tuple[list[Path], int, int] | None = None  # last written
        self.save_as = SaveAs(session, self.editor, folder_for_new, self._adopted, self._save_file)

    def compose(self) -> ComposeResult:
        yield self.strip
        yield self.editor

    # -- the tabs -----------------------------------------------------------------------------

    def _capture(self) -> None:
        """The tab on show takes what its editor holds (the working copy is shared)."""
        tab, editor = self.current, self.editor
        if tab is None or editor.request is None:
            return
        tab.request, tab.saved = editor.request, editor.saved or tab.saved
        tab.origin, tab.dirty = editor.origin, editor.dirty
        tab.part = editor.part
        tab.history_of = self.save_as.history_of if tab.origin == FROM_HISTORY else ""

    def show_tab(self, tab: RequestTab | None, message: str = EMPTY) -> None:
        """Put ``tab`` on show in the editor (``None``: ``message`` instead)."""
        self._capture()
        self.current = tab
        if tab is None:
            self.editor.show_message(message)
        else:
            self.save_as.history_of = tab.history_of
            self.editor.resume(tab.request, tab.saved, tab.origin, tab.dirty, tab.part)
        self._redraw()
        self.post_message(self.Switched(tab))

    def _redraw(self) -> None:
        # The strip's own display, not a class here: a class on this container restyled the
        # whole editor under it on the first tab opened and the last one closed.
        self.strip.display = bool(self.tabs)
        active = self.tabs.index(self.current) if self.current in self.tabs else None
        self.strip.show([t.label for t in self.tabs], active)
        self._remember()

    def _remember(self) -> None:
        files = [t for t in self.tabs if not t.origin and t.saved.path is not None]
        active = files.index(self.current) if self.current in files else 0
        preview = next((i for i, t in enumerate(files) if t.preview), -1)
        paths = [t.saved.path for t in files if t.saved.path is not None]
        remembered = (paths, active, preview)
        if remembered != self._remembered:
            self._remembered = remembered
            self.session.remember_tabs(paths, active, preview)

    def reopen(self) -> None:
        """Open the tabs remembered from the last time the app had this collection."""
        requests, active, preview = self.session.remembered_tabs()
        self._remembered = ([r.path for r in requests if r.path], active, preview)
        self.tabs = [
            RequestTab(copy.deepcopy(r), r, preview=i == preview) for i, r in enumerate(requests)
        ]
        if self.tabs:
            self.show_tab(self.tabs[active])

    def open(
        self, request: Request, origin: str = "", *, preview: bool = False, history_of: str = ""
    ) -> RequestTab:
        """Show ``request`` in a tab: its own when it has one (opened again from the tree, a
        preview tab is kept), else a new one, or the preview tab's place (``preview``)."""
        self._capture()
        if not origin:
            mine = next((t for t in self.tabs if self._holds(t, request)), None)
            if mine is not None:
                if mine is self.current and mine.preview:
                    mine.preview = False
                self.show_tab(mine)
                return mine
        tab = RequestTab(copy.deepcopy(request), request, origin, origin == FROM_HISTORY)
        tab.preview, tab.history_of = preview, history_of
        old = next((t for t in self.tabs if t.preview and not t.edited), None)
        if preview and old is not None and old.in_flight is None:
            self.tabs[self.tabs.index(old)] = tab
        else:
            at = self.tabs.index(self.current) + 1 if self.current in self.tabs else len(self.tabs)
            self.tabs.insert(at, tab)
        self.show_tab(tab)
        return tab

    @staticmethod
    def _holds(tab: RequestTab, request: Request) -> bool:
        if tab.origin:
            return False
        return tab.saved is request or (request.path is not None and tab.saved.path == request.path)

    def new_scratch(self) -> None:
        """A new tab with an unnamed request that has no file yet."""
        self.open(Request(name="Scratch"), SCRATCH)
        self.editor.focus_url()

    def open_copy(
        self, request: Request, sent_from: str, exchange: Exchange | None = None
    ) -> RequestTab:
        """Open ``request``, made from a history entry of request ``sent_from`` (an id, or
        ``""``), as an unsaved copy in the preview tab, with the entry's ``exchange`` as its
        response."""
        tab = self.open(request, FROM_HISTORY, preview=True, history_of=sent_from)
        if exchange is not None:
            tab.last_exchange = exchange  # a reconnect sends this entry's copy, in the editor
            tab.shown = ("show_exchange", (exchange,))  # shown as the tab comes on show
        return tab

    def keep(self) -> None:
        """The preview tab on show stays open when the next request is opened."""
        if self.current is not None and self.current.preview:
            self.current.preview = False
            self._redraw()

    def step(self, by: int) -> None:
        """Show the next (``by=1``) or previous (``-1``) tab, round the end."""
        if not self.tabs:
            return
        at = self.tabs.index(self.current) if self.current in self.tabs else -by
        self.show_tab(self.tabs[(at + by) % len(self.tabs)])

    def close(self, tab: RequestTab | None = None, then: Then | None = None) -> None:
        """Close ``tab`` (the one on show), once its unsaved edits are saved or discarded."""
        tab = tab or self.current
        if tab is None:
            return

        def close_it() -> None:
            self._drop(tab)
            if then is not None:
                then()

        self.guard(tab, close_it)

    def _drop(self, tab: RequestTab) -> None:
        """Close ``tab`` now, edits and all; the one beside it goes on show."""
        if tab not in self.tabs:
            return
        self._capture()
        at = self.tabs.index(tab)
        self.tabs.remove(tab)
        if tab.dirty and not tab.origin and tab.saved.path is not None:
            self.post_message(self.Marked(tab.saved.path, False))
        for worker in tab.sending():
            worker.cancel()
        if tab is self.current:
            self.current = None  # nothing to capture: it is gone
            after = self.tabs[min(at, len(self.tabs) - 1)] if self.tabs else None
            self.show_tab(after)
        else:
            self._redraw()

    def on_request_editor_changed(self, event: RequestEditor.Changed) -> None:
        """An edit (it bubbles on to the screen): the tab keeps it, a preview tab stays."""
        tab = self.current
        self._capture()
        if tab is not None and tab.preview and tab.edited:
            tab.preview = False
        self._redraw()

    def on_tab_strip_chosen(self, event: TabStrip.Chosen) -> None:
        event.stop()
        if 0 <= event.index < len(self.tabs):
            self.show_tab(self.tabs[event.index])

    # -- the collection's changes -------------------------------------------------------------

    def _tabs_of(self, item: Request, before: Path | None = None) -> list[RequestTab]:
        return [
            t
            for t in self.tabs
            if not t.origin and (t.saved is item or (before is not None and t.saved.path == before))
        ]

    def follow_file(self, item: Request, before: Path | None, deleted: bool = False) -> None:
        """``item`` was renamed or moved (from ``before``): its tabs' working copies take its
        new name and file. ``deleted``: it is gone, and its tabs close, edits and all (the
        delete asked)."""
        self._capture()
        for tab in self._tabs_of(item, before):
            if deleted:
                self._drop(tab)
                continue
            tab.saved = item
            tab.request.name, tab.request.path, tab.request.id = item.name, item.path, item.id
        self._refresh_current()

    def follow_files(self) -> None:
        """A folder was renamed or moved: each tab of a request inside takes its new file."""
        self._capture()
        for tab in self.tabs:
            work, saved = tab.request, tab.saved
            if not tab.origin and saved.path is not None and work.path != saved.path:
                work.path, work.id = saved.path, saved.id
        self._refresh_current()

    def _refresh_current(self) -> None:
        tab = self.current
        if tab is not None and not tab.dirty and not tab.origin:
            self.editor.mark_saved(tab.saved)
        if tab is not None:
            self.editor.refresh_preview()
        self._redraw()

    def inside(self, folder: Path) -> list[RequestTab]:
        """The tabs of requests whose files are inside ``folder``."""
        self._capture()
        return [
            t for t in self.tabs if t.request.path is not None and folder in t.request.path.parents
        ]

    # -- unsaved edits ------------------------------------------------------------------------

    def guard(self, tab: RequestTab | None, then: Then) -> None:
        """Run ``then`` once ``tab``'s unsaved edits are saved or discarded (or not at all:
        cancel, the dialog's first choice is Save). The tab is put on show to be asked about."""
        from pigeon.tui.dialogs.confirm import UnsavedScreen

        self._capture()
        if tab is None or not tab.edited:
            then()
            return
        if tab is not self.current:
            self.show_tab(tab)

        def answered(answer: str | None) -> None:
            if answer == "save":
                self.save(then)
            elif answer == "discard":
                self.discard(tab)
                then()

        self.app.push_screen(UnsavedScreen(f"“{tab.request.name}”"), answered)

    def guard_all(self, then: Then, tabs: list[RequestTab] | None = None) -> None:
        """Ask about each tab with unsaved edits in turn (``tabs``: only these), then ``then``."""
        self._capture()
        waiting = [t for t in (self.tabs if tabs is None else tabs) if t.edited and t in self.tabs]
        if not waiting:
            then()
            return
        first, rest = waiting[0], waiting[1:]
        self.guard(first, lambda: self.guard_all(then, rest))

    def discard(self, tab: RequestTab) -> None:
        """Forget ``tab``'s edits: its working copy is the saved request again."""
        if tab.saved.path is not None and not tab.origin:
            self.post_message(self.Marked(tab.saved.path, False))
        tab.request, tab.dirty = copy.deepcopy(tab.saved), tab.origin == FROM_HISTORY
        if tab is self.current:
            self.editor.load(tab.saved, tab.origin)
            self._capture()
        self._redraw()

    def guard_inside(self, folder: Path, then: Callable[[], None]) -> None:
        """Ask about the unsaved edits of each tab whose file is inside ``folder``, then."""
        self.guard_all(then, self.inside(folder))

    def unsaved_in(self, path: Path) -> list[str]:
        """The names of the requests with unsaved edits at ``path`` or inside it."""
        tabs = [t for t in self.tabs if t.saved.path == path] + self.inside(path)
        return [t.request.name for t in tabs if t.dirty and not t.origin]

    # -- save ---------------------------------------------------------------------------------

    def save(self, then: Then | None = None) -> None:
        """Save the tab on show, then ``then``."""
        self.save_as.save(then)

    def _save_file(self, force: bool = False) -> bool:
        """Save the request on show to its file; ``False`` (with a message) when it could not
        be. A file changed on disk since it was read is overwritten only when ``force``; else
        the user is asked whose version wins."""
        from pigeon.store import ChangedOnDisk

        editor = self.editor
        if editor.request is None:
            self.notify("Nothing to save: choose a request first.", severity="warning")
            return False
        try:
            saved = self.session.commit_request(editor.request, force)
        except ChangedOnDisk as exc:
            self._ask_whose(exc)
            return False
        except Exception as exc:
            self.notify(f"Not saved: {exc}", severity="error", timeout=10)
            return False
        editor.mark_saved(saved)
        self._capture()
        self._redraw()
        self.post_message(self.Saved(saved, False))
        self.notify(f"Saved {saved.path.name if saved.path else saved.name}")
        return True

    def save_example(self, exchange: Exchange, name: str) -> None:
        """Save a response as an example of the request on show, into its file at once (the
        tab's other edits stay unsaved): secrets masked, the body capped (``mock.capture``)."""
        from pigeon.mock.capture import MAX_SAVED, capture
        from pigeon.session import put_example

        editor, session = self.editor, self.session
        work, saved = editor.request, editor.saved
        if work is None or saved is None or editor.origin or saved.path is None:
            self.notify("Save the request first: an example goes in its file.", severity="warning")
            return
        if work.id != exchange.request.request_id:
            self.notify("This response is another request's.", severity="warning")
            return
        got = capture(exchange, name, session.secret_values())
        try:
            session.save_example(saved, got.example)
        except Exception as exc:  # a file changed on disk is not overwritten: reload first
            self.notify(f"Example not saved: {exc}", severity="error", timeout=10)
            return
        put_example(work.examples, copy.deepcopy(got.example))
        editor.body.show(work)
        notes = [f"Saved example {name!r} in {printable(saved.path.name)}; pigeon mock serves it."]
        if got.binary:
            notes.append("The body is not text: the example keeps the status and headers.")
        elif got.cut:
            notes.append(f"The body was cut to its first {MAX_SAVED // 1024} KB.")
        if len(notes) > 1:
            self.notify(" ".join(notes), markup=False, severity="warning")
        else:
            self.notify(notes[0], markup=False)

    def _adopted(self, saved: Request) -> None:
        """A save made a new file for the request on show."""
        self._capture()
        self._redraw()
        self.post_message(self.Saved(saved, True))

    def _ask_whose(self, exc: ChangedOnDisk) -> None:
        """The file of the request on show changed (or went away) on disk since it was read."""
        from pigeon import store
        from pigeon.tui.dialogs.changed_on_disk import ChangedOnDiskScreen

        editor, tab = self.editor, self.current
        mine = editor.request

        def answered(answer: str | None) -> None:
            if answer is None or mine is None or editor.request is not mine or tab is None:
                return  # escape: nothing written, the edits stay
            if answer == "mine":
                if self._save_file(force=True):
                    self.post_message(self.DiskWanted(None))
                return
            self.post_message(self.Marked(exc.path, False))
            if answer == "beside":
                try:
                    copied = store.write_beside(exc.path, store.request_to_toml(mine))
                except Exception as error:
                    self.notify(f"Not saved: {error}", severity="error", timeout=10)
                    return
                theirs = printable(exc.path.name)
                self.notify(
                    f"Saved yours as {printable(copied.name)}; {theirs} is theirs.", markup=False
                )
                tab.dirty = editor.dirty = False
                self.post_message(self.DiskWanted(exc.path))  # the copy is no request until merged
            elif exc.deleted:  # theirs: nothing, the file was deleted
                self._drop(tab)
                self.notify(f"{printable(exc.path.name)} was deleted on disk.", markup=False)
                self.post_message(self.DiskWanted(None))
            else:  # theirs: the disk's version
                tab.dirty = editor.dirty = False
                self.post_message(self.DiskWanted(exc.path))

        self.app.push_screen(ChangedOnDiskScreen(exc.path.name, exc.deleted), answered)

    # -- the disk: the files are the truth ------------------------------------------------------

    def seen(self) -> dict[Path, Any]:
        """What the session had read of each tab's file, before it reads them again."""
        self._capture()
        seen = self.session.collection.seen
        paths = [t.saved.path for t in self.tabs if not t.origin and t.saved.path is not None]
        return {p: seen[p] for p in paths if p in seen}

    def follow_disk(self, before: dict[Path, Any], open_path: Path | None = None) -> None:
        """The collection was read again: a tab follows its file when it has no unsaved edits;
        with them it keeps them, and its save asks whose version wins. ``before``: ``seen``,
        as it was; ``open_path``: the file the tab on show holds now."""
        self._capture()
        collection = self.session.collection
        by_path = {r.path: r for r in collection.requests() if r.path is not None}
        current, work = self.current, self.editor.request
        if open_path is not None and current is not None and open_path in by_path:
            self._reload(current, by_path[open_path])
        for tab in self.tabs:
            base = tab.saved.path if not tab.origin else None
            if base is None or (tab is current and base == open_path):
                continue
            reopened, old = by_path.get(base), before.get(base)
            changed = old is not None and collection.seen.get(base) != old
            name = printable(base.name)
            if tab.dirty or reopened is None:
                if old is not None:  # the edits stand on what was read: a save asks
                    collection.seen[base] = old
                if changed and reopened is None:
                    tab.dirty = True
                    broken = any(b.path == base for b in collection.broken)
                    why = "no longer loads" if broken else "was deleted on disk"
                    self.notify(f"{name} {why}: yours is kept unsaved.", markup=False)
                elif changed:
                    self.notify(
                        f"{name} changed on disk: your unsaved edits are kept.", markup=False
                    )
            elif reopened != tab.saved:
                self._reload(tab, reopened)
                if changed:
                    self.notify(f"{name} changed on disk: reloaded.", markup=False)
            else:
                tab.saved = reopened
        if current is None:  # the editor shows a message (a broken file's): it stays
            self._redraw()
        elif current.request is work:  # the editor keeps its widgets
            self.editor.saved = current.saved
            if current.dirty and not self.editor.dirty:
                self.editor.mark_unsaved()
            self._redraw()
        else:
            self.current = None  # captured: shown afresh from the tab
            self.show_tab(current)

    @staticmethod
    def _reload(tab: RequestTab, request: Request) -> None:
        """``tab`` holds ``request`` as its file now holds it."""
        tab.request, tab.saved, tab.origin, tab.dirty = copy.deepcopy(request), request, "", False

    # -- what the screen asks -----------------------------------------------------------------

    @property
    def request(self) -> Request | None:
        """The working copy on show."""
        return self.editor.request

    def unsaved_paths(self) -> list[Path]:
        self._capture()
        return [t.saved.path for t in self.tabs if t.dirty and t.saved.path and not t.origin]
