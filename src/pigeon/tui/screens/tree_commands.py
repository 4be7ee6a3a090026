"""Collection tree commands of the main screen: new, rename, duplicate, delete, move, for
requests and folders alike.

Every file change goes through a ``pigeon.store`` helper; a refusal becomes a message and the
model is left as the store left it. Renaming or moving a folder moves the files inside it, so
unsaved edits of the request being edited there are saved or discarded first, and the editor
follows that request to its new file.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from pigeon.model import Folder, Request
from pigeon.tui.widgets.collection_tree import CollectionTree
from pigeon.tui.widgets.request_editor import RequestEditor

if TYPE_CHECKING:
    from pigeon.session import Session

FAILED: Any = object()  # what _store_call returns when the store refused


class TreeCommands:
    """Mixed into ``MainScreen``; uses its ``session``, queries and dialogs."""

    session: Session
    query_one: Any
    notify: Any
    app: Any
    guard_unsaved: Any
    _refresh_variables: Any

    def _store_call(self, what: str, fn: Any, *args: Any) -> Any:
        """Call a store helper; a failure becomes a message (and ``FAILED``), never a crash."""
        try:
            return fn(*args)
        except Exception as exc:
            self.notify(f"{what} failed: {exc}", severity="error", timeout=8)
            return FAILED

    def _rebuild_tree(self, select: Path | None = None) -> None:
        self.query_one(CollectionTree).show_collection(self.session.collection, select)

    def _tree_new_request(self, item: Folder | Request | None) -> None:
        from pigeon import store
        from pigeon.tui.dialogs.prompt import PromptScreen

        folder = self.query_one(CollectionTree).folder_for_new()

        def named(name: str | None) -> None:
            if not name:
                return
            req = self._store_call(
                "New request", store.create_request, self.session.collection, folder, name
            )
            if req is not FAILED:
                self._rebuild_tree(req.path)
                self.guard_unsaved(lambda: self._open(req))

        where = f" in {folder.name}" if folder else ""
        self.app.push_screen(PromptScreen(f"New request{where}", placeholder="List users"), named)

    def _open(self, req: Request) -> None:
        editor = self.query_one(RequestEditor)
        editor.load(req)
        self._refresh_variables()
        editor.focus_url()

    def _tree_new_folder(self, item: Folder | Request | None) -> None:
        from pigeon import store
        from pigeon.tui.dialogs.prompt import PromptScreen

        parent = self.query_one(CollectionTree).folder_for_new()

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

    def _editing_inside(self, folder: Folder) -> bool:
        """Whether the request in the editor has its file inside ``folder``."""
        editor = self.query_one(RequestEditor)
        path = editor.request.path if editor.request is not None else None
        return path is not None and folder.path is not None and folder.path in path.parents

    def _follow_saved(self) -> None:
        """The request being edited moved on disk: its working copy takes the new file."""
        editor = self.query_one(RequestEditor)
        saved, work = editor.saved, editor.request
        if saved is None or work is None or work.path == saved.path:
            return
        work.path, work.id = saved.path, saved.id
        if not editor.dirty:
            editor.mark_saved(saved)
        editor.refresh_preview()

    def _change_folder(self, folder: Folder, what: str, fn: Any, *args: Any) -> None:
        """Rename or move ``folder`` through the store, once unsaved edits of a request inside
        it are saved or discarded; then the editor, the tree and the variables follow."""

        def change() -> None:
            self._store_call(what, fn, self.session.collection, folder, *args)
            # Even a refusal may come after part of the change (the directory moved, an
            # order list not written): show the model as it is.
            self._follow_saved()
            self._rebuild_tree(folder.path)
            self._refresh_variables()

        if self._editing_inside(folder):
            self.guard_unsaved(change)
        else:
            change()

    def _rename_folder(self, folder: Folder) -> None:
        from pigeon import store
        from pigeon.tui.dialogs.prompt import PromptScreen

        def named(name: str | None) -> None:
            if name and name != folder.name:
                self._change_folder(folder, "Rename", store.rename_folder, name)

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
        editor = self.query_one(RequestEditor)
        tree = self.query_one(CollectionTree)
        inside = self._editing_inside(folder)
        unsaved = editor.request.name if inside and editor.dirty and editor.request else None

        def answered(yes: bool | None) -> None:
            if not yes:
                return
            neighbour = tree.neighbour_of(folder)
            done = self._store_call("Delete", store.delete_folder, col, folder, contents)
            if done is FAILED:
                self._rebuild_tree(folder.path)
                return
            if self._editing_inside(folder) and editor.request is not None:
                tree.mark_dirty(editor.request.path, False)
                editor.show_message("The folder holding this request was deleted.")
            self._rebuild_tree(neighbour)
            self._refresh_variables()
            self.notify(f"Deleted “{folder.name}”.")

        self.app.push_screen(DeleteFolderScreen(folder.name, contents, col.root, unsaved), answered)

    def _parent_id(self, item: Folder | Request) -> str:
        """The id of the folder holding ``item`` ("": the top level)."""
        for folder in _folders(self.session.collection.items):
            if any(it is item for it in folder.items):
                return folder.id
        return ""

    # -- requests and folders -----------------------------------------------------------------

    def _tree_rename(self, item: Folder | Request | None) -> None:
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
            editor = self.query_one(RequestEditor)
            before = item.path
            renamed = self._store_call(
                "Rename", store.rename_request, self.session.collection, item, name
            )
            if renamed is FAILED and item.path == before:  # refused before the file moved
                return
            if editor.saved is item and editor.request is not None:
                editor.request.name, editor.request.path, editor.request.id = (
                    item.name,
                    item.path,
                    item.id,
                )
                if not editor.dirty:
                    editor.mark_saved(item)
                editor.refresh_preview()
            self._rebuild_tree(item.path)

        self.app.push_screen(PromptScreen("Rename request", item.name), named)

    def _tree_duplicate(self, item: Folder | Request | None) -> None:
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

    def _tree_delete(self, item: Folder | Request | None) -> None:
        from pigeon import store
        from pigeon.tui.dialogs.confirm import ConfirmScreen

        if isinstance(item, Folder):
            self._delete_folder(item)
            return
        if not isinstance(item, Request):
            self.notify("Choose a request or folder to delete.", severity="warning")
            return
        editor = self.query_one(RequestEditor)
        tree = self.query_one(CollectionTree)
        message = f"Delete “{item.name}” and its file?"
        if editor.saved is item and editor.dirty:
            message += " Its unsaved changes will be lost."

        def answered(yes: bool | None) -> None:
            if not yes:
                return
            neighbour = tree.neighbour_of(item)
            if (
                self._store_call("Delete", store.delete_request, self.session.collection, item)
                is FAILED
            ):
                return
            if editor.saved is item:
                tree.mark_dirty(item.path, False)
                editor.show_message("The request was deleted.")
            self._rebuild_tree(neighbour)
            self._refresh_variables()
            self.notify(f"Deleted “{item.name}”.")

        self.app.push_screen(ConfirmScreen("Delete request", message, yes="Delete"), answered)

    def _tree_move(self, item: Folder | Request | None) -> None:
        from pigeon import store
        from pigeon.tui.dialogs.choose import ChooseScreen

        if not isinstance(item, (Folder, Request)):
            self.notify("Choose a request or folder to move.", severity="warning")
            return
        folders: list[tuple[str, str]] = [("", "(top level)")]

        def visit(items: list[Folder | Request], depth: int) -> None:
            for it in items:
                if isinstance(it, Folder) and it is not item:  # never into itself
                    folders.append((it.id, "  " * depth + it.name))
                    visit(it.items, depth + 1)

        visit(self.session.collection.items, 0)
        here = self._parent_id(item)

        def chosen(folder_id: str | None) -> None:
            if folder_id is None or folder_id == here:
                return
            target = self.session.collection.find_folder(folder_id) if folder_id else None
            if isinstance(item, Folder):
                self._change_folder(item, "Move", store.move_folder, target)
                return
            before = item.path
            moved = self._store_call(
                "Move", store.move_request, self.session.collection, item, target
            )
            # Even a refusal may come after the file moved (an order list not written).
            if moved is not FAILED or item.path != before:
                editor = self.query_one(RequestEditor)
                if editor.saved is item and editor.request is not None:
                    editor.request.path, editor.request.id = item.path, item.id
                self._rebuild_tree(item.path)

        self.app.push_screen(ChooseScreen(f"Move “{item.name}” to", folders, here), chosen)


def _folders(items: list[Folder | Request]) -> list[Folder]:
    """Every folder among ``items``, at any depth."""
    out: list[Folder] = []
    for item in items:
        if isinstance(item, Folder):
            out += [item, *_folders(item.items)]
    return out
