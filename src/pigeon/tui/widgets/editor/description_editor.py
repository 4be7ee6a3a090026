"""The request's description (``description`` in its file, kept as a ``'''`` block): notes for
whoever reads the collection, what the request is for and how to use it. ``ctrl+e`` opens it
in ``$EDITOR`` like any text field."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Label, TextArea

from pigeon.model import Request
from pigeon.tui.css import beside
from pigeon.tui.widgets.editor.messages import RequestEdited


class DescriptionEditor(Vertical):
    DEFAULT_CSS = beside(__file__)

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._work: Request | None = None

    def compose(self) -> ComposeResult:
        yield Label(
            "description — what this request is for; saved in its file (ctrl+e: $EDITOR)",
            classes="description-label",
        )
        yield TextArea(
            "", language="markdown", soft_wrap=True, tab_behavior="focus", id="description"
        )

    def show(self, work: Request) -> None:
        self._work = work
        with self.prevent(TextArea.Changed):
            self.query_one("#description", TextArea).load_text(work.description)

    def on_text_area_changed(self, event: TextArea.Changed) -> None:
        event.stop()
        if self._work is not None and self._work.description != event.text_area.text:
            self._work.description = event.text_area.text
            self.post_message(RequestEdited())
