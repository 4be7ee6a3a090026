"""What the app last read or wrote of each file, so an outside edit is never overwritten
unknowingly (DESIGN §2: a file changed on disk since it was loaded is never overwritten
without asking).

The loader records a digest of every file it reads in ``Collection.seen``; a save given that
map refuses, with ``ChangedOnDisk``, to replace a file whose text is no longer the one
recorded (or that is gone), and records what it wrote; the tree's file commands record what
they write and move (``record_write``, ``record_move``). The headless commands pass no map
and keep their own rules. ``write_beside`` writes a version next to a file under a free name
that no loader reads: the collection lists it as a conflict until it is merged and deleted.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

from pigeon.errors import SaveError
from pigeon.files import create_exclusive

Seen = dict[Path, str]  # path -> digest of the text last read or written there


def digest(text: str) -> str:
    return hashlib.blake2b(text.encode("utf-8"), digest_size=16).hexdigest()


def digest_of(path: Path) -> str | None:
    """The digest of the file's text now, ``None`` when it is not a readable text file."""
    from pigeon.tomltext import read_text

    try:
        return digest(read_text(path)) if path.is_file() else None
    except Exception:
        return None


class ChangedOnDisk(SaveError):
    """A save refused because the file changed (or went away) on disk since it was read."""

    def __init__(self, path: Path, deleted: bool = False) -> None:
        self.path, self.deleted = path, deleted
        what = "was deleted" if deleted else "changed"
        super().__init__(f"not saved: {path} {what} on disk since it was loaded")


def check(seen: Seen | None, path: Path, text: str | None) -> None:
    """Refuse to replace ``path`` (its text now: ``text``; ``None``: no file) when it is not
    what was last read or written there. A file never seen is not checked."""
    if seen is None or path not in seen:
        return
    if text is None:
        raise ChangedOnDisk(path, deleted=True)
    if digest(text) != seen[path]:
        raise ChangedOnDisk(path)


def record_write(seen: Seen, path: Path, before: str | None, after: str) -> None:
    """The app replaced ``before`` (``None``: no file) at ``path`` with ``after``: record it
    when ``before`` was what the app knew there, so an outside edit merged into stays news."""
    known = seen.get(path)
    if known == (None if before is None else digest(before)):
        seen[path] = digest(after)


def record_move(seen: Seen, old: Path, new: Path) -> None:
    """Files moved from ``old`` (a file or a folder) to ``new``: what was known moves too."""
    for path in [p for p in seen if p == old or old in p.parents]:
        seen[new / path.relative_to(old)] = seen.pop(path)


# A copy written beside a file: ``list-users.toml.mine``, ``collection.toml.mine-2``.
BESIDE_SUFFIX = ".mine"
_BESIDE_RE = re.compile(r"(.+\.toml)\.mine(?:-\d+)?")


def beside_name(path: Path, n: int) -> Path:
    """``list-users.toml`` -> ``list-users.toml.mine`` (then ``.mine-2``...): a name the loader
    never reads as a request, a folder or an environment, and lists as a conflict."""
    tail = "" if n == 1 else f"-{n}"
    return path.with_name(f"{path.name}{BESIDE_SUFFIX}{tail}")


def beside_of(name: str) -> str | None:
    """The name of the file a copy written beside it stands for (``list-users.toml`` for
    ``list-users.toml.mine-2``); ``None`` for a name that is no such copy."""
    match = _BESIDE_RE.fullmatch(name)
    return match[1] if match else None


def conflict_message(name: str) -> str:
    """What a copy beside ``name`` is, for the list of files the loader did not load."""
    return (
        f"a conflict: your version of {name}, saved beside it when it changed on disk; "
        f"not loaded until merged into {name} (then delete this copy)"
    )


def write_beside(path: Path, text: str) -> Path:
    """Write ``text`` next to ``path`` under the first free name; never replaces a file."""
    for n in range(1, 1000):
        target = beside_name(path, n)
        try:
            create_exclusive(target, text)
        except FileExistsError:
            continue
        return target
    raise SaveError(f"not saved: no free name beside {path}")
