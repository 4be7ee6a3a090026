"""Vim-style moves in every list Pigeon shows (the tree, the tables, the history, the variables,
a response body): ``j``/``k``, ``g``/``G`` (so ``gg`` works too), ``ctrl+d``/``ctrl+u``, and
``/`` to find a row (a body has its own search there).

They are on by default: none of these keys does anything else in those widgets, and none of
those widgets takes typed text. The ids are shared (``vim.down``...), so one line of
``[keys]`` moves a key in every list at once.
"""

from __future__ import annotations

from typing import Any

from textual.binding import Binding

# (id, key, what it does): the help screen's rows, in this order.
MOVES = (
    ("vim.down", "j", "down"),
    ("vim.up", "k", "up"),
    ("vim.top", "g", "to the top (g or gg)"),
    ("vim.bottom", "G", "to the bottom"),
    ("vim.page_down", "ctrl+d", "half a page down"),
    ("vim.page_up", "ctrl+u", "half a page up"),
    ("vim.find", "slash", "find the next row holding a text (in a body: search it)"),
)


def vim_bindings(
    down: str = "cursor_down",
    up: str = "cursor_up",
    top: str = "scroll_home",
    bottom: str = "scroll_end",
    find: str = "find_row",
) -> list[Binding]:
    """The moves bound to a widget's own actions (named as its arrow, home and end keys
    are; ``ctrl+d``/``ctrl+u`` repeat the arrows' over half the widget's height, so the
    widget mixes in ``HalfPages``); described on the help screen once, not per widget."""
    actions = (down, up, top, bottom, f"half_page('{down}')", f"half_page('{up}')", find)
    return [
        Binding(key, action, show=False, id=binding_id)
        for (binding_id, key, _), action in zip(MOVES, actions, strict=True)
        if action
    ]


class HalfPages:
    """Mixed into a widget with ``vim_bindings``: half its height of one-row moves, the
    cursor moving with them as vim's ``ctrl+d`` does."""

    def action_half_page(self, move: str) -> None:
        widget: Any = self
        step = getattr(widget, f"action_{move}")
        for _ in range(max(1, widget.scrollable_content_region.height // 2)):
            step()


class VimMoves:
    """Stands for every widget with ``vim_bindings`` on the help screen: one section."""

    BINDINGS = [
        Binding(key, "noop", what, id=binding_id, show=False) for binding_id, key, what in MOVES
    ]
