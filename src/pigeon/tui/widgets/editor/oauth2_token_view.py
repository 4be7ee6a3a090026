"""The OAuth 2.0 token kept for the request's auth (its own or inherited): grant, scope,
expiry and a masked value, with keys to fetch it anew and to forget it. The fetch runs in a
worker of the send group, so escape cancels it and its sign-in dialogs, as it cancels a send."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from textual import work
from textual.binding import Binding
from textual.widgets import Static

from pigeon.auth_kinds import OAUTH2
from pigeon.masking import MASK
from pigeon.model import Auth, Request
from pigeon.terminal import printable
from pigeon.tui.session_of import session_of

if TYPE_CHECKING:
    from pigeon.oauth2 import Token
    from pigeon.session import Session


def _when(seconds: float) -> str:
    minutes = abs(seconds) / 60
    span = f"{abs(seconds):.0f} s" if minutes < 2 else f"{minutes:.0f} min"
    return f"expires in {span}" if seconds > 0 else f"expired {span} ago"


def describe(token: Token | None) -> str:
    """The token in one line, its value masked."""
    if token is None:
        return "No token kept: the first send fetches one."
    expiry = "no expiry given"
    if token.expires_at is not None:
        expiry = _when(token.expires_at - time.time())
    scope = f" · scope {printable(token.scope)}" if token.scope else ""
    value = f"{printable(token.access_token[:4])}{MASK}"
    return f"Token {value} · {token.grant}{scope} · {expiry}"


class OAuth2TokenView(Static, can_focus=True):
    """Shown when the request's auth is ``oauth2``."""

    DEFAULT_CSS = """
    OAuth2TokenView { height: auto; margin-top: 1; padding: 0 1; border: round $primary 50%; }
    OAuth2TokenView:focus { border: round $primary; }
    """
    BINDINGS = [
        Binding("f", "fetch", "Fetch token", tooltip="Fetch the OAuth 2.0 token anew"),
        Binding("x", "forget", "Forget token", tooltip="Forget the kept OAuth 2.0 token"),
    ]

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("", id=id)
        self.request: Request | None = None
        self.border_title = "OAuth 2.0 token"

    @property
    def session(self) -> Session:
        return session_of(self)

    def show(self, request: Request) -> None:
        self.request = request
        auth = self._auth()
        self.display = auth is not None
        if auth is not None:
            self.update(describe(self.session.oauth2_tokens().current(self._env(), auth)))

    def _env(self) -> str | None:
        return self.session.environment or None

    def _auth(self, leaving: bool = False) -> Auth | None:
        """The request's ``oauth2`` auth, rendered; ``leaving``: behind the trust gate, as a
        send renders it (a fetch sends secrets)."""
        s, request = self.session, self.request
        if request is None:
            return None
        auth = s.auth_of(request)
        if auth is None or auth.type != OAUTH2.name:
            return None
        if leaving:
            leaving = not s.is_trusted()
        try:
            return s.render(request, leaving).oauth2
        except Exception as exc:  # a render error: the send would say the same
            if leaving:
                raise
            self.update(f"Cannot render the auth: {printable(str(exc))}")
            return None

    def action_forget(self) -> None:
        auth = self._auth()
        if auth is not None and self.request is not None:
            self.session.oauth2_tokens().forget(self._env(), auth)
            self.show(self.request)
            self.notify("Token forgotten: the next send fetches one.")

    def action_fetch(self) -> None:
        self._fetch()

    @work(exclusive=True, group="send", exit_on_error=False)
    async def _fetch(self) -> None:
        from pigeon.oauth2 import TokenError

        try:
            auth = self._auth(leaving=True)
        except Exception as exc:
            self.notify(printable(str(exc)), severity="error", timeout=8)
            return
        if auth is None or self.request is None:
            return
        self.update("Fetching a token…")
        tokens = self.session.oauth2_tokens()
        try:
            await tokens.token(self._env(), auth, self.request.settings, fresh=True)
        except TokenError as exc:
            self.notify(str(exc), severity="error", timeout=8)
        finally:
            self.show(self.request)
