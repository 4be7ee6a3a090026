"""A file body in the editor (DESIGN §11): the file's path (relative to the collection,
placeholders allowed) and an optional content type, with what the file is as a send would
find it: its size and type, or why it would not be sent (missing, a folder, outside an
untrusted collection). The file is looked at, never read."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import Input, Label, Static

from pigeon.model import Body, Request
from pigeon.terminal import printable
from pigeon.tui.css import beside
from pigeon.tui.input_undo import UndoableInput
from pigeon.tui.session_of import app_session
from pigeon.tui.widgets.editor.messages import RequestEdited


class FileBodyEditor(Vertical):
    DEFAULT_CSS = beside(__file__)

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._request: Request | None = None
        self._body = Body()

    def compose(self) -> ComposeResult:
        with Horizontal(classes="file-row"):
            yield Label("File", classes="file-label")
            yield UndoableInput(
                placeholder="fixtures/upload.bin (relative to the collection)",
                id="body-file-path",
                compact=True,
            )
        with Horizontal(classes="file-row"):
            yield Label("Type", classes="file-label")
            yield UndoableInput(
                placeholder="guessed from the file's name", id="body-file-type", compact=True
            )
        yield Static("", id="body-file-info")

    def show(self, request: Request) -> None:
        """Edit ``request``'s file body (the working copy's, changed in place)."""
        self._request, self._body = request, request.body
        with self.prevent(Input.Changed):
            self.query_one("#body-file-path", Input).value = request.body.path
            self.query_one("#body-file-type", Input).value = request.body.content_type
        self.refresh_info()

    def refresh_info(self) -> None:
        """Say what the file is now: ``<file PATH, N bytes, TYPE>`` or why it is not sent."""
        session = app_session(self)
        if self._request is None or session is None or not self.display:
            return
        described = session.file_body(self._request)
        info = self.query_one("#body-file-info", Static)
        info.set_class(not described.startswith("<file "), "-problem")
        info.update(Text(printable(described)))

    def on_input_changed(self, event: Input.Changed) -> None:
        event.stop()
        if event.input.id == "body-file-path":
            self._body.path = event.value
        else:
            self._body.content_type = event.value
        self.post_message(RequestEdited())  # the editor's preview that follows refreshes the info
