"""A body's text as one string plus an array of line starts, for a viewer that draws only the
lines on screen.

A 5 MB JSON body becomes one string and an ``array('q')`` instead of hundreds of thousands of
line objects; the widest line is measured once, so horizontal scrolling is sized without
touching every line again.
"""

from __future__ import annotations

import re
import sys
from array import array
from bisect import bisect_right
from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import accumulate, repeat
from operator import add

from pigeon.bodies.cancel import Cancelled, Stopped, never
from pigeon.terminal import printable_lines


@dataclass
class LineIndex:
    """A text and the offset where each of its lines starts.

    ``width`` is the widest line in terminal cells (as measured by the ``cell_len`` given to
    :func:`build_index`), so a viewer can size its horizontal scroll without touching every
    line again.
    """

    text: str
    starts: array[int] = field(default_factory=lambda: array("q", [0]))
    width: int = 0

    def __post_init__(self) -> None:
        # Where the last line ends: a final line break belongs to no line.
        self._end = len(self.text) - (1 if self.text.endswith("\n") else 0)

    def __len__(self) -> int:
        return len(self.starts) if self.text else 0

    def line(self, number: int) -> str:
        """Line ``number`` (0-based) without its line ending."""
        starts = self.starts
        begin = starts[number]
        end = starts[number + 1] - 1 if number + 1 < len(starts) else self._end
        if end > begin and self.text[end - 1] == "\r":
            end -= 1
        return self.text[begin:end]

    def line_of(self, offset: int) -> int:
        """The line holding character ``offset``."""
        return bisect_right(self.starts, offset) - 1

    def line_length(self, number: int) -> int:
        starts = self.starts
        end = starts[number + 1] - 1 if number + 1 < len(starts) else self._end
        return end - starts[number]


EMPTY_INDEX = LineIndex("")

# A line holding a character that may take two terminal cells (East Asian wide or
# fullwidth, emoji).
_WIDE_LINE = re.compile(
    "^[^\n]*?[\u1100-\u115f\u231a-\u23ff\u2600-\u27bf\u2e80-\ua4cf\uac00-\ud7a3"
    "\uf900-\ufaff\ufe10-\ufe6f\uff00-\uff60\uffe0-\uffe6\U0001f000-\U0001faff"
    "\U00020000-\U0003fffd][^\n]*",
    re.MULTILINE,
)


def _narrow_only(text: str) -> bool:
    """True when no character can be wide. Wide characters all lie above U+1100, so a string
    CPython stores at one byte per character (Latin-1 at most) has none; that storage shows
    in its size, which saves scanning megabytes of accented text."""
    if text.isascii():
        return True
    return len(text) > 256 and sys.getsizeof(text) < len(text) + 256


def build_index(
    text: str,
    cell_len: Callable[[str], int] = len,
    cancelled: Cancelled = never,
) -> LineIndex:
    """Index the lines of ``text`` (``\\n`` or ``\\r\\n`` endings) and measure the widest.

    ASCII text is measured by character count alone; otherwise only lines long enough to
    possibly be the widest are measured with ``cell_len`` (wide characters take two cells).
    A trailing newline does not make an extra empty line. Control characters (ESC, a lone
    CR...) are indexed as visible ``\\xNN`` escapes: a body from a server is shown, never
    obeyed by the terminal.
    """
    text = printable_lines(text)
    if not text:
        return LineIndex(text)
    # split() and map() run in C: about twice as fast as scanning for line breaks.
    lengths = array("q", map(len, text.split("\n")))
    if text.endswith("\n"):
        lengths.pop()
    if cancelled():
        raise Stopped
    starts = array("q", accumulate(map(add, lengths, repeat(1)), initial=0))
    starts.pop()
    width = max(lengths, default=0)
    if not _narrow_only(text):
        # Only lines holding wide characters (CJK, emoji) can be wider than they are long.
        for count, match in enumerate(_WIDE_LINE.finditer(text)):
            width = max(width, cell_len(match.group()))
            if count % 1024 == 0 and cancelled():
                raise Stopped
    return LineIndex(text, starts, width)


def extend_index(index: LineIndex, lines: str, cell_len: Callable[[str], int] = len) -> LineIndex:
    """``index`` with ``lines`` added after it, for a body still arriving: only the new
    lines are indexed and measured. ``index`` is empty or ends with a line break."""
    more = build_index(lines, cell_len)
    if not len(index):
        return more
    offset = len(index.text)
    starts = array("q", index.starts)
    starts.extend(start + offset for start in more.starts)
    return LineIndex(index.text + more.text, starts, max(index.width, more.width))
