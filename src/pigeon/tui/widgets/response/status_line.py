"""One line above the response: status and its class, time, size and protocol; the error of a
failed send; a spinner with the elapsed time while a request is in flight."""

from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING, ClassVar, Literal

from rich.style import Style
from rich.text import Text
from textual.reactive import reactive
from textual.timer import Timer
from textual.widget import Widget

from pigeon.bodies import human_size
from pigeon.terminal import printable
from pigeon.tui.css import beside
from pigeon.tui.format import duration, status_kind, status_parts
from pigeon.tui.painted import Painted, draw_now

if TYPE_CHECKING:
    from pigeon.exchange import Exchange, Progress

State = Literal["empty", "pending", "done", "error", "cancelled"]

WRITER_MOMENT = 0.002  # seconds the line drawn at once is given to reach the terminal
SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
SEPARATOR = " · "


class StatusLine(Widget):
    """The response's headline. Colours come from component classes, so themes apply."""

    DEFAULT_CSS = beside(__file__)

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "status-line--info",
        "status-line--success",
        "status-line--redirect",
        "status-line--client-error",
        "status-line--server-error",
        "status-line--error",
        "status-line--muted",
        "status-line--pending",
        "status-line--cancelled",
    }

    state: reactive[State] = reactive("empty")

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self._exchange: Exchange | None = None
        self._request = ""
        self._method = ""
        self._started = 0.0
        self._elapsed: float | None = None
        self._frame = 0
        self._timer: Timer | None = None
        self._progress: Progress | None = None
        self._refused = ""  # why the last send was not sent; shown until the next change
        self.live_note = ""  # what a live body holds so far ("120 lines"), read on each tick
        self._painted = Painted()

    async def painted(self, timeout: float = 0.1) -> None:
        """Draw the line now and return once it is drawn (at most ``timeout`` seconds): a
        send's status is what a person waits for, it does not wait for the next frame."""
        drawn = self._drawn
        draw_now(self)
        if self._drawn == drawn:  # not drawn yet: with the next frame
            await self._painted.wait(self, timeout)
        else:  # Textual's writer thread needs the GIL to write it out: a moment for it
            await asyncio.sleep(WRITER_MOMENT)

    # -- updates ------------------------------------------------------------------------------

    def show_exchange(self, exchange: Exchange) -> None:
        self._stop_timer()
        self._refused = ""
        self._exchange = exchange
        self.state = "error" if exchange.error and exchange.status is None else "done"
        self._refresh_lines()

    def show_pending(self, method: str, url: str, progress: Progress | None = None) -> None:
        """In flight; ``progress``, when given, is read on every tick to show the phase, the
        bytes received so far and the URL as the pipeline rendered it (``url`` until then)."""
        self._progress = progress
        self.live_note = ""
        self._exchange = None
        self._refused = ""
        self._method = method
        self._request = f"{method} {url}".strip()
        self._started = time.monotonic()
        self._elapsed = None
        self._frame = 0
        self.state = "pending"
        if self._timer is None:
            self._timer = self.set_interval(0.1, self._tick)
        self._refresh_lines()

    def show_cancelled(self, elapsed_ms: float | None = None) -> None:
        """Stopped after ``elapsed_ms`` (by default: since the spinner started)."""
        if elapsed_ms is None and self.state == "pending":
            elapsed_ms = (time.monotonic() - self._started) * 1000
        self._elapsed = elapsed_ms
        self._stop_timer()
        self._refused = ""
        self.state = "cancelled"
        self._refresh_lines()

    def show_refused(self, reason: str) -> None:
        """A send that never went out: why, ahead of the response that is still shown.
        ``reason`` is the whole sentence ("Not sent: ..."), as the session and the GraphQL
        check word it: the line adds no prefix of its own."""
        self._stop_timer()
        self._refused = reason
        self._refresh_lines()

    def clear(self) -> None:
        self._stop_timer()
        self._refused = ""
        self._exchange = None
        self.state = "empty"
        self._refresh_lines()

    def _refresh_lines(self) -> None:
        """Redraw; lay the pane out again only when the line takes a different number of
        rows (a long error wraps), which a send that succeeds mostly does not."""
        width = self.content_region.width
        rows = len(self._text().wrap(self.app.console, width)) if width > 0 else 1
        self.refresh(layout=rows != self.content_region.height)

    def _tick(self) -> None:
        self._frame += 1
        self.refresh()

    def _stop_timer(self) -> None:
        if self._timer is not None:
            self._timer.stop()
            self._timer = None

    # -- rendering ----------------------------------------------------------------------------

    def _progress_text(self) -> str:
        progress = self._progress
        if progress is None:
            return ""
        if progress.phase == "sending" and progress.bytes_to_send:  # a file body going out
            sent, total = human_size(progress.bytes_sent), human_size(progress.bytes_to_send)
            return f"{SEPARATOR}{sent} of {total} sent"
        if progress.phase == "receiving" or progress.bytes_received:
            got = human_size(progress.bytes_received)
            live = f"{SEPARATOR}{self.live_note}{SEPARATOR}esc stops" if self.live_note else ""
            if progress.content_length:
                return f"{SEPARATOR}{got} of {human_size(progress.content_length)}{live}"
            return f"{SEPARATOR}{got} received{live}"
        return f"{SEPARATOR}{progress.phase}" if progress.phase != "done" else ""

    @property
    def plain(self) -> str:
        """The line as plain text."""
        return self._text().plain

    def _style(self, name: str) -> Style:
        return self.get_component_rich_style(f"status-line--{name}", partial=True)

    _drawn = 0  # how many times the line was drawn

    def render(self) -> Text:
        self._drawn += 1
        self._painted.resolve()  # the frame being drawn holds the line as it is now
        return self._text()

    def _text(self) -> Text:
        """The line as it is now, with why the last send was refused ahead of it; an error or
        a long status wraps, in flight it is one line."""
        line = self._line()
        if self._refused:
            head = Text(f"✖ {printable(self._refused)}", style=self._style("error"))
            line = Text.assemble(head, (SEPARATOR, self._style("muted")), line)
            line.overflow = "fold"
        return line

    def _line(self) -> Text:
        muted = self._style("muted")
        if self.state == "pending":
            spinner = SPINNER[self._frame % len(SPINNER)]
            elapsed = duration((time.monotonic() - self._started) * 1000)
            rendered = getattr(self._progress, "url", "")
            return Text.assemble(
                (f"{spinner} ", self._style("pending")),
                (f"{self._method} {rendered}" if rendered else self._request, ""),
                (f"{SEPARATOR}{elapsed}{self._progress_text()}", muted),
                no_wrap=True,
                overflow="ellipsis",
            )
        if self.state == "cancelled":
            after = f" after {duration(self._elapsed)}" if self._elapsed is not None else ""
            return Text.assemble(
                ("■ Cancelled", self._style("cancelled")), (after, muted), no_wrap=True
            )
        exchange = self._exchange
        if self.state == "error" and exchange is not None:
            text = Text(f"✖ {exchange.error}", style=self._style("error"), overflow="fold")
            if exchange.timings.total_ms:
                text.append(f"{SEPARATOR}{duration(exchange.timings.total_ms)}", muted)
            return text
        if self.state == "done" and exchange is not None:
            kind = self._style(status_kind(exchange.status))
            head, *rest = status_parts(exchange)
            text = Text(overflow="fold")
            text.append(head, kind + Style(bold=True))
            if rest and exchange.status_class:
                text.append(SEPARATOR, muted)
                text.append(rest.pop(0), kind)
            for part in rest:
                text.append(f"{SEPARATOR}{part}", muted)
            if exchange.redirects:
                count = len(exchange.redirects)
                text.append(f"{SEPARATOR}{count} redirect{'s' if count != 1 else ''}", muted)
            for warning in exchange.warnings:
                text.append(f"{SEPARATOR}⚠ {warning}", self._style("error"))
            if exchange.error:
                text.append(f"{SEPARATOR}✖ {exchange.error}", self._style("error"))
            if stopped := getattr(exchange, "stopped", ""):
                text.append(f"{SEPARATOR}■ {stopped}", self._style("cancelled"))
            return text
        return Text("No response yet", style=muted, no_wrap=True)
