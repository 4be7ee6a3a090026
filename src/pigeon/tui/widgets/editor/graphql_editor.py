"""A ``graphql`` body: the operation name, the query (checked while typed, completed from
the cached schema) and its variables (JSON, with ``{{`` placeholders as a JSON body has).

The check waits for a pause in typing and runs in a thread (building a big schema takes a
while); its verdict heads the query's frame, where even a short screen shows it. ``f9``
fetches the schema by introspection from the request's own URL, headers and auth, and caches
it in the collection's ``.pigeon/``.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.timer import Timer
from textual.widgets import Input, Label, TextArea

from pigeon.model import Request
from pigeon.scopes import Scopes
from pigeon.terminal import printable
from pigeon.tui.css import beside
from pigeon.tui.input_undo import UndoableInput
from pigeon.tui.session_of import session_of
from pigeon.tui.widgets.editor.graphql_query_area import GraphQLQueryArea
from pigeon.tui.widgets.editor.messages import RequestEdited
from pigeon.tui.widgets.editor.placeholder_text_area import PlaceholderTextArea

if TYPE_CHECKING:
    from pigeon.session import Session
    from pigeon.tui.widgets.editor.graphql_check import Verdict

CHECK_AFTER = 0.3  # seconds of quiet typing before the query is checked


class GraphQLEditor(Vertical):
    DEFAULT_CSS = beside(__file__)

    BINDINGS = [
        Binding(
            "f9",
            "fetch_schema",
            "Fetch schema",
            id="graphql.schema",
            tooltip="Fetch the GraphQL schema (introspection of the request's URL, cached)",
        ),
    ]

    def __init__(self, scopes: Callable[[], Scopes | None], *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._scopes = scopes
        self.request: Request | None = None
        self.verdict: Verdict | None = None  # the last check's
        self._timer: Timer | None = None
        self._generation = 0  # a check's result is shown only if nothing changed since

    def compose(self) -> ComposeResult:
        with Horizontal(id="graphql-operation-row"):
            yield Label("Operation ")
            yield UndoableInput(placeholder="name (optional)", compact=True, id="graphql-operation")
        query = GraphQLQueryArea.code_editor(
            "", language=None, tab_behavior="focus", soft_wrap=True, id="graphql-query"
        )
        query.border_title = "Query"
        yield query.completing(self._scopes)
        variables = PlaceholderTextArea.code_editor(
            "", language="json", tab_behavior="focus", soft_wrap=True, id="graphql-variables"
        )
        variables.border_title = "Variables"
        yield variables.completing(self._scopes)

    @property
    def session(self) -> Session:
        return session_of(self)

    def show(self, request: Request) -> None:
        """Edit ``request``'s body (the working copy, changed in place)."""
        self.request = request
        body = request.body
        with self.prevent(TextArea.Changed, Input.Changed):
            self.query_one("#graphql-operation", Input).value = body.operation_name
            self.query_one("#graphql-query", TextArea).load_text(body.query)
            self.query_one("#graphql-variables", TextArea).load_text(body.variables)
        self.check_soon()

    def on_text_area_changed(self, event: TextArea.Changed) -> None:
        event.stop()
        if self.request is None:
            return
        if event.text_area.id == "graphql-query":
            self.request.body.query = event.text_area.text
            self.check_soon()
        else:
            self.request.body.variables = event.text_area.text
        self.post_message(RequestEdited())

    def on_input_changed(self, event: Input.Changed) -> None:
        event.stop()
        if self.request is not None:
            self.request.body.operation_name = event.value
            self.post_message(RequestEdited())

    # -- the check ------------------------------------------------------------------------

    def on_descendant_focus(self) -> None:
        """Back in the editor: the URL or the environment may point elsewhere now."""
        self.check_soon()

    def check_soon(self) -> None:
        """Check the query once typing pauses (the URL or the environment may have changed
        the endpoint too)."""
        self._generation += 1
        if self._timer is not None:
            self._timer.stop()
        self._timer = self.set_timer(CHECK_AFTER, self._check)

    def _check(self) -> None:
        from pigeon.tui.widgets.editor.graphql_check import endpoint

        if self.request is None or not self.display:
            return
        work_copy = copy.deepcopy(self.request)
        where = endpoint(self.session, work_copy)
        self._judge(self.session.collection.root, where, work_copy.body.query, self._generation)

    @work(thread=True, exclusive=True, group="graphql-check", exit_on_error=False)
    def _judge(self, root: Path, where: str, query: str, generation: int) -> None:
        from pigeon.tui.widgets.editor.graphql_check import judge

        verdict = judge(root, where, query)
        self.app.call_from_thread(self._show_verdict, verdict, generation)

    def _show_verdict(self, verdict: Verdict, generation: int) -> None:
        if generation != self._generation:
            return  # typed on meanwhile: a newer check follows
        self.verdict = verdict
        area = self.query_one("#graphql-query", GraphQLQueryArea)
        area.use_schema(verdict.schema)
        area.border_title = status_line(verdict)

    # -- the schema -----------------------------------------------------------------------

    def action_fetch_schema(self) -> None:
        if self.request is not None:
            # A check scheduled before the fetch would put its verdict over the fetch's outcome
            # (a failure's reason gone in a moment): the fetch checks again when it succeeds.
            self._generation += 1
            if self._timer is not None:
                self._timer.stop()
            self._fetch(copy.deepcopy(self.request))

    @work(exclusive=True, group="graphql-fetch", exit_on_error=False)
    async def _fetch(self, request: Request) -> None:
        from pigeon.gql.cache import SchemaError

        area = self.query_one("#graphql-query", GraphQLQueryArea)
        area.border_title = "Query · fetching the schema…"
        try:
            fetched = await self.session.fetch_schema(request)
        except Exception as exc:  # SchemaError, or a defect: one line either way
            reason = str(exc) if isinstance(exc, SchemaError) else f"{type(exc).__name__}: {exc}"
            message = printable(f"No schema: {' '.join(reason.split())}")
            area.border_title = Text.assemble("Query ", (f"⚠ {message}", "red"))
            self.notify(message, severity="error", timeout=8)
            return
        self.notify(printable(fetched.summary()))
        self.check_soon()


def status_line(verdict: Verdict) -> Text:
    """The query's title: what is wrong and where, or what it was checked against."""
    if verdict.problem is not None:
        return Text.assemble("Query ", (f"⚠ {printable(verdict.problem)}", "red"))
    if verdict.schema is not None:
        return Text.assemble("Query ", ("✓ valid for the cached schema", "green"))
    return Text.assemble("Query ", ("✓ syntax; no schema cached for this URL (f9)", "dim"))
