"""A gRPC call as the rest of Pigeon reads it (DESIGN §10): an ``Exchange`` for history,
reports, diffs and scripts, and a script's ``pigeon.grpc`` served by the live call.
"""

from __future__ import annotations

import json
import time
from typing import Any

from pigeon.exchange import Exchange, GrpcFacts, Timings
from pigeon.render import RenderedRequest
from pigeon.rpc.call import GrpcCall, Reply


def exchange_of(call: GrpcCall) -> Exchange:
    """The call as an ``Exchange``: its status code and name, the initial metadata as
    headers, the kept replies as a JSON array body, the trailers and the rest in ``grpc``."""
    values = call.values()
    body = json.dumps(values, ensure_ascii=False).encode("utf-8") if values else b""
    exchange = Exchange(
        request=call.rendered,
        method="GRPC",
        url=f"{call.target.url}{call.path}",
        sent_headers=[(k, v if isinstance(v, str) else "") for k, v in call.metadata],
        status=call.code,
        reason=call.status_name,
        http_version="HTTP/2",
        headers=list(call.initial_metadata),
        body=body,
        body_size=call.bytes_received,
        wire_body_size=call.bytes_received,
        charset="utf-8",
        error=call.error,
        error_kind="connect" if call.error else None,
        grpc=GrpcFacts(
            rpc=call.rpc,
            kind=call.kind,
            details=call.details,
            trailers=list(call.trailers),
            messages=values,
            received=call.received,
            dropped=call.dropped,
            sent=call.sent,
            notes=[r.note for r in call.replies if r.note][-20:],
        ),
    )
    exchange.headers_size = sum(len(k) + len(v) for k, v in call.initial_metadata)
    exchange.timings = Timings(
        total_ms=call.elapsed_ms or (time.perf_counter() - call.started) * 1000
    )
    return exchange


def failed(rendered: RenderedRequest, rpc: str, message: str) -> Exchange:
    """A call that could not be made (no such method, a ``.proto`` that does not compile)."""
    exchange = Exchange.failed(rendered, "invalid", message)
    exchange.method = "GRPC"
    exchange.grpc = GrpcFacts(rpc=rpc, kind="")
    return exchange


def facts(reply: Reply) -> dict[str, Any]:
    """A reply as plain values, for a script."""
    return {"value": reply.value, "size": reply.size, "at": reply.at, "note": reply.note}


async def script_call(call: GrpcCall, op: tuple[Any, ...]) -> Any:
    """A script's ``pigeon.grpc`` call, served by the live call: ``("grpc.send", text)``,
    ``("grpc.receive", timeout)``, ``("grpc.close",)``, ``("grpc.messages",)``.
    ``ValueError`` or ``ConnectionError`` say why not."""
    from pigeon.rpc import GrpcError

    name, args = (op[0], op[1:]) if op else ("", ())
    if name == "grpc.send" and len(args) == 1 and isinstance(args[0], str):
        try:
            await call.send(args[0])
        except GrpcError as exc:
            raise ValueError(f"pigeon.grpc.send: {exc}") from None
        return None
    if name == "grpc.receive" and len(args) == 1:
        timeout = args[0]
        if timeout is not None and (not isinstance(timeout, int | float) or timeout < 0):
            raise ValueError("pigeon.grpc.receive: timeout is a number of seconds")
        reply = await call.receive(timeout)
        return facts(reply) if reply is not None else None
    if name == "grpc.close" and not args:
        await call.close_sending()
        return None
    if name == "grpc.messages" and not args:
        return call.values()
    raise ValueError(f"pigeon.grpc: unreadable call {name!r}")
