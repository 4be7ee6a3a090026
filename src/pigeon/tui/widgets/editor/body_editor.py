"""The request body: its type, then a JSON/text editor, a table of form fields, the GraphQL
editor or a file's path."""

from __future__ import annotations

import json
from collections.abc import Callable

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import Select, TextArea

from pigeon.model import BODY_TYPES, Body, FormField, Request
from pigeon.scopes import Scopes
from pigeon.tui.css import beside
from pigeon.tui.widgets.editor.file_body_editor import FileBodyEditor
from pigeon.tui.widgets.editor.graphql_editor import GraphQLEditor
from pigeon.tui.widgets.editor.messages import MethodWanted, RequestEdited
from pigeon.tui.widgets.editor.pair_table import PairTable
from pigeon.tui.widgets.editor.placeholder_text_area import PlaceholderTextArea


def format_json(text: str) -> str | None:
    """Pretty-printed JSON, or ``None`` when the text (placeholders and all) does not parse."""
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        return None
    return json.dumps(value, indent=2, ensure_ascii=False) + "\n"


def not_json_message(text: str) -> str:
    """Why f8 left the body as it is: where the JSON breaks, and the placeholders only when
    there are some (a placeholder outside a string makes the text invalid as written)."""
    from pigeon.template import has_placeholder

    try:
        json.loads(text)
    except json.JSONDecodeError as exc:
        where = f"{exc.msg} at line {exc.lineno}, column {exc.colno}"
    else:
        where = "it does not parse"
    hint = " (placeholders outside strings?)" if has_placeholder(text) else ""
    return f"The body is not valid JSON as written{hint}: {where}; left as it is."


class BodyEditor(Vertical):
    DEFAULT_CSS = beside(__file__)

    BINDINGS = [
        Binding("f8", "format_json", "Format JSON", id="body.format"),
    ]

    def __init__(
        self, scopes: Callable[[], Scopes | None] = lambda: None, *, id: str | None = None
    ) -> None:
        super().__init__(id=id)
        self._scopes = scopes
        self._body = Body()
        self._request: Request | None = None

    def compose(self) -> ComposeResult:
        yield Select(
            [(t, t) for t in BODY_TYPES],
            value="none",
            allow_blank=False,
            compact=True,
            id="body-type",
        )
        yield PlaceholderTextArea.code_editor(
            "", language="json", tab_behavior="focus", soft_wrap=True, id="body-text"
        ).completing(self._scopes)
        yield PairTable("field", lambda n, v: FormField(n, v), self._scopes, id="body-fields")
        yield GraphQLEditor(self._scopes, id="body-graphql")
        yield FileBodyEditor(id="body-file")

    def show(self, request: Request) -> None:
        """Edit ``request``'s body (the working copy's, changed in place)."""
        self._request = request
        self._body = body = request.body
        area = self.query_one("#body-text", TextArea)
        with self.prevent(Select.Changed, TextArea.Changed):
            self.query_one("#body-type", Select).value = (
                body.type if body.type in BODY_TYPES else "none"
            )
            area.load_text(body.content)
        self.query_one("#body-fields", PairTable).show(body.fields)
        self.query_one(GraphQLEditor).show(request)
        self._show_type(body.type)
        self.query_one(FileBodyEditor).show(request)

    def _show_type(self, body_type: str) -> None:
        area = self.query_one("#body-text", TextArea)
        fields = self.query_one("#body-fields", PairTable)
        area.display = body_type in ("json", "text")
        fields.display = body_type in ("form", "multipart")
        fields.files_allowed = body_type == "multipart"
        fields.refresh_bindings()
        graphql = self.query_one(GraphQLEditor)
        graphql.display = body_type == "graphql"
        if graphql.display:
            graphql.check_soon()
        area.language = "json" if body_type == "json" else None
        self.query_one(FileBodyEditor).display = body_type == "file"

    def refresh_file_info(self) -> None:
        """Look at a file body's file again: a render of the request follows every edit, and an
        environment switch may change its path."""
        self.query_one(FileBodyEditor).refresh_info()

    def on_select_changed(self, event: Select.Changed) -> None:
        event.stop()
        if event.value is Select.BLANK:
            return
        self._body.type = str(event.value)
        self._show_type(self._body.type)
        if self._body.type == "graphql" and self._request and self._request.method == "GET":
            self.post_message(MethodWanted("POST"))  # GraphQL's usual method
        self.post_message(RequestEdited())

    def on_text_area_changed(self, event: TextArea.Changed) -> None:
        event.stop()
        self._body.content = event.text_area.text
        self.post_message(RequestEdited())

    def action_format_json(self) -> None:
        graphql = self._body.type == "graphql"  # its variables are the JSON
        area = self.query_one("#graphql-variables" if graphql else "#body-text", TextArea)
        formatted = format_json(area.text)
        if formatted is None:
            self.notify(not_json_message(area.text), severity="warning")
            return
        area.load_text(formatted)  # the GraphQL editor takes its Changed into the body
        if not graphql:
            self._body.content = formatted
            self.post_message(RequestEdited())
