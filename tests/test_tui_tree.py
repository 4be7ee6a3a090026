"""The collection tree with Pilot: new, rename, delete, duplicate, move; zoom and palette reload."""

from __future__ import annotations

from pathlib import Path

from pigeon.model import Request
from pigeon.store import load_collection
from pigeon.tui.app import PigeonApp
from pigeon.tui.widgets.collection_tree import CollectionTree
from pigeon.tui.widgets.request_editor import RequestEditor
from test_tui_support import *  # noqa: F403 - the shared fixtures
from test_tui_support import main_screen, running


async def test_tree_new_rename_delete(app: PigeonApp, collection: Path) -> None:
    async with running(app, "users/list-users") as pilot:
        screen = main_screen(app)
        screen.query_one(CollectionTree).focus()
        await pilot.press("n")
        await pilot.pause()
        await pilot.press(*"Ping it", "enter")
        await pilot.pause()
        assert (collection / "users" / "ping-it.toml").is_file()
        assert screen.query_one(RequestEditor).request.name == "Ping it"
        tree = screen.query_one(CollectionTree)
        tree.focus()
        node = next(
            n
            for n in tree._all_nodes()
            if isinstance(n.data, Request) and n.data.id == "users/ping-it"
        )
        tree.move_cursor(node)
        await pilot.pause()
        await pilot.press("r", "ctrl+u", *"Pong", "enter")
        await pilot.pause()
        assert (collection / "users" / "pong.toml").is_file()
        assert not (collection / "users" / "ping-it.toml").exists()
        node = next(
            n
            for n in tree._all_nodes()
            if isinstance(n.data, Request) and n.data.id == "users/pong"
        )
        tree.move_cursor(node)
        await pilot.pause()
        await pilot.press("d", "y")
        await pilot.pause()
        assert not (collection / "users" / "pong.toml").exists()


async def test_duplicate_and_move(app: PigeonApp, collection: Path) -> None:
    from pigeon.tui.screens.choose import ChooseScreen

    async with running(app, "users/list-users") as pilot:
        screen = main_screen(app)
        tree = screen.query_one(CollectionTree)
        tree.focus()
        await pilot.press("c")
        await pilot.pause()
        copy_file = collection / "users" / "list-users-copy.toml"
        assert copy_file.is_file()
        assert (
            load_collection(collection).find("users/list-users-copy")[1].url
            == "{{base_url}}/{{resource}}"
        )
        node = next(
            n
            for n in tree._all_nodes()
            if isinstance(n.data, Request) and n.data.id == "users/list-users-copy"
        )
        tree.move_cursor(node)
        await pilot.pause()
        await pilot.press("m")
        await pilot.pause()
        assert isinstance(app.screen, ChooseScreen)
        await pilot.press("home", "enter")  # (top level)
        await pilot.pause()
        assert not copy_file.exists()
        assert (collection / "list-users-copy.toml").is_file()


async def test_maximise_and_palette_reload(app: PigeonApp, collection: Path) -> None:
    async with running(app, "users/list-users") as pilot:
        screen = main_screen(app)
        await pilot.press("ctrl+o")
        await pilot.pause()
        assert screen.maximized is screen.query_one(RequestEditor)
        await pilot.press("ctrl+o")
        await pilot.pause()
        assert screen.maximized is None
        (collection / "users" / "added.toml").write_text(
            'name = "Added"\nurl = "x"\n', encoding="utf-8"
        )
        await pilot.press("ctrl+p")
        await pilot.pause()
        await pilot.press(*"Reload collection")
        await pilot.pause(0.3)
        await pilot.press("enter")
        await pilot.pause()
        tree = screen.query_one(CollectionTree)
        assert any(
            isinstance(n.data, Request) and n.data.id == "users/added" for n in tree._all_nodes()
        )
        assert screen.query_one(RequestEditor).request.id == "users/list-users"
