"""The Query tab: the parameters written in the URL, then the ``[[query]]`` table's, in one list.

Parameters typed in the URL stay in the URL (DESIGN §5: inserted raw, as typed); they are
listed first, marked ``?``, and editing or deleting one rewrites the URL (the editor shows it
in the URL bar: ``UrlRewritten``). New parameters go to ``[[query]]``, where each value is
percent-encoded on its own, the safe way for values with ``&`` or spaces.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from rich.text import Text
from textual.message import Message

from pigeon.model import QueryParam, Request
from pigeon.tui.dialogs.pair_edit import PairEditScreen, PairValue
from pigeon.tui.widgets.editor.pair_table import PairTable
from pigeon.tui.widgets.editor.url_query import Pair, url_params, with_params

if TYPE_CHECKING:
    from collections.abc import Callable

    from pigeon.scopes import Scopes


class QueryTable(PairTable):
    @dataclass
    class UrlRewritten(Message):
        """A parameter of the URL was edited or deleted here: the URL bar shows ``url``."""

        url: str

    def __init__(
        self, scopes: Callable[[], Scopes | None] = lambda: None, *, id: str | None = None
    ) -> None:
        super().__init__("parameter", lambda n, v: QueryParam(n, v), scopes, id=id)
        self._request: Request | None = None
        self._in_url: list[Pair] = []

    def show_request(self, request: Request) -> None:
        """List ``request``'s URL parameters and its ``[[query]]`` (changed in place)."""
        self._request = request
        self._in_url = url_params(request.url)
        self.show(request.query)

    def url_changed(self) -> None:
        """The URL was typed in: list its parameters again (only if they changed)."""
        if self._request is not None and url_params(self._request.url) != self._in_url:
            cursor = self.cursor_row
            self._in_url = url_params(self._request.url)
            self._redraw(cursor)

    def _redraw(self, cursor: int | None = None) -> None:
        if not self._in_url:
            super()._redraw(cursor)
            return
        self.clear()
        for name, value in self._in_url:
            shown = Text(value if value is not None else "", style="italic")
            self.add_row(Text("?", style="cyan"), Text(name, style="italic"), shown)
        for row in self._rows:
            mark = Text("✓", style="green") if row.enabled else Text("·", style="dim")
            style = "" if row.enabled else "dim strike"
            self.add_row(mark, Text(row.name, style=style), Text(row.value, style=style))
        if cursor is not None:
            self.move_cursor(row=max(0, min(cursor, self.row_count - 1)))

    def _url_index(self) -> int | None:
        """The cursor's parameter of the URL, or ``None`` on a ``[[query]]`` row."""
        row = self.cursor_row
        return row if 0 <= row < len(self._in_url) else None

    def _current(self) -> int | None:
        """The cursor's ``[[query]]`` row (PairTable's actions work on those)."""
        if not self._rows:
            return None
        return max(0, min(self.cursor_row - len(self._in_url), len(self._rows) - 1))

    def _rewrite(self, pairs: list[Pair], cursor: int) -> None:
        assert self._request is not None
        self._request.url = with_params(self._request.url, pairs)
        self._in_url = pairs
        self._redraw(cursor)
        self.post_message(self.UrlRewritten(self._request.url))

    def _changed(self, cursor: int | None) -> None:
        super()._changed(None if cursor is None else cursor + len(self._in_url))

    def action_edit(self) -> None:
        index = self._url_index()
        if index is None:
            super().action_edit()
            return
        name, value = self._in_url[index]

        def done(result: PairValue | None) -> None:
            if result is None:
                return
            pairs = list(self._in_url)
            pairs[index] = (
                result.name,
                result.value if result.value or value is not None else None,
            )
            self._rewrite(pairs, index)

        self.app.push_screen(
            PairEditScreen(
                "Edit parameter (in the URL)",
                PairValue(name, value or ""),
                suggester=self._suggester,
            ),
            done,
        )

    # The row's on/off (space), in place of Textual's toggle(attribute), which nothing here binds.
    def action_toggle(self) -> None:  # type: ignore[override]
        if self._url_index() is None:
            super().action_toggle()
            return
        self.notify("This parameter is written in the URL: edit or delete it.", severity="warning")

    def action_remove(self) -> None:
        index = self._url_index()
        if index is None:
            super().action_remove()
            return
        pairs = [pair for i, pair in enumerate(self._in_url) if i != index]
        self._rewrite(pairs, index)
