"""The request's own variables (the request scope), edited as TOML/JSON literals."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.binding import Binding
from textual.widgets import DataTable

from pigeon.tui.css import beside
from pigeon.tui.dialogs.variable_edit import VariableEditScreen, VariableValue
from pigeon.tui.vim_keys import HalfPages, vim_bindings
from pigeon.tui.widgets.editor.messages import RequestEdited
from pigeon.tui.widgets.find_rows import FindInTable
from pigeon.values import kind_of, preview


class RequestVariables(FindInTable, HalfPages, DataTable[Any]):
    DEFAULT_CSS = beside(__file__)

    BINDINGS = [
        *vim_bindings(top="scroll_top", bottom="scroll_bottom"),
        Binding("a", "add", "Add", id="reqvars.add"),
        Binding("e", "edit", "Edit", id="reqvars.edit"),
        Binding("d,delete", "remove", "Delete", id="reqvars.delete"),
    ]

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, cursor_type="row", zebra_stripes=True)
        self._vars: dict[str, Any] = {}

    def on_mount(self) -> None:
        self.add_column("Name", key="name")
        self.add_column("Kind", key="kind")
        self.add_column("Value", key="value")

    def show(self, variables: dict[str, Any]) -> None:
        self._vars = variables
        self._redraw()

    def _redraw(self) -> None:
        self.clear()
        for name, value in self._vars.items():
            self.add_row(name, Text(kind_of(value), style="dim"), preview(value))
        if not self._vars:
            self.add_row(Text("no request variables: press a to add", style="italic"), "", "")

    def _current_name(self) -> str | None:
        names = list(self._vars)
        if not names:
            return None
        return names[min(self.cursor_row, len(names) - 1)]

    def _edit(self, name: str) -> None:
        old = name

        def done(result: VariableValue | None) -> None:
            if result is None:
                return
            if old and old != result.name:
                self._vars.pop(old, None)
            self._vars[result.name] = result.value
            self._redraw()
            self.post_message(RequestEdited())

        self.app.push_screen(
            VariableEditScreen(
                "Request variable" if not name else f"Edit {name}",
                name,
                self._vars.get(name, ""),
                scopes=[("request", "this request")],
            ),
            done,
        )

    def action_add(self) -> None:
        self._edit("")

    def action_edit(self) -> None:
        name = self._current_name()
        self._edit(name or "")

    def action_remove(self) -> None:
        name = self._current_name()
        if name is not None:
            del self._vars[name]
            self._redraw()
            self.post_message(RequestEdited())

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.action_edit()
