"""Asking a token endpoint for a token, grant by grant (DESIGN §7), with authlib's httpx client.

Client credentials, password and refresh token need nobody; authorization code (with PKCE,
RFC 7636) and the device grant (RFC 8628) need a person, reached through ``Person``. Every
failure is one ``TokenError`` line naming the endpoint and the server's own error, with the
auth's secrets masked and the server's text shown, never obeyed (``terminal.printable``).
"""

from __future__ import annotations

import asyncio
import secrets
import time
import warnings
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Protocol
from urllib.parse import parse_qs, urlsplit

import httpx
from authlib.deprecate import AuthlibDeprecationWarning
from authlib.integrations.base_client import OAuthError

with warnings.catch_warnings():  # authlib would rather have httpx2; httpx is what Pigeon uses
    warnings.simplefilter("ignore", AuthlibDeprecationWarning)
    from authlib.integrations.httpx_client import AsyncOAuth2Client

from pigeon import __version__
from pigeon.errors import PigeonError
from pigeon.masking import Masker
from pigeon.model import Auth, Settings
from pigeon.oauth2.cache import Token
from pigeon.oauth2.loopback import Loopback
from pigeon.terminal import printable
from pigeon.tls import shared_verify

DEVICE_GRANT = "urn:ietf:params:oauth:grant-type:device_code"
MAX_DEVICE_WAIT = 1800.0  # seconds: a device code is given up on after this, whatever it says
SLOW_DOWN = 5.0  # seconds added to the polling interval on ``slow_down`` (RFC 8628 §3.5)


class TokenError(PigeonError):
    """No token: one line that says why."""


class NeedsPerson(TokenError):
    """The grant signs a person in, and nobody is there (``pigeon run``)."""


@dataclass
class DevicePrompt:
    """What the person needs to approve a device: the code to type and where."""

    user_code: str
    verification_uri: str
    verification_uri_complete: str
    expires_in: float


class Person(Protocol):
    """Whoever can sign in: the app's dialogs, or ``pigeon auth`` in a terminal."""

    async def device(self, prompt: DevicePrompt, approved: asyncio.Task[Token]) -> Token:
        """Show the code and URL until ``approved`` ends; cancelling it gives up."""
        ...

    async def authorize(self, url: str, redirected: asyncio.Future[str] | None) -> str:
        """Show the sign-in URL; return the redirected URL (or the code) the person pasted,
        or what ``redirected`` (the loopback redirect) received first."""
        ...


def _secrets(auth: Auth) -> list[str]:
    o = auth.oauth2
    return [s for s in (o.client_secret, auth.password, o.refresh_token) if s]


class Grants:
    """One token request of one ``oauth2`` auth (rendered): the client and its error lines."""

    def __init__(self, auth: Auth, settings: Settings, slow_down: float = SLOW_DOWN) -> None:
        self.auth, self.o = auth, auth.oauth2
        self.masker = Masker(_secrets(auth))
        self.slow_down = slow_down
        o = self.o
        if not o.token_url:
            raise TokenError("oauth2 auth: token_url is empty")
        method = "none"
        if o.client_secret:
            method = "client_secret_basic" if o.client_auth == "basic" else "client_secret_post"
        self.deadline = settings.timeout
        self.client = AsyncOAuth2Client(
            transport=_Capped(
                httpx.AsyncHTTPTransport(
                    verify=shared_verify(settings.verify_tls, http2=False, trust_env=True)
                )
            ),
            client_id=o.client_id or None,
            client_secret=o.client_secret or None,
            token_endpoint_auth_method=method,
            scope=o.scope or None,
            code_challenge_method="S256",
            timeout=settings.timeout,
            follow_redirects=False,
            headers={"User-Agent": f"pigeon/{__version__}"},  # as every send, not httpx's
        )
        self.params = {k: v for k, v in {"audience": o.audience, **o.params}.items() if v}

    async def aclose(self) -> None:
        await self.client.aclose()

    def fail(self, what: str, url: str) -> TokenError:
        host = urlsplit(url).netloc or url
        return TokenError(printable(self.masker.text(f"OAuth 2.0 {what} ({host})")))

    def _failure(self, exc: Exception, url: str) -> TokenError:
        """One line for what went wrong asking ``url``."""
        if isinstance(exc, OAuthError):
            detail = f"{exc.error}: {exc.description}" if exc.description else str(exc.error)
            return self.fail(f"token refused: {detail}", url)
        if isinstance(exc, httpx.HTTPStatusError):
            return self.fail(f"token endpoint answered {exc.response.status_code}", url)
        if isinstance(exc, (httpx.ConnectError, httpx.ConnectTimeout)):
            return self.fail(f"token endpoint unreachable: {exc or type(exc).__name__}", url)
        if isinstance(exc, httpx.HTTPError):
            return self.fail(f"token endpoint failed: {exc or type(exc).__name__}", url)
        return self.fail(f"token endpoint answered no token: {exc}", url)

    async def _ask(self, url: str, call: Callable[[], Awaitable[Any]]) -> dict[str, Any]:
        """One request to an endpoint; its answer, or a ``TokenError`` naming what failed."""
        try:
            async with asyncio.timeout(self.deadline):  # one deadline, as for a send
                return dict(await call())
        except TimeoutError:
            raise self.fail(f"token endpoint timed out after {self.deadline:g} s", url) from None
        except (OAuthError, httpx.HTTPError, ValueError) as exc:
            raise self._failure(exc, url) from None

    def _token(self, data: dict[str, Any], grant: str) -> Token:
        try:
            return Token.from_response(data, grant, self.o.scope)
        except ValueError as exc:
            raise self.fail(f"token endpoint answered no token: {exc}", self.o.token_url) from None

    async def fetch(self, person: Person | None) -> Token:
        """A token by the auth's own grant."""
        o, url = self.o, self.o.token_url
        if o.grant == "client_credentials":
            call = lambda: self.client.fetch_token(  # noqa: E731
                url, grant_type="client_credentials", **self.params
            )
        elif o.grant == "password":
            call = lambda: self.client.fetch_token(  # noqa: E731
                url,
                grant_type="password",
                username=self.auth.username,
                password=self.auth.password,
                **self.params,
            )
        elif o.grant == "refresh_token":
            return await self.refresh(o.refresh_token)
        elif person is None:
            raise NeedsPerson(
                f"needs a person: the {o.grant} grant signs in interactively; open the app, "
                f"or fetch a token first with `pigeon auth COLLECTION REQUEST`"
            )
        elif o.grant == "device_code":
            return await self.device(person)
        else:
            return await self.authorization_code(person)
        return self._token(await self._ask(url, call), o.grant)

    async def refresh(self, refresh_token: str) -> Token:
        if not refresh_token:
            raise TokenError("oauth2 auth: the refresh_token grant needs a refresh_token")
        url = self.o.token_url
        data = await self._ask(
            url,
            lambda: self.client.refresh_token(url, refresh_token=refresh_token, **self.params),
        )
        token = self._token(data, self.o.grant)
        token.refresh_token = token.refresh_token or refresh_token
        return token

    async def device(self, person: Person) -> Token:
        """RFC 8628: ask for a device code, show it, poll at the server's pace until approved."""
        o = self.o
        if not o.device_url:
            raise TokenError("oauth2 auth: the device_code grant needs a device_url")
        body = {**({"scope": o.scope} if o.scope else {}), **self.params}  # + the client's auth
        auth = self.client.client_auth(self.client.token_endpoint_auth_method)

        async def start() -> dict[str, Any]:
            response = await self.client.request(
                "POST", o.device_url, data=body, auth=auth, withhold_token=True
            )
            if response.status_code >= 400:
                try:
                    error = response.json()
                except ValueError:
                    error = None
                if isinstance(error, dict) and isinstance(error.get("error"), str):
                    raise OAuthError(error["error"], error.get("error_description"))
                response.raise_for_status()
            answer = response.json()
            if not isinstance(answer, dict):
                raise ValueError("the answer is not a JSON object")
            return answer

        data = await self._ask(o.device_url, start)
        code, user_code = data.get("device_code"), data.get("user_code")
        uri = data.get("verification_uri") or data.get("verification_url")
        if not all(isinstance(v, str) and v for v in (code, user_code, uri)):
            raise self.fail(
                "device endpoint answered no device_code, user_code or URI", o.device_url
            )
        expires = _number(data.get("expires_in"), 600.0, 1.0, MAX_DEVICE_WAIT)
        interval = _number(data.get("interval"), 5.0, 0.2, 60.0)
        complete = data.get("verification_uri_complete")
        prompt = DevicePrompt(
            user_code=printable(str(user_code)),
            verification_uri=printable(str(uri)),
            verification_uri_complete=printable(complete) if isinstance(complete, str) else "",
            expires_in=expires,
        )
        poll = asyncio.ensure_future(self._poll(str(code), interval, time.monotonic() + expires))
        try:
            return await person.device(prompt, poll)
        finally:
            poll.cancel()

    async def _poll(self, device_code: str, interval: float, deadline: float) -> Token:
        url = self.o.token_url
        while True:
            await asyncio.sleep(interval)
            if time.monotonic() > deadline:
                raise self.fail("device code expired before it was approved", url)
            try:
                data = await self.client.fetch_token(
                    url, grant_type=DEVICE_GRANT, device_code=device_code, **self.params
                )
            except OAuthError as exc:
                if exc.error == "authorization_pending":
                    continue
                if exc.error == "slow_down":
                    interval += self.slow_down
                    continue
                raise self._failure(exc, url) from None
            except (httpx.HTTPError, ValueError) as exc:
                raise self._failure(exc, url) from None
            return self._token(dict(data), "device_code")

    async def authorization_code(self, person: Person) -> Token:
        """RFC 6749 §4.1 with PKCE: the person signs in at ``auth_url``; the code comes back
        to a loopback redirect or is pasted by the person (over SSH)."""
        o = self.o
        if not o.auth_url:
            raise TokenError("oauth2 auth: the authorization_code grant needs an auth_url")
        loopback = await Loopback.open(o.redirect_uri)
        redirect_uri = loopback.redirect_uri if loopback else o.redirect_uri or ""
        try:
            verifier = secrets.token_urlsafe(48)
            url, state = self.client.create_authorization_url(
                o.auth_url, code_verifier=verifier, redirect_uri=redirect_uri or None, **self.params
            )
            answer = await person.authorize(url, loopback.received if loopback else None)
        finally:
            if loopback is not None:
                loopback.close()
        code = _code_from(answer.strip(), state)
        if isinstance(code, TokenError):
            raise self.fail(str(code), o.auth_url)
        data = await self._ask(
            o.token_url,
            lambda: self.client.fetch_token(
                o.token_url,
                grant_type="authorization_code",
                code=code,
                redirect_uri=redirect_uri or None,
                code_verifier=verifier,
                **self.params,
            ),
        )
        return self._token(data, "authorization_code")


MAX_ANSWER = 1_000_000  # bytes: a token endpoint's answer is a few hundred


class _Capped(httpx.AsyncBaseTransport):
    """A transport whose answers stop at ``MAX_ANSWER`` bytes: a token endpoint that sends
    without end fails the fetch instead of filling the memory."""

    def __init__(self, inner: httpx.AsyncBaseTransport) -> None:
        self.inner = inner

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        response = await self.inner.handle_async_request(request)
        stream = response.stream
        assert isinstance(stream, httpx.AsyncByteStream)

        async def capped() -> AsyncIterator[bytes]:
            seen = 0
            async for chunk in stream:
                seen += len(chunk)
                if seen > MAX_ANSWER:
                    raise httpx.ReadError(f"the answer is larger than {MAX_ANSWER} bytes")
                yield chunk

        return httpx.Response(
            response.status_code,
            headers=response.headers,
            stream=_Stream(capped(), stream),
            extensions=response.extensions,
        )

    async def aclose(self) -> None:
        await self.inner.aclose()


class _Stream(httpx.AsyncByteStream):
    def __init__(self, chunks: AsyncIterator[bytes], inner: httpx.AsyncByteStream) -> None:
        self.chunks, self.inner = chunks, inner

    def __aiter__(self) -> AsyncIterator[bytes]:
        return self.chunks

    async def aclose(self) -> None:
        await self.inner.aclose()


def _number(value: Any, default: float, low: float, high: float) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return default
    return max(low, min(float(value), high))


def _code_from(answer: str, state: str) -> str | TokenError:
    """The code in what the person pasted: the redirected URL (its state checked) or the code."""
    if not answer:
        return TokenError("sign-in gave no code")
    if "code=" not in answer and "error=" not in answer:
        return answer
    query = parse_qs(urlsplit(answer).query or answer.partition("?")[2] or answer)
    if "error" in query:
        detail = query.get("error_description", [""])[0]
        return TokenError(f"sign-in refused: {query['error'][0]}{': ' + detail if detail else ''}")
    if query.get("state", [""])[0] != state:
        return TokenError("sign-in answered for another request (its state does not match)")
    return query.get("code", [""])[0] or TokenError("sign-in gave no code")


__all__ = [
    "DEVICE_GRANT",
    "DevicePrompt",
    "Grants",
    "NeedsPerson",
    "Person",
    "TokenError",
]
