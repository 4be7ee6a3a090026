"""`pigeon grpc-describe DIR REQUEST` (DESIGN §6, §10): the services, methods and message
types a gRPC request reaches, by its ``.proto`` files or the server's reflection (cached in
``.pigeon/grpc/`` for `pigeon check`); no script runs. (`pigeon render` and `pigeon export
grpcurl` of a gRPC request are ``cli/render.py``'s.)
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path

from pigeon.cli.collection import load, trusted
from pigeon.cli.stderr import warn
from pigeon.errors import EXIT_OK, SendFailure, UsageError
from pigeon.terminal import for_terminal, printable


def cli_grpc_describe(args: argparse.Namespace) -> int:
    """`pigeon grpc-describe DIR REQUEST`: what the request reaches, described; the method's
    kind and input fields when it names one. Reflection's answers are cached in
    ``.pigeon/grpc/``, where `pigeon check` reads them."""
    from pigeon.cli.render import locate
    from pigeon.pipeline import RunContext, describe_grpc
    from pigeon.rpc import GrpcError
    from pigeon.rpc.call import Described
    from pigeon.scopes import RuntimeVars

    collection = load(Path(args.collection))
    chain, request = locate(collection, args.request)
    if request.kind != "grpc":
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

    async def go() -> Described:
        try:
            return await describe_grpc(ctx, chain, request)
        finally:
            await ctx.aclose()

    try:
        described = asyncio.run(go())
    except GrpcError as exc:
        raise SendFailure(f"{request.id}: {exc}") from None
    if args.format == "json":
        print(json.dumps(described.__dict__, ensure_ascii=False))
        return EXIT_OK
    for line in described.lines:
        print(for_terminal(line, sys.stdout))
    if described.kind:
        fields = ", ".join(f"{name} {kind}" for name, kind in described.fields) or "no fields"
        print(printable(f"{request.grpc.rpc}: {described.kind}, {described.input_type}: {fields}"))
    for note in described.notes:
        warn(note)
    return EXIT_OK
