"""Following the collection's directory (``pigeon.watch``) while the main screen shows it,
and posting what changed to that screen."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from textual.message import Message

if TYPE_CHECKING:
    from textual.message_pump import MessagePump

    from pigeon.model import Collection
    from pigeon.session import Session
    from pigeon.store.seen import Seen
    from pigeon.tui.widgets.collection.collection_tree import CollectionTree
    from pigeon.tui.widgets.editor.request_editor import RequestEditor
    from pigeon.watch import DiskWatcher


class DiskWatch:
    """The watcher's thread, from ``start`` (after the first paint) to ``stop`` (when the
    screen goes, the app quitting included): no thread outlives the app. Not a widget: the
    invisible widget it was, mounted after the first frame, cost a start some 17 ms of CPU (of
    about 190) in styling and layout, for nothing shown."""

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

    def __init__(self, session: Session, screen: MessagePump) -> None:
        self.session, self.screen = session, screen
        self.watcher: DiskWatcher | None = None

    def start(self) -> None:
        from pigeon.watch import DiskWatcher

        session, screen = self.session, self.screen
        # post_message is thread-safe: the watcher's thread posts, the screen handles.
        self.watcher = DiskWatcher(
            session.root,
            lambda: session.collection.seen,
            lambda col, paths, known: screen.post_message(self.Changed(col, paths, known)),
            lambda message: screen.post_message(self.Failed(message)),
        )
        self.watcher.start()

    def stop(self) -> None:
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
