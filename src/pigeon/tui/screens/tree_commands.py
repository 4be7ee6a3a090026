"""Collection tree commands of the main screen: new, rename, duplicate, delete, move.

Every file change goes through a ``pigeon.store`` helper; a refusal becomes a message and the
model is left as the store left it.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from pigeon.model import Folder, Request
from pigeon.tui.widgets.collection_tree import CollectionTree
from pigeon.tui.widgets.request_editor import RequestEditor

if TYPE_CHECKING:
    from pigeon.tui.session import Session

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
        from pigeon.tui.screens.prompt import PromptScreen

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
        from pigeon.tui.screens.prompt import PromptScreen

        parent = self.query_one(CollectionTree).folder_for_new()

        def named(name: str | None) -> None:
            if not name:
                return
            folder = self._store_call(
                "New folder", store.create_folder, self.session.collection, parent, name
            )
            if folder is not FAILED:
                self._rebuild_tree()

        self.app.push_screen(PromptScreen("New folder", placeholder="users"), named)

    def _tree_rename(self, item: Folder | Request | None) -> None:
        from pigeon import store
        from pigeon.tui.screens.prompt import PromptScreen

        if not isinstance(item, Request):
            self.notify("Choose a request to rename.", severity="warning")
            return

        def named(name: str | None) -> None:
            if not name or name == item.name:
                return
            editor = self.query_one(RequestEditor)
            renamed = self._store_call(
                "Rename", store.rename_request, self.session.collection, item, name
            )
            if renamed is FAILED:
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
        import copy

        from pigeon import store

        if not isinstance(item, Request):
            self.notify("Choose a request to duplicate.", severity="warning")
            return
        col = self.session.collection
        chain = self.session.chain_of(item)
        folder = chain[-1] if chain else None
        new = self._store_call(
            "Duplicate", store.create_request, col, folder, f"{item.name} copy", item.method
        )
        if new is FAILED:
            return
        path, rid, name = new.path, new.id, new.name
        clone = copy.deepcopy(item)
        clone.path, clone.id, clone.name = path, rid, name
        if self._store_call("Duplicate", store.save_request, clone) is FAILED:
            return
        for key, value in vars(clone).items():
            setattr(new, key, value)
        self._rebuild_tree(new.path)
        self.notify(f"Duplicated as “{name}”.")

    def _tree_delete(self, item: Folder | Request | None) -> None:
        from pigeon import store
        from pigeon.tui.screens.confirm import ConfirmScreen

        if not isinstance(item, Request):
            self.notify(
                "Choose a request to delete (folders are deleted from disk by hand).",
                severity="warning",
            )
            return

        def answered(yes: bool | None) -> None:
            if not yes:
                return
            if (
                self._store_call("Delete", store.delete_request, self.session.collection, item)
                is FAILED
            ):
                return
            editor = self.query_one(RequestEditor)
            if editor.saved is item:
                editor.show_message("The request was deleted.")
            self._rebuild_tree()
            self._refresh_variables()
            self.notify(f"Deleted “{item.name}”.")

        self.app.push_screen(
            ConfirmScreen("Delete request", f"Delete “{item.name}” and its file?", yes="Delete"),
            answered,
        )

    def _tree_move(self, item: Folder | Request | None) -> None:
        from pigeon import store
        from pigeon.tui.screens.choose import ChooseScreen

        if not isinstance(item, Request):
            self.notify("Choose a request to move.", severity="warning")
            return
        folders: list[tuple[str, str]] = [("", "(top level)")]

        def visit(items: list[Folder | Request], depth: int) -> None:
            for it in items:
                if isinstance(it, Folder):
                    folders.append((it.id, "  " * depth + it.name))
                    visit(it.items, depth + 1)

        visit(self.session.collection.items, 0)

        def chosen(folder_id: str | None) -> None:
            if folder_id is None:
                return
            target = self.session.collection.find_folder(folder_id) if folder_id else None
            moved = self._store_call(
                "Move", store.move_request, self.session.collection, item, target
            )
            if moved is not FAILED:
                editor = self.query_one(RequestEditor)
                if editor.saved is item and editor.request is not None:
                    editor.request.path, editor.request.id = item.path, item.id
                self._rebuild_tree(item.path)

        self.app.push_screen(ChooseScreen(f"Move “{item.name}” to", folders), chosen)
