"""One request of a collection, readied for a command that is not a send: what `pigeon
graphql-schema` and `pigeon grpc-describe` do before their own part."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from pigeon.cli.collection import load, trusted
from pigeon.cli.render import locate
from pigeon.errors import UsageError

if TYPE_CHECKING:
    from pigeon.model import Folder, Request
    from pigeon.pipeline import RunContext

T = TypeVar("T")


def with_one_request(
    args: Any,
    work: Callable[[RunContext, list[Folder], Request], Awaitable[T]],
    kind: str | None = None,
) -> tuple[Request, T]:
    """Load the collection ``args`` names, find its request (of ``kind``, when given), ask
    trust as for a send with no script, and run ``work`` on a context closed after."""
    from pigeon.pipeline import RunContext
    from pigeon.scopes import RuntimeVars

    collection = load(Path(args.collection))
    chain, request = locate(collection, args.request)
    if kind == "grpc" and request.kind != "grpc":
        raise UsageError(f'{request.id}: not a gRPC request (type = "grpc" or a grpc:// URL)')
    is_trusted = trusted(
        collection,
        [(chain, request)],
        trust=args.trust,
        env=args.env,
        cli_vars=args.vars,
        no_scripts=True,
        phases=(),
    )
    ctx = RunContext(
        collection, args.env, RuntimeVars(), args.vars, trusted=is_trusted, allow_scripts=False
    )

    async def go() -> T:
        try:
            return await work(ctx, chain, request)
        finally:
            await ctx.aclose()

    return request, asyncio.run(go())
