"""Editing variables from the variables pane: into the collection, the environment, the
request being edited (saved with it) or the runtime scope, through the store."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pigeon.tui.screens.tree_commands import FAILED
from pigeon.tui.widgets.request_editor import RequestEditor

if TYPE_CHECKING:
    from pigeon.tui.screens.variable_edit import VariableValue
    from pigeon.tui.session import Session

_ABSENT: Any = object()


class VariableCommands:
    """Mixed into ``MainScreen``; uses its ``session``, queries and dialogs."""

    session: Session
    query_one: Any
    notify: Any
    app: Any
    _store_call: Any
    refresh_after_variables: Any

    def edit_variable(self, name: str, value: Any, defined_in: str | None) -> None:
        """Open the variable dialog for ``name`` (empty: a new variable); it saves where
        the winning definition lives unless told otherwise."""
        from pigeon.tui.screens.variable_edit import VariableEditScreen

        s = self.session
        editor = self.query_one(RequestEditor)
        scopes = [("collection", "collection (collection.toml)")]
        if s.environment:
            scopes.append(("environment", f"environment {s.environment}"))
        if editor.request is not None:
            scopes.append(("request", "this request (unsaved until ctrl+s)"))
        scopes.append(("runtime", "runtime (this session only)"))
        scope = defined_in if defined_in in {k for k, _ in scopes} else "collection"
        title = f"Edit {name}" if name else "New variable"

        def done(result: VariableValue | None) -> None:
            if result is not None:
                self._save_variable(result)

        self.app.push_screen(VariableEditScreen(title, name, value, scopes, scope), done)

    def _save_variable(self, v: VariableValue) -> None:
        from pigeon import store

        s = self.session
        if v.scope == "runtime":
            s.runtime.set(v.name, v.value)
        elif v.scope == "request":
            editor = self.query_one(RequestEditor)
            if editor.request is not None:
                editor.request.variables[v.name] = v.value
                editor.load_variables_tab()
        elif v.scope == "environment":
            env = s.collection.environments.get(s.environment)
            if env is None:
                return
            old = env.variables.get(v.name, _ABSENT)
            env.variables[v.name] = v.value
            if self._store_call("Save environment", store.save_environment, env, s.root) is FAILED:
                _restore(env.variables, v.name, old)
                return
        else:
            col = s.collection
            old = col.variables.get(v.name, _ABSENT)
            col.variables[v.name] = v.value
            if self._store_call("Save collection", store.save_collection_file, col) is FAILED:
                _restore(col.variables, v.name, old)
                return
        self.refresh_after_variables()
        self.notify(f"{v.name} saved in {v.scope}.")


_ABSENT: Any = object()


def _restore(variables: dict[str, Any], name: str, old: Any) -> None:
    if old is _ABSENT:
        variables.pop(name, None)
    else:
        variables[name] = old
