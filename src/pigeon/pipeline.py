"""One request: scopes -> pre-request scripts -> render -> send -> post-response scripts.

The pipeline DESIGN §1 draws, shared by the app (``pigeon.session``), ``pigeon run`` and
``pigeon render`` (which stops after ``build``). It never raises for what a request or a
script does: every outcome lands in a ``RequestResult``.

Why one module: the steps share one ``RunContext`` and one ``RequestResult``, and the ways a
request goes out (HTTP, a stream watched event by event, a WebSocket, ``pigeon.send`` from a
script) are branches of ``execute`` that the app and ``pigeon run`` must take alike.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pigeon.config import DEFAULT_SCRIPT_MEMORY_MB
from pigeon.exchange import status_class
from pigeon.model import Collection, Folder, Request
from pigeon.render import RenderedRequest, RenderError, render_request
from pigeon.scopes import RuntimeVars, Scopes, build_scopes
from pigeon.scripts import (
    AssertionFailure,
    ScriptError,
    ScriptOutcome,
    has_scripts,
)
from pigeon.scripts.outcome import Reported, ReportedError
from pigeon.secrets import Vault
from pigeon.trust import HOW, Gate

if TYPE_CHECKING:  # send is imported on the first send: `pigeon render` never loads httpx
    # and the script worker on the first script that runs
    from pigeon.event_scripts import EventScripts
    from pigeon.excerpts import Excerpt, Excerpts
    from pigeon.exchange import Exchange, Progress
    from pigeon.oauth2 import Tokens
    from pigeon.rpc.call import Described, GrpcCall
    from pigeon.rpc.channels import Channels
    from pigeon.scripts.process import ScriptWorker
    from pigeon.send import HttpSession
    from pigeon.websocket import WebSocketLink

__all__ = [
    "EXCHANGES",
    "Call",
    "Connection",
    "RequestResult",
    "ResultRecord",
    "RunContext",
    "RunHistory",
    "build",
    "call_grpc",
    "connect",
    "describe_grpc",
    "execute",
]


@dataclass
class RunContext:
    """What every request of one run (or one app session) shares."""

    collection: Collection
    environment: str | None = None
    runtime: RuntimeVars = field(default_factory=RuntimeVars)
    cli_vars: Mapping[str, Any] = field(default_factory=dict)
    environ: Mapping[str, str] | None = None
    http: HttpSession | None = None  # created on first send
    # Trusted by its user (DESIGN §8); untrusted, a ``pigeon.trust.Gate`` refuses what the
    # collection does not hold itself, and no script runs.
    trusted: bool = False
    # How a refusal says to trust the collection (``pigeon.trust.HOW``; the app names its own).
    trust_how: str = ""
    # ``False`` (``--no-scripts``): no script runs, trusted or not.
    allow_scripts: bool = True
    # ``False``: the post-response scripts do not run (a profile's sends, ``pigeon.profile``).
    post_response: bool = True
    strict: bool = False
    # All scripts of one phase together, wall-clock: the script worker is killed when it
    # passes, so a stuck script fails its request instead of hanging a CI job. ``None``: none.
    script_timeout: float | None = 30.0
    # The worker that runs the scripts, started on first need; the app's Session passes its
    # own, which outlives each send. ``script_memory_mb`` limits one made here.
    scripts: ScriptWorker | None = None
    script_memory_mb: float = DEFAULT_SCRIPT_MEMORY_MB
    # Reuse Scopes (and so their render caches) while the files cannot change, as in
    # `pigeon run`: one per request, or one per folder chain for the requests that define no
    # variables of their own. The app edits variables in place, so it leaves this off.
    reuse_scopes: bool = False
    # Bytes of a response body kept in memory (the rest goes to a temporary file) by the
    # session created here; ``None``: HttpSession's default.
    max_body_in_memory: int | None = None
    # `pigeon run --history` records each send in the collection's history; the app records
    # its sends itself (outside the send), so it leaves this ``None``.
    history: RunHistory | None = None
    # OAuth 2.0 tokens (``pigeon.oauth2``): the app passes its own, which can sign a person
    # in; made here on first need, for the grants that need nobody.
    oauth2: Tokens | None = None
    # The secrets read for this run or session (DESIGN §11), kept in memory; the command
    # line's asks on the terminal, the app's in a dialog.
    vault: Vault = field(default_factory=Vault)
    _scopes: dict[tuple[int, ...], tuple[tuple[Any, ...], Scopes]] = field(
        default_factory=dict, repr=False
    )
    # gRPC channels and the descriptors found, made on the first call (``pigeon.rpc``).
    grpc: Channels | None = None
    _gate: Gate | None = field(default=None, repr=False)
    # ``pigeon.send`` from a script: how deep this context sends, and the requests on the way.
    send_depth: int = 0
    sending: tuple[str, ...] = ()

    def gate(self) -> Gate | None:
        """The trust rule's gate for this run, ``None`` when the collection is trusted."""
        if self.trusted:
            return None
        if self._gate is None:
            self._gate = Gate(self.collection, how=self.trust_how or HOW)
        return self._gate

    def session(self) -> HttpSession:
        if self.http is None:
            from pigeon.send import HttpSession

            if self.max_body_in_memory is not None:
                self.http = HttpSession(max_body_in_memory=self.max_body_in_memory)
            else:
                self.http = HttpSession()
        return self.http

    def grpc_channels(self) -> Channels:
        if self.grpc is None:
            from pigeon.rpc.channels import Channels

            # a run's loop outlives its calls (``aclose``): they stay on it
            self.grpc = Channels(own_loop=False)
        return self.grpc

    def tokens(self) -> Tokens:
        if self.oauth2 is None:
            from pigeon.oauth2 import Tokens

            self.oauth2 = Tokens(self.collection.root)
        return self.oauth2

    def script_worker(self) -> ScriptWorker:
        if self.scripts is None:
            from pigeon.scripts.process import ScriptWorker

            self.scripts = ScriptWorker(self.collection.root, self.script_memory_mb)
        return self.scripts

    async def aclose(self) -> None:
        """Kill the script worker and close the HTTP session."""
        if self.scripts is not None:
            self.scripts.kill()
        if self.http is not None:
            await self.http.aclose()
            self.http = None
        if self.grpc is not None:
            await self.grpc.aclose()
            self.grpc = None


@dataclass
class RunHistory:
    """How a run records its sends: into the collection's history, masked and pruned as the
    app does. A history that cannot be written never fails a run: ``warn`` hears of it once."""

    secrets: list[str] = field(default_factory=list)
    keep: int | None = None
    max_age_days: float | None = None
    warn: Callable[[str], None] | None = None
    warned: bool = False

    def record(self, root: Path, exchange: Exchange) -> None:
        from pigeon.history import record_and_prune  # only a run with --history needs it

        try:
            record_and_prune(
                root,
                exchange,
                secrets=self.secrets,
                keep=self.keep,
                max_age_days=self.max_age_days,
            )
        except Exception as exc:  # a read-only checkout, a full disk: the run goes on
            if not self.warned:
                self.warned = True
                if self.warn is not None:
                    self.warn(f"{type(exc).__name__}: {exc}")


class Outcome:
    """What a request's outcome is, read the same way from a ``RequestResult`` and from the
    ``ResultRecord`` a run keeps of it."""

    __slots__ = ()
    error: str | None
    script_errors: Sequence[ReportedError]
    assertion_failures: Sequence[Reported]
    unresolved: Sequence[str]
    strict_failure: bool
    scripts_skipped: Sequence[str]

    @property
    def failed(self) -> bool:
        """Could not be built or sent, a script failed, or an assertion failed."""
        return bool(self.error or self.script_errors or self.assertion_failures)

    @property
    def skipped(self) -> bool:
        """Sent, but its post-response scripts (its assertions) did not run: not a pass."""
        return not self.failed and "post_response" in self.scripts_skipped

    @property
    def passed(self) -> bool:
        return not self.failed and not self.strict_failure and not self.skipped

    def problems(self) -> list[str]:
        """One line per thing that went wrong, for the console and the reports."""
        out = []
        if self.error:
            out.append(self.error)
        out += [f"script error: {e.summary()}" for e in self.script_errors]
        out += [a.summary() for a in self.assertion_failures]  # says "assertion failed"
        if self.strict_failure:
            out.append("unresolved placeholders: " + ", ".join(self.unresolved))
        return out


@dataclass
class RequestResult(Outcome):
    """Everything one request of a run produced."""

    request: Request
    chain: list[Folder]
    rendered: RenderedRequest | None = None
    exchange: Exchange | None = None
    error: str | None = None  # could not be built or sent
    script_errors: list[ScriptError] = field(default_factory=list)
    assertion_failures: list[AssertionFailure] = field(default_factory=list)
    log: list[str] = field(default_factory=list)
    unresolved: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    strict_failure: bool = False
    scripts_skipped: list[str] = field(default_factory=list)  # phases whose scripts did not run
    duration_ms: float = 0.0
    frames: tuple[int, int] | None = None  # a WebSocket's messages (sent, received)

    @property
    def id(self) -> str:
        return self.request.id or self.request.name

    def heard(self, outcome: ScriptOutcome) -> None:
        """Take in what a post-response script run said: its output, errors and failures."""
        self.log += outcome.output
        self.script_errors += outcome.errors
        self.assertion_failures += outcome.assertion_failures

    def record(
        self, *, seq: int = 0, label: str = "", excerpts: Excerpts | None = None
    ) -> ResultRecord:
        """What a run keeps once the request is done: status, timing, size, outcome. Its
        scripts have seen the body and nothing later reads it, so a run of any length holds
        the same small record per request, never bodies, headers or the rendered request;
        the exchange's spooled body file is removed. ``seq`` is its place in the whole run,
        ``label`` the iteration it belongs to (``create-user [row 3]``). With ``excerpts``
        (a report shows them), the masked request and response go to that spool on disk and
        the record keeps where."""
        ex, rendered = self.exchange, self.rendered
        excerpt = excerpts.keep(ex, rendered) if excerpts is not None else None
        if ex is not None:
            ex.discard()
        sent = ex if ex is not None and ex.status is not None else None
        log = self.log
        if log and rendered is not None and rendered.secrets:  # a script printed a secret
            from pigeon.masking import Masker

            log = [Masker(rendered.secrets).text(line) for line in log]
        return ResultRecord(
            id=f"{self.id} [{label}]" if label else self.id,
            name=self.request.name,
            folder=self.chain[-1].id if self.chain else None,
            method=rendered.method if rendered else _method(self.request),
            url=rendered.shown(rendered.url) if rendered else None,
            status=ex.status if ex is not None else None,
            reason=sent.reason if sent is not None else "",
            elapsed_ms=sent.elapsed_ms if sent is not None else None,
            size=sent.size if sent is not None else None,
            error_kind=ex.error_kind if ex is not None else None,
            error=self.error,
            script_errors=tuple(self.script_errors),
            assertion_failures=tuple(self.assertion_failures),
            log=tuple(log),
            unresolved=tuple(self.unresolved),
            warnings=tuple(self.warnings),
            strict_failure=self.strict_failure,
            scripts_skipped=tuple(self.scripts_skipped),
            duration_ms=self.duration_ms,
            seq=seq,
            frames=self.frames,
            excerpt=excerpt,
        )


def _method(request: Request) -> str:
    """What a request that did not render is listed as: its method, or a call's ``GRPC``."""
    return "GRPC" if request.kind == "grpc" else request.method


@dataclass(frozen=True, slots=True)
class ResultRecord(Outcome):
    """One finished request as the console line and the reports read it (a few hundred
    bytes): ``pigeon run`` keeps one per request, whatever the count."""

    id: str
    name: str
    folder: str | None  # the id of the innermost folder, None at the collection's top
    method: str
    url: str | None  # as rendered, secret values masked; None when it could not be rendered
    status: int | None
    reason: str
    elapsed_ms: float | None  # None when no response came
    size: int | None
    error_kind: str | None
    error: str | None
    script_errors: tuple[ReportedError, ...]  # a merged report's are rebuilt from its JSON
    assertion_failures: tuple[Reported, ...]
    log: tuple[str, ...]
    unresolved: tuple[str, ...]
    warnings: tuple[str, ...]
    strict_failure: bool
    scripts_skipped: tuple[str, ...]
    duration_ms: float
    seq: int = 0  # its place in the whole run (all shards, all iterations): reports merge by it
    frames: tuple[int, int] | None = None  # a WebSocket's messages (sent, received)
    excerpt: Excerpt | None = None  # its masked request and response, spooled (a report's)

    @property
    def status_class(self) -> str:
        return status_class(self.status)


def _scripts_run(
    ctx: RunContext, chain: list[Folder], request: Request, phase: str, result: RequestResult
) -> bool:
    """Whether a phase's scripts run; scripts that exist but may not are noted as skipped."""
    if not has_scripts(ctx.collection, chain, request, phase):
        return False
    if phase == "post_response" and not ctx.post_response:
        return False
    if ctx.trusted and ctx.allow_scripts:
        return True
    result.scripts_skipped.append(phase)
    return False


async def _scripts(
    ctx: RunContext,
    phase: str,
    chain: list[Folder],
    request: Request,
    scopes: Scopes,
    exchange: Exchange | None = None,
    ws: Callable[[tuple[Any, ...]], Any] | None = None,
) -> ScriptOutcome:
    """Run one phase's scripts in the script worker, so a slow script never blocks the event
    loop, and the time limit or cancelling the awaiting task (escape, ctrl+c) kills it."""

    async def send(ref: str, values: dict[str, Any]) -> dict[str, Any]:
        return await _send_from_script(ctx, request, ref, values)

    return await ctx.script_worker().run_scripts(
        phase,
        ctx.collection,
        chain,
        request,
        scopes,
        ctx.runtime,
        trusted=ctx.trusted,
        exchange=exchange,
        timeout=ctx.script_timeout,
        send=send,
        ws=ws,
    )


MAX_SEND_DEPTH = 3  # pigeon.send from a request sent by pigeon.send..., this deep at most
SENT_BODY_LIMIT = 10_000_000  # bytes of a pigeon.send response body handed to the script


async def _send_from_script(
    ctx: RunContext, caller: Request, ref: str, values: dict[str, Any]
) -> dict[str, Any]:
    """``pigeon.send(ref, vars=values)``: the request sent through this pipeline, its own
    scripts in a worker of their own (the caller's is waiting for the answer), the runtime
    variables shared, ``values`` above every scope for this send only. A request already on
    the way (one sending itself, directly or not) or a chain deeper than ``MAX_SEND_DEPTH``
    is refused."""
    found = ctx.collection.find(ref)
    if found is None:
        raise LookupError(f"pigeon.send: no request {ref!r} in the collection")
    chain, request = found
    on_the_way = (*ctx.sending, caller.id or caller.name)
    if request.id in on_the_way:
        path = " -> ".join((*on_the_way, request.id))
        raise RuntimeError(f"pigeon.send: {path}: a request cannot send itself")
    if ctx.send_depth >= MAX_SEND_DEPTH:
        raise RuntimeError(f"pigeon.send: more than {MAX_SEND_DEPTH} sends deep")
    from pigeon.scripts.process import ScriptWorker

    worker = ScriptWorker(ctx.collection.root, ctx.script_memory_mb)
    child = RunContext(
        ctx.collection,
        environment=ctx.environment,
        runtime=ctx.runtime,
        cli_vars={**ctx.cli_vars, **values},
        environ=ctx.environ,
        http=ctx.session(),
        grpc=ctx.grpc,
        trusted=ctx.trusted,
        trust_how=ctx.trust_how,
        allow_scripts=ctx.allow_scripts,
        strict=ctx.strict,
        script_timeout=ctx.script_timeout,
        scripts=worker,
        history=ctx.history,
        oauth2=ctx.oauth2,
        vault=ctx.vault,
        send_depth=ctx.send_depth + 1,
        sending=on_the_way,
    )
    try:
        result = await execute(child, chain, request)
    finally:
        worker.kill()
        ctx.grpc = ctx.grpc or child.grpc  # channels the send opened close with the run's
    exchange = result.exchange
    try:
        problems: list[ScriptError | AssertionFailure] = [
            *result.script_errors,
            *result.assertion_failures,
        ]
        if problems:  # what went wrong first, however deep
            raise RuntimeError(f"pigeon.send {ref}: {problems[0].summary()}")
        if result.error or exchange is None or exchange.status is None:
            raise RuntimeError(f"pigeon.send {ref}: {result.error or 'no response'}")
        body = exchange.body
        return {
            "status": exchange.status,
            "reason": exchange.reason,
            "headers": list(exchange.headers),
            "url": exchange.url,
            "http_version": exchange.http_version,
            "elapsed_ms": exchange.elapsed_ms,
            "error": exchange.error,
            "body": body[:SENT_BODY_LIMIT] if isinstance(body, bytes) else b"",
        }
    finally:
        result.record()  # the exchange's spooled body file goes


WsCall = Callable[[tuple[Any, ...]], Awaitable[Any]]  # a script's ``pigeon.ws`` call, served


@dataclass
class Connection:
    """A WebSocket request built for a connection (``connect``): its pre-request scripts run,
    rendered, its ``link`` made but not yet run, so the holder runs ``link.run()`` on the loop
    it likes (``pigeon run``: its own; the app: a thread's). ``link`` is ``None`` when the
    request could not be built (``result.error`` says why). ``finish`` once the link is done."""

    ctx: RunContext
    chain: list[Folder]
    request: Request  # as the pre-request scripts left it
    result: RequestResult
    link: WebSocketLink | None = None
    # Hears each line of script output and each script problem as they come (the app's log).
    log: Callable[[str, bool], None] | None = None
    scripted: bool = False  # the post-response scripts ran (or were judged not to run)
    _said: tuple[int, int, int] = (0, 0, 0)
    _started: float = field(default_factory=time.perf_counter)

    def message(self, text: str) -> tuple[str, list[str]]:
        """A message to send, rendered now with the request's scopes (variables set since the
        connection opened included), and the names left unresolved."""
        from pigeon.render import render_text

        done = render_text(text, _scopes(self.ctx, self.chain, self.request, reuse=False))
        unresolved = self.result.unresolved
        unresolved += [n for n in done.unresolved if n not in unresolved]
        return done.text, done.unresolved

    async def serve(self, call: tuple[Any, ...]) -> Any:
        """A script's ``pigeon.ws`` call, served by the link (on the link's loop)."""
        from pigeon.websocket_exchange import script_call

        assert self.link is not None
        return await script_call(self.link, call)

    async def run_scripts(self, ws: WsCall | None = None) -> ScriptOutcome | None:
        """The post-response scripts, once, with ``pigeon.response`` the handshake and
        ``pigeon.ws`` served by ``ws`` (by default the link, on this loop). ``None`` when
        they do not run: none, not trusted (noted as skipped), or they already ran."""
        from pigeon.websocket_exchange import exchange_of

        link, ctx, result = self.link, self.ctx, self.result
        if self.scripted or link is None:
            return None
        self.scripted = True
        if not _scripts_run(ctx, self.chain, self.request, "post_response", result):
            return None
        scopes = _scopes(ctx, self.chain, self.request, reuse=False)
        outcome = await _scripts(
            ctx,
            "post_response",
            self.chain,
            self.request,
            scopes,
            exchange_of(link),
            ws or self.serve,
        )
        result.heard(outcome)
        self.flush_log()
        return outcome

    async def finish(self) -> RequestResult:
        """The link is done: the post-response scripts if they have not run on an open
        connection, then the connection recorded as an ``Exchange`` (in ``ctx.history``,
        off the loop) and the result completed."""
        from pigeon.websocket_exchange import exchange_of

        link, result = self.link, self.result
        if link is not None:
            if link.handshake.status == 101:
                await self.run_scripts()
            result.exchange = exchange = exchange_of(link)
            result.frames = (link.sent, link.received)
            history = self.ctx.history
            if history is not None:
                await asyncio.to_thread(history.record, self.ctx.collection.root, exchange)
            if link.closed_by == "server" and link.close_code != 1000:
                result.warnings = [
                    *result.warnings,
                    f"the server closed the connection: {link.status_line()}",
                ]
            result.error = result.error or exchange.error
        result.duration_ms = (time.perf_counter() - self._started) * 1000
        self.flush_log()
        return result

    def flush_log(self) -> None:
        """Hand ``log`` what the scripts said since it last heard."""
        if self.log is None:
            return
        result, (lines, errors, failures) = self.result, self._said
        for line in result.log[lines:]:
            self.log(line, False)
        problems: list[ScriptError | AssertionFailure] = [
            *result.script_errors[errors:],
            *result.assertion_failures[failures:],
        ]
        for problem in problems:
            self.log(problem.traceback or problem.summary(), True)
        self._said = (len(result.log), len(result.script_errors), len(result.assertion_failures))


async def connect(
    ctx: RunContext,
    chain: list[Folder],
    request: Request,
    on_change: Callable[[], None] | None = None,
) -> Connection:
    """A WebSocket request's connection, built as a send is (``build``: scopes, pre-request
    scripts, the trust gate, render) with its link made; ``on_change`` hears the link."""
    result = RequestResult(request, list(chain))
    request, _ = await build(ctx, chain, request, result)
    return _connection(ctx, chain, request, result, on_change)


def _connection(
    ctx: RunContext,
    chain: list[Folder],
    request: Request,
    result: RequestResult,
    on_change: Callable[[], None] | None = None,
) -> Connection:
    from pigeon import __version__
    from pigeon.websocket import WebSocketLink

    connection = Connection(ctx, list(chain), request, result)
    rendered = result.rendered
    if rendered is None:
        return connection
    if rendered.oauth2 is not None:
        result.error = "not sent: OAuth 2.0 auth is not available for WebSocket requests"
        return connection
    connection.link = WebSocketLink(
        rendered,
        request.websocket.subprotocols,
        on_change=on_change,
        user_agent=f"pigeon/{__version__}",
    )
    return connection


async def _websocket(
    ctx: RunContext,
    chain: list[Folder],
    request: Request,
    scopes: Scopes,
    result: RequestResult,
    progress: Progress | None,
) -> None:
    """A WebSocket request in a run: connect, send its saved messages, wait for the replies,
    run its post-response scripts with ``pigeon.ws``, close (``websocket_exchange.converse``),
    all on the connection ``connect`` makes."""
    from pigeon.websocket_exchange import converse

    connection = _connection(ctx, chain, request, result)
    link = connection.link
    if link is None:
        return
    texts = [connection.message(m.body)[0] for m in request.websocket.messages]
    short = await converse(link, texts, request.websocket.replies, connection.run_scripts)
    await connection.finish()
    result.error = result.error or short


def _scopes(ctx: RunContext, chain: list[Folder], request: Request, reuse: bool = True) -> Scopes:
    """The request's scopes, shared where ``ctx.reuse_scopes`` allows.

    Requests of one folder that define no variables see exactly the same variables, so they
    share one Scopes and its render cache: a run of many such requests renders each
    variable once, not once per request.
    """
    if not (reuse and ctx.reuse_scopes):
        return build_scopes(
            ctx.collection,
            chain,
            request,
            ctx.environment,
            ctx.runtime,
            ctx.cli_vars,
            ctx.environ,
            gate=ctx.gate(),
            vault=ctx.vault,
        )
    own = request if request.variables else None
    owners: tuple[Any, ...] = (*chain, own)
    key = tuple(map(id, owners))
    hit = ctx._scopes.get(key)
    if hit is not None and all(a is b for a, b in zip(hit[0], owners, strict=True)):
        return hit[1]
    scopes = build_scopes(
        ctx.collection,
        chain,
        own,
        ctx.environment,
        ctx.runtime,
        ctx.cli_vars,
        ctx.environ,
        gate=ctx.gate(),
        vault=ctx.vault,
    )
    ctx._scopes[key] = (owners, scopes)
    return scopes


async def build(
    ctx: RunContext,
    chain: list[Folder],
    request: Request,
    result: RequestResult,
    progress: Progress | None = None,
) -> tuple[Request, Scopes]:
    """Pre-request scripts, then render into ``result.rendered`` (left ``None`` on failure)
    and its URL into ``progress.url``.

    Returns the request as the scripts left it and its scopes, for the post-response phase.
    ``pigeon render`` stops here; a send goes on.
    """
    scopes = _scopes(ctx, chain, request)
    gate = ctx.gate()
    if gate is not None:
        try:
            gate.sources(chain, request, ctx.environment)
        except RenderError as exc:
            result.error = f"not sent: {exc}"
            return request, scopes
    if _scripts_run(ctx, chain, request, "pre_request", result):
        outcome = await _scripts(ctx, "pre_request", chain, request, scopes)
        result.log += outcome.output
        result.script_errors += outcome.errors
        if outcome.errors:
            result.error = "not sent: a pre-request script failed"
            return request, scopes
        if outcome.request is not request:
            request = outcome.request  # the script edited it, its variables too
            scopes = _scopes(ctx, chain, request, reuse=False)
    try:
        rendered = render_request(ctx.collection, chain, request, scopes)
    except RenderError as exc:
        result.error = f"not sent: {exc}"
        return request, scopes
    except Exception as exc:  # a defect in rendering fails this request, not the whole run
        result.error = f"not sent: could not render the request ({type(exc).__name__}: {exc})"
        return request, scopes
    result.rendered = rendered
    result.unresolved, result.warnings = rendered.unresolved, rendered.warnings
    if progress is not None:
        progress.url = rendered.url
    return request, scopes


def _watch_stream(
    ctx: RunContext,
    chain: list[Folder],
    request: Request,
    scopes: Scopes,
    result: RequestResult,
    progress: Progress | None,
) -> tuple[Progress, EventScripts | None]:
    """A ``[stream]`` request's sink (on ``progress``, made if need be) with its limits, and
    its post-response scripts heard per event when they may run."""
    from pigeon.exchange import Progress
    from pigeon.stream import StreamSink

    progress = progress if progress is not None else Progress()
    sink = progress.sink
    if sink is None:
        sink = progress.sink = StreamSink()
    sink.max_events = request.stream.max_events
    sink.max_seconds = request.stream.max_seconds
    if not _scripts_run(ctx, chain, request, "post_response", result):
        return progress, None
    from pigeon.event_scripts import EventScripts

    async def run(live: Any) -> ScriptOutcome:
        return await _scripts(ctx, "post_response", chain, request, scopes, live)

    return progress, EventScripts(sink, run)


def _heard(result: RequestResult, outcomes: list[ScriptOutcome], missed: int) -> None:
    for outcome in outcomes:
        result.heard(outcome)
    if missed:
        result.log.append(
            f"post-response scripts did not run for {missed} events: they came faster than "
            "the scripts ran (the scripts found them in pigeon.response.events)"
        )


async def _http(
    ctx: RunContext,
    chain: list[Folder],
    request: Request,
    scopes: Scopes,
    result: RequestResult,
    progress: Progress | None,
) -> None:
    """An HTTP request: send (a ``[stream]`` watched event by event), then its
    post-response scripts."""
    rendered = result.rendered
    assert rendered is not None
    per_event: EventScripts | None = None
    try:
        if request.stream.declared:
            progress, per_event = _watch_stream(ctx, chain, request, scopes, result, progress)
        hears = per_event is not None
        session = ctx.session()

        # Nothing else needs the loop while the request is out, unless a script waits on it
        # (``pigeon.send``, whose phase has a time limit to keep) or a stream is watched.
        hold = ctx.send_depth == 0 and not request.stream.declared

        async def send(rendered: RenderedRequest) -> Exchange:
            return await session.send(rendered, progress, hold_loop=hold)

        if rendered.oauth2 is None:
            exchange = await send(rendered)
        else:
            from pigeon.oauth2 import TokenError, send_with_token

            try:
                exchange = await send_with_token(ctx.tokens(), ctx.environment, rendered, send)
            except TokenError as exc:
                result.error = f"not sent: {exc}"
                return
        ran: list[ScriptOutcome] = []
        if per_event is not None:
            events, per_event = per_event, None
            ran = await events.finish()
            _heard(result, ran, events.missed)
        result.exchange = exchange
        result.warnings = [*result.warnings, *exchange.warnings]
        if exchange.events is not None:
            kept = len(exchange.events)
            sink = progress.sink if progress is not None else None
            count = max(sink.events.total, kept) if sink is not None else kept
            said = f"stream: {count} event{'s' if count != 1 else ''} received"
            if count > kept:
                said += f" (the newest {kept} kept, {count - kept} dropped)"
            result.log.append(f"{said}, {exchange.stopped}" if exchange.stopped else said)
        if ctx.history is not None:  # before the scripts: a send is recorded whatever follows
            ctx.history.record(ctx.collection.root, exchange)
        if exchange.error:
            result.error = exchange.error
            return
        if ran:
            return  # the post-response scripts ran with each event
        if request.stream.declared:
            post = hears  # whether they may run was settled before the send
        else:
            post = _scripts_run(ctx, chain, request, "post_response", result)
        if post:
            outcome = await _scripts(ctx, "post_response", chain, request, scopes, exchange)
            result.heard(outcome)
    finally:
        if per_event is not None:  # cancelled, or a failure before the send ended
            per_event.cancel()


@dataclass
class Call:
    """A gRPC request built for a call (``call_grpc``): its pre-request scripts run, rendered,
    its ``call`` prepared (descriptors found, not yet open). ``run`` makes the whole call as
    ``pigeon run`` does; a holder that drives it itself (``call.open``, ``send``,
    ``close_sending``, ``finished``) ends with ``finish``. ``call`` is ``None`` when the
    request could not be built or prepared (``result.error`` says why)."""

    ctx: RunContext
    chain: list[Folder]
    request: Request  # as the pre-request scripts left it
    result: RequestResult
    call: GrpcCall | None = None
    log: Callable[[str, bool], None] | None = None
    scripted: bool = False  # the post-response scripts ran (or were judged not to run)
    _started: float = field(default_factory=time.perf_counter)

    def messages(self) -> list[str | None]:
        """The messages the call sends, rendered now as JSON bodies are (§5): a unary or
        server-stream call its body; a client or bidirectional stream its ``[[messages]]``
        in order, or its body when it has none."""
        from pigeon.render import render_json

        call, rendered = self.call, self.result.rendered
        body = rendered.body_text if rendered is not None else None
        if call is None or call.kind in ("unary", "server stream") or not self.request.messages:
            return [body]
        scopes = _scopes(self.ctx, self.chain, self.request, reuse=False)
        out: list[str | None] = []
        for message in self.request.messages:
            done = render_json(message.body, scopes)
            unresolved = self.result.unresolved
            unresolved += [n for n in done.unresolved if n not in unresolved]
            self.result.warnings = [*self.result.warnings, *done.warnings]
            out.append(done.text)
        return out

    async def serve(self, op: tuple[Any, ...]) -> Any:
        """A script's ``pigeon.grpc`` call, served by the live call."""
        from pigeon.rpc.exchange import script_call

        assert self.call is not None
        return await script_call(self.call, op)

    async def run_scripts(self) -> ScriptOutcome | None:
        """The post-response scripts, once, with ``pigeon.response`` the call so far and
        ``pigeon.grpc`` the live call; ``None`` when they do not run."""
        from pigeon.rpc.exchange import exchange_of

        call, ctx, result = self.call, self.ctx, self.result
        if self.scripted or call is None:
            return None
        self.scripted = True
        if not _scripts_run(ctx, self.chain, self.request, "post_response", result):
            return None
        scopes = _scopes(ctx, self.chain, self.request, reuse=False)
        outcome = await _scripts(
            ctx, "post_response", self.chain, self.request, scopes, exchange_of(call), self.serve
        )
        result.heard(outcome)
        self._flush(outcome)
        return outcome

    async def run(self) -> RequestResult:
        """The whole call: its messages sent, every reply read until the status (a
        bidirectional call's post-response scripts run while it is open), then ``finish``."""
        from pigeon.rpc.call import converse

        call = self.call
        if call is not None:
            bidi = call.kind == "bidirectional"
            scripts = self.run_scripts if bidi else None
            try:
                await converse(call, self.messages(), scripts)
            except Exception as exc:  # GrpcError: a message that is not its type
                call.error = f"not sent: {exc}" if call.sent == 0 else str(exc)
                call.cancel()
        return await self.finish()

    async def finish(self) -> RequestResult:
        """The call is done: the post-response scripts if they have not run, the call
        recorded as an ``Exchange`` (in ``ctx.history``) and the result completed; a status
        other than OK fails the request, naming it and its details."""
        from pigeon.rpc.exchange import exchange_of
        from pigeon.terminal import printable

        call, result = self.call, self.result
        if call is not None:
            if call.error is None:
                await self.run_scripts()
            result.exchange = exchange = exchange_of(call)
            result.frames = (call.sent, call.received)
            result.warnings = [*result.warnings, *call.notes]
            result.warnings += [r.note for r in call.replies if r.note][:20]
            if call.dropped:
                kept = call.received - call.dropped
                result.log.append(
                    f"grpc: {call.received} replies received (the newest {kept} kept, "
                    f"{call.dropped} dropped)"
                )
            history = self.ctx.history
            if history is not None:
                await asyncio.to_thread(history.record, self.ctx.collection.root, exchange)
            if call.error:
                result.error = result.error or call.error
            elif call.code:
                said = f"gRPC status {call.status_name} ({call.code})"
                if call.details:
                    said += f": {printable(call.details)}"
                result.error = result.error or said
        result.duration_ms = (time.perf_counter() - self._started) * 1000
        return result

    def _flush(self, outcome: ScriptOutcome) -> None:
        if self.log is None:
            return
        for line in outcome.output:
            self.log(line, False)
        problems: list[ScriptError | AssertionFailure] = [
            *outcome.errors,
            *outcome.assertion_failures,
        ]
        for problem in problems:
            self.log(problem.traceback or problem.summary(), True)


async def _prepared(
    ctx: RunContext,
    chain: list[Folder],
    request: Request,
    result: RequestResult,
    on_change: Callable[[], None] | None = None,
    whole: bool = False,
) -> Call:
    """The rendered gRPC request with its call prepared: auth's token put in, the target,
    channel and descriptors found; what stops it lands in ``result.error`` (and history).
    ``whole``: a unary call is made at once (``rpc.call.prepare``)."""
    from pigeon.rpc import GrpcError
    from pigeon.rpc.call import prepare
    from pigeon.rpc.exchange import failed

    holder = Call(ctx, list(chain), request, result)
    rendered = result.rendered
    if rendered is None:
        return holder
    rendered.method = "GRPC"
    warnings = []
    if rendered.flow_auth is not None:
        result.error = "not sent: digest and AWS SigV4 auth are not available for gRPC calls"
        return holder
    if rendered.auth_query or "?" in rendered.url:
        warnings.append("query parameters are not sent with a gRPC call")
    if request.body.type not in ("json", "none"):
        result.error = 'not sent: a gRPC request\'s message is a JSON body ([body] type = "json")'
        return holder
    result.warnings = [*result.warnings, *warnings]
    try:
        if rendered.oauth2 is not None:
            from pigeon.oauth2 import TokenError, with_token

            try:
                token = await ctx.tokens().token(
                    ctx.environment, rendered.oauth2, rendered.settings
                )
            except TokenError as exc:
                result.error = f"not sent: {exc}"
                return holder
            rendered = result.rendered = with_token(rendered, token)
        holder.call = await prepare(
            ctx.grpc_channels(),
            ctx.collection.root,
            rendered,
            request.grpc,
            gate=ctx.gate(),
            on_change=on_change,
            unary=rendered.body_text if whole else False,
        )
    except (GrpcError, RenderError) as exc:
        result.error = f"not sent: {exc}"
        exchange = result.exchange = failed(rendered, request.grpc.rpc, str(exc))
        if ctx.history is not None:
            await asyncio.to_thread(ctx.history.record, ctx.collection.root, exchange)
    return holder


async def call_grpc(
    ctx: RunContext,
    chain: list[Folder],
    request: Request,
    on_change: Callable[[], None] | None = None,
) -> Call:
    """A gRPC request's call, built as a send is (``build``: scopes, pre-request scripts,
    the trust gate, render) and prepared; ``on_change`` hears each reply and the end."""
    result = RequestResult(request, list(chain))
    request, _ = await build(ctx, chain, request, result)
    return await _prepared(ctx, chain, request, result, on_change)


async def describe_grpc(ctx: RunContext, chain: list[Folder], request: Request) -> Described:
    """What a gRPC request reaches, described (``rpc.call.describe``): built as a send is but
    with no script (``ctx.allow_scripts`` should be ``False``), through the trust gate.
    ``GrpcError`` (one line) says why not."""
    from pigeon.rpc import GrpcError
    from pigeon.rpc.call import describe

    result = RequestResult(request, list(chain))
    request, _ = await build(ctx, chain, request, result)
    if result.rendered is None:
        raise GrpcError(
            (result.error or "the request could not be built").removeprefix("not sent: ")
        )
    try:
        return await describe(
            ctx.grpc_channels(), ctx.collection.root, result.rendered, request.grpc, ctx.gate()
        )
    except RenderError as exc:  # the trust gate's refusal of a .proto outside
        raise GrpcError(str(exc)) from None


async def _grpc(
    ctx: RunContext,
    chain: list[Folder],
    request: Request,
    scopes: Scopes,
    result: RequestResult,
    progress: Progress | None,
) -> None:
    """A gRPC request in a run: prepared, then the whole call (``Call.run``); a unary one is
    made as it is prepared."""
    holder = await _prepared(ctx, chain, request, result, whole=True)
    if holder.call is not None:
        await holder.run()


Exchanger = Callable[
    [RunContext, list[Folder], Request, Scopes, RequestResult, "Progress | None"],
    Awaitable[None],
]

# How a request goes out, by its kind (``model.Request.kind``): a new protocol is a row here.
EXCHANGES: dict[str, Exchanger] = {"http": _http, "websocket": _websocket, "grpc": _grpc}


def kind_of(request: Request, rendered: RenderedRequest) -> str:
    """The request's kind, a ``ws://`` or ``wss://`` URL as rendered making a WebSocket, and
    a ``grpc://`` or ``grpcs://`` one a gRPC call."""
    url = rendered.url.lower()
    if url.startswith(("ws://", "wss://")):
        return "websocket"
    if url.startswith(("grpc://", "grpcs://")):
        return "grpc"
    return request.kind


async def execute(
    ctx: RunContext, chain: list[Folder], request: Request, progress: Progress | None = None
) -> RequestResult:
    """Scripts, render, send, scripts: never raises for what a request or script does.

    ``progress`` is the send's live state: its ``url`` is set once rendered, its ``sink``,
    if any, sees the body arrive. The send itself is the request kind's row of ``EXCHANGES``."""
    started = time.perf_counter()
    result = RequestResult(request, list(chain))
    try:
        request, scopes = await build(ctx, chain, request, result, progress)
        rendered = result.rendered
        if rendered is None:
            return result
        if ctx.strict and rendered.unresolved:
            result.strict_failure = True
            return result
        exchange = EXCHANGES[kind_of(request, rendered)]
        await exchange(ctx, chain, request, scopes, result, progress)
        return result
    finally:
        result.duration_ms = (time.perf_counter() - started) * 1000
