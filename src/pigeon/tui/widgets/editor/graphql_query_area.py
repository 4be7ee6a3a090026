"""The GraphQL query editor: a TextArea that completes, from the cached schema, the fields
(in a selection set) and arguments (in a field's parentheses) valid at the cursor; ``{{``
placeholders complete as in every text field. The first candidate shows under the editor
with its type and how many more there are; ``tab`` takes it, more letters narrow it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from textual.content import Content

from pigeon.terminal import printable
from pigeon.tui.widgets.editor.placeholder_text_area import PlaceholderTextArea

if TYPE_CHECKING:
    from pigeon.gql.document import Candidate

BEFORE_LIMIT = 20_000  # characters before the cursor read for a completion (a hostile file)


class GraphQLQueryArea(PlaceholderTextArea):
    schema: Any = None  # the endpoint's GraphQLSchema, once the editor has loaded one
    candidates: list[Candidate] = []

    def use_schema(self, schema: Any) -> None:
        """The schema the check loaded; the first one offers at once where the cursor already
        is (it may have been placed before the schema arrived)."""
        first = self.schema is None and schema is not None
        self.schema = schema
        if first and self.has_focus:
            self._offer()

    def _offer(self) -> None:
        super()._offer()
        self.candidates = []
        if self.completion or self.schema is None:
            return
        from pigeon.gql.document import complete

        row, column = self.cursor_location
        before = self.document.get_text_range((0, 0), (row, column))
        if len(before) > BEFORE_LIMIT:
            return
        found = complete(before, self.schema)
        if found is None:
            return
        self.candidates = found.candidates
        first = found.candidates[0]
        self.completion = first.insert[len(found.partial) :]
        self._show_offer()

    def _show_offer(self) -> None:
        if not self.candidates or not self.completion:
            return
        first, more = self.candidates[0], len(self.candidates) - 1
        also = f"  (+{more}: {', '.join(c.name for c in self.candidates[1:4])})" if more else ""
        self.border_subtitle = Content(printable(f"tab → {first.name}{first.detail}{also}"))

    def watch_completion(self, completion: str) -> None:
        super().watch_completion(completion)
        self._show_offer()
