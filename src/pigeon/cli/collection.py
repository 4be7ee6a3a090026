"""The collection a command names: loaded, refused when its ``collection.toml`` is broken,
and trusted or refused (DESIGN §6 exit 2 for a broken collection; §8 trust and ``--trust``)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from pigeon.cli.stderr import say, warn
from pigeon.errors import UsageError
from pigeon.model import Collection, Folder, Request
from pigeon.scripts.sources import PHASES
from pigeon.store import load_collection
from pigeon.trust import Need, TrustStore, needs, refusal


def load(root: Path, *, warnings: bool = True) -> Collection:
    """Load a collection; a broken ``collection.toml`` is a broken collection (exit 2), as is
    a directory that does not load at all (``store.LoadError``). What a file holds that Pigeon
    does not read (an unknown key) is a warning on stderr naming its line and column, unless
    the command reports it itself (``warnings=False``: ``pigeon check``)."""
    collection = load_collection(root)
    for broken in collection.broken:
        if broken.path.name == "collection.toml" and broken.path.parent == collection.root:
            raise UsageError(f"broken collection: {broken}")
    if warnings:
        for warning in collection.warnings:
            warn(str(warning))
    return collection


def trusted(
    collection: Collection,
    requests: Iterable[tuple[list[Folder], Request]],
    *,
    trust: bool,
    env: str | None,
    cli_vars: Mapping[str, Any] | None,
    no_scripts: bool,
    phases: tuple[str, ...] = PHASES,
    rows: Iterable[Mapping[str, Any]] = (),
) -> bool:
    """Whether the collection is trusted: ``--trust``, or its user trusted it in the app.

    Untrusted, a selection that wants anything the collection does not hold itself (DESIGN
    §8: scripts of ``phases`` unless ``--no-scripts``, ``$env`` beyond its ``.env``, files
    outside it) is refused before anything is sent: each need on its own line, then exit 2.
    ``rows`` (``--data``'s, read as they come) are variables under ``cli_vars``, as in the
    run: what a row's cells reach is seen too, each need once, with the first row wanting it.
    """
    if trust or TrustStore().is_trusted(collection.root):
        return True
    requests = list(requests)
    found = needs(collection, requests, env, phases=() if no_scripts else phases, cli_vars=cli_vars)
    seen = {(need.request, need.kind, need.what) for need in found}
    for number, row in enumerate(rows, 1):
        for need in needs(
            collection, requests, env, phases=(), cli_vars={**row, **(cli_vars or {})}
        ):
            if (need.request, need.kind, need.what) not in seen:
                seen.add((need.request, need.kind, need.what))
                found.append(
                    Need(f"{need.request} [row {number}]", need.kind, need.what, need.thing)
                )
    if found:
        *lines, last = refusal(collection.root, found)
        for line in lines:
            say(line)
        raise UsageError(last)
    return False
