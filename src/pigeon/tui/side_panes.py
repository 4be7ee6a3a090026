"""The main screen's two side panes (the tree and the variables) on screen: which show, how wide
they are, and what the user chose. ``pane_widths`` does the arithmetic; this applies it to
the widgets.

The panes narrow, then start hidden, so the centre keeps its 60 columns; below 100 columns only
one side pane shows at a time, so the editor keeps room to work. A pane the user showed or hid
stays so whatever the width.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Literal

from pigeon.tui.pane_widths import STEP, PaneWidths

if TYPE_CHECKING:
    from textual.widget import Widget

Side = Literal["tree", "vars"]


class SidePanes:
    def __init__(
        self,
        tree: Widget,
        variables: Widget,
        tree_keys: Callable[[], Widget],
        variables_keys: Callable[[], Widget],
    ) -> None:
        """``tree_keys`` and ``variables_keys`` give what takes the keys in each pane."""
        self.panes: dict[Side, Widget] = {"tree": tree, "vars": variables}
        self._keys: dict[Side, Callable[[], Widget]] = {"tree": tree_keys, "vars": variables_keys}
        self.widths = PaneWidths()
        self._hidden_by_user: dict[Side, bool] = {}

    def apply(self, width: int, maximized: Widget | None) -> None:
        """Fit the panes to a screen ``width`` columns wide (a maximised pane takes it all)."""
        shown_at_start = dict(zip(("tree", "vars"), PaneWidths.shown_at_start(width), strict=True))
        for side, pane in self.panes.items():
            if side not in self._hidden_by_user:
                pane.display = shown_at_start[side]
        tree, variables = self.panes["tree"], self.panes["vars"]
        widths = self.widths.fit(width, (tree.display, variables.display))
        for side, pane in self.panes.items():
            if pane is maximized:
                pane.styles.width = "1fr"
            elif side in widths:
                pane.styles.width = widths[side]

    def resize(self, direction: int, focused: Widget | None, width: int) -> bool:
        """Widen or narrow the side pane holding the focus, or the centre (the side panes give
        way); whether anything changed."""
        ancestors = focused.ancestors_with_self if focused is not None else []
        target: Side | Literal["centre"] = next(
            (side for side, pane in self.panes.items() if pane in ancestors), "centre"
        )
        shown = (self.panes["tree"].display, self.panes["vars"].display)
        return self.widths.resize(target, direction * STEP, width, shown)

    def toggle(self, side: Side, width: int) -> bool:
        """Show or hide one side pane (hiding the other when both do not fit); whether it
        shows now. Call ``apply`` next."""
        pane = self.panes[side]
        other: Side = "vars" if side == "tree" else "tree"
        pane.display = not pane.display
        self._hidden_by_user[side] = not pane.display
        if pane.display and not PaneWidths.fits_both(width) and self.panes[other].display:
            self.panes[other].display = False
            self._hidden_by_user[other] = True
        return bool(pane.display)

    def focus(self, side: Side) -> None:
        """Focus what takes the keys in a side pane."""
        self._keys[side]().focus()
