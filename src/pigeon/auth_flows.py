"""Auth that acts on the request as it is sent (DESIGN §7): HTTP digest, which answers the
server's challenge (httpx's ``DigestAuth``); NTLM and Negotiate, a handshake on one connection
(``pyspnego``); AWS Signature Version 4, OAuth 1.0a (``authlib.oauth1``) and Hawk, which sign
the final method, URL, headers and body.

The signer follows AWS's published rules (and botocore's choices): the path normalised and
URI-encoded twice except for S3, the query re-encoded and sorted, header values trimmed with
inner spaces folded, ``X-Amz-Security-Token`` for temporary credentials and
``X-Amz-Content-SHA256`` for S3. It signs ``host``, ``content-type``, every ``x-amz-*`` header
and every header Pigeon itself set (collection, folder, request), so what the user wrote is
covered; the transport's own headers (``User-Agent``, ``Accept-Encoding``, ``Connection``)
are not, as a proxy may change them. It is checked against AWS's SigV4 test suite and
against botocore in the tests. (httpx-auth's ``AWS4Auth`` signs only host, content type and
``x-amz-*`` and cannot be given a clock, so neither property could be checked.)
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import posixpath
import secrets
import time
from collections.abc import Callable, Generator, Iterable
from datetime import datetime, timezone
from typing import Any
from urllib.parse import quote, unquote

import httpx

from pigeon.auth_kinds import (
    AWS_SIGV4,
    DIGEST,
    HAWK,
    KINDS,
    NEGOTIATE,
    NTLM,
    OAUTH1,
    AuthKind,
    FlowAuth,
)
from pigeon.render import RenderedRequest

Flow = Generator[httpx.Request, httpx.Response, None]


class FlowError(httpx.LocalProtocolError):
    """A flow that cannot sign the request as it stands; the send reports it as invalid."""


ALGORITHM = AWS_SIGV4.scheme
# Hop-by-hop and transport headers: a proxy may add, drop or change them.
_UNSIGNED = frozenset(
    {"user-agent", "expect", "connection", "keep-alive", "proxy-authorization", "te",
     "trailer", "transfer-encoding", "upgrade", "x-amzn-trace-id", "authorization"}
)  # fmt: skip


def _hmac(key: bytes, text: str) -> bytes:
    return hmac.new(key, text.encode("utf-8"), hashlib.sha256).digest()


def _encode(text: str) -> str:
    """AWS's UriEncode: everything but unreserved characters, as %XX with upper-case hex."""
    return quote(text, safe="-_.~")


def canonical_path(raw_path: str, s3: bool) -> str:
    path = raw_path or "/"
    if s3:
        return path
    normal = posixpath.normpath(path)
    if normal.startswith("//"):
        normal = normal[1:]
    if path.endswith("/") and normal != "/":
        normal += "/"
    return quote(normal, safe="/~")


def canonical_query(query: str) -> str:
    pairs = []
    for item in query.split("&") if query else ():
        name, _, value = item.partition("=")
        pairs.append((_encode(unquote(name)), _encode(unquote(value))))
    return "&".join(f"{n}={v}" for n, v in sorted(pairs))


class SigV4(httpx.Auth):
    """Signs each request it is given; ``now`` is for the test suite's fixed dates."""

    requires_request_body = True

    def __init__(
        self,
        auth: FlowAuth,
        signed: Iterable[str] = (),
        now: Callable[[], datetime] = lambda: datetime.now(timezone.utc),
    ) -> None:
        self.auth = auth
        self.signed = {name.lower() for name in signed} - _UNSIGNED
        self.now = now
        self.s3 = auth.service.lower() == "s3"

    def sign(self, request: httpx.Request) -> None:
        stamp = self.now().astimezone(timezone.utc)
        amz_date, day = stamp.strftime("%Y%m%dT%H%M%SZ"), stamp.strftime("%Y%m%d")
        request.headers["X-Amz-Date"] = amz_date
        if self.auth.session_token:
            request.headers["X-Amz-Security-Token"] = self.auth.session_token
        payload = hashlib.sha256(request.content).hexdigest()
        if self.s3:
            request.headers["X-Amz-Content-SHA256"] = payload
        values: dict[str, list[str]] = {}
        for name, value in request.headers.multi_items():
            lname = name.lower()
            wanted = lname in ("host", "content-type") or lname.startswith("x-amz-")
            if (wanted or lname in self.signed) and lname not in _UNSIGNED:
                values.setdefault(lname, []).append(" ".join(value.split()))
        names = sorted(values)
        signed = ";".join(names)
        raw_path = request.url.raw_path.decode("ascii")
        path, _, query = raw_path.partition("?")
        canonical = "\n".join(
            [
                request.method.upper(),
                canonical_path(path, self.s3),
                canonical_query(query),
                "".join(f"{name}:{','.join(values[name])}\n" for name in names),
                signed,
                payload,
            ]
        )
        scope = f"{day}/{self.auth.region}/{self.auth.service}/aws4_request"
        to_sign = "\n".join(
            [ALGORITHM, amz_date, scope, hashlib.sha256(canonical.encode()).hexdigest()]
        )
        key = f"AWS4{self.auth.secret_key}".encode()
        for part in (day, self.auth.region, self.auth.service, "aws4_request"):
            key = _hmac(key, part)
        signature = hmac.new(key, to_sign.encode(), hashlib.sha256).hexdigest()
        request.headers["Authorization"] = (
            f"{ALGORITHM} Credential={self.auth.access_key}/{scope}, "
            f"SignedHeaders={signed}, Signature={signature}"
        )

    def auth_flow(self, request: httpx.Request) -> Generator[httpx.Request, httpx.Response, None]:
        self.sign(request)
        yield request


class Handshake(httpx.Auth):
    """NTLM, or Negotiate (SPNEGO around NTLM): the request goes as it is; a 401 that offers
    the scheme is answered with the client's first token, the server's challenge with the
    second, each leg on the connection of the one before (httpx reads each response whole,
    so a keep-alive connection is reused; NTLM authenticates the connection, not a request).
    ``pyspnego`` is imported at the first challenge only."""

    requires_request_body = True  # the body goes again with each leg

    def __init__(self, auth: FlowAuth) -> None:
        self.auth = auth
        self.scheme = KINDS[auth.type].scheme

    def _token(self, response: httpx.Response) -> bytes | None:
        """The server's token after our scheme in ``WWW-Authenticate`` (``b""``: offered,
        no token); ``None`` when the scheme is not offered."""
        for value in response.headers.get_list("www-authenticate"):
            for offer in value.split(","):
                word, _, data = offer.strip().partition(" ")
                if word.lower() == self.scheme.lower():
                    try:
                        return base64.b64decode(data.strip(), validate=True)
                    except ValueError:
                        return None
        return None

    def auth_flow(self, request: httpx.Request) -> Flow:
        response = yield request
        if response.status_code != 401 or self._token(response) is None:
            return
        import spnego
        import spnego.exceptions

        try:
            context = spnego.client(
                self.auth.account,
                self.auth.password,
                hostname=request.url.host or "unspecified",
                service="http",
                protocol=self.auth.type,  # the kind's name is pyspnego's protocol
            )
            token = context.step()
            while token:
                request.headers["Authorization"] = (
                    f"{self.scheme} {base64.b64encode(token).decode()}"
                )
                response = yield request
                challenge = self._token(response)
                if context.complete or response.status_code != 401 or not challenge:
                    return
                token = context.step(challenge)
        except spnego.exceptions.SpnegoError:
            return  # the server's answer stands: its 401 says the handshake failed


class OAuth1Signer(httpx.Auth):
    """OAuth 1.0a (RFC 5849) by ``authlib.oauth1.ClientAuth``: the OAuth parameters and
    signature in the ``Authorization`` header, the query or the form body. A form body's
    fields are signed; another body is covered by ``oauth_body_hash``."""

    requires_request_body = True
    _FORM = "application/x-www-form-urlencoded"

    def __init__(self, auth: FlowAuth) -> None:
        self.auth = auth

    def sign(self, request: httpx.Request) -> httpx.Request:
        a = self.auth
        content_type = request.headers.get("Content-Type", "")
        form = content_type.split(";")[0].strip().lower() == self._FORM
        if a.placement == "body" and not form:
            raise FlowError(
                f"{OAUTH1.name} auth: placement = body needs a form body "
                f"({self._FORM}); this one is {content_type or 'empty'}",
                request=request,
            )
        client = _oauth1_client()(
            a.consumer_key,
            a.consumer_secret or None,
            token=a.token or None,
            token_secret=a.token_secret or None,
            redirect_uri=a.callback or None,
            rsa_key=a.private_key or None,
            verifier=a.verifier or None,
            signature_method=a.signature_method,
            signature_type=a.placement.upper(),
            realm=a.realm or None,
        )
        headers = {"Content-Type": self._FORM} if form else {}
        body: str | bytes = request.content.decode("utf-8") if form else request.content
        try:
            url, signed, body = client.sign(request.method, str(request.url), headers, body)
        except ValueError as exc:  # a private key that does not load
            raise FlowError(f"{OAUTH1.name} auth: {exc}", request=request) from None
        if a.placement == "query":  # the OAuth parameters after the query as it was written
            added = [
                (k, v) for k, v in httpx.URL(url).params.multi_items() if k.startswith("oauth_")
            ]
            query = request.url.query.decode("ascii")
            extra = "&".join(f"{quote(k, safe='')}={quote(v, safe='')}" for k, v in added)
            request.url = request.url.copy_with(
                query=(f"{query}&{extra}" if query else extra).encode()
            )
        if "Authorization" in signed:
            request.headers["Authorization"] = signed["Authorization"]
        if a.placement != "body":
            return request
        data = body.encode("utf-8") if isinstance(body, str) else body
        sent = httpx.Headers(request.headers)
        sent.pop("Content-Length", None)
        return httpx.Request(
            request.method, request.url, headers=sent, content=data,
            extensions=request.extensions,
        )  # fmt: skip

    def auth_flow(self, request: httpx.Request) -> Flow:
        yield self.sign(request)


def _oauth1_client() -> Any:
    """authlib's ``ClientAuth`` with the SHA-256 signatures beside its own (HMAC-SHA1,
    RSA-SHA1, PLAINTEXT): the same base string (RFC 5849 §3.4.1), another digest. A subclass,
    so authlib's own table is left as it is."""
    from authlib.oauth1 import ClientAuth
    from authlib.oauth1.rfc5849.signature import generate_signature_base_string

    def hmac_sha256(client: Any, request: Any) -> str:
        base = generate_signature_base_string(request)
        secrets_ = (client.client_secret or "", client.token_secret or "")
        key = "&".join(quote(part, safe="~") for part in secrets_)
        digest = hmac.new(key.encode(), base.encode(), hashlib.sha256).digest()
        return base64.b64encode(digest).decode("ascii")

    def rsa_sha256(client: Any, request: Any) -> str:
        from cryptography.hazmat.primitives import hashes, serialization
        from cryptography.hazmat.primitives.asymmetric import padding, rsa

        base = generate_signature_base_string(request)
        key = serialization.load_pem_private_key((client.rsa_key or "").encode(), None)
        if not isinstance(key, rsa.RSAPrivateKey):
            raise ValueError("the private key is not an RSA key")
        signature = key.sign(base.encode(), padding.PKCS1v15(), hashes.SHA256())
        return base64.b64encode(signature).decode("ascii")

    class Client(ClientAuth):
        SIGNATURE_METHODS = {
            **ClientAuth.SIGNATURE_METHODS,
            "HMAC-SHA256": hmac_sha256,
            "RSA-SHA256": rsa_sha256,
        }

    return Client


def hawk_payload_hash(algorithm: str, content_type: str, body: bytes) -> str:
    """The Hawk hash of a body: its media type (parameters dropped, lower case) and bytes."""
    mime = content_type.split(";")[0].strip().lower()
    digest = hashlib.new(algorithm)
    digest.update(f"hawk.1.payload\n{mime}\n".encode())
    digest.update(body)
    digest.update(b"\n")
    return base64.b64encode(digest.digest()).decode("ascii")


class HawkSigner(httpx.Auth):
    """Hawk (hapijs/hawk's header scheme, version 1): a MAC over the time, a nonce, the
    method, the path and query, host, port, the body's hash, ext and app/dlg. ``now`` and
    ``nonce`` are for the published examples' fixed values."""

    requires_request_body = True

    def __init__(
        self,
        auth: FlowAuth,
        now: Callable[[], float] = time.time,
        nonce: Callable[[], str] = lambda: secrets.token_urlsafe(6),
    ) -> None:
        self.auth = auth
        self.now = now
        self.nonce = nonce

    def header(self, request: httpx.Request) -> str:
        a = self.auth
        ts, nonce = str(int(self.now())), self.nonce()
        url = request.url
        port = url.port or _DEFAULT_PORTS.get(url.scheme, 80)
        payload = ""
        if a.hawk_payload != "skip" and (request.content or request.method not in ("GET", "HEAD")):
            content_type = request.headers.get("Content-Type", "")
            payload = hawk_payload_hash(a.hawk_algorithm, content_type, request.content)
        resource = url.raw_path.decode("ascii")
        lines = ["hawk.1.header", ts, nonce, request.method.upper(), resource,
                 url.host.lower(), str(port), payload, a.hawk_ext]  # fmt: skip
        if a.hawk_app:
            lines += [a.hawk_app, a.hawk_dlg]
        normalized = "\n".join(lines) + "\n"
        mac = hmac.new(a.hawk_key.encode(), normalized.encode(), a.hawk_algorithm).digest()
        parts = [("id", a.hawk_id), ("ts", ts), ("nonce", nonce)]
        parts += [("hash", payload)] if payload else []
        parts += [("ext", a.hawk_ext)] if a.hawk_ext else []
        parts += [("mac", base64.b64encode(mac).decode("ascii"))]
        parts += [("app", a.hawk_app), ("dlg", a.hawk_dlg)] if a.hawk_app else []
        fields = ", ".join(f'{k}="{v}"' for k, v in parts if k != "dlg" or v)
        return f"{HAWK.scheme} {fields}"

    def auth_flow(self, request: httpx.Request) -> Flow:
        request.headers["Authorization"] = self.header(request)
        yield request


_DEFAULT_PORTS = {"http": 80, "https": 443}


def _digest(auth: FlowAuth, rendered: RenderedRequest) -> httpx.Auth:
    return httpx.DigestAuth(auth.username, auth.password)


def _sigv4(auth: FlowAuth, rendered: RenderedRequest) -> httpx.Auth:
    return SigV4(auth, signed=(name for name, _ in rendered.headers))


def _handshake(auth: FlowAuth, rendered: RenderedRequest) -> httpx.Auth:
    return Handshake(auth)


def _oauth1(auth: FlowAuth, rendered: RenderedRequest) -> httpx.Auth:
    return OAuth1Signer(auth)


def _hawk(auth: FlowAuth, rendered: RenderedRequest) -> httpx.Auth:
    return HawkSigner(auth)


# The flow of each kind that acts as the request is sent (``AuthKind.flow``).
FLOWS: dict[AuthKind, Callable[[FlowAuth, RenderedRequest], httpx.Auth]] = {
    DIGEST: _digest,
    AWS_SIGV4: _sigv4,
    NTLM: _handshake,
    NEGOTIATE: _handshake,
    OAUTH1: _oauth1,
    HAWK: _hawk,
}


def flow_for(rendered: RenderedRequest) -> httpx.Auth | None:
    """The httpx auth for a rendered request's send-time credentials, if any."""
    auth = rendered.flow_auth
    if auth is None:
        return None
    return FLOWS[KINDS[auth.type]](auth, rendered)
