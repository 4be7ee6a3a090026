"""How a widget reaches the app's ``Session``, typed: the one door to the open collection.

Panes that need it for their whole life are handed it; a widget deep inside one asks here
instead of reading an untyped ``self.app.session``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from textual.dom import DOMNode

    from pigeon.session import Session


def app_session(node: DOMNode) -> Session | None:
    """The session of ``node``'s app, or ``None`` in an app without one (a test's host app)."""
    from pigeon.session import Session

    session = getattr(node.app, "session", None)
    return session if isinstance(session, Session) else None


def session_of(node: DOMNode) -> Session:
    """The session of ``node``'s app (``LookupError`` in an app without one)."""
    session = app_session(node)
    if session is None:
        raise LookupError(f"{type(node.app).__name__} holds no session")
    return session
