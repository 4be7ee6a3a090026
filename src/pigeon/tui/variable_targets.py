"""Where a variable edited in the variables pane can be written or deleted: the collection,
the active environment, each folder of the open request's chain, the request itself (each saved
to its own file through the store, comments kept) or the runtime scope; and why a value just
saved may not be the one a send uses (a higher scope shadows it).
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pigeon.masking import MASK, secret_name
from pigeon.values import preview

if TYPE_CHECKING:
    from pigeon.model import Request
    from pigeon.scopes import Definition
    from pigeon.session import Session

_ABSENT: Any = object()


@dataclass
class Target:
    """A scope a variable can be written to, and how to write it."""

    key: str  # the dialog's value: "collection", "environment", "folder:0", "request"...
    label: str  # what the dialog shows
    layer: str  # the label of its layer in ``Scopes`` ("folder users"), to match definitions
    variables: Mapping[str, Any]  # the live mapping, to see whether it defines a name
    save: Callable[[str, Any], str | None]  # writes name = value; the error when it could not
    delete: Callable[[str], str | None]  # removes name; the error when it could not


def variable_targets(
    session: Session, request: Request | None, saved: Request | None
) -> list[Target]:
    """Every writable scope of the open request (``request``, the editor's working copy of
    ``saved``; ``None``: no request open), lowest first."""
    from pigeon import store

    s = session
    col = s.collection
    layers = s.scopes_for(request).layers
    label_of = {id(layer.variables): layer.label for layer in layers}
    targets = [
        Target(
            "collection",
            f"collection ({_rel(s.root, col.root / 'collection.toml')})",
            label_of.get(id(col.variables), "collection"),
            col.variables,
            *_file_writers("collection", col.variables, lambda: store.save_collection_file(col)),
        )
    ]
    env = col.environments.get(s.environment) if s.environment else None
    if env is not None:
        where = _rel(s.root, env.path) if env.path else f"environments/{env.name}.toml"
        targets.append(
            Target(
                "environment",
                f"environment {env.name} ({where})",
                label_of.get(id(env.variables), f"environment {env.name}"),
                env.variables,
                *_file_writers(
                    "environment", env.variables, lambda: store.save_environment(env, s.root)
                ),
            )
        )
    if request is not None:
        for i, folder in enumerate(s.chain_of(request)):
            where = _rel(s.root, folder.path / "folder.toml") if folder.path else "no file"
            targets.append(
                Target(
                    f"folder:{i}",
                    f"folder {folder.name} ({where})",
                    label_of.get(id(folder.variables), f"folder {folder.name}"),
                    folder.variables,
                    *_file_writers(
                        "folder", folder.variables, lambda f=folder: store.save_folder_file(f)
                    ),
                )
            )
        layer = label_of.get(id(request.variables), "")
        targets.append(_request_target(s, request, saved, layer))

    def save_runtime(name: str, value: Any) -> str | None:
        s.runtime.set(name, value)
        return None

    def delete_runtime(name: str) -> str | None:
        s.runtime.delete(name)
        return None

    targets.append(
        Target(
            "runtime",
            "runtime (this session only)",
            label_of.get(id(s.runtime.mapping), "runtime (scripts)"),
            s.runtime.mapping,
            save_runtime,
            delete_runtime,
        )
    )
    return targets


def _file_writers(
    what: str, variables: dict[str, Any], write: Callable[[], Any]
) -> tuple[Callable[[str, Any], str | None], Callable[[str], str | None]]:
    """Save and delete for a scope kept in a file: change the variable and write the file; a
    refused write puts the old value back."""

    def change(name: str, value: Any, doing: str) -> str | None:
        old = variables.get(name, _ABSENT)
        _put(variables, name, value)
        try:
            write()
        except Exception as exc:
            _put(variables, name, old)
            return f"{doing} {what} failed: {exc}"
        return None

    return (
        lambda name, value: change(name, value, "Save"),
        lambda name: change(name, _ABSENT, "Delete from"),
    )


def _request_target(
    session: Session, request: Request, saved: Request | None, layer: str
) -> Target:
    """The request scope: written to the request's file at once (the editor's other unsaved
    edits stay unsaved); a request without a file only gets it in the editor."""
    file = saved if saved is not None and saved.path is not None else None
    where = _rel(session.root, file.path) if file is not None else "only here: it has no file"

    def change(name: str, value: Any) -> str | None:
        if file is not None:
            updated = copy.deepcopy(file)
            _put(updated.variables, name, value)
            try:
                session.commit_request(updated)
            except Exception as exc:
                return f"Save request failed: {exc}"
        _put(request.variables, name, value)
        return None

    return Target(
        "request",
        f"this request ({where})",
        layer,
        request.variables,
        change,
        lambda name: change(name, _ABSENT),
    )


def shadowed_by(session: Session, request: Request | None, name: str, target: Target) -> str | None:
    """Why the definition just saved in ``target`` is not the one a send of ``request`` uses,
    or ``None`` when it wins."""
    s = session
    defs: list[Definition] = s.scopes_for(request).explain().get(name, [])
    if not defs or defs[0].label == target.layer:
        return None
    winner = defs[0]
    value = MASK if secret_name(name) else preview(winner.value, 40)
    if winner.scope == "cli":
        echo = s.echo
        if echo is not None and s.overrides.get(name) == echo.url:
            return f"the demo's echo server address overrides it while the demo runs ({value})"
        return f"an override given at start-up wins for this session ({value})"
    if winner.scope == "runtime":
        return f"a runtime value set by a script wins ({value}); x in the pane clears those"
    return f"{winner.label} defines it too and wins ({value})"


def _rel(root: Path, path: Path | None) -> str:
    if path is None:
        return "no file"
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return str(path)


def _put(variables: dict[str, Any], name: str, value: Any) -> None:
    """Set ``name`` to ``value``, or remove it when ``value`` is ``_ABSENT``."""
    if value is _ABSENT:
        variables.pop(name, None)
    else:
        variables[name] = value
