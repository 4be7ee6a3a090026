"""Helpers shared by the app's Pilot tests; their fixtures are in ``conftest.py`` beside this."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path

from textual import events
from textual.app import App
from textual.geometry import Offset
from textual.keys import _character_to_key
from textual.pilot import Pilot
from textual.widgets import Input

from pigeon.echo import EchoServer
from pigeon.model import Request
from pigeon.session import Session, demo_collection_dir
from pigeon.tui.app import PigeonApp
from pigeon.tui.screens.main import MainScreen
from pigeon.tui.themes import bundled_theme_dirs
from pigeon.tui.widgets.collection.collection_tree import CollectionTree
from pigeon.tui.widgets.editor.request_editor import RequestEditor

DEMO = demo_collection_dir()


def make_app(root: Path, echo: EchoServer, env: str | None = None) -> PigeonApp:
    session = Session.open(root, env)
    session.overrides["base_url"] = echo.url
    return PigeonApp(session, theme_dirs=bundled_theme_dirs(), remember_theme=False)


def main_screen(app: PigeonApp) -> MainScreen:
    screen = app.screen
    assert isinstance(screen, MainScreen), screen
    return screen


async def open_request(pilot, request_id: str) -> Request:
    """Highlight a request in the tree, as the arrow keys would, and press enter (or, when a
    narrow screen hides the tree, choose it as enter does)."""
    screen = main_screen(pilot.app)
    tree = screen.query_one(CollectionTree)
    tree.focus()
    node = next(
        n for n in tree._all_nodes() if isinstance(n.data, Request) and n.data.id == request_id
    )
    tree.move_cursor(node)
    await pilot.pause()
    if tree.has_focus:
        await pilot.press("enter")
    else:  # a narrow screen hides the tree: choose the request as enter would
        tree.post_message(CollectionTree.RequestChosen(node.data))
    editor = screen.query_one(RequestEditor)
    await wait_for(pilot, lambda: editor.request is not None and editor.request.id == request_id)
    return editor.request


async def replace_url(pilot, text: str) -> None:
    await pilot.press("ctrl+l")
    url = pilot.app.screen.query_one("#url", Input)
    assert pilot.app.focused is url
    await pilot.press("ctrl+u", "end", "ctrl+u")  # clear the line
    await pilot.press(*text)
    await pilot.pause()


async def paste_url(pilot: Pilot, text: str) -> None:
    """Clear the URL bar and paste ``text`` into it, as a terminal's bracketed paste: for a
    test about what a URL does, not how it is typed (typing one costs a wait per key)."""
    await pilot.press("ctrl+l")
    url = pilot.app.screen.query_one("#url", Input)
    assert pilot.app.focused is url
    await pilot.press("ctrl+u", "end", "ctrl+u")  # clear the line
    event = events.Paste(text)
    event.set_sender(pilot.app)
    pilot.app.post_message(event)
    editor = pilot.app.screen.query_one(RequestEditor)
    await wait_for(pilot, lambda: url.value == text)
    # The edit reaches the request through the bar's message: wait for it to land there.
    await wait_for(pilot, lambda: editor.request is None or editor.request.url == text)
    await pilot.pause()


@asynccontextmanager
async def running(
    app: PigeonApp, request_id: str | None = None, size: tuple[int, int] = (120, 40)
) -> AsyncIterator[Pilot]:
    """Run ``app`` under Pilot, with ``request_id`` open in the editor when one is given."""
    async with app.run_test(size=size) as pilot:
        if request_id is not None:
            await open_request(pilot, request_id)
        yield pilot


async def settle(pilot: Pilot) -> None:
    """Wait for the app's workers (a send, a body build) and the refresh that shows their end."""
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


async def press_and_settle(pilot: Pilot, *keys: str) -> None:
    """Press ``keys`` and wait until what they started has finished and is on screen.
    ``pilot.press`` waits for the process to look idle, which a loaded machine makes it look
    before the keys have reached their bindings: wait for the app to have handled them, so a
    send they start is among the workers waited for."""
    await pilot.press(*keys)
    await pilot.pause()
    app = pilot.app
    await wait_for(pilot, lambda: not getattr(app, "keys_pending", False))
    await settle(pilot)


async def show_tab(pilot: Pilot, tab_id: str) -> MainScreen:
    """Bring the request editor's tab ``tab_id`` (``tab-body``, ``tab-auth``...) to the front,
    built and showing the request. Most tabs are built when first opened: the editor mounts
    the tab's part, then shows the request in it, in one handler; once the part is in the tab,
    a pause (which waits for each widget to handle what it was given) waits for that end."""
    screen = main_screen(pilot.app)
    tabs = screen.query_one("#editor-tabs")
    tabs.active = tab_id
    pane = tabs.query_one(f"#{tab_id}")
    await wait_for(pilot, lambda: bool(pane.children))
    await pilot.pause()
    return screen


async def wait_for(pilot: Pilot, condition: Callable[[], object], timeout: float = 20.0) -> None:
    """Pause until ``condition()`` holds, failing after ``timeout`` seconds: work that runs in
    the background (a body build, the palette's search) ends when it ends."""
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out waiting"
        # The app runs on this loop: sleeping lets it work. (``pilot.pause`` would first visit
        # every widget of the screen, about 6 ms of CPU a poll.)
        await asyncio.sleep(0.01)


def burst(app: App[object], *keys: str) -> None:
    """Post ``keys`` to the app in one go, as a terminal does for a paste or a macro: none is
    handled before the last is in the queue (``pilot.press`` waits after each key)."""
    for key in keys:
        char = key if len(key) == 1 else None
        name = _character_to_key(key) if char is not None and not key.isalnum() else key
        event = events.Key(name, char)
        event.set_sender(app)
        app.post_message(event)


async def click_in_a_row(pilot: Pilot, point: Offset, times: int) -> None:
    """Press and release the mouse ``times`` times at ``point`` of the screen in one go, as a
    terminal reports a fast double- or triple-click, and wait until the app has handled it.
    The app makes each release a click numbered in its chain (1, 2, 3: a double-click is the
    second), as it does for a terminal; ``pilot.click`` waits for the whole screen to be idle
    before each of its events, nine waits for a triple-click where two do."""
    app = pilot.app
    x, y = point
    place = {"x": x, "y": y, "delta_x": 0, "delta_y": 0, "button": 1, "shift": False}
    place |= {"meta": False, "ctrl": False, "screen_x": x, "screen_y": y}
    for _ in range(times):
        for kind in (events.MouseDown, events.MouseUp):
            event = kind(widget=None, **place)
            event.set_sender(app)
            app.post_message(event)
    await pilot.pause()  # the app has passed each event on (its wait is queued behind them)
    await pilot.pause()  # and the widgets have handled them
