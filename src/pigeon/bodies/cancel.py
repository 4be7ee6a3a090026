"""How a long body operation stops early: the caller's check, and the exception it raises.

A viewer runs pretty-printing, indexing and search in a worker thread; when the user moves on,
the worker's ``is_cancelled`` turns true and the loop stops at its next check instead of
finishing work nobody will see.
"""

from __future__ import annotations

from collections.abc import Callable

# A check the caller passes in so long loops can stop early (a worker's ``is_cancelled``).
Cancelled = Callable[[], bool]


def never() -> bool:
    """The default check: never cancelled."""
    return False


class Stopped(Exception):
    """Raised from a long loop when the caller's ``cancelled`` check says so."""
