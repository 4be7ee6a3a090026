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
    from pigeon.watch import DiskWatcher


class DiskWatch(Widget):
    """Starts the watcher's thread when mounted (after the first paint), stops it when
    unmounted (the app quitting included): no thread outlives the app."""

    DEFAULT_CSS = "DiskWatch { display: none; }"

    @dataclass
    class Changed(Message):
        """Files of the collection changed on disk: ``collection`` is it loaded afresh."""

        collection: Collection
        paths: set[Path]

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
            lambda col, paths: self.post_message(self.Changed(col, paths)),
            lambda message: self.post_message(self.Failed(message)),
        )
        self.watcher.start()

    def on_unmount(self) -> None:
        if self.watcher is not None:
            self.watcher.stop()
