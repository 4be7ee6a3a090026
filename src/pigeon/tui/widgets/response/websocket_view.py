"""A WebSocket request in the response pane: its connection's state, the live log of frames,
its saved messages and a composer (DESIGN §9).

The connection is made by ``Session.connect``, the pipeline ``pigeon run`` takes (pre-request
scripts, the trust gate, render; post-response scripts and history when it ends): this view
draws its link and sends what the user picks or types, rendered. The link runs in a thread
worker on an event loop of its own, so a server flooding frames never holds the UI loop: the link reports changes from
there, and the view redraws at most every ``REDRAW_EVERY`` seconds from a snapshot of the log.
Sending, pinging and closing are coroutines handed to that loop.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import copy
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from pigeon.terminal import printable
from pigeon.tui.css import beside
from pigeon.tui.session_of import session_of
from pigeon.tui.widgets.response.frame_log import FrameLog
from pigeon.tui.widgets.response.message_composer import MessageComposer

if TYPE_CHECKING:
    from pigeon.model import Request
    from pigeon.scopes import Scopes
    from pigeon.session import Connection, Session

REDRAW_EVERY = 0.05  # seconds between redraws while frames arrive


def parse_close(text: str) -> tuple[int, str] | str:
    """``"4000 going away"`` -> ``(4000, "going away")``; a message when it is not that."""
    code, _, reason = text.strip().partition(" ")
    if not code.isdigit():
        return "start with a close code: 1000, or 3000-4999"
    value = int(code)
    if not (
        value in (1000, 1001, 1002, 1003, 1007, 1008, 1009, 1010, 1011) or 3000 <= value <= 4999
    ):
        return f"{value} is not a code a client may send (1000, 1001, 1008, 3000-4999...)"
    if len(reason.strip().encode()) > 123:
        return "a close reason holds at most 123 bytes"
    return value, reason.strip()


class WebSocketView(Vertical):
    DEFAULT_CSS = beside(__file__)
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("p", "ping", "Ping", id="websocket.ping", tooltip="Ping: the round trip's time"),
        Binding(
            "x",
            "close_with_code",
            "Close…",
            id="websocket.close",
            tooltip="Close the connection with a code and reason",
        ),
        Binding("i", "compose", "Write", id="websocket.compose", tooltip="Write a message"),
    ]

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.request: Request | None = None
        self.connection: Connection | None = None  # the latest, open or done
        self._loop: asyncio.AbstractEventLoop | None = None  # the link's
        self._link_task: asyncio.Task[None] | None = None
        self._redraw_due = False
        self._told = False  # the connection's failure was notified
        self._scripted: Connection | None = None  # the connection whose scripts were started

    @property
    def session(self) -> Session:
        return session_of(self)

    @property
    def link(self) -> Any:
        """The connection's ``WebSocketLink``, or ``None``."""
        return self.connection.link if self.connection is not None else None

    def compose(self) -> ComposeResult:
        yield Static("", id="ws-state", markup=False)
        yield FrameLog(id="ws-log")
        yield OptionList(id="ws-saved", compact=True)
        yield MessageComposer(self._scopes, id="ws-composer")

    def on_mount(self) -> None:
        self._show_request()

    # -- parts ------------------------------------------------------------------------------

    @property
    def frame_log(self) -> FrameLog:
        return self.query_one(FrameLog)

    @property
    def state_line(self) -> str:
        return str(self.query_one("#ws-state", Static).render())

    @property
    def is_open(self) -> bool:
        return self.link is not None and self.link.state in ("connecting", "open", "closing")

    def _scopes(self) -> Scopes | None:
        """What the composer completes from."""
        return self.session.scopes_for(self.request) if self.request is not None else None

    # -- the request shown ----------------------------------------------------------------------

    def load(self, request: Request) -> None:
        """Show ``request``; a connection of another request is closed (1001, going away)."""
        same = self.request is not None and (self.request.id or None) == (request.id or None)
        if not same and self.is_open:
            self._call(lambda link: link.close(1001, "going away"))
            self.connection = None
        self.request = request
        if self.is_mounted:
            self._show_request(keep_log=same)

    def _show_request(self, keep_log: bool = False) -> None:
        request = self.request
        saved = self.query_one("#ws-saved", OptionList)
        saved.clear_options()
        messages = request.websocket.messages if request is not None else []
        for i, message in enumerate(messages):
            body = printable(message.body.strip().split("\n", 1)[0])[:40]
            saved.add_option(Option(f"{printable(message.name)}  {body}", id=str(i)))
        saved.set_class(not messages, "-empty")
        if messages:
            saved.highlighted = 0
        if not keep_log and self.link is None:
            self.frame_log.clear()
        self._show_state()

    def _show_state(self) -> None:
        link, request = self.link, self.request
        state = self.query_one("#ws-state", Static)
        if link is None:
            url = printable(request.url) if request is not None else ""
            state.update(f"○ not connected · ctrl+r connects · {url}")
            state.set_classes("")
            return
        mark = {"open": "●", "failed": "✘", "connecting": "…", "closing": "…"}.get(link.state, "○")
        counts = f"{link.sent} sent, {link.received} received"
        state.update(
            f"{mark} {printable(link.status_line())} · {counts} · {printable(link.handshake.url)}"
        )
        state.set_classes(f"-{link.state}")

    # -- connecting ------------------------------------------------------------------------------

    def toggle(self, request: Request, trusted: Callable[[Request], Awaitable[bool]]) -> None:
        """The send key: connect (``trusted`` asks, as for a send, whether the collection is
        trusted), or close (1000) an open connection."""
        self.load(request)
        if self.is_open:
            self._call(lambda link: link.close(1000, ""))
        else:
            self._connect(copy.deepcopy(request), trusted)

    @work(group="websocket-connect", exclusive=True, exit_on_error=False)
    async def _connect(
        self, request: Request, trusted: Callable[[Request], Awaitable[bool]]
    ) -> None:
        connection = await self.session.connect(
            request, await trusted(request), on_change=self._link_changed
        )
        result, link = connection.result, connection.link
        for problem in result.script_errors:
            self.notify(printable(problem.summary()), title="Script error", severity="error")
        if link is None:
            why = printable((result.error or "not built").removeprefix("not sent: "))
            self.notify(f"Not connected: {why}", severity="error", timeout=8)
            return
        self.connection, self._told = connection, False
        self.frame_log.clear()
        self._show_state()
        self.run_worker(
            lambda: self._run(connection), thread=True, group="websocket", exit_on_error=False
        )

    def _run(self, connection: Connection) -> None:
        """The link's whole life, on an event loop of this thread's own; then ``finish``."""
        assert connection.link is not None
        loop = asyncio.new_event_loop()
        try:
            self._loop = loop
            self._link_task = loop.create_task(connection.link.run())
            loop.run_until_complete(self._link_task)
        finally:
            if self._loop is loop:
                self._loop = None
            loop.close()
            self.post_message(self.LinkDone(connection))

    class LinkDone(Message):
        """The connection's link ended (posted from its thread)."""

        def __init__(self, connection: Connection) -> None:
            super().__init__()
            self.connection = connection

    @dataclass
    class Finished(Message):
        """A connection ended and was recorded in the history (``Session.connect``)."""

        connection: Connection

    def on_web_socket_view_link_done(self, event: LinkDone) -> None:
        event.stop()
        self._finish(event.connection)

    @work(group="websocket-finish", exit_on_error=False)
    async def _finish(self, connection: Connection) -> None:
        """The post-response scripts that have not run, and the history: in the pipeline."""
        await connection.finish()
        self.post_message(self.Finished(connection))

    def _link_changed(self) -> None:
        """From the link's thread: redraw soon, once however many changes come meanwhile."""
        if self._redraw_due:
            return
        self._redraw_due = True
        self.post_message(self.LinkChanged())  # post_message is safe from another thread

    class LinkChanged(Message):
        """The connection changed (posted from the link's thread)."""

    def on_web_socket_view_link_changed(self, event: LinkChanged) -> None:
        event.stop()
        self.set_timer(REDRAW_EVERY, self._redraw)

    def _redraw(self) -> None:
        self._redraw_due = False
        link = self.link
        if link is None:
            return
        self.frame_log.update(list(link.log), link.frames_total)
        self._show_state()
        if link.state == "open" and self.connection is not self._scripted:
            self._scripted = self.connection
            self._run_scripts(self.connection)
        if link.state == "failed" and link.error and not self._told:
            self._told = True  # once: the state line keeps it
            self.notify(printable(link.error), title="WebSocket", severity="error", timeout=8)

    @work(group="websocket-script", exit_on_error=False)
    async def _run_scripts(self, connection: Connection | None) -> None:
        """The request's post-response scripts, once connected, with ``pigeon.ws`` served by
        the link on its own loop (as ``pigeon run`` runs them); their output goes to the log
        (f2)."""
        loop = self._loop
        if connection is None or loop is None:
            return

        async def ws(call: tuple[Any, ...]) -> Any:
            future = asyncio.run_coroutine_threadsafe(connection.serve(call), loop)
            return await asyncio.wrap_future(future)

        outcome = await connection.run_scripts(ws)
        if outcome is None and "post_response" in connection.result.scripts_skipped:
            self.notify("Post-response scripts skipped: the collection is not trusted")
        if outcome is not None:
            said = [p.summary() for p in outcome.errors]
            for summary in said + [p.summary() for p in outcome.assertion_failures]:
                self.notify(printable(summary), title="Script error", severity="error")

    def _call(self, make: Any) -> concurrent.futures.Future[Any] | None:
        """Run ``make(link)`` (a coroutine) on the link's loop; ``None`` when not connected."""
        link, loop = self.link, self._loop
        if link is None or loop is None or loop.is_closed():
            return None
        with contextlib.suppress(RuntimeError):
            return asyncio.run_coroutine_threadsafe(make(link), loop)
        return None

    async def _result(self, make: Any, what: str) -> Any:
        future = self._call(make)
        if future is None:
            self.notify(f"Not {what}: not connected (ctrl+r connects)", severity="warning")
            return None
        try:
            return await asyncio.wrap_future(future)
        except (ConnectionError, ValueError) as exc:
            self.notify(f"Not {what}: {printable(str(exc))}", severity="error", timeout=8)
        return None

    def stop(self) -> None:
        """Drop the connection now (the app is closing)."""
        loop, task = self._loop, self._link_task
        if loop is not None and task is not None:
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(task.cancel)

    def on_unmount(self) -> None:
        self.stop()

    # -- sending -------------------------------------------------------------------------------

    def _rendered(self, text: str) -> str:
        """``text`` rendered as the connection renders its messages."""
        if self.connection is None:
            return text
        rendered, unresolved = self.connection.message(text)
        if unresolved:
            names = ", ".join(unresolved)
            self.notify(f"Sent with {{{{{names}}}}} unresolved", severity="warning")
        return rendered

    @work(group="websocket-send", exit_on_error=False)
    async def send_text(self, text: str) -> None:
        """Send ``text`` with its placeholders rendered now."""
        rendered = self._rendered(text)
        await self._result(lambda link: link.send_text(rendered), "sent")

    def on_message_composer_send(self, event: MessageComposer.Send) -> None:
        event.stop()
        self.send_text(event.text)

    def on_message_composer_send_saved(self, event: MessageComposer.SendSaved) -> None:
        event.stop()
        self._send_saved(self.query_one("#ws-saved", OptionList).highlighted)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option.id is not None:
            self._send_saved(int(event.option.id))

    def _send_saved(self, index: int | None) -> None:
        """Send the request's saved message ``index``, rendered; none chosen: say so."""
        messages = self.request.websocket.messages if self.request is not None else []
        if index is None or not 0 <= index < len(messages):
            self.notify("Nothing to send: write a message or pick a saved one", severity="warning")
            return
        self.send_text(messages[index].body)

    @work(group="websocket-send", exit_on_error=False)
    async def action_ping(self) -> None:
        rtt = await self._result(lambda link: link.ping(), "pinged")
        if rtt is not None:
            self.notify(f"Pong after {rtt:.1f} ms", title="WebSocket")

    def action_close_with_code(self) -> None:
        from pigeon.tui.dialogs.prompt import PromptScreen

        if not self.is_open:
            self.notify("Not connected (ctrl+r connects)", severity="warning")
            return

        def check(text: str) -> str | None:
            answer = parse_close(text)
            return answer if isinstance(answer, str) else None

        def closed(text: str | None) -> None:
            answer = parse_close(text) if text is not None else None
            if isinstance(answer, tuple):
                code, reason = answer
                self._call(lambda link: link.close(code, reason))

        screen = PromptScreen("Close with code and reason", "1000 ", "4000 done", check)
        self.app.push_screen(screen, closed)

    def action_compose(self) -> None:
        self.query_one(MessageComposer).focus()
