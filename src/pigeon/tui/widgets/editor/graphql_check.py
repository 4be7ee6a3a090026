"""A GraphQL query judged before it is sent: parsed always, validated against the schema
cached for the request's endpoint when there is one. The editor shows the verdict while the
query is typed; a send is refused with it, once: sending the same query to the same
endpoint again sends it anyway (a server may know better than its cached schema)."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pigeon.model import Request
    from pigeon.session import Session


@dataclass(frozen=True)
class Verdict:
    problem: str | None  # "line:column message", or None
    endpoint: str  # "" when the URL does not render
    schema: Any = None  # the GraphQLSchema used, or None (syntax only)


def endpoint(session: Session, request: Request) -> str:
    """The endpoint ``request`` goes to (the cache's key), "" when its URL does not render."""
    from pigeon.gql.cache import endpoint_of

    try:
        rendered = session.render(request)
    except Exception:  # a half-typed request: no endpoint yet
        return ""
    return endpoint_of(rendered.url)


def judge(root: Path, endpoint: str, query: str) -> Verdict:
    """Blocking (building a big schema takes a while): call it in a thread."""
    from pigeon.gql.cache import load
    from pigeon.gql.document import check

    schema = load(root, endpoint) if endpoint else None
    return Verdict(check(query, schema), endpoint, schema)


_refused: dict[Path, tuple[str, str]] = {}  # collection root -> (endpoint, query) last refused


async def refusal(session: Session, request: Request) -> str | None:
    """Why ``request``'s GraphQL query is not sent, or ``None``: it is valid, or it is the
    query just refused, sent again."""
    root = session.collection.root
    where = endpoint(session, request)
    query = request.body.query
    verdict = await asyncio.to_thread(judge, root, where, query)
    if verdict.problem is None or _refused.get(root) == (where, query):
        _refused.pop(root, None)
        return None
    _refused[root] = (where, query)
    from pigeon.terminal import printable

    return printable(f"Not sent: GraphQL query {verdict.problem} (send again to send it anyway)")
