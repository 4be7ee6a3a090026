"""The search and filter bar under a body view: ``/`` searches, ``f`` filters with jq, JMESPath
or JSONPath (``bodies/filter.py`` says which); the hint line says what the keys do. The
filters applied with enter are remembered per request (``store/filter_history.py``) and come
back with up and down in the bar."""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import ClassVar, Literal

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.reactive import reactive
from textual.timer import Timer
from textual.widgets import Input, Label, Static

from pigeon.terminal import printable
from pigeon.tui.css import beside
from pigeon.tui.session_of import app_session
from pigeon.tui.widgets.response.body_view import (
    FILTER_HELP,
    LIVE_FILTER_DELAY,
    LIVE_FILTER_LIMIT,
    BodyView,
)
from pigeon.tui.widgets.response.folding_view import FoldingBodyView

_CSS = beside(__file__, "body_view.tcss")


class BodyPanel(Vertical):
    """A ``BodyView`` with its search (``/``) and JSON filter (``f``) bar."""

    DEFAULT_CSS = _CSS

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("slash", "search", "Search", id="body.search"),
        Binding("f,full_stop", "filter", "Filter", id="body.filter"),
        Binding("n", "next_match", "Next match", id="body.next"),
        Binding("N", "previous_match", "Prev match", id="body.previous"),
        Binding("escape", "close_bar", "Close", id="body.close"),
        Binding("o", "path", "Go to path", id="body.path", tooltip="Unfold to a JSON path"),
        Binding("up", "recall(1)", "Earlier filter", show=False, id="body.filter_earlier"),
        Binding("down", "recall(-1)", "Later filter", show=False, id="body.filter_later"),
    ]

    mode: reactive[Literal["", "search", "filter", "path"]] = reactive("", init=False)
    """Which bar is open, if any."""

    def __init__(
        self, *, view_id: str = "body-view", id: str | None = None, classes: str | None = None
    ) -> None:
        super().__init__(id=id, classes=classes)
        self._view_id = view_id
        self._last_filter = ""
        self._filter_timer: Timer | None = None
        self._submitted = False
        self.request_id = ""
        """Whose filters the bar remembers and recalls ("": none, a scratch request)."""
        self._recall: list[str] = []  # this request's filters, newest first
        self._recall_at = -1  # which one is in the input (-1: what the user typed)
        self._draft = ""
        self._history_warned = False  # a broken history file is told of once

    def compose(self) -> ComposeResult:
        yield FoldingBodyView(id=self._view_id)
        yield Static("", id="body-path", markup=False)
        with Vertical(id="body-bar"):
            with Horizontal(id="body-bar-row"):
                yield Label("/", id="body-bar-prompt")
                yield Input(id="body-bar-input", compact=True)
                yield Label("", id="body-bar-count")
            yield Static("", id="body-bar-hint")

    @property
    def view(self) -> FoldingBodyView:
        return self.query_one(FoldingBodyView)

    @property
    def input(self) -> Input:
        return self.query_one("#body-bar-input", Input)

    @property
    def hint(self) -> Static:
        return self.query_one("#body-bar-hint", Static)

    @property
    def _path_line(self) -> Static:
        return self.query_one("#body-path", Static)

    def watch_mode(self, mode: str) -> None:
        self.set_class(bool(mode), "-bar-open")
        self.set_class(mode == "filter", "-filter")

    # -- actions ------------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        view = self.view
        if action in ("next_match", "previous_match"):
            return view.match_count > 0
        if action == "filter":
            return view.is_json
        if action == "path":
            return view.cursor_path != ""
        if action == "close_bar":
            return bool(self.mode) or view.is_filtered
        if action == "recall":
            return self.mode == "filter" and self.input.has_focus
        return True

    def action_search(self) -> None:
        self.mode = "search"
        self.query_one("#body-bar-prompt", Label).update("/")
        self.input.placeholder = "search the body"
        self.input.value = self.view.search_text
        self._update_count()
        self._set_hint("")
        self.input.focus()

    def action_filter(self) -> None:
        if not self.view.is_json:
            return
        self.mode = "filter"
        self.query_one("#body-bar-prompt", Label).update("filter")
        self.input.placeholder = "jq .items[0]   JSONPath $.items[*]   JMESPath items[0].name"
        self.input.value = self.view.filter_expression or self._last_filter
        self.query_one("#body-bar-count", Label).update("")
        self._set_hint(FILTER_HELP)
        self.input.focus()
        self._recall_at = -1
        self._load_recall()

    def _history_root(self) -> Path | None:
        session = app_session(self)
        return session.root if session is not None and self.request_id else None

    @work(thread=True, group="filter-history", exclusive=True, exit_on_error=False)
    def _load_recall(self) -> None:
        root, request_id = self._history_root(), self.request_id
        if root is None:
            return
        from pigeon.store.filter_history import load_filter_history

        history, problem = load_filter_history(root)
        self.app.call_from_thread(self._recalled, request_id, history.get(request_id, []), problem)

    def _recalled(self, request_id: str, filters: list[str], problem: str | None) -> None:
        if request_id == self.request_id:
            self._recall = filters
        if problem and not self._history_warned:
            self._history_warned = True
            self.notify(printable(problem), severity="warning", timeout=8)

    def action_recall(self, step: int) -> None:
        """Put an earlier (``step`` 1) or a later (-1) filter of this request in the input."""
        at = max(-1, min(len(self._recall) - 1, self._recall_at + step))
        if at == self._recall_at:
            return
        if self._recall_at == -1:
            self._draft = self.input.value
        self._recall_at = at
        self._stop_filter_timer()
        with self.input.prevent(Input.Changed):
            self.input.value = self._draft if at == -1 else self._recall[at]
        self.input.cursor_position = len(self.input.value)

    def _remember(self, expression: str) -> None:
        expression = expression.strip()
        root = self._history_root()
        if root is None or not expression:
            return
        self._recall = [expression, *(f for f in self._recall if f != expression)]
        self._recall_at = -1
        self._write_filter(root, self.request_id, expression)

    @work(thread=True, group="filter-history-write", exit_on_error=False)
    def _write_filter(self, root: Path, request_id: str, expression: str) -> None:
        from pigeon.store.filter_history import remember_filter

        problem = remember_filter(root, request_id, expression)
        if problem:
            self.app.call_from_thread(
                self.notify, f"Filter not remembered: {printable(problem)}", severity="warning"
            )

    def action_path(self) -> None:
        """Ask for a path (``items[3].id``) to unfold the body to."""
        self.mode = "path"
        self.query_one("#body-bar-prompt", Label).update("path")
        self.input.placeholder = "items[3].id, $.items[3].id or @"
        self.input.value = ""
        self.query_one("#body-bar-count", Label).update("")
        self._set_hint("enter: unfold to it   escape: close")
        self.input.focus()

    def action_next_match(self) -> None:
        self.view.next_match()

    def action_previous_match(self) -> None:
        self.view.previous_match()

    def action_close_bar(self) -> None:
        self._stop_filter_timer()
        view = self.view
        if self.mode == "filter" or (not self.mode and view.is_filtered):
            view.clear_filter()
        elif self.mode == "search":
            view.clear_search()
        self.mode = ""
        view.focus()
        self.refresh_bindings()

    def reset(self) -> None:
        """A new body: close the bar, forget the filter."""
        self._stop_filter_timer()
        self.mode = ""
        self._set_hint("")

    # -- events -------------------------------------------------------------------------------

    def on_input_changed(self, event: Input.Changed) -> None:
        event.stop()
        if self.mode == "search":
            self.view.search(event.value)
        elif self.mode == "filter" and self.view.source_length <= LIVE_FILTER_LIMIT:
            # Small bodies filter as you type, once typing pauses.
            self._stop_filter_timer()
            self._filter_timer = self.set_timer(
                LIVE_FILTER_DELAY, partial(self._live_filter, event.value)
            )

    def _stop_filter_timer(self) -> None:
        if self._filter_timer is not None:
            self._filter_timer.stop()
            self._filter_timer = None

    def _live_filter(self, expression: str) -> None:
        self._filter_timer = None
        if self.mode != "filter":
            return
        self._submitted = False
        if expression.strip():
            self.view.apply_filter(expression)
        else:
            self.view.clear_filter()
            self._set_hint(FILTER_HELP)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if self.mode == "search":
            self.view.focus()
        elif self.mode == "path":
            error = self.view.unfold_to_path(event.value)
            if error is not None:
                self._set_hint(Text(f"✖ {printable(error)}", style="bold"), error=True)
                return
            self.action_close_bar()
        elif self.mode == "filter":
            self._stop_filter_timer()
            self._last_filter = event.value
            self._submitted = True
            if event.value.strip():
                self._set_hint("filtering…")
                self.view.apply_filter(event.value)
            else:
                self.action_close_bar()

    def on_body_view_search_updated(self, event: BodyView.SearchUpdated) -> None:
        self._update_count()
        self.refresh_bindings()

    def on_body_view_filter_applied(self, event: BodyView.FilterApplied) -> None:
        if event.error is not None:
            self._set_hint(Text(f"✖ {event.error}", style="bold"), error=True)
            return
        lines = self.view.line_count
        note = f"   {event.note}" if event.note else ""
        self._set_hint(
            f"{lines:,} line{'s' if lines != 1 else ''}{note}   escape: clear the filter"
        )
        if self._submitted:
            self._remember(event.expression)
            self.view.focus()
        self.refresh_bindings()

    def on_folding_body_view_cursor_moved(self, event: FoldingBodyView.CursorMoved) -> None:
        """The cursor's JSON path on the line under the body while the body has the focus."""
        self._path_line.update(printable(event.path))
        self._show_path()
        self.refresh_bindings()

    def on_descendant_focus(self) -> None:
        self._show_path()

    def on_descendant_blur(self) -> None:
        self._show_path()

    def _show_path(self) -> None:
        """The path line is shown while there is a path and the focus is in the panel. It is
        set on the line itself: a class on the panel would restyle every widget in it."""
        line = self._path_line
        line.display = bool(line.content) and self.has_focus_within

    def on_body_view_loaded(self, event: BodyView.Loaded) -> None:
        if self.mode == "filter" and not self.view.is_json:
            self.mode = ""  # the new body is not JSON: nothing to filter
            self._set_hint("")
        self.refresh_bindings()

    def _set_hint(self, text: str | Text, *, error: bool = False) -> None:
        hint = self.hint
        if text != hint.content:  # an update costs a relayout; a reset mostly changes nothing
            hint.update(text)
        hint.set_class(error, "-error")
        hint.display = bool(text)

    def _update_count(self) -> None:
        view = self.view
        label = self.query_one("#body-bar-count", Label)
        if not view.search_text:
            label.update("")
        elif view.match_count == 0:
            label.update("no matches")
        else:
            more = "+" if view.matches_capped else ""
            label.update(f"{view.current_match + 1:,}/{view.match_count:,}{more}")
