"""Saving the request in the editor, wherever it came from: a request of the collection is
saved to its file; a scratch request (ctrl+n) or a copy opened from history has no file yet,
so its save asks a name and a folder (the tree's highlighted one first, ``SaveNewScreen``) and
writes a new file there, or, for a copy whose request still exists, first says it would
replace that file (``SaveCopyScreen``).

Every path ends in ``then`` only once the request is saved, so "save, then switch away or
quit" never goes on after a save that was cancelled or refused.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import TYPE_CHECKING

from pigeon.model import Request
from pigeon.tui.widgets.editor.request_editor import FROM_HISTORY, SCRATCH

if TYPE_CHECKING:
    from pigeon.model import Folder
    from pigeon.session import Session
    from pigeon.tui.widgets.editor.request_editor import RequestEditor

Then = Callable[[], object]


class SaveAs:
    """The save behind ctrl+s and the unsaved-changes dialog's Save, for the request in
    ``editor``. ``folder_for_new`` is where a new file goes unless the user picks another
    (the tree's highlighted folder);
    ``adopted`` is told of a new file made; ``save_file`` saves a request that has a file
    (``False`` when it was refused)."""

    def __init__(
        self,
        session: Session,
        editor: RequestEditor,
        folder_for_new: Callable[[], Folder | None],
        adopted: Callable[[Request], object],
        save_file: Callable[[], bool],
    ) -> None:
        self.session, self.editor, self.save_file = session, editor, save_file
        self.folder_for_new, self.adopted = folder_for_new, adopted
        self.history_of = ""  # the id of the request the copy from history was sent from

    def save(self, then: Then | None = None) -> None:
        """Save the editor's request, then ``then``."""
        editor = self.editor
        if editor.request is None or (editor.request.path is not None and not editor.origin):
            if self.save_file() and then is not None:
                then()
            return
        original = self._original() if editor.origin == FROM_HISTORY else None
        if original is None:
            self._ask_name(then)
            return
        from pigeon.tui.dialogs.save_copy import SaveCopyScreen

        def answered(answer: str | None) -> None:
            if answer == "replace":
                self._replace(original, then)
            elif answer == "new":
                self._ask_name(then)

        where = self._where(original)
        self.editor.app.push_screen(SaveCopyScreen(original.name, where), answered)

    def _original(self) -> Request | None:
        """The collection's request the copy from history was sent from, if its file is
        still there."""
        found = next(
            (r for r in self.session.collection.requests() if r.id == self.history_of), None
        )
        return found if found is not None and found.path and found.path.is_file() else None

    def _where(self, request: Request) -> str:
        assert request.path is not None
        try:
            return request.path.relative_to(self.session.root).as_posix()
        except ValueError:
            return str(request.path)

    def _ask_name(self, then: Then | None) -> None:
        """Ask a name and a folder (the tree's highlighted one first), write the request as a
        new file there."""
        from pigeon import store
        from pigeon.tui.dialogs.choose import folder_choices
        from pigeon.tui.dialogs.save_new import SaveNewScreen

        collection = self.session.collection
        highlighted = self.folder_for_new()
        request = self.editor.request
        assert request is not None

        def named(answer: tuple[str, str] | None) -> None:
            if answer is None or self.editor.request is not request:
                return
            name, folder_id = answer
            folder = self.session.collection.find_folder(folder_id) if folder_id else None
            if folder_id and folder is None:  # the disk changed while the dialog was open
                self.editor.notify("Not saved: that folder is gone.", severity="error")
                return
            unsaved = copy.deepcopy(request)
            unsaved.name = name
            try:
                saved = store.add_request(self.session.collection, folder, unsaved)
            except Exception as exc:
                self.editor.notify(f"Not saved: {exc}", severity="error", timeout=10)
                return
            self._adopt(saved)
            self.editor.notify(f"Saved {self._where(saved)}")
            if then is not None:
                then()

        default = request.name if self.editor.origin != SCRATCH else ""
        folders = folder_choices(collection.items)
        here = highlighted.id if highlighted is not None else ""
        self.editor.app.push_screen(SaveNewScreen("Save request", default, folders, here), named)

    def _replace(self, original: Request, then: Then | None) -> None:
        """Write the copy over the file of the request it was sent from."""
        request = self.editor.request
        assert request is not None
        edited = copy.deepcopy(request)
        edited.path, edited.id = original.path, original.id
        try:
            saved = self.session.commit_request(edited)
        except Exception as exc:
            self.editor.notify(f"Not saved: {exc}", severity="error", timeout=10)
            return
        self._adopt(saved)
        self.editor.notify(f"Saved over {self._where(saved)}")
        if then is not None:
            then()

    def _adopt(self, saved: Request) -> None:
        """The editor's request is ``saved`` now: it has a file, and the tree shows it."""
        editor = self.editor
        if editor.request is not None:
            editor.request.name, editor.request.path, editor.request.id = (
                saved.name,
                saved.path,
                saved.id,
            )
        editor.mark_saved(saved)
        editor.refresh_preview()
        self.adopted(saved)
        if editor.request is not None:  # what it sees may differ in its folder
            editor.post_message(editor.Changed(editor.request, False))
