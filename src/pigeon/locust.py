"""Pigeon under Locust (DESIGN §13): ``PigeonUser``, a Locust ``User`` that sends a
collection's requests through Pigeon's pipeline, each reported to Locust named by its path.

A locustfile subclasses it (``pigeon export locust DIR`` prints one)::

    class Api(PigeonUser):
        collection = "collections/shop"
        environment = "staging"          # Pigeon's environment (``self.environment`` stays Locust's)
        setup = ["auth/login"]           # once per user, before its first iteration
        requests = ["users", "orders/create"]   # each iteration, in order; or {path: weight}
        wait_time = between(1, 2)

Each simulated user has its own ``RunContext``: its runtime variables (a token a login's
post-response script sets is the one that user's next requests send), its HTTP session
(connections, cookie jar, digest and the other handshakes), its OAuth 2.0 tokens (held in
memory, fetched once per user and renewed when they expire) and, when the collection is
trusted, its script worker. What needs trust is refused as ``pigeon run`` refuses it, before
the first request: ``trust = True`` is ``--trust``.

How it sends, and why: Locust runs each user in a gevent greenlet over monkey-patched sockets,
while the pipeline is asyncio (its scripts talk to a worker process over pipes, OAuth tokens
come from httpx's async client). asyncio keeps "the running loop" per OS thread, which the
greenlets share, so a loop per user cannot work: the second user to run its loop while the
first waits on a socket finds a loop already running (``RuntimeError``). So one event loop
serves the process, in a greenlet of its own, for the requests that need it (a script, an
OAuth 2.0 token, a stream, a WebSocket or gRPC call): a user hands it the request
(``run_coroutine_threadsafe``) and waits cooperatively, while the send runs on httpx's sync
client in the session's send greenlet (``send_thread.ThreadedSession``, whose worker thread
is a greenlet once gevent has patched ``threading``). A request with none of those never
waits on the loop: its pipeline coroutine runs to its end in the user's own greenlet, the send
held there as ``pigeon run``'s one lane holds it. Measured with ``benchmarks/bench_locust.py``
(10 users, requests per CPU second), the direct way made 1,001 a second against 731 through
the loop, and a plain ``HttpUser`` 1,434. Locust's own clients were not used: they would skip
Pigeon's send (the whole-exchange deadline, auth flows, redirect rules, timings).
"""

from __future__ import annotations

import asyncio
import dataclasses
import random
import selectors
import threading
from collections.abc import Coroutine, Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar, TypeVar
from urllib.parse import urlsplit, urlunsplit

import gevent
from locust import User, task

from pigeon.auth_kinds import KINDS, AuthKind
from pigeon.errors import UsageError
from pigeon.exchange import Exchange, Progress
from pigeon.model import Collection, Folder, Request
from pigeon.oauth2 import Tokens
from pigeon.oauth2.cache import Token, TokenCache
from pigeon.pipeline import RequestResult, RunContext, execute
from pigeon.render import RenderedRequest, effective_auth
from pigeon.rows import read_rows
from pigeon.run import check_broken, select
from pigeon.scripts.sources import PHASES, has_scripts
from pigeon.send import _Attempt  # a held send's attempt, as send_thread makes it
from pigeon.send_thread import ThreadedSession
from pigeon.store import load_collection
from pigeon.trust import TrustStore, needs

__all__ = ["PigeonUser", "RequestFailed"]

T = TypeVar("T")
Selected = list[tuple[list[Folder], Request]]


class RequestFailed(Exception):
    """A request Locust counts as failed: what went wrong, as ``pigeon run`` says it (an
    assertion, a script error, a transport error). Its repr is the message, so Locust's
    failures table shows the message and nothing else."""

    def __repr__(self) -> str:
        return str(self.args[0]) if self.args else "request failed"


class _Waking(selectors.BaseSelector):
    """The loop's selector (gevent's), which makes its loop the thread's running one again
    each time the loop wakes: asyncio keeps one running loop a thread, and a user's greenlet
    hides it while its request is tried there (``PigeonUser._direct``), maybe waiting on a
    socket meanwhile."""

    def __init__(self, selector: selectors.BaseSelector) -> None:
        self.selector = selector
        self.loop: asyncio.AbstractEventLoop | None = None

    def select(self, timeout: float | None = None) -> list[tuple[selectors.SelectorKey, int]]:
        ready = self.selector.select(timeout)
        asyncio.events._set_running_loop(self.loop)
        return ready

    def register(self, fileobj: Any, events: int, data: Any = None) -> selectors.SelectorKey:
        return self.selector.register(fileobj, events, data)

    def unregister(self, fileobj: Any) -> selectors.SelectorKey:
        return self.selector.unregister(fileobj)

    def modify(self, fileobj: Any, events: int, data: Any = None) -> selectors.SelectorKey:
        return self.selector.modify(fileobj, events, data)

    def close(self) -> None:
        self.selector.close()

    def get_key(self, fileobj: Any) -> selectors.SelectorKey:
        return self.selector.get_key(fileobj)

    def get_map(self) -> Mapping[Any, selectors.SelectorKey]:
        return self.selector.get_map()


class _Loop:
    """The process's one asyncio loop, run forever in a greenlet of its own (see the module's
    docstring); ``run`` waits for a coroutine there without blocking other greenlets."""

    _one: ClassVar[_Loop | None] = None

    def __init__(self) -> None:
        selector = _Waking(selectors.DefaultSelector())
        self.loop = selector.loop = asyncio.SelectorEventLoop(selector)
        self.greenlet = gevent.spawn(self.loop.run_forever)

    @classmethod
    def get(cls) -> _Loop:
        if cls._one is None:
            cls._one = _Loop()
        return cls._one

    def run(self, coro: Coroutine[Any, Any, T]) -> T:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result()


class _MemoryCache(TokenCache):
    """One user's OAuth 2.0 tokens, in memory only: each simulated user fetches its own, and
    none is read from or written to the collection's token file."""

    def _load(self) -> dict[str, Token]:
        if self._tokens is None:
            self._tokens = {}
        return self._tokens

    def _save(self) -> None:
        pass


class _Session(ThreadedSession):
    """A user's HTTP session: with a host given (``--host``, or the class's ``host``), each
    URL's scheme and authority are that host's, its path under the host's path. ``direct``:
    the send runs where it is called, in the user's greenlet, its deadline kept by a
    watchdog (``ThreadedSession``'s held send), never waiting on the loop."""

    def __init__(self, host: str | None) -> None:
        super().__init__()
        self.host = host.rstrip("/") if host else None
        self.direct = False

    async def send(
        self,
        rendered: RenderedRequest,
        progress: Progress | None = None,
        *,
        hold_loop: bool = False,
    ) -> Exchange:
        if self.host:
            rendered = dataclasses.replace(rendered, url=rebase(rendered.url, self.host))
        if self.direct:
            attempt = _Attempt(rendered, self.max_body_in_memory, progress)
            self._send_held(attempt)
            return attempt.exchange()
        return await super().send(rendered, progress)  # never holding the shared loop


def rebase(url: str, host: str) -> str:
    """``url`` sent to ``host`` instead: its scheme and authority replaced, its path put under
    the host's path (``http://a/v1/users`` to ``https://b:8443/api`` is
    ``https://b:8443/api/v1/users``); a URL that is not HTTP is left as it is."""
    parts, base = urlsplit(url), urlsplit(host)
    if parts.scheme.lower() not in ("http", "https") or not base.netloc:
        return url
    path = base.path.rstrip("/") + parts.path
    return urlunsplit((base.scheme or parts.scheme, base.netloc, path, parts.query, parts.fragment))


@dataclasses.dataclass
class _Plan:
    """What every user of one class shares in a process: the collection, loaded once, its
    selection, whether it is trusted, and the data rows."""

    collection: Collection
    setup: Selected
    ordered: Selected  # sent in order each iteration (``requests`` a list)
    weighted: list[tuple[Selected, float]]  # one picked by weight each iteration (a dict)
    trusted: bool
    rows: list[dict[str, Any]]
    next_row: int = 0
    lock: threading.Lock = dataclasses.field(default_factory=threading.Lock)
    direct: dict[int, bool] = dataclasses.field(default_factory=dict)  # by id(request)

    def is_direct(self, chain: list[Folder], request: Request, scripts: bool) -> bool:
        """Whether the request's pipeline never waits on the loop: an HTTP request, no
        stream, no script that runs, no OAuth 2.0 token to fetch, a URL that is not a
        WebSocket's or gRPC's. Judged once per request."""
        known = self.direct.get(id(request))
        if known is None:
            auth = effective_auth(self.collection, chain, request)
            kind = KINDS.get(auth.type) if auth is not None else None
            known = self.direct[id(request)] = (
                request.kind == "http"
                and not request.stream.declared
                and not request.url.lower().startswith(("ws", "grpc"))
                and not (self.trusted and scripts and has_scripts(self.collection, chain, request))
                and (kind is None or type(kind).token_auth is AuthKind.token_auth)
            )
        return known

    def row(self) -> dict[str, Any]:
        """The next data row, round the file again after its last (none: no variables)."""
        if not self.rows:
            return {}
        with self.lock:
            row = self.rows[self.next_row % len(self.rows)]
            self.next_row += 1
        return row


def _plan(cls: type[PigeonUser]) -> _Plan:
    """The class's plan, made by its first user in this process. Bad usage (no collection,
    an unknown request, a broken file, an untrusted collection whose selection needs trust)
    raises ``UsageError`` naming it, and no user of the class sends anything."""
    made = cls.__dict__.get("_pigeon_plan")
    if isinstance(made, _Plan):
        return made
    if not cls.collection:
        raise UsageError(f"{cls.__name__}.collection: the collection's directory is not set")
    if cls.data_per not in ("user", "iteration"):
        raise UsageError(f"{cls.__name__}.data_per: expected 'user' or 'iteration'")
    collection = load_collection(Path(cls.collection))
    env: str | None = cls.environment
    if isinstance(cls.requests, str):
        raise UsageError(f"{cls.__name__}.requests: a list of requests and folders, not a string")
    if isinstance(cls.requests, Mapping):
        names = list(cls.requests)
        weights = [float(w) for w in cls.requests.values()]
    else:
        names, weights = list(cls.requests), []
    setup = list(cls.setup)
    check_broken(collection, env, [*setup, *names] or None)
    ordered: Selected = [] if weights else select(collection, names or None)
    weighted = [(select(collection, [n]), w) for n, w in zip(names, weights, strict=False)]
    if weighted and not any(w > 0 for _, w in weighted):
        raise UsageError(f"{cls.__name__}.requests: no request has a weight above 0")
    first = select(collection, setup) if setup else []
    rows = read_rows(Path(cls.data)) if cls.data else []
    everything = [*first, *ordered, *(item for chosen, _ in weighted for item in chosen)]
    trusted = cls.trust or TrustStore().is_trusted(collection.root)
    if not trusted:
        phases = PHASES if cls.scripts else ()
        given = dict(cls.variables)
        found = {str(n) for n in needs(collection, everything, env, phases=phases, cli_vars=given)}
        for row in rows:
            vars_ = {**row, **given}
            found |= {str(n) for n in needs(collection, everything, env, phases=(), cli_vars=vars_)}
        if found:
            listed = "; ".join(sorted(found))
            raise UsageError(
                f"{collection.root} is not trusted and these need it: {listed} "
                f"(set trust = True on {cls.__name__}, or trust it in the app)"
            )
    plan = _Plan(collection, first, ordered, weighted, trusted, rows)
    cls._pigeon_plan = plan
    return plan


class PigeonUser(User):
    """A Locust user that sends a Pigeon collection's requests (see the module's docstring).

    ``requests`` is a list of requests and folders (as ``pigeon run`` takes them; empty: the
    whole collection) sent in order each iteration, or a ``{path: weight}`` dict of which
    each iteration sends one, picked by weight. ``setup`` is sent once per user, first.
    ``data`` is a CSV or JSON file as ``pigeon run --data`` takes; ``data_per`` says whether
    a user keeps one row (``"user"``) or takes the next row each iteration (``"iteration"``).
    ``variables`` are ``--var``s; ``scripts = False`` is ``--no-scripts``. ``host`` (Locust's
    ``--host``) sends every request there.
    """

    abstract = True
    collection: ClassVar[str] = ""
    requests: ClassVar[Sequence[str] | Mapping[str, float]] = ()
    setup: ClassVar[Sequence[str]] = ()
    environment: Any = None  # Pigeon's environment on the class; Locust's on the instance
    data: ClassVar[str | None] = None
    data_per: ClassVar[str] = "user"
    trust: ClassVar[bool] = False
    scripts: ClassVar[bool] = True  # False: no script runs, as with --no-scripts
    variables: ClassVar[Mapping[str, Any]] = {}
    host: str | None = None
    script_timeout: ClassVar[float | None] = 30.0
    _pigeon_plan: ClassVar[_Plan | None] = None

    ctx: RunContext
    plan: _Plan

    def on_start(self) -> None:
        """The user's own context, then ``setup``'s requests. A class that cannot run (see
        ``_plan``) fails here, and Locust logs it as a user error."""
        cls = type(self)
        self.plan = plan = _plan(cls)
        tokens = Tokens(plan.collection.root)
        tokens.cache = _MemoryCache(plan.collection.root)
        self.ctx = RunContext(
            plan.collection,
            environment=cls.environment,
            cli_vars=self._vars(plan.row() if cls.data_per == "user" else {}),
            trusted=plan.trusted,
            allow_scripts=cls.scripts,
            reuse_scopes=True,
            http=_Session(self.host),
            oauth2=tokens,
            script_timeout=cls.script_timeout,
        )
        self._loop = _Loop.get()
        for chain, request in plan.setup:
            self.send(chain, request)

    def _vars(self, row: Mapping[str, Any]) -> dict[str, Any]:
        return {**row, **type(self).variables}  # as in pigeon run: an explicit --var wins

    def on_stop(self) -> None:
        if getattr(self, "ctx", None) is not None:
            self._loop.run(self.ctx.aclose())

    @task
    def iteration(self) -> None:
        """One iteration: the next data row if rows are per iteration, then the selection in
        order (or one request picked by weight)."""
        plan = self.plan
        if type(self).data_per == "iteration" and plan.rows:
            self.ctx.cli_vars = self._vars(plan.row())
            self.ctx._scopes.clear()  # they hold the last row's variables
        if plan.weighted:
            chosen = random.choices([c for c, _ in plan.weighted], [w for _, w in plan.weighted])[0]
        else:
            chosen = plan.ordered
        for chain, request in chosen:
            self.send(chain, request)

    def send(self, chain: list[Folder], request: Request) -> RequestResult:
        """Send one request through the pipeline and report it to Locust: in this greenlet
        when nothing on its way waits on the loop (``_Plan.is_direct``), else on the loop."""
        result = None
        if self.plan.is_direct(chain, request, type(self).scripts):
            result = self._direct(chain, request)
        if result is None:
            result = self._loop.run(execute(self.ctx, chain, request))
        report(self.environment, result)
        return result

    def _direct(self, chain: list[Folder], request: Request) -> RequestResult | None:
        """The pipeline's coroutine run to its end here, where it never waits; ``None`` (and
        the request never judged direct again) if it wanted the loop after all (a URL that
        rendered to a WebSocket's asks for it as it connects, before anything is sent)."""
        session = self.ctx.http
        assert isinstance(session, _Session)
        coro = execute(self.ctx, chain, request)
        # The process's loop, run in its own greenlet, is the thread's running loop for every
        # greenlet: hidden here, so a request that wants it finds none rather than starting
        # on it from the wrong greenlet (the loop's selector makes it running again as it
        # wakes, should this greenlet wait on a socket).
        running = asyncio.events._get_running_loop()
        asyncio.events._set_running_loop(None)
        session.direct = True
        try:
            coro.send(None)
        except StopIteration as done:
            result: RequestResult = done.value
            return result
        except RuntimeError as exc:  # asyncio's "no running event loop", as it connects
            if "event loop" not in str(exc):
                raise
        else:
            coro.close()  # (when it waited instead)
        finally:
            session.direct = False
            asyncio.events._set_running_loop(running)
        self.plan.direct[id(request)] = False
        return None


def report(environment: Any, result: RequestResult) -> None:
    """Fire Locust's ``request`` event for a result: named by the request's path, its method,
    time and size; what went wrong (the request not built or sent, a script error, a failed
    assertion, unresolved placeholders under strict) as the failure."""
    exchange, rendered = result.exchange, result.rendered
    sent = exchange is not None and exchange.status is not None
    method = rendered.method if rendered is not None else result.request.method
    elapsed = exchange.elapsed_ms if sent and exchange is not None else None
    problems = result.problems()
    environment.events.request.fire(
        request_type=method,
        name=result.id,
        response_time=elapsed if elapsed is not None else result.duration_ms,
        response_length=exchange.size if sent and exchange is not None else 0,
        exception=RequestFailed("; ".join(problems)) if problems else None,
        context={"status": exchange.status if exchange is not None else None},
        response=None,
        url=rendered.shown(rendered.url) if rendered is not None else None,
    )
    if exchange is not None:
        exchange.discard()  # a spooled body's file goes
