"""The collection model (DESIGN §2, §3): plain dataclasses, no behaviour beyond navigation.

Everything here mirrors a TOML file on disk (see ``pigeon.store``); ``extra`` fields keep
keys this version does not know so that a save never drops them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

# An auth's settings are declared beside its kinds' fields; they are part of the model.
from pigeon.auth_kinds import AUTH_TYPES as AUTH_TYPES
from pigeon.auth_kinds import OAUTH2_GRANTS as OAUTH2_GRANTS
from pigeon.auth_kinds import Auth as Auth
from pigeon.auth_kinds import OAuth2 as OAuth2

METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS")
BODY_TYPES = ("none", "json", "text", "form", "multipart", "graphql", "file")
REQUEST_TYPES = ("http", "websocket", "grpc")
GRPC_SCHEMES = ("grpc://", "grpcs://")  # a request whose URL starts so is a gRPC call


@dataclass(slots=True)
class Header:
    name: str
    value: str = ""
    enabled: bool = True
    extra: dict[str, Any] = field(default_factory=dict)  # unknown TOML keys, kept on save


@dataclass(slots=True)
class QueryParam:
    name: str
    value: str = ""
    enabled: bool = True
    extra: dict[str, Any] = field(default_factory=dict)  # unknown TOML keys, kept on save


@dataclass(slots=True)
class FormField:
    """A field of a ``form`` or ``multipart`` body; ``file`` fields name a path to upload."""

    name: str
    value: str = ""
    enabled: bool = True
    kind: str = "text"  # "text" | "file" (multipart only; value is the file path)
    content_type: str = ""
    extra: dict[str, Any] = field(default_factory=dict)  # unknown TOML keys, kept on save


@dataclass(slots=True)
class Body:
    type: str = "none"  # one of BODY_TYPES
    content: str = ""  # json / text
    fields: list[FormField] = field(default_factory=list)  # form / multipart
    extra: dict[str, Any] = field(default_factory=dict)  # unknown TOML keys, kept on save
    # graphql: the query document and its variables (a JSON object, a template: §5's JSON
    # body rules), sent as {"query", "variables", "operationName"}
    query: str = field(default="", kw_only=True)
    variables: str = field(default="", kw_only=True)
    operation_name: str = field(default="", kw_only=True)
    # file: the file sent as it is, streamed from disk (DESIGN §11); ``path`` is a template,
    # relative to the collection; ``content_type`` "" is guessed from the file's name.
    path: str = field(default="", kw_only=True)
    content_type: str = field(default="", kw_only=True)


@dataclass(slots=True)
class Scripts:
    pre_request: str = ""
    post_response: str = ""
    extra: dict[str, Any] = field(default_factory=dict)  # unknown TOML keys, kept on save


DEFAULT_TIMEOUT = 30.0  # seconds for a whole exchange, unless [settings] says otherwise


@dataclass(slots=True)
class Settings:
    timeout: float = DEFAULT_TIMEOUT
    follow_redirects: bool = True
    verify_tls: bool = True
    # Send auth's credentials (and hand-set Authorization, Proxy-Authorization, Cookie) on
    # to another origin when redirected; off by default (DESIGN §7).
    keep_auth_on_redirect: bool = field(default=False, kw_only=True)
    # Send the cookie jar's cookies (a hand-set Cookie header is always sent).
    send_cookies: bool = field(default=True, kw_only=True)
    extra: dict[str, Any] = field(default_factory=dict)  # unknown TOML keys, kept on save


@dataclass(slots=True)
class Stream:
    """``[stream]``: when a streamed response (Server-Sent Events) stops on its own. With the
    table present, post-response scripts run once per event (``pigeon.stopStream()``)."""

    declared: bool = False  # the request file has a [stream] table, even an empty one
    max_events: int | None = None
    max_seconds: float | None = None
    extra: dict[str, Any] = field(default_factory=dict)  # unknown TOML keys, kept on save


@dataclass(slots=True)
class Certificate:
    """A client certificate for the hosts ``host`` matches (``*.corp.example``)."""

    host: str
    cert: str
    key: str = ""  # empty: the key is in ``cert``
    password: str = ""


@dataclass(slots=True)
class Transport:
    """How a collection or an environment reaches servers: ``[settings]`` and
    ``[[certificates]]`` of ``collection.toml`` or an environment file. ``None`` and ``""``
    mean "not set here" (an environment's value wins over the collection's)."""

    proxy: str = ""
    no_proxy: str = ""
    trust_env: bool | None = None  # HTTP(S)_PROXY, NO_PROXY, SSL_CERT_FILE...; default true
    ca_bundle: str = ""
    system_trust: bool | None = None  # the system's trust store instead of certifi's
    certificates: list[Certificate] = field(default_factory=list)


@dataclass(slots=True)
class Message:
    """A saved WebSocket message: ``body`` (a template) is sent as one text frame."""

    name: str
    body: str = ""
    extra: dict[str, Any] = field(default_factory=dict)  # unknown TOML keys, kept on save


# An example's body held in the request file, or named by ``body_file``, is at most this big:
# the mock server keeps every example in memory and the app shows them in an editor.
MAX_EXAMPLE_BODY = 10 * 1024 * 1024


@dataclass(slots=True)
class Example:
    """A saved response (``[[examples]]``, DESIGN §14): what ``pigeon mock`` answers for the
    request. ``body`` is a template rendered per call in the mock's own scope; ``body_file`` (a
    path relative to the collection, inside it) holds a big or binary body sent as it is."""

    name: str
    status: int = 200
    headers: list[Header] = field(default_factory=list)
    body: str = ""
    body_file: str = ""
    extra: dict[str, Any] = field(default_factory=dict)  # unknown TOML keys, kept on save


@dataclass(slots=True)
class WebSocket:
    """A WebSocket request's own keys: the subprotocols offered, the saved messages, and how
    many messages ``pigeon run`` waits for after sending them (``None``: one per message)."""

    subprotocols: list[str] = field(default_factory=list)
    messages: list[Message] = field(default_factory=list)
    replies: int | None = None


@dataclass(slots=True)
class Grpc:
    """A gRPC request's own keys (DESIGN §10): the method called (``"pkg.Service/Method"``),
    and the ``.proto`` files and import folders that describe it (relative to the collection;
    without ``protos``, server reflection does). Its ``[[messages]]`` are the request's
    ``messages``, its metadata the ``[[headers]]``, its message the JSON ``[body]``."""

    rpc: str = ""
    protos: list[str] = field(default_factory=list)
    import_paths: list[str] = field(default_factory=list)


@dataclass(slots=True)
class Request:
    name: str
    method: str = "GET"
    url: str = ""
    variables: dict[str, Any] = field(default_factory=dict)
    headers: list[Header] = field(default_factory=list)
    query: list[QueryParam] = field(default_factory=list)
    body: Body = field(default_factory=Body)
    auth: Auth | None = None
    scripts: Scripts = field(default_factory=Scripts)
    settings: Settings = field(default_factory=Settings)
    stream: Stream = field(default_factory=Stream)
    description: str = ""
    # Where it lives: the file path, and its id relative to the collection root
    # ("users/create-user", no suffix, "/" separators on every platform).
    path: Path | None = None
    id: str = ""
    extra: dict[str, Any] = field(default_factory=dict)
    type: str = "http"  # one of REQUEST_TYPES; a ws:// or wss:// URL is a WebSocket too
    websocket: WebSocket = field(default_factory=WebSocket)
    grpc: Grpc = field(default_factory=Grpc)
    examples: list[Example] = field(default_factory=list)

    @property
    def kind(self) -> str:
        """How it goes out, the key of the pipeline's and the response pane's tables:
        ``"http"``, ``"websocket"`` (its ``type``, or a ``ws://``/``wss://`` URL) or
        ``"grpc"`` (its ``type``, or a ``grpc://``/``grpcs://`` URL)."""
        start = self.url.lstrip()[:8].lower()
        if self.type == "websocket" or start.startswith(("ws://", "wss://")):
            return "websocket"
        if self.type == "grpc" or start.startswith(GRPC_SCHEMES):
            return "grpc"
        return "http"

    @property
    def messages(self) -> list[Message]:
        """The saved ``[[messages]]``: a WebSocket's frames, a gRPC stream's messages."""
        return self.websocket.messages


@dataclass
class Folder:
    name: str
    path: Path | None = None
    id: str = ""
    variables: dict[str, Any] = field(default_factory=dict)
    headers: list[Header] = field(default_factory=list)
    auth: Auth | None = None
    scripts: Scripts = field(default_factory=Scripts)
    order: list[str] = field(default_factory=list)
    items: list[Folder | Request] = field(default_factory=list)
    has_file: bool = False  # whether folder.toml exists (or should be written)
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class SecretSource:
    """Where a secret variable's value comes from (DESIGN §11): read on first use, never
    stored. ``kind`` is ``command`` (``argv``), ``keyring`` (``service``/``account``) or
    ``prompt`` (``label``); ``origin`` names the file that declares it."""

    name: str
    kind: str
    argv: tuple[str, ...] = ()
    service: str = ""
    account: str = ""
    label: str = ""
    timeout: float = 10.0
    origin: str = ""

    def describe(self) -> str:
        """What the variables pane shows in place of the value."""
        if self.kind == "command":
            return "command: " + " ".join(self.argv)
        if self.kind == "keyring":
            return f"keyring: {self.service}/{self.account}"
        return "prompt"


@dataclass
class Environment:
    name: str
    variables: dict[str, Any] = field(default_factory=dict)
    secrets: dict[str, SecretSource] = field(default_factory=dict)
    path: Path | None = None
    transport: Transport = field(default_factory=Transport)
    extra: dict[str, Any] = field(default_factory=dict)
    is_global: bool = False  # from $XDG_CONFIG_HOME/pigeon/environments, offered everywhere


@dataclass
class Globals:
    """What every collection sees from ``$XDG_CONFIG_HOME/pigeon`` (DESIGN §11):
    ``globals.toml``'s variables and secrets, below the collection's, and the global
    environments, each under a collection environment of the same name. All of it lies
    outside the collection: reading it is a trust need."""

    path: Path | None = None  # globals.toml, when it exists
    variables: dict[str, Any] = field(default_factory=dict)
    secrets: dict[str, SecretSource] = field(default_factory=dict)
    environments: dict[str, Environment] = field(default_factory=dict)


@dataclass
class BrokenFile:
    """A file that could not be loaded; it is listed, never overwritten.

    ``skipped`` marks an entry Pigeon does not follow rather than a file that failed: a link
    out of the collection, a link loop, a folder it may not read. It is named, and it never
    stops a run of the requests that do load.
    """

    path: Path
    message: str
    line: int | None = None
    column: int | None = None
    skipped: bool = False

    def __str__(self) -> str:
        where = f"{self.path}"
        if self.line is not None:
            where += f":{self.line}"
            if self.column is not None:
                where += f":{self.column}"
        return f"{where}: {self.message}"


@dataclass(frozen=True)
class FileWarning:
    """Something in a file that loads that Pigeon does not read (an unknown key): named with
    its line and column, never silently dropped (DESIGN §2)."""

    path: Path
    message: str
    line: int | None = None
    column: int | None = None

    def __str__(self) -> str:
        return str(BrokenFile(self.path, self.message, self.line, self.column))


@dataclass
class Collection:
    name: str
    root: Path
    variables: dict[str, Any] = field(default_factory=dict)
    secrets: dict[str, SecretSource] = field(default_factory=dict)
    headers: list[Header] = field(default_factory=list)
    auth: Auth | None = None
    scripts: Scripts = field(default_factory=Scripts)
    order: list[str] = field(default_factory=list)
    items: list[Folder | Request] = field(default_factory=list)
    environments: dict[str, Environment] = field(default_factory=dict)
    default_environment: str | None = None
    dotenv: dict[str, str] = field(default_factory=dict)
    globals: Globals = field(default_factory=Globals)
    broken: list[BrokenFile] = field(default_factory=list)
    warnings: list[FileWarning] = field(default_factory=list)  # files that load, with a doubt
    extra: dict[str, Any] = field(default_factory=dict)
    transport: Transport = field(default_factory=Transport)
    # A digest of each file's text as last read or written (``store.seen``): a save that
    # finds the file changed since asks first.
    seen: dict[Path, str] = field(default_factory=dict, compare=False, repr=False)

    # -- navigation -------------------------------------------------------------------------

    def walk(self) -> list[tuple[list[Folder], Request]]:
        """Every request in collection order, with its folder chain (outer -> inner)."""
        out: list[tuple[list[Folder], Request]] = []

        def visit(items: list[Folder | Request], chain: list[Folder]) -> None:
            for item in items:
                if isinstance(item, Folder):
                    visit(item.items, [*chain, item])
                else:
                    out.append((chain, item))

        visit(self.items, [])
        return out

    def requests(self) -> list[Request]:
        return [r for _, r in self.walk()]

    def find(self, ref: str) -> tuple[list[Folder], Request] | None:
        """Find a request by its id or file path relative to the root (``.toml`` optional)."""
        key = normalize_ref(ref)
        for chain, req in self.walk():
            if req.id == key:
                return chain, req
        return None

    def find_folder(self, ref: str) -> Folder | None:
        key = normalize_ref(ref)

        def visit(items: list[Folder | Request]) -> Folder | None:
            for item in items:
                if isinstance(item, Folder):
                    if item.id == key:
                        return item
                    hit = visit(item.items)
                    if hit:
                        return hit
            return None

        return visit(self.items)


def normalize_ref(ref: str) -> str:
    """``./users/create-user.toml`` -> ``users/create-user``."""
    ref = ref.replace("\\", "/").strip()
    while ref.startswith("./"):
        ref = ref[2:]
    ref = ref.strip("/")
    if ref.endswith(".toml"):
        ref = ref[: -len(".toml")]
    return ref
