"""The variables pane and themes with Pilot: editing, masking, runtime variables, theme memory."""

from __future__ import annotations

from pathlib import Path

from pigeon.echo import EchoServer
from pigeon.store import load_collection
from pigeon.tui.app import PigeonApp
from pigeon.tui.session import Session
from pigeon.tui.themes import bundled_theme_dirs
from pigeon.tui.widgets.variables_pane import VariablesPane
from test_tui_support import *  # noqa: F403 - the shared fixtures
from test_tui_support import main_screen, running


async def test_variables_pane_edits_a_collection_variable(app: PigeonApp, collection: Path) -> None:
    async with running(app, "users/list-users") as pilot:
        screen = main_screen(app)
        pane = screen.query_one(VariablesPane)
        pane.focus()
        node = next(n for n in pane.root.children if n.data is not None and n.data.name == "count")
        pane.move_cursor(node)
        await pilot.pause()
        await pilot.press("e")
        await pilot.pause()
        await pilot.press("ctrl+u", *"[1, 2]", "enter")
        await pilot.pause()
        assert app.session.collection.variables["count"] == [1, 2]
        assert load_collection(collection).variables["count"] == [1, 2]
        assert pane.rows["count"][0].value == [1, 2]


async def test_variables_pane_masks_secrets_and_clears_runtime(app: PigeonApp) -> None:
    app.session.runtime.set("token", "s3cr3t-value")
    async with running(app, "users/list-users") as pilot:
        pane = main_screen(app).query_one(VariablesPane)
        node = next(n for n in pane.root.children if n.data is not None and n.data.name == "token")
        assert "s3cr3t" not in str(node.label) and "••••" in str(node.label)
        assert str(node.label).startswith("run token")
        pane.focus()
        await pilot.press("v")
        await pilot.pause()
        node = next(n for n in pane.root.children if n.data is not None and n.data.name == "token")
        assert "s3cr3t-value" in str(node.label)
        await pilot.press("x")
        await pilot.pause()
        assert len(app.session.runtime) == 0
        assert "token" not in pane.rows


async def test_theme_choice_is_remembered_in_the_config(collection: Path, echo: EchoServer) -> None:
    from pigeon.config import AppConfig

    config = AppConfig.load()
    session = Session.open(collection)
    session.overrides["base_url"] = echo.url
    app = PigeonApp(session, config=config, theme_dirs=bundled_theme_dirs())
    async with running(app) as pilot:
        assert app.theme == "pigeon-dark"
        assert {"pigeon-light", "pigeon-nord", "pigeon-solarized"} <= set(app.available_themes)
        app.theme = "pigeon-nord"  # what the palette's theme picker does
        await pilot.pause()
    assert AppConfig.load().theme == "pigeon-nord"
    assert 'theme = "pigeon-nord"' in config.file.read_text(encoding="utf-8")


async def test_variables_pane_edits_an_environment_variable(
    app: PigeonApp, collection: Path
) -> None:
    async with running(app, "users/list-users") as pilot:
        pane = main_screen(app).query_one(VariablesPane)
        pane.focus()
        node = next(n for n in pane.root.children if n.data is not None and n.data.name == "stage")
        pane.move_cursor(node)
        await pilot.pause()
        await pilot.press("enter")  # same as e on a leaf
        await pilot.pause()
        await pilot.press("ctrl+u", *"qa", "enter")
        await pilot.pause()
        assert pane.rows["stage"][0].value == "qa"
    assert load_collection(collection).environments["local"].variables["stage"] == "qa"
    assert load_collection(collection).variables.get("stage") is None  # not the collection
