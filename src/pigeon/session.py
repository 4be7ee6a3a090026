"""What one opened collection holds for the life of the app (DESIGN §1, §9), and what it does:
render, send, profile, connect and call (gRPC) through the pipeline, record history, trust.
No Textual here, so it is the core's one front-end-neutral "open collection" object, and the
app's only door to how a request goes out (the app imports none of ``render``, ``pipeline``,
``send``, ``scripts``, ``trust``, ``websocket`` or ``rpc``'s calls: ``tests/test_layers.py``).

Why one module: every verb the app has for a request is here, each a few lines over the
pipeline, so that a view finds them all in one place and none of them in a widget.

The collection, the chosen environment, the runtime variables scripts set, the overrides that
sit at the highest scope (the demo's echo server URL), the user's config, the shared HTTP
session, the script worker (its process started on the first script, killed by
``cancel_scripts`` and ``close``) and the script log. The app owns exactly one ``Session``;
widgets ask it for scopes instead of keeping copies.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import dataclasses
import socket
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pigeon
from pigeon.config import AppConfig
from pigeon.model import Auth, Collection, Folder, Request
from pigeon.scopes import RuntimeVars, Scopes, build_scopes
from pigeon.secrets import SecretError, Vault

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable
    from http.cookiejar import CookieJar  # the jar is made by the send, on first use

    from pigeon.exchange import Exchange, Progress  # the renderer loads after the first screen
    from pigeon.gql.introspect import Fetched
    from pigeon.model import SecretSource
    from pigeon.oauth2 import Person, Tokens
    from pigeon.pipeline import Call as Call  # the app's type for a gRPC call
    from pigeon.pipeline import Connection as Connection  # the app's type for a connection
    from pigeon.pipeline import RunContext, RunHistory
    from pigeon.profile import Profile, Sample
    from pigeon.render import RenderedRequest
    from pigeon.rpc.call import Described as Described  # what describe_grpc found
    from pigeon.rpc.call import GrpcCall as GrpcCall  # a live call: Call.call
    from pigeon.rpc.channels import Channels
    from pigeon.scripts import AssertionFailure, ScriptError
    from pigeon.scripts.process import ScriptWorker
    from pigeon.send import HttpSession
    from pigeon.trust import Need


def demo_collection_dir() -> Path | None:
    """The bundled demo: inside the package when installed, at the repo root in a checkout."""
    package = Path(pigeon.__file__).resolve().parent
    for candidate in (package / "demo", package.parents[1] / "collections" / "demo"):
        if (candidate / "collection.toml").is_file():
            return candidate
    return None


@dataclass
class LogEntry:
    """One line of script output or one error, for the log screen."""

    when: datetime
    source: str  # e.g. "users/create-user pre_request"
    text: str
    error: bool = False


class DemoEcho:
    """The demo's echo server on a free loopback port.

    The port is taken at once, so the demo's URL is known before the first paint; the server
    (``http.server`` and the email parser: tens of milliseconds of imports) starts after it,
    with ``start()``. A request sent in between waits in the socket's backlog.
    """

    def __init__(self, port: int = 0) -> None:
        self._socket: socket.socket | None = socket.create_server(("127.0.0.1", port))
        self.url = f"http://127.0.0.1:{self._socket.getsockname()[1]}"
        self._server: Any = None  # pigeon.echo.EchoServer once started

    @property
    def running(self) -> bool:
        return self._server is not None

    def start(self) -> DemoEcho:
        if self._socket is not None:
            from pigeon.echo import EchoServer

            sock, self._socket = self._socket, None
            self._server = EchoServer("127.0.0.1", sock=sock).start()
        return self

    def stop(self) -> None:
        server, self._server = self._server, None
        if server is not None:
            server.stop()
        sock, self._socket = self._socket, None
        if sock is not None:
            sock.close()


@dataclass
class Preview:
    """A request as the editor's live line shows it: the URL rendered, the names left
    unresolved, the warnings, or why it does not render (``error``)."""

    url: str
    unresolved: list[str]
    warnings: list[str]
    error: str | None = None


@dataclass
class SendOutcome:
    """What one send from the app came to."""

    exchange: Exchange | None = None
    error: str | None = None  # the request could not be built
    errors: list[str] = field(default_factory=list)  # script errors and failed asserts
    scripts_skipped: list[str] = field(default_factory=list)  # phases whose scripts did not run


def _not_asked(source: SecretSource) -> str:
    """A prompt secret met by a render the app did not foresee (a name a script set)."""
    raise SecretError(f"secret {source.name}: a prompt reached through a script is not asked")


@dataclass
class Session:
    root: Path
    collection: Collection
    environment: str = ""  # "" = no environment
    runtime: RuntimeVars = field(default_factory=RuntimeVars)
    overrides: dict[str, Any] = field(default_factory=dict)  # the highest scope
    overrides_label: str = "command line --var"  # where the overrides come from
    log: list[LogEntry] = field(default_factory=list)
    http: HttpSession | None = None  # created on the first send
    config: AppConfig = field(default_factory=AppConfig)  # never None: defaults if broken
    echo: DemoEcho | None = None  # the demo's own echo server
    history_warned: bool = False  # a failure to record history is reported once
    trust_asked: bool = False  # the app asked whether to trust the collection (once)
    scripts: ScriptWorker | None = None  # made on the first send; a process on first script
    tokens: Tokens | None = None  # OAuth 2.0 tokens, made on first need (``oauth2_tokens``)
    person: Person | None = None  # who signs in for the OAuth 2.0 grants that need someone
    trust_how: str = ""  # how a refusal says to trust it ("": pigeon.trust.HOW, the CLI's)
    grpc: Channels | None = None  # gRPC channels and descriptors, made on the first call
    # The secrets read this session (DESIGN §11), in memory only; the app asks for a prompt
    # secret in its dialog (``ask_secret``: ``None`` when the user declined).
    vault: Vault = field(default_factory=lambda: Vault(_not_asked))
    ask_secret: Callable[[SecretSource], Awaitable[str | None]] | None = None
    # The environment whose saved cookie jar the HTTP session holds; None: not loaded yet.
    jar_environment: str | None = None
    # The jar last written: its environment and cookies.
    _jar_saved: tuple[str, list[dict[str, Any]]] | None = field(default=None, repr=False)

    @classmethod
    def open(cls, root: Path, environment: str | None = None) -> Session:
        """Load a collection; ``environment=None`` picks the one last chosen in the app when
        it still exists, else the collection's default."""
        from pigeon.store import load_collection
        from pigeon.store.remembered import remembered_environment

        collection = load_collection(root)
        session = cls(root=collection.root, collection=collection)
        if environment is None:
            remembered = remembered_environment(collection.root)
            if remembered == "" or remembered in collection.environments:
                environment = remembered
            else:
                environment = collection.default_environment or ""
        session.environment = environment if environment in collection.environments else ""
        return session

    def reload(self, loaded: Collection | None = None) -> list[str]:
        """Reload from disk (or take ``loaded``, read from it off the UI loop), keeping
        runtime variables and the environment choice."""
        from pigeon.store import load_collection

        self.collection = loaded if loaded is not None else load_collection(self.root)
        if self.environment not in self.collection.environments:
            self.environment = ""
        return [str(b) for b in self.collection.broken]

    def choose_environment(self, name: str) -> str | None:
        """Use environment ``name`` ("": none) and remember it for the next session of this
        collection; why it could not be remembered, or ``None``."""
        from pigeon.store.remembered import remember_environment

        self.environment = name
        return remember_environment(self.root, name)

    def remember_tabs(self, paths: list[Path], active: int, preview: int) -> str | None:
        """Remember the request files open in the app's tabs (``active``: the one shown,
        ``preview``: the preview tab, ``-1`` for none); why they could not be, or ``None``."""
        from pigeon.store.remembered import OpenTabs, remember_tabs

        names = []
        for path in paths:
            try:
                names.append(path.relative_to(self.root).as_posix())
            except ValueError:
                continue
        return remember_tabs(self.root, OpenTabs(names, active, preview))

    def remembered_tabs(self) -> tuple[list[Request], int, int]:
        """The requests open in tabs when the app last left this collection, as loaded now
        (files gone or broken are left out), the one shown and the preview tab (``-1``)."""
        from pigeon.store.remembered import remembered_tabs

        tabs = remembered_tabs(self.root)
        by_path = {r.path: r for r in self.collection.requests() if r.path is not None}
        found = [(i, by_path.get(self.root / name)) for i, name in enumerate(tabs.paths)]
        kept = [(i, r) for i, r in found if r is not None]
        index = {old: new for new, (old, _) in enumerate(kept)}
        active = index.get(tabs.active, 0)
        return [r for _, r in kept], active, index.get(tabs.preview, -1)

    # -- lookups ------------------------------------------------------------------------------

    def environment_names(self) -> list[str]:
        return sorted(self.collection.environments)

    def environment_marks(self) -> dict[str, str]:
        """The environments from ``$XDG_CONFIG_HOME/pigeon`` (DESIGN §11), as f4 notes them:
        ``global``, or ``+ global`` for a collection one that lies over a global one."""
        col = self.collection
        return {
            name: "global" if col.environments.get(name) is env else "+ global"
            for name, env in col.globals.environments.items()
        }

    def chain_of(self, request: Request) -> list[Folder]:
        """The folders holding ``request`` (matched by file path, so edited copies work)."""
        for chain, req in self.collection.walk():
            if req is request or (request.path is not None and req.path == request.path):
                return list(chain)
        return []

    def saved_request(self, request: Request) -> Request | None:
        """The collection's own object for an edited copy."""
        for _, req in self.collection.walk():
            if req is request or (request.path is not None and req.path == request.path):
                return req
        return None

    def scopes_for(self, request: Request | None, leaving: bool = False) -> Scopes:
        """The request's scopes; ``leaving``: for a render that leaves the app (a copied curl
        command), which an untrusted collection renders behind the trust gate, as a send."""
        chain = self.chain_of(request) if request is not None else []
        return self.scopes_for_chain(chain, request, leaving)

    def scopes_for_chain(
        self, chain: list[Folder], request: Request | None, leaving: bool = False
    ) -> Scopes:
        gate = None
        if leaving and not self.is_trusted():
            from pigeon.trust import HOW, Gate

            gate = Gate(self.collection, how=self.trust_how or HOW)
        return build_scopes(
            self.collection,
            chain,
            request,
            environment=self.environment,
            runtime=self.runtime,
            cli_vars=self.overrides or None,
            cli_label=self.overrides_label,
            gate=gate,
            vault=self.vault.peek(),  # shown, not sent: the secrets read, none read for it
        )

    # -- rendering ----------------------------------------------------------------------------

    def render(self, request: Request, leaving: bool = False) -> RenderedRequest:
        """``request`` as it goes out, with this session's scopes (``RenderError`` when it
        cannot). ``leaving``: it leaves the app (a copied curl command, a token fetch), so an
        untrusted collection renders it behind the trust gate, as a send does."""
        from pigeon.render import render_request

        chain = self.chain_of(request)
        scopes = self.scopes_for_chain(chain, request, leaving)
        return render_request(self.collection, chain, request, scopes)

    def preview(self, request: Request) -> Preview:
        """The live preview: what a send would send, so an untrusted collection's ``$env`` is
        not read there either (the placeholder stays, with the reason the send gives). Never
        raises (a half-typed edit must not crash the editor)."""
        from pigeon.errors import RenderError
        from pigeon.render import render_request

        gate = None
        if not self.is_trusted():
            from pigeon.trust import Gate

            gate = Gate(self.collection, record=True)  # notes what a send would refuse
        try:
            chain = self.chain_of(request)
            scopes = self.scopes_for_chain(chain, request)
            scopes.gate = gate
            rendered = render_request(self.collection, chain, request, scopes)
        except RenderError as exc:
            return Preview("", [], [], str(exc))
        except Exception as exc:
            return Preview("", [], [], f"{type(exc).__name__}: {exc}")
        found = gate.found if gate is not None else []
        refused = [f"needs trust: {thing}" for kind, _, thing in found if kind == "env"]
        return Preview(rendered.url, rendered.unresolved, [*rendered.warnings, *refused])

    def file_body(self, request: Request) -> str:
        """The request's file body as the editor shows it, looked at but never read:
        ``<file PATH, N bytes, TYPE>``, or why a send would not send it (missing, a folder or
        FIFO, outside an untrusted collection). Never raises."""
        from pigeon.errors import RenderError
        from pigeon.file_body import inspect, resolve
        from pigeon.render import render_text

        body = request.body
        try:
            scopes = self.scopes_for_chain(self.chain_of(request), request)
            gate = None
            if not self.is_trusted():
                from pigeon.trust import Gate

                gate = scopes.gate = Gate(self.collection, record=True)
            shown = render_text(body.path, scopes).text.strip()
            if not shown:
                return "No file yet: its path, relative to the collection"
            content_type = render_text(body.content_type, scopes).text.strip()
            path = resolve(shown, self.collection.root)
            if gate is not None:
                gate.file(path, "the file body")
                refused = [thing for kind, _, thing in gate.found if kind == "file"]
                if refused:
                    return f"needs trust: {refused[0]}"
            return inspect(path, shown, content_type).describe()
        except RenderError as exc:
            return str(exc)
        except Exception as exc:
            return f"{type(exc).__name__}: {exc}"

    def auth_of(self, request: Request) -> Auth | None:
        """The auth ``request`` is sent with: its own, else its folders', else the collection's."""
        from pigeon.render import effective_auth

        return effective_auth(self.collection, self.chain_of(request), request)

    # -- edits --------------------------------------------------------------------------------

    def commit_request(self, edited: Request, force: bool = False) -> Request:
        """Save an edited copy through the store and fold it into the collection's object.
        A file changed on disk since it was read is ``ChangedOnDisk`` unless ``force``."""
        from pigeon.store import save_request

        save_request(edited, seen=self.collection.seen, force=force)
        original = self.saved_request(edited)
        if original is None:
            return edited
        for f in dataclasses.fields(Request):
            setattr(original, f.name, copy.deepcopy(getattr(edited, f.name)))
        return original

    def add_log(self, source: str, text: str, error: bool = False) -> None:
        known = self.vault.values()
        if known:  # a script that prints a secret it read: its copies are masked
            from pigeon.masking import Masker

            text = Masker(known).text(text)
        self.log.append(LogEntry(datetime.now(), source, text, error))
        del self.log[:-2000]  # bounded: a chatty script cannot eat memory

    # -- trust, sending and history ----------------------------------------------------------

    def is_trusted(self) -> bool:
        from pigeon.config import TrustStore

        return TrustStore().is_trusted(self.root)

    def trust(self) -> None:
        from pigeon.config import TrustStore

        TrustStore().trust(self.root)

    def trust_key(self) -> str:
        """The collection as the trust store records it (and the trust prompt shows it)."""
        from pigeon.config import TrustStore

        return TrustStore.key(self.root)

    def needs(self, request: Request | None = None) -> list[Need]:
        """What needs trust (DESIGN §8): of one request, or of the whole collection."""
        from pigeon.trust import needs

        selection = (
            self.collection.walk() if request is None else [(self.chain_of(request), request)]
        )
        return needs(self.collection, selection, self.environment, cli_vars=self.overrides)

    def trust_wants(self) -> list[str]:
        """What trusting the whole collection allows, one line per kind, as the trust prompt
        lists it. Blocking (it renders every request): call it in a thread."""
        from pigeon.trust import summary

        return summary(self.needs())

    def http_session(self) -> HttpSession:
        """The collection's shared HTTP session (connections, cookies), made on first use with
        the config's ``max_body_in_memory_mb``."""
        if self.http is None:
            from pigeon.send import HttpSession

            self.http = HttpSession(max_body_in_memory=self.config.max_body_in_memory)
        return self.http

    def cookie_jar(self) -> CookieJar:
        """The jar of the chosen environment, loaded from ``.pigeon/cookies/`` when the
        environment changed since (blocking file work: call it in a thread). A jar that
        cannot be read is logged and starts empty."""
        jar = self.http_session().cookie_jar
        if self.jar_environment != self.environment:
            from pigeon.cookies import load, snapshot

            self.jar_environment = self.environment
            problem = load(jar, self.root, self.environment)
            self._jar_saved = (self.environment, snapshot(jar))
            if problem:
                self.add_log("cookies", problem, error=True)
        return jar

    def with_jar_cookies(self, rendered: RenderedRequest) -> RenderedRequest:
        """``rendered`` with the cookies of this environment's jar that its send would carry
        (a copied curl command sends what the app would)."""
        from pigeon.cookies import with_jar_cookies

        result: RenderedRequest = with_jar_cookies(rendered, self.cookie_jar())
        return result

    async def save_cookies(self) -> None:
        """Write the jar (taken here, written in a thread); a failure is logged."""
        from pigeon.cookies import save, snapshot

        if self.jar_environment is None:
            return
        entries, env = snapshot(self.http_session().cookie_jar), self.jar_environment
        if (env, entries) == self._jar_saved:
            return  # most sends change no cookie
        try:
            await asyncio.to_thread(save, entries, self.root, env)
        except OSError as exc:
            self.add_log("cookies", f"cookie jar not saved: {exc}", error=True)
        else:
            self._jar_saved = (env, entries)

    def script_worker(self) -> ScriptWorker:
        """The collection's script worker handle (its process starts on the first script)."""
        if self.scripts is None:
            from pigeon.scripts.process import ScriptWorker

            self.scripts = ScriptWorker(self.root, self.config.script_memory_mb)
        return self.scripts

    def oauth2_tokens(self) -> Tokens:
        """The collection's OAuth 2.0 tokens, signing in through ``person``."""
        if self.tokens is None:
            from pigeon.oauth2 import Tokens

            self.tokens = Tokens(self.root, self.person)
        return self.tokens

    def cancel_scripts(self) -> None:
        """Kill a running script at once (the send's cancel); the next script starts a new
        worker."""
        if self.scripts is not None:
            self.scripts.kill()

    def run_context(self, trusted: bool, allow_scripts: bool = True) -> RunContext:
        """The pipeline's context for one send from the app: this session's environment,
        runtime variables, overrides, HTTP session, script worker and OAuth 2.0 tokens."""
        from pigeon.pipeline import RunContext

        return RunContext(
            collection=self.collection,
            environment=self.environment,
            runtime=self.runtime,
            cli_vars=self.overrides,
            http=self.http_session(),
            trusted=trusted,
            trust_how=self.trust_how,
            allow_scripts=allow_scripts,
            scripts=self.script_worker() if allow_scripts else None,
            oauth2=self.oauth2_tokens(),
            vault=self.vault,
        )

    def secrets_for(self, request: Request) -> list[SecretSource]:
        """The secrets a render of ``request`` would read, read nowhere (a recording gate)."""
        from pigeon.render import render_request
        from pigeon.trust import Gate

        gate = Gate(self.collection, record=True)
        chain = self.chain_of(request)
        try:
            scopes = build_scopes(
                self.collection, chain, request, self.environment, self.runtime,
                self.overrides or None, gate=gate,
            )  # fmt: skip
            render_request(self.collection, chain, request, scopes)
        except Exception:  # a request that does not render: the send says why
            pass
        return gate.secrets

    async def read_secrets(self, request: Request, trusted: bool) -> None:
        """Read the secrets a send of ``request`` needs before it renders, off the app's
        loop: a command in a thread, a prompt in the app's dialog. A failure is kept for
        the render to report. Untrusted, nothing is read: the send's gate refuses."""
        if not trusted:
            return
        for source in self.secrets_for(request):
            if self.vault.cached(source) is not None:
                continue
            if source.kind == "prompt":
                answer = await self.ask_secret(source) if self.ask_secret else None
                if answer is None:
                    self.vault.failed(source, SecretError(f"secret {source.name}: not given"))
                else:
                    self.vault.put(source, answer)
                continue
            try:
                await asyncio.to_thread(self.vault.resolve, source)
            except SecretError as exc:
                self.vault.failed(source, exc)

    async def send(
        self, request: Request, trusted: bool, progress: Progress | None = None
    ) -> SendOutcome:
        """Send through ``pigeon.pipeline.execute``, the pipeline ``pigeon run`` uses, with this
        session's environment, runtime variables, overrides and HTTP session; script output
        goes to the log. ``progress`` (and its sink) watch the send as it goes."""
        from pigeon.pipeline import execute

        if self.jar_environment != self.environment:
            await asyncio.to_thread(self.cookie_jar)
        await self.read_secrets(request, trusted)
        ctx = self.run_context(trusted)
        if request.kind == "grpc":  # the session's channels, reused from call to call
            ctx.grpc = self.grpc_channels()
        try:
            result = await execute(ctx, self.chain_of(request), request, progress)
        finally:
            if ctx.grpc is not None and ctx.grpc is not self.grpc:  # a URL that became grpc://
                await ctx.grpc.aclose()
        await self.save_cookies()
        source = request.id or request.name
        for line in result.log:
            self.add_log(source, line)
        outcome = SendOutcome(exchange=result.exchange, scripts_skipped=result.scripts_skipped)
        problems: list[ScriptError | AssertionFailure] = [
            *result.script_errors,
            *result.assertion_failures,
        ]
        for problem in problems:
            self.add_log(source, problem.traceback or problem.summary(), error=True)
            outcome.errors.append(problem.summary())
        if result.exchange is None and result.error:
            outcome.error = result.error[:1].upper() + result.error[1:]
        return outcome

    async def profile(self, request: Request, trusted: bool, sends: int, at_once: int) -> Profile:
        """A latency profile of ``request`` (``pigeon.profile``), ready to ``run()``: each of
        its sends goes through ``pigeon.pipeline.execute`` as a send from the app does (scopes,
        the pre-request scripts, auth, render, the request's deadline, the HTTP session's
        connections and cookies), except that the post-response scripts do not run and what
        a script sets lives in the profile's own copy of the runtime variables: the session's
        are as they were. Nothing goes to the history; the first problem of a script goes to
        the log."""
        from pigeon.pipeline import execute
        from pigeon.profile import Profile, sample_of

        if self.jar_environment != self.environment:
            await asyncio.to_thread(self.cookie_jar)
        await self.read_secrets(request, trusted)
        ctx = self.run_context(trusted)
        ctx.runtime = RuntimeVars(self.runtime.as_dict())
        ctx.post_response = False
        chain, source = self.chain_of(request), request.id or request.name
        logged = False

        async def send() -> Sample:
            nonlocal logged
            result = await execute(ctx, chain, request)
            problems: list[ScriptError | AssertionFailure] = [
                *result.script_errors,
                *result.assertion_failures,
            ]
            if problems and not logged:
                logged = True
                first = problems[0]
                self.add_log(f"{source} profile", first.traceback or first.summary(), error=True)
            sample = sample_of(result.exchange, result.error)
            if result.exchange is not None:
                result.exchange.discard()  # a body spooled to disk goes now, not at exit
            return sample

        return Profile(send, sends, at_once, finished=self.save_cookies)

    async def connect(
        self,
        request: Request,
        trusted: bool,
        on_change: Callable[[], None] | None = None,
    ) -> Connection:
        """A WebSocket connection through ``pigeon.pipeline.connect``, the way ``pigeon run``
        connects: scopes, pre-request scripts, the trust gate, render, then the link (not yet
        run: the caller runs ``link.run()``). ``on_change`` hears every change of the link.
        Its ``finish()``, once the link is done, runs what post-response scripts have not
        run and records the connection in the history; script output goes to the log."""
        from pigeon.pipeline import connect

        await self.read_secrets(request, trusted)
        ctx = self.run_context(trusted)
        ctx.history = self._history()
        source = request.id or request.name
        connection = await connect(ctx, self.chain_of(request), request, on_change)
        connection.log = lambda line, error: self.add_log(source, line, error)
        connection.flush_log()
        return connection

    def _history(self) -> RunHistory:
        """How a connection or a call from the app is recorded: as a send is."""
        from pigeon.pipeline import RunHistory

        return RunHistory(
            secrets=list(self.collection.dotenv.values()),
            keep=self.config.history_keep if self.config.history_keep >= 0 else None,
            max_age_days=self.config.history_max_age_days,
            warn=lambda problem: self.add_log("history", problem, error=True),
        )

    def load_grpc(self) -> None:
        """Import what a gRPC call or description needs (the pipeline, OAuth 2.0's tokens,
        grpc, protobuf and Pigeon's calls): blocking, a second or more the first time, so the
        app runs it in a thread before its first call instead of on its loop. Without the grpc
        extra it imports what it can: the call then says how to install it."""
        from pigeon.oauth2 import Tokens  # noqa: F401
        from pigeon.pipeline import call_grpc  # noqa: F401
        from pigeon.rpc import exchange  # noqa: F401

        with contextlib.suppress(ImportError):
            import grpc.aio  # noqa: F401
            from google.protobuf import descriptor_pool, json_format, message_factory  # noqa: F401
            from grpc_reflection.v1alpha import reflection_pb2  # noqa: F401

    def grpc_channels(self) -> Channels:
        """The collection's gRPC channels and the descriptors found (made on first use)."""
        if self.grpc is None:
            from pigeon.rpc.channels import Channels

            self.grpc = Channels()
        return self.grpc

    async def call_grpc(
        self,
        request: Request,
        trusted: bool,
        on_change: Callable[[], None] | None = None,
    ) -> Call:
        """A gRPC call through ``pigeon.pipeline.call_grpc``, the way ``pigeon run`` calls:
        scopes, pre-request scripts, the trust gate, render, then the method's descriptors
        (its ``.proto`` files, or reflection: once per service this session). ``call.call``
        is ``None`` when it could not be made (``call.result.error`` says why; a failure
        already recorded in the history).

        ``await call.run()`` makes the whole call as ``pigeon run`` does and returns the
        ``RequestResult`` (its ``exchange``: status, metadata, trailers, replies). Meanwhile
        ``call.call`` (a ``GrpcCall``) is live: ``replies``, ``received``, ``dropped``,
        ``initial_metadata``, ``code``, ``status_line()``, and ``receive(timeout)`` for the
        next reply. Or drive it: ``call.call.open()``, ``send(json_text)``,
        ``close_sending()``, ``finished()``, then ``call.finish()``. ``on_change`` hears every
        reply and the end, **on gRPC's own thread**. ``finish`` runs what post-response
        scripts have not run and records the call in the history; script output goes to
        the log."""
        from pigeon.pipeline import call_grpc

        await self.read_secrets(request, trusted)
        ctx = self.run_context(trusted)
        ctx.grpc = self.grpc_channels()
        ctx.history = self._history()
        source = request.id or request.name
        call = await call_grpc(ctx, self.chain_of(request), request, on_change)
        call.log = lambda line, error: self.add_log(source, line, error)
        for line in call.result.log:
            self.add_log(source, line)
        for problem in call.result.script_errors:
            self.add_log(source, problem.traceback or problem.summary(), error=True)
        return call

    async def describe_grpc(self, request: Request) -> Described:
        """What a gRPC request reaches: services, methods, message types, and its method's
        kind and input fields (the app's completion). Through the pipeline (trust gate, no
        scripts, no history); ``GrpcError`` (``pigeon.rpc``) says why not."""
        from pigeon.pipeline import describe_grpc

        ctx = self.run_context(self.is_trusted(), allow_scripts=False)
        ctx.grpc = self.grpc_channels()
        return await describe_grpc(ctx, self.chain_of(request), request)

    async def fetch_schema(self, request: Request) -> Fetched:
        """Fetch and cache the GraphQL schema of the endpoint ``request`` goes to, through the
        pipeline (trust gate, no scripts, no history); ``SchemaError`` says why not."""
        from pigeon.gql.introspect import fetch_schema

        ctx = self.run_context(self.is_trusted(), allow_scripts=False)
        return await fetch_schema(ctx, self.chain_of(request), request)

    def resumed(self, request: Request, last_id: str, retry_ms: int | None = None) -> float:
        """Make ``request`` resume a stream after event ``last_id`` (``Last-Event-ID``);
        the seconds to wait first (``pigeon.stream.resumed``)."""
        from pigeon.stream import resumed

        return resumed(request, last_id, retry_ms)

    def cancelled(self, request: Request, elapsed_ms: float) -> Exchange | None:
        """A send of ``request`` stopped after ``elapsed_ms``, as the history records it;
        ``None`` when it does not render (then it was not sent either)."""
        from pigeon.exchange import Exchange, Timings, duration

        try:
            rendered = self.render(request)
        except Exception:
            return None
        exchange = Exchange.failed(rendered, "cancelled", f"cancelled after {duration(elapsed_ms)}")
        exchange.timings = Timings(total_ms=elapsed_ms)
        if request.kind == "grpc":  # so the history opens it again as a call
            from pigeon.exchange import GrpcFacts

            exchange.method = rendered.method = "GRPC"
            exchange.grpc = GrpcFacts(rpc=request.grpc.rpc, kind="")
        return exchange

    def record_cancelled(self, request: Request, elapsed_ms: float) -> str | None:
        """Record a cancelled send in the history (``record``'s rules; blocking)."""
        exchange = self.cancelled(request, elapsed_ms)
        return self.record(exchange) if exchange is not None else None

    def record(self, exchange: Exchange, keep: int | None = None) -> str | None:
        """Write one exchange to the collection's history (secrets masked) and drop entries
        beyond ``keep`` (default: the config's ``history_keep``) or older than the config's
        ``history_max_age_days``. Blocking file work: call it in a thread. Returns why it
        could not be written (a read-only folder, a full disk), or ``None``: history must
        never break a send."""
        from pigeon.history import record_and_prune

        keep = self.config.history_keep if keep is None else keep
        try:
            record_and_prune(
                self.root,
                exchange,
                secrets=self.collection.dotenv.values(),
                keep=keep if keep >= 0 else None,
                max_age_days=self.config.history_max_age_days,
            )
        except Exception as exc:
            return f"{type(exc).__name__}: {exc}"
        return None

    def last_response(self, request_id: str) -> Exchange | None:
        """The newest exchange of request ``request_id`` in the history (``None``: none, or
        the history does not read). Blocking file work: call it in a thread."""
        from pigeon.history import list_entries

        if not request_id:
            return None
        try:
            entries = list_entries(self.root)
            entry = next((e for e in entries if e.request_id == request_id), None)
            return entry.to_exchange() if entry is not None else None
        except Exception:
            return None

    async def close(self) -> None:
        """Kill the script worker, close the HTTP session and stop the echo server the app
        started. Never waits on a script."""
        self.cancel_scripts()
        http, self.http = self.http, None
        if http is not None:
            await http.aclose()
        grpc, self.grpc = self.grpc, None
        if grpc is not None:
            await grpc.aclose()
        echo, self.echo = self.echo, None
        if echo is not None:
            echo.stop()
