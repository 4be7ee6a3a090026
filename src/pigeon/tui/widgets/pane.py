"""A side pane of the main screen: titled, bordered, and lit when it holds the focus."""

from __future__ import annotations

from textual.containers import Vertical


class Pane(Vertical):
    """A titled, bordered pane that can be maximised; its border lights up when focused (the
    rules are the main screen's, ``screens/main.tcss``, beside the editor's and response's)."""

    ALLOW_MAXIMIZE = True
