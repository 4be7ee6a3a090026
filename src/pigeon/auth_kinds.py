"""Auth kinds, declared once (DESIGN §2, §5, §7): the ``[auth]`` settings and, for each kind,
its fields, how it applies and what curl is told.

A field (``Field``) is one key of ``[auth]``: an attribute of ``Auth`` (or of ``Auth.oauth2``),
a row of the app's auth editor (its label, hidden like a password or not, its choices), a
template the collection check reads. Its default is the dataclass's. A kind (``AuthKind``,
one class per scheme as in httpx's ``Auth``) lists the fields it uses, in the order the editor
shows them, and says how it applies: headers and query parameters added at render
(``parts``), credentials for a flow that acts as the request is sent (``flow``: digest answers
a challenge, SigV4 signs; ``pigeon.auth_flows`` holds the flows), or an OAuth 2.0 token
fetched by the send (``token_auth``; ``pigeon.oauth2``). The store, the renderer, masking, the
check, the curl export and the auth editor all read this table, so a new kind is a class here
(and its flow in ``pigeon.auth_flows`` when it answers a challenge).

``Auth`` and ``OAuth2`` live here, beside the fields that describe them, and ``pigeon.model``
re-exports them: the settings of every kind stay one flat table in TOML, kept whatever the
type so switching kinds loses nothing.
"""

from __future__ import annotations

import base64
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, ClassVar


class AuthError(ValueError):
    """An auth that cannot apply as written; the render reports it as a ``RenderError``."""


OAUTH2_GRANTS = (
    "client_credentials", "password", "refresh_token", "authorization_code", "device_code",
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

# Every field, in the order a new ``[auth]`` table writes them.
FIELDS: tuple[Field, ...] = (
    USERNAME, PASSWORD, TOKEN, KEY, VALUE, ACCESS_KEY, SECRET_KEY, SESSION_TOKEN, REGION,
    SERVICE, LOCATION, GRANT, TOKEN_URL, AUTH_URL, DEVICE_URL, CLIENT_ID, CLIENT_SECRET, SCOPE,
    AUDIENCE, REFRESH_TOKEN, REDIRECT_URI, CLIENT_AUTH, HEADER_NAME, HEADER_PREFIX, QUERY_NAME,
    PARAMS,
)  # fmt: skip


# -- kinds ---------------------------------------------------------------------------------------

Render = Callable[[str], str]  # a template -> its text, in a text place (``Renderer``)
Pairs = list[tuple[str, str]]

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

    def texts(self, auth: Auth) -> Iterator[tuple[str, Any]]:
        """(key, template) of what the collection check reads: the plain fields whatever kind
        uses them (a switch of kind keeps them), the OAuth 2.0 ones for a kind that uses them,
        each entry of a table field, and the unknown keys."""
        for f in FIELDS:
            if f.choices or (f.oauth2 and f not in self.fields):
                continue
            if f.table:
                yield from f.get(auth).items()
            else:
                yield f.name, f.get(auth)
        yield from auth.extra.items()


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


NONE, BASIC, BEARER, API_KEY = NoAuth(), Basic(), Bearer(), ApiKey()
OAUTH2, DIGEST, AWS_SIGV4 = OAuth2Kind(), Digest(), AwsSigV4()
# Every kind, in the order the editor offers them.
KINDS: dict[str, AuthKind] = {
    k.name: k for k in (NONE, BASIC, BEARER, API_KEY, OAUTH2, DIGEST, AWS_SIGV4)
}
AUTH_TYPES = tuple(KINDS)
# The editor's choice for no ``[auth]`` of its own (``Request.auth is None``).
INHERIT = "inherit"


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
