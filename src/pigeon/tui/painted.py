"""Waiting for a widget to be drawn: a widget resolves its waiters when it renders, which
Textual does while composing the frame it then writes to the terminal."""

from __future__ import annotations

import asyncio

from textual.widget import Widget


class Painted:
    """The waiters of one widget: ``wait`` from a task, ``resolve`` from the widget's
    ``render`` (or ``render_lines``)."""

    def __init__(self) -> None:
        self._waiting: list[asyncio.Future[None]] = []

    async def wait(self, widget: Widget, timeout: float) -> None:
        """Return once ``widget`` has been drawn as it is now, or after ``timeout`` seconds (a
        hidden widget is not drawn)."""
        painted = asyncio.get_running_loop().create_future()
        self._waiting.append(painted)
        widget.refresh()
        await asyncio.wait([painted], timeout=timeout)

    def resolve(self) -> None:
        for painted in self._waiting:
            if not painted.done():
                painted.set_result(None)
        self._waiting.clear()


def draw_now(widget: Widget) -> None:
    """Draw ``widget`` on the terminal now, alone, instead of with the screen's next frame (up
    to 1/60 s later); unless the screen is to be laid out again first or is not drawing
    (another screen on top, the start-up batch)."""
    screen = widget.screen
    if screen.is_current and not screen._layout_required and not widget.app._batch_count:
        widget.refresh()
        screen._compositor.update_widgets({widget})
        screen._compositor_refresh()
