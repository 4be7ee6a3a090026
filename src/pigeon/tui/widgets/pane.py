"""A side pane of the main screen: titled, bordered, and lit when it holds the focus."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.containers import Vertical

if TYPE_CHECKING:
    from textual.dom import DOMNode
    from textual.widget import Widget


class Pane(Vertical):
    """A titled, bordered pane that can be maximised; its border lights up when focused (the
    rules are the main screen's, ``screens/main.tcss``, beside the editor's and response's)."""

    ALLOW_MAXIMIZE = True


def _lights(node: DOMNode) -> bool:
    """Whether ``node`` is a pane whose border lights up while it holds the focus: a ``Pane``,
    the request editor or the response pane."""
    return isinstance(node, Pane) or node.id in ("editor", "response")


def light_pane(lit: DOMNode | None, focused: Widget | None) -> DOMNode | None:
    """Light the border of the pane that holds ``focused`` (``lit``: the pane lit until now),
    and return it: a class on that pane alone, set when the focus changes pane.
    (``:focus-within`` restyled every widget of the pane it left and the pane it entered on
    every move of the focus, even within one pane.)"""
    now = None
    if focused is not None:
        now = next((node for node in focused.ancestors_with_self if _lights(node)), None)
    if now is lit:
        return lit
    changed = [node for node in (lit, now) if node is not None]
    if lit is not None:
        lit.remove_class("-lit", update=False)
    if now is not None:
        now.add_class("-lit", update=False)
    if changed:
        changed[0].app.stylesheet.update_nodes(changed, animate=True)
    return now
