"""`pigeon mcp DIR` (DESIGN §14): one collection offered to coding agents as a Model Context
Protocol server on stdio, through the official ``mcp`` SDK (the ``mcp`` extra).

Tools: ``list_requests``, ``render_request``, ``send_request``, ``run`` and ``check``, each the
command line's core work (``pipeline.build`` and the request kind's exchange, ``run``'s
``run_collection``, ``check``) answered as JSON instead of printed. Resources: each request
file, read-only, as ``pigeon://REQUEST_PATH``.

What an agent may not do, whatever it asks:

- go past the trust gate: an untrusted collection whose request wants a script, the process
  environment or a file outside it is refused with the command line's own lines (``--trust``
  starts the server trusted);
- send anywhere the collection's files do not: its ``variables`` sit above every scope for
  that call only, taken literally, and a request whose URL, proxy or OAuth 2.0 endpoints go
  to another origin (scheme, host, port) with them than without them is refused unsent;
- read a secret: every result is masked as the history masks an exchange (the renderer's
  masked twins, then a search for each ``.env`` value and secret read, which catches a
  server's echo), and its strings searched again before they leave.

Why an entry point beside ``cli/``: it is a front end as the command line is, so it reuses the
command line's loading and finding of requests; nothing below imports it. The SDK is imported
by ``serve`` only, so the rest reads (and tests) without it, and ``pigeon --help`` never loads
it. Nothing but the protocol goes to stdout: the SDK moves the process's own stdout to stderr
while it serves, so a script's stray output or a child process cannot break the stream.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from pigeon import __version__
from pigeon.cli.collection import load
from pigeon.cli.render import locate
from pigeon.errors import PigeonError, UsageError
from pigeon.model import Collection, Folder, Request, SecretSource
from pigeon.render import RenderedRequest
from pigeon.scopes import UnknownEnvironment
from pigeon.secrets import SecretError, Vault
from pigeon.session import Session
from pigeon.terminal import printable, printable_lines
from pigeon.values import check_name, check_value

BODY_CAP = 64 * 1024  # bytes of a response body a result shows
RESOURCE_CAP = 4 * 1024 * 1024  # bytes of a request file read as a resource
SCHEME = "pigeon://"  # a request file's resource: pigeon://users/create-user
TOML_TYPE = "text/x-toml"
_PORTS = {"http": 80, "ws": 80, "https": 443, "wss": 443}


class ToolError(PigeonError):
    """A call refused or failed: its message is the tool's result, marked as an error."""


def _no_prompt(source: SecretSource) -> str:
    raise SecretError(f"secret {source.name}: a prompt needs a terminal, and pigeon mcp has none")


# -- what an agent passes ---------------------------------------------------------------------


def agent_variables(variables: object) -> dict[str, Any]:
    """The agent's ``variables``, checked as a script's ``setVar`` values are. They are taken
    literally: a string holding ``{{`` would be rendered as a template (and could read what
    the request itself does not), so it is refused."""
    if variables is None:
        return {}
    if not isinstance(variables, dict):
        raise ToolError("variables: expected an object of names and values")
    out: dict[str, Any] = {}
    for name, value in variables.items():
        try:
            check_name(name)
            out[name] = check_value(value, name)
        except ValueError as exc:
            raise ToolError(f"variables: {exc}") from None
        if _has_template(value):
            raise ToolError(
                f"variables: {name}: a value holding '{{{{' is not taken (values are literal)"
            )
    return out


def _has_template(value: Any) -> bool:
    if isinstance(value, str):
        return "{{" in value
    if isinstance(value, dict):
        return any(_has_template(k) or _has_template(v) for k, v in value.items())
    if isinstance(value, list | tuple):
        return any(_has_template(v) for v in value)
    return False


def origin(url: str) -> str:
    """``scheme://host:port`` of a URL (the port a scheme implies when none is written)."""
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError:
        return url
    scheme = parts.scheme.lower()
    port = port if port is not None else _PORTS.get(scheme)
    host = (parts.hostname or "").lower()
    return f"{scheme}://{host}" + (f":{port}" if port is not None else "")


def destinations(rendered: RenderedRequest) -> dict[str, str]:
    """Where a rendered request goes: its URL's origin, its proxy, and the origins of its
    OAuth 2.0 endpoints (a token fetch carries the client secret)."""
    out = {"URL": origin(rendered.url), "proxy": rendered.transport.proxy}
    auth = rendered.oauth2
    if auth is not None:
        for name in ("token_url", "auth_url", "device_url"):
            value = getattr(auth, name, "")
            if value:
                out[name] = origin(value)
    return out


# -- what an agent gets ----------------------------------------------------------------------


def secret_net(secrets: Iterable[str]) -> Any:
    """A function that masks every known secret in every string of a result (the last net:
    an assertion message or a log line quoting one)."""
    from pigeon.masking import Masker

    masker = Masker(secrets)

    def net(value: Any) -> Any:
        if isinstance(value, str):
            return masker.text(value)
        if isinstance(value, dict):
            return {k: net(v) for k, v in value.items()}
        if isinstance(value, list | tuple):
            return [net(v) for v in value]
        return value

    return net


def shown_body(stored: Mapping[str, Any] | None, content_type: str) -> str | None:
    """A body as a result shows it: text with its control characters escaped, JSON
    pretty-printed, cut at ``BODY_CAP`` with what was left out counted; binary described."""
    if stored is None:
        return None
    size = int(stored.get("size") or 0)
    kind = content_type.split(";", 1)[0].strip()
    if stored.get("encoding") != "utf-8":
        return f"<binary body, {size} bytes{', ' + printable(kind) if kind else ''}: not shown>"
    text = str(stored.get("data") or "")
    if stored.get("truncated"):
        more = max(0, size - len(text.encode("utf-8")))
        return printable_lines(text) + f"\n… {more} more bytes"
    if "json" in kind.lower() or text.lstrip()[:1] in ("{", "["):
        with contextlib.suppress(ValueError):
            text = json.dumps(json.loads(text), indent=2, ensure_ascii=False)
    return printable_lines(text)


def _content_type(headers: Iterable[Sequence[str]]) -> str:
    found = [str(v) for n, v in headers if str(n).lower() == "content-type"]
    return found[-1] if found else ""


def _pairs(headers: Iterable[Sequence[str]]) -> list[list[str]]:
    return [[printable(str(n)), printable(str(v))] for n, v in headers]


# -- the server's work ------------------------------------------------------------------------


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

    async def _build(self, ref: object, variables: object, phases: tuple[str, ...]) -> Any:
        """Find, trust-check and build (pre-request scripts, render) one request with the
        agent's variables, refusing one they send elsewhere. The context, chain, request as
        the scripts left it, scopes and result."""
        from pigeon.pipeline import RequestResult, build

        collection = self.collection()
        chain, request = self._locate(collection, ref)
        values = agent_variables(variables)
        trusted = self._refuse_untrusted(collection, [(chain, request)], phases, values)
        await self.session.read_secrets(request, trusted)
        ctx = self.session.run_context(trusted)
        ctx.cli_vars = values
        result = RequestResult(request, chain)
        request, scopes = await build(ctx, chain, request, result)
        if result.script_errors:
            raise ToolError(f"script error: {result.script_errors[0].summary()}")
        if result.rendered is None:
            reason = (result.error or "").removeprefix("not sent: ")
            raise ToolError(f"{request.id or request.name}: {reason}")
        if values:
            self._same_destinations(ctx, chain, request, result.rendered)
        return ctx, chain, request, scopes, result

    def _same_destinations(
        self, ctx: Any, chain: list[Folder], request: Request, rendered: RenderedRequest
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
        ctx, _, request, _, result = await self._build(ref, variables, ("pre_request",))
        await self._close_calls(ctx)
        rendered: RenderedRequest = result.rendered
        doc = rendered.shown_request().to_json()
        doc["request"] = request.id
        if rendered.flow_auth is not None:
            doc["auth"] = rendered.flow_auth.shown()
        doc["log"] = result.log
        return secret_net(self.secrets(rendered.secrets))(doc)  # type: ignore[no-any-return]

    async def send_request(self, ref: object, variables: object = None) -> dict[str, Any]:
        """Send the request and answer its response: status, headers, the body (capped,
        pretty, binary described), time, and what its scripts said; all masked."""
        from pigeon.pipeline import EXCHANGES, kind_of

        ctx, chain, request, scopes, result = await self._build(ref, variables, _ALL_PHASES)
        rendered: RenderedRequest = result.rendered
        try:
            exchange = EXCHANGES[kind_of(request, rendered)]
            await exchange(ctx, chain, request, scopes, result, None)
        finally:
            await self._close_calls(ctx)
        return self._answer(result)

    def _answer(self, result: Any) -> dict[str, Any]:
        from pigeon.history import masked_entry

        rendered: RenderedRequest = result.rendered
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
        if response is not None:
            headers = response["headers"]
            doc.update(
                status=response["status"],
                reason=printable(response["reason"]),
                http_version=response["http_version"],
                time_ms=round(exchange.elapsed_ms, 1) if exchange.elapsed_ms is not None else None,
                size=exchange.body_size,  # the body's bytes, decoded
                headers=_pairs(headers),
                body=shown_body(response["body"], _content_type(headers)),
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
        return secret_net(secrets)(doc)  # type: ignore[no-any-return]

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
        trusted = self._refuse_untrusted(collection, chosen, _ALL_PHASES)
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
        return secret_net(self.secrets())(doc)  # type: ignore[no-any-return]

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
        return secret_net(self.secrets())(doc)  # type: ignore[no-any-return]

    async def _close_calls(self, ctx: Any) -> None:
        """Close the gRPC channels a call opened on this context (the rest is the session's)."""
        if ctx.grpc is not None:
            await ctx.grpc.aclose()
            ctx.grpc = None

    # -- resources --

    def resources(self) -> list[tuple[str, str, str]]:
        """``(uri, request path, name)`` of each request file inside the collection."""
        collection = self.collection()
        return [
            (SCHEME + r.id, r.id, r.name)
            for _, r in collection.walk()
            if r.path is not None and self._inside(r.path)
        ]

    def read(self, uri: str) -> str:
        """A request file's text, as it is on disk; nothing outside the collection."""
        if not uri.startswith(SCHEME):
            raise ToolError(f"{uri}: not a request of this collection ({SCHEME}REQUEST_PATH)")
        collection = self.collection()
        chain, request = self._locate(collection, uri.removeprefix(SCHEME))
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


_ALL_PHASES = ("pre_request", "post_response")


@dataclass
class _Unsent:
    """A request that was built but never answered, as ``masked_entry`` reads an exchange."""

    request: RenderedRequest


def _relative(path: Path, root: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return str(path)


# -- the protocol -----------------------------------------------------------------------------

_REQUEST = {"type": "string", "description": "the request's path in the collection, as "
            "list_requests gives it (users/create-user)"}  # fmt: skip
_VARIABLES = {
    "type": "object",
    "description": "variables for this call only, above every scope; values are taken "
    "literally; they cannot change where the request goes",
}
TOOLS: dict[str, tuple[str, dict[str, Any]]] = {
    "list_requests": (
        "The collection's requests: path, name, method, URL as written, kind, description.",
        {"type": "object", "properties": {}},
    ),
    "render_request": (
        "A request as it would be sent (method, URL, headers, body), secrets masked; "
        "nothing is sent.",
        {
            "type": "object",
            "properties": {"request": _REQUEST, "variables": _VARIABLES},
            "required": ["request"],
        },
    ),
    "send_request": (
        "Send a request and return its response: status, headers, body (capped at 64 KB, "
        "JSON pretty), time, and what its scripts said; secrets masked.",
        {
            "type": "object",
            "properties": {"request": _REQUEST, "variables": _VARIABLES},
            "required": ["request"],
        },
    ),
    "run": (
        "Run requests and folders in collection order as `pigeon run` does (none named: "
        "all); returns the summary and each failure.",
        {
            "type": "object",
            "properties": {
                "selection": {"type": "array", "items": {"type": "string"}},
                "bail": {"type": "boolean", "description": "stop after the first failure"},
            },
        },
    ),
    "check": (
        "Check the collection without sending anything: findings with file, line, column.",
        {
            "type": "object",
            "properties": {
                "all_environments": {"type": "boolean", "description": "against every one"}
            },
        },
    ),
}


async def call(server: CollectionServer, name: str, arguments: Mapping[str, Any]) -> Any:
    """One tool call's answer (``ToolError`` for a refusal, an unknown tool included)."""
    async with server.lock:
        if name == "list_requests":
            return server.list_requests()
        if name == "render_request":
            return await server.render_request(arguments.get("request"), arguments.get("variables"))
        if name == "send_request":
            return await server.send_request(arguments.get("request"), arguments.get("variables"))
        if name == "run":
            return await server.run(arguments.get("selection"), arguments.get("bail", False))
        if name == "check":
            return server.check(arguments.get("all_environments", False))
    raise ToolError(f"no tool {name!r}: {', '.join(TOOLS)}")


def serve(root: Path, environment: str | None = None, trust: bool = False) -> int:
    """Serve the collection on stdio until the client closes it. A collection that does not
    load, or a missing SDK, is an error before anything is served."""
    server = CollectionServer(root, environment, trust)
    try:
        import anyio
        import mcp_types as types
        from mcp.server.lowlevel import Server
        from mcp.server.stdio import stdio_server
    except ImportError:
        raise UsageError("pigeon mcp needs the MCP SDK: pip install 'pigeon-http[mcp]'") from None

    async def list_tools(ctx: Any, params: Any) -> Any:
        return types.ListToolsResult(
            tools=[
                types.Tool(name=name, description=about, input_schema=schema)
                for name, (about, schema) in TOOLS.items()
            ]
        )

    async def call_tool(ctx: Any, params: Any) -> Any:
        try:
            answer = await call(server, params.name, params.arguments or {})
        except PigeonError as exc:  # a refusal's text is netted as any answer is
            text, error = printable_lines(secret_net(server.secrets())(str(exc))), True
        else:
            text, error = json.dumps(answer, indent=2, ensure_ascii=False), False
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=text)], is_error=error
        )

    async def list_resources(ctx: Any, params: Any) -> Any:
        async with server.lock:
            found = server.resources()
        return types.ListResourcesResult(
            resources=[
                types.Resource(uri=uri, name=path, title=name, mime_type=TOML_TYPE)
                for uri, path, name in found
            ]
        )

    async def read_resource(ctx: Any, params: Any) -> Any:
        from mcp.shared.exceptions import MCPError

        async with server.lock:
            try:
                text = server.read(str(params.uri))
            except PigeonError as exc:
                raise MCPError(code=types.INVALID_PARAMS, message=str(exc)) from None
        return types.ReadResourceResult(
            contents=[types.TextResourceContents(uri=params.uri, text=text, mime_type=TOML_TYPE)]
        )

    protocol = Server(
        "pigeon",
        version=__version__,
        instructions=f"The Pigeon collection {server.session.collection.name!r}: its requests "
        "(list_requests), rendered or sent (render_request, send_request), run and checked.",
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        on_list_resources=list_resources,
        on_read_resource=read_resource,
    )

    async def main() -> None:
        try:
            async with stdio_server() as (read, write):
                await protocol.run(read, write, protocol.create_initialization_options())
        finally:
            await server.aclose()

    anyio.run(main)
    return 0
