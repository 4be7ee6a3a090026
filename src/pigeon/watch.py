"""Following a collection's directory while the app shows it (DESIGN §2: the files are the
truth; an outside edit is never lost).

``DiskWatcher`` runs ``watchfiles`` in its own thread (nothing of it is imported before
``start``), batches a burst of changes (a ``git checkout``) into one, and keeps only news: a
collection file whose text is not what the app last read or wrote (``Collection.seen``), so
the app's own saves are not news. On news it loads the whole collection in that thread and
hands it on, with the map of what the app knew when the load began: a load handed on after
the app wrote again may miss that write, and the map says so (``renames`` says which of its
files were renamed). It only reads files: nothing in them is run. ``.pigeon/`` and other
dot-folders (``.git``) are not watched.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path

from pigeon.model import Collection
from pigeon.store import load_collection
from pigeon.store.seen import Seen, digest_of

DEBOUNCE_MS = 800  # the longest a burst is gathered before it is reported
STEP_MS = 100  # a burst ends after this long without a change


class DiskWatcher:
    """Watch ``root``; call ``changed(collection, paths, known)`` from the watcher's thread
    with a fresh load when a file changed that ``seen()`` (the open collection's map) does not
    know as it is now (``known``: a copy of that map, taken before the load), and
    ``failed(message)`` once if watching stops on an error."""

    def __init__(
        self,
        root: Path,
        seen: Callable[[], Seen],
        changed: Callable[[Collection, set[Path], Seen], object],
        failed: Callable[[str], object],
    ) -> None:
        self.root = root
        self._seen, self._changed, self._failed = seen, changed, failed
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="pigeon-watch", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 5.0) -> None:
        """Stop watching and wait (boundedly) for the thread to end."""
        self._stop.set()
        thread, self._thread = self._thread, None
        if thread is not None:
            thread.join(timeout)

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def _wanted(self, _change: object, path: str) -> bool:
        """Not in a dot-folder (``.pigeon``, ``.git``), not a dot-file but ``.env``."""
        try:
            parts = Path(path).relative_to(self.root).parts
        except ValueError:
            return False
        return not any(p.startswith(".") and p != ".env" for p in parts)

    def _run(self) -> None:
        try:
            from watchfiles import watch

            for changes in watch(
                self.root,
                watch_filter=self._wanted,
                debounce=DEBOUNCE_MS,
                step=STEP_MS,
                stop_event=self._stop,
                raise_interrupt=False,
                ignore_permission_denied=True,
            ):
                known = dict(self._seen())  # one copy: the app writes to it meanwhile
                news = self.news({Path(p) for _, p in changes}, known)
                if news and not self._stop.is_set():
                    self._changed(load_collection(self.root), news, known)
        except Exception as exc:
            if not self._stop.is_set():
                self._failed(f"{type(exc).__name__}: {exc}")

    def news(self, paths: set[Path], seen: Seen | None = None) -> set[Path]:
        """The paths whose change the open collection (``seen``: its map, else ``seen()``)
        does not know: a folder holding no file it knows, or a request, folder, environment
        or collection file (or ``.env``) whose text is not the one last read or written
        there."""
        seen = dict(self._seen()) if seen is None else seen
        known_dirs = {parent for p in seen for parent in p.parents}
        out = set()
        for path in paths:
            if path.is_dir():
                if path not in known_dirs:  # a folder the app made holds files it recorded
                    out.add(path)
            elif path.suffix == ".toml" or path.name == ".env" or path in seen:
                if digest_of(path) != seen.get(path):
                    out.add(path)
            elif not path.exists():
                out.add(path)  # perhaps a folder that went away
        return out


def renames(seen: Seen, paths: set[Path]) -> dict[Path, Path]:
    """The files of one batch of changes that were renamed (``git mv``, a rename in a file
    manager): ``{old: new}`` for a known file gone from ``old`` when a file new to ``seen``
    appeared in the same batch with the very text last read at ``old``. A text that two new
    files share, or two gone files shared, names no rename: which went where is not known."""
    gone: dict[str, list[Path]] = {}
    for path in paths:
        if path in seen and not path.exists():
            gone.setdefault(seen[path], []).append(path)
    if not gone:
        return {}
    came: dict[str, list[Path]] = {}
    for path in paths:
        if path not in seen and path.suffix == ".toml":
            text_digest = digest_of(path)
            if text_digest is not None and text_digest in gone:
                came.setdefault(text_digest, []).append(path)
    return {gone[d][0]: new[0] for d, new in came.items() if len(new) == 1 and len(gone[d]) == 1}
