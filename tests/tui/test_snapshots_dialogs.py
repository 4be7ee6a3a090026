"""SVG snapshots of the dialogs and side panes, at 80x24 and 120x40, driven by keys.

The demo opens without an echo server (no port, path or clock on screen). Update with
``pytest --snapshot-update`` after a deliberate change, and look at the new SVGs first.
"""

from __future__ import annotations

import pytest
from test_tui_snapshots import demo_app, open_create_user

from pigeon.model import Folder, Request
from pigeon.tui.widgets.collection_tree import CollectionTree
from pigeon.tui.widgets.variables_pane import VariablesPane

SIZES = [(80, 24), (120, 40)]


@pytest.fixture(autouse=True)
def _private_config(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))


async def highlight(pilot, ref: str) -> None:
    """Put the tree's cursor on the request or folder ``ref`` and focus the tree."""
    tree = pilot.app.screen.query_one(CollectionTree)
    node = next(
        n for n in tree._all_nodes() if isinstance(n.data, Request | Folder) and n.data.id == ref
    )
    tree.move_cursor(node)
    tree.focus()
    await pilot.pause()


def then(*keys: str, ref: str = "users/list-users"):
    """A ``run_before`` that highlights ``ref`` in the tree and presses ``keys``."""

    async def run(pilot) -> None:
        await highlight(pilot, ref)
        await pilot.press(*keys)
        await pilot.pause(0.2)

    return run


@pytest.mark.parametrize("size", SIZES, ids=["80x24", "120x40"])
def test_new_request_prompt(snap_compare, size) -> None:
    assert snap_compare(demo_app(), terminal_size=size, run_before=then("n"))


@pytest.mark.parametrize("size", SIZES, ids=["80x24", "120x40"])
def test_rename_prompt(snap_compare, size) -> None:
    assert snap_compare(demo_app(), terminal_size=size, run_before=then("r"))


@pytest.mark.parametrize("size", SIZES, ids=["80x24", "120x40"])
def test_delete_folder_confirmation(snap_compare, size) -> None:
    assert snap_compare(demo_app(), terminal_size=size, run_before=then("d", ref="users"))


@pytest.mark.parametrize("size", SIZES, ids=["80x24", "120x40"])
def test_environment_chooser(snap_compare, size) -> None:
    assert snap_compare(demo_app(), terminal_size=size, run_before=then("f4"))


@pytest.mark.parametrize("size", SIZES, ids=["80x24", "120x40"])
def test_header_edit_form(snap_compare, size) -> None:
    async def run(pilot) -> None:
        await open_create_user(pilot)
        table = pilot.app.screen.query_one("#headers")
        table.focus()
        await pilot.press("a")
        await pilot.pause(0.2)

    assert snap_compare(demo_app(), terminal_size=size, run_before=run)


@pytest.mark.parametrize("size", SIZES, ids=["80x24", "120x40"])
def test_variable_edit_dialog(snap_compare, size) -> None:
    async def run(pilot) -> None:
        await open_create_user(pilot)
        pane = pilot.app.screen.query_one(VariablesPane)
        pane.display = True
        pane.focus()
        await pilot.pause()
        await pilot.press("e")
        await pilot.pause(0.2)

    assert snap_compare(demo_app(), terminal_size=size, run_before=run)


@pytest.mark.parametrize("size", SIZES, ids=["80x24", "120x40"])
def test_variables_pane(snap_compare, size) -> None:
    async def run(pilot) -> None:
        await open_create_user(pilot)
        pilot.app.screen.query_one(VariablesPane).display = True
        await pilot.pause()

    assert snap_compare(demo_app(), terminal_size=size, run_before=run)


@pytest.mark.parametrize("size", SIZES, ids=["80x24", "120x40"])
def test_history_pane_empty(snap_compare, size) -> None:
    assert snap_compare(demo_app(), terminal_size=size, run_before=then("f6"))


def test_help_screen_80x24(snap_compare) -> None:
    assert snap_compare(demo_app(), terminal_size=(80, 24), press=["f1"])
