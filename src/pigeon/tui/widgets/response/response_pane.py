"""The response pane: a status line over tabs for the body, the headers, the request as sent
and the timings, with copy, copy-as-curl and save actions.

What a response seldom needs is built on first use, so start-up and every pane built after it
mount fewer widgets: the "As sent" and "Timings" tabs when first opened, the events panel for
the first event stream, the image view for the first image."""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Literal, Protocol, cast

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.markup import escape
from textual.message import Message
from textual.reactive import reactive
from textual.widgets import DataTable, Static, TabbedContent, TabPane
from textual.worker import get_current_worker

from pigeon import bodies
from pigeon.bodies import human_size
from pigeon.stream import is_event_stream, parse_events
from pigeon.terminal import printable
from pigeon.tui.css import beside
from pigeon.tui.format import curl_command, duration, sent_text, suggested_filename
from pigeon.tui.widgets.lazy_tab import LazyTabPane
from pigeon.tui.widgets.response.body_panel import BodyPanel
from pigeon.tui.widgets.response.body_view import BodyView
from pigeon.tui.widgets.response.live_body import LiveBody
from pigeon.tui.widgets.response.memory import LARGE_BODY, give_back
from pigeon.tui.widgets.response.status_line import StatusLine

if TYPE_CHECKING:
    from collections.abc import Awaitable

    from textual.widget import Widget
    from textual.worker import Worker

    from pigeon.exchange import Exchange, Progress
    from pigeon.model import Request
    from pigeon.tui.widgets.response.events_panel import EventsPanel
    from pigeon.tui.widgets.response.grpc_view import GrpcView
    from pigeon.tui.widgets.response.image_view import ImageView
    from pigeon.tui.widgets.response.websocket_view import WebSocketView

State = Literal["empty", "pending", "done", "error", "cancelled"]


class KindView(Protocol):
    """What a request kind's own view does for the send key: connect or call, or close or
    stop; the workers it returns are the tab's sends (``escape`` cancels them)."""

    def toggle(
        self, request: Request, trusted: Callable[[Request], Awaitable[bool]]
    ) -> list[Worker[Any]] | None: ...


def write_body(exchange: Exchange, dest: Path) -> None:
    """Write the complete body to ``dest`` atomically: a temporary file in the same folder,
    then a rename, so an interrupted save never leaves half a file under the real name."""
    fd, tmp = tempfile.mkstemp(prefix=f".{dest.name}.", suffix=".part", dir=dest.parent)
    try:
        with os.fdopen(fd, "wb") as out:
            if exchange.body_path is not None:
                with open(exchange.body_path, "rb") as src:
                    shutil.copyfileobj(src, out, 1024 * 1024)
            else:
                out.write(exchange.body)
        os.replace(tmp, dest)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def body_kind(exchange: Exchange) -> bodies.BodyKind:
    return bodies.classify_body(exchange.content_type, exchange.body[:8192], exchange.body_size)


# What Pigeon sends through OSC 52 at most: a terminal drops a copy over its own cap (from
# about 100 KB to a few MB), so a bigger one is refused with a word, never a false "Copied".
CLIPBOARD_LIMIT = 1024 * 1024


class ResponseTabs(TabbedContent):
    """Tabs that leave zooming to the pane around them."""

    ALLOW_MAXIMIZE = False


class ResponsePane(Vertical):
    """Shows an :class:`~pigeon.exchange.Exchange`; ``show_pending`` / ``show_cancelled``
    while a send is in flight or after it was stopped. What shows it is picked from ``VIEWS``,
    by the request's kind, then by the body's."""

    DEFAULT_CSS = beside(__file__)
    # Zooming in on the body keeps its status line, tabs and search bar with it.
    ALLOW_MAXIMIZE = True

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("c", "copy_body", "Copy body", id="response.copy_body"),
        Binding("C", "copy_curl", "Copy as curl", id="response.copy_curl", show=False),
        Binding("s", "save_body", "Save body", id="response.save_body"),
        Binding("v", "toggle_secrets", "Show secrets", id="response.reveal", show=False),
        Binding("d", "diff_with", "Diff with…", id="response.diff", show=False),
        Binding("e", "save_example", "Save as example", id="response.example", show=False),
        # The body's own keys, from the tab strip or the headers too (listed under the body).
        Binding("slash", "body('search')", show=False, id="body.search"),
        Binding("f,full_stop", "body('filter')", show=False, id="body.filter"),
    ]

    state: reactive[State] = reactive("empty", init=False)
    reveal_secrets: reactive[bool] = reactive(False, init=False)

    class BodySaved(Message):
        """The body was written to ``path``."""

        def __init__(self, path: Path) -> None:
            super().__init__()
            self.path = path

    class ExampleWanted(Message):
        """Save ``exchange``'s response as its request's example ``name`` (``[[examples]]``)."""

        def __init__(self, exchange: Exchange, name: str) -> None:
            super().__init__()
            self.exchange = exchange
            self.name = name

    def __init__(
        self, *, name: str | None = None, id: str | None = None, classes: str | None = None
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.exchange: Exchange | None = None
        self._overwrite_ok: Path | None = None
        self._give_back_due = False
        self._live: LiveBody | None = None  # the send in flight, followed as it arrives
        self._built: set[str] = set()  # the lazy tabs (``_LAZY``) whose parts are mounted

    def compose(self) -> ComposeResult:
        yield StatusLine(id="status-line")
        with ResponseTabs(id="response-tabs"):
            with TabPane("Body", id="tab-body"):
                yield Static("", id="body-note")
                yield BodyPanel(id="body-panel")
            with TabPane("Headers", id="tab-headers"):
                yield DataTable(
                    id="headers-table", cursor_type="row", zebra_stripes=True, show_cursor=True
                )
            yield LazyTabPane("As sent", id="tab-sent")
            yield LazyTabPane("Timings", id="tab-timings")

    def on_mount(self) -> None:
        found = self.query("#headers-table").results(DataTable)
        table = next(found, None)
        # The app quit while this pane was being mounted: its parts may be gone.
        if table is None or not self.query("#body-bar-hint"):
            return
        table.add_column("Name", key="name")
        table.add_column("Value", key="value")
        self.clear()

    async def on_tabbed_content_tab_activated(self, event: TabbedContent.TabActivated) -> None:
        """A lazy tab opened for the first time: its part is built, then shows the exchange."""
        pane = event.pane
        if event.tabbed_content.id != "response-tabs" or pane.id not in _LAZY or pane.children:
            return
        await pane.mount(_LAZY[pane.id]())
        self._built.add(pane.id)
        if self.exchange is not None:
            (self._show_sent if pane.id == "tab-sent" else self._show_timings)(self.exchange)

    # -- the view a request's kind picks -------------------------------------------------------

    def view_for(self, request: Request, tab: Any = None) -> KindView | None:
        """The view ``VIEWS`` gives ``request``'s kind, shown instead of the tabs (made on
        first use), or ``None``: the tabs show its responses. ``tab`` (a ``RequestTab``) is
        the request's tab, whose last exchange a view may show."""
        show = VIEWS.get(request.kind)
        view = show(self, request, tab) if show is not None else None
        for kind in KINDS_WITH_VIEWS:
            self.set_class(view is not None and kind == request.kind, f"-{kind}")
        return cast("KindView | None", view)

    def _grpc_view(self, request: Request, tab: Any = None) -> GrpcView:
        from pigeon.tui.widgets.response.grpc_view import GrpcView

        view = next(iter(self.query(GrpcView).results(GrpcView)), None)
        if view is None:
            view = GrpcView(id="grpc")
            self.mount(view)
        view.load(request, getattr(tab, "last_exchange", None))
        return view

    def _websocket_view(self, request: Request, tab: Any = None) -> WebSocketView:
        from pigeon.tui.widgets.response.websocket_view import WebSocketView

        view = next(iter(self.query(WebSocketView).results(WebSocketView)), None)
        if view is None:
            view = WebSocketView(id="websocket")
            self.mount(view)
        view.load(request)
        return view

    # -- parts ----------------------------------------------------------------------------------

    @property
    def status_line(self) -> StatusLine:
        return self.query_one(StatusLine)

    @property
    def body_view(self) -> BodyView:
        return self.query_one("#body-view", BodyView)

    @property
    def body_panel(self) -> BodyPanel:
        return self.query_one("#body-panel", BodyPanel)

    @property
    def image_view(self) -> ImageView:
        """The image view, made on the first image: the first screen does without it."""
        from pigeon.tui.widgets.response.image_view import ImageView

        found = self.query("#image-view").results(ImageView)
        view = next(found, None)
        if view is None:
            view = ImageView(id="image-view")
            self.query_one("#tab-body").mount(view)
        return view

    @property
    def sent_view(self) -> BodyView:
        """The request as sent, once its tab was opened."""
        return self.query_one("#sent-view", BodyView)

    @property
    def headers_table(self) -> DataTable[str]:
        return self.query_one("#headers-table", DataTable)

    def focus_tab(self) -> None:
        """Focus what the open tab shows (the body, the headers table...)."""
        pane = self.query_one(TabbedContent).active_pane
        target = next((w for w in self.screen.focus_chain if pane in w.ancestors), None)
        (target or self.body_view).focus()

    # -- public API -----------------------------------------------------------------------------

    def show_pending(self, method: str, url: str, progress: Progress | None = None) -> None:
        """A request is in flight: spinner and elapsed time (and what ``progress`` says, if
        given); the old response goes away."""
        self._reset_parts()
        self.exchange = None
        self.state = "pending"
        self.status_line.show_pending(method, url, progress)
        self.body_view.show_message("Waiting for the response…")
        if progress is not None and progress.sink is not None:
            self._live = LiveBody(
                self,
                progress.sink,
                self.body_view,
                lambda: self.events_panel,
                self.status_line,
                self._show_events,
            )

    @property
    def events_panel(self) -> EventsPanel:
        """The events panel, made for the first event stream: most responses are not one."""
        from pigeon.tui.widgets.response.events_panel import EventsPanel

        panel = next(self.query("#events-panel").results(EventsPanel), None)
        if panel is None:  # what it is given before its widgets are in, it shows once they are
            panel = EventsPanel(id="events-panel")
            self.query_one("#tab-body").mount(panel, after=self.body_panel)
        return panel

    def _show_events(self, shown: bool) -> None:
        """The events panel in place of the body (a ``text/event-stream``), or the body."""
        if shown or self.query("#events-panel"):
            self.events_panel.set_class(shown, "-shown")
        self.body_panel.display = not shown

    def show_cancelled(self, elapsed_ms: float | None = None) -> None:
        """The send was stopped ``elapsed_ms`` after it started (as its sender measured)."""
        self.state = "cancelled"
        self._stop_live()
        self.status_line.show_cancelled(elapsed_ms)
        self.body_view.show_message("The request was cancelled.")

    def show_refused(self, reason: str, last: Exchange | None) -> None:
        """A send refused before it went out (a render error, a refused file): the response
        shown before it stays (``last``, shown again if the pending state replaced it) and
        the status line says why nothing was sent."""
        if last is not None and self.exchange is not last:
            self.show_exchange(last)
        elif last is None and self.state == "pending":
            self.clear()
        self.status_line.show_refused(reason)

    def clear(self) -> None:
        self._reset_parts()
        self.exchange = None
        self.state = "empty"
        self.status_line.clear()
        self.body_view.show_message("No response yet.")
        self._after_large()

    def show_status(self, exchange: Exchange) -> None:
        """The status line of a finished exchange, alone: what a person looks at first."""
        failed = exchange.error is not None and exchange.status is None
        self.state = "error" if failed else "done"
        self.status_line.show_exchange(exchange)

    def show_exchange(self, exchange: Exchange) -> None:
        """Show a finished exchange: its response, or the error that stopped it."""
        live = self._live
        received = live.sink.events.total if live is not None else None
        if live is not None and live.kind == "text" and live.following and not exchange.is_json:
            self.body_view.open_at_end()  # lines followed to their end stay there (JSON is
            # laid out anew: it opens at its top)
        self._reset_parts()
        self.exchange = exchange
        self.body_panel.request_id = exchange.request.request_id
        self.show_status(exchange)
        events = exchange.events
        if events is None and is_event_stream(exchange.content_type) and not exchange.truncated:
            events = parse_events(exchange.body)  # from the history: decoded from its body
        if events is not None:
            self._show_events(True)
            resumed = exchange.request.header("Last-Event-ID") is not None
            self.events_panel.show(events, received, resumed)
        else:
            self._show_body(exchange)
        self._show_headers(exchange)
        self._show_sent(exchange)
        self._show_timings(exchange)
        self._after_large()

    def _after_large(self) -> None:
        """A large body was replaced: give its memory back once this one is on screen."""
        if self._give_back_due:
            self._give_back_due = False
            self.call_after_refresh(self._give_back)

    # -- filling the tabs -----------------------------------------------------------------------

    def _reset_parts(self) -> None:
        """Empty every tab. The exchange shown until now is let go of: when its body was
        large, the memory it held is handed back once the next one is shown."""
        old = self.exchange
        if old is not None and old.body_size >= LARGE_BODY:
            self._give_back_due = True
        self._stop_live()
        self._show_events(False)
        self.body_panel.reset()
        self._show_image(False)
        if "tab-sent" in self._built:
            self.query_one("#sent-panel", BodyPanel).reset()
            self.sent_view.clear()
        self._overwrite_ok = None
        self._note("")
        table = self.headers_table
        table.clear()
        tab = self.query_one(TabbedContent).get_tab("tab-headers")
        if tab.label.plain != "Headers":  # each update costs a relayout: only changes
            tab.label = "Headers"
        if "tab-timings" in self._built:
            timings = self.query_one("#timings", Static)
            if timings.content != "":
                timings.update("")

    def _stop_live(self) -> None:
        if self._live is not None:
            self._live.stop()
            self._live = None

    @work(thread=True, group="give-back", exclusive=True, exit_on_error=False)
    def _give_back(self) -> None:
        give_back()

    def _show_body(self, exchange: Exchange) -> None:
        if exchange.error is not None and exchange.status is None:
            self.body_view.show_message(f"No response: {exchange.error}")
            return
        VIEWS[body_kind(exchange)](self, exchange)

    def _show_empty(self, exchange: Exchange) -> None:
        text = f"No body ({exchange.status} {exchange.reason})".replace(" )", ")")
        self.body_view.show_message(text)

    def _show_image_body(self, exchange: Exchange) -> None:
        self._show_image(True)
        self.image_view.show(exchange)

    def _show_binary(self, exchange: Exchange) -> None:
        description = bodies.describe_binary(
            exchange.content_type, exchange.body[:65536], exchange.body_size
        )
        self.body_view.show_message(f"{description} — press s to save")
        self._show_hex(exchange, description)

    def _show_text(self, exchange: Exchange) -> None:
        text = exchange.text
        if exchange.truncated:
            self.notify(
                f"Showing the first {human_size(len(exchange.body))} of "
                f"{human_size(exchange.body_size)}; press s to save the whole body.",
                severity="warning",
            )
        kind = body_kind(exchange)
        is_json = bodies.shows_as_json(kind, exchange.content_type, text, exchange.truncated)
        if exchange.undecodable:
            count, codec = exchange.undecodable, exchange.encoding
            codec = "UTF-8" if codec.startswith("utf-8") else codec
            were = "byte was" if count == 1 else "bytes were"
            self._note(f"{count:,} {were} not valid {codec} (shown as �)")
        elif bodies.claims_binary(exchange.content_type):
            self._note(f"Sent as {printable(exchange.content_type)}, but the body is text")
        self.body_view.show_text(
            text,
            is_json=is_json,
            json_lines=exchange.content_type in bodies.JSON_LINES_TYPES,
            markup=None if is_json else bodies.markup_kind(exchange.content_type, text[:256]),
        )

    def _show_image(self, shown: bool) -> None:
        """The image view in the body tab in place of the text view, or back."""
        if not shown and not self.query("#image-view"):
            return
        image, view = self.image_view, self.body_view
        if image.has_class("-shown") != shown:
            focused = (view if shown else image).has_focus
            image.set_class(shown, "-shown")
            self.body_panel.display = not shown
            if not shown:
                image.clear()
            if focused:  # the keys stay with the body, whichever view shows it
                (image if shown else view).focus()

    @work(thread=True, group="hex-dump", exclusive=True, exit_on_error=False)
    def _show_hex(self, exchange: Exchange, description: str) -> None:
        """A binary body as a hex dump, made in a thread (its first ``HEX_LIMIT`` bytes)."""
        worker = get_current_worker()
        try:
            text = bodies.hex_dump(exchange.body, lambda: worker.is_cancelled)
        except bodies.Stopped:
            return
        self.app.call_from_thread(self._hex_ready, exchange, description, text)

    def _hex_ready(self, exchange: Exchange, description: str, text: str) -> None:
        if self.exchange is not exchange:
            return
        shown = min(len(exchange.body), bodies.HEX_LIMIT)
        part = f"its first {human_size(shown)} " if shown < exchange.body_size else ""
        self._note(f"{description}: {part}in hex — press s to save")
        self.body_view.show_text(text)

    def _note(self, text: str) -> None:
        """A line over the body about how it is shown ("" hides it)."""
        note = self.query_one("#body-note", Static)
        note.set_class(bool(text), "-shown")
        if note.content != text:
            note.update(text)

    def _show_headers(self, exchange: Exchange) -> None:
        table = self.headers_table
        for number, (name, value) in enumerate(exchange.headers):
            table.add_row(printable(name), printable(value), key=str(number))
        if exchange.headers:
            tabs = self.query_one(TabbedContent)
            tabs.get_tab("tab-headers").label = f"Headers ({len(exchange.headers)})"

    def _show_sent(self, exchange: Exchange) -> None:
        if "tab-sent" in self._built:
            self.sent_view.show_text(sent_text(exchange, reveal=self.reveal_secrets))

    def _show_timings(self, exchange: Exchange) -> None:
        if "tab-timings" not in self._built:
            return
        t = exchange.timings
        rows = [
            ("Total", t.total_ms),
            ("DNS + connect", t.connect_ms),
            ("TLS handshake", t.tls_ms),
            ("Waiting (TTFB)", t.ttfb_ms),
            ("Download", t.download_ms),
        ]
        total = t.total_ms or 0.0
        lines: list[str] = []
        for label, ms in rows:
            line = f"[b]{label:<16}[/b]{duration(ms):>10}  "
            if ms is not None and total > 0 and ms > 0:
                line += f"[$accent]{'█' * max(1, round(30 * min(ms, total) / total))}[/]"
            elif ms is None and exchange.status is not None:
                line += f"[dim]{self._why_no_time(exchange, label)}[/]"
            lines.append(line)
        lines.append("")
        lines.append(
            f"[b]{'Size':<16}[/b]{human_size(exchange.size):>10}  [dim](headers "
            f"{human_size(exchange.headers_size)}, body {human_size(exchange.body_size)}, "
            f"{human_size(exchange.wire_body_size)} on the wire)[/]"
        )
        for status, url in exchange.redirects:
            lines.append(f"[dim]Redirect {status} from {escape(url)}[/]")
        for warning in exchange.warnings:
            lines.append(f"[$warning]{escape(warning)}[/]")
        self.query_one("#timings", Static).update("\n".join(lines))

    @staticmethod
    def _why_no_time(exchange: Exchange, label: str) -> str:
        reused = exchange.timings.connect_ms is None
        if label == "DNS + connect":
            return "connection reused" if reused else ""
        if label == "TLS handshake":
            url = exchange.url or exchange.request.url
            if not url.lower().startswith("https:"):
                return "plain HTTP"
            return "connection reused" if reused else ""
        return ""

    def watch_reveal_secrets(self, reveal: bool) -> None:
        if self.exchange is not None:
            self._show_sent(self.exchange)
        self.refresh_bindings()

    # -- actions --------------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        exchange = self.exchange
        if action in ("copy_body", "save_body"):
            return exchange is not None and exchange.body_size > 0
        if action in ("copy_curl", "toggle_secrets"):
            return exchange is not None
        if action in ("diff_with", "save_example"):
            return exchange is not None and bool(exchange.request.request_id)
        if action == "body" and parameters == ("filter",):
            return self.body_view.is_json
        return True

    def action_body(self, action: str) -> None:
        """Search or filter the body from elsewhere in the pane: its tab comes to the front."""
        self.query_one(TabbedContent).active = "tab-body"
        if action == "search":
            self.body_panel.action_search()
        else:
            self.body_panel.action_filter()

    def action_diff_with(self) -> None:
        """Compare this response with one of the same request's in the history."""
        from pigeon.tui.dialogs.diff import diff_with_history

        if self.exchange is not None:
            self.run_worker(
                diff_with_history(self.app, self.exchange),
                group="diff",
                exclusive=True,
                exit_on_error=False,
            )

    @staticmethod
    def help_subgroups() -> list[tuple[str, type]]:
        from pigeon.tui.dialogs.diff import DiffScreen
        from pigeon.tui.dialogs.diff_view import DiffView

        return [("Diff of two responses", DiffScreen), ("Diff view", DiffView)]

    def _copy(self, text: str, what: str) -> None:
        """Copy ``text`` through the terminal (OSC 52), or say it is over what a terminal's
        clipboard takes: the escape would be dropped by the terminal, never copied."""
        size = len(text.encode("utf-8", "surrogateescape"))
        if size > CLIPBOARD_LIMIT:
            self.notify(
                f"{what} ({human_size(size)}) is too large for the terminal's clipboard "
                f"(OSC 52, at most {human_size(CLIPBOARD_LIMIT)} here): save it with s.",
                severity="warning",
                timeout=8,
            )
            return
        self.app.copy_to_clipboard(text)
        self.notify(f"Copied {what[0].lower()}{what[1:]} ({human_size(size)}).")

    def action_copy_body(self) -> None:
        exchange = self.exchange
        if exchange is None:
            return
        view = self.body_view
        if view.is_filtered:
            self._copy(view.text, "The filter result")
            return
        if body_kind(exchange) in ("image", "binary"):
            self.notify("The body is binary: save it with s instead.", severity="warning")
            return
        if exchange.truncated:
            self.notify("The body is too large to copy: save it with s.", severity="warning")
            return
        self._copy(exchange.text, "The body")

    def action_copy_curl(self) -> None:
        if self.exchange is None:
            return
        self.app.copy_to_clipboard(curl_command(self.exchange.request))
        self.notify("Copied the request as sent as a curl command.")

    def action_toggle_secrets(self) -> None:
        self.reveal_secrets = not self.reveal_secrets
        self.notify("Secrets shown in “As sent”." if self.reveal_secrets else "Secrets hidden.")

    def action_save_body(self) -> None:
        exchange = self.exchange
        if exchange is None:
            return
        from pigeon.tui.dialogs.prompt import PromptScreen

        name = suggested_filename(
            exchange.url or exchange.request.url,
            exchange.content_type,
            exchange.header("content-disposition"),
        )
        self._overwrite_ok = None

        def saved(value: str | None) -> None:
            if value:
                self.save_body_to(self._target(value))

        self.app.push_screen(
            PromptScreen(
                f"Save body ({human_size(exchange.body_size)}) to (a bare name goes in "
                f"{printable(str(Path.cwd()))})",
                name,
                check=self._check_target,
            ),
            saved,
        )

    def action_save_example(self) -> None:
        """Ask a name, then save this response as an example of its request."""
        exchange = self.exchange
        if exchange is None or exchange.status is None:
            self.notify("Only a response can be saved as an example.", severity="warning")
            return
        from pigeon.tui.dialogs.prompt import PromptScreen

        def named(value: str | None) -> None:
            if value and exchange is self.exchange:
                self.post_message(self.ExampleWanted(exchange, value))

        self.app.push_screen(
            PromptScreen(
                f"Save this {exchange.status} response as an example named (one of the same "
                "name is replaced)",
                "ok" if 200 <= exchange.status < 300 else str(exchange.status),
            ),
            named,
        )

    @staticmethod
    def _target(value: str) -> Path:
        return Path(value).expanduser().absolute()

    def _check_target(self, value: str) -> str | None:
        """Why the file cannot be written there, or ``None``. An existing file needs a
        second ``enter``."""
        if not value:
            return "a file name is needed"
        path = self._target(value)
        if path.is_dir():
            return f"{path} is a folder: add a file name"
        if not path.parent.is_dir():
            return f"the folder {path.parent} does not exist"
        if not os.access(path.parent, os.W_OK):
            return f"cannot write in {path.parent}"
        if path.exists() and self._overwrite_ok != path:
            self._overwrite_ok = path
            return f"{path.name} exists: press enter again to replace it"
        return None

    @work(thread=True, group="save-body", exit_on_error=False)
    def save_body_to(self, path: Path) -> None:
        """Write the body to ``path`` (in a thread: a spooled body can be large)."""
        exchange = self.exchange
        if exchange is None:
            return
        try:
            write_body(exchange, path)
        except OSError as exc:
            self.app.call_from_thread(
                self.notify, f"Not saved: {exc}", severity="error", timeout=10
            )
            return
        self.app.call_from_thread(self._saved, path)

    def _saved(self, path: Path) -> None:
        self.notify(f"Saved the body to {path}")
        self.post_message(self.BodySaved(path))


# What shows a response: by the request's kind (``model.Request.kind``; a kind not here shows
# the tabs), then by the body's (``bodies.classify_body``). A new protocol or body view is a
# row here and a method of the pane.
VIEWS: dict[str, Callable[..., Widget | None]] = {
    "websocket": ResponsePane._websocket_view,
    "grpc": ResponsePane._grpc_view,
    "empty": ResponsePane._show_empty,
    "image": ResponsePane._show_image_body,
    "binary": ResponsePane._show_binary,
    "json": ResponsePane._show_text,
    "text": ResponsePane._show_text,
}
KINDS_WITH_VIEWS = ("websocket", "grpc")  # the request kinds among VIEWS' keys

# The tabs built when first opened (``LazyTabPane``), and what each holds.
_LAZY: dict[str, Callable[[], Widget]] = {
    "tab-sent": lambda: BodyPanel(view_id="sent-view", id="sent-panel"),
    "tab-timings": lambda: VerticalScroll(Static("", id="timings")),
}
