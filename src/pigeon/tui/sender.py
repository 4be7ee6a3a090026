"""One send from the app through the pipeline ``pigeon run`` uses (pre-request scripts,
render, HTTP, post-response scripts), with script output kept for the log screen."""

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


def http_session(session: Session, config: Any = None) -> Any:
    """The collection's shared HTTP session (connections, cookies), created on first use
    with the config's ``max_body_in_memory_mb`` (``None``: the defaults)."""
    if session.http is None:
        from pigeon.send import HttpSession

        cap = getattr(config, "max_body_in_memory", None)
        session.http = HttpSession(max_body_in_memory=cap) if cap else HttpSession()
    return session.http


async def send_request(
    session: Session, request: Request, trusted: bool, config: Any = None
) -> SendOutcome:
    """Send through ``pigeon.run.execute``, the pipeline ``pigeon run`` uses, with this
    session's environment, runtime variables, overrides and HTTP session."""
    from pigeon.run import RunContext, execute

    ctx = RunContext(
        collection=session.collection,
        environment=session.environment,
        runtime=session.runtime,
        cli_vars=session.overrides,
        http=http_session(session, config),
        trusted=trusted,
    )
    result = await execute(ctx, session.chain_of(request), request)
    source = request.id or request.name
    for line in result.log:
        session.add_log(source, line)
    outcome = SendOutcome(exchange=result.exchange)
    for problem in [*result.script_errors, *result.assertion_failures]:
        session.add_log(source, problem.traceback or problem.summary(), error=True)
        outcome.errors.append(problem.summary())
    if result.exchange is None and result.error:
        outcome.error = result.error[:1].upper() + result.error[1:]
    return outcome


def record_history(
    session: Session, exchange: Any, keep: int | None = None, config: Any = None
) -> str | None:
    """Write one exchange to the collection's history (secrets masked) and drop the entries
    beyond ``keep`` (default: the config's ``history_keep``) and those older than the config's
    ``history_max_age_days`` (``config=None``: the defaults). Blocking file work:
    call it in a thread. Returns why it could not be written (a read-only folder, a full
    disk), or ``None``: history must never break a send."""
    from pigeon.history import record_and_prune

    if keep is None:
        keep = getattr(config, "history_keep", None)
    try:
        record_and_prune(
            session.root,
            exchange,
            secrets=session.collection.dotenv.values(),
            keep=keep if keep is not None and keep >= 0 else None,
            max_age_days=getattr(config, "history_max_age_days", None),
        )
    except Exception as exc:
        return f"{type(exc).__name__}: {exc}"
    return None
