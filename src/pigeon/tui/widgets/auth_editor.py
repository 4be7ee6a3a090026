"""Auth: inherit, none, basic, bearer, an API key (in a header or the query), digest or AWS
Signature V4."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import Input, Label, Select

from pigeon.model import AUTH_TYPES, Auth, Request
from pigeon.tui.css import beside
from pigeon.tui.widgets.messages import RequestEdited

INHERIT = "inherit"
_FIELDS = {
    "basic": ("username", "password"),
    "bearer": ("token",),
    "api_key": ("key", "value", "location"),
    "digest": ("username", "password"),
    "aws_sigv4": ("access_key", "secret_key", "session_token", "region", "service"),
}
_TEXT_FIELDS = (
    "username", "password", "token", "key", "value",
    "access_key", "secret_key", "session_token", "region", "service",
)  # fmt: skip
_SECRET_FIELDS = ("password", "secret_key", "session_token")


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
        for name in _TEXT_FIELDS:
            with Horizontal(classes="auth-row", id=f"auth-row-{name}"):
                yield Label(name.replace("_", " "), classes="auth-label")
                yield Input(id=f"auth-{name}", password=name in _SECRET_FIELDS, compact=True)
        with Horizontal(classes="auth-row", id="auth-row-location"):
            yield Label("in", classes="auth-label")
            yield Select(
                [("header", "header"), ("query", "query")],
                value="header",
                allow_blank=False,
                compact=True,
                id="auth-location",
            )

    def show(self, request: Request) -> None:
        """Edit ``request.auth`` (``None`` means inherit)."""
        self._request = request
        auth = request.auth
        with self.prevent(Select.Changed, Input.Changed):
            self.query_one("#auth-type", Select).value = auth.type if auth else INHERIT
            current = auth or Auth()
            for name in _TEXT_FIELDS:
                self.query_one(f"#auth-{name}", Input).value = getattr(current, name)
            self.query_one("#auth-location", Select).value = current.location or "header"
        self._show_fields(auth.type if auth else INHERIT)

    def _show_fields(self, auth_type: str) -> None:
        wanted = set(_FIELDS.get(auth_type, ()))
        for name in (*_TEXT_FIELDS, "location"):
            self.query_one(f"#auth-row-{name}").display = name in wanted

    def on_select_changed(self, event: Select.Changed) -> None:
        event.stop()
        if self._request is None or event.value is Select.BLANK:
            return
        if event.select.id == "auth-type":
            value = str(event.value)
            if value == INHERIT:
                self._request.auth = None
            else:
                auth = self._request.auth or Auth()
                auth.type = value
                self._request.auth = auth
            self._show_fields(value)
        elif self._request.auth is not None:
            self._request.auth.location = str(event.value)
        self.post_message(RequestEdited())

    def on_input_changed(self, event: Input.Changed) -> None:
        event.stop()
        if self._request is None or self._request.auth is None or event.input.id is None:
            return
        setattr(self._request.auth, event.input.id.removeprefix("auth-"), event.value)
        self.post_message(RequestEdited())
