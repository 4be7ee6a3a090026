"""The request editor's widgets: URL bar, preview and one tab per part of the request.

Kept apart from ``request_editor`` so these imports happen after the first paint. Only the
headers and query tables are built up front; every other tab (body, auth, scripts with their
syntax-highlighted TextAreas, variables, settings, the description) is imported and mounted
the first time it is opened, so start-up does not pay for parts a session may never open.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widget import Widget
from textual.widgets import Input, TabbedContent, TabPane

from pigeon.model import Header, Request
from pigeon.scopes import Scopes
from pigeon.tui.css import beside
from pigeon.tui.widgets.editor.messages import MethodWanted, RequestEdited
from pigeon.tui.widgets.editor.pair_table import PairTable
from pigeon.tui.widgets.editor.query_table import QueryTable
from pigeon.tui.widgets.editor.url_bar import UrlBar
from pigeon.tui.widgets.editor.url_preview import UrlPreview
from pigeon.tui.widgets.editor.url_query import url_params
from pigeon.tui.widgets.lazy_tab import LazyTabPane

_Scopes = Callable[[], Scopes | None]


def _body(scopes: _Scopes) -> Widget:
    from pigeon.tui.widgets.editor.body_editor import BodyEditor

    return BodyEditor(scopes, id="body")


def _auth(_: _Scopes) -> Widget:
    from pigeon.tui.widgets.editor.auth_editor import AuthEditor

    return AuthEditor(id="auth")


def _scripts(scopes: _Scopes) -> Widget:
    from pigeon.tui.widgets.editor.scripts_editor import ScriptsEditor

    return ScriptsEditor(scopes, id="scripts")


def _variables(_: _Scopes) -> Widget:
    from pigeon.tui.widgets.editor.request_variables import RequestVariables

    return RequestVariables(id="request-vars")


def _settings(_: _Scopes) -> Widget:
    from pigeon.tui.widgets.editor.settings_editor import SettingsEditor

    return SettingsEditor(id="settings")


def _docs(_: _Scopes) -> Widget:
    from pigeon.tui.widgets.editor.description_editor import DescriptionEditor

    return DescriptionEditor(id="docs")


def _examples(_: _Scopes) -> Widget:
    from pigeon.tui.widgets.editor.examples_editor import ExamplesEditor

    return ExamplesEditor(id="examples")


def _grpc_rpc(_: _Scopes) -> Widget:
    from pigeon.tui.widgets.editor.grpc_rpc_picker import GrpcRpcPicker

    return GrpcRpcPicker(id="grpc-rpc-picker")


def _grpc_message(scopes: _Scopes) -> Widget:
    from pigeon.tui.widgets.editor.grpc_message_editor import GrpcMessageEditor

    return GrpcMessageEditor(scopes, id="grpc-message-editor")


def _grpc_stream(scopes: _Scopes) -> Widget:
    from pigeon.tui.widgets.editor.grpc_message_editor import GrpcMessageEditor

    return GrpcMessageEditor(scopes, stream=True, id="grpc-stream-editor")


# A gRPC request's own tabs (its metadata is the Headers tab's, its message is not a body).
_GRPC_TABS: dict[str, tuple[str, Callable[[_Scopes], Widget], Callable[[Request], Any]]] = {
    "tab-rpc": ("RPC", _grpc_rpc, lambda work: work),
    "tab-message": ("Message", _grpc_message, lambda work: work),
    "tab-messages": ("Messages", _grpc_stream, lambda work: work),
}

# Tab id -> (title, the part's factory, what of the request the part shows).
_LAZY_TABS: dict[str, tuple[str, Callable[[_Scopes], Widget], Callable[[Request], Any]]] = {
    "tab-body": ("Body", _body, lambda work: work),
    "tab-auth": ("Auth", _auth, lambda work: work),
    "tab-scripts": ("Scripts", _scripts, lambda work: work.scripts),
    "tab-vars": ("Vars", _variables, lambda work: work.variables),
    "tab-settings": ("Settings", _settings, lambda work: work.settings),
    "tab-docs": ("Docs", _docs, lambda work: work),
    # shown for a request with saved examples only (a response's "Save as example" adds one)
    "tab-examples": ("Examples", _examples, lambda work: work),
}
_PARTS = {**_GRPC_TABS, **_LAZY_TABS}
# The tabs most requests never show, added the first time one does (in their places: a gRPC
# call's before the headers, the examples last): hidden tabs cost start-up their widgets.
_ADDED_LATER = (*_GRPC_TABS, "tab-examples")


class EditorBody(Vertical):
    DEFAULT_CSS = beside(__file__)

    def __init__(self, scopes: Callable[[], Scopes | None], *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._scopes = scopes
        self._work: Request | None = None
        self._parts: dict[str, Any] = {}  # tab id -> its part, once mounted
        self._added: set[str] = set()  # the tabs of ``_ADDED_LATER`` added so far

    def compose(self) -> ComposeResult:
        yield UrlBar(self._scopes, id="url-bar")
        yield UrlPreview(id="url-preview")
        with TabbedContent(id="editor-tabs", initial="tab-headers"):
            with TabPane("Headers", id="tab-headers"):
                yield PairTable("header", lambda n, v: Header(n, v), self._scopes, id="headers")
            with TabPane("Query", id="tab-query"):
                yield QueryTable(self._scopes, id="query")
            for pane_id, (title, _, _) in _LAZY_TABS.items():
                if pane_id not in _ADDED_LATER:
                    yield LazyTabPane(title, id=pane_id)

    async def on_tabbed_content_tab_activated(self, event: TabbedContent.TabActivated) -> None:
        pane_id = event.pane.id or ""
        if pane_id not in _PARTS or pane_id in self._parts:
            return
        _, make, _ = _PARTS[pane_id]
        part = self._parts[pane_id] = make(self._scopes)
        await event.pane.mount(part)
        if self._work is not None:
            self._show_part(pane_id, self._work)

    def _show_part(self, pane_id: str, work: Request) -> None:
        self._parts[pane_id].show(_PARTS[pane_id][2](work))

    def show(self, work: Request) -> None:
        """Edit ``work`` (changed in place by every part)."""
        self._work = work
        self.query_one(UrlBar).set_values(work.method, work.url)
        self._show_kind(work)
        self.query_one("#headers", PairTable).show(work.headers)
        self.query_one("#query", QueryTable).show_request(work)
        for pane_id in self._parts:
            self._show_part(pane_id, work)
        self.show_counts(work)

    def url_changed(self) -> None:
        """The URL was typed in: the Query tab lists its parameters."""
        self.query_one("#query", QueryTable).url_changed()
        if self._work is not None:
            self._show_kind(self._work)  # a ws:// URL makes it a WebSocket

    def _show_kind(self, work: Request) -> None:
        """A WebSocket has no method and no body: its messages are in the response pane. A
        gRPC call has a method (RPC), metadata (the headers), a message and stream messages,
        and no query."""
        websocket, grpc = work.kind == "websocket", work.kind == "grpc"
        self.query_one(UrlBar).show_websocket(websocket or grpc, "gRPC" if grpc else "WS")
        tabs = self.query_one(TabbedContent)
        hidden = {"tab-body"} if websocket else {"tab-body", "tab-query"} if grpc else set()
        hidden |= set() if grpc else set(_GRPC_TABS)
        hidden |= set() if work.examples else {"tab-examples"}
        self._add_tabs(tabs, [pane_id for pane_id in _ADDED_LATER if pane_id not in hidden])
        if tabs.active in hidden:
            tabs.active = "tab-rpc" if grpc else "tab-headers"
        for pane_id in ("tab-body", "tab-query", *_GRPC_TABS, "tab-examples"):
            if self._not_added(pane_id):
                continue  # as good as hidden
            if tabs.get_tab(pane_id).has_class("-hidden") != (pane_id in hidden):  # changes only
                (tabs.hide_tab if pane_id in hidden else tabs.show_tab)(pane_id)

    def _not_added(self, pane_id: str) -> bool:
        """Whether ``pane_id`` is one of ``_ADDED_LATER`` not added yet (no tab to change)."""
        return pane_id in _ADDED_LATER and pane_id not in self._added

    def _add_tabs(self, tabs: TabbedContent, wanted: list[str]) -> None:
        """Add the tabs of ``_ADDED_LATER`` in ``wanted`` that are not in yet."""
        for pane_id in wanted:
            if self._not_added(pane_id):
                self._added.add(pane_id)
                before = "tab-headers" if pane_id in _GRPC_TABS else None
                tabs.add_pane(LazyTabPane(_PARTS[pane_id][0], id=pane_id), before=before)

    def on_query_table_url_rewritten(self, event: QueryTable.UrlRewritten) -> None:
        """A URL parameter was edited in the Query tab: the URL bar shows the new URL."""
        event.stop()
        bar = self.query_one(UrlBar)
        bar.set_values(bar.method, event.url)
        self.post_message(RequestEdited())

    def on_method_wanted(self, event: MethodWanted) -> None:
        """A GraphQL body was chosen for a GET: the request is a POST now, as the bar shows."""
        event.stop()
        if self._work is not None:
            self._work.method = event.method
            bar = self.query_one(UrlBar)
            bar.set_values(event.method, bar.query_one("#url", Input).value)

    def first_tab(self) -> None:
        self.query_one(TabbedContent).active = "tab-headers"

    @property
    def part(self) -> str:
        """The id of the tab on show."""
        return self.query_one(TabbedContent).active

    def show_part(self, pane_id: str) -> None:
        tabs = self.query_one(TabbedContent)
        if tabs.query(f"TabPane#{pane_id}"):
            tabs.active = pane_id

    def show_counts(self, work: Request) -> None:
        """Tab labels say how much each part holds, so an empty tab need not be opened."""
        tabs = self.query_one(TabbedContent)
        counts = {
            "tab-headers": (
                "Metadata" if work.kind == "grpc" else "Headers",
                sum(h.enabled for h in work.headers),
            ),
            "tab-messages": ("Messages", len(work.messages)),
            "tab-query": ("Query", sum(q.enabled for q in work.query) + len(url_params(work.url))),
            "tab-vars": ("Vars", len(work.variables)),
            "tab-examples": ("Examples", len(work.examples)),
        }
        labels = {pane_id: f"{title} {n}" if n else title for pane_id, (title, n) in counts.items()}
        body = work.body.type if work.body.type != "none" else ""
        labels["tab-body"] = f"Body {body}" if body else "Body"
        scripts = sum(
            bool(x.strip()) for x in (work.scripts.pre_request, work.scripts.post_response)
        )
        labels["tab-scripts"] = f"Scripts {scripts}" if scripts else "Scripts"
        labels["tab-docs"] = "Docs 1" if work.description.strip() else "Docs"
        for pane_id, label in labels.items():
            if self._not_added(pane_id):
                continue
            tab = tabs.get_tab(pane_id)
            if tab.label_text != label:  # a new label lays the tabs out again: not every key
                tab.label = label

    def show_variables(self, variables: dict[str, Any]) -> None:
        part = self._parts.get("tab-vars")
        if part is not None:
            part.show(variables)

    def show_preview(
        self, url: str, unresolved: list[str], warnings: list[str], error: str | None
    ) -> None:
        self.query_one(UrlPreview).show(url, unresolved, warnings, error)
        body = self._parts.get("tab-body")
        if body is not None:  # a file body's size and type, as the send would find them
            body.refresh_file_info()
