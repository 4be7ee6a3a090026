"""A tree's base style, worked out once a frame.

Textual's ``Tree`` asks for ``rich_style`` for each line it draws: a walk up every ancestor's
styles, blending their backgrounds, which gives the same style for every line of a frame. The
collection and the variables draw a screenful of lines at a time; the walk was most of
drawing a line that had not changed."""

from __future__ import annotations

from typing import Any

from rich.style import Style
from textual.geometry import Region
from textual.strip import Strip


class StyleOncePerFrame:
    """Mixed into a ``Tree`` (before it): ``rich_style`` once in ``render_lines``, handed to
    each line it draws. A line drawn on its own (``render_line`` outside a frame) works it
    out as the tree does."""

    _frame_style: Style | None = None

    def render_lines(self, crop: Region) -> list[Strip]:
        tree: Any = self
        self._frame_style = tree.rich_style
        try:
            return super().render_lines(crop)  # type: ignore[misc]
        finally:
            self._frame_style = None

    def render_line(self, y: int) -> Strip:
        style = self._frame_style
        if style is None:
            return super().render_line(y)  # type: ignore[misc, no-any-return]
        tree: Any = self
        scroll_x, scroll_y = tree.scroll_offset
        return tree._render_line(y + scroll_y, scroll_x, scroll_x + tree.size.width, style)  # type: ignore[no-any-return]
