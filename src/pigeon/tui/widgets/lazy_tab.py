"""A tab whose part is mounted the first time it is opened: start-up builds only what the first
screen shows (docs/architecture.md, "Start-up")."""

from __future__ import annotations

from textual.app import RenderResult
from textual.widgets import TabPane


class LazyTabPane(TabPane):
    """A tab blank until its part is mounted (an empty widget draws its own name,
    ``TabPane#tab-vars``)."""

    def render(self) -> RenderResult:
        return ""
