"""`pigeon graphql-schema COLLECTION REQUEST`: fetch the schema of the endpoint a GraphQL
request is sent to, by introspection, and cache it in the collection's ``.pigeon/graphql/``
where the app checks and completes queries (DESIGN §6, §7). ``--sdl`` prints it.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path

from pigeon.cli.collection import load, trusted
from pigeon.cli.render import locate
from pigeon.errors import EXIT_OK, SendFailure
from pigeon.terminal import for_terminal, printable


def cli_graphql_schema(args: argparse.Namespace) -> int:
    from pigeon.gql.cache import SchemaError
    from pigeon.gql.introspect import Fetched, fetch_schema
    from pigeon.pipeline import RunContext
    from pigeon.scopes import RuntimeVars

    collection = load(Path(args.collection))
    chain, request = locate(collection, args.request)
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

    async def go() -> Fetched:
        try:
            return await fetch_schema(ctx, chain, request)
        finally:
            await ctx.aclose()

    try:
        fetched = asyncio.run(go())
    except SchemaError as exc:
        raise SendFailure(f"{request.id}: no schema: {exc}") from None
    if args.sdl:
        from graphql import print_schema

        print(for_terminal(print_schema(fetched.schema), sys.stdout))
    else:
        print(printable(f"{fetched.summary()} in {fetched.path}"))
    return EXIT_OK
