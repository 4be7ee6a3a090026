"""What the app remembers of a collection between sessions (DESIGN §9): the environment last
chosen, in ``.pigeon/state.toml`` (git-ignored, never written through a link:
``files.private_dir``).

The file is the app's, but it sits in a folder a repository could ship, so it is read as
hostile input: capped, and anything that is not a plain known name is ignored. ``pigeon run``
never reads it (it takes ``--env`` or the collection's ``default_environment``).
"""

from __future__ import annotations

import tomllib
from pathlib import Path

from pigeon.files import LinkedOut, atomic_write, private_dir, read_capped

STATE_FILE = "state.toml"
_LIMIT = 64 * 1024


def remembered_environment(root: Path) -> str | None:
    """The environment last chosen in the app for the collection at ``root`` (``""``: none
    was), or ``None`` when nothing usable is remembered."""
    try:
        path = private_dir(root, create=False) / STATE_FILE
        if path.is_symlink() or not path.is_file():
            return None
        data = tomllib.loads(read_capped(path, _LIMIT).decode("utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError, ValueError):
        return None
    name = data.get("environment")
    return name if isinstance(name, str) else None


def remember_environment(root: Path, name: str) -> str | None:
    """Remember ``name`` (``""``: no environment) for the collection at ``root``; why it could
    not be written, or ``None``."""
    import tomlkit

    try:
        path = private_dir(root) / STATE_FILE
        atomic_write(path, tomlkit.dumps({"environment": name}), durable=False)
    except (OSError, LinkedOut) as exc:
        return str(exc)
    return None
