"""Where a variable edited in the variables pane can be written (or deleted from): the collection, the active
environment, each folder of the open request's chain, the request itself (each saved to its own
file through the store) or the runtime scope; and why a value just saved may not be the one a
send uses (a higher scope shadows it).
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pigeon.model import SecretSource
from pigeon.values import MASK, preview, secret_name

if TYPE_CHECKING:
    from pigeon.model import Folder, Request
    from pigeon.scopes import Definition
    from pigeon.session import Session

_ABSENT: Any = object()
DELETED: Any = _ABSENT  # the value that ``Target.save`` takes as "remove the name"


@dataclass
class Target:
    """A scope a variable can be written to, and how to write it."""

    key: str  # the dialog's value: "collection", "environment", "folder:0", "request"...
    label: str  # what the dialog shows
    layer: str  # the label of its layer in ``Scopes`` ("folder users"), to match definitions
    variables: Mapping[str, Any]  # the live mapping, to see whether it defines a name
    save: Callable[[str, Any, bool], str | None]
    """Writes name = value (``True``: over a change on disk); the error when it could not.
    A file changed on disk since it was read is ``store.ChangedOnDisk``."""
    beside: Callable[[str, Any], Path] | None = None
    """Writes the file with name = value next to it under a free name (none: no file)."""

    def delete(self, name: str) -> str | None:
        """Remove ``name`` from this scope (its file edited in place, comments kept); the
        error when it could not."""
        try:
            return self.save(name, DELETED, False)
        except Exception as exc:  # a file changed on disk: say so, write nothing
            return f"Not deleted: {exc}"


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
        _file_target(
            "collection",
            f"collection ({_rel(s.root, col.root / 'collection.toml')})",
            label_of.get(id(col.variables), "collection"),
            "Save collection",
            col.variables,
            col.root / "collection.toml",
            lambda force: store.save_collection_file(col, seen=col.seen, force=force),
            lambda: store.collection_to_toml(col),
        )
    ]
    env = col.environments.get(s.environment) if s.environment else None
    if env is not None:
        env_file = env.path or s.root / "environments" / f"{env.name}.toml"
        targets.append(
            _file_target(
                "environment",
                f"environment {env.name} ({_rel(s.root, env_file)})",
                label_of.get(id(env.variables), f"environment {env.name}"),
                "Save environment",
                env.variables,
                env_file,
                lambda force: store.save_environment(env, s.root, seen=col.seen, force=force),
                lambda: store.environment_to_toml(env),
            )
        )
    if request is not None:
        for i, folder in enumerate(s.chain_of(request)):
            where = _rel(s.root, folder.path / "folder.toml") if folder.path else "no file"

            def save_folder(force: bool, f: Folder = folder) -> Path:
                return store.save_folder_file(f, seen=col.seen, force=force)

            targets.append(
                _file_target(
                    f"folder:{i}",
                    f"folder {folder.name} ({where})",
                    label_of.get(id(folder.variables), f"folder {folder.name}"),
                    "Save folder",
                    folder.variables,
                    folder.path / "folder.toml" if folder.path else None,
                    save_folder,
                    partial(store.folder_to_toml, folder),
                )
            )
        layer = label_of.get(id(request.variables), "")
        targets.append(_request_target(s, request, saved, layer))

    def save_runtime(name: str, value: Any, force: bool = False) -> str | None:
        if value is DELETED:
            s.runtime.delete(name)
        else:
            s.runtime.set(name, value)
        return None

    targets.append(
        Target(
            "runtime",
            "runtime (this session only)",
            label_of.get(id(s.runtime.mapping), "runtime (scripts)"),
            s.runtime.mapping,
            save_runtime,
        )
    )
    return targets


def _file_target(
    key: str,
    label: str,
    layer: str,
    what: str,
    variables: dict[str, Any],
    path: Path | None,
    write: Callable[[bool], Any],
    text: Callable[[], str],
) -> Target:
    """A scope saved to a file: the variable is set and the file written (``force``: over a
    change on disk); a refused write puts the old value back. ``ChangedOnDisk`` is raised for
    the caller to ask about; ``beside`` writes the file with the variable set next to it."""

    def save(name: str, value: Any, force: bool = False) -> str | None:
        from pigeon.store import ChangedOnDisk

        old = variables.get(name, _ABSENT)
        _restore(variables, name, value)
        try:
            write(force)
        except Exception as exc:
            _restore(variables, name, old)
            if isinstance(exc, ChangedOnDisk):
                raise
            return f"{what} failed: {exc}"
        return None

    def beside(name: str, value: Any) -> Path:
        from pigeon.store import write_beside

        old = variables.get(name, _ABSENT)
        variables[name] = value
        try:
            mine = text()
        finally:
            _restore(variables, name, old)
        assert path is not None
        return write_beside(path, mine)

    return Target(key, label, layer, variables, save, beside if path is not None else None)


def _request_target(
    session: Session, request: Request, saved: Request | None, layer: str
) -> Target:
    """The request scope: written to the request's file at once (the editor's other unsaved
    edits stay unsaved); a request without a file only gets it in the editor."""
    file = saved if saved is not None and saved.path is not None else None
    where = _rel(session.root, file.path) if file is not None else "only here: it has no file"

    def updated(name: str, value: Any) -> Request:
        assert file is not None
        mine = copy.deepcopy(file)
        _restore(mine.variables, name, value)
        return mine

    def save(name: str, value: Any, force: bool = False) -> str | None:
        from pigeon.store import ChangedOnDisk

        if file is not None:
            try:
                session.commit_request(updated(name, value), force)
            except ChangedOnDisk:
                raise
            except Exception as exc:
                return f"Save request failed: {exc}"
        _restore(request.variables, name, value)
        return None

    def beside(name: str, value: Any) -> Path:
        from pigeon.store import request_to_toml, write_beside

        assert file is not None and file.path is not None
        return write_beside(file.path, request_to_toml(updated(name, value)))

    return Target(
        "request",
        f"this request ({where})",
        layer,
        request.variables,
        save,
        beside if file is not None else None,
    )


def shadowed_by(session: Session, request: Request | None, name: str, target: Target) -> str | None:
    """Why the definition just saved in ``target`` is not the one a send of ``request`` uses,
    or ``None`` when it wins."""
    s = session
    defs: list[Definition] = s.scopes_for(request).explain().get(name, [])
    if not defs or defs[0].label == target.layer:
        return None
    winner = defs[0]
    shown = winner.value.describe() if isinstance(winner.value, SecretSource) else winner.value
    value = MASK if secret_name(name) else preview(shown, 40)
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


def _restore(variables: dict[str, Any], name: str, old: Any) -> None:
    """Set ``name`` to ``old``, or remove it when ``old`` is ``_ABSENT``."""
    if old is _ABSENT:
        variables.pop(name, None)
    else:
        variables[name] = old
