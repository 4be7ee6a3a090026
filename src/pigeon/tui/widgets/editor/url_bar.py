"""Method selector and URL input on one line.

``up``/``down`` in the URL cycle the method (a single-line input has no use for them);
``right`` at the end accepts a placeholder completion. A curl command pasted (or typed and
submitted) here becomes the request: the bar reports it with ``CurlPasted``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.message import Message
from textual.widgets import Input, Label, Select

from pigeon.model import METHODS
from pigeon.scopes import Scopes
from pigeon.tui.css import beside
from pigeon.tui.input_undo import UndoableInput
from pigeon.tui.placeholder_suggester import PlaceholderSuggester


class UrlInput(UndoableInput):
    pastes_curl = True  # a curl command pasted here is taken whole (see ``one_line_paste``)

    BINDINGS = [
        Binding("up", "cycle_method(-1)", "Previous method", show=False, id="url.method_prev"),
        Binding("down", "cycle_method(1)", "Next method", show=False, id="url.method_next"),
    ]

    def on_blur(self, event: events.Blur) -> None:
        self.cursor_position = 0  # like a browser: show the host when not editing
        self.scroll_to(0, animate=False, immediate=True)

    def _on_paste(self, event: events.Paste) -> None:
        """A pasted curl command is kept whole (an Input would keep only its first line)."""
        from pigeon.importers.curl import looks_like_curl  # not needed to start up

        bar = self.parent
        if isinstance(bar, UrlBar) and looks_like_curl(event.text):
            event.stop()
            event.prevent_default()
            bar.post_message(UrlBar.CurlPasted(event.text))

    def action_cycle_method(self, step: int) -> None:
        bar = self.parent
        if isinstance(bar, UrlBar):
            bar.cycle_method(step)


class UrlBar(Horizontal):
    DEFAULT_CSS = beside(__file__)

    @dataclass
    class MethodChanged(Message):
        """The method was changed (``up``/``down`` cycle it, or typed)."""

        method: str
        """The new method, upper case."""

    @dataclass
    class UrlChanged(Message):
        """The URL text changed: the preview and the request follow."""

        url: str
        """The URL as typed, placeholders and all."""

    @dataclass
    class CurlPasted(Message):
        """A curl command was pasted, or typed and submitted, into the URL."""

        command: str

    def __init__(self, scopes: Callable[[], Scopes | None], *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._scopes = scopes
        self._method = "GET"

    def compose(self) -> ComposeResult:
        yield Select(
            [(m, m) for m in METHODS],
            value="GET",
            allow_blank=False,
            compact=True,
            id="method",
        )
        yield Label("WS", id="method-ws")  # a WebSocket has no method to choose
        yield UrlInput(
            placeholder="{{base_url}}/path  (type {{ for variables)",
            suggester=PlaceholderSuggester(self._scopes),
            id="url",
        )

    @property
    def method(self) -> str:
        return self._method

    def set_values(self, method: str, url: str) -> None:
        """Show a request's method and URL without reporting them as edits."""
        select = self.query_one("#method", Select)
        with self.prevent(Select.Changed, Input.Changed):
            self._ensure_option(method)
            select.value = method
            url_input = self.query_one("#url", UrlInput)
            url_input.value = url
        self._method = method
        self.call_after_refresh(self._show_start)

    def show_websocket(self, websocket: bool, badge: str = "WS") -> None:
        """A WebSocket shows ``WS`` where an HTTP request's method selector is (a gRPC call
        ``gRPC``: ``badge``)."""
        self.query_one("#method", Select).display = not websocket
        label = self.query_one("#method-ws", Label)
        label.display = websocket
        if websocket and str(label.content) != badge:
            label.update(badge)

    def _show_start(self) -> None:
        """Show the start of the URL (the host) until it is edited."""
        url_input = self.query_one("#url", UrlInput)
        if not url_input.has_focus:
            url_input.cursor_position = 0
            url_input.scroll_to(0, animate=False, immediate=True)

    def _ensure_option(self, method: str) -> None:
        """A custom method (any token) gets its own entry."""
        select = self.query_one("#method", Select)
        options = [m for m in METHODS]
        if method not in options:
            options.append(method)
        select.set_options([(m, m) for m in options])

    def cycle_method(self, step: int) -> None:
        order = list(METHODS)
        index = order.index(self._method) if self._method in order else -1
        method = order[(index + step) % len(order)]
        self.query_one("#method", Select).value = method

    def on_select_changed(self, event: Select.Changed) -> None:
        event.stop()
        if event.value is Select.BLANK:
            return
        self._method = str(event.value)
        self.post_message(self.MethodChanged(self._method))

    def on_input_changed(self, event: Input.Changed) -> None:
        event.stop()
        self.post_message(self.UrlChanged(event.value))

    async def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        from pigeon.importers.curl import looks_like_curl

        if looks_like_curl(event.value):
            self.post_message(self.CurlPasted(event.value))
            return
        await self.run_action("screen.send")  # the screen sends, as ctrl+r does
