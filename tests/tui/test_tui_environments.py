"""Environments made, renamed and deleted from the app; the one chosen remembered per
collection across restarts; a variable deleted from its file with the comments kept."""

from __future__ import annotations

import asyncio
from pathlib import Path

from textual.widgets import Input, OptionList
from tui_support import main_screen, make_app, running, wait_for

from pigeon.cli import main
from pigeon.echo import EchoServer
from pigeon.store import load_collection
from pigeon.store.remembered import remember_environment, remembered_environment
from pigeon.tui.app import PigeonApp
from pigeon.tui.dialogs.confirm import ConfirmScreen
from pigeon.tui.dialogs.environments import EnvironmentScreen
from pigeon.tui.dialogs.prompt import PromptScreen
from pigeon.tui.widgets.collection.environment_label import EnvironmentLabel
from pigeon.tui.widgets.variables.variables_pane import VariablesPane


async def open_chooser(pilot) -> EnvironmentScreen:
    """Open the chooser and wait until its list has the keys: pushed is not yet mounted, and
    a key sent before then goes to the bare screen and is lost."""
    await pilot.press("f4")
    await wait_for(
        pilot,
        lambda: (
            isinstance(pilot.app.screen, EnvironmentScreen)
            and isinstance(pilot.app.focused, OptionList)
            and pilot.app.focused.screen is pilot.app.screen
            and pilot.app.focused.highlighted is not None
        ),
    )
    return pilot.app.screen


async def answer_prompt(pilot, text: str) -> None:
    await wait_for(pilot, lambda: isinstance(pilot.app.screen, PromptScreen))
    field = pilot.app.screen.query_one(Input)
    field.value = text
    await pilot.press("enter")
    await wait_for(pilot, lambda: not isinstance(pilot.app.screen, PromptScreen))


async def test_environments_are_made_renamed_and_deleted_from_the_chooser(
    app: PigeonApp, collection: Path
) -> None:
    envs = collection / "environments"
    async with running(app, "users/list-users") as pilot:
        session = app.session
        await open_chooser(pilot)
        await pilot.press("n")
        await answer_prompt(pilot, "qa")
        assert (envs / "qa.toml").is_file() and session.environment == "qa"
        assert "qa" in str(main_screen(app).query_one(EnvironmentLabel).render())

        await open_chooser(pilot)  # the one in use is highlighted: r renames it
        await pilot.press("r")
        await answer_prompt(pilot, "qa-eu")
        assert not (envs / "qa.toml").exists() and (envs / "qa-eu.toml").is_file()
        assert session.environment == "qa-eu"

        await open_chooser(pilot)
        await pilot.press("d")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("n")  # no: nothing deleted
        await pilot.pause()
        assert (envs / "qa-eu.toml").is_file()
        await open_chooser(pilot)
        await pilot.press("d")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("y")
        await wait_for(pilot, lambda: not (envs / "qa-eu.toml").exists())
        assert session.environment == "" and "qa-eu" not in session.collection.environments
        assert sorted(load_collection(collection).environments) == ["local", "staging"]


async def test_the_chosen_environment_is_remembered_across_restarts(
    collection: Path, echo: EchoServer, capsys
) -> None:
    first = make_app(collection, echo)
    assert first.session.environment == "local"  # the collection's default
    async with running(first) as pilot:
        await open_chooser(pilot)
        await pilot.press("down", "enter")  # local is highlighted; staging is next
        await wait_for(pilot, lambda: first.session.environment == "staging")
        await wait_for(pilot, lambda: main_screen(first).built_at)  # quit once all is in
    assert (collection / ".pigeon" / "state.toml").is_file()

    second = make_app(collection, echo)
    assert second.session.environment == "staging"
    async with running(second) as pilot:
        label = main_screen(second).query_one(EnvironmentLabel)
        assert "staging" in str(label.render())
        await wait_for(pilot, lambda: main_screen(second).built_at)

    # pigeon render and run never read it: they take --env or the collection's default
    assert await asyncio.to_thread(main, ["render", str(collection), "users/list-users"]) == 0
    assert "127.0.0.1:8787" in capsys.readouterr().out  # local's base_url

    (collection / "environments" / "staging.toml").unlink()  # gone: the default again
    assert make_app(collection, echo).session.environment == "local"


def test_a_linked_private_folder_is_never_written_through(tmp_path: Path) -> None:
    root, elsewhere = tmp_path / "col", tmp_path / "elsewhere"
    root.mkdir()
    elsewhere.mkdir()
    (root / ".pigeon").symlink_to(elsewhere)
    assert remember_environment(root, "dev") is not None  # why not, as one line
    assert list(elsewhere.iterdir()) == []
    (elsewhere / "state.toml").write_text('environment = "dev"\n')
    assert remembered_environment(root) is None  # nor read through
    (root / ".pigeon").unlink()
    (root / ".pigeon").mkdir()
    (root / ".pigeon" / "state.toml").write_text("environment = [1]\n\x00")
    assert remembered_environment(root) is None


async def test_deleting_a_variable_keeps_the_files_comments(
    app: PigeonApp, collection: Path
) -> None:
    path = collection / "collection.toml"
    before = path.read_text()
    assert "count = 42" in before
    async with running(app, "users/list-users") as pilot:
        pane = main_screen(app).query_one(VariablesPane)
        pane.display = True
        pane.focus()
        node = next(n for n in pane.root.children if n.data is not None and n.data.name == "count")
        pane.move_cursor(node)
        await pilot.pause()
        await pilot.press("d")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("y")
        await wait_for(pilot, lambda: "count" not in pane.rows)
    after = path.read_text()
    removed = [line for line in before.splitlines() if line not in after.splitlines()]
    assert removed == [line for line in before.splitlines() if line.startswith("count = 42")]
    assert "count" not in load_collection(collection).variables
