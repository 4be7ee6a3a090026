"""`pigeon grpc-describe DIR REQUEST` (DESIGN §6, §10): the services, methods and message
types a gRPC request reaches, by its ``.proto`` files or the server's reflection (cached in
``.pigeon/grpc/`` for `pigeon check`); no script runs. (`pigeon render` and `pigeon export
grpcurl` of a gRPC request are ``cli/render.py``'s.)
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING

from pigeon.cli.one_request import with_one_request
from pigeon.cli.stderr import warn
from pigeon.errors import EXIT_OK, SendFailure
from pigeon.terminal import for_terminal, printable

if TYPE_CHECKING:
    from pigeon.model import Folder, Request
    from pigeon.pipeline import RunContext


def cli_grpc_describe(args: argparse.Namespace) -> int:
    """`pigeon grpc-describe DIR REQUEST`: what the request reaches, described; the method's
    kind and input fields when it names one. Reflection's answers are cached in
    ``.pigeon/grpc/``, where `pigeon check` reads them."""
    from pigeon.pipeline import describe_grpc
    from pigeon.rpc import GrpcError
    from pigeon.rpc.call import Described

    async def describe(ctx: RunContext, chain: list[Folder], request: Request) -> Described:
        try:
            return await describe_grpc(ctx, chain, request)
        except GrpcError as exc:
            raise SendFailure(f"{request.id}: {exc}") from None

    request, described = with_one_request(args, describe, kind="grpc")
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
