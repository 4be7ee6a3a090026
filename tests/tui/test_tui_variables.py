"""The variables pane and themes with Pilot: editing in every scope, shadowing, kinds, masking,
runtime variables, theme memory."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Select
from tui_support import main_screen, press_and_settle, running

from pigeon.echo import EchoServer
from pigeon.model import Folder
from pigeon.session import Session
from pigeon.store import load_collection
from pigeon.tui.app import PigeonApp
from pigeon.tui.dialogs.variable_edit import VariableEditScreen
from pigeon.tui.themes import bundled_theme_dirs
from pigeon.tui.widgets.editor.request_editor import RequestEditor
from pigeon.tui.widgets.editor.url_preview import UrlPreview
from pigeon.tui.widgets.variables.variables_pane import VariablesPane


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


async def test_e_with_no_variable_highlighted_only_says_so(app: PigeonApp) -> None:
    async with running(app) as pilot:  # no request open: the pane says "no variables"
        screen = main_screen(app)
        pane = screen.query_one(VariablesPane)
        pane.focus()
        await pilot.pause()
        assert pane.cursor_node is None or pane.cursor_node.data is None
        await pilot.press("e")
        await pilot.pause()
        assert app.screen is screen  # no "New variable" dialog
        assert notes(app)[-1] == ("warning", "Highlight a variable to edit (a adds one).")


async def test_variables_pane_masks_secrets_and_clears_runtime(app: PigeonApp) -> None:
    app.session.runtime.set("token", "s3cr3t-value")
    async with running(app, "users/list-users") as pilot:
        pane = main_screen(app).query_one(VariablesPane)
        node = next(n for n in pane.root.children if n.data is not None and n.data.name == "token")
        assert "s3cr3t" not in str(node.label) and "•••" in str(node.label)
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


# -- editing in the scope that wins -------------------------------------------------------------


def notes(app: PigeonApp) -> list[tuple[str, str]]:
    """The notifications shown so far: (severity, message)."""
    return [(n.severity, n.message) for n in app._notifications]


async def open_edit_dialog(pilot, name: str) -> VariableEditScreen:
    """Put the variables pane's cursor on ``name`` and press e."""
    pane = main_screen(pilot.app).query_one(VariablesPane)
    pane.focus()
    node = next(n for n in pane.root.children if n.data is not None and n.data.name == name)
    pane.move_cursor(node)
    await pilot.pause()
    await pilot.press("e")
    await pilot.pause()
    dialog = pilot.app.screen
    assert isinstance(dialog, VariableEditScreen)
    return dialog


async def test_editing_a_folder_variable_saves_it_in_the_folder(
    app: PigeonApp, collection: Path, echo: EchoServer
) -> None:
    async with running(app, "users/list-users") as pilot:
        dialog = await open_edit_dialog(pilot, "resource")
        scope = dialog.query_one("#var-scope", Select)
        assert scope.value == "folder:0"  # where the winning definition lives
        offered = [key for key, _ in dialog._scopes]
        assert offered == ["collection", "environment", "folder:0", "request", "runtime"]
        labels = dict(dialog._scopes)
        assert labels["folder:0"] == "folder Users (users/folder.toml) · defines it"
        assert labels["environment"] == "environment local (environments/local.toml)"
        await pilot.press("ctrl+u", *"people", "enter")
        await pilot.pause()
        screen = main_screen(app)
        winner = screen.query_one(VariablesPane).rows["resource"][0]
        assert (winner.scope, winner.value) == ("folder", "people")
        assert screen.query_one(UrlPreview).url.startswith(f"{echo.url}/people?")
        assert ("information", "resource saved in folder Users.") in notes(app)
    on_disk = load_collection(collection)
    users = next(f for f in on_disk.items if isinstance(f, Folder) and f.name == "Users")
    assert users.variables["resource"] == "people"
    assert "resource" not in on_disk.variables  # no shadowed copy in the collection


async def test_saving_below_the_winning_scope_says_it_is_shadowed(
    app: PigeonApp, collection: Path
) -> None:
    async with running(app, "users/list-users") as pilot:
        dialog = await open_edit_dialog(pilot, "resource")
        dialog.query_one("#var-scope", Select).value = "collection"
        await pilot.pause()
        await pilot.press("ctrl+u", *"things", "enter")
        await pilot.pause()
        rows = main_screen(app).query_one(VariablesPane).rows["resource"]
        assert [(d.scope, d.value) for d in rows] == [("folder", "users"), ("collection", "things")]
        severity, message = notes(app)[-1]
        assert severity == "warning"
        assert message.startswith("resource saved in collection, but that value is not used")
        assert "folder users defines it too and wins" in message
    assert load_collection(collection).variables["resource"] == "things"


async def test_editing_base_url_in_demo_mode_says_the_echo_server_wins(
    app: PigeonApp, collection: Path, echo: EchoServer
) -> None:
    app.session.echo = echo  # as ``pigeon`` with no directory runs: the echo URL overrides
    async with running(app, "users/list-users") as pilot:
        dialog = await open_edit_dialog(pilot, "base_url")
        assert dialog.query_one("#var-scope", Select).value == "environment"  # the winning file
        await pilot.press("ctrl+u", *"http://127.0.0.1:9/api", "enter")
        await pilot.pause()
        severity, message = notes(app)[-1]
        assert severity == "warning"
        assert message.startswith("base_url saved in environment local, but that value is not")
        assert "the demo's echo server address overrides it" in message and echo.url in message
        assert main_screen(app).query_one(UrlPreview).url.startswith(echo.url)
    saved = load_collection(collection).environments["local"].variables["base_url"]
    assert saved == "http://127.0.0.1:9/api"


async def test_a_request_variable_is_written_to_the_request_file(
    app: PigeonApp, collection: Path
) -> None:
    async with running(app, "users/list-users") as pilot:
        pane = main_screen(app).query_one(VariablesPane)
        pane.focus()
        await pilot.press("a")
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, VariableEditScreen)
        assert dialog.query_one("#var-scope", Select).value == "collection"  # a new name
        dialog.query_one("#var-scope", Select).value = "request"
        await pilot.press(*"extra", "enter", *"[1, 2]", "enter")
        await pilot.pause()
        screen = main_screen(app)
        editor = screen.query_one(RequestEditor)
        assert editor.request.variables["extra"] == [1, 2]
        assert not editor.dirty  # written at once, not left for ctrl+s
        assert pane.rows["extra"][0].scope == "request"
    on_disk = load_collection(collection).find("users/list-users")
    assert on_disk is not None and on_disk[1].variables["extra"] == [1, 2]


async def test_a_refused_folder_save_leaves_the_variable_as_it_was(
    app: PigeonApp, collection: Path
) -> None:
    (collection / "users" / "folder.toml").write_text("name = \n", encoding="utf-8")
    async with running(app, "users/list-users") as pilot:
        await open_edit_dialog(pilot, "resource")
        await pilot.press("ctrl+u", *"people", "enter")
        await pilot.pause()
        assert main_screen(app).query_one(VariablesPane).rows["resource"][0].value == "users"
        severity, message = notes(app)[-1]
        assert severity == "error" and message.startswith("Save folder failed")
    assert (collection / "users" / "folder.toml").read_text(encoding="utf-8") == "name = \n"


# -- what the pane shows ------------------------------------------------------------------------


async def test_pane_shows_shadowed_definitions_and_kinds(app: PigeonApp, echo: EchoServer) -> None:
    async with running(app, "users/list-users") as pilot:
        await pilot.pause()
        pane = main_screen(app).query_one(VariablesPane)
        by_name = {n.data.name: n for n in pane.root.children if n.data is not None}
        base = by_name["base_url"]
        assert str(base.label) == f'cli base_url = "{echo.url}"  string'
        shadowed = [child.label for child in base.children]
        assert [str(label) for label in shadowed] == [
            'env "http://127.0.0.1:8787"  shadowed, environment local',
            'col "http://127.0.0.1:8787"  shadowed, collection',
        ]
        assert all(any("strike" in str(span.style) for span in s.spans) for s in shadowed)
        assert not by_name["count"].children and not by_name["count"].allow_expand
        kinds = {
            "count": "integer",
            "price": "float",
            "active": "boolean",
            "tags": "array",
            "user": "object",
            "launched": "date",
            "greeting": "string",
        }
        for name, kind in kinds.items():
            assert str(by_name[name].label).endswith(f"  {kind}"), name


async def test_editing_a_shadowed_row_starts_on_its_own_scope(app: PigeonApp) -> None:
    async with running(app, "users/list-users") as pilot:
        pane = main_screen(app).query_one(VariablesPane)
        pane.focus()
        base = next(
            n for n in pane.root.children if n.data is not None and n.data.name == "base_url"
        )
        base.expand()
        await pilot.pause()
        pane.move_cursor(base.children[1])  # the collection's definition, shadowed twice
        await pilot.pause()
        await pilot.press("e")
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, VariableEditScreen)
        assert dialog.query_one("#var-scope", Select).value == "collection"


async def test_a_send_that_changes_no_variable_keeps_the_pane_as_it_is(app: PigeonApp) -> None:
    """A send refreshes the pane; when the rows are the same the tree stays (its nodes, what
    is expanded); a change of value rebuilds it."""
    async with running(app, "users/list-users") as pilot:
        pane = main_screen(app).query_one(VariablesPane)
        first = pane.root.children[0]
        await press_and_settle(pilot, "ctrl+r")
        assert pane.root.children[0] is first
        app.session.runtime.set("page", 2)  # a runtime value now wins over the file's
        main_screen(app).refresh_after_variables()
        await pilot.pause()
        assert pane.root.children[0] is not first
        assert any(str(node.label).startswith("run page = 2") for node in pane.root.children)
