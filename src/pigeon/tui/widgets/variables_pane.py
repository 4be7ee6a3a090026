"""Every variable the selected request sees: value, kind, winning scope, what it shadows.

Secrets are masked until revealed: ``$env`` values, and variables whose names say they are
secret (token, secret, password, key...). Unresolved names of the current request are listed
at the top so a typo is found without sending.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rich.text import Text
from textual.binding import Binding
from textual.message import Message
from textual.reactive import reactive
from textual.widgets import Tree

from pigeon.masking import MASK, secret_name
from pigeon.model import Auth, Header, Request
from pigeon.scopes import Definition, Scopes
from pigeon.template import ENV, parse
from pigeon.tui.css import beside
from pigeon.values import kind_of, preview

_SCOPE_TAG = {  # a short coloured tag first, so a narrow pane still shows who wins
    "collection": ("col", "cyan"),
    "environment": ("env", "green"),
    "folder": ("fld", "blue"),
    "request": ("req", "magenta"),
    "runtime": ("run", "yellow"),
    "cli": ("cli", "bold red"),
}


looks_secret = secret_name  # one list of secret names: pigeon.masking


def request_texts(request: Request, headers: list[Header], auth: Auth | None) -> list[str]:
    """Every template string a send of ``request`` renders (with inherited headers and auth)."""
    texts = [request.url, request.body.content]
    texts += [t for h in [*headers, *request.headers] for t in (h.name, h.value)]
    texts += [t for q in request.query for t in (q.name, q.value)]
    texts += [t for f in request.body.fields for t in (f.name, f.value)]
    if auth is not None:
        texts += [auth.username, auth.password, auth.token, auth.key, auth.value]
    return texts


def env_references(texts: list[str]) -> list[str]:
    """The ``$env`` names the texts use, in order of first use."""
    seen: dict[str, None] = {}
    for text in texts:
        if "{{" in text:
            for ph in parse(text).placeholders:
                if ph.kind == ENV:
                    seen.setdefault(ph.name, None)
    return list(seen)


@dataclass
class VariableRow:
    """What a tree node of this pane stands for."""

    name: str
    definition: Definition | None = None  # None for an unresolved name


class VariablesPane(Tree[VariableRow | None]):
    DEFAULT_CSS = beside(__file__)
    ALLOW_MAXIMIZE = True

    BINDINGS = [
        Binding("v", "toggle_reveal", "Reveal secrets", id="vars.reveal"),
        Binding("e", "edit", "Edit variable", id="vars.edit"),
        Binding("a", "add", "Add variable", id="vars.add"),
        Binding("x", "clear_runtime", "Clear runtime vars", id="vars.clear_runtime"),
    ]

    revealed: reactive[bool] = reactive(False)

    @dataclass
    class EditRequested(Message):
        """Edit (or, with an empty name, add) a variable. ``scope`` names the layer of the
        definition chosen (its label: ``collection``, ``folder users``...), so a shadowed row
        is edited where it lives; ``None`` for a new or unresolved name."""

        name: str
        value: Any
        scope: str | None

    class ClearRuntime(Message):
        """Forget every variable scripts have set."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("variables", id=id)
        self.show_root = False
        self.guide_depth = 2
        self._scopes: Scopes | None = None
        self._unresolved: list[str] = []
        self._env_names: list[str] = []
        self.rows: dict[str, list[Definition]] = {}

    def show_scopes(
        self, scopes: Scopes | None, unresolved: list[str], env_names: list[str] | None = None
    ) -> None:
        """Redraw from ``scopes`` (``None``: nothing selected); ``env_names`` are the
        ``$env`` names the request uses."""
        self._scopes, self._unresolved = scopes, list(unresolved)
        self._env_names = list(env_names or [])
        self._rebuild()

    def watch_revealed(self) -> None:
        self._rebuild()

    def _rebuild(self) -> None:
        line = self.cursor_line
        self.clear()
        scopes = self._scopes
        self.rows = scopes.explain() if scopes is not None else {}
        if self._unresolved:
            missing = self.root.add(Text("unresolved", style="bold red"), data=None, expand=True)
            for name in self._unresolved:
                missing.add_leaf(Text(f"{{{{{name}}}}}", style="red"), data=VariableRow(name))
        for name, defs in self.rows.items():
            winner = defs[0]
            node = self.root.add(self._label(name, winner, True), data=VariableRow(name, winner))
            for shadowed in defs[1:]:
                node.add_leaf(self._label(name, shadowed, False), data=VariableRow(name, shadowed))
            if len(defs) == 1:
                node.allow_expand = False
        if self._env_names and scopes is not None:
            env = self.root.add(Text("$env", style="bold"), data=None, expand=True)
            for name in self._env_names:
                env.add_leaf(self._env_label(scopes, name), data=None)
        if not self.rows and not self._unresolved:
            self.root.add_leaf(Text("no variables", style="dim"), data=None)
        if line >= 0:
            self.cursor_line = min(line, max(0, self.last_line))

    def _env_label(self, scopes: Scopes, name: str) -> Text:
        if name in scopes.environ:
            value, source = scopes.environ[name], "process environment"
        elif name in scopes.dotenv:
            value, source = scopes.dotenv[name], ".env"
        else:
            return Text.assemble((f"$env.{name}", "bold"), ("  not set", "red"))
        shown = preview(value, 60) if self.revealed else MASK
        return Text.assemble(
            (f"$env.{name}", "bold"), (" = ", "dim"), shown, (f"  {source}", "dim")
        )

    def _label(self, name: str, d: Definition, winner: bool) -> Text:
        value = preview(d.value, 60)
        if not self.revealed and looks_secret(name):
            value = MASK
        tag, style = _SCOPE_TAG.get(d.scope, (d.scope[:3], ""))
        text = Text()
        text.append(f"{tag} ", style=style)
        if winner:
            text.append(name, style="bold")
            text.append(" = ", style="dim")
            text.append(value)
            text.append(f"  {kind_of(d.value)}", style="dim")
        else:
            text.append(value, style="dim strike")
            text.append(f"  shadowed, {d.label}", style="dim italic")
        return text

    # -- actions ------------------------------------------------------------------------------

    def action_toggle_reveal(self) -> None:
        self.revealed = not self.revealed

    def action_edit(self) -> None:
        node = self.cursor_node
        row = node.data if node is not None else None
        if row is None:
            self.action_add()
            return
        d = row.definition
        self.post_message(
            self.EditRequested(row.name, d.value if d else "", d.label if d else None)
        )

    def action_add(self) -> None:
        self.post_message(self.EditRequested("", "", None))

    def action_clear_runtime(self) -> None:
        self.post_message(self.ClearRuntime())

    def on_tree_node_selected(self, event: Tree.NodeSelected[VariableRow | None]) -> None:
        event.stop()
        if (
            event.node.data is not None
            and event.node.data.definition is not None
            and not event.node.children
        ):
            self.action_edit()
