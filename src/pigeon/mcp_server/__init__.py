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
  to another origin (scheme, host, port) with them than without them is refused unsent,
  and so are variables for a request whose scripts send others (``pigeon.send``);
- read a secret: every result is masked as the history masks an exchange (the renderer's
  masked twins, then a search for each ``.env`` value and secret read, which catches a
  server's echo), and its strings searched again before they leave.

``answers`` holds what an agent passes and gets, ``collection_server`` the work of each
tool, and this face the protocol. Why an entry point beside ``cli/``: it is a front end as the
command line is, so it reuses the command line's loading and finding of requests; nothing
below imports it. The SDK is imported by ``serve`` only, so the rest reads (and tests)
without it, and ``pigeon --help`` never loads it. Nothing but the protocol goes to stdout: it writes to a copy of the process's stdout,
whose own is moved to stderr while it serves, so a script's stray output or a child process
cannot break the stream.
"""

from __future__ import annotations

import json
import traceback
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pigeon import __version__
from pigeon.errors import PigeonError, UsageError
from pigeon.mcp_server.answers import ToolError, secret_net
from pigeon.mcp_server.collection_server import CollectionServer
from pigeon.terminal import printable_lines

__all__ = ["TOOLS", "CollectionServer", "ToolError", "call", "serve"]

TOML_TYPE = "text/x-toml"

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
        from mcp import types
        from mcp.server.lowlevel import Server
        from mcp.server.lowlevel.helper_types import ReadResourceContents
        from mcp.server.stdio import stdio_server
        from mcp.shared.exceptions import McpError
    except ImportError:
        raise UsageError("pigeon mcp needs the MCP SDK: pip install 'pigeon-http[mcp]'") from None

    protocol: Server[Any, Any] = Server(
        "pigeon",
        version=__version__,
        instructions=f"The Pigeon collection {server.session.collection.name!r}: its requests "
        "(list_requests), rendered or sent (render_request, send_request), run and checked.",
    )

    @protocol.list_tools()  # type: ignore[no-untyped-call, untyped-decorator]
    async def list_tools() -> list[types.Tool]:
        return [
            types.Tool(name=name, description=about, inputSchema=schema)
            for name, (about, schema) in TOOLS.items()
        ]

    @protocol.call_tool()  # type: ignore[untyped-decorator]
    async def call_tool(name: str, arguments: dict[str, Any]) -> types.CallToolResult:
        try:
            answer = await call(server, name, arguments)
        except PigeonError as exc:  # a refusal's text is netted as any answer is
            text, error = printable_lines(secret_net(server.secrets())(str(exc))), True
        except Exception as exc:  # a defect: one line for the agent, the traceback on stderr
            traceback.print_exc()
            said = f"internal error: {type(exc).__name__}: {exc}"
            text, error = printable_lines(secret_net(server.secrets())(said)), True
        else:
            text, error = json.dumps(answer, indent=2, ensure_ascii=False), False
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=text)], isError=error
        )

    @protocol.list_resources()  # type: ignore[no-untyped-call, untyped-decorator]
    async def list_resources() -> list[types.Resource]:
        async with server.lock:
            found = server.resources()
        return [
            types.Resource(uri=uri, name=path, title=name, mimeType=TOML_TYPE)  # type: ignore[arg-type]
            for uri, path, name in found
        ]

    @protocol.read_resource()  # type: ignore[no-untyped-call, untyped-decorator]
    async def read_resource(uri: Any) -> list[ReadResourceContents]:
        async with server.lock:
            try:
                text = server.read(str(uri))
            except PigeonError as exc:
                raise McpError(
                    types.ErrorData(code=types.INVALID_PARAMS, message=str(exc))
                ) from None
        return [ReadResourceContents(content=text, mime_type=TOML_TYPE)]

    async def main() -> None:
        try:
            async with stdio_server(stdout=_protocol_out(anyio)) as (read, write):
                await protocol.run(read, write, protocol.create_initialization_options())
        finally:
            await server.aclose()

    anyio.run(main)
    return 0


def _protocol_out(anyio: Any) -> Any:
    """The protocol's own stdout, the process's file descriptor 1 moved to stderr: whatever
    else writes there (a stray print, a script worker, a child it starts) cannot break the
    stream of messages."""
    import io
    import os
    import sys

    sys.stdout.flush()
    wire = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return anyio.wrap_file(io.TextIOWrapper(wire, encoding="utf-8"))
