"""Auth: inherit, none, basic, bearer, an API key (in a header or the query), digest, AWS
Signature V4, or OAuth 2.0 (its grant's fields, where the token goes, and the token kept for
it)."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import Input, Label, Select

from pigeon.model import AUTH_TYPES, OAUTH2_GRANTS, Auth, Request
from pigeon.tui.css import beside
from pigeon.tui.widgets.editor.messages import RequestEdited
from pigeon.tui.widgets.editor.oauth2_token_view import OAuth2TokenView

INHERIT = "inherit"
_INPUTS = (
    "username", "password", "token", "key", "value",
    "access_key", "secret_key", "session_token", "region", "service",
)  # fmt: skip
_SECRET_INPUTS = ("password", "secret_key", "session_token")
_FIELDS = {
    "basic": ("username", "password"),
    "bearer": ("token",),
    "api_key": ("key", "value", "location"),
    "digest": ("username", "password"),
    "aws_sigv4": ("access_key", "secret_key", "session_token", "region", "service"),
}
# OAuth 2.0: (field, label, hidden like a password); the rows a grant shows are in _GRANT.
_OAUTH2_INPUTS = (
    ("token_url", "token url", False),
    ("auth_url", "auth url", False),
    ("device_url", "device url", False),
    ("client_id", "client id", False),
    ("client_secret", "secret", True),
    ("scope", "scope", False),
    ("audience", "audience", False),
    ("refresh_token", "refresh", True),
    ("redirect_uri", "redirect", False),
    ("header_name", "header", False),
    ("header_prefix", "prefix", False),
    ("query_name", "param", False),
)
_OAUTH2_COMMON = ("grant", "token_url", "client_id", "client_secret", "client_auth", "scope")
_GRANT = {
    "client_credentials": ("audience",),
    "password": ("username", "password", "audience"),
    "refresh_token": ("refresh_token",),
    "authorization_code": ("auth_url", "redirect_uri", "audience"),
    "device_code": ("device_url", "audience"),
}


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
        yield self._select("grant", "grant", OAUTH2_GRANTS)
        for name in _INPUTS:
            with Horizontal(classes="auth-row", id=f"auth-row-{name}"):
                yield Label(name.replace("_", " "), classes="auth-label")
                yield Input(id=f"auth-{name}", password=name in _SECRET_INPUTS, compact=True)
        for name, label, hidden in _OAUTH2_INPUTS:
            with Horizontal(classes="auth-row", id=f"auth-row-{name}"):
                yield Label(label, classes="auth-label")
                yield Input(id=f"auth-o-{name}", password=hidden, compact=True)
        yield self._select("client_auth", "auth by", ("basic", "body"))
        yield self._select("location", "in", ("header", "query"))
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
            for name in _INPUTS:
                self.query_one(f"#auth-{name}", Input).value = getattr(current, name)
            for name, _, _ in _OAUTH2_INPUTS:
                self.query_one(f"#auth-o-{name}", Input).value = getattr(current.oauth2, name)
            self.query_one("#auth-location", Select).value = current.location or "header"
            self.query_one("#auth-grant", Select).value = current.oauth2.grant
            self.query_one("#auth-client_auth", Select).value = current.oauth2.client_auth
        self._show_fields()
        self.query_one(OAuth2TokenView).show(request)

    def _show_fields(self) -> None:
        auth = self._request.auth if self._request else None
        auth_type = auth.type if auth else INHERIT
        wanted = set(_FIELDS.get(auth_type, ()))
        if auth is not None and auth_type == "oauth2":
            wanted |= {*_OAUTH2_COMMON, *_GRANT[auth.oauth2.grant], "location"}
            query = auth.location == "query"
            wanted |= {"query_name"} if query else {"header_name", "header_prefix"}
        names = [*_INPUTS, *(n for n, _, _ in _OAUTH2_INPUTS), "grant", "client_auth", "location"]
        for name in names:
            self.query_one(f"#auth-row-{name}").display = name in wanted

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
        elif event.select.id == "auth-location":
            self._request.auth.location = value
        elif event.select.id == "auth-grant":
            self._request.auth.oauth2.grant = value
        elif event.select.id == "auth-client_auth":
            self._request.auth.oauth2.client_auth = value
        self._show_fields()
        self.query_one(OAuth2TokenView).show(self._request)
        self.post_message(RequestEdited())

    def on_input_changed(self, event: Input.Changed) -> None:
        event.stop()
        if self._request is None or self._request.auth is None or event.input.id is None:
            return
        name = event.input.id.removeprefix("auth-")
        if name.startswith("o-"):
            setattr(self._request.auth.oauth2, name.removeprefix("o-"), event.value)
        else:
            setattr(self._request.auth, name, event.value)
        self.post_message(RequestEdited())
