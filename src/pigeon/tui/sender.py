"""One send from the app: pre-request scripts, render, HTTP, post-response scripts -- the
same steps as ``pigeon run`` -- with script output kept for the log screen.

Scripts run in a thread so a slow script never freezes the screen; cancelling the send
interrupts them between two lines.
"""

from __future__ import annotations

import asyncio
import threading
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pigeon.model import Folder, Request

if TYPE_CHECKING:
    from pigeon.tui.session import Session

SCRIPT_TIMEOUT = 30.0  # seconds for all scripts of one phase


@dataclass
class SendOutcome:
    exchange: Any = None  # pigeon.send.Exchange
    error: str | None = None  # the request could not be built
    errors: list[str] = field(default_factory=list)  # script errors and failed asserts


def has_any_scripts(session: Session, request: Request) -> bool:
    from pigeon.scripts import has_scripts

    return has_scripts(session.collection, session.chain_of(request), request)


def collection_trusted(session: Session) -> bool:
    from pigeon.config import TrustStore

    return TrustStore().is_trusted(session.root)


def trust_collection(session: Session) -> None:
    from pigeon.config import TrustStore

    TrustStore().trust(session.root)


def http_session(session: Session) -> Any:
    """The collection's shared HTTP session (connections, cookies), created on first use."""
    if session.http is None:
        from pigeon.send import HttpSession

        session.http = HttpSession()
    return session.http


async def send_request(session: Session, request: Request, trusted: bool) -> SendOutcome:
    from pigeon.render import RenderError, render_request

    outcome = SendOutcome()
    chain = session.chain_of(request)
    scopes = session.scopes_for(request)
    source = request.id or request.name
    if trusted:
        result = await _scripts(session, "pre_request", chain, request, scopes, None)
        _record(session, outcome, result, f"{source} pre_request")
        if result.errors:
            outcome.error = "Not sent: a pre-request script failed (f2 shows the log)"
            return outcome
        if result.request is not request:
            request = result.request  # the script edited it, variables included
            scopes = session.scopes_for_chain(chain, request)
    try:
        rendered = render_request(session.collection, chain, request, scopes)
    except RenderError as exc:
        outcome.error = f"Not sent: {exc}"
        return outcome
    outcome.exchange = await http_session(session).send(rendered)
    if trusted and outcome.exchange.error is None:
        result = await _scripts(session, "post_response", chain, request, scopes, outcome.exchange)
        _record(session, outcome, result, f"{source} post_response")
    return outcome


async def _scripts(
    session: Session, phase: str, chain: list[Folder], request: Request, scopes: Any, exchange: Any
) -> Any:
    from pigeon.scripts import run_scripts

    cancel = threading.Event()
    try:
        return await asyncio.to_thread(
            run_scripts,
            phase,
            session.collection,
            chain,
            request,
            scopes,
            session.runtime,
            trusted=True,
            exchange=exchange,
            timeout=SCRIPT_TIMEOUT,
            cancel=cancel,
        )
    except asyncio.CancelledError:
        cancel.set()  # the thread stops at the script's next line
        raise


def _record(session: Session, outcome: SendOutcome, result: Any, source: str) -> None:
    for line in result.output:
        session.add_log(source, line)
    for err in [*result.errors, *result.assertion_failures]:
        session.add_log(source, err.traceback or err.summary(), error=True)
        outcome.errors.append(err.summary())
