"""Which nodes of an outline are folded, and the rows a viewer draws for them (DESIGN §9).

A folded node shows its first line alone (with a summary); the rest of its lines are hidden.
Only the outermost folded nodes hide anything, so they are kept as a sorted list of hidden
ranges with a running count of hidden lines: mapping a screen row to a document line (and
back) is one bisection, and a fold or an unfold edits the list where it changes. A fold to a
level flags every node in one ``bytes.translate`` and rebuilds the list with ``find``.
"""

from __future__ import annotations

from array import array
from bisect import bisect_left, bisect_right
from collections.abc import Iterator
from itertools import accumulate, compress, count

from pigeon.bodies.outline import Outline


class Folds:
    """The fold state over ``outline``: everything unfolded at first."""

    def __init__(self, outline: Outline) -> None:
        self.outline = outline
        self._flags = bytearray(len(outline))  # 1 where a node is folded
        self._starts = array("q")  # first line of each outermost folded node
        self._ends = array("q")  # its last hidden line
        self._row_starts = array("q")  # the row its first line is drawn on
        self._before = array("q", [0])  # lines hidden before each range (and in all, last)

    # -- rows ---------------------------------------------------------------------------------

    @property
    def rows(self) -> int:
        """How many rows the document takes with these folds."""
        return len(self.outline.doc) - self._before[-1]

    @property
    def hidden(self) -> int:
        return self._before[-1]

    def line_at(self, row: int) -> int:
        """The document line drawn on ``row``."""
        k = bisect_right(self._row_starts, row) - 1
        if k < 0:
            return row
        if row == self._row_starts[k]:
            return self._starts[k]
        return row + self._before[k + 1]

    def row_of(self, line: int) -> int:
        """The row ``line`` is drawn on (a hidden line: its folded node's row)."""
        k = bisect_right(self._starts, line) - 1
        if k < 0:
            return line
        if line <= self._ends[k]:
            return self._row_starts[k]
        return line - self._before[k + 1]

    def is_hidden(self, line: int) -> bool:
        k = bisect_right(self._starts, line) - 1
        return k >= 0 and self._starts[k] < line <= self._ends[k]

    def folded_at(self, line: int) -> int:
        """The folded node whose first line is ``line`` and shown, or -1."""
        k = bisect_left(self._starts, line)
        if k < len(self._starts) and self._starts[k] == line:
            return self.outline.node_at(line)
        return -1

    def visible_lines(self) -> Iterator[int]:
        return (self.line_at(row) for row in range(self.rows))

    # -- folding ------------------------------------------------------------------------------

    def is_folded(self, node: int) -> bool:
        return bool(self._flags[node])

    def fold(self, node: int) -> None:
        if self._flags[node]:
            return
        self._flags[node] = 1
        start, end = self.outline.opens[node], self.outline.closes[node]
        if end <= start or self.is_hidden(start):
            return
        # It hides every folded range inside it.
        low, high = bisect_right(self._starts, start), bisect_right(self._starts, end)
        self._splice(low, high, array("q", [start]), array("q", [end]))

    def unfold(self, node: int) -> None:
        if not self._flags[node]:
            return
        self._flags[node] = 0
        start = self.outline.opens[node]
        k = bisect_left(self._starts, start)
        if k == len(self._starts) or self._starts[k] != start:
            return  # inside another folded node: nothing shows or hides yet
        starts, ends = self._outermost(node + 1, bisect_right(self.outline.opens, self._ends[k]))
        self._splice(k, k + 1, starts, ends)

    def toggle(self, node: int) -> None:
        (self.unfold if self._flags[node] else self.fold)(node)

    def fold_level(self, level: int) -> None:
        """Nodes ``level`` or more levels down folded, those above open (0 folds the root)."""
        depths = self.outline.depths
        self._flags = bytearray(depths.translate(bytes(d >= level for d in range(256))))
        # The outermost folded nodes are those exactly ``level`` down: no loop needed.
        level_nodes = compress(count(), depths.translate(bytes(d == level for d in range(256))))
        nodes = array("q", level_nodes)
        self._starts = array("q", map(self.outline.opens.__getitem__, nodes))
        self._ends = array("q", map(self.outline.closes.__getitem__, nodes))
        self._recount()

    def fold_all(self) -> None:
        self.fold_level(0)

    def unfold_all(self) -> None:
        self._flags = bytearray(len(self.outline))
        self._rebuild()

    def reveal(self, line: int) -> None:
        """Unfold every node hiding ``line``."""
        outline = self.outline
        node = outline.enclosing(line)
        while node >= 0 and self.is_hidden(line):
            self.unfold(node)
            node = outline.parents[node]

    # -- the ranges ---------------------------------------------------------------------------

    def _outermost(self, first: int, stop: int) -> tuple[array[int], array[int]]:
        """The outermost folded nodes among nodes ``first`` to ``stop`` (exclusive): each
        found skips the nodes inside it, so the loop runs once per range."""
        outline, flags = self.outline, self._flags
        opens, closes, after = outline.opens, outline.closes, outline.after
        starts, ends = array("q"), array("q")
        node = flags.find(1, first, stop)
        while node >= 0:
            starts.append(opens[node])
            ends.append(closes[node])
            node = flags.find(1, after[node], stop)
        return starts, ends

    def _rebuild(self) -> None:
        self._starts, self._ends = self._outermost(0, len(self.outline))
        self._recount()

    def _splice(self, low: int, high: int, starts: array[int], ends: array[int]) -> None:
        self._starts[low:high] = starts
        self._ends[low:high] = ends
        self._recount()

    def _recount(self) -> None:
        hidden = map(int.__sub__, self._ends, self._starts)
        self._before = array("q", accumulate(hidden, initial=0))
        self._row_starts = array("q", map(int.__sub__, self._starts, self._before))
