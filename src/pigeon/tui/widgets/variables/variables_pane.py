"""Every variable the selected request sees: value, kind, winning scope, what it shadows.

Secrets are masked until revealed: ``$env`` values, and variables whose names say they are
secret (token, secret, password, key...). A ``[secrets]`` variable shows its source, never its
value: ``v`` reveals it, reading it then if it was not yet and the collection is trusted. Unresolved names of the current request are listed
at the top so a typo is found without sending.

The pane edits what it shows: ``e``/``a`` open the variable dialog on any scope the open
request sees (``pigeon.tui.widgets.variables.variable_targets``), starting on the scope whose definition wins, so
editing a folder's variable changes the folder's file; a saved value that a higher scope still
shadows is reported as such. ``d`` deletes the highlighted definition from its scope's file
(after asking; comments kept), ``x`` forgets the runtime variables. Either way the pane posts
``Changed`` and the screen redraws what depends on variables.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual.binding import Binding
from textual.message import Message
from textual.reactive import reactive
from textual.widgets import Tree

from pigeon.auth_kinds import KINDS
from pigeon.model import Auth, Header, Request, SecretSource
from pigeon.scopes import Definition, Scopes
from pigeon.template import ENV, parse
from pigeon.terminal import printable
from pigeon.tui.css import beside
from pigeon.tui.vim_keys import HalfPages, vim_bindings
from pigeon.tui.widgets.find_rows import FindInTree
from pigeon.tui.widgets.tree_style import StyleOncePerFrame
from pigeon.tui.widgets.variables.variable_targets import Target, shadowed_by, variable_targets
from pigeon.values import MASK, kind_of, preview, secret_name

if TYPE_CHECKING:
    from pigeon.session import Session
    from pigeon.store import ChangedOnDisk
    from pigeon.tui.dialogs.variable_edit import VariableValue

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
    texts = [request.url, request.body.content, request.body.path, request.body.content_type]
    texts += [t for h in [*headers, *request.headers] for t in (h.name, h.value)]
    texts += [t for q in request.query for t in (q.name, q.value)]
    texts += [t for f in request.body.fields for t in (f.name, f.value)]
    if auth is not None and auth.type in KINDS:
        texts += [t for _, t in KINDS[auth.type].texts(auth) if isinstance(t, str)]
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


class VariablesPane(FindInTree, HalfPages, StyleOncePerFrame, Tree[VariableRow | None]):
    """Each name the open request sees, its winning value and scope, and under it the
    definitions it shadows; then the ``$env`` names the request uses."""

    DEFAULT_CSS = beside(__file__)
    ALLOW_MAXIMIZE = True

    BINDINGS = [
        *vim_bindings(),
        Binding("v", "toggle_reveal", "Reveal secrets", id="vars.reveal"),
        Binding("e", "edit", "Edit variable", id="vars.edit"),
        Binding("a", "add", "Add variable", id="vars.add"),
        Binding("d,delete", "delete", "Delete variable", id="vars.delete"),
        Binding("x", "clear_runtime", "Clear runtime vars", id="vars.clear_runtime"),
    ]

    revealed: reactive[bool] = reactive(False)

    class Changed(Message):
        """A variable was saved, or the runtime ones forgotten: previews and this pane follow."""

    class RequestVariablesChanged(Message):
        """A variable of the open request itself was saved or deleted (its working copy holds
        it too): the editor's Vars tab is to show it."""

    class ReloadWanted(Message):
        """The file a variable was to be saved in changed on disk, and the user chose the
        disk's version: the collection is to be read again."""

    def __init__(
        self,
        session: Session,
        scopes: Callable[[Request | None], Scopes | None],
        unresolved: Callable[[Request], list[str]],
        *,
        id: str | None = None,
    ) -> None:
        """``scopes`` gives a request's scopes (``None`` when they cannot be built);
        ``unresolved`` the names a send of a request would leave unresolved."""
        super().__init__("variables", id=id)
        self.show_root = False
        self.guide_depth = 2
        self.session = session
        self.request: Request | None = None  # the working copy whose scopes are edited
        self.saved: Request | None = None  # ... and the request it is a copy of
        self._scopes_for = scopes
        self._unresolved_of = unresolved
        self._shown_for: tuple[Any, ...] = ()
        self._plan_shown: list[Any] | None = None  # what the tree shows (see ``_plan``)
        self._scopes: Scopes | None = None
        self._unresolved: list[str] = []
        self._env_names: list[str] = []
        self.rows: dict[str, list[Definition]] = {}

    def show_request(
        self,
        request: Request | None,
        saved: Request | None,
        unresolved: list[str] | None = None,
        force: bool = True,
    ) -> None:
        """Show what ``request`` (the working copy of ``saved``) sees (``None``: no request
        open); ``unresolved`` are the names its send would leave unresolved (``None``: found
        here). With ``force=False`` only when what the pane shows for
        it (unresolved names, ``$env`` names, request variables) changed -- typing in the URL
        bar must not rebuild the pane on every key."""
        self.request, self.saved = request, saved
        if unresolved is None:
            unresolved = self._unresolved_of(request) if request is not None else []
        env_names: list[str] = []
        if request is not None:
            s = self.session
            chain = s.chain_of(request)
            headers = [*s.collection.headers, *(h for f in chain for h in f.headers)]
            texts = request_texts(request, headers, s.auth_of(request))
            env_names = env_references(texts)
        key = (
            id(request),
            tuple(unresolved),
            tuple(env_names),
            repr(request.variables) if request else "",
        )
        if not force and key == self._shown_for:
            return
        self._shown_for = key
        self.show_scopes(self._scopes_for(request), unresolved, env_names)

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
        """Rebuild the tree, unless it would show the same rows (a send, a preview refresh):
        rebuilding costs a relayout of the screen."""
        scopes = self._scopes
        rows = scopes.explain() if scopes is not None else {}
        plan = self._plan(scopes, rows)
        self.rows = rows
        if plan == self._plan_shown:
            return
        self._plan_shown = plan
        line = self.cursor_line
        self.clear()
        for label, data, expand, leaves in plan:
            if leaves is None:
                self.root.add_leaf(label, data=data)
                continue
            node = self.root.add(label, data=data, expand=expand)
            for leaf_label, leaf_data in leaves:
                node.add_leaf(leaf_label, data=leaf_data)
            if data is not None and not leaves:
                node.allow_expand = False
        if line >= 0:
            self.cursor_line = min(line, max(0, self.last_line))

    def _plan(self, scopes: Scopes | None, rows: dict[str, list[Definition]]) -> list[Any]:
        """The tree's nodes: (label, data, expanded, leaves or ``None`` for a leaf)."""
        plan: list[Any] = []
        if self._unresolved:
            leaves: list[tuple[Text, VariableRow | None]] = [
                (Text(f"{{{{{name}}}}}", style="red"), VariableRow(name))
                for name in self._unresolved
            ]
            plan.append((Text("unresolved", style="bold red"), None, True, leaves))
        for name, defs in rows.items():
            winner = defs[0]
            leaves = [(self._label(name, d, False), VariableRow(name, d)) for d in defs[1:]]
            plan.append((self._label(name, winner, True), VariableRow(name, winner), False, leaves))
        if self._env_names and scopes is not None:
            leaves = [(self._env_label(scopes, name), None) for name in self._env_names]
            plan.append((Text("$env", style="bold"), None, True, leaves))
        if not rows and not self._unresolved:
            plan.append((Text("no variables", style="dim"), None, False, None))
        return plan

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

    def _secret(self, source: SecretSource) -> str:
        """A secret's source; revealed, its value, read now if it can be (never a prompt)."""
        if not self.revealed:
            return source.describe()
        vault = self.session.vault
        value = vault.cached(source)
        if value is None and source.kind != "prompt" and self.session.is_trusted():
            from pigeon.secrets import SecretError

            try:
                value = vault.resolve(source)
            except SecretError as exc:
                return f"{source.describe()}  ({exc})"
        return source.describe() + "  (not read yet)" if value is None else preview(value, 60)

    def _label(self, name: str, d: Definition, winner: bool) -> Text:
        value = self._secret(d.value) if isinstance(d.value, SecretSource) else preview(d.value, 60)
        if not self.revealed and looks_secret(name):
            value = MASK
        tag, style = _SCOPE_TAG.get(d.scope, (d.scope[:3], ""))
        text = Text()
        text.append(f"{tag} ", style=style)
        if winner:
            text.append(name, style="bold")
            text.append(" = ", style="dim")
            text.append(value)
            kind = "secret" if isinstance(d.value, SecretSource) else kind_of(d.value)
            text.append(f"  {kind}", style="dim")
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
        if row is None:  # nothing highlighted: a new variable is `a`, never a surprise
            self.notify("Highlight a variable to edit (a adds one).", severity="warning")
            return
        d = row.definition
        if d is not None and isinstance(d.value, SecretSource):
            self.notify(f"{row.name} is a secret: edit [secrets] in its file.", severity="warning")
            return
        self.edit_variable(row.name, d.value if d else "", d.label if d else None)

    def action_add(self) -> None:
        self.edit_variable("", "", None)

    def action_clear_runtime(self) -> None:
        self.clear_runtime()

    def action_delete(self) -> None:
        """Delete the highlighted definition from the scope it is in, once confirmed."""
        from pigeon.tui.dialogs.confirm import ConfirmScreen

        node = self.cursor_node
        row = node.data if node is not None else None
        d = row.definition if row is not None else None
        if row is None or d is None:
            self.notify("Highlight a variable to delete.", severity="warning")
            return
        if isinstance(d.value, SecretSource):
            self.notify(f"{row.name} is a secret: edit [secrets] in its file.", severity="warning")
            return
        targets = variable_targets(self.session, self.request, self.saved)
        target = next((t for t in targets if t.layer == d.label), None)
        if target is None:
            self.notify(
                f"{row.name} is set by {d.label}, which cannot be edited here.", severity="warning"
            )
            return
        name = row.name

        def answered(yes: bool | None) -> None:
            if not yes:
                return
            if not self._after_write(target, target.delete(name)):
                return
            self.notify(f"Deleted {name} from {target.label.split(' (')[0]}.")

        message = f"Delete {name} from {target.label}?"
        self.app.push_screen(ConfirmScreen("Delete variable", message, yes="Delete"), answered)

    def on_tree_node_selected(self, event: Tree.NodeSelected[VariableRow | None]) -> None:
        event.stop()
        if (
            event.node.data is not None
            and event.node.data.definition is not None
            and not event.node.children
        ):
            self.action_edit()

    # -- editing ------------------------------------------------------------------------------

    def edit_variable(self, name: str, value: Any, defined_in: str | None) -> None:
        """Open the variable dialog for ``name`` (empty: a new variable). ``defined_in`` is the
        layer label of the definition chosen in the pane (``folder users``); the dialog starts
        on that scope when it is writable, else on the writable scope that wins for the name."""
        from pigeon.tui.dialogs.variable_edit import VariableEditScreen

        targets = variable_targets(self.session, self.request, self.saved)
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

        from pigeon.tui.placeholder_suggester import PlaceholderSuggester

        request = self.request
        suggester = PlaceholderSuggester(lambda: self._scopes_for(request))
        self.app.push_screen(
            VariableEditScreen(title, name, value, options, scope, suggester), done
        )

    def _after_write(self, target: Target, error: str | None) -> bool:
        """After a variable is written to or deleted from ``target``: say why it failed, or
        tell the screen what changed (the request's own tab too, for the request scope)."""
        if error is not None:
            self.notify(error, severity="error", timeout=8)
            return False
        if target.key == "request":
            self.post_message(self.RequestVariablesChanged())
        self.post_message(self.Changed())
        return True

    def _save_variable(
        self, v: VariableValue, targets: dict[str, Target], force: bool = False
    ) -> None:
        from pigeon.store import ChangedOnDisk

        target = targets.get(v.scope)
        if target is None:
            return
        try:
            error = target.save(v.name, v.value, force)
        except ChangedOnDisk as exc:
            self._ask_whose(exc, v, targets)
            return
        if not self._after_write(target, error):
            return
        where = target.label.split(" (")[0]
        shadow = shadowed_by(self.session, self.request, v.name, target)
        if shadow is None:
            self.notify(f"{v.name} saved in {where}.")
        else:
            self.notify(
                f"{v.name} saved in {where}, but that value is not used: {shadow}.",
                severity="warning",
                timeout=12,
            )

    def _ask_whose(self, exc: ChangedOnDisk, v: VariableValue, targets: dict[str, Target]) -> None:
        """The target's file changed on disk since it was read: ask whose version wins."""
        from pigeon.tui.dialogs.changed_on_disk import ChangedOnDiskScreen

        target = targets[v.scope]

        def answered(answer: str | None) -> None:
            if answer == "mine":
                self._save_variable(v, targets, force=True)
            elif answer == "theirs":
                self.post_message(self.ReloadWanted())
            elif answer == "beside" and target.beside is not None:
                try:
                    copy = target.beside(v.name, v.value)
                except Exception as error:
                    self.notify(f"Not saved: {error}", severity="error", timeout=8)
                    return
                where = f"{printable(copy.name)}, beside {printable(exc.path.name)}"
                self.notify(f"{v.name} saved in {where}.", markup=False)
                self.post_message(self.ReloadWanted())

        self.app.push_screen(ChangedOnDiskScreen(exc.path.name, exc.deleted), answered)

    def clear_runtime(self) -> None:
        """Forget every variable scripts have set."""
        count = len(self.session.runtime)
        self.session.runtime.clear()
        self.post_message(self.Changed())
        self.notify(f"Cleared {count} runtime variable(s).")
