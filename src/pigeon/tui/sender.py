"""One send from the app: trust check, pre-request scripts, render, HTTP, post-response
scripts -- the same pipeline as ``pigeon run``, with script output kept for the log screen."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pigeon.model import Request

if TYPE_CHECKING:
    from pigeon.tui.session import Session


@dataclass
class SendOutcome:
    exchange: Any = None  # pigeon.send.Exchange
    error: str | None = None  # the request could not be built
    errors: list[str] = field(default_factory=list)  # script errors, one line each


def has_any_scripts(session: Session, request: Request) -> bool:
    chain = session.chain_of(request)
    holders = [session.collection, *chain, request]
    return any(h.scripts.pre_request.strip() or h.scripts.post_response.strip() for h in holders)


def collection_trusted(session: Session) -> bool:
    from pigeon.config import TrustStore

    return bool(TrustStore().is_trusted(session.root))


def trust_collection(session: Session) -> None:
    from pigeon.config import TrustStore

    TrustStore().trust(session.root)


def http_session(session: Session) -> Any:
    """The collection's shared HTTP session, created on first use."""
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
        request, scopes = _pre_request(session, chain, request, scopes, outcome, source)
    try:
        rendered = render_request(session.collection, chain, request, scopes)
    except RenderError as exc:
        outcome.error = f"Not sent: {exc}"
        return outcome
    outcome.exchange = await http_session(session).send(rendered)
    if trusted and outcome.exchange.error is None:
        _post_response(session, chain, request, scopes, outcome, source)
    return outcome


def _record(session: Session, outcome: SendOutcome, result: Any, source: str) -> None:
    for line in getattr(result, "output", []) or []:
        session.add_log(source, str(line))
    for err in getattr(result, "errors", []) or []:
        summary = err.summary() if hasattr(err, "summary") else str(err)
        detail = getattr(err, "traceback", None) or summary
        session.add_log(source, str(detail), error=True)
        outcome.errors.append(f"{source}: {summary}")


def _pre_request(
    session: Session, chain: list, request: Request, scopes: Any, outcome: SendOutcome, source: str
) -> tuple[Request, Any]:
    from pigeon.scripts import run_scripts

    result = run_scripts(
        "pre_request", session.collection, chain, request, scopes, session.runtime, trusted=True
    )
    _record(session, outcome, result, f"{source} pre_request")
    edited = getattr(result, "request", None) or request
    if edited is not request:
        scopes = session.scopes_for(edited)
    return edited, scopes


def _post_response(
    session: Session, chain: list, request: Request, scopes: Any, outcome: SendOutcome, source: str
) -> None:
    from pigeon.scripts import run_scripts

    result = run_scripts(
        "post_response",
        session.collection,
        chain,
        request,
        scopes,
        session.runtime,
        trusted=True,
        exchange=outcome.exchange,
    )
    _record(session, outcome, result, f"{source} post_response")
