"""The collection a command names: loaded, refused when its ``collection.toml`` is broken,
and trusted or not (DESIGN §6 exit 2 for a broken collection; §8 trust and ``--trust``)."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from pigeon.cli.stderr import warn
from pigeon.config import TrustStore
from pigeon.errors import UsageError
from pigeon.model import Collection, Folder, Request
from pigeon.scripts import has_scripts
from pigeon.store import load_collection


def load(root: Path) -> Collection:
    """Load a collection; a broken ``collection.toml`` is a broken collection (exit 2), as is
    a directory that does not load at all (``store.LoadError``)."""
    collection = load_collection(root)
    for broken in collection.broken:
        if broken.path.name == "collection.toml" and broken.path.parent == collection.root:
            raise UsageError(f"broken collection: {broken}")
    return collection


def trusted(
    collection: Collection,
    trust: bool,
    requests: Iterable[tuple[list[Folder], Request]],
    phase: str | None = None,
) -> bool:
    """Whether the collection's scripts run: ``--trust``, or its user trusted it in the app.

    Untrusted, the requests still go (DESIGN §8); when any of ``requests`` has scripts (of
    ``phase``, or of either), one warning says they will not run.
    """
    if trust or TrustStore().is_trusted(collection.root):
        return True
    if any(has_scripts(collection, chain, request, phase) for chain, request in requests):
        warn(
            f"{collection.root} is not trusted; its scripts will not run "
            f"(trust it in the app, or pass --trust)"
        )
    return False
