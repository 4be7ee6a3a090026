"""A WebSocket request's exchange in ``pigeon run`` and its scripts' ``pigeon.ws`` (DESIGN
§7, §8): connect, send the saved messages, wait for the replies, run the post-response
scripts with the connection, close; the connection recorded as an ``Exchange``.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from typing import Any

from pigeon.exchange import Exchange, Frame
from pigeon.websocket import CLOSE_WAIT, WebSocketLink


def exchange_of(link: WebSocketLink) -> Exchange:
    """The connection as an ``Exchange`` for history, reports and scripts: the handshake's
    status and headers, the bytes received as its size, the failure as its error."""
    hs = link.handshake
    exchange = Exchange(
        request=link.rendered,
        method="GET",
        url=hs.url,
        sent_headers=list(hs.sent_headers),
        status=hs.status,
        reason=hs.reason,
        http_version=hs.http_version,
        headers=list(hs.headers),
        body_size=link.bytes_received,
        error=link.error,
        error_kind="connect" if link.error else None,
    )
    exchange.timings.total_ms = hs.elapsed_ms
    return exchange


async def converse(
    link: WebSocketLink,
    messages: list[str],
    replies: int | None,
    scripts: Callable[[], Awaitable[Any]] | None = None,
) -> str | None:
    """``pigeon run``'s exchange on ``link`` (made, not yet run): connect, send ``messages``
    in order, wait (at most the request's timeout) until ``replies`` messages came (default:
    one per message), run ``scripts`` while the link is open, close. Returns why the wait fell
    short, or ``None``."""
    task = asyncio.create_task(link.run())
    short = None
    try:
        if await link.opened():
            want = len(messages) if replies is None else replies
            with contextlib.suppress(ConnectionError):
                for text in messages:
                    await link.send_text(text)
            if not await link.wait_received(want):
                short = (
                    f"waited for {want} message{'s' if want != 1 else ''}, "
                    f"{link.received} came ({link.status_line()})"
                )
            if scripts is not None:
                await scripts()
            await link.close()
        await link.finished(CLOSE_WAIT)
    finally:
        if not task.done():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
    return short


def facts(frame: Frame) -> dict[str, Any]:
    """A frame as plain values, for a script."""
    return {
        "direction": frame.direction,
        "kind": frame.kind,
        "data": frame.data,
        "size": frame.size,
        "truncated": frame.truncated,
        "at": frame.at,
    }


async def script_call(link: WebSocketLink, call: tuple[Any, ...]) -> Any:
    """A script's ``pigeon.ws`` call, served by the link: ``("send", text or bytes)``,
    ``("receive", timeout)``, ``("messages",)``, ``("ping",)``, ``("close", code, reason)``.
    ``ValueError`` or ``ConnectionError`` say why not."""
    op, args = (call[0], call[1:]) if call else ("", ())
    if op == "send" and len(args) == 1 and isinstance(args[0], str | bytes):
        if isinstance(args[0], str):
            await link.send_text(args[0])
        else:
            await link.send_bytes(args[0])
        return None
    if op == "receive" and len(args) == 1:
        timeout = args[0]
        if timeout is not None and (not isinstance(timeout, int | float) or timeout < 0):
            raise ValueError("pigeon.ws.receive: timeout is a number of seconds")
        frame = await link.receive(timeout)
        return facts(frame) if frame is not None else None
    if op == "messages" and not args:
        return [facts(f) for f in link.messages]
    if op == "ping" and not args:
        return await link.ping()
    if op == "close" and len(args) == 2 and isinstance(args[0], int) and isinstance(args[1], str):
        await link.close(args[0], args[1])
        return None
    raise ValueError(f"pigeon.ws: unreadable call {op!r}")
