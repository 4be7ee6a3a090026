"""The palette's "New collection…": made as `pigeon new` makes it, then opened in the app."""

from __future__ import annotations

from pathlib import Path

from test_tui_app import run_from_palette
from textual.widgets import Input
from tui_support import main_screen, running, wait_for

from pigeon.model import Request
from pigeon.tui.app import PigeonApp
from pigeon.tui.dialogs.prompt import PromptScreen
from pigeon.tui.widgets.collection.collection_tree import CollectionTree


async def test_a_new_collection_is_made_and_opened(app: PigeonApp, tmp_path: Path) -> None:
    target = tmp_path / "fresh-api"
    old = app.session
    async with running(app) as pilot:
        await wait_for(pilot, lambda: main_screen(app).built_at)
        await run_from_palette(pilot, "new collection", "New collection…")
        await wait_for(pilot, lambda: isinstance(app.screen, PromptScreen))
        app.screen.query_one(Input).value = str(target)
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.session is not old)
        await wait_for(pilot, lambda: main_screen(app).session is app.session)
        assert app.session.root == target.resolve() and app.session.environment == "local"
        tree = main_screen(app).query_one(CollectionTree)
        await wait_for(pilot, lambda: any(isinstance(n.data, Request) for n in tree._all_nodes()))
        assert [n.data.id for n in tree._all_nodes() if isinstance(n.data, Request)] == ["example"]
        assert (target / ".gitignore").is_file()

        # a directory that holds something is refused, and the app stays on what it has
        await run_from_palette(pilot, "new collection", "New collection…")
        await wait_for(pilot, lambda: isinstance(app.screen, PromptScreen))
        app.screen.query_one(Input).value = str(target)
        await pilot.press("enter")
        await pilot.pause()
        assert app.session.root == target.resolve()
        assert any("not empty" in n.message for n in app._notifications)
