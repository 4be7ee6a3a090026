"""Which scripts run for a send, and in what order (DESIGN §8).

Each phase (``pre_request`` before rendering, ``post_response`` after the response) runs the
collection's script, then each folder's (outer -> inner), then the request's. This is read from
the model alone, without running anything, so the trust prompt and ``--no-scripts`` can ask
``has_scripts`` before deciding whether the runner is needed at all.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from pigeon.model import Collection, Folder, Request

Phase = Literal["pre_request", "post_response"]
PHASES: tuple[str, ...] = ("pre_request", "post_response")


@dataclass(frozen=True)
class ScriptSource:
    """One script about to run: where it comes from, and its text."""

    label: str  # "collection", "users/" (a folder), "users/create-user" (a request)
    filename: str  # "users/create-user.toml [scripts.pre_request]": shown in tracebacks
    phase: str
    code: str


def script_sources(
    collection: Collection,
    chain: list[Folder] | tuple[Folder, ...],
    request: Request,
    phase: str,
) -> list[ScriptSource]:
    """The non-empty scripts of a phase, in the order they run."""
    check_phase(phase)
    out: list[ScriptSource] = []
    code = getattr(collection.scripts, phase)
    if code.strip():
        out.append(ScriptSource("collection", f"collection.toml [scripts.{phase}]", phase, code))
    for folder in chain:
        code = getattr(folder.scripts, phase)
        if code.strip():
            where = folder.id or folder.name
            out.append(
                ScriptSource(f"{where}/", f"{where}/folder.toml [scripts.{phase}]", phase, code)
            )
    code = getattr(request.scripts, phase)
    if code.strip():
        where = request.id or request.name
        out.append(ScriptSource(where, f"{where}.toml [scripts.{phase}]", phase, code))
    return out


def has_scripts(
    collection: Collection,
    chain: list[Folder] | tuple[Folder, ...],
    request: Request,
    phase: str | None = None,
) -> bool:
    """Whether any script would run for this request (in ``phase``, or in either phase)."""
    phases = PHASES if phase is None else (phase,)
    return any(script_sources(collection, chain, request, p) for p in phases)


def check_phase(phase: str) -> None:
    """Refuse a phase other than ``PHASES`` with a ``ValueError`` that lists them."""
    if phase not in PHASES:
        raise ValueError(f"unknown script phase {phase!r} (expected one of {', '.join(PHASES)})")
