"""From a collection directory and a request name to the rendered request, for the CLI.

Loading, finding the request, building scopes, running pre-request scripts and rendering,
with every failure turned into a ``PrepareError`` carrying DESIGN §6's exit code.
"""

from __future__ import annotations

import difflib
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pigeon.model import BrokenFile, Collection, Folder, Request, normalize_ref
from pigeon.render import RenderedRequest
from pigeon.scopes import RuntimeVars, UnknownEnvironment


class PrepareError(Exception):
    """A failure before sending, with the exit code the CLI returns for it."""

    def __init__(self, message: str, exit_code: int) -> None:
        super().__init__(message)
        self.exit_code = exit_code


@dataclass
class Prepared:
    collection: Collection
    chain: list[Folder]
    request: Request  # as the pre-request scripts left it
    rendered: RenderedRequest
    script_output: list[str] = field(default_factory=list)


def load(root: Path) -> Collection:
    """Load a collection; a broken ``collection.toml`` is a broken collection (exit 2)."""
    from pigeon.store import LoadError, load_collection

    try:
        collection = load_collection(root)
    except LoadError as exc:
        raise PrepareError(str(exc), 2) from exc
    for broken in collection.broken:
        if broken.path.name == "collection.toml" and broken.path.parent == collection.root:
            raise PrepareError(f"broken collection: {broken}", 2)
    return collection


def _broken_for(collection: Collection, paths: list[Path]) -> BrokenFile | None:
    wanted = {p.resolve() for p in paths}
    for broken in collection.broken:
        if broken.path.resolve() in wanted:
            return broken
    return None


def locate(collection: Collection, ref: str) -> tuple[list[Folder], Request]:
    """Find a request by its path relative to the collection; exit 2 with hints when absent."""
    found = collection.find(ref)
    key = normalize_ref(ref)
    request_file = collection.root / f"{key}.toml"
    if found is None:
        broken = _broken_for(collection, [request_file])
        if broken is not None:
            raise PrepareError(f"broken request file: {broken}", 2)
        ids = [r.id for r in collection.requests()]
        close = difflib.get_close_matches(key, ids, n=3)
        hint = f" (did you mean: {', '.join(close)}?)" if close else ""
        raise PrepareError(f"no request {ref!r} in {collection.root}{hint}", 2)
    chain, request = found
    folder_files = [f.path / "folder.toml" for f in chain if f.path is not None]
    broken = _broken_for(collection, folder_files)
    if broken is not None:
        raise PrepareError(f"broken folder file: {broken}", 2)
    return list(chain), request


def prepare_request(
    root: Path,
    ref: str,
    *,
    env: str | None = None,
    cli_vars: Mapping[str, Any] | None = None,
    trust: bool = False,
    environ: Mapping[str, str] | None = None,
) -> Prepared:
    """Load, locate, run pre-request scripts (if trusted) and render one request."""
    import asyncio

    from pigeon.config import TrustStore
    from pigeon.run import RequestResult, RunContext, build
    from pigeon.scripts import has_scripts

    collection = load(root)
    chain, request = locate(collection, ref)
    if env is not None:
        env_file = collection.root / "environments" / f"{env}.toml"
        broken = _broken_for(collection, [env_file])
        if broken is not None:
            raise PrepareError(f"broken environment file: {broken}", 2)
        if env not in collection.environments:
            raise PrepareError(str(UnknownEnvironment(env, sorted(collection.environments))), 2)
    trusted = trust or TrustStore().is_trusted(collection.root)
    if not trusted and has_scripts(collection, chain, request, "pre_request"):
        print(
            f"pigeon: warning: {collection.root} is not trusted; its scripts did not run "
            f"(trust it in the app, or pass --trust)",
            file=sys.stderr,
        )
    ctx = RunContext(collection, env, RuntimeVars(), dict(cli_vars or {}), environ, trusted=trusted)
    result = RequestResult(request, chain)
    request, _ = asyncio.run(build(ctx, chain, request, result))
    if result.script_errors:
        raise PrepareError(f"script error: {result.script_errors[0].summary()}", 1)
    if result.rendered is None:
        reason = (result.error or "").removeprefix("not sent: ")
        raise PrepareError(f"{request.id or request.name}: {reason}", 1)
    return Prepared(collection, chain, request, result.rendered, result.log)
