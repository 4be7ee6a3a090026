"""Editing variables from the variables pane, into any scope the open request sees: the
collection, the active environment, each folder of its chain, the request itself (each saved
to its own file through the store) or the runtime scope.

The dialog starts on the scope whose definition wins, so editing a folder's variable changes
the folder's file; a saved value that a higher scope still shadows is reported as such.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pigeon.tui.screens.tree_commands import FAILED
from pigeon.tui.widgets.request_editor import RequestEditor
from pigeon.tui.widgets.variables_pane import MASK, looks_secret
from pigeon.values import preview

if TYPE_CHECKING:
    from pigeon.scopes import Definition
    from pigeon.session import Session
    from pigeon.tui.dialogs.variable_edit import VariableValue

_ABSENT: Any = object()


@dataclass
class Target:
    """A scope a variable can be written to, and how to write it."""

    key: str  # the dialog's value: "collection", "environment", "folder:0", "request"...
    label: str  # what the dialog shows
    layer: str  # the label of its layer in ``Scopes`` ("folder users"), to match definitions
    variables: Mapping[str, Any]  # the live mapping, to see whether it defines a name
    save: Callable[[str, Any], bool]  # writes name = value; False when the store refused


class VariableCommands:
    """Mixed into ``MainScreen``; uses its ``session``, queries and dialogs."""

    session: Session
    query_one: Any
    notify: Any
    app: Any
    _store_call: Any
    refresh_after_variables: Any

    def edit_variable(self, name: str, value: Any, defined_in: str | None) -> None:
        """Open the variable dialog for ``name`` (empty: a new variable). ``defined_in`` is the
        layer label of the definition chosen in the pane (``folder users``); the dialog starts
        on that scope when it is writable, else on the writable scope that wins for the name."""
        from pigeon.tui.dialogs.variable_edit import VariableEditScreen

        targets = self._variable_targets()
        by_layer = {t.layer: t for t in targets}
        chosen = by_layer.get(defined_in or "")
        if chosen is None and name:
            chosen = next((t for t in reversed(targets) if name in t.variables), None)
        scope = chosen.key if chosen is not None else "collection"
        options = [
            (t.key, f"{t.label} · defines it" if name and name in t.variables else t.label)
            for t in targets
        ]
        title = f"Edit {name}" if name else "New variable"

        def done(result: VariableValue | None) -> None:
            if result is not None:
                self._save_variable(result, {t.key: t for t in targets})

        self.app.push_screen(VariableEditScreen(title, name, value, options, scope), done)

    # -- targets ------------------------------------------------------------------------------

    def _variable_targets(self) -> list[Target]:
        """Every writable scope of the open request (or of none), lowest first."""
        from pigeon import store

        s = self.session
        col = s.collection
        request = self.query_one(RequestEditor).request
        layers = s.scopes_for(request).layers
        label_of = {id(layer.variables): layer.label for layer in layers}

        def file_saver(what: str, variables: dict[str, Any], write: Callable[[], Any]) -> Any:
            def save(name: str, value: Any) -> bool:
                old = variables.get(name, _ABSENT)
                variables[name] = value
                if self._store_call(what, write) is FAILED:
                    _restore(variables, name, old)
                    return False
                return True

            return save

        targets = [
            Target(
                "collection",
                f"collection ({_rel(s.root, col.root / 'collection.toml')})",
                label_of.get(id(col.variables), "collection"),
                col.variables,
                file_saver(
                    "Save collection", col.variables, lambda: store.save_collection_file(col)
                ),
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
                    file_saver(
                        "Save environment",
                        env.variables,
                        lambda: store.save_environment(env, s.root),
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
                        file_saver(
                            "Save folder",
                            folder.variables,
                            lambda f=folder: store.save_folder_file(f),
                        ),
                    )
                )
            targets.append(self._request_target(request, label_of.get(id(request.variables), "")))
        targets.append(
            Target(
                "runtime",
                "runtime (this session only)",
                label_of.get(id(s.runtime.mapping), "runtime (scripts)"),
                s.runtime.mapping,
                self._save_runtime,
            )
        )
        return targets

    def _request_target(self, request: Any, layer: str) -> Target:
        """The request scope: written to the request's file at once (the editor's other unsaved
        edits stay unsaved); a request without a file only gets it in the editor."""
        editor = self.query_one(RequestEditor)
        saved = editor.saved
        has_file = saved is not None and saved.path is not None
        where = _rel(self.session.root, saved.path) if has_file else "only here: it has no file"

        def save(name: str, value: Any) -> bool:
            if has_file:
                updated = copy.deepcopy(saved)
                updated.variables[name] = value
                if self._store_call("Save request", self.session.commit_request, updated) is FAILED:
                    return False
            request.variables[name] = value
            editor.load_variables_tab()
            return True

        return Target("request", f"this request ({where})", layer, request.variables, save)

    def _save_runtime(self, name: str, value: Any) -> bool:
        self.session.runtime.set(name, value)
        return True

    # -- saving -------------------------------------------------------------------------------

    def _save_variable(self, v: VariableValue, targets: dict[str, Target]) -> None:
        target = targets.get(v.scope)
        if target is None or not target.save(v.name, v.value):
            return
        self.refresh_after_variables()
        where = target.label.split(" (")[0]
        shadow = self._shadowed_by(v.name, target)
        if shadow is None:
            self.notify(f"{v.name} saved in {where}.")
        else:
            self.notify(
                f"{v.name} saved in {where}, but that value is not used: {shadow}.",
                severity="warning",
                timeout=12,
            )

    def _shadowed_by(self, name: str, target: Target) -> str | None:
        """Why the definition just saved in ``target`` is not the one a send uses, or ``None``
        when it wins."""
        s = self.session
        defs: list[Definition] = (
            s.scopes_for(self.query_one(RequestEditor).request).explain().get(name, [])
        )
        if not defs or defs[0].label == target.layer:
            return None
        winner = defs[0]
        value = MASK if looks_secret(name) else preview(winner.value, 40)
        if winner.scope == "cli":
            echo = s.echo
            if echo is not None and s.overrides.get(name) == getattr(echo, "url", None):
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
    if old is _ABSENT:
        variables.pop(name, None)
    else:
        variables[name] = old
