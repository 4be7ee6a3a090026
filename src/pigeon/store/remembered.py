"""What the app remembers of a collection between sessions (DESIGN §9): the environment last
chosen and the requests open in tabs, in ``.pigeon/state.toml`` (git-ignored, never written
through a link: ``files.private_dir``).

The file is the app's, but it sits in a folder a repository could ship, so it is read as
hostile input: capped, and anything that is not a plain known name is ignored. ``pigeon run``
never reads it (it takes ``--env`` or the collection's ``default_environment``).
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from pigeon.files import LinkedOut, atomic_write, private_dir, read_capped

STATE_FILE = "state.toml"
_LIMIT = 64 * 1024
MAX_TABS = 50  # more remembered tabs than this are not reopened


@dataclass
class OpenTabs:
    """The request files open in tabs (relative to the collection, ``/``-separated), which
    one was shown, and which one was the preview tab (``-1``: none)."""

    paths: list[str] = field(default_factory=list)
    active: int = 0
    preview: int = -1


def _read(root: Path) -> dict[str, Any]:
    """The state file as a table, or ``{}`` when it is missing, linked or unreadable."""
    try:
        path = private_dir(root, create=False) / STATE_FILE
        if path.is_symlink() or not path.is_file():
            return {}
        return tomllib.loads(read_capped(path, _LIMIT).decode("utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError, ValueError):
        return {}


def _update(root: Path, **values: Any) -> str | None:
    """Write ``values`` over what the file holds (the other keys kept); why it could not be
    written, or ``None``."""
    import tomlkit

    data = {k: v for k, v in _read(root).items() if k in ("environment", "tabs")}
    data.update(values)
    try:
        path = private_dir(root) / STATE_FILE
        atomic_write(path, tomlkit.dumps(data), durable=False)
    except (OSError, LinkedOut) as exc:
        return str(exc)
    return None


def remembered_environment(root: Path) -> str | None:
    """The environment last chosen in the app for the collection at ``root`` (``""``: none
    was), or ``None`` when nothing usable is remembered."""
    name = _read(root).get("environment")
    return name if isinstance(name, str) else None


def remember_environment(root: Path, name: str) -> str | None:
    """Remember ``name`` (``""``: no environment) for the collection at ``root``; why it could
    not be written, or ``None``."""
    return _update(root, environment=name)


def _plain_relative(text: object) -> bool:
    """A relative ``/``-separated path that stays inside the collection."""
    if not isinstance(text, str) or not text or "\\" in text or "\x00" in text:
        return False
    parts = PurePosixPath(text).parts
    return not PurePosixPath(text).is_absolute() and ".." not in parts and "." not in parts


def remembered_tabs(root: Path) -> OpenTabs:
    """The tabs open when the app last left the collection at ``root`` (none when nothing
    usable is remembered). Each path is only a name: the caller opens only files the
    collection loaded."""
    table = _read(root).get("tabs")
    if not isinstance(table, dict):
        return OpenTabs()
    paths = table.get("paths")
    if not isinstance(paths, list):
        return OpenTabs()
    kept = [p for p in paths[:MAX_TABS] if _plain_relative(p)]
    if len(kept) != len(paths[:MAX_TABS]):
        return OpenTabs()  # one odd entry: the whole list is suspect
    active, preview = table.get("active", 0), table.get("preview", -1)
    ok = isinstance(active, int) and isinstance(preview, int) and not isinstance(active, bool)
    if not ok or not 0 <= active < max(1, len(kept)) or not -1 <= preview < len(kept):
        active, preview = 0, -1
    return OpenTabs(kept, active, preview)


def remember_tabs(root: Path, tabs: OpenTabs) -> str | None:
    """Remember the open tabs for the collection at ``root``; why they could not be written,
    or ``None``."""
    table = {"paths": tabs.paths[:MAX_TABS], "active": tabs.active, "preview": tabs.preview}
    return _update(root, tabs=table)
