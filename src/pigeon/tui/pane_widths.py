"""How wide the side panes are, so the centre column (editor over response) keeps room to work.

The centre keeps ``CENTRE_MIN`` columns whenever the screen has them: the side panes start at
their preferred widths and narrow, in proportion, down to their minimums; below that they start
hidden. The tree prefers a fifth of a wide screen (up to ``TREE_MAX``), so long names show
whole where there is room. The user's resizing changes the preferred widths, within the same
bounds. Pure arithmetic on column counts, so it is tested without the app.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

CENTRE_MIN = 60  # status lines, error messages and hints fit; at 120 columns the editor's tabs too
TREE_MIN, TREE_WIDTH, TREE_MAX = 18, 26, 36
VARS_MIN, VARS_WIDTH = 24, 26
VARS_FROM = 110  # the variables pane starts shown from this width (the tree from 78: it fits)
STEP = 4  # columns a resize key moves a pane's edge

Side = Literal["tree", "vars"]
MINIMUM: dict[Side, int] = {"tree": TREE_MIN, "vars": VARS_MIN}


def tree_width(total: int) -> int:
    """The tree's preferred width on a screen ``total`` columns wide, until the user resizes
    it: ``TREE_WIDTH``, or a fifth of a wider screen, up to ``TREE_MAX``."""
    return max(TREE_WIDTH, min(TREE_MAX, total // 5))


@dataclass
class PaneWidths:
    """The preferred widths of the tree and the variables pane (the user's, once resized;
    ``None``: the tree's follows the screen's width, ``tree_width``)."""

    tree: int | None = None
    vars: int = VARS_WIDTH

    def preferred(self, side: Side, total: int) -> int:
        """The width ``side`` wants on a screen ``total`` columns wide."""
        if side == "tree":
            return tree_width(total) if self.tree is None else self.tree
        return self.vars

    @staticmethod
    def shown_at_start(total: int) -> tuple[bool, bool]:
        """Which side panes show by default on a screen ``total`` columns wide."""
        return total >= CENTRE_MIN + TREE_MIN, total >= VARS_FROM

    @staticmethod
    def fits_both(total: int) -> bool:
        """Both side panes fit at their minimums with the centre at its own."""
        return total >= CENTRE_MIN + TREE_MIN + VARS_MIN

    def fit(self, total: int, shown: tuple[bool, bool]) -> dict[Side, int]:
        """The widths of the shown side panes: preferred ones when they leave the centre its
        minimum, else narrowed in proportion to what each can give (never below its
        minimum: a pane the user shows on a very small screen takes from the centre)."""
        sides: tuple[Side, Side] = ("tree", "vars")
        wants: dict[Side, int] = {
            side: self.preferred(side, total) for side, on in zip(sides, shown, strict=True) if on
        }
        excess = sum(wants.values()) - (total - CENTRE_MIN)
        if excess <= 0:
            return wants
        give = {side: want - MINIMUM[side] for side, want in wants.items()}
        spare = sum(give.values())
        if spare <= excess:
            return {side: MINIMUM[side] for side in wants}
        out: dict[Side, int] = {}
        left = excess
        for index, side in enumerate(wants):
            last = index == len(wants) - 1
            taken = left if last else round(excess * give[side] / spare)
            out[side] = wants[side] - taken
            left -= taken
        return out

    def resize(
        self, target: Side | Literal["centre"], by: int, total: int, shown: tuple[bool, bool]
    ) -> bool:
        """Widen (``by`` > 0) or narrow one pane by ``by`` columns, starting from the widths on
        screen; the centre widens by narrowing the side panes. ``False`` when nothing moved
        (a bound was reached)."""
        before = self.fit(total, shown)
        if not before or (target != "centre" and target not in before):
            return False
        now = dict(before)
        room = max(0, total - CENTRE_MIN - sum(before.values()))  # what the centre can spare
        if target != "centre":
            now[target] = max(MINIMUM[target], before[target] + min(by, room))
        elif by > 0:  # a wider centre: the side panes give what they can
            for side in now:
                now[side] = max(MINIMUM[side], before[side] - by // len(now))
        else:
            grow = min(-by, room)
            for index, side in enumerate(now):
                now[side] += grow // len(now) + (grow % len(now) if index == 0 else 0)
        if now == before:
            return False
        for side, width in now.items():
            setattr(self, side, width)
        return True
