"""Where requests renamed or moved through the app went (DESIGN §7), so a history entry sent from
the old id still finds its request (``.pigeon/renames.json``, git-ignored, never written
through a link: ``files.private_dir``).

The file maps each old id to the id it has now (chains are folded as they are written, so a
lookup is one step). It is read as hostile input: capped, and anything but a string-to-string
map is ignored. It keeps the latest ``KEEP`` renames, so it stays small however long it is used.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

from pigeon.files import LinkedOut, atomic_write, private_dir, read_capped

RENAMES_FILE = "renames.json"
KEEP = 2000
_LIMIT = 1024 * 1024


def renamed_ids(root: Path) -> dict[str, str]:
    """Old request id -> the id it has now, for the collection at ``root`` (``{}``: none)."""
    try:
        path = private_dir(root, create=False) / RENAMES_FILE
        if path.is_symlink() or not path.is_file():
            return {}
        data = json.loads(read_capped(path, _LIMIT).decode("utf-8"))
    except (OSError, LinkedOut, UnicodeDecodeError, ValueError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {k: v for k, v in data.items() if isinstance(k, str) and isinstance(v, str)}


def note_renamed(root: Path, moves: Iterable[tuple[str, str]]) -> None:
    """Remember that each request ``old`` id is now ``new``. Never raises: a rename is done
    whether or not this can be written (the history then shows the old id)."""
    moves = [(old, new) for old, new in moves if old and new and old != new]
    if not moves:
        return
    ids = renamed_ids(root)
    for old, new in moves:
        ids = {k: (new if v == old else v) for k, v in ids.items()}  # fold chains
        ids.pop(new, None)  # a request back at an old id is itself again
        ids.pop(old, None)
        ids[old] = new
    ids = {k: v for k, v in ids.items() if k != v}
    kept = dict(list(ids.items())[-KEEP:])
    try:
        path = private_dir(root) / RENAMES_FILE
        atomic_write(path, json.dumps(kept, ensure_ascii=False, indent=0) + "\n", durable=False)
    except (OSError, LinkedOut):
        return
