"""Text search in a body: every occurrence of a literal query, as character offsets.

Offsets go into two ``array('q')`` so a search of a large body stays compact; a viewer asks
``Matches.between`` for the matches on the lines it draws.
"""

from __future__ import annotations

import re
from array import array
from bisect import bisect_right
from dataclasses import dataclass, field

from pigeon.bodies.cancel import Cancelled, Stopped, never


@dataclass
class Matches:
    """Where a query occurs in a text: character offsets, in order."""

    query: str = ""
    starts: array[int] = field(default_factory=lambda: array("q"))
    ends: array[int] = field(default_factory=lambda: array("q"))
    capped: bool = False  # more matches exist than were recorded

    def __len__(self) -> int:
        return len(self.starts)

    def between(self, begin: int, end: int) -> range:
        """Indexes of matches starting in ``[begin, end)``."""
        return range(bisect_right(self.starts, begin - 1), bisect_right(self.starts, end - 1))


def search_pattern(query: str) -> re.Pattern[str]:
    """A literal search; case-insensitive unless the query has an upper-case letter."""
    flags = 0 if any(c.isupper() for c in query) else re.IGNORECASE
    return re.compile(re.escape(query), flags)


def find_all(text: str, query: str, limit: int = 100_000, cancelled: Cancelled = never) -> Matches:
    """Every occurrence of ``query`` in ``text`` (at most ``limit``)."""
    found = Matches(query)
    if not query:
        return found
    starts, ends = found.starts, found.ends
    for count, match in enumerate(search_pattern(query).finditer(text)):
        if count >= limit:
            found.capped = True
            break
        if count % 2048 == 0 and cancelled():
            raise Stopped
        if match.end() > match.start():
            starts.append(match.start())
            ends.append(match.end())
    return found
