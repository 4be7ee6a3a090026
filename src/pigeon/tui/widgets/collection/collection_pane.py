"""The left pane of the main screen: the environment over the collection tree, and (f6) the
history of sends in the tree's place.

The pane does what the tree's keys ask (new, rename, duplicate, delete, move, for requests and
folders alike) and what the environment label's click asks. Every file change goes through a
``pigeon.store`` helper; a refusal becomes a message and the model is left as the store left
it. Renaming or moving a folder moves the files inside it, so unsaved edits of the requests
open there are saved or discarded first. The pane never touches the editor: what the screen
must redo is posted up (``RequestCreated``, ``RequestRenamed``, ``RequestMoved``,
``RequestDeleted``, ``CollectionChanged``, ``EnvironmentChanged``), and what it must know of
the open tabs it is handed as two functions.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from textual import work
from textual.app import ComposeResult
from textual.message import Message
from textual.widget import Widget

from pigeon.model import Folder, Request
from pigeon.tui.widgets.collection.collection_tree import CollectionTree
from pigeon.tui.widgets.collection.environment_commands import EnvironmentCommands
from pigeon.tui.widgets.collection.environment_label import EnvironmentLabel
from pigeon.tui.widgets.pane import Pane

if TYPE_CHECKING:
    from collections.abc import Iterator

    from textual.app import SystemCommand

    from pigeon.session import Session
    from pigeon.tui.widgets.collection.history_pane import HistoryPane

# Dialogs and the store are imported where they are used: they are not needed for the first
# paint, and start-up time is part of the product.

TREE_HINT = "n new · r rename · d delete · f1"
HISTORY_HINT = "f6 tree · f1 keys"

T = TypeVar("T")
Guard = Callable[[Path, Callable[[], None]], None]  # ask about unsaved edits inside, then
Unsaved = Callable[[Path], list[str]]  # the names of open requests with unsaved edits inside


class _Failed(Enum):
    FAILED = "failed"  # what _store_call returns when the store refused


FAILED = _Failed.FAILED


class CollectionPane(Pane):
    """The environment label and the collection tree (or the history list), and the file work
    behind the tree's keys. ``guard_inside`` is the screen's "save or discard the unsaved edits
    of the requests open inside this folder, then"; ``unsaved_in`` names those requests."""

    @dataclass
    class RequestCreated(Message):
        """A new request was made (``n``, ctrl+n): open it in the editor."""

        request: Request
        """The collection's new request."""

    @dataclass
    class RequestRenamed(Message):
        """``item`` was renamed (its file too: it was at ``before``)."""

        item: Request
        before: Path | None

    @dataclass
    class RequestMoved(Message):
        """``item`` was moved to another folder (its file was at ``before``)."""

        item: Request
        before: Path | None

    @dataclass
    class RequestDeleted(Message):
        """``item`` and its file (at ``before``) were deleted."""

        item: Request
        before: Path | None

    class CollectionChanged(Message):
        """A folder holding the edited request was renamed or moved, or a request or folder was
        deleted: what the open request sees (its folders, its variables) may have changed."""

    class EnvironmentChanged(Message):
        """Another environment was chosen (it is the session's now): previews and variables
        follow it."""

    def __init__(
        self,
        session: Session,
        guard_inside: Guard,
        unsaved_in: Unsaved,
        *,
        id: str | None = None,
    ) -> None:
        super().__init__(id=id)
        self.session = session
        self.guard_inside = guard_inside
        self.unsaved_in = unsaved_in
        self.environment_label = EnvironmentLabel(id="env")
        self.collection_tree = CollectionTree(id="tree")
        self.history: HistoryPane | None = None  # mounted the first time f6 shows it
        self.environments = EnvironmentCommands(session, self, self._set_environment)

    def compose(self) -> ComposeResult:
        yield self.environment_label
        yield self.collection_tree

    def on_mount(self) -> None:
        self.border_title = "Collection"
        self.border_subtitle = TREE_HINT
        self.environment_label.show(self.session.environment)
        # The rows on screen first; the screen has the rest added once its first frame is out.
        rows = self.app.size.height
        self.collection_tree.show_collection(self.session.collection, first_rows=rows)
        broken = self.session.collection.broken
        if broken:
            self.notify(
                f"{len(broken)} file(s) could not be loaded; they are marked ⚠ in the tree.",
                severity="warning",
            )

    def reload(self, select: Path | None = None) -> None:
        """Show the session's collection and environment again (``select``: what to
        highlight)."""
        self.environment_label.show(self.session.environment)
        self._rebuild_tree(select)

    def _rebuild_tree(self, select: Path | None = None) -> None:
        self.collection_tree.show_collection(self.session.collection, select)

    # -- what the screen shows in the tree ----------------------------------------------------

    def mark_dirty(self, path: Path | None, dirty: bool) -> None:
        """Mark the request at ``path`` as having unsaved edits, or not."""
        self.collection_tree.mark_dirty(path, dirty)

    def show_method(self, path: Path | None, method: str) -> None:
        self.collection_tree.show_method(path, method)

    def saved(self, request: Request, new_file: bool = False) -> None:
        """``request`` was saved to its file: unmarked, and labelled as it is now (a new file:
        shown and highlighted)."""
        if new_file:
            self.reload(request.path)
            return
        self.collection_tree.mark_dirty(request.path, False)
        self.collection_tree.update_request_label(request)

    def highlighted_path(self) -> Path | None:
        """The file or folder the tree's cursor is on."""
        cursor = self.collection_tree.cursor_node
        return getattr(cursor.data, "path", None) if cursor is not None else None

    def folder_for_new(self) -> Folder | None:
        """Where a new request goes: the highlighted folder, or the top level."""
        return self.collection_tree.folder_for_new()

    async def painted(self) -> None:
        """Once the tree has been drawn (the first frame waits for it)."""
        await self.collection_tree.painted()

    def fill_tree(self) -> None:
        """Add the tree's rows that start-up left out of the first frame."""
        self.collection_tree.fill()

    # -- history ------------------------------------------------------------------------------

    @property
    def showing_history(self) -> bool:
        """Whether the history list is shown in the tree's place."""
        return self.history is not None and self.history.display

    @property
    def shown(self) -> Widget:
        """What takes the keys: the history list when it is shown, else the tree."""
        history = self.history
        return history.list if history is not None and history.display else self.collection_tree

    async def toggle_history(self) -> bool:
        """Show the history in the tree's place, or the tree again, and focus it; ``False``
        when the pane is hidden (it is to be shown)."""
        await self.show_history(not (self.display and self.showing_history))
        if self.display:
            self.shown.focus()
        return bool(self.display)

    async def show_history(self, show: bool) -> None:
        """Show the history of sends in the tree's place (read again), or the tree."""
        if show:
            if self.history is None:
                from pigeon.tui.widgets.collection.history_pane import HistoryPane

                self.history = HistoryPane(self.session)
                await self.mount(self.history)
            self.history.reload()
        self.collection_tree.display = not show
        if self.history is not None:
            self.history.display = self.history.list.display = show
        self.border_title = "History" if show else "Collection"
        self.border_subtitle = HISTORY_HINT if show else TREE_HINT

    @work(group="history", exit_on_error=False)
    async def record(self, record: Callable[[], str | None]) -> None:
        """Record an exchange in the history (``record``: the session's), in a thread and
        outside the send's worker (cancelling a send must not cancel its record). A failure is
        reported once a session."""
        import asyncio

        problem = await asyncio.to_thread(record)
        if problem and not self.session.history_warned:
            self.session.history_warned = True
            self.notify(f"History not recorded: {problem}", severity="warning", timeout=8)
        self.reload_history()

    def reload_history(self) -> None:
        """Read the history again, when it has been shown."""
        if self.history is not None:
            self.history.reload()

    # -- environment --------------------------------------------------------------------------

    def on_environment_label_clicked(self, event: EnvironmentLabel.Clicked) -> None:
        event.stop()
        self.choose_environment()

    def environment_commands(self) -> Iterator[SystemCommand]:
        """The palette's commands for environments (new, rename, delete, use)."""
        yield from self.environments.commands()

    def choose_environment(self) -> None:
        """The chooser: enter uses an environment; n, r and d make, rename or delete one."""
        from pigeon.tui.dialogs.environments import EnvironmentAnswer, EnvironmentScreen

        def answered(answer: EnvironmentAnswer | None) -> None:
            if answer is None:
                return
            if answer.action == "choose":
                self._set_environment(answer.name)
            elif answer.action == "new":
                self.environments.new()
            elif answer.action == "rename":
                self.environments.rename(answer.name)
            elif answer.action == "delete":
                self.environments.delete(answer.name)

        screen = EnvironmentScreen(self.session.environment_names(), self.session.environment)
        self.app.push_screen(screen, answered)

    def _set_environment(self, name: str) -> None:
        """Use environment ``name`` and remember it for the next start."""
        if name == self.session.environment:
            return
        problem = self.session.choose_environment(name)
        self.environment_label.show(name)
        self.post_message(self.EnvironmentChanged())
        self.notify(f"Environment: {name or 'none'}")
        if problem:
            self.notify(f"Not remembered for next time: {problem}", severity="warning")

    # -- the tree's commands ------------------------------------------------------------------

    def on_collection_tree_new_request_requested(
        self, event: CollectionTree.NewRequestRequested
    ) -> None:
        event.stop()
        self.new_request()

    def on_collection_tree_new_folder_requested(
        self, event: CollectionTree.NewFolderRequested
    ) -> None:
        event.stop()
        self._new_folder()

    def on_collection_tree_rename_requested(self, event: CollectionTree.RenameRequested) -> None:
        event.stop()
        self._rename(event.item)

    def on_collection_tree_duplicate_requested(
        self, event: CollectionTree.DuplicateRequested
    ) -> None:
        event.stop()
        self._duplicate(event.item)

    def on_collection_tree_move_requested(self, event: CollectionTree.MoveRequested) -> None:
        event.stop()
        self._move(event.item)

    def on_collection_tree_delete_requested(self, event: CollectionTree.DeleteRequested) -> None:
        event.stop()
        self._delete(event.item)

    def _store_call(self, what: str, fn: Callable[..., T], *args: Any) -> T | _Failed:
        """Call a store helper; a failure becomes a message (and ``FAILED``), never a crash."""
        try:
            return fn(*args)
        except Exception as exc:
            self.notify(f"{what} failed: {exc}", severity="error", timeout=8)
            return FAILED

    def new_request(self) -> None:
        """Ask for a name, then make a request in the highlighted folder and open it (so a
        cancel never leaves a file behind)."""
        from pigeon import store
        from pigeon.tui.dialogs.prompt import PromptScreen

        folder = self.collection_tree.folder_for_new()

        def named(name: str | None) -> None:
            if not name:
                return
            req = self._store_call(
                "New request", store.create_request, self.session.collection, folder, name
            )
            if req is not FAILED:
                self._rebuild_tree(req.path)
                self.post_message(self.RequestCreated(req))

        where = f" in {folder.name}" if folder else ""
        self.app.push_screen(PromptScreen(f"New request{where}", placeholder="List users"), named)

    def _new_folder(self) -> None:
        from pigeon import store
        from pigeon.tui.dialogs.prompt import PromptScreen

        parent = self.collection_tree.folder_for_new()

        def named(name: str | None) -> None:
            if not name:
                return
            folder = self._store_call(
                "New folder", store.create_folder, self.session.collection, parent, name
            )
            if folder is not FAILED:
                self._rebuild_tree(folder.path)

        where = f" in {parent.name}" if parent else ""
        self.app.push_screen(PromptScreen(f"New folder{where}", placeholder="users"), named)

    # -- folders ------------------------------------------------------------------------------

    def _change_folder(self, folder: Folder, what: str, fn: Callable[..., Any], *args: Any) -> None:
        """Rename or move ``folder`` through the store, once unsaved edits of a request inside
        it are saved or discarded; then the editor, the tree and the variables follow."""

        def change() -> None:
            self._store_call(what, fn, self.session.collection, folder, *args)
            # Even a refusal may come after part of the change (the directory moved, an
            # order list not written): show the model as it is.
            self._rebuild_tree(folder.path)
            self.post_message(self.CollectionChanged())

        if folder.path is not None:
            self.guard_inside(folder.path, change)
        else:
            change()

    def _rename_folder(self, folder: Folder) -> None:
        from pigeon import store
        from pigeon.tui.dialogs.prompt import PromptScreen

        def named(name: str | None) -> None:
            current = self._current(folder) if name and name != folder.name else None
            if isinstance(current, Folder):
                self._change_folder(current, "Rename", store.rename_folder, name)

        self.app.push_screen(PromptScreen("Rename folder", folder.name), named)

    def _duplicate_folder(self, folder: Folder) -> None:
        from pigeon import store

        copied = self._store_call(
            "Duplicate", store.duplicate_folder, self.session.collection, folder
        )
        if copied is FAILED:
            return
        self._rebuild_tree(copied.path)
        self.notify(f"Duplicated as “{copied.name}”.")

    def _delete_folder(self, folder: Folder) -> None:
        from pigeon import store
        from pigeon.tui.dialogs.delete_folder import DeleteFolderScreen

        contents = self._store_call("Delete", store.folder_contents, folder)
        if contents is FAILED:
            return
        col = self.session.collection
        tree = self.collection_tree
        names = self.unsaved_in(folder.path) if folder.path is not None else []
        unsaved = "”, “".join(names) if names else None

        def answered(yes: bool | None) -> None:
            if not yes:
                return
            neighbour = tree.neighbour_of(folder)
            inside = [(r, r.path) for r in _requests(folder.items)]
            done = self._store_call("Delete", store.delete_folder, col, folder, contents)
            if done is FAILED:
                self._rebuild_tree(folder.path)
                return
            for request, path in inside:
                tree.mark_dirty(path, False)
                self.post_message(self.RequestDeleted(request, path))
            self._rebuild_tree(neighbour)
            self.post_message(self.CollectionChanged())
            self.notify(f"Deleted “{folder.name}”.")

        self.app.push_screen(DeleteFolderScreen(folder.name, contents, col.root, unsaved), answered)

    # -- requests and folders -----------------------------------------------------------------

    def _rename(self, item: Folder | Request | None) -> None:
        from pigeon import store
        from pigeon.tui.dialogs.prompt import PromptScreen

        if isinstance(item, Folder):
            self._rename_folder(item)
            return
        if not isinstance(item, Request):
            self.notify("Choose a request or folder to rename.", severity="warning")
            return

        def named(name: str | None) -> None:
            if not name or name == item.name:
                return
            before = item.path
            renamed = self._store_call(
                "Rename", store.rename_request, self.session.collection, item, name
            )
            if renamed is FAILED and item.path == before:  # refused before the file moved
                return
            self._rebuild_tree(item.path)
            self.post_message(self.RequestRenamed(item, before))

        self.app.push_screen(PromptScreen("Rename request", item.name), named)

    def _duplicate(self, item: Folder | Request | None) -> None:
        from pigeon import store

        if isinstance(item, Folder):
            self._duplicate_folder(item)
            return
        if not isinstance(item, Request):
            self.notify("Choose a request or folder to duplicate.", severity="warning")
            return
        new = self._store_call("Duplicate", store.duplicate_request, self.session.collection, item)
        if new is FAILED:
            return
        self._rebuild_tree(new.path)
        self.notify(f"Duplicated as “{new.name}”.")

    def _delete(self, item: Folder | Request | None) -> None:
        from pigeon import store
        from pigeon.tui.dialogs.confirm import ConfirmScreen

        if isinstance(item, Folder):
            self._delete_folder(item)
            return
        if not isinstance(item, Request):
            self.notify("Choose a request or folder to delete.", severity="warning")
            return
        tree = self.collection_tree
        message = f"Delete “{item.name}” and its file?"
        if item.path is not None and self.unsaved_in(item.path):
            message += " Its unsaved changes will be lost."

        def answered(yes: bool | None) -> None:
            if not yes:
                return
            neighbour, before = tree.neighbour_of(item), item.path
            if (
                self._store_call("Delete", store.delete_request, self.session.collection, item)
                is FAILED
            ):
                return
            tree.mark_dirty(before, False)
            self.post_message(self.RequestDeleted(item, before))
            self._rebuild_tree(neighbour)
            self.post_message(self.CollectionChanged())
            self.notify(f"Deleted “{item.name}”.")

        self.app.push_screen(ConfirmScreen("Delete request", message, yes="Delete"), answered)

    def _move(self, item: Folder | Request | None) -> None:
        from pigeon.tui.dialogs.choose import ChooseScreen, folder_choices

        if not isinstance(item, (Folder, Request)):
            self.notify("Choose a request or folder to move.", severity="warning")
            return
        folders = folder_choices(self.session.collection.items, leave_out=item.id)
        # The folder holding it, by id: the tree's item may be an older copy of the model's.
        here = item.id.rpartition("/")[0]

        def chosen(folder_id: str | None) -> None:
            if folder_id is None or folder_id == here:
                return
            moving = self._current(item)  # the collection may have been reloaded meanwhile
            if moving is None:
                return
            target = self.session.collection.find_folder(folder_id) if folder_id else None
            self._move_to(moving, target)

        title = f"Move “{item.name}” to"
        self.app.push_screen(ChooseScreen(title, folders, here, one_line=True), chosen)

    def _current(self, item: Folder | Request) -> Folder | Request | None:
        """``item`` as the collection holds it now: the disk watcher may have reloaded it
        while a dialog was open, and a command must act on the live model."""
        collection = self.session.collection
        if isinstance(item, Folder):
            now: Folder | Request | None = collection.find_folder(item.id)
        else:
            found = collection.find(item.id)
            now = found[1] if found is not None else None
        if now is None:
            self.notify(f"“{item.name}” is no longer in the collection.", severity="warning")
        return now

    def _move_to(self, item: Folder | Request, target: Folder | None) -> None:
        from pigeon import store

        if isinstance(item, Folder):
            self._change_folder(item, "Move", store.move_folder, target)
            return
        before = item.path
        moved = self._store_call("Move", store.move_request, self.session.collection, item, target)
        # Even a refusal may come after the file moved (an order list not written).
        if moved is not FAILED or item.path != before:
            self._rebuild_tree(item.path)
            self.post_message(self.RequestMoved(item, before))


def _requests(items: list[Folder | Request]) -> list[Request]:
    """Every request among ``items``, at any depth."""
    out: list[Request] = []
    for item in items:
        out += _requests(item.items) if isinstance(item, Folder) else [item]
    return out


def _folders(items: list[Folder | Request]) -> list[Folder]:
    """Every folder among ``items``, at any depth."""
    out: list[Folder] = []
    for item in items:
        if isinstance(item, Folder):
            out += [item, *_folders(item.items)]
    return out
