"""``ctrl+e``: the focused text field (a body, a script, a dialog's value, a URL) opens in the
user's editor (``pigeon.external_editor``), with the terminal handed over by ``App.suspend``;
what comes back replaces the field's text as one edit, only if it changed."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

from textual.widgets import Input

if TYPE_CHECKING:
    from textual.app import App
    from textual.widget import Widget


def editable(widget: Widget | None) -> bool:
    """Whether ``ctrl+e`` has something to open: a text field that is not read-only.

    Asked for every key line the app draws, the first one included: it imports nothing. No
    ``TextArea`` exists before its module is loaded (the editor's tabs load it after the first
    frame), so until then the focused widget is not one."""
    if isinstance(widget, Input):
        return not widget.disabled
    text_area = sys.modules.get("textual.widgets._text_area")
    return text_area is not None and isinstance(widget, text_area.TextArea) and not widget.read_only


def edit_focused(app: App[Any]) -> None:
    """Open the focused field in the editor; one line says why when nothing could change."""
    from textual.app import SuspendNotSupported
    from textual.widgets import TextArea

    from pigeon.external_editor import edit_text, suffix_for
    from pigeon.terminal import printable

    widget = app.focused
    if not editable(widget):
        return
    assert isinstance(widget, (TextArea, Input))
    if isinstance(widget, TextArea):
        text, suffix = widget.text, suffix_for(widget.language)
    else:
        text, suffix = widget.value, ".txt"
    name = f"pigeon-{widget.id or 'field'}"
    try:
        with app.suspend():
            edited = edit_text(text, suffix, name)
    except SuspendNotSupported:
        app.notify(
            "This terminal cannot be handed to an editor here: edit the field in place.",
            severity="warning",
        )
        return
    if edited.error is not None:
        app.notify(printable(edited.error), severity="error", timeout=8)
        return
    new = edited.text
    if new is None or new == text:
        return
    if isinstance(widget, TextArea):
        widget.replace(new, (0, 0), widget.document.end)  # one edit: undo brings the old back
        return
    one_line = new.removesuffix("\n").removesuffix("\r")  # editors end the last line
    if one_line == text:
        return
    if "\n" in one_line or "\r" in one_line:
        app.notify(
            "This field holds one line and the editor left several: nothing changed.",
            severity="error",
            timeout=8,
        )
        return
    widget.value = one_line
    widget.cursor_position = len(one_line)
