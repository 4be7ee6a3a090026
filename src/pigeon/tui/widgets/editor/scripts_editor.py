"""Pre-request and post-response scripts (Python), side by side or stacked; the names in
``pigeon.getVar("`` and ``pigeon.setVar("`` complete from the variables in scope."""

from __future__ import annotations

from collections.abc import Callable

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Label, TextArea

from pigeon.model import Scripts
from pigeon.scopes import Scopes
from pigeon.tui.css import beside
from pigeon.tui.widgets.editor.messages import RequestEdited
from pigeon.tui.widgets.editor.placeholder_text_area import ScriptTextArea


class ScriptsEditor(Vertical):
    DEFAULT_CSS = beside(__file__)

    def __init__(self, scopes: Callable[[], Scopes | None], *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._scopes = scopes  # the variable names getVar and setVar complete
        self._scripts = Scripts()

    def compose(self) -> ComposeResult:
        yield Label(
            "pre_request — runs before rendering; pigeon.setVar(name, value)",
            classes="script-label",
        )
        yield ScriptTextArea.code_editor(
            "", language="python", tab_behavior="focus", id="script-pre"
        ).completing(self._scopes)
        yield Label(
            "post_response — pigeon.response.status, .json(), .headers", classes="script-label"
        )
        yield ScriptTextArea.code_editor(
            "", language="python", tab_behavior="focus", id="script-post"
        ).completing(self._scopes)

    def show(self, scripts: Scripts) -> None:
        self._scripts = scripts
        with self.prevent(TextArea.Changed):
            self.query_one("#script-pre", TextArea).load_text(scripts.pre_request)
            self.query_one("#script-post", TextArea).load_text(scripts.post_response)

    def on_text_area_changed(self, event: TextArea.Changed) -> None:
        event.stop()
        if event.text_area.id == "script-pre":
            self._scripts.pre_request = event.text_area.text
        else:
            self._scripts.post_response = event.text_area.text
        self.post_message(RequestEdited())
