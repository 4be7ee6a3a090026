"""An editable table of name/value rows: headers, query parameters, form fields.

It edits the model's list in place (``Header``/``QueryParam``/``FormField`` share ``name``,
``value`` and ``enabled``) and posts ``RequestEdited`` after each change.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual.binding import Binding
from textual.widgets import DataTable

from pigeon.tui.css import beside
from pigeon.tui.dialogs.pair_edit import PairEditScreen, PairValue
from pigeon.tui.placeholder_suggester import PlaceholderSuggester
from pigeon.tui.vim_keys import HalfPages, vim_bindings
from pigeon.tui.widgets.editor.messages import RequestEdited
from pigeon.tui.widgets.find_rows import FindInTable

if TYPE_CHECKING:
    from pigeon.scopes import Scopes


class PairTable(FindInTable, HalfPages, DataTable[Any]):
    """``a`` add, ``enter``/``e`` edit, ``space`` toggle, ``d`` delete."""

    DEFAULT_CSS = beside(__file__)

    BINDINGS = [
        *vim_bindings(top="scroll_top", bottom="scroll_bottom"),
        Binding("a", "add", "Add", id="pairs.add"),
        Binding("e", "edit", "Edit", id="pairs.edit"),
        Binding("space", "toggle", "On/off", id="pairs.toggle"),
        Binding("d,delete", "remove", "Delete", id="pairs.delete"),
        Binding("t", "toggle_kind", "Text/file", id="pairs.kind"),
    ]

    def __init__(
        self,
        noun: str,
        factory: Callable[[str, str], Any],
        scopes: Callable[[], Scopes | None] = lambda: None,
        *,
        id: str | None = None,
    ) -> None:
        """``scopes`` gives the names the value's ``{{`` completion offers."""
        super().__init__(id=id, cursor_type="row", zebra_stripes=True)
        self._suggester = PlaceholderSuggester(scopes)
        self.noun = noun
        self._factory = factory
        self._rows: list[Any] = []
        self.files_allowed = False

    def on_mount(self) -> None:
        self.add_column("", key="on", width=1)
        self.add_column("Name", key="name")
        self.add_column("Value", key="value")

    def show(self, rows: list[Any]) -> None:
        """Edit ``rows`` (the model's list, changed in place)."""
        self._rows = rows
        self._redraw()

    def _redraw(self, cursor: int | None = None) -> None:
        self.clear()
        for row in self._rows:
            mark = Text("✓", style="green") if row.enabled else Text("·", style="dim")
            style = "" if row.enabled else "dim strike"
            value = Text(row.value, style=style)
            if getattr(row, "kind", "text") == "file":
                value = Text.assemble(("file ", "bold cyan"), value)  # the value is a path
            self.add_row(mark, Text(row.name, style=style), value)
        if not self._rows:
            self.add_row("", Text(f"no {self.noun}s: press a to add", style="italic"), "")
        if cursor is not None and self._rows:
            self.move_cursor(row=max(0, min(cursor, len(self._rows) - 1)))

    def _current(self) -> int | None:
        if not self._rows:
            return None
        return min(self.cursor_row, len(self._rows) - 1)

    def _changed(self, cursor: int | None) -> None:
        self._redraw(cursor)
        self.post_message(RequestEdited())

    def action_add(self) -> None:
        def done(result: PairValue | None) -> None:
            if result is None:
                return
            row = self._factory(result.name, result.value)
            row.enabled = result.enabled
            self._rows.append(row)
            self._changed(len(self._rows) - 1)

        self.app.push_screen(
            PairEditScreen(f"New {self.noun}", PairValue("", ""), suggester=self._suggester), done
        )

    def action_edit(self) -> None:
        index = self._current()
        if index is None:
            self.action_add()
            return
        row = self._rows[index]

        def done(result: PairValue | None) -> None:
            if result is None:
                return
            row.name, row.value, row.enabled = result.name, result.value, result.enabled
            self._changed(index)

        self.app.push_screen(
            PairEditScreen(
                f"Edit {self.noun}",
                PairValue(row.name, row.value, row.enabled),
                suggester=self._suggester,
            ),
            done,
        )

    # The row's on/off (space), in place of Textual's toggle(attribute), which nothing here binds.
    def action_toggle(self) -> None:  # type: ignore[override]
        index = self._current()
        if index is not None:
            self._rows[index].enabled = not self._rows[index].enabled
            self._changed(index)

    def action_remove(self) -> None:
        index = self._current()
        if index is not None:
            del self._rows[index]
            self._changed(index)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "toggle_kind":
            return self.files_allowed  # only multipart fields can be files
        return True

    def action_toggle_kind(self) -> None:
        """A multipart field sends text, or the file its value names (relative to the
        collection)."""
        index = self._current()
        if index is not None and hasattr(self._rows[index], "kind"):
            row = self._rows[index]
            row.kind = "text" if row.kind == "file" else "file"
            self._changed(index)

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.action_edit()
