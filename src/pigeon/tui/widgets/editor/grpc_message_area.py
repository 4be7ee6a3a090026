"""A gRPC message's editor: JSON that completes, from the method's input type, the field
names a top-level key may take (``tab`` takes the first; more letters narrow it); ``{{``
placeholders complete as in every text field."""

from __future__ import annotations

from textual.content import Content

from pigeon.terminal import printable
from pigeon.tui.widgets.editor.grpc_fields import key_typed, offered
from pigeon.tui.widgets.editor.placeholder_text_area import PlaceholderTextArea

BEFORE_LIMIT = 20_000  # characters before the cursor read for a completion


class GrpcMessageArea(PlaceholderTextArea):
    fields: list[tuple[str, str]] = []  # (JSON name, type) of the input message
    candidates: list[tuple[str, str]] = []

    def use_fields(self, fields: list[tuple[str, str]]) -> None:
        """The input message's fields (described); offered at once where the cursor is."""
        self.fields = fields
        if self.has_focus:
            self._offer()

    def _offer(self) -> None:
        super()._offer()
        self.candidates = []
        if self.completion or not self.fields:
            return
        row, column = self.cursor_location
        before = self.document.get_text_range((0, 0), (row, column))
        if len(before) > BEFORE_LIMIT:
            return
        found = offered(before, self.fields)
        if not found:
            return
        partial = key_typed(before) or ""
        self.candidates = found
        self.completion = f'{found[0][0][len(partial) :]}": '
        self._show_offer()

    def _show_offer(self) -> None:
        if not self.candidates or not self.completion:
            return
        (name, kind), more = self.candidates[0], len(self.candidates) - 1
        also = f"  (+{more}: {', '.join(n for n, _ in self.candidates[1:4])})" if more else ""
        self.border_subtitle = Content(printable(f"tab → {name} {kind}{also}"))

    def watch_completion(self, completion: str) -> None:
        super().watch_completion(completion)
        self._show_offer()
