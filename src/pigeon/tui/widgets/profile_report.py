"""A latency profile's result drawn to the widget's width (``pigeon.profile.report_lines``):
the summary, the percentiles, the histogram's bars and the errors by kind.

It draws a ``ProfileStats`` and nothing else, so a fixed set of results always draws the same
picture, and a resize draws the bars again to the new width.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual.widget import Widget

from pigeon.profile import report_lines
from pigeon.tui.css import beside

if TYPE_CHECKING:
    from textual.geometry import Size

    from pigeon.profile import ProfileStats

TALL = 30  # screen rows from which the histogram has its full height
ROWS_SHORT, ROWS_TALL = 6, 12  # the histogram's bars, on a short and on a tall screen


class ProfileReport(Widget):
    """The result of a profile (nothing before one)."""

    DEFAULT_CSS = beside(__file__)
    COMPONENT_CLASSES = {"profile-report--bar", "profile-report--heading"}

    def __init__(self, *, id: str | None = None) -> None:  # noqa: A002
        super().__init__(id=id)
        self.stats: ProfileStats | None = None

    def show(self, stats: ProfileStats | None) -> None:
        self.stats = stats
        self.refresh(layout=True)

    def _rows(self) -> int:
        return ROWS_TALL if self.app.size.height >= TALL else ROWS_SHORT

    def _lines(self, width: int) -> list[str]:
        if self.stats is None or width <= 0:
            return []
        return report_lines(self.stats, width, self._rows())

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return len(self._lines(width))

    def render(self) -> Text:
        bar = self.get_component_rich_style("profile-report--bar")
        heading = self.get_component_rich_style("profile-report--heading")
        text = Text()
        for n, line in enumerate(self._lines(self.size.width)):
            if n:
                text.append("\n")
            label, mark, rest = line.partition("│")
            if mark:  # a bar: its label, the bar in colour, its count
                drawn = rest.rstrip(" 0123456789,")
                text.append(label + mark)
                text.append(drawn, style=bar)
                text.append(rest[len(drawn) :])
            elif line == "Errors":
                text.append(line, style=heading)
            else:
                text.append(line)
        return text
