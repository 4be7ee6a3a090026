"""Name and folder of a request saved for the first time (a scratch request, a copy from
history saved as a new request): one dialog, so where the file goes is seen and chosen before
anything is written, rather than taken from wherever the tree's cursor happened to be."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Input, Label, OptionList
from textual.widgets.option_list import Option

from pigeon.tui.dialogs.choose import OneLine
from pigeon.tui.dialogs.form_modal import FormModal
from pigeon.tui.input_undo import UndoableInput


class SaveNewScreen(FormModal[tuple[str, str] | None]):
    """Dismisses with ``(name, folder id)`` (``""``: the top level), or ``None`` on
    ``escape``. ``folders`` are ``(id, path)`` (``choose.folder_choices``), one line each; the
    list starts on ``folder``. ``enter`` in the name or on a folder saves; ``tab`` goes from
    the one to the other."""

    FIELDS = ("save-name",)

    def __init__(
        self, title: str, name: str, folders: list[tuple[str, str]], folder: str = ""
    ) -> None:
        super().__init__()
        self._title, self._value, self._folders, self._folder = title, name, folders, folder

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog form"):
            yield Label(self._title, classes="title")
            yield Label("Name")
            yield UndoableInput(self._value, placeholder="List users", id="save-name")
            yield Label("Folder")
            yield OptionList(
                *[Option(OneLine(path), id=key) for key, path in self._folders], id="save-folder"
            )
            yield Label("", classes="error", id="save-error")
            yield Label("enter: save   tab: name or folder   escape: cancel", classes="hint")

    def on_mount(self) -> None:
        ids = [key for key, _ in self._folders]
        self.query_one(OptionList).highlighted = (
            ids.index(self._folder) if self._folder in ids else 0
        )
        self.query_one("#save-name", Input).focus()

    @property
    def folder(self) -> str:
        """The id of the folder highlighted (``""``: the top level)."""
        options = self.query_one(OptionList)
        index = options.highlighted
        return options.get_option_at_index(index).id or "" if index is not None else ""

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self._accept()

    def _accept(self) -> None:
        name = self.query_one("#save-name", Input).value.strip()
        if not name:
            self.query_one("#save-error", Label).update("a name is needed")
            self.query_one("#save-name", Input).focus()
            return
        self.dismiss((name, self.folder))
