"""Loopback servers that check NTLM, Negotiate, OAuth 1.0a, Hawk and JWT credentials with code
of their own: pyspnego as the acceptor, RFC 5849 recomputed here (checked against the RFC's
example), mohawk's ``Receiver``, and a JWT's signature checked with ``cryptography``."""

from __future__ import annotations

import base64
import contextlib
import hashlib
import hmac
import http.server
import json
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import parse_qsl, quote, urlsplit

from servers import CheckingServer, checking_server


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


# -- NTLM and Negotiate ---------------------------------------------------------------------


class HandshakeServer(CheckingServer):
    principals: list[str]
    connections: list[int]  # the client port of each request: one connection, one port


@contextlib.contextmanager
def handshake_server(protocol: str, scheme: str, users: Path) -> Iterator[HandshakeServer]:
    """Answers ``scheme`` with pyspnego's acceptor (``protocol``: ntlm or negotiate), which
    checks the client's last token against the accounts in ``users`` (``NTLM_USER_FILE``,
    which the caller sets). The handshake lives with the connection, as NTLM's does: a
    token on a new connection starts over."""
    import spnego
    import spnego.exceptions

    def check(handler: http.server.BaseHTTPRequestHandler, body: bytes) -> tuple | None:
        server.connections.append(handler.client_address[1])
        word, _, data = handler.headers.get("Authorization", "").partition(" ")
        offer = (401, [("WWW-Authenticate", scheme)])
        if word != scheme or not data:
            handler.context = None  # type: ignore[attr-defined]
            return offer
        context = getattr(handler, "context", None)
        if context is None:
            context = handler.context = spnego.server(  # type: ignore[attr-defined]
                hostname="127.0.0.1", service="http", protocol=protocol
            )
        try:
            out = context.step(base64.b64decode(data))
        except spnego.exceptions.SpnegoError:
            handler.context = None  # type: ignore[attr-defined]
            return offer
        if not context.complete:
            return 401, [("WWW-Authenticate", f"{scheme} {b64(out or b'')}")]
        handler.context = None  # type: ignore[attr-defined]
        server.principals.append(context.client_principal or "")
        return None

    with checking_server(check) as base:
        server = base  # type: ignore[assignment]
        server.__class__ = HandshakeServer
        server.principals, server.connections = [], []
        yield server


# -- OAuth 1.0a (RFC 5849), recomputed ------------------------------------------------------


def _enc(text: str) -> str:
    """RFC 5849 §3.6: every byte but the unreserved characters, as %XX."""
    return quote(text, safe="-._~")


def base_string(method: str, url: str, params: list[tuple[str, str]]) -> str:
    """RFC 5849 §3.4.1: the signature base string of a request and its parameters (query,
    form body and OAuth parameters, ``oauth_signature`` and ``realm`` left out)."""
    parts = urlsplit(url)
    host = (parts.hostname or "").lower()
    default = {"http": 80, "https": 443}.get(parts.scheme.lower())
    netloc = host if parts.port in (None, default) else f"{host}:{parts.port}"
    uri = f"{parts.scheme.lower()}://{netloc}{parts.path or '/'}"
    pairs = sorted((_enc(k), _enc(v)) for k, v in params if k not in ("oauth_signature", "realm"))
    normal = "&".join(f"{k}={v}" for k, v in pairs)
    return "&".join([method.upper(), _enc(uri), _enc(normal)])


def hmac_sha1(base: str, consumer_secret: str, token_secret: str) -> str:
    key = f"{_enc(consumer_secret)}&{_enc(token_secret)}"
    return b64(hmac.new(key.encode(), base.encode(), hashlib.sha1).digest())


def oauth_header_params(header: str) -> list[tuple[str, str]]:
    """The parameters of an ``Authorization: OAuth ...`` header, decoded."""
    from urllib.parse import unquote

    out = []
    for item in header.removeprefix("OAuth ").split(","):
        name, _, value = item.strip().partition("=")
        out.append((unquote(name), unquote(value.strip('"'))))
    return out


class OAuth1Server(CheckingServer):
    params: list[dict[str, str]]  # each request's OAuth parameters, wherever they came


@contextlib.contextmanager
def oauth1_server(
    consumer_secret: str = "", token_secret: str = "", public_key_pem: bytes | None = None
) -> Iterator[OAuth1Server]:
    """Recomputes each request's OAuth 1.0a signature (HMAC-SHA1 and PLAINTEXT from the
    secrets, RSA-SHA1 checked with the public key) from the parameters wherever they came
    (header, query, form body), and a non-form body's ``oauth_body_hash``; 401 when any
    differs."""

    def check(handler: http.server.BaseHTTPRequestHandler, body: bytes) -> tuple | None:
        refuse = (401, [])
        url = f"http://{handler.headers['Host']}{handler.path}"
        query = parse_qsl(urlsplit(url).query, keep_blank_values=True)
        form = handler.headers.get("Content-Type", "").startswith(
            "application/x-www-form-urlencoded"
        )
        fields = parse_qsl(body.decode(), keep_blank_values=True) if form else []
        header = handler.headers.get("Authorization", "")
        own = oauth_header_params(header) if header.startswith("OAuth ") else []
        params = query + fields + own
        oauth = {k: v for k, v in params if k.startswith("oauth_") or k == "realm"}
        server.params.append(oauth)
        if "oauth_body_hash" in oauth and oauth["oauth_body_hash"] != b64(
            hashlib.sha1(body).digest()
        ):
            return refuse
        if not form and body and "oauth_body_hash" not in oauth:
            return refuse
        base = base_string(handler.command, url, params)
        method, signature = oauth.get("oauth_signature_method"), oauth.get("oauth_signature", "")
        if method == "HMAC-SHA1":
            ok = signature == hmac_sha1(base, consumer_secret, token_secret)
        elif method == "HMAC-SHA256":
            key = f"{_enc(consumer_secret)}&{_enc(token_secret)}"
            ok = signature == b64(hmac.new(key.encode(), base.encode(), hashlib.sha256).digest())
        elif method == "PLAINTEXT":
            ok = signature == f"{_enc(consumer_secret)}&{_enc(token_secret)}"
        elif method in ("RSA-SHA1", "RSA-SHA256") and public_key_pem is not None:
            from cryptography.exceptions import InvalidSignature
            from cryptography.hazmat.primitives import hashes, serialization
            from cryptography.hazmat.primitives.asymmetric import padding

            key = serialization.load_pem_public_key(public_key_pem)
            try:
                key.verify(  # type: ignore[union-attr, call-arg]
                    base64.b64decode(signature),
                    base.encode(),
                    padding.PKCS1v15(),
                    hashes.SHA1() if method == "RSA-SHA1" else hashes.SHA256(),
                )
                ok = True
            except InvalidSignature:
                ok = False
        else:
            ok = False
        return None if ok else refuse

    with checking_server(check) as base:
        server = base  # type: ignore[assignment]
        server.__class__ = OAuth1Server
        server.params = []
        yield server


# -- Hawk, by mohawk ------------------------------------------------------------------------


@contextlib.contextmanager
def hawk_server(hawk_id: str, key: str, algorithm: str = "sha256") -> Iterator[CheckingServer]:
    """Checks each request's Hawk header with mohawk's ``Receiver`` (the MAC, the body's hash
    when the header carries one, the time within a minute); 401 when it fails."""
    import mohawk
    import mohawk.exc

    credentials = {hawk_id: {"id": hawk_id, "key": key, "algorithm": algorithm}}

    def check(handler: http.server.BaseHTTPRequestHandler, body: bytes) -> tuple | None:
        header = handler.headers.get("Authorization", "")
        try:
            mohawk.Receiver(
                credentials.__getitem__,
                header,
                f"http://{handler.headers['Host']}{handler.path}",
                handler.command,
                content=body,
                content_type=handler.headers.get("Content-Type", ""),
                accept_untrusted_content="hash=" not in header,
            )
        except mohawk.exc.HawkFail:
            return 401, [("WWW-Authenticate", "Hawk")]
        return None

    with checking_server(check) as server:
        yield server


# -- JWT, checked with cryptography ---------------------------------------------------------


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def verify_jwt(token: str, key: bytes) -> tuple[dict, dict]:
    """The header and claims of a compact JWS whose signature ``key`` (an HMAC secret, or a
    PEM public key) verifies; ``ValueError`` otherwise. Written from RFC 7515/7518 with
    ``cryptography``, not with the library Pigeon signs with."""
    from cryptography.exceptions import InvalidSignature
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec, padding
    from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature

    head, claims, signature = token.split(".")
    header = json.loads(_unb64(head))
    alg = header["alg"]
    digest = {"256": hashes.SHA256, "384": hashes.SHA384, "512": hashes.SHA512}[alg[2:]]()
    signed, raw = f"{head}.{claims}".encode(), _unb64(signature)
    if alg.startswith("HS"):
        expected = hmac.new(key, signed, digest.name).digest()
        if not hmac.compare_digest(expected, raw):
            raise ValueError("bad HMAC")
    else:
        public = serialization.load_pem_public_key(key)
        try:
            if alg.startswith("RS"):
                public.verify(raw, signed, padding.PKCS1v15(), digest)  # type: ignore[union-attr, call-arg]
            else:
                half = len(raw) // 2
                der = encode_dss_signature(
                    int.from_bytes(raw[:half], "big"), int.from_bytes(raw[half:], "big")
                )
                public.verify(der, signed, ec.ECDSA(digest))  # type: ignore[union-attr, call-arg]
        except InvalidSignature:
            raise ValueError("bad signature") from None
    return header, json.loads(_unb64(claims))


class JwtServer(CheckingServer):
    tokens: list[tuple[dict, dict]]  # each verified token's header and claims


@contextlib.contextmanager
def jwt_server(
    key: bytes, header: str = "Authorization", prefix: str = "Bearer"
) -> Iterator[JwtServer]:
    def check(handler: http.server.BaseHTTPRequestHandler, body: bytes) -> tuple | None:
        value = handler.headers.get(header, "")
        token = value.removeprefix(f"{prefix} ") if prefix else value
        try:
            server.tokens.append(verify_jwt(token, key))
        except (ValueError, KeyError):
            return 401, []
        return None

    with checking_server(check) as base:
        server = base  # type: ignore[assignment]
        server.__class__ = JwtServer
        server.tokens = []
        yield server
