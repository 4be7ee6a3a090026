"""`pigeon graphql-schema COLLECTION REQUEST`: fetch the schema of the endpoint a GraphQL
request is sent to, by introspection, and cache it in the collection's ``.pigeon/graphql/``
where the app checks and completes queries (DESIGN §6, §7). ``--sdl`` prints it.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from pigeon.cli.one_request import with_one_request
from pigeon.errors import EXIT_OK, SendFailure
from pigeon.terminal import for_terminal, printable

if TYPE_CHECKING:
    from pigeon.model import Folder, Request
    from pigeon.pipeline import RunContext


def cli_graphql_schema(args: argparse.Namespace) -> int:
    from pigeon.gql.cache import SchemaError
    from pigeon.gql.introspect import Fetched, fetch_schema

    async def fetch(ctx: RunContext, chain: list[Folder], request: Request) -> Fetched:
        try:
            return await fetch_schema(ctx, chain, request)
        except SchemaError as exc:
            raise SendFailure(f"{request.id}: no schema: {exc}") from None

    request, fetched = with_one_request(args, fetch)
    if args.sdl:
        from graphql import print_schema

        print(for_terminal(print_schema(fetched.schema), sys.stdout))
    else:
        print(printable(f"{fetched.summary()} in {fetched.path}"))
    return EXIT_OK
