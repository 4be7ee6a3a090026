"""A TextArea whose keystroke costs what the edit touches, not the size of the document.

Textual's ``TextArea`` does work proportional to the whole document on every key: it joins
the text into one string for each line it draws (to see whether to draw its placeholder),
adds up the height of every wrapped line for each line it draws, counts the edit's byte
offset line by line, and queries the syntax tree of the whole document for its highlights.
In a 1.5 MB JSON body that was seconds a key. Here the text is joined once per edit, the
height is the length of the wrap table, the byte offset is counted in one go, the highlights
are asked for the lines around those on screen when they are drawn, and a change of height
alone wraps nothing again. Opening a large text, the lines that fit are not measured to be
wrapped, and the bracket matching the cursor's is searched for a line at a time.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from textual._wrap import compute_wrap_offsets
from textual.document._syntax_aware_document import SyntaxAwareDocument
from textual.document._wrapped_document import WrappedDocument
from textual.expand_tabs import get_tab_widths
from textual.geometry import Region
from textual.strip import Strip
from textual.widgets import TextArea

if TYPE_CHECKING:
    from textual.document._document import EditResult
    from textual.document._edit import Edit

_OPENING = {"{": "}", "[": "]", "(": ")"}
_CLOSING = {closing: opening for opening, closing in _OPENING.items()}
_BRACKET = re.compile(r"[\[\](){}]")
HIGHLIGHT_MARGIN = 50  # lines highlighted above and below those on screen


class _CountedWrap(WrappedDocument):
    """The wrap table knows its height (one entry per line on screen), and a line that fits
    and holds no tab (most lines of a body) is not measured to be wrapped: opening a 1.5 MB
    body measured 70,000 lines."""

    @property
    def height(self) -> int:
        return len(self._offset_to_line_info)

    def wrap(self, width: int, tab_width: int | None = None) -> None:
        self._width = width
        if tab_width:
            self._tab_width = tab_width
        tab_width = self._tab_width
        wrap_offsets: list[list[int]] = []
        line_info: list[tuple[int, int]] = []
        line_offsets: list[list[int]] = []
        tab_widths: list[list[int]] = []
        y = 0
        for index, line in enumerate(self.document.lines):
            fits = not width or (len(line) <= width if line.isascii() else 2 * len(line) <= width)
            if fits and "\t" not in line:  # one row, no tab to expand
                wrap_offsets.append([])
                tab_widths.append([0] if line else [])
                line_info.append((index, 0))
                line_offsets.append([y])
                y += 1
                continue
            sections = get_tab_widths(line, tab_width)
            offsets = (
                compute_wrap_offsets(line, width, tab_width, precomputed_tab_sections=sections)
                if width
                else []
            )
            tab_widths.append([section_width for _, section_width in sections])
            wrap_offsets.append(offsets)
            line_offsets.append(list(range(y, y + len(offsets) + 1)))
            line_info.extend((index, section) for section in range(len(offsets) + 1))
            y += len(offsets) + 1
        self._wrap_offsets = wrap_offsets
        self._offset_to_line_info = line_info
        self._line_index_to_offsets = line_offsets
        self._tab_width_cache = tab_widths


class _JoinedOffsets(SyntaxAwareDocument):
    """A location's byte offset counted over the lines above joined (in C), not line by line
    (twice an edit)."""

    def _location_to_byte_offset(self, location: tuple[int, int]) -> int:
        row, column = location
        lines = self._lines
        above = self.newline.join(lines[:row]).encode() if row else b""
        newline = len(self.newline) if row else 0
        left = len(lines[row][:column].encode()) if row < len(lines) else 0
        return len(above) + newline + left


class _CountedWrapSlot:
    """``TextArea.wrapped_document``, made a ``_CountedWrap`` as Textual sets it (before it
    wraps it at the editor's width)."""

    def __get__(self, area: TextArea | None, owner: type | None = None) -> WrappedDocument:
        return area.__dict__["wrapped_document"]  # type: ignore[union-attr]

    def __set__(self, area: TextArea, wrapped: WrappedDocument) -> None:
        if type(wrapped) is WrappedDocument:
            wrapped.__class__ = _CountedWrap
        area.__dict__["wrapped_document"] = wrapped


class FastTextArea(TextArea):
    wrapped_document = _CountedWrapSlot()  # type: ignore[assignment]

    _text: str | None = None  # the document's text, joined once per edit
    _lit: tuple[int, int] | None = None  # document lines the highlights cover (end exclusive)

    @property
    def text(self) -> str:
        if self._text is None:
            self._text = self.document.text
        return self._text

    @text.setter
    def text(self, value: str) -> None:
        self.load_text(value)

    def _set_document(self, text: str, language: str | None) -> None:
        self._text = None
        super()._set_document(text, language)
        self._text = None
        if type(self.document) is SyntaxAwareDocument:
            self.document.__class__ = _JoinedOffsets

    def _rewrap_and_refresh_virtual_size(self) -> None:
        """Wrap again only when the width or the tabs to wrap at changed: a line of warnings
        above the editor made it a row shorter, and wrapping 1.5 MB again took 1.5 s."""
        wrapped = self.wrapped_document
        if wrapped._width != self.wrap_width or wrapped._tab_width != self.indent_width:
            super()._rewrap_and_refresh_virtual_size()
        else:
            self._line_cache.clear()
            self._refresh_size()

    def edit(self, edit: Edit) -> EditResult:
        self._text = None
        try:
            return super().edit(edit)
        finally:
            self._text = None

    def _undo_batch(self, edits: Sequence[Edit]) -> None:
        self._text = None
        super()._undo_batch(edits)
        self._text = None

    def _redo_batch(self, edits: Sequence[Edit]) -> None:
        self._text = None
        super()._redo_batch(edits)
        self._text = None

    def find_matching_bracket(
        self, bracket: str, search_from: tuple[int, int]
    ) -> tuple[int, int] | None:
        """The bracket that matches ``bracket`` at ``search_from``, as Textual finds it, but a
        line at a time with a pattern rather than a character at a time: with the cursor on a
        1.5 MB body's first brace, its match was 3 s away."""
        lines = self.document.lines
        row, column = search_from
        stack: list[str] = []
        if bracket in _OPENING:
            for y in range(row, len(lines)):
                for found in _BRACKET.finditer(lines[y], column if y == row else 0):
                    char = found.group()
                    if char in _OPENING:
                        stack.append(char)
                    elif stack and stack[-1] == _CLOSING[char]:
                        stack.pop()
                        if not stack:
                            return y, found.start()
        elif bracket in _CLOSING:
            for y in range(min(row, len(lines) - 1), -1, -1):
                line = lines[y]
                end = column + 1 if y == row else len(line)
                for found in reversed(list(_BRACKET.finditer(line, 0, end))):
                    char = found.group()
                    if char in _CLOSING:
                        stack.append(char)
                    elif stack and stack[-1] == _OPENING[char]:
                        stack.pop()
                        if not stack:
                            return y, found.start()
        return None

    def _build_highlight_map(self) -> None:
        """Forget the highlights: the next frame asks for those of the lines it draws."""
        self._line_cache.clear()
        self._highlights.clear()
        self._lit = None

    def render_lines(self, crop: Region) -> list[Strip]:
        self._highlight_visible()
        return super().render_lines(crop)

    def _highlight_visible(self) -> None:
        """Query the syntax tree for the lines on screen (and a margin), unless done."""
        if not self._highlight_query:
            return
        rows = self.wrapped_document._offset_to_line_info
        if not rows:
            return
        scroll_y = int(self.scroll_offset.y)
        top = rows[min(scroll_y, len(rows) - 1)][0]
        bottom = rows[min(scroll_y + self.size.height, len(rows) - 1)][0] + 1
        if self._lit is not None and self._lit[0] <= top and bottom <= self._lit[1]:
            return
        start = max(0, top - HIGHLIGHT_MARGIN)
        end = min(self.document.line_count, bottom + HIGHLIGHT_MARGIN)
        self._line_cache.clear()
        highlights = self._highlights
        highlights.clear()
        captures = self.document.query_syntax_tree(self._highlight_query, (start, 0), (end, 0))
        for name, nodes in captures.items():
            for node in nodes:
                first, first_column = node.start_point
                last, last_column = node.end_point
                if first == last:
                    highlights[first].append((first_column, last_column, name))
                    continue
                highlights[first].append((first_column, None, name))
                for row in range(max(first + 1, start), min(last, end)):
                    highlights[row].append((0, None, name))
                highlights[last].append((0, last_column, name))
        self._lit = (start, end)
