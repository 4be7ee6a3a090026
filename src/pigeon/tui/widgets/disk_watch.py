"""An invisible widget that follows the collection's directory (``pigeon.watch``) for as long
as it is mounted, and posts what changed up to the screen."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from textual.message import Message
from textual.widget import Widget

if TYPE_CHECKING:
    from pigeon.model import Collection
    from pigeon.session import Session
    from pigeon.store.seen import Seen
    from pigeon.tui.widgets.collection.collection_tree import CollectionTree
    from pigeon.tui.widgets.editor.request_editor import RequestEditor
    from pigeon.watch import DiskWatcher


class DiskWatch(Widget):
    """Starts the watcher's thread when mounted (after the first paint), stops it when
    unmounted (the app quitting included): no thread outlives the app."""

    DEFAULT_CSS = "DiskWatch { display: none; }"

    @dataclass
    class Changed(Message):
        """Files of the collection changed on disk: ``collection`` is it loaded afresh, when
        the app knew its files as ``known`` says."""

        collection: Collection
        paths: set[Path]
        known: Seen

        def loaded_for(self, seen: Seen) -> Collection | None:
            """The collection loaded, or ``None`` (read the disk again) when the app has
            written since the load began (``seen``, its map now, is not ``known``): the load
            may miss that write, and what the app chose with it (an environment renamed)."""
            return self.collection if seen == self.known else None

    @dataclass
    class Failed(Message):
        """Watching stopped on an error (no inotify watches left, the folder gone)."""

        message: str

    def __init__(self, session: Session) -> None:
        super().__init__()
        self.session = session
        self.watcher: DiskWatcher | None = None

    def on_mount(self) -> None:
        from pigeon.watch import DiskWatcher

        session = self.session
        # post_message is thread-safe: the watcher's thread posts, the screen handles.
        self.watcher = DiskWatcher(
            session.root,
            lambda: session.collection.seen,
            lambda col, paths, known: self.post_message(self.Changed(col, paths, known)),
            lambda message: self.post_message(self.Failed(message)),
        )
        self.watcher.start()

    def on_unmount(self) -> None:
        if self.watcher is not None:
            self.watcher.stop()


def follow_renames(
    session: Session, editor: RequestEditor, tree: CollectionTree, paths: set[Path]
) -> None:
    """The open request's file renamed on disk in this batch (``pigeon.watch.renames``): the
    request follows it to its new name, unsaved edits and all, so a save writes the new file
    instead of bringing the old one back. Call it before the collection is reloaded."""
    from pigeon.store.read import rel_id
    from pigeon.watch import renames

    saved = editor.saved
    old = saved.path if saved is not None else None
    if old is None:
        return
    seen = session.collection.seen
    new = renames(seen, paths).get(old)
    if new is None:
        return
    seen[new] = seen.pop(old)
    for request in (saved, editor.request):
        if request is not None:
            request.path, request.id = new, rel_id(session.root, new)
    if editor.dirty:  # the tree's unsaved mark goes with it
        tree.mark_dirty(old, False)
        tree.mark_dirty(new, True)
