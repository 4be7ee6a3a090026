"""The collection behind `pigeon mcp`'s tools and resources (DESIGN §14): each tool the
command line's core work (``pipeline.build`` and the request kind's exchange, ``run``,
``check``) answered as a JSON-ready object, masked, instead of printed.
"""

from __future__ import annotations

import asyncio
import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote, unquote

from pigeon.cli.collection import load
from pigeon.cli.render import locate
from pigeon.errors import PigeonError, UsageError
from pigeon.mcp_server.answers import (
    BODY_CAP,
    ToolError,
    agent_variables,
    content_type,
    destinations,
    netted,
    pairs,
    shown_body,
)
from pigeon.model import Collection, Folder, Request, SecretSource
from pigeon.render import RenderedRequest
from pigeon.scopes import UnknownEnvironment
from pigeon.scripts.sources import PHASES
from pigeon.secrets import SecretError, Vault
from pigeon.session import Session
from pigeon.terminal import printable

if TYPE_CHECKING:
    from pigeon.pipeline import RequestResult, RunContext
    from pigeon.scopes import Scopes

# What ``_build`` readies: the context, the chain, the request as the scripts left it, its
# scopes, the result so far and the request rendered.
Built = tuple["RunContext", list[Folder], Request, "Scopes", "RequestResult", RenderedRequest]

RESOURCE_CAP = 4 * 1024 * 1024  # bytes of a request file read as a resource
SCHEME = "pigeon://"  # a request file's resource: pigeon://users/create-user


def _no_prompt(source: SecretSource) -> str:
    raise SecretError(f"secret {source.name}: a prompt needs a terminal, and pigeon mcp has none")


@dataclass
class CollectionServer:
    """The collection behind the tools: read again for every call (an agent edits its files
    between calls), with one session whose runtime variables, cookies, secrets read and
    script worker last as long as the server, as the app's do."""

    root: Path
    environment: str | None = None
    trust: bool = False

    def __post_init__(self) -> None:
        collection = load(self.root, warnings=False)
        if self.environment is not None and self.environment not in collection.environments:
            raise UsageError(
                str(UnknownEnvironment(self.environment, sorted(collection.environments)))
            )
        env = self.environment if self.environment is not None else collection.default_environment
        self.session = Session(root=collection.root, collection=collection, environment=env or "")
        self.session.vault = Vault(_no_prompt)
        self.lock = asyncio.Lock()  # one call at a time: they share the session

    # -- the collection --

    def collection(self) -> Collection:
        """The collection as its files are now (``ToolError`` when it does not load)."""
        try:
            collection = load(self.root, warnings=False)
        except PigeonError as exc:
            raise ToolError(str(exc)) from None
        self.session.reload(collection)
        return collection

    def trusted(self) -> bool:
        return self.trust or self.session.is_trusted()

    def _refuse_untrusted(
        self,
        collection: Collection,
        selection: list[tuple[list[Folder], Request]],
        phases: tuple[str, ...],
        variables: Mapping[str, Any] | None = None,
    ) -> bool:
        """Whether the collection is trusted; untrusted, a selection that needs trust is
        refused as the command line refuses it."""
        if self.trusted():
            return True
        from pigeon.trust import needs, refusal

        env = self.session.environment or None
        found = needs(collection, selection, env, phases=phases, cli_vars=variables)
        if found:
            raise ToolError("\n".join(refusal(collection.root, found, no_scripts=False)))
        return False

    def _locate(self, collection: Collection, ref: object) -> tuple[list[Folder], Request]:
        if not isinstance(ref, str) or not ref:
            raise ToolError("request: expected a request's path, as listed by list_requests")
        try:
            return locate(collection, ref)
        except PigeonError as exc:
            raise ToolError(str(exc)) from None

    def secrets(self, extra: Iterable[str] = ()) -> list[str]:
        """What no result may show: the ``.env`` values, the secrets read, and ``extra``."""
        return [*self.session.collection.dotenv.values(), *self.session.vault.values(), *extra]

    # -- tools --

    def list_requests(self) -> dict[str, Any]:
        collection = self.collection()
        return {
            "collection": collection.name,
            "environment": self.session.environment or None,
            "trusted": self.trusted(),
            "requests": [
                {
                    "request": r.id,
                    "name": r.name,
                    "method": "GRPC" if r.kind == "grpc" else r.method,
                    "url": r.url,
                    "kind": r.kind,
                    "description": r.description,
                    "folder": chain[-1].id if chain else None,
                }
                for chain, r in collection.walk()
            ],
        }

    async def _build(self, ref: object, variables: object, phases: tuple[str, ...]) -> Built:
        """Find, trust-check and build (pre-request scripts, render) one request with the
        agent's variables, refusing one they send elsewhere. The context, chain, request as
        the scripts left it, scopes and result."""
        from pigeon.pipeline import RequestResult, build

        collection = self.collection()
        chain, request = self._locate(collection, ref)
        values = agent_variables(variables)
        trusted = self._refuse_untrusted(collection, [(chain, request)], phases, values)
        if values and trusted:
            _refuse_sends_from_scripts(collection, chain, request, phases)
        await self.session.read_secrets(request, trusted)
        ctx = self.session.run_context(trusted)
        ctx.cli_vars = values
        result = RequestResult(request, chain)
        request, scopes = await build(ctx, chain, request, result)
        rendered = result.rendered
        if result.script_errors:
            raise ToolError(f"script error: {result.script_errors[0].summary()}")
        if rendered is None:
            reason = (result.error or "").removeprefix("not sent: ")
            raise ToolError(f"{request.id or request.name}: {reason}")
        if values:
            self._same_destinations(ctx, chain, request, rendered)
        return ctx, chain, request, scopes, result, rendered

    def _same_destinations(
        self, ctx: RunContext, chain: list[Folder], request: Request, rendered: RenderedRequest
    ) -> None:
        """Refuse a request the agent's variables send elsewhere than its files do: the same
        request rendered without them is where it may go."""
        from pigeon.render import render_request
        from pigeon.scopes import build_scopes

        scopes = build_scopes(
            ctx.collection, chain, request, ctx.environment, ctx.runtime, {},
            gate=ctx.gate(), vault=ctx.vault.peek(),
        )  # fmt: skip
        try:
            own = destinations(render_request(ctx.collection, chain, request, scopes))
        except PigeonError as exc:
            raise ToolError(f"{request.id}: not sent: {exc}") from None
        for what, where in destinations(rendered).items():
            if own.get(what, "") != where:
                shown = rendered.shown
                raise ToolError(
                    f"{request.id}: not sent: the variables change where it goes ({what} "
                    f"{shown(where) or 'none'} instead of {own.get(what) or 'none'}); a send "
                    "goes only where the collection's files send it"
                )

    async def render_request(self, ref: object, variables: object = None) -> dict[str, Any]:
        """The request as it would go (pre-request scripts run in a trusted collection),
        secret values masked; nothing is sent."""
        ctx, _, request, _, result, rendered = await self._build(ref, variables, ("pre_request",))
        await self._close_calls(ctx)
        doc = rendered.shown_request().to_json()
        doc["request"] = request.id
        if rendered.flow_auth is not None:
            doc["auth"] = rendered.flow_auth.shown()
        doc["log"] = result.log
        return netted(doc, self.secrets(rendered.secrets))

    async def send_request(self, ref: object, variables: object = None) -> dict[str, Any]:
        """Send the request and answer its response: status, headers, the body (capped,
        pretty, binary described), time, and what its scripts said; all masked."""
        from pigeon.pipeline import EXCHANGES, kind_of

        ctx, chain, request, scopes, result, rendered = await self._build(ref, variables, PHASES)
        try:
            exchange = EXCHANGES[kind_of(request, rendered)]
            await exchange(ctx, chain, request, scopes, result, None)
        finally:
            await self._close_calls(ctx)
        return self._answer(result, rendered)

    def _answer(self, result: RequestResult, rendered: RenderedRequest) -> dict[str, Any]:
        from pigeon.history import masked_entry

        exchange = result.exchange
        secrets = self.secrets(rendered.secrets)
        source = exchange if exchange is not None else _Unsent(rendered)
        entry = masked_entry(source, secrets=secrets, cap=BODY_CAP)
        response = entry["response"]
        doc: dict[str, Any] = {
            "request": {
                "id": result.id,
                "method": entry["request"]["method"],
                "url": printable(entry["request"]["url"]),
            },
            "status": None,
            "error": result.error,
        }
        if response is not None and exchange is not None:
            headers = response["headers"]
            doc.update(
                status=response["status"],
                reason=printable(response["reason"]),
                http_version=response["http_version"],
                time_ms=round(exchange.elapsed_ms, 1) if exchange.elapsed_ms is not None else None,
                size=exchange.body_size,  # the body's bytes, decoded
                headers=pairs(headers),
                body=shown_body(response["body"], content_type(headers)),
            )
        doc.update(
            problems=[p for p in result.problems() if p != result.error],
            unresolved=list(result.unresolved),
            warnings=list(result.warnings),
            log=list(result.log),
            scripts_skipped=list(result.scripts_skipped),
        )
        if exchange is not None:
            exchange.discard()  # a body spooled to disk goes
        return netted(doc, secrets)

    async def run(self, selection: object = None, bail: object = False) -> dict[str, Any]:
        """`pigeon run` of a selection (names of requests and folders; none: all), with
        runtime variables of its own: the summary and each failure, not every body."""
        from pigeon.pipeline import RunContext
        from pigeon.run import check_broken, run_collection, select

        if selection is None:
            names: list[str] = []
        elif isinstance(selection, list) and all(isinstance(n, str) for n in selection):
            names = list(selection)
        else:
            raise ToolError("selection: expected a list of request and folder paths")
        collection = self.collection()
        env = self.session.environment or None
        try:
            check_broken(collection, env, names or None)
            chosen = select(collection, names or None)
        except PigeonError as exc:
            raise ToolError(str(exc)) from None
        trusted = self._refuse_untrusted(collection, chosen, PHASES)
        ctx = RunContext(
            collection,
            environment=env,
            trusted=trusted,
            reuse_scopes=True,
            vault=self.session.vault,
        )
        try:
            summary = await run_collection(ctx, bail=bool(bail), requests=chosen)
        finally:
            await ctx.aclose()
        doc = {
            "summary": {
                "requests": len(summary.results),
                "passed": summary.passed,
                "failed": summary.failed,
                "skipped": summary.skipped,
                "duration_ms": round(summary.duration_ms, 1),
                "bailed": summary.bailed,
            },
            "failures": [
                {
                    "request": r.id,
                    "method": r.method,
                    "url": printable(r.url) if r.url is not None else None,
                    "status": r.status,
                    "problems": [printable(p) for p in r.problems()],
                    "log": [printable(line) for line in r.log],
                }
                for r in summary.results
                if not r.passed and not r.skipped
            ],
            "skipped": [r.id for r in summary.results if r.skipped],
        }
        return netted(doc, self.secrets())

    def check(self, all_environments: object = False) -> dict[str, Any]:
        """`pigeon check`: findings with file, line and column; nothing sent."""
        from pigeon.check import ERROR, INFO, WARNING, check

        collection = self.collection()
        if all_environments:
            envs: list[str | None] = list(collection.environments) or [None]
        else:
            envs = [self.session.environment or None]
        report = check(collection, envs)
        doc = {
            "environments": report.environments,
            "findings": [
                {
                    "path": _relative(f.path, collection.root),
                    "line": f.line,
                    "column": f.column,
                    "rule": f.rule,
                    "severity": f.severity,
                    "message": printable(f.message),
                    "environments": list(f.environments),
                }
                for f in report.findings
            ],
            "counts": {s: report.count(s) for s in (ERROR, WARNING, INFO)},
            "broken": report.broken,
        }
        return netted(doc, self.secrets())

    async def _close_calls(self, ctx: RunContext) -> None:
        """Close the gRPC channels a call opened on this context (the rest is the session's)."""
        if ctx.grpc is not None:
            await ctx.grpc.aclose()
            ctx.grpc = None

    # -- resources --

    def resources(self) -> list[tuple[str, str, str]]:
        """``(uri, request path, name)`` of each request file inside the collection."""
        collection = self.collection()
        return [
            (SCHEME + quote(r.id, safe="/"), r.id, r.name)
            for _, r in collection.walk()
            if r.path is not None and self._inside(r.path)
        ]

    def read(self, uri: str) -> str:
        """A request file's text, as it is on disk; nothing outside the collection."""
        if not uri.startswith(SCHEME):
            raise ToolError(f"{uri}: not a request of this collection ({SCHEME}REQUEST_PATH)")
        collection = self.collection()
        chain, request = self._locate(collection, unquote(uri.removeprefix(SCHEME)))
        path = request.path
        if path is None or not self._inside(path):
            raise ToolError(f"{uri}: its file is outside the collection")
        from pigeon.files import read_capped

        try:
            return read_capped(path, RESOURCE_CAP).decode("utf-8", "replace")
        except OSError as exc:
            raise ToolError(f"{uri}: {exc.strerror or exc}") from None

    def _inside(self, path: Path) -> bool:
        root = os.path.realpath(self.session.collection.root)
        return os.path.realpath(path).startswith(root.rstrip(os.sep) + os.sep)

    async def aclose(self) -> None:
        await self.session.close()


_SENDS = re.compile(r"\bsend\s*\(")  # pigeon.send(...) in a script


def _refuse_sends_from_scripts(
    collection: Collection, chain: list[Folder], request: Request, phases: Iterable[str]
) -> None:
    """Refuse the agent's variables for a request whose scripts send requests of their own
    (``pigeon.send`` passes the variables on): those sends are made inside the pipeline,
    where where they go cannot be checked before they go."""
    from pigeon.scripts.sources import script_sources

    for phase in phases:
        for source in script_sources(collection, chain, request, phase):
            if _SENDS.search(source.code):
                raise ToolError(
                    f"{request.id}: not sent: {source.filename} sends requests of its own, "
                    "which would take the variables along; send it without variables"
                )


@dataclass
class _Unsent:
    """A request that was built but never answered, as ``masked_entry`` reads an exchange."""

    request: RenderedRequest


def _relative(path: Path, root: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return str(path)
