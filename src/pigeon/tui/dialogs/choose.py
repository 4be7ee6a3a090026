"""Pick one of a list (environment, destination folder, body type...), and the collection's
folders as such a list."""

from __future__ import annotations

from rich.cells import cell_len, set_cell_size
from rich.console import Console, ConsoleOptions, RenderResult
from rich.measure import Measurement
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import Label, OptionList
from textual.widgets.option_list import Option

from pigeon.model import Folder, Request
from pigeon.tui.dialogs.form_modal import Dialog

TOP_LEVEL = "(top level)"


def folder_choices(items: list[Folder | Request], leave_out: str = "") -> list[tuple[str, str]]:
    """Every folder among ``items``, at any depth, as ``(id, path)``: the top level first
    (id ``""``), then each folder's path from the top (``Users / Admin``). ``leave_out``: the
    id of a folder left out with everything inside it (a folder is never moved into itself)."""
    folders: list[tuple[str, str]] = [("", TOP_LEVEL)]

    def visit(items: list[Folder | Request], above: str) -> None:
        for item in items:
            if isinstance(item, Folder) and item.id != leave_out:
                path = f"{above} / {item.name}" if above else item.name
                folders.append((item.id, path))
                visit(item.items, path)

    visit(items, "")
    return folders


def cut_middle(text: str, width: int) -> str:
    """``text`` in at most ``width`` cells, its middle replaced by ``…`` when it is longer:
    the start and the end of a path say most about it."""
    if cell_len(text) <= width:
        return text
    if width <= 1:
        return "…"[:width]
    head = width // 2
    tail = width - 1 - head
    start = set_cell_size(text, head)
    end = set_cell_size(text[::-1], tail)[::-1] if tail else ""
    return f"{start}…{end}"


class OneLine:
    """A label drawn on one line at any width, cut in the middle when it is too long."""

    def __init__(self, text: str) -> None:
        self.text = text

    def __str__(self) -> str:
        return self.text

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield Text(cut_middle(self.text, options.max_width), no_wrap=True, overflow="crop")

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        return Measurement(1, cell_len(self.text))


class ChooseScreen(Dialog[str | None]):
    """Options are ``(id, label)``; dismisses with the chosen id, or ``None`` on ``escape``.
    It starts on ``current``; with ``one_line`` each label keeps to one line, cut in the
    middle (folder paths)."""

    BINDINGS = [Binding("escape", "cancel", "Cancel", id="dialog.cancel")]

    def __init__(
        self,
        title: str,
        options: list[tuple[str, str]],
        current: str | None = None,
        *,
        one_line: bool = False,
    ) -> None:
        super().__init__()
        self._title, self._options, self._current = title, options, current
        self._one_line = one_line

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label(self._title, classes="title")
            yield OptionList(
                *[
                    Option(OneLine(label) if self._one_line else label, id=key)
                    for key, label in self._options
                ]
            )
            yield Label("enter: choose   escape: cancel", classes="hint")

    def on_mount(self) -> None:
        options = self.query_one(OptionList)
        for index, (key, _) in enumerate(self._options):
            if key == self._current:
                options.highlighted = index
        options.focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(event.option.id)

    def action_cancel(self) -> None:
        self.dismiss(None)
