"""Render a request as Pigeon would, for tests that check what an import or export means."""

from __future__ import annotations

from pathlib import Path

from pigeon.model import Collection, Folder, Request
from pigeon.render import RenderedRequest, render_request
from pigeon.scopes import build_scopes
from pigeon.store import load_collection


def render_alone(
    req: Request, root: Path, environ: dict[str, str] | None = None
) -> RenderedRequest:
    """Render a request that belongs to an empty collection at ``root``."""
    col = Collection(name="t", root=root)
    scopes = build_scopes(col, [], req, environment="", environ=environ or {})
    return render_request(col, [], req, scopes)


def render_written(
    root: Path, ref: str, environment: str | None = "", environ: dict[str, str] | None = None
) -> RenderedRequest:
    """Load the collection at ``root`` from disk and render the request ``ref``."""
    col = load_collection(root)
    assert not col.broken, [str(b) for b in col.broken]
    found = col.find(ref)
    assert found is not None, f"{ref} not in {[r.id for r in col.requests()]}"
    chain, req = found
    scopes = build_scopes(col, chain, req, environment=environment, environ=environ or {})
    return render_request(col, chain, req, scopes)


def chain_names(chain: list[Folder]) -> list[str]:
    return [f.name for f in chain]
