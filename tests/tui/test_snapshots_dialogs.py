"""SVG snapshots of the dialogs and side panes, at 80x24 and 120x40, driven by keys.

The demo opens without an echo server (no port, path or clock on screen). Update with
``pytest --snapshot-update`` after a deliberate change, and look at the new SVGs first.
"""

from __future__ import annotations

import copy

import pytest
from test_tui_snapshots import demo_app, open_create_user
from textual.screen import ModalScreen
from textual.widgets import Input
from tui_support import replace_url, wait_for

from pigeon.model import Folder, Request
from pigeon.tui.widgets.collection.collection_tree import CollectionTree
from pigeon.tui.widgets.variables.variables_pane import VariablesPane

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


async def dialog_shown(pilot) -> None:
    """Wait for the dialog a key opens (a busy machine takes a moment), then for it to draw,
    with its text cursors steady: a blinking one is in the picture or not by chance."""
    await wait_for(pilot, lambda: isinstance(pilot.app.screen, ModalScreen))
    for field in pilot.app.screen.query(Input):
        field.cursor_blink = False
    await pilot.pause(0.2)


async def show_variables(pilot) -> None:
    """Show the variables pane (ctrl+g: below 110 columns it starts hidden) and focus it."""
    if not pilot.app.screen.query_one("#vars-pane").display:
        await pilot.press("ctrl+g")
    pilot.app.screen.query_one(VariablesPane).focus()
    await pilot.pause()


def then(*keys: str, ref: str = "users/list-users", dialog: bool = True):
    """A ``run_before`` that highlights ``ref`` in the tree and presses ``keys``."""

    async def run(pilot) -> None:
        await highlight(pilot, ref)
        await pilot.press(*keys)
        if dialog:
            await dialog_shown(pilot)
        else:
            await pilot.pause(0.2)

    return run


@pytest.mark.parametrize("size", SIZES, ids=["80x24", "120x40"])
def test_new_request_prompt(snap_compare, tmp_path, size) -> None:
    assert snap_compare(demo_app(tmp_path), terminal_size=size, run_before=then("n"))


@pytest.mark.parametrize("size", SIZES, ids=["80x24", "120x40"])
def test_rename_prompt(snap_compare, tmp_path, size) -> None:
    assert snap_compare(demo_app(tmp_path), terminal_size=size, run_before=then("r"))


@pytest.mark.parametrize("size", SIZES, ids=["80x24", "120x40"])
def test_delete_folder_confirmation(snap_compare, tmp_path, size) -> None:
    assert snap_compare(demo_app(tmp_path), terminal_size=size, run_before=then("d", ref="users"))


@pytest.mark.parametrize("size", SIZES, ids=["80x24", "120x40"])
def test_environment_chooser(snap_compare, tmp_path, size) -> None:
    assert snap_compare(demo_app(tmp_path), terminal_size=size, run_before=then("f4"))


@pytest.mark.parametrize("size", SIZES, ids=["80x24", "120x40"])
def test_header_edit_form(snap_compare, tmp_path, size) -> None:
    async def run(pilot) -> None:
        await open_create_user(pilot)
        table = pilot.app.screen.query_one("#headers")
        table.focus()
        await pilot.press("a")
        await dialog_shown(pilot)

    assert snap_compare(demo_app(tmp_path), terminal_size=size, run_before=run)


@pytest.mark.parametrize("size", SIZES, ids=["80x24", "120x40"])
def test_variable_edit_dialog(snap_compare, tmp_path, size) -> None:
    async def run(pilot) -> None:
        await open_create_user(pilot)
        await show_variables(pilot)
        await pilot.press("a")  # a new variable (e edits the highlighted one)
        await dialog_shown(pilot)

    assert snap_compare(demo_app(tmp_path), terminal_size=size, run_before=run)


@pytest.mark.parametrize("size", SIZES, ids=["80x24", "120x40"])
def test_variables_pane(snap_compare, tmp_path, size) -> None:
    async def run(pilot) -> None:
        await open_create_user(pilot)
        await show_variables(pilot)
        pilot.app.screen.query_one(CollectionTree).focus()
        await pilot.pause()

    assert snap_compare(demo_app(tmp_path), terminal_size=size, run_before=run)


@pytest.mark.parametrize("size", SIZES, ids=["80x24", "120x40"])
def test_history_pane_empty(snap_compare, tmp_path, size) -> None:
    assert snap_compare(demo_app(tmp_path), terminal_size=size, run_before=then("f6", dialog=False))


def test_help_screen_80x24(snap_compare, tmp_path) -> None:
    assert snap_compare(demo_app(tmp_path), terminal_size=(80, 24), press=["f1"])


@pytest.mark.parametrize("size", SIZES, ids=["80x24", "120x40"])
def test_save_copy_from_history_dialog(snap_compare, tmp_path, size) -> None:
    async def run(pilot) -> None:
        await open_create_user(pilot)
        screen = pilot.app.screen
        sent = copy.deepcopy(screen.editor.saved)
        sent.path, sent.id = None, ""  # as history gives it back
        screen.open_requests.open_copy(sent, "users/create-user")
        await pilot.pause()
        await pilot.press("ctrl+s")
        await dialog_shown(pilot)

    assert snap_compare(demo_app(tmp_path), terminal_size=size, run_before=run)


@pytest.mark.parametrize("size", SIZES, ids=["80x24", "120x40"])
def test_delete_request_confirmation(snap_compare, tmp_path, size) -> None:
    assert snap_compare(demo_app(tmp_path), terminal_size=size, run_before=then("d"))


@pytest.mark.parametrize("size", SIZES, ids=["80x24", "120x40"])
def test_unsaved_changes_dialog(snap_compare, tmp_path, size) -> None:
    async def run(pilot) -> None:
        await open_create_user(pilot)
        pilot.app.screen.query_one("#url", Input).value += "/edited"
        await pilot.press("ctrl+f4")  # close its tab: save, discard or cancel?
        await dialog_shown(pilot)

    assert snap_compare(demo_app(tmp_path), terminal_size=size, run_before=run)


@pytest.mark.parametrize("size", SIZES, ids=["80x24", "120x40"])
def test_trust_dialog(snap_compare, tmp_path, size) -> None:
    async def run(pilot) -> None:
        from pigeon.trust import summary
        from pigeon.tui.dialogs.trust import TrustScreen

        await open_create_user(pilot)
        wants = summary(pilot.app.session.needs())  # the demo's: scripts, an environment read
        pilot.app.push_screen(TrustScreen("~/collections/demo", wants))  # a path that stays
        await dialog_shown(pilot)

    assert snap_compare(demo_app(tmp_path), terminal_size=size, run_before=run)


@pytest.mark.parametrize("size", SIZES, ids=["80x24", "120x40"])
def test_save_scratch_prompt(snap_compare, tmp_path, size) -> None:
    async def run(pilot) -> None:
        await highlight(pilot, "users/list-users")
        await pilot.press("ctrl+n")
        await wait_for(pilot, lambda: pilot.app.screen.editor.request is not None)
        # The new tab's strip and the keys shown for the field now focused are drawn before the
        # dialog covers them: a screen under a dialog is drawn as it last was.
        await pilot.pause()
        await pilot.press("ctrl+s")
        await dialog_shown(pilot)

    assert snap_compare(demo_app(tmp_path), terminal_size=size, run_before=run)


@pytest.mark.parametrize("size", SIZES, ids=["80x24", "120x40"])
def test_delete_variable_confirmation(snap_compare, tmp_path, size) -> None:
    async def run(pilot) -> None:
        await open_create_user(pilot)
        pane = pilot.app.screen.query_one(VariablesPane)
        pane.display = True
        pane.focus()
        node = next(n for n in pane.root.children if n.data is not None and n.data.name == "count")
        pane.move_cursor(node)
        await pilot.pause()
        await pilot.press("d")
        await dialog_shown(pilot)

    assert snap_compare(demo_app(tmp_path), terminal_size=size, run_before=run)


@pytest.mark.parametrize("size", SIZES, ids=["80x24", "120x40"])
def test_changed_on_disk_dialog(snap_compare, tmp_path, size, monkeypatch) -> None:
    """A save meets a file edited outside since it was loaded: whose version wins."""
    from pigeon.tui.screens.main import MainScreen

    monkeypatch.setattr(MainScreen, "FOLLOW_DISK", False)  # no notice racing the picture
    app = demo_app(tmp_path)

    async def run(pilot) -> None:
        await open_create_user(pilot)
        await replace_url(pilot, "{{base_url}}/mine")
        file = pilot.app.screen.editor.saved.path
        file.write_text(file.read_text(encoding="utf-8") + "# theirs\n", encoding="utf-8")
        await pilot.press("ctrl+s")
        await dialog_shown(pilot)

    assert snap_compare(app, terminal_size=size, run_before=run)


@pytest.mark.parametrize("size", SIZES, ids=["80x24", "120x40"])
def test_variables_pane_maximised(snap_compare, tmp_path, size) -> None:
    async def run(pilot) -> None:
        await open_create_user(pilot)
        await show_variables(pilot)
        await pilot.press("ctrl+o")
        await pilot.pause(0.2)

    assert snap_compare(demo_app(tmp_path), terminal_size=size, run_before=run)
