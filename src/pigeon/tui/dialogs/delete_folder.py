"""Ask before deleting a folder, saying what goes with it: its requests and subfolders, and
any file that does not load or is not Pigeon's, which the tree may not show."""

from __future__ import annotations

from pathlib import Path

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Button, Label

from pigeon.store import FolderContents
from pigeon.tui.dialogs.confirm import ConfirmScreen
from pigeon.tui.dialogs.form_modal import button_row

MOST_PATHS = 5  # listed by name; the rest are counted


class DeleteFolderScreen(ConfirmScreen):
    """``True``: delete; ``escape``, ``n`` or Cancel (focused first) keep the folder."""

    # Added to the dialogs' shared look (inherited): long lines wrap inside the dialog.
    DEFAULT_CSS = """
    DeleteFolderScreen .message { width: 100%; }
    DeleteFolderScreen .warning { color: $warning; text-style: bold; }
    """

    def __init__(
        self, name: str, contents: FolderContents, root: Path, unsaved: str | None = None
    ) -> None:
        super().__init__("Delete folder", "", yes="Delete")
        self._name, self._contents, self._root, self._unsaved = name, contents, root, unsaved

    def compose(self) -> ComposeResult:
        c = self._contents
        with Vertical(classes="dialog"):
            yield Label("Delete folder", classes="title")
            yield Label(
                f"Delete “{self._name}” and everything in it: {count(c.requests, 'request')} "
                f"and {count(c.folders, 'subfolder')}?",
                classes="message",
            )
            if c.broken:
                verb = "does" if len(c.broken) == 1 else "do"
                yield Label(
                    f"⚠ {count(len(c.broken), 'file')} in it {verb} not load and will be "
                    f"deleted too: {self._listed(c.broken)}",
                    classes="message warning",
                )
            if c.other:
                yield Label(
                    f"Also {count(len(c.other), 'other file')}: {self._listed(c.other)}",
                    classes="message",
                )
            if self._unsaved:
                yield Label(
                    f"The unsaved changes to “{self._unsaved}” will be lost.",
                    classes="message warning",
                )
            yield Label("This cannot be undone.", classes="hint")
            yield button_row(Button("Cancel", id="no"), Button("Delete", id="yes", variant="error"))

    def _listed(self, paths: tuple[Path, ...]) -> str:
        """The first few paths, relative to the collection, and how many more there are."""
        shown = [p.relative_to(self._root).as_posix() for p in paths[:MOST_PATHS]]
        more = f" and {len(paths) - MOST_PATHS} more" if len(paths) > MOST_PATHS else ""
        return ", ".join(shown) + more


def count(n: int, word: str) -> str:
    """``1 request``, ``2 requests``."""
    return f"{n} {word}{'' if n == 1 else 's'}"
