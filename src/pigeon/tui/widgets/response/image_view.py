"""An image body: one line saying what it is, a line saying why it is not drawn (if it is
not), and the picture when the terminal can draw one (through textual-image).

The first line comes from the image's header at once; Pillow then reads the body in a thread
(within ``pigeon.bodies.image``'s bounds) for the frames and whether it decodes, and makes
the small copy that is drawn. Nothing is imported for images before the first one.
"""

from __future__ import annotations

import contextlib
import sys
from typing import TYPE_CHECKING

from textual import work
from textual.app import ComposeResult
from textual.containers import Container, Vertical
from textual.message import Message
from textual.widgets import Static
from textual.worker import get_current_worker

from pigeon.bodies.image import ImageFacts, header_facts, inspect_image
from pigeon.terminal import printable
from pigeon.tui.css import beside
from pigeon.tui.widgets.response.graphics import Graphics, image_widget, terminal_graphics

if TYPE_CHECKING:
    from textual_image.widget._base import Image as ImageWidget

    from pigeon.exchange import Exchange


class ImageView(Vertical, can_focus=True):
    """Shows an image body, described and, where the terminal can, drawn."""

    DEFAULT_CSS = beside(__file__)

    class Inspected(Message):
        """Pillow has read the image: ``facts`` say what it is, ``drawn`` whether it shows."""

        def __init__(self, view: ImageView, facts: ImageFacts, drawn: bool) -> None:
            super().__init__()
            self.view, self.facts, self.drawn = view, facts, drawn

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.graphics: Graphics | None = None
        """How this terminal draws images; judged on the first image unless set."""
        self.description = ""
        self.why_not_drawn = ""
        self.drawn = False
        self._generation = 0
        self._ready = False  # mounted, its parts composed
        self._waiting: Exchange | None = None  # shown before that

    def on_mount(self) -> None:
        self._ready = True
        if self._waiting is not None:
            self.show(self._waiting)

    def compose(self) -> ComposeResult:
        yield Static("", id="image-caption", markup=False)
        yield Static("", id="image-why", markup=False)
        yield Container(id="image-picture")

    def show(self, exchange: Exchange) -> None:
        """Describe ``exchange``'s image body at once, then read and draw it in a thread."""
        if not self._ready:
            self._waiting = exchange
            return
        self._waiting = None
        self._generation += 1
        self._clear_picture()
        graphics = self._judge()
        facts = header_facts(exchange.body[:65536]) or ImageFacts("Unknown")
        self._caption(facts.describe(exchange.body_size, exchange.content_type), "")
        self._inspect(exchange, graphics, self._generation)

    def clear(self) -> None:
        self._waiting = None
        self._generation += 1
        self.workers.cancel_group(self, "image-inspect")
        self._clear_picture()
        self._caption("", "")

    def _judge(self) -> Graphics:
        if self.graphics is None:
            setting = getattr(getattr(self.app, "config", None), "images", "auto")
            stdout = sys.__stdout__
            tty = not self.app.is_headless and stdout is not None and stdout.isatty()
            self.graphics = terminal_graphics(setting, tty=tty)
        return self.graphics

    @work(thread=True, group="image-inspect", exclusive=True, exit_on_error=False)
    def _inspect(self, exchange: Exchange, graphics: Graphics, generation: int) -> None:
        worker = get_current_worker()
        protocol = graphics.protocol
        facts = inspect_image(
            exchange.body,
            complete=not exchange.truncated,
            decode=protocol is not None,
            cancelled=lambda: worker.is_cancelled,
        )
        widget, why = None, graphics.reason
        if protocol and facts.picture is not None:
            try:
                widget = image_widget(protocol)
            except Exception as exc:  # noqa: BLE001 - a broken install must not stop the app
                why = f"textual-image did not load ({printable(str(exc))[:120]})"
        if facts.problem:
            why = ""  # the description says what is wrong with the image
        if not worker.is_cancelled:
            self.app.call_from_thread(self._inspected, exchange, facts, widget, why, generation)

    def _inspected(
        self,
        exchange: Exchange,
        facts: ImageFacts,
        widget: type[ImageWidget] | None,
        why: str,
        generation: int,
    ) -> None:
        if generation != self._generation:
            return
        why = f"Not drawn: {why}" if why and widget is None else ""
        self._caption(facts.describe(exchange.body_size, exchange.content_type), why)
        if widget is not None:
            self.query_one("#image-picture").mount(widget(facts.picture))
            self.drawn = True
        self.post_message(self.Inspected(self, facts, self.drawn))

    def _caption(self, description: str, why: str) -> None:
        self.description, self.why_not_drawn = description, why
        self.query_one("#image-caption", Static).update(description)
        note = self.query_one("#image-why", Static)
        note.update(why)
        note.set_class(bool(why), "-shown")

    def _clear_picture(self) -> None:
        """Take the picture away, and out of the terminal's memory (kitty keeps images)."""
        self.drawn = False
        holder = self.query_one("#image-picture")
        for picture in holder.children:
            with contextlib.suppress(Exception):
                picture.image = None  # type: ignore[attr-defined]
        holder.remove_children()
