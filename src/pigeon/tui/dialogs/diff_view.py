"""Rows of a response diff, drawn with the Line API: only the lines on screen are built.

Side by side (old on the left, new on the right) or unified (``-`` then ``+``), toggled with
``mode``. Every line is outside text: shown through ``printable`` (escapes visible), tabs as
spaces.
"""

from __future__ import annotations

from typing import ClassVar, Literal

from rich.segment import Segment
from rich.style import Style
from textual.binding import Binding, BindingType
from textual.geometry import Size
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from pigeon.response_diff import ResponseDiff, Row
from pigeon.terminal import printable
from pigeon.tui.css import beside
from pigeon.tui.vim_keys import vim_bindings

Mode = Literal["split", "unified"]
_GUTTER = 6  # a line number (up to 99,999) and a space


def _shown(text: str) -> str:
    return printable(text.replace("\t", "    "))


class DiffView(ScrollView, can_focus=True):
    """Shows a ``ResponseDiff`` a screenful of rows at a time."""

    DEFAULT_CSS = beside(__file__)
    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "diff-view--removed",
        "diff-view--added",
        "diff-view--hunk",
        "diff-view--section",
        "diff-view--gutter",
        "diff-view--blank",
    }
    BINDINGS: ClassVar[list[BindingType]] = [
        *vim_bindings("scroll_down", "scroll_up", "scroll_home", "scroll_end", find=""),
        Binding("n", "next_change", "Next change", id="diff.next"),
        Binding("N", "previous_change", "Prev change", id="diff.previous"),
    ]

    mode: reactive[Mode] = reactive("split", init=False)

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.diff = ResponseDiff()
        self._longest = 0  # characters in the longest line: how far it scrolls sideways

    @property
    def rows(self) -> list[Row]:
        return self.diff.split if self.mode == "split" else self.diff.unified

    def show(self, diff: ResponseDiff) -> None:
        self.diff = diff
        self._longest = max(
            (max(len(r.left or ""), len(r.right or "")) for r in diff.split), default=0
        )
        self._resize()
        self.scroll_to(0, 0, animate=False, immediate=True)

    def watch_mode(self) -> None:
        self._resize()

    def _resize(self) -> None:
        longest = self._longest
        if self.mode == "unified":
            width = _GUTTER * 2 + 2 + longest
        else:
            width = self.scrollable_content_region.width + max(0, longest - self._half_text())
        self.virtual_size = Size(width, len(self.rows))
        self.refresh()

    def on_resize(self) -> None:
        self._resize()

    def _half_text(self) -> int:
        return max((self.scrollable_content_region.width - 1) // 2 - _GUTTER - 2, 1)

    # -- moving -------------------------------------------------------------------------------

    def _change_starts(self) -> list[int]:
        rows = self.rows
        return [
            i
            for i, row in enumerate(rows)
            if row.kind == "change" and (i == 0 or rows[i - 1].kind != "change")
        ]

    def action_next_change(self) -> None:
        here = int(self.scroll_y)
        after = [i for i in self._change_starts() if i > here]
        if after:
            self.scroll_to(y=after[0], animate=False, immediate=True)

    def action_previous_change(self) -> None:
        here = int(self.scroll_y)
        before = [i for i in self._change_starts() if i < here]
        if before:
            self.scroll_to(y=before[-1], animate=False, immediate=True)

    # -- drawing ------------------------------------------------------------------------------

    def _style(self, name: str) -> Style:
        return self.get_component_rich_style(f"diff-view--{name}", partial=True)

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        width = self.scrollable_content_region.width
        base = self.rich_style
        rows = self.rows
        number = scroll_y + y
        if number >= len(rows):
            return Strip.blank(width, base)
        row = rows[number]
        if row.kind in ("section", "hunk"):
            style = base + self._style(row.kind)
            strip = Strip([Segment(_shown(row.left or ""), style)])
            return strip.crop_extend(0, width, style)
        if self.mode == "unified":
            return self._unified(row, scroll_x, width, base)
        half = (width - 1) // 2
        left = self._cell(row.left, row.left_no, "removed", row, scroll_x, half, base)
        right = self._cell(row.right, row.right_no, "added", row, scroll_x, width - 1 - half, base)
        return Strip.join([left, Strip([Segment("│", base + self._style("gutter"))]), right])

    def _unified(self, row: Row, scroll_x: int, width: int, base: Style) -> Strip:
        if row.kind == "same":
            sign, text, style = " ", row.left or "", base
        elif row.left is not None:
            sign, text, style = "-", row.left, base + self._style("removed")
        else:
            sign, text, style = "+", row.right or "", base + self._style("added")
        gutter = base + self._style("gutter")
        numbers = f"{_number(row.left_no)}{_number(row.right_no)}"
        body = Strip([Segment(f"{sign} {_shown(text)}", style)])
        body = body.crop_extend(scroll_x, scroll_x + max(width - len(numbers), 0), style)
        return Strip.join([Strip([Segment(numbers, gutter)]), body]).crop(0, width)

    def _cell(
        self,
        text: str | None,
        number: int | None,
        change: str,
        row: Row,
        scroll_x: int,
        width: int,
        base: Style,
    ) -> Strip:
        if text is None:
            return Strip.blank(width, base + self._style("blank"))
        style = base if row.kind == "same" else base + self._style(change)
        gutter = Strip([Segment(_number(number), base + self._style("gutter"))])
        room = max(width - _GUTTER, 0)
        body = Strip([Segment(_shown(text), style)]).crop_extend(scroll_x, scroll_x + room, style)
        return Strip.join([gutter, body]).crop(0, width)


def _number(number: int | None) -> str:
    return f"{number:>5} " if number is not None else " " * _GUTTER
