"""OAuth 2.0 as an auth kind (DESIGN §5, §7): a token fetched on first need, kept, refreshed.

A request whose auth is ``oauth2`` renders with a stand-in where the token goes
(``render.OAUTH2_TOKEN``) and its auth's fields rendered (``RenderedRequest.oauth2``), so the
trust gate has already judged every ``$env`` a token fetch would read. Before the send,
``Tokens`` gives a token: the cached one while it has more than ``LEEWAY`` seconds left, else
a refreshed one (its refresh token), else a new one by the auth's grant. A 401 answer gets
one more try with a fresh token, then a warning. The token goes into a copy of the rendered
request (``with_token``) that also lists it in ``secrets``, so history masks it wherever it
appears; the request a render or an export shows keeps the stand-in.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Awaitable, Callable
from pathlib import Path
from urllib.parse import quote

from pigeon.exchange import Exchange
from pigeon.masking import MASK
from pigeon.model import Auth, Settings
from pigeon.oauth2.cache import Token, TokenCache, cache_key
from pigeon.oauth2.grants import (
    SLOW_DOWN,
    DevicePrompt,
    Grants,
    NeedsPerson,
    Person,
    TokenError,
)
from pigeon.render import OAUTH2_TOKEN, RenderedRequest

__all__ = [
    "LEEWAY",
    "DevicePrompt",
    "NeedsPerson",
    "Person",
    "Token",
    "TokenError",
    "Tokens",
    "send_with_token",
    "with_token",
]

LEEWAY = 30.0  # seconds: a token closer than this to its expiry is renewed before a send


class Tokens:
    """The tokens of one collection: its cache file, and who signs in when a grant needs it."""

    def __init__(
        self, root: Path, person: Person | None = None, slow_down: float = SLOW_DOWN
    ) -> None:
        self.cache = TokenCache(root)
        self.person = person
        self.slow_down = slow_down
        self._locks: dict[str, asyncio.Lock] = {}

    def current(self, environment: str | None, auth: Auth) -> Token | None:
        """The kept token for a rendered auth, expired or not."""
        return self.cache.get(cache_key(environment, auth))

    def forget(self, environment: str | None, auth: Auth) -> None:
        self.cache.forget(cache_key(environment, auth))

    async def token(
        self,
        environment: str | None,
        auth: Auth,
        settings: Settings,
        *,
        fresh: bool = False,
        rejected: Token | None = None,
    ) -> Token:
        """A token to send: the kept one while it is good; ``fresh`` (or ``rejected``, the
        one a server just refused) renews it, by its refresh token first."""
        key = cache_key(environment, auth)
        lock = self._locks.setdefault(key, asyncio.Lock())
        async with lock:  # two sends at once fetch once
            kept = self.cache.get(key)
            if rejected is not None and kept is not None and kept != rejected:
                return kept  # another send renewed it meanwhile
            if kept and not (fresh or rejected or kept.expires_within(LEEWAY)):
                return kept
            grants = Grants(auth, settings, self.slow_down)
            try:
                token = None
                if kept is not None and kept.refresh_token:
                    try:
                        token = await grants.refresh(kept.refresh_token)
                    except TokenError:
                        token = None  # a refresh token that no longer works: fetch anew
                if token is None:
                    token = await grants.fetch(self.person)
            finally:
                await grants.aclose()
            self.cache.put(key, token)
            return token


def with_token(rendered: RenderedRequest, token: Token) -> RenderedRequest:
    """A copy of ``rendered`` with the token where the stand-in is, and listed as a secret."""
    masked = dict(rendered.masked)

    def with_it(text: str, stand_in: str, value: str, hidden: str) -> str:
        if stand_in not in text:
            return text
        out = text.replace(stand_in, value)
        masked[out] = masked.get(text, text).replace(stand_in, hidden)
        return out

    headers = [(n, with_it(v, OAUTH2_TOKEN, token.access_token, MASK)) for n, v in rendered.headers]
    url = rendered.url
    for name in rendered.auth_query:
        key = quote(name, safe="")
        url = with_it(
            url,
            f"{key}={quote(OAUTH2_TOKEN, safe='')}",
            f"{key}={quote(token.access_token, safe='')}",
            f"{key}={quote(MASK, safe='')}",
        )
    return dataclasses.replace(
        rendered,
        headers=headers,
        url=url,
        secrets=[*rendered.secrets, token.access_token],
        masked=masked,
    )


async def send_with_token(
    tokens: Tokens,
    environment: str | None,
    rendered: RenderedRequest,
    send: Callable[[RenderedRequest], Awaitable[Exchange]],
) -> Exchange:
    """Send with a token; on a 401, once more with a fresh one, then give up saying so."""
    assert rendered.oauth2 is not None
    auth, settings = rendered.oauth2, rendered.settings
    token = await tokens.token(environment, auth, settings)
    exchange = await send(with_token(rendered, token))
    if tokens.cache.warning:  # a .pigeon/ that links elsewhere: kept in memory only
        exchange.warnings.append(tokens.cache.warning)
    if exchange.status != 401:
        return exchange
    exchange.discard()
    token = await tokens.token(environment, auth, settings, rejected=token)
    exchange = await send(with_token(rendered, token))
    if exchange.status == 401:
        exchange.warnings.append(
            "the server refused a fresh OAuth 2.0 token too (401): check the auth's scope, "
            "audience and client"
        )
    return exchange
