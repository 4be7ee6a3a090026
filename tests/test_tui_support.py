"""Fixtures and helpers shared by the app's Pilot tests (no tests here)."""

from __future__ import annotations

import shutil
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import Input

from pigeon.echo import EchoServer
from pigeon.model import Request
from pigeon.session import Session, demo_collection_dir
from pigeon.tui.app import PigeonApp
from pigeon.tui.screens.main import MainScreen
from pigeon.tui.themes import bundled_theme_dirs
from pigeon.tui.widgets.collection_tree import CollectionTree
from pigeon.tui.widgets.request_editor import RequestEditor

__all__ = ["app_fixture", "collection_fixture", "echo_fixture", "private_config_fixture"]
"""What ``from test_tui_support import *`` brings in: the fixtures, so pytest finds them."""

DEMO = demo_collection_dir()


@pytest.fixture(name="private_config", autouse=True)
def private_config_fixture(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Trust decisions and the config file go to a temporary folder, never the user's."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))


@pytest.fixture(name="echo")
def echo_fixture():
    server = EchoServer("127.0.0.1", 0).start()
    yield server
    server.stop()


@pytest.fixture(name="collection")
def collection_fixture(tmp_path: Path) -> Path:
    """A copy of the demo collection (saves must not touch the repo) plus one broken file."""
    assert DEMO is not None
    root = tmp_path / "demo"
    shutil.copytree(DEMO, root, ignore=shutil.ignore_patterns(".pigeon"))  # not its history
    (root / "users" / "broken.toml").write_text('name = "Broken"\nmethod = \n', encoding="utf-8")
    return root


def make_app(root: Path, echo: EchoServer, env: str | None = None) -> PigeonApp:
    session = Session.open(root, env)
    session.overrides["base_url"] = echo.url
    return PigeonApp(session, theme_dirs=bundled_theme_dirs(), remember_theme=False)


def main_screen(app: PigeonApp) -> MainScreen:
    screen = app.screen
    assert isinstance(screen, MainScreen), screen
    return screen


async def open_request(pilot, request_id: str) -> Request:
    """Highlight a request in the tree, as the arrow keys would, and press enter."""
    screen = main_screen(pilot.app)
    tree = screen.query_one(CollectionTree)
    tree.focus()
    node = next(
        n for n in tree._all_nodes() if isinstance(n.data, Request) and n.data.id == request_id
    )
    tree.move_cursor(node)
    await pilot.pause()
    await pilot.press("enter")
    await pilot.pause()
    editor = screen.query_one(RequestEditor)
    assert editor.request is not None and editor.request.id == request_id
    return editor.request


async def replace_url(pilot, text: str) -> None:
    await pilot.press("ctrl+l")
    url = pilot.app.screen.query_one("#url", Input)
    assert pilot.app.focused is url
    await pilot.press("ctrl+u", "end", "ctrl+u")  # clear the line
    await pilot.press(*text)
    await pilot.pause()


@pytest.fixture(name="app")
def app_fixture(collection: Path, echo: EchoServer) -> PigeonApp:
    """The app on the demo copy, talking to the echo server; not yet running."""
    return make_app(collection, echo)


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
    """Press ``keys`` and wait until what they started has finished and is on screen."""
    await pilot.press(*keys)
    await pilot.pause()
    await settle(pilot)


async def show_tab(pilot: Pilot, tab_id: str) -> MainScreen:
    """Bring the request editor's tab ``tab_id`` (``tab-body``, ``tab-auth``...) to the front."""
    screen = main_screen(pilot.app)
    screen.query_one("#editor-tabs").active = tab_id
    await pilot.pause()
    return screen
