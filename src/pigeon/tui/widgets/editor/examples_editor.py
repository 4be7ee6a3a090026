"""The request's saved examples (``[[examples]]``, DESIGN §14): what ``pigeon mock`` answers.

A table lists each example's name, status and size; the one under the cursor has its body in
the text area beside it, edited in place (a template: ``{{request.path.id}}``, ``{{$uuid}}``).
``d`` deletes the example under the cursor. An example is added from a response (``e`` in
the response pane). The tab is shown only for a request that has examples.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.coordinate import Coordinate
from textual.widgets import DataTable, Label, TextArea

from pigeon.bodies import human_size
from pigeon.model import Example, Request
from pigeon.tui.css import beside
from pigeon.tui.vim_keys import HalfPages, vim_bindings
from pigeon.tui.widgets.editor.messages import RequestEdited


class ExampleTable(HalfPages, DataTable[Any]):
    """``d`` deletes the example under the cursor."""

    BINDINGS = [
        *vim_bindings(top="scroll_top", bottom="scroll_bottom"),
        Binding("d,delete", "remove", "Delete example", id="examples.delete"),
    ]

    def action_remove(self) -> None:
        parent = self.parent
        if isinstance(parent, ExamplesEditor):
            parent.remove_current()


class ExamplesEditor(Horizontal):
    DEFAULT_CSS = beside(__file__)

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._work: Request | None = None
        self._row = 0

    def compose(self) -> ComposeResult:
        yield ExampleTable(id="examples-table", cursor_type="row", zebra_stripes=True)
        with Vertical(id="example-side"):
            yield Label("", classes="examples-label", id="examples-label")
            yield TextArea("", soft_wrap=True, tab_behavior="focus", id="example-body")

    def on_mount(self) -> None:
        table = self.query_one(ExampleTable)
        table.add_column("Name", key="name")
        table.add_column("Status", key="status")
        table.add_column("Body", key="size")

    def show(self, work: Request) -> None:
        self._work = work
        self._row = min(self._row, max(len(work.examples) - 1, 0))
        self._redraw()

    @property
    def current(self) -> Example | None:
        examples = self._work.examples if self._work is not None else []
        return examples[self._row] if self._row < len(examples) else None

    def _redraw(self) -> None:
        table = self.query_one(ExampleTable)
        table.clear()
        examples = self._work.examples if self._work is not None else []
        for example in examples:
            size = (
                Text("file", style="dim")
                if example.body_file
                else human_size(len(example.body.encode()))
            )
            table.add_row(example.name, str(example.status), size)
        if not examples:
            table.add_row(Text("no examples: press e on a response to save one", "italic"), "", "")
        else:
            table.move_cursor(row=self._row)
        self._show_body()

    def _show_body(self) -> None:
        example = self.current
        area = self.query_one("#example-body", TextArea)
        label = self.query_one("#examples-label", Label)
        with self.prevent(TextArea.Changed):
            area.load_text(example.body if example is not None else "")
        area.read_only = example is None or bool(example.body_file)
        if example is None:
            label.update("")
        elif example.body_file:
            label.update(f"{example.name}: sends the file {example.body_file}")
        else:
            label.update(f"{example.name}: a template, rendered per call by pigeon mock")

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        event.stop()
        if self._work is not None and event.cursor_row != self._row:
            self._row = event.cursor_row
            self._show_body()

    def on_text_area_changed(self, event: TextArea.Changed) -> None:
        event.stop()
        example = self.current
        if example is not None and not example.body_file and example.body != event.text_area.text:
            example.body = event.text_area.text
            self.query_one(ExampleTable).update_cell_at(
                Coordinate(self._row, 2), human_size(len(example.body.encode()))
            )
            self.post_message(RequestEdited())

    def remove_current(self) -> None:
        example = self.current
        if self._work is None or example is None:
            return
        self._work.examples.remove(example)
        self._row = min(self._row, max(len(self._work.examples) - 1, 0))
        self._redraw()
        self.notify(f"Example {example.name!r} deleted (ctrl+s saves the request).")
        self.post_message(RequestEdited())
