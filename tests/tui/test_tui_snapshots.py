"""SVG snapshots of the main screen (60x20, 80x24 and 120x40) and the help screen.

The demo opens without an echo server and with its ``local`` environment, so no port, path
or clock reaches the screen. Update with ``pytest --snapshot-update`` after a deliberate
change, and look at the new SVGs before committing them.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from pigeon.model import Request
from pigeon.session import Session, demo_collection_dir
from pigeon.tui.app import PigeonApp
from pigeon.tui.themes import bundled_theme_dirs
from pigeon.tui.widgets.collection.collection_tree import CollectionTree


@pytest.fixture(autouse=True)
def _private_config(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))


def demo_app(tmp_path: Path) -> PigeonApp:
    """The app on a copy of the demo: what a run of the app left in the demo (its history, a
    remembered choice) never shows in a picture."""
    demo = demo_collection_dir()
    assert demo is not None
    root = tmp_path / "demo"
    shutil.copytree(demo, root, ignore=shutil.ignore_patterns(".pigeon"))
    return PigeonApp(Session.open(root), theme_dirs=bundled_theme_dirs(), remember_theme=False)


async def open_create_user(pilot) -> None:
    tree = pilot.app.screen.query_one(CollectionTree)
    node = next(
        n
        for n in tree._all_nodes()
        if isinstance(n.data, Request) and n.data.id == "users/create-user"
    )
    tree.move_cursor(node)
    await pilot.pause()
    await pilot.press("enter")
    await pilot.pause()
    pilot.app.screen.query_one(CollectionTree).focus()  # no blinking cursor in the picture
    await pilot.pause()


async def open_several_tabs(pilot) -> None:
    """Five request tabs: the first with unsaved edits (•), the last the preview (italic)."""
    tree = pilot.app.screen.query_one(CollectionTree)
    for request_id in ("users/list-users", "users/create-user", "auth/login", "auth/me"):
        tree.focus()
        node = next(
            n for n in tree._all_nodes() if isinstance(n.data, Request) and n.data.id == request_id
        )
        tree.move_cursor(node)
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
        if request_id == "users/list-users":
            await pilot.press("ctrl+l", "end", *"?page=2")  # edited: kept, and marked •
        else:
            await pilot.press("alt+k")  # kept
    await open_create_user(pilot)  # open already: its tab comes on show
    node = next(
        n
        for n in tree._all_nodes()
        if isinstance(n.data, Request) and n.data.id == "responses/slow"
    )
    tree.move_cursor(node)
    await pilot.pause()
    await pilot.press("enter")  # the preview tab
    await pilot.pause()
    tree.focus()
    await pilot.pause()


def test_request_tabs_80x24(snap_compare, tmp_path) -> None:
    """At 80 columns the strip scrolls to the tab on show (‹ says more are to the left)."""
    assert snap_compare(demo_app(tmp_path), terminal_size=(80, 24), run_before=open_several_tabs)


def test_request_tabs_120x40(snap_compare, tmp_path) -> None:
    assert snap_compare(demo_app(tmp_path), terminal_size=(120, 40), run_before=open_several_tabs)


def test_main_screen_80x24(snap_compare, tmp_path) -> None:
    assert snap_compare(demo_app(tmp_path), terminal_size=(80, 24), run_before=open_create_user)


def test_main_screen_120x40(snap_compare, tmp_path) -> None:
    assert snap_compare(demo_app(tmp_path), terminal_size=(120, 40), run_before=open_create_user)


async def open_create_user_body(pilot) -> None:
    """Create user's body, chosen as enter in the tree would (60 columns hide the tree)."""
    screen = pilot.app.screen
    tree = screen.query_one(CollectionTree)
    request = next(
        n.data
        for n in tree._all_nodes()
        if isinstance(n.data, Request) and n.data.id == "users/create-user"
    )
    tree.post_message(CollectionTree.RequestChosen(request))
    await pilot.pause()
    await pilot.app.workers.wait_for_complete()
    screen.query_one("#editor-tabs").active = "tab-body"
    await pilot.pause()
    await pilot.pause()
    screen.query_one("#editor-tabs Tabs").focus()  # no blinking cursor in the picture
    await pilot.pause()


def test_main_screen_60x20(snap_compare, tmp_path) -> None:
    """A short screen: the tab bars lose their underline, the URL's warnings take one line,
    the body's editor its border, and the response yields to its first lines."""
    assert snap_compare(
        demo_app(tmp_path), terminal_size=(60, 20), run_before=open_create_user_body
    )


def test_help_screen_120x40(snap_compare, tmp_path) -> None:
    assert snap_compare(demo_app(tmp_path), terminal_size=(120, 40), press=["f1"])
