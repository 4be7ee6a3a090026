"""Auth that acts on the request as it is sent (DESIGN §7): HTTP digest, which answers the
server's challenge (httpx's ``DigestAuth``), and AWS Signature Version 4, which signs the
final method, URL, headers and body.

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

import hashlib
import hmac
import posixpath
from collections.abc import Callable, Generator, Iterable
from datetime import datetime, timezone
from urllib.parse import quote, unquote

import httpx

from pigeon.auth_kinds import AWS_SIGV4, DIGEST, KINDS, AuthKind, FlowAuth
from pigeon.render import RenderedRequest

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


def _digest(auth: FlowAuth, rendered: RenderedRequest) -> httpx.Auth:
    return httpx.DigestAuth(auth.username, auth.password)


def _sigv4(auth: FlowAuth, rendered: RenderedRequest) -> httpx.Auth:
    return SigV4(auth, signed=(name for name, _ in rendered.headers))


# The flow of each kind that acts as the request is sent (``AuthKind.flow``).
FLOWS: dict[AuthKind, Callable[[FlowAuth, RenderedRequest], httpx.Auth]] = {
    DIGEST: _digest,
    AWS_SIGV4: _sigv4,
}


def flow_for(rendered: RenderedRequest) -> httpx.Auth | None:
    """The httpx auth for a rendered request's send-time credentials (digest, SigV4), if any."""
    auth = rendered.flow_auth
    if auth is None:
        return None
    return FLOWS[KINDS[auth.type]](auth, rendered)
