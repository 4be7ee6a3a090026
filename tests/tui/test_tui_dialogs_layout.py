"""Every dialog is centred over the dimmed app and complete at 80x24: its title and its buttons
are on screen even when its body has to scroll; the help keeps its action-id column."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.screen import ModalScreen
from textual.widget import Widget
from textual.widgets import Button
from tui_support import running, wait_for

from pigeon.store import FolderContents
from pigeon.tui.app import PigeonApp
from pigeon.tui.dialogs.choose import ChooseScreen
from pigeon.tui.dialogs.confirm import ConfirmScreen, UnsavedScreen
from pigeon.tui.dialogs.delete_folder import DeleteFolderScreen
from pigeon.tui.dialogs.pair_edit import PairEditScreen, PairValue
from pigeon.tui.dialogs.prompt import PromptScreen
from pigeon.tui.dialogs.save_new import SaveNewScreen
from pigeon.tui.dialogs.trust import TrustScreen
from pigeon.tui.dialogs.variable_edit import VariableEditScreen

LONG = "a long line that has to wrap inside the dialog " * 4


def dialogs(root: Path) -> dict[str, ModalScreen]:
    many = tuple(root / f"notes/{n}.txt" for n in range(9))
    return {
        "choose": ChooseScreen("Environment", [(str(n), f"env {n}") for n in range(30)]),
        "confirm": ConfirmScreen("Delete request", LONG),
        "unsaved": UnsavedScreen("“Create user”"),
        "prompt": PromptScreen("New request"),
        "save new": SaveNewScreen("Save request", "", [(str(n), f"folder {n}") for n in range(30)]),
        "pair": PairEditScreen("New header", PairValue("X-Name", "value")),
        "variable": VariableEditScreen("Edit variable", "count", 42, [("collection", "c")]),
        "trust": TrustScreen(str(root), [LONG, "scripts: 3", "files: 9 outside"]),
        "delete": DeleteFolderScreen("users", FolderContents(4, 2, many, many), root, "Create"),
    }


def on_screen(widget: Widget) -> bool:
    """The widget is drawn where it is: the topmost widget at its centre is it or its child."""
    region = widget.region
    assert region.area > 0, widget
    found, _ = widget.screen.get_widget_at(region.x + region.width // 2, region.y)
    return found is widget or widget in found.ancestors


@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])
@pytest.mark.parametrize("name", list(dialogs(Path("/c"))))
async def test_dialog_centred_dimmed_and_complete(
    app: PigeonApp, collection: Path, size, name: str
) -> None:
    async with running(app, size=size) as pilot:
        dialog = dialogs(collection)[name]
        app.push_screen(dialog)
        await wait_for(pilot, lambda: app.screen is dialog)
        await pilot.pause()
        box = dialog.query_one(".dialog")
        left, right = box.region.x, size[0] - box.region.right
        top, bottom = box.region.y, size[1] - box.region.bottom
        assert abs(left - right) <= 1 and abs(top - bottom) <= 1, box.region
        assert dialog.styles.background.a < 1  # the app shows through, dimmed
        assert on_screen(dialog.query_one(".title"))
        for button in dialog.query(Button):
            assert on_screen(button), button


async def test_help_keeps_its_action_ids_at_80_columns(app: PigeonApp) -> None:
    async with running(app, size=(80, 24)) as pilot:
        await pilot.press("f1")
        await wait_for(pilot, lambda: isinstance(app.screen, ModalScreen))
        await pilot.pause()
        lines = [strip.text for strip in app.screen._compositor.render_strips()]
        quit_row = next(line for line in lines if "ctrl+q" in line)
        assert "Quit" in quit_row and " quit " in quit_row
        pane = next(line for line in lines if "alt+1" in line)
        assert "pane.tree" in pane  # the id column stays, the description wraps
