"""The request editor's widgets: URL bar, preview and one tab per part of the request.

Kept apart from ``request_editor`` so these imports (TextArea, tree-sitter) happen after the
first paint.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import TabbedContent, TabPane

from pigeon.model import Header, QueryParam, Request
from pigeon.scopes import Scopes
from pigeon.tui.widgets.auth_editor import AuthEditor
from pigeon.tui.widgets.body_editor import BodyEditor
from pigeon.tui.widgets.pair_table import PairTable
from pigeon.tui.widgets.request_variables import RequestVariables
from pigeon.tui.widgets.scripts_editor import ScriptsEditor
from pigeon.tui.widgets.settings_editor import SettingsEditor
from pigeon.tui.widgets.url_bar import UrlBar
from pigeon.tui.widgets.url_preview import UrlPreview


class EditorBody(Vertical):
    DEFAULT_CSS = Path(__file__).with_suffix(".tcss").read_text()

    def __init__(self, scopes: Callable[[], Scopes | None], *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._scopes = scopes

    def compose(self) -> ComposeResult:
        yield UrlBar(self._scopes, id="url-bar")
        yield UrlPreview(id="url-preview")
        with TabbedContent(id="editor-tabs"):
            with TabPane("Headers", id="tab-headers"):
                yield PairTable("header", lambda n, v: Header(n, v), id="headers")
            with TabPane("Query", id="tab-query"):
                yield PairTable("parameter", lambda n, v: QueryParam(n, v), id="query")
            with TabPane("Body", id="tab-body"):
                yield BodyEditor(id="body")
            with TabPane("Auth", id="tab-auth"):
                yield AuthEditor(id="auth")
            with TabPane("Scripts", id="tab-scripts"):
                yield ScriptsEditor(id="scripts")
            with TabPane("Vars", id="tab-vars"):
                yield RequestVariables(id="request-vars")
            with TabPane("Settings", id="tab-settings"):
                yield SettingsEditor(id="settings")

    def show(self, work: Request) -> None:
        """Edit ``work`` (changed in place by every part)."""
        self.query_one(UrlBar).set_values(work.method, work.url)
        self.query_one("#headers", PairTable).show(work.headers)
        self.query_one("#query", PairTable).show(work.query)
        self.query_one(BodyEditor).show(work.body)
        self.query_one(AuthEditor).show(work)
        self.query_one(ScriptsEditor).show(work.scripts)
        self.query_one(RequestVariables).show(work.variables)
        self.query_one(SettingsEditor).show(work.settings)
        self.show_counts(work)

    def show_counts(self, work: Request) -> None:
        """Tab labels say how much each part holds, so an empty tab need not be opened."""
        tabs = self.query_one(TabbedContent)
        counts = {
            "tab-headers": ("Headers", sum(h.enabled for h in work.headers)),
            "tab-query": ("Query", sum(q.enabled for q in work.query)),
            "tab-vars": ("Vars", len(work.variables)),
        }
        for pane_id, (title, count) in counts.items():
            tabs.get_tab(pane_id).label = f"{title} {count}" if count else title
        body = work.body.type if work.body.type != "none" else ""
        tabs.get_tab("tab-body").label = f"Body {body}" if body else "Body"
        scripts = sum(
            bool(x.strip()) for x in (work.scripts.pre_request, work.scripts.post_response)
        )
        tabs.get_tab("tab-scripts").label = f"Scripts {scripts}" if scripts else "Scripts"

    def show_variables(self, variables: dict[str, Any]) -> None:
        self.query_one(RequestVariables).show(variables)

    def show_preview(
        self, url: str, unresolved: list[str], warnings: list[str], error: str | None
    ) -> None:
        self.query_one(UrlPreview).show(url, unresolved, warnings, error)
