"""Undo and redo for one-line text fields: Textual's ``Input`` (8.2) has none."""

from __future__ import annotations

from typing import ClassVar

from textual.binding import Binding, BindingType
from textual.widgets import Input

DEPTH = 200  # the edits a field remembers


class UndoableInput(Input):
    """An ``Input`` whose typed edits ctrl+z takes back and ctrl+y (or ctrl+shift+z, where the
    terminal sends it) puts again. Only what is typed while it has the focus is an edit: a
    value set from outside (another request shown) starts its history afresh."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+z", "undo", "Undo", show=False, id="input.undo"),
        Binding("ctrl+y,ctrl+shift+z", "redo", "Redo", show=False, id="input.redo"),
    ]

    def __init__(self, *args: object, **kwargs: object) -> None:
        self._undo: list[tuple[str, int]] = []  # before Input's: it sets the value
        self._redo: list[tuple[str, int]] = []
        self._restoring = False
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]

    def watch_value(self, old: str, new: str) -> None:
        if self._restoring or old == new:
            return
        if not self.has_focus:
            self._undo.clear()
            self._redo.clear()
            return
        self._undo.append((old, min(self.cursor_position, len(old))))
        del self._undo[:-DEPTH]
        self._redo.clear()

    def _restore(self, take: list[tuple[str, int]], keep: list[tuple[str, int]]) -> None:
        if not take:
            return
        value, cursor = take.pop()
        keep.append((self.value, self.cursor_position))
        self._restoring = True
        try:
            self.value = value
        finally:
            self._restoring = False
        self.cursor_position = len(value) if cursor > len(value) else cursor

    def action_undo(self) -> None:
        self._restore(self._undo, self._redo)

    def action_redo(self) -> None:
        self._restore(self._redo, self._undo)
