"""A TextArea that completes ``{{`` placeholders, as the URL bar does: the completion for the
text before the cursor shows under the editor, and ``tab`` takes it (``tab`` moves the focus
on, as usual, when there is none). A script's editor completes variable names instead."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Self

from textual.binding import Binding
from textual.reactive import reactive
from textual.widgets import TextArea

from pigeon.scopes import Scopes
from pigeon.tui.placeholder_suggester import complete_script_name, suggest
from pigeon.tui.widgets.editor.fast_text_area import FastTextArea


class PlaceholderTextArea(FastTextArea):
    BINDINGS = [
        Binding("tab", "complete", "Complete", show=False, id="text.complete"),
    ]

    completion: reactive[str] = reactive("", init=False)
    """What ``tab`` would insert at the cursor ("" when nothing is offered)."""

    _scopes: Callable[[], Scopes | None] = staticmethod(lambda: None)

    if TYPE_CHECKING:  # Textual types it as making a TextArea; it makes an instance of ``cls``

        @classmethod
        def code_editor(cls, *args: Any, **kwargs: Any) -> Self: ...

    def completing(self, scopes: Callable[[], Scopes | None]) -> Self:
        """Complete from ``scopes()`` (asked afresh each time); returns the area itself."""
        self._scopes = scopes
        return self

    def _offer(self) -> None:
        row, column = self.cursor_location
        before = self.document.get_line(row)[max(0, column - 256) : column]  # a long line too
        self.completion = self._completion(before)

    def _completion(self, before: str) -> str:
        """What completes ``before``, the line up to the cursor ("": nothing)."""
        found = suggest(before, self._scopes()) if "{{" in before else None
        return found[len(before) :] if found else ""

    def on_text_area_changed(self, event: TextArea.Changed) -> None:
        self._offer()  # not stopped: the body editor takes the text from it

    def on_text_area_selection_changed(self, event: TextArea.SelectionChanged) -> None:
        self._offer()

    def watch_completion(self, completion: str) -> None:
        self.border_subtitle = f"tab → {completion}" if completion else ""
        self.refresh_bindings()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "complete":
            return bool(self.completion)  # else tab moves the focus on
        return super().check_action(action, parameters)

    def action_complete(self) -> None:
        if self.completion:
            self.insert(self.completion)


class ScriptTextArea(PlaceholderTextArea):
    """A script's editor: it completes the variable names a script reads and sets, inside
    ``pigeon.getVar("`` and ``pigeon.setVar("`` (scripts are Python: no placeholders)."""

    def _completion(self, before: str) -> str:
        if "Var(" not in before:
            return ""
        return complete_script_name(before, self._scopes())
