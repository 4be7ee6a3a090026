"""Auth: inherit, none, basic, bearer, an API key (in a header or the query), digest, AWS
Signature V4, or OAuth 2.0 (its grant's fields, where the token goes, and the token kept for
it). The kinds, their rows and which rows each shows are ``pigeon.auth_kinds``'."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import Input, Label, Select

from pigeon.auth_kinds import AUTH_TYPES, INHERIT, KINDS, Auth, Field, editor_fields
from pigeon.model import Request
from pigeon.tui.css import beside
from pigeon.tui.input_undo import UndoableInput
from pigeon.tui.widgets.editor.messages import RequestEdited
from pigeon.tui.widgets.editor.oauth2_token_view import OAuth2TokenView

# Every kind's rows, each kind's in its order; a kind shows its own (``AuthKind.shown``).
_ROWS = editor_fields()
_FIELD = {f.name: f for f in _ROWS}


def _widget_id(f: Field) -> str:
    """An input of the OAuth 2.0 settings is ``auth-o-<name>``, any other ``auth-<name>``."""
    return f"auth-o-{f.name}" if f.oauth2 and not f.choices else f"auth-{f.name}"


class AuthEditor(VerticalScroll):
    DEFAULT_CSS = beside(__file__)

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._request: Request | None = None

    def compose(self) -> ComposeResult:
        yield Select(
            [("inherit (from folder/collection)", INHERIT), *((t, t) for t in AUTH_TYPES)],
            value=INHERIT,
            allow_blank=False,
            compact=True,
            id="auth-type",
        )
        for f in _ROWS:
            if f.choices:
                yield self._select(f.name, f.title, f.choices)
                continue
            with Horizontal(classes="auth-row", id=f"auth-row-{f.name}"):
                yield Label(f.title, classes="auth-label")
                yield UndoableInput(id=_widget_id(f), password=f.secret, compact=True)
        yield OAuth2TokenView(id="auth-token-view")

    @staticmethod
    def _select(name: str, label: str, choices: tuple[str, ...]) -> Horizontal:
        return Horizontal(
            Label(label, classes="auth-label"),
            Select(
                [(c, c) for c in choices],
                value=choices[0],
                allow_blank=False,
                compact=True,
                id=f"auth-{name}",
            ),
            classes="auth-row",
            id=f"auth-row-{name}",
        )

    @property
    def request(self) -> Request | None:
        """The request whose auth is edited, once shown."""
        return self._request

    def show(self, request: Request) -> None:
        """Edit ``request.auth`` (``None`` means inherit)."""
        self._request = request
        auth = request.auth
        with self.prevent(Select.Changed, Input.Changed):
            self.query_one("#auth-type", Select).value = auth.type if auth else INHERIT
            current = auth or Auth()
            for f in _ROWS:
                value = f.get(current)
                if f.choices:
                    self.query_one(f"#{_widget_id(f)}", Select).value = value or f.default
                else:
                    self.query_one(f"#{_widget_id(f)}", Input).value = value
        self._show_fields()
        self.query_one(OAuth2TokenView).show(request)

    def _show_fields(self) -> None:
        auth = self._request.auth if self._request else None
        kind = KINDS.get(auth.type) if auth is not None else None
        wanted = set(kind.shown(auth)) if kind is not None and auth is not None else set()
        for f in _ROWS:
            self.query_one(f"#auth-row-{f.name}").display = f in wanted

    def on_select_changed(self, event: Select.Changed) -> None:
        event.stop()
        if self._request is None or event.value is Select.BLANK:
            return
        value = str(event.value)
        if event.select.id == "auth-type":
            if value == INHERIT:
                self._request.auth = None
            else:
                auth = self._request.auth or Auth()
                auth.type = value
                self._request.auth = auth
        elif self._request.auth is None:
            return
        elif event.select.id is not None:
            _FIELD[event.select.id.removeprefix("auth-")].set(self._request.auth, value)
        self._show_fields()
        self.query_one(OAuth2TokenView).show(self._request)
        self.post_message(RequestEdited())

    def on_input_changed(self, event: Input.Changed) -> None:
        event.stop()
        if self._request is None or self._request.auth is None or event.input.id is None:
            return
        name = event.input.id.removeprefix("auth-").removeprefix("o-")
        _FIELD[name].set(self._request.auth, event.value)
        self.post_message(RequestEdited())
