"""The schema of a GraphQL endpoint fetched by introspection (DESIGN §7), as the request
itself would be sent: its URL, headers and auth (OAuth 2.0 tokens included), its settings,
behind the trust gate, but no script runs and nothing is recorded in the history.

Bounded: the answer is read up to ``cache.LIMIT`` bytes and the send stops there; reading
and building the schema happen in a thread, so a huge or deep answer never stalls the app.
"""

from __future__ import annotations

import asyncio
import copy
import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pigeon.exchange import Progress
from pigeon.gql.cache import LIMIT, SchemaError, build, endpoint_of, introspection_data, save
from pigeon.model import Body, Folder, Request
from pigeon.pipeline import RequestResult, RunContext
from pigeon.pipeline import build as build_request

if TYPE_CHECKING:
    from pathlib import Path

    from graphql import GraphQLSchema

    from pigeon.exchange import Exchange
    from pigeon.render import RenderedRequest


TOO_LARGE = f"the answer is larger than {LIMIT // (1024 * 1024)} MB; not read"


@dataclass(frozen=True)
class Fetched:
    endpoint: str
    path: Path  # the cache file
    schema: GraphQLSchema

    def summary(self) -> str:
        types = sum(not n.startswith("__") for n in self.schema.type_map)
        return f"GraphQL schema of {self.endpoint}: {types} types, cached"


def probe(request: Request) -> Request:
    """The request with introspection's query as its body, sent with POST."""
    from graphql import get_introspection_query

    out = copy.deepcopy(request)
    out.method = "POST"
    out.body = Body(
        type="graphql", query=get_introspection_query(), operation_name="IntrospectionQuery"
    )
    return out


async def fetch_schema(ctx: RunContext, chain: list[Folder], request: Request) -> Fetched:
    """Introspect the endpoint ``request`` is sent to and cache its schema in the collection;
    ``SchemaError`` (one line) when that fails. ``ctx.allow_scripts`` should be ``False``."""
    sent = probe(request)
    result = RequestResult(sent, list(chain))
    await build_request(ctx, chain, sent, result)
    if result.rendered is None:
        raise SchemaError(result.error or "the request could not be built")
    exchange = await _send_capped(ctx, result.rendered)
    if exchange.error:
        raise SchemaError(exchange.error)
    if exchange.body_size > LIMIT:  # it ended between two looks at its size
        raise SchemaError(TOO_LARGE)
    endpoint = endpoint_of(result.rendered.url)
    data, schema = await asyncio.to_thread(_read, exchange)
    path = await asyncio.to_thread(save, ctx.collection.root, endpoint, data)
    return Fetched(endpoint, path, schema)


async def _send_capped(ctx: RunContext, rendered: RenderedRequest) -> Exchange:
    """Send, and stop reading once the body passes ``LIMIT``."""
    progress = Progress()
    session = ctx.session()

    async def send(r: RenderedRequest) -> Exchange:
        return await session.send(r, progress)

    if rendered.oauth2 is None:
        sending = asyncio.ensure_future(send(rendered))
    else:
        from pigeon.oauth2 import TokenError, send_with_token

        async def with_token() -> Exchange:
            try:
                return await send_with_token(ctx.tokens(), ctx.environment, rendered, send)
            except TokenError as exc:
                raise SchemaError(str(exc)) from None

        sending = asyncio.ensure_future(with_token())
    try:
        while not sending.done():
            await asyncio.wait([sending], timeout=0.05)
            if progress.bytes_received > LIMIT:
                raise SchemaError(TOO_LARGE)
        return sending.result()
    finally:
        sending.cancel()


def _read(exchange: Exchange) -> tuple[dict[str, Any], GraphQLSchema]:
    try:
        with exchange.open_body() as fh:
            answer = json.loads(fh.read(LIMIT + 1))
    except (ValueError, RecursionError):
        raise SchemaError(f"the answer (status {exchange.status}) is not JSON") from None
    finally:
        exchange.discard()
    data = introspection_data(answer)
    return data, build(data)
