"""The order of requests and folders (DESIGN §2), in one place.

An optional ``order = [...]`` in ``collection.toml`` / ``folder.toml`` lists file stems and
folder names; the rest follow by the name they are shown by (a request's ``name``, a folder's
name), not by file name. ``stem/`` names a folder only, ``stem.toml`` a request only, a bare
``stem`` either (a folder is listed before a request of the same stem).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from pigeon.model import (
    Folder,
    Request,
)


def stem_of(item: Folder | Request) -> str:
    if item.path is None:
        return item.name
    return item.path.name if isinstance(item, Folder) else item.path.stem


def order_key(order: list[str]) -> Callable[[str, str, bool], tuple[object, ...]]:
    """The sort key of an entry of a folder whose ``order`` list is ``order``, from the name it
    is shown by, its stem (file stem or folder name) and whether it is a folder: listed
    entries first, in that order; the rest by shown name (case-insensitive). Shared by the
    collection's items and the tree's broken files, so both fall in one order."""
    position: dict[str, int] = {}
    for i, entry in enumerate(order):
        position.setdefault(entry.removesuffix(".toml").strip("/"), i)

    def key(shown: str, stem: str, folder: bool) -> tuple[object, ...]:
        kind = 0 if folder else 1
        if stem in position:
            return (0, position[stem], "", "", kind, stem)
        return (1, 0, shown.casefold(), shown, kind, stem)

    return key


def sort_items(items: list[Folder | Request], order: list[str]) -> list[Folder | Request]:
    """``order`` entries first, in that order; the rest by the name shown (case-insensitive).

    A folder and a request with the same stem keep the folder first.
    """
    key = order_key(order)
    return sorted(items, key=lambda item: key(item.name, stem_of(item), isinstance(item, Folder)))


def order_refers(entry: str, stem: str, folder: bool = True) -> bool:
    """Whether an ``order`` entry names the folder ``stem`` (``folder=False``: the request):
    ``stem/`` names a folder only, ``stem.toml`` a request only, a bare ``stem`` either."""
    if entry.endswith(".toml"):
        return not folder and entry.removesuffix(".toml").strip("/") == stem
    if entry.endswith("/"):
        return folder and entry.strip("/") == stem
    return entry.strip("/") == stem


def reordered(
    order: list[str],
    directory: Path,
    old: str,
    new: str | None,
    after: bool = False,
    folder: bool = True,
) -> list[str] | None:
    """``order`` with the folder (``folder=False``: the request) ``old`` renamed to ``new``
    (``None``: left out), in place; with ``after`` the new entry goes after the old one, which
    stays. An entry also places a request or folder of the same stem (a folder is listed
    first), so it stays while that exists. ``None``: no change."""
    twin = (directory / f"{old}.toml").exists() if folder else (directory / old).is_dir()
    keep_old = after or twin
    out: list[str] = []
    for entry in order:
        if not order_refers(entry, old, folder):
            out.append(entry)
            continue
        added = [] if new is None else [new + (".toml" if entry.endswith(".toml") else "")]
        if not keep_old:
            out += added
        elif after or not folder:
            out += [entry, *added]
        else:  # a folder is listed before a request of the same stem
            out += [*added, entry]
    return out if out != order else None
