"""tab and shift+tab: from pane to pane in the order alt+1…4 name them (tree, editor, response,
variables), and inside a pane through the fields a user types in (an input, a text area, a
table) before leaving it. Kept apart from the screen, which only says which panes show."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from textual.widget import Widget

PANES = ("tree", "editor", "response", "variables")


def pane_holding(panes: Sequence[Widget], focused: Widget | None) -> int | None:
    """The index of the pane the focus is in (``None``: in none of them)."""
    if focused is None:
        return None
    return next((i for i, pane in enumerate(panes) if pane in focused.ancestors), None)


def field_after(
    focused: Widget | None, pane: Widget, chain: Sequence[Widget], step: int
) -> Widget | None:
    """From a field typed in, the pane's next (``step`` > 0) or previous field typed in; none
    from anything else, or past the pane's last field."""
    # Imported here: the text area (and tree-sitter with it) loads after the first frame.
    from textual.widgets import DataTable, Input, TextArea

    typed = (Input, DataTable, TextArea)
    if focused is None or not isinstance(focused, typed) or focused not in chain:
        return None
    at = chain.index(focused)
    after = chain[at + 1 :] if step > 0 else chain[:at][::-1]
    return next((w for w in after if isinstance(w, typed) and pane in w.ancestors), None)


def step_target(
    panes: Mapping[str, Widget | None], focused: Widget | None, chain: Sequence[Widget], step: int
) -> Widget | str | None:
    """Where tab (``step`` 1) or shift+tab (-1) goes: a field of the pane holding the focus,
    else the name of the next pane shown (``panes``: each pane's widget, ``None`` when it has
    nothing to focus), for the screen to focus as alt+1…4 would."""
    shown = [(n, w) for n in PANES if (w := panes.get(n)) is not None and w.display]
    here = pane_holding([w for _, w in shown], focused)
    field = None if here is None else field_after(focused, shown[here][1], chain, step)
    if field is not None or not shown:
        return field
    start = here if here is not None else (-1 if step > 0 else 0)
    return shown[(start + step) % len(shown)][0]
