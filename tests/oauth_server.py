"""A small OAuth 2.0 authorization server and a resource server on 127.0.0.1, for the tests.

It checks what a real server checks: the client's authentication by the method registered
for it (Basic header or body), each grant's parameters, the PKCE verifier (S256), one use
per authorization code, the redirect URI, refresh token rotation, the device grant's pace
(``authorization_pending``, ``slow_down``, expiry) and each token's expiry at ``/me``.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import http.server
import json
import secrets
import threading
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from urllib.parse import parse_qs, unquote, urlencode, urlsplit

CLIENTS = {
    # client id: (secret or None for a public client, "basic" | "body")
    "cc-client": ("cc-secret-9f8e7d", "basic"),
    "post-client": ("post-secret-1a2b3c", "body"),
    "public-client": (None, "none"),
}
USERS = {"ada": "lovelace-pw-77"}


@dataclass
class Issued:
    client: str
    scope: str
    expires_at: float
    user: str = ""


@dataclass
class DeviceCode:
    client: str
    scope: str
    user_code: str
    expires_at: float
    approved: bool = False
    last_poll: float = 0.0


@dataclass
class OAuthState:
    lifetime: float = 3600.0  # expires_in of new tokens
    device_interval: float = 0.2  # the pace the server enforces (slow_down when faster)
    advertised_interval: float | None = None  # the interval it tells (default: the same)
    device_lifetime: float = 30.0
    refuse_all: bool = False  # /me answers 401 to every token
    flood: int = 0  # bytes of a JSON string /token sends instead of a token (a hostile server)
    tokens: dict[str, Issued] = field(default_factory=dict)
    refresh: dict[str, Issued] = field(default_factory=dict)
    codes: dict[str, dict[str, str]] = field(default_factory=dict)
    devices: dict[str, DeviceCode] = field(default_factory=dict)
    grants: Counter[str] = field(default_factory=Counter)  # tokens issued per grant
    errors: list[str] = field(default_factory=list)  # error codes answered, in order
    me: list[str] = field(default_factory=list)  # the token each /me call carried
    lock: threading.Lock = field(default_factory=threading.Lock)

    def revoke_all(self) -> None:
        with self.lock:
            self.tokens.clear()

    def approve(self, user_code: str) -> None:
        with self.lock:
            for device in self.devices.values():
                if device.user_code == user_code:
                    device.approved = True


class _Handler(http.server.BaseHTTPRequestHandler):
    state: OAuthState
    base: str

    def log_message(self, *args: object) -> None:
        pass

    def _reply(self, status: int, data: dict | None = None, headers: dict | None = None) -> None:
        body = json.dumps(data).encode() if data is not None else b""
        self.send_response(status)
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        if data is not None:
            self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _error(self, code: str, status: int = 400) -> None:
        self.state.errors.append(code)
        self._reply(status, {"error": code, "error_description": f"{code} (test server)"})

    def _form(self) -> dict[str, str]:
        length = int(self.headers.get("Content-Length") or 0)
        pairs = parse_qs(self.rfile.read(length).decode(), keep_blank_values=True)
        return {k: v[0] for k, v in pairs.items()}

    def _client(self, form: dict[str, str]) -> str | None:
        """The authenticated client, by the method registered for it, or None."""
        header = self.headers.get("Authorization", "")
        if header.startswith("Basic "):
            user, _, password = base64.b64decode(header[6:]).decode().partition(":")
            client_id, secret = unquote(user), unquote(password)
            method = "basic"
        elif "client_secret" in form:
            client_id, secret, method = form.get("client_id", ""), form["client_secret"], "body"
        else:
            client_id, secret, method = form.get("client_id", ""), None, "none"
        known = CLIENTS.get(client_id)
        if known is None or known != (secret, method):
            return None
        return client_id

    def _issue(self, client: str, scope: str, grant: str, user: str = "", refresh: bool = True):
        state = self.state
        token = "at-" + secrets.token_urlsafe(16)
        state.tokens[token] = Issued(client, scope, time.time() + state.lifetime, user)
        state.grants[grant] += 1
        data = {"access_token": token, "token_type": "Bearer", "expires_in": state.lifetime}
        if scope:
            data["scope"] = scope
        if refresh:
            rt = "rt-" + secrets.token_urlsafe(16)
            state.refresh[rt] = Issued(client, scope, time.time() + 86400, user)
            data["refresh_token"] = rt
        self._reply(200, data, {"Cache-Control": "no-store"})

    def do_POST(self) -> None:
        path = urlsplit(self.path).path
        form = self._form()
        with self.state.lock:
            if path == "/token" and self.state.flood:
                body = b'{"access_token": "' + b"a" * self.state.flood + b'"}'
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                with contextlib.suppress(OSError):  # the client hangs up part way
                    self.wfile.write(body)
            elif path == "/token":
                self._token(form)
            elif path == "/device":
                self._device(form)
            else:
                self._reply(404, {"error": "not_found"})

    def _device(self, form: dict[str, str]) -> None:
        client = self._client(form)
        if client is None:
            return self._error("invalid_client", 401)
        code, user_code = "dc-" + secrets.token_urlsafe(12), "WDJB-MJHT"
        state = self.state
        state.devices[code] = DeviceCode(
            client, form.get("scope", ""), user_code, time.time() + state.device_lifetime
        )
        self._reply(
            200,
            {
                "device_code": code,
                "user_code": user_code,
                "verification_uri": f"{self.base}/activate",
                "verification_uri_complete": f"{self.base}/activate?user_code={user_code}",
                "expires_in": state.device_lifetime,
                "interval": state.advertised_interval or state.device_interval,
            },
        )

    def _token(self, form: dict[str, str]) -> None:
        client = self._client(form)
        if client is None:
            return self._error("invalid_client", 401)
        grant, scope = form.get("grant_type"), form.get("scope", "")
        state = self.state
        if grant == "client_credentials":
            if CLIENTS[client][0] is None:
                return self._error("unauthorized_client")
            return self._issue(client, scope, grant, refresh=False)
        if grant == "password":
            user = form.get("username", "")
            if USERS.get(user) != form.get("password"):
                return self._error("invalid_grant")
            return self._issue(client, scope, grant, user)
        if grant == "refresh_token":
            issued = state.refresh.pop(form.get("refresh_token", ""), None)  # rotated
            if issued is None or issued.client != client:
                return self._error("invalid_grant")
            return self._issue(client, scope or issued.scope, grant, issued.user)
        if grant == "authorization_code":
            code = state.codes.pop(form.get("code", ""), None)  # one use
            if code is None or code["client_id"] != client:
                return self._error("invalid_grant")
            if form.get("redirect_uri") != code["redirect_uri"]:
                return self._error("invalid_grant")
            verifier = form.get("code_verifier", "")
            digest = hashlib.sha256(verifier.encode()).digest()
            challenge = base64.urlsafe_b64encode(digest).rstrip(b"=").decode()
            if not verifier or challenge != code["code_challenge"]:
                return self._error("invalid_grant")
            return self._issue(client, code.get("scope", ""), grant, "ada")
        if grant == "urn:ietf:params:oauth:grant-type:device_code":
            device = state.devices.get(form.get("device_code", ""))
            if device is None or device.client != client:
                return self._error("invalid_grant")
            now = time.time()
            if now > device.expires_at:
                return self._error("expired_token")
            too_soon = now - device.last_poll < state.device_interval * 0.9
            device.last_poll = now
            if too_soon:
                return self._error("slow_down")
            if not device.approved:
                return self._error("authorization_pending")
            del state.devices[form["device_code"]]
            return self._issue(client, device.scope, "device_code", "ada")
        return self._error("unsupported_grant_type")

    def do_GET(self) -> None:
        parts = urlsplit(self.path)
        query = {k: v[0] for k, v in parse_qs(parts.query).items()}
        if parts.path == "/authorize":
            return self._authorize(query)
        if parts.path != "/me":
            return self._reply(404, {"error": "not_found"})
        header = self.headers.get(self.headers.get("X-Token-Header") or "Authorization", "")
        token = header.removeprefix("Bearer ").strip() or query.get("access_token", "")
        token = token or self.headers.get("X-Token", "")
        with self.state.lock:
            self.state.me.append(token)
            issued = self.state.tokens.get(token)
            good = issued is not None and issued.expires_at > time.time()
            if self.state.refuse_all or not good or issued is None:
                return self._reply(401, {"error": "invalid_token"}, {"WWW-Authenticate": "Bearer"})
            self._reply(200, {"client": issued.client, "scope": issued.scope, "user": issued.user})

    def _authorize(self, query: dict[str, str]) -> None:
        """Signs "ada" in at once and redirects with a code, as a browser would be."""
        client, redirect = query.get("client_id", ""), query.get("redirect_uri", "")
        if client not in CLIENTS or not redirect or query.get("response_type") != "code":
            return self._error("invalid_request")
        if query.get("code_challenge_method") != "S256" or not query.get("code_challenge"):
            return self._error("invalid_request")
        code = "ac-" + secrets.token_urlsafe(12)
        with self.state.lock:
            self.state.codes[code] = {**query}
        back = urlencode({"code": code, "state": query.get("state", "")})
        self._reply(302, None, {"Location": f"{redirect}?{back}"})


@contextmanager
def oauth_server() -> Iterator[tuple[str, OAuthState]]:
    """(base URL, state) of a server that stops when the block ends."""
    state = OAuthState()
    handler = type("Handler", (_Handler,), {"state": state})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    handler.base = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05})
    thread.daemon = True
    thread.start()
    try:
        yield handler.base, state
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)
