"""Auth kinds, declared once (DESIGN §2, §5, §7): the ``[auth]`` settings and, for each kind,
its fields, how it applies and what curl is told.

A field (``Field``) is one key of ``[auth]``: an attribute of ``Auth`` (or of ``Auth.oauth2``),
a row of the app's auth editor (its label, hidden like a password or not, its choices), a
template the collection check reads. Its default is the dataclass's. A kind (``AuthKind``,
one class per scheme as in httpx's ``Auth``) lists the fields it uses, in the order the editor
shows them, and says how it applies: headers and query parameters added at render
(``parts``), credentials for a flow that acts as the request is sent (``flow``: digest answers
a challenge, SigV4, OAuth 1.0a and Hawk sign, NTLM and Negotiate hold a handshake;
``pigeon.auth_flows`` holds the flows), or an OAuth 2.0 token
fetched by the send (``token_auth``; ``pigeon.oauth2``). The store, the renderer, masking, the
check, the curl export and the auth editor all read this table, so a new kind is a class here
(and its flow in ``pigeon.auth_flows`` when it answers a challenge).

``Auth`` and ``OAuth2`` live here, beside the fields that describe them, and ``pigeon.model``
re-exports them: the settings of every kind stay one flat table in TOML, kept whatever the
type so switching kinds loses nothing.

Why one module: the settings, the fields and the kinds are one table read three ways (the
store by field, the editor by kind's rows, the render by kind), and a kind shares fields with
others (a username, a key, a header name), so splitting it would split each kind in two.
"""

from __future__ import annotations

import base64
import time
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, fields
from datetime import date, datetime
from datetime import time as dt_time
from typing import Any, ClassVar


class AuthError(ValueError):
    """An auth that cannot apply as written; the render reports it as a ``RenderError``."""


OAUTH2_GRANTS = (
    "client_credentials", "password", "refresh_token", "authorization_code", "device_code",
)  # fmt: skip
OAUTH1_METHODS = ("HMAC-SHA1", "HMAC-SHA256", "RSA-SHA1", "RSA-SHA256", "PLAINTEXT")
HAWK_ALGORITHMS = ("sha256", "sha1")
JWT_ALGORITHMS = (
    "HS256", "HS384", "HS512", "RS256", "RS384", "RS512", "ES256", "ES384", "ES512",
)  # fmt: skip


@dataclass(slots=True)
class OAuth2:
    """An ``oauth2`` auth's settings: written flat in ``[auth]`` beside ``type``, its username
    and password (the ``password`` grant's) are the auth's own. Every field is a template."""

    grant: str = "client_credentials"  # one of OAUTH2_GRANTS
    token_url: str = ""
    auth_url: str = ""  # authorization_code: where the person signs in
    device_url: str = ""  # device_code: the device authorization endpoint (RFC 8628)
    client_id: str = ""
    client_secret: str = ""
    scope: str = ""
    audience: str = ""
    refresh_token: str = ""  # refresh_token grant: the long-lived token to start from
    redirect_uri: str = ""  # authorization_code: "" picks http://127.0.0.1:<free port>/callback
    client_auth: str = "basic"  # "basic" (Authorization header) | "body" (form fields)
    header_name: str = "Authorization"  # location = "header": where the token goes ...
    header_prefix: str = "Bearer"  # ... after this word ("" for the bare token)
    query_name: str = "access_token"  # location = "query": the parameter's name
    params: dict[str, str] = field(default_factory=dict)  # extra fields of token requests


@dataclass(slots=True)
class Auth:
    """``None`` on a request or folder means "inherit"; ``type = "none"`` disables auth."""

    type: str = "none"  # one of AUTH_TYPES
    username: str = ""
    password: str = ""
    token: str = ""
    key: str = ""  # api_key: the header or query parameter name
    value: str = ""  # api_key: its value
    location: str = "header"  # api_key: "header" | "query"
    # aws_sigv4 (digest uses username and password)
    access_key: str = field(default="", kw_only=True)
    secret_key: str = field(default="", kw_only=True)
    session_token: str = field(default="", kw_only=True)
    region: str = field(default="", kw_only=True)
    service: str = field(default="", kw_only=True)
    # ntlm, negotiate (with username and password): the account's domain ("" when the
    # username is written DOMAIN\user, or for none)
    domain: str = field(default="", kw_only=True)
    # oauth1 (with token: the access token)
    consumer_key: str = field(default="", kw_only=True)
    consumer_secret: str = field(default="", kw_only=True)
    token_secret: str = field(default="", kw_only=True)
    signature_method: str = field(default=OAUTH1_METHODS[0], kw_only=True)
    realm: str = field(default="", kw_only=True)
    callback: str = field(default="", kw_only=True)
    verifier: str = field(default="", kw_only=True)
    placement: str = field(default="header", kw_only=True)  # "header" | "query" | "body"
    # oauth1's RSA-SHA1 and jwt: the signing key (a PEM private key, or jwt's HMAC secret),
    # written (a secret variable) or read from a file relative to the collection
    private_key: str = field(default="", kw_only=True)
    private_key_file: str = field(default="", kw_only=True)
    # hawk
    hawk_id: str = field(default="", kw_only=True)
    hawk_key: str = field(default="", kw_only=True)
    hawk_algorithm: str = field(default=HAWK_ALGORITHMS[0], kw_only=True)
    hawk_ext: str = field(default="", kw_only=True)
    hawk_app: str = field(default="", kw_only=True)
    hawk_dlg: str = field(default="", kw_only=True)
    hawk_payload: str = field(default="hash", kw_only=True)  # "hash" | "skip": the body's hash
    # jwt (with private_key or private_key_file, and oauth2's header_name and header_prefix)
    jwt_algorithm: str = field(default=JWT_ALGORITHMS[0], kw_only=True)
    claims: dict[str, Any] = field(default_factory=dict, kw_only=True)  # any TOML values
    jwt_header: dict[str, Any] = field(default_factory=dict, kw_only=True)  # beside alg, typ
    jwt_iat: str = field(default="add", kw_only=True)  # "add" | "omit": iat = now
    jwt_exp: str = field(default="", kw_only=True)  # seconds of life: exp = now + this
    extra: dict[str, Any] = field(default_factory=dict)  # unknown TOML keys, kept on save
    oauth2: OAuth2 = field(default_factory=OAuth2)  # type = "oauth2"


@dataclass(frozen=True, slots=True)
class FlowAuth:
    """Rendered credentials of a kind that acts at send time, applied by ``pigeon.auth_flows``."""

    type: str
    username: str = ""
    password: str = field(default="", repr=False)
    access_key: str = ""
    secret_key: str = field(default="", repr=False)
    session_token: str = field(default="", repr=False)
    region: str = ""
    service: str = ""
    domain: str = ""
    consumer_key: str = ""
    consumer_secret: str = field(default="", repr=False)
    token: str = field(default="", repr=False)
    token_secret: str = field(default="", repr=False)
    signature_method: str = ""
    realm: str = ""
    callback: str = ""
    verifier: str = field(default="", repr=False)
    placement: str = "header"
    private_key: str = field(default="", repr=False)
    hawk_id: str = ""
    hawk_key: str = field(default="", repr=False)
    hawk_algorithm: str = ""
    hawk_ext: str = ""
    hawk_app: str = ""
    hawk_dlg: str = ""
    hawk_payload: str = "hash"  # or "skip"

    @property
    def account(self) -> str:
        """The user as NTLM and Negotiate name it: ``DOMAIN\\user`` when a domain is apart."""
        return f"{self.domain}\\{self.username}" if self.domain else self.username

    def shown(self) -> dict[str, Any]:
        """Its settings for a reader (``pigeon render``): the secret ones and the defaults
        left out."""
        return {
            f.name: getattr(self, f.name)
            for f in fields(self)
            if f.repr and (f.name == "type" or getattr(self, f.name) not in ("", f.default))
        }


# -- fields --------------------------------------------------------------------------------------

_AUTH_DEFAULT, _OAUTH2_DEFAULT = Auth(), OAuth2()


@dataclass(frozen=True, slots=True)
class Field:
    """One key of ``[auth]``, declared once: the store reads and writes it, the editor draws
    it, the check reads its template."""

    name: str  # the TOML key and the attribute
    label: str = ""  # the editor's label ("" for the name with spaces)
    secret: bool = False  # the editor hides it like a password
    choices: tuple[str, ...] = ()  # a choice among these, not a template
    oauth2: bool = False  # an attribute of ``Auth.oauth2``, not of ``Auth``
    table: bool = False  # a table of strings (``params``), not a string
    typed: bool = False  # a table whose values may be any TOML value (jwt's claims)
    path: bool = False  # a file's path, relative to the collection (outside: a trust need)
    # Written even when it is the default, for an auth of a kind that uses it (the grant).
    always: bool = False
    # What other tools call this key: a file's unknown key with one of these names is
    # reported with "did you mean" this field (``store/unknown``).
    other_names: tuple[str, ...] = ()

    @property
    def title(self) -> str:
        return self.label or self.name.replace("_", " ")

    @property
    def default(self) -> Any:
        return getattr(_OAUTH2_DEFAULT if self.oauth2 else _AUTH_DEFAULT, self.name)

    def holder(self, auth: Auth) -> Any:
        """The object that holds this field's value: the auth or its OAuth 2.0 settings."""
        return auth.oauth2 if self.oauth2 else auth

    def get(self, auth: Auth) -> Any:
        return getattr(self.holder(auth), self.name)

    def set(self, auth: Auth, value: Any) -> None:
        setattr(self.holder(auth), self.name, value)


USERNAME = Field("username", other_names=("user",))
PASSWORD = Field("password", secret=True)
TOKEN = Field("token", other_names=("bearer",))
KEY = Field("key")
VALUE = Field("value")
ACCESS_KEY = Field("access_key")
SECRET_KEY = Field("secret_key", secret=True)
SESSION_TOKEN = Field("session_token", secret=True)
REGION = Field("region")
SERVICE = Field("service")
LOCATION = Field("location", "in", choices=("header", "query"))
GRANT = Field("grant", choices=OAUTH2_GRANTS, oauth2=True, always=True)
TOKEN_URL = Field("token_url", "token url", oauth2=True)
AUTH_URL = Field("auth_url", "auth url", oauth2=True)
DEVICE_URL = Field("device_url", "device url", oauth2=True)
CLIENT_ID = Field("client_id", "client id", oauth2=True)
CLIENT_SECRET = Field("client_secret", "secret", secret=True, oauth2=True)
SCOPE = Field("scope", oauth2=True)
AUDIENCE = Field("audience", oauth2=True)
REFRESH_TOKEN = Field("refresh_token", "refresh", secret=True, oauth2=True)
REDIRECT_URI = Field("redirect_uri", "redirect", oauth2=True)
CLIENT_AUTH = Field("client_auth", "auth by", choices=("basic", "body"), oauth2=True)
HEADER_NAME = Field("header_name", "header", oauth2=True)
HEADER_PREFIX = Field("header_prefix", "prefix", oauth2=True)
QUERY_NAME = Field("query_name", "param", oauth2=True)
PARAMS = Field("params", oauth2=True, table=True)
DOMAIN = Field("domain")
CONSUMER_KEY = Field("consumer_key", "consumer key")
CONSUMER_SECRET = Field("consumer_secret", "secret", secret=True)
TOKEN_SECRET = Field("token_secret", "token secret", secret=True)
SIGNATURE_METHOD = Field("signature_method", "signature", choices=OAUTH1_METHODS)
REALM = Field("realm")
CALLBACK = Field("callback", other_names=("callback_url",))
VERIFIER = Field("verifier", secret=True)
PLACEMENT = Field("placement", "in", choices=("header", "query", "body"))
PRIVATE_KEY = Field("private_key", "key", secret=True)
PRIVATE_KEY_FILE = Field("private_key_file", "key file", path=True, other_names=("key_file",))
HAWK_ID = Field("hawk_id", "id", other_names=("auth_id",))
HAWK_KEY = Field("hawk_key", "key", secret=True, other_names=("auth_key",))
HAWK_ALGORITHM = Field("hawk_algorithm", "algorithm", choices=HAWK_ALGORITHMS)
HAWK_EXT = Field("hawk_ext", "ext")
HAWK_APP = Field("hawk_app", "app")
HAWK_DLG = Field("hawk_dlg", "dlg")
HAWK_PAYLOAD = Field("hawk_payload", "payload", choices=("hash", "skip"))
JWT_ALGORITHM = Field("jwt_algorithm", "algorithm", choices=JWT_ALGORITHMS)
CLAIMS = Field("claims", table=True, typed=True, other_names=("payload",))
JWT_HEADER = Field("jwt_header", table=True, typed=True)
JWT_IAT = Field("jwt_iat", "iat", choices=("add", "omit"))
JWT_EXP = Field("jwt_exp", "exp (s)", other_names=("expires_in",))

# Every field, in the order a new ``[auth]`` table writes them.
FIELDS: tuple[Field, ...] = (
    USERNAME, PASSWORD, TOKEN, KEY, VALUE, ACCESS_KEY, SECRET_KEY, SESSION_TOKEN, REGION,
    SERVICE, LOCATION, GRANT, TOKEN_URL, AUTH_URL, DEVICE_URL, CLIENT_ID, CLIENT_SECRET, SCOPE,
    AUDIENCE, REFRESH_TOKEN, REDIRECT_URI, CLIENT_AUTH, HEADER_NAME, HEADER_PREFIX, QUERY_NAME,
    PARAMS, DOMAIN, CONSUMER_KEY, CONSUMER_SECRET, TOKEN_SECRET, SIGNATURE_METHOD, REALM,
    CALLBACK, VERIFIER, PLACEMENT, PRIVATE_KEY, PRIVATE_KEY_FILE, HAWK_ID, HAWK_KEY,
    HAWK_ALGORITHM, HAWK_EXT, HAWK_APP, HAWK_DLG, HAWK_PAYLOAD, JWT_ALGORITHM, CLAIMS,
    JWT_HEADER, JWT_IAT, JWT_EXP,
)  # fmt: skip


# -- kinds ---------------------------------------------------------------------------------------

Render = Callable[[str], str]  # a template -> its text, in a text place (``Renderer``)
Pairs = list[tuple[str, str]]


class Renders:
    """The renderer as a kind sees it: called, a template's text (a ``Render``); ``value``, a
    value with its placeholders rendered JSON-aware (a lone placeholder keeps its kind);
    ``file``, the bytes of a file named relative to the collection, read through the trust
    gate. The render hands every kind one; a kind given a bare ``Render`` wraps it."""

    __slots__ = ("_text", "_value", "_file")

    def __init__(
        self,
        text: Render,
        value: Callable[[Any], Any] | None = None,
        file: Callable[[str, str], bytes] | None = None,
    ) -> None:
        self._text, self._value, self._file = text, value, file

    @classmethod
    def of(cls, render: Render) -> Renders:
        return render if isinstance(render, Renders) else cls(render)

    def __call__(self, template: str) -> str:
        return self._text(template)

    def value(self, value: Any) -> Any:
        if self._value is not None:
            return self._value(value)
        if isinstance(value, dict):
            return {k: self.value(v) for k, v in value.items()}
        if isinstance(value, list):
            return [self.value(v) for v in value]
        return self._text(value) if isinstance(value, str) else value

    def file(self, path: str, what: str) -> bytes:
        """``what`` names the reader in errors and trust prompts (``jwt auth's key file``)."""
        if self._file is None:
            raise AuthError(f"{what}: no collection to read {path} from")
        return self._file(path, what)


# What a render shows where an OAuth 2.0 token goes: the token itself is fetched by the send.
OAUTH2_TOKEN = "<oauth2-token>"


class AuthKind:
    """One kind of auth. The base adds nothing; a kind overrides what it does."""

    name: ClassVar[str]
    # The fields it uses, in the order the editor shows them (a table field has no row).
    fields: ClassVar[tuple[Field, ...]] = ()
    scheme: ClassVar[str] = ""  # the word before its credentials in ``Authorization``

    def shown(self, auth: Auth) -> tuple[Field, ...]:
        """The fields the editor shows for ``auth`` of this kind."""
        return self.fields

    def parts(self, auth: Auth, render: Render) -> tuple[Pairs, Pairs]:
        """The headers and query parameters it adds to the rendered request."""
        return [], []

    def flow(self, auth: Auth, render: Render) -> FlowAuth | None:
        """Its rendered credentials, when it acts on the request as it is sent."""
        return None

    def token_auth(self, auth: Auth, render: Render) -> Auth | None:
        """The auth with every field rendered, when the send fetches a token with it."""
        return None

    def curl(self, flow: FlowAuth) -> list[str]:
        """curl's own arguments for a flow it runs itself (``pigeon export curl``)."""
        return []

    def sent_query(self, flow: FlowAuth) -> tuple[str, ...]:
        """The query parameters its flow adds as the request is sent: a redirect to another
        origin takes them off, as it does those the render added."""
        return ()

    def needed(self, auth: Auth) -> tuple[tuple[Field, ...], ...]:
        """What it cannot go without: groups of fields, each met when one of its fields is
        written (``pigeon check``'s ``auth-incomplete``; the render refuses the same)."""
        return ()

    def problems(self, auth: Auth) -> list[str]:
        """What ``pigeon check`` finds in it as written (``auth-incomplete``): each group of
        ``needed`` that no field of meets."""
        return [
            f"{self.name} auth: {' or '.join(f.name for f in group)} is empty"
            for group in self.needed(auth)
            if not any(str(f.get(auth)).strip() for f in group)
        ]

    def _refuse_missing(self, auth: Auth, values: dict[str, Any]) -> None:
        """An ``AuthError`` for the first group of ``needed`` that no rendered value meets."""
        for group in self.needed(auth):
            if not any(str(values.get(f.name, f.get(auth))).strip() for f in group):
                names = " or ".join(f.name for f in group)
                raise AuthError(f"{self.name} auth: {names} is empty")

    def texts(self, auth: Auth) -> Iterator[tuple[str, Any]]:
        """(key, template) of what the collection check reads: the plain fields whatever kind
        uses them (a switch of kind keeps them), the OAuth 2.0 ones for a kind that uses them,
        each entry of a table field, and the unknown keys."""
        for f in FIELDS:
            if f.choices or (f.oauth2 and f not in self.fields):
                continue
            if f.typed:
                yield from _strings(f.name, f.get(auth))
            elif f.table:
                yield from f.get(auth).items()
            else:
                yield f.name, f.get(auth)
        yield from auth.extra.items()


def _strings(key: str, value: Any) -> Iterator[tuple[str, str]]:
    """Every string inside a typed table's value, under its key."""
    if isinstance(value, str):
        yield key, value
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from _strings(k, v)
    elif isinstance(value, list):
        for v in value:
            yield from _strings(key, v)


class NoAuth(AuthKind):
    name = "none"

    def texts(self, auth: Auth) -> Iterator[tuple[str, Any]]:
        return iter(())


class Basic(AuthKind):
    name = "basic"
    fields = (USERNAME, PASSWORD)
    scheme = "Basic"

    def parts(self, auth: Auth, render: Render) -> tuple[Pairs, Pairs]:
        pair = f"{render(auth.username)}:{render(auth.password)}"
        token = base64.b64encode(pair.encode("utf-8")).decode("ascii")
        return [("Authorization", f"{self.scheme} {token}")], []


class Bearer(AuthKind):
    name = "bearer"
    fields = (TOKEN,)
    scheme = "Bearer"

    def parts(self, auth: Auth, render: Render) -> tuple[Pairs, Pairs]:
        return [("Authorization", f"{self.scheme} {render(auth.token)}")], []


class ApiKey(AuthKind):
    name = "api_key"
    fields = (KEY, VALUE, LOCATION)

    def parts(self, auth: Auth, render: Render) -> tuple[Pairs, Pairs]:
        key, value = render(auth.key), render(auth.value)
        if not key:
            raise AuthError(f"{self.name} auth: the key name is empty")
        if auth.location == "query":
            return [], [(key, value)]
        return [(key, value)], []


class OAuth2Kind(AuthKind):
    """OAuth 2.0: the send fetches a token by the grant (``pigeon.oauth2``) and puts it where
    the render left ``OAUTH2_TOKEN``."""

    name = "oauth2"
    fields = (
        GRANT, USERNAME, PASSWORD, TOKEN_URL, AUTH_URL, DEVICE_URL, CLIENT_ID, CLIENT_SECRET,
        SCOPE, AUDIENCE, REFRESH_TOKEN, REDIRECT_URI, HEADER_NAME, HEADER_PREFIX, QUERY_NAME,
        CLIENT_AUTH, LOCATION, PARAMS,
    )  # fmt: skip
    _COMMON = (GRANT, TOKEN_URL, CLIENT_ID, CLIENT_SECRET, CLIENT_AUTH, SCOPE, LOCATION)
    _GRANT = {
        "client_credentials": (AUDIENCE,),
        "password": (USERNAME, PASSWORD, AUDIENCE),
        "refresh_token": (REFRESH_TOKEN,),
        "authorization_code": (AUTH_URL, REDIRECT_URI, AUDIENCE),
        "device_code": (DEVICE_URL, AUDIENCE),
    }

    def shown(self, auth: Auth) -> tuple[Field, ...]:
        place = (QUERY_NAME,) if auth.location == "query" else (HEADER_NAME, HEADER_PREFIX)
        wanted = {*self._COMMON, *self._GRANT.get(auth.oauth2.grant, ()), *place}
        return tuple(f for f in self.fields if f in wanted)

    def parts(self, auth: Auth, render: Render) -> tuple[Pairs, Pairs]:
        o = auth.oauth2
        if auth.location == "query":
            return [], [(render(o.query_name) or QUERY_NAME.default, OAUTH2_TOKEN)]
        prefix = render(o.header_prefix).strip()
        value = f"{prefix} {OAUTH2_TOKEN}" if prefix else OAUTH2_TOKEN
        return [(render(o.header_name).strip() or HEADER_NAME.default, value)], []

    def token_auth(self, auth: Auth, render: Render) -> Auth:
        """Rendered here so the trust gate sees a ``$env`` in a client secret as it sees one
        anywhere else."""
        o = auth.oauth2
        texts = {
            f.name: render(f.get(auth))
            for f in FIELDS
            if f.oauth2 and not f.choices and not f.table
        }
        params = {render(k): render(v) for k, v in o.params.items()}
        return Auth(
            type=self.name,
            username=render(auth.username),
            password=render(auth.password),
            location=auth.location,
            oauth2=OAuth2(grant=o.grant, client_auth=o.client_auth, params=params, **texts),
        )


class Digest(AuthKind):
    """HTTP digest: answers the server's challenge as the request is sent."""

    name = "digest"
    fields = (USERNAME, PASSWORD)
    scheme = "Digest"

    def flow(self, auth: Auth, render: Render) -> FlowAuth:
        return FlowAuth(self.name, render(auth.username), render(auth.password))

    def curl(self, flow: FlowAuth) -> list[str]:
        return ["--digest", "--user", f"{flow.username}:{flow.password}"]


class AwsSigV4(AuthKind):
    """AWS Signature Version 4: signs the request as it is sent."""

    name = "aws_sigv4"
    fields = (ACCESS_KEY, SECRET_KEY, SESSION_TOKEN, REGION, SERVICE)
    scheme = "AWS4-HMAC-SHA256"
    _REQUIRED = (ACCESS_KEY, SECRET_KEY, REGION, SERVICE)

    def flow(self, auth: Auth, render: Render) -> FlowAuth:
        values = {f.name: render(f.get(auth)).strip() for f in self.fields}
        for f in self._REQUIRED:
            if not values[f.name]:
                raise AuthError(f"{self.name} auth: {f.name} is empty")
        return FlowAuth(self.name, **values)

    def curl(self, flow: FlowAuth) -> list[str]:
        argv = ["--aws-sigv4", f"aws:amz:{flow.region}:{flow.service}"]
        argv += ["--user", f"{flow.access_key}:{flow.secret_key}"]
        if flow.session_token:
            argv += ["-H", f"X-Amz-Security-Token: {flow.session_token}"]
        return argv


class Ntlm(AuthKind):
    """NTLM: a handshake on one connection (negotiate, the server's challenge, authenticate),
    answered with ``pyspnego`` as the request is sent."""

    name = "ntlm"
    fields = (USERNAME, PASSWORD, DOMAIN)
    scheme = "NTLM"

    def needed(self, auth: Auth) -> tuple[tuple[Field, ...], ...]:
        return (USERNAME,), (PASSWORD,)

    def flow(self, auth: Auth, render: Render) -> FlowAuth:
        values = {f.name: render(f.get(auth)) for f in self.fields}
        self._refuse_missing(auth, values)
        return FlowAuth(self.name, **values)

    def curl(self, flow: FlowAuth) -> list[str]:
        return [f"--{self.name}", "--user", f"{flow.account}:{flow.password}"]


class Negotiate(Ntlm):
    """HTTP Negotiate (SPNEGO, RFC 4559) with the credentials given: NTLM inside SPNEGO.
    Kerberos would need a ticket from a KDC, which ``pyspnego`` gets only through GSSAPI."""

    name = "negotiate"
    scheme = "Negotiate"


class OAuth1(AuthKind):
    """OAuth 1.0a (RFC 5849): signs the method, URL, OAuth parameters and a form body as the
    request is sent (``authlib.oauth1``), in the header, the query or the form body."""

    name = "oauth1"
    fields = (
        CONSUMER_KEY, CONSUMER_SECRET, TOKEN, TOKEN_SECRET, SIGNATURE_METHOD, PRIVATE_KEY,
        PRIVATE_KEY_FILE, REALM, CALLBACK, VERIFIER, PLACEMENT,
    )  # fmt: skip
    scheme = "OAuth"
    _RSA = (PRIVATE_KEY, PRIVATE_KEY_FILE)

    def shown(self, auth: Auth) -> tuple[Field, ...]:
        """An RSA signature is made with the private key alone; the others with the two
        secrets."""
        rsa = auth.signature_method.startswith("RSA")
        unused = (CONSUMER_SECRET, TOKEN_SECRET) if rsa else self._RSA
        return tuple(f for f in self.fields if f not in unused)

    # RFC 5849 §3.1's parameters, and the body hash extension's.
    PARAMS = (
        "oauth_consumer_key", "oauth_token", "oauth_signature_method", "oauth_signature",
        "oauth_timestamp", "oauth_nonce", "oauth_version", "oauth_callback", "oauth_verifier",
        "oauth_body_hash",
    )  # fmt: skip

    def sent_query(self, flow: FlowAuth) -> tuple[str, ...]:
        return self.PARAMS if flow.placement == "query" else ()

    def needed(self, auth: Auth) -> tuple[tuple[Field, ...], ...]:
        if auth.signature_method.startswith("RSA"):
            return (CONSUMER_KEY,), self._RSA
        return (CONSUMER_KEY,), (CONSUMER_SECRET,)

    def flow(self, auth: Auth, render: Render) -> FlowAuth:
        renders = Renders.of(render)
        values = {f.name: render(f.get(auth)) for f in self.fields if not f.choices}
        self._refuse_missing(auth, values)
        key = values.pop(PRIVATE_KEY_FILE.name).strip()
        if auth.signature_method.startswith("RSA") and key:
            what = f"{self.name} auth's key file"
            values[PRIVATE_KEY.name] = renders.file(key, what).decode("utf-8", "replace")
        return FlowAuth(
            self.name,
            signature_method=auth.signature_method,
            placement=auth.placement,
            **values,
        )


class Hawk(AuthKind):
    """Hawk: a MAC over the method, URL, time, a nonce and (by default) the body's hash,
    computed as the request is sent."""

    name = "hawk"
    fields = (HAWK_ID, HAWK_KEY, HAWK_ALGORITHM, HAWK_EXT, HAWK_APP, HAWK_DLG, HAWK_PAYLOAD)
    scheme = "Hawk"

    def needed(self, auth: Auth) -> tuple[tuple[Field, ...], ...]:
        return (HAWK_ID,), (HAWK_KEY,)

    def flow(self, auth: Auth, render: Render) -> FlowAuth:
        values = {f.name: render(f.get(auth)) for f in self.fields if not f.choices}
        self._refuse_missing(auth, values)
        for name, value in values.items():
            if name != HAWK_KEY.name and ('"' in value or "\\" in value):
                raise AuthError(f'{self.name} auth: {name} may hold neither " nor \\')
        return FlowAuth(
            self.name,
            hawk_algorithm=auth.hawk_algorithm,
            hawk_payload=auth.hawk_payload,
            **values,
        )


class Jwt(AuthKind):
    """A JSON Web Token signed at render from claims written in TOML, sent as a bearer token
    (or under another header and prefix). ``iat`` and ``exp`` are added unless written."""

    name = "jwt"
    fields = (
        JWT_ALGORITHM, PRIVATE_KEY, PRIVATE_KEY_FILE, HEADER_NAME, HEADER_PREFIX, JWT_IAT,
        JWT_EXP, CLAIMS, JWT_HEADER,
    )  # fmt: skip

    def needed(self, auth: Auth) -> tuple[tuple[Field, ...], ...]:
        return ((PRIVATE_KEY, PRIVATE_KEY_FILE),)

    def problems(self, auth: Auth) -> list[str]:
        found = super().problems(auth)
        life = auth.jwt_exp.strip()
        if life and "{{" not in life and not life.lstrip("-").isdigit():
            found.append(f"{self.name} auth: jwt_exp {life!r} is not a whole number of seconds")
        return found

    def parts(self, auth: Auth, render: Render) -> tuple[Pairs, Pairs]:
        renders = Renders.of(render)
        what = f"{self.name} auth"
        key_file = render(auth.private_key_file).strip()
        if key_file:
            secret = renders.file(key_file, f"{what}'s key file")
            if auth.jwt_algorithm.startswith("HS"):  # a secret file's final newline is not it
                secret = secret.removesuffix(b"\n").removesuffix(b"\r")
        else:
            secret = render(auth.private_key).encode("utf-8")
        if not secret.strip():
            raise AuthError(f"{what}: private_key or private_key_file is empty")
        claims = renders.value(dict(auth.claims))
        header = renders.value(dict(auth.jwt_header))
        now = int(time.time())
        if auth.jwt_iat != "omit":
            claims.setdefault("iat", now)
        life = render(auth.jwt_exp).strip()
        if life:
            try:
                seconds = int(life)
            except ValueError:
                raise AuthError(
                    f"{what}: jwt_exp {life!r} is not a whole number of seconds"
                ) from None
            claims.setdefault("exp", now + seconds)
        token = sign_jwt(auth.jwt_algorithm, secret, claims, header)
        prefix = render(auth.oauth2.header_prefix).strip()
        name = render(auth.oauth2.header_name).strip() or HEADER_NAME.default
        return [(name, f"{prefix} {token}" if prefix else token)], []


def _json_ready(value: Any) -> Any:
    """A claim as JSON holds it: a date or time as seconds since the epoch (NumericDate)."""
    if isinstance(value, dict):
        return {str(k): _json_ready(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_json_ready(v) for v in value]
    if isinstance(value, datetime):
        when = value if value.tzinfo else value.astimezone()
        return int(when.timestamp())
    if isinstance(value, date | dt_time):
        return value.isoformat()
    return value


def sign_jwt(algorithm: str, key: bytes, claims: dict[str, Any], header: dict[str, Any]) -> str:
    """The compact JWS of ``claims``; ``AuthError`` for a key that does not fit the algorithm.
    ``joserfc`` is imported here: only a request that signs one needs it."""
    from joserfc import jwt
    from joserfc.errors import JoseError
    from joserfc.jwk import ECKey, OctKey, RSAKey

    kinds: dict[str, Any] = {"H": OctKey, "R": RSAKey, "E": ECKey}
    try:
        with warnings.catch_warnings():  # a short HMAC secret is the user's choice
            warnings.simplefilter("ignore")
            jwk = kinds[algorithm[0]].import_key(key)
            fields = {"typ": "JWT", **_json_ready(header), "alg": algorithm}
            return jwt.encode(fields, _json_ready(claims), jwk, algorithms=[algorithm])
    except (JoseError, ValueError, TypeError) as exc:
        raise AuthError(f"jwt auth: the key does not sign {algorithm}: {exc}") from None


NONE, BASIC, BEARER, API_KEY = NoAuth(), Basic(), Bearer(), ApiKey()
OAUTH2, DIGEST, AWS_SIGV4 = OAuth2Kind(), Digest(), AwsSigV4()
NTLM, NEGOTIATE, OAUTH1, HAWK, JWT = Ntlm(), Negotiate(), OAuth1(), Hawk(), Jwt()
# Every kind, in the order the editor offers them.
_ORDER = (
    NONE, BASIC, BEARER, API_KEY, OAUTH2, DIGEST, AWS_SIGV4, NTLM, NEGOTIATE, OAUTH1, HAWK, JWT,
)  # fmt: skip
KINDS: dict[str, AuthKind] = {k.name: k for k in _ORDER}
AUTH_TYPES = tuple(KINDS)
# The editor's choice for no ``[auth]`` of its own (``Request.auth is None``).
INHERIT = "inherit"
# How a Postman v2.1 collection writes each kind it has (`pigeon export postman`): its type
# and each parameter's ``Auth`` field. A kind not here is not written.
POSTMAN: dict[str, tuple[str, dict[str, str]]] = {
    NONE.name: ("noauth", {}),
    BASIC.name: ("basic", {"username": "username", "password": "password"}),
    BEARER.name: ("bearer", {"token": "token"}),
    API_KEY.name: ("apikey", {"key": "key", "value": "value", "in": "location"}),
    DIGEST.name: ("digest", {"username": "username", "password": "password"}),
    NTLM.name: ("ntlm", {"username": "username", "password": "password", "domain": "domain"}),
    AWS_SIGV4.name: ("awsv4", {"accessKey": "access_key", "secretKey": "secret_key",
                               "region": "region", "service": "service",
                               "sessionToken": "session_token"}),
    OAUTH1.name: ("oauth1", {"consumerKey": "consumer_key", "consumerSecret": "consumer_secret",
                             "token": "token", "tokenSecret": "token_secret",
                             "signatureMethod": "signature_method", "realm": "realm",
                             "callback": "callback", "verifier": "verifier",
                             "addParamsToHeader": "placement"}),
    HAWK.name: ("hawk", {"authId": "hawk_id", "authKey": "hawk_key", "algorithm": "hawk_algorithm",
                         "extraData": "hawk_ext", "app": "hawk_app", "delegation": "hawk_dlg",
                         "includePayloadHash": "hawk_payload"}),
}  # fmt: skip
# Postman's yes-or-no keys among those, and the Pigeon value that is its "yes".
POSTMAN_FLAGS = {"addParamsToHeader": "header", "includePayloadHash": "hash"}


def kind_of(auth: Auth) -> AuthKind:
    """The kind of ``auth``; ``AuthError`` for a type no kind has."""
    kind = KINDS.get(auth.type)
    if kind is None:
        raise AuthError(f"unknown auth type {auth.type!r}")
    return kind


def editor_fields() -> tuple[Field, ...]:
    """Every field a kind uses, once, in an order that keeps each kind's own order: the rows of
    the editor, of which it shows the current kind's."""
    lists = [[f for f in k.fields if not f.table] for k in KINDS.values()]
    out: list[Field] = []
    while any(lists):
        # The first field that no list holds behind another field still to place.
        for f in (lst[0] for lst in lists if lst):
            if not any(f in lst[1:] for lst in lists):
                break
        else:  # pragma: no cover - the kinds' orders contradict each other
            raise ValueError("the auth kinds list their fields in contradicting orders")
        out.append(f)
        for lst in lists:
            if f in lst:
                lst.remove(f)
    return tuple(out)


def schemes() -> set[str]:
    """The ``Authorization`` scheme words the kinds write, lower-case."""
    return {k.scheme.lower() for k in KINDS.values() if k.scheme}
