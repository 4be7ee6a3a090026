"""The main screen's keys: one table, read by the screen, the footer, the help screen (f1),
the command palette and ``[keys]`` (``tui/keys.py``).

The tooltips name the actions in the help screen and the palette; the footer keeps the short
labels. ctrl+t, not ctrl+b: ctrl+b is tmux's prefix (ctrl+a is screen's). The request tabs'
keys are none of a text field's own (Textual's Input takes ctrl+w, ctrl+left/right and the
like) nor a multiplexer's.
"""

from __future__ import annotations

from textual.binding import Binding, BindingType

MAIN_KEYS: list[BindingType] = [
    Binding("ctrl+r,f5", "send", "Send", id="send", priority=True, tooltip="Send the request"),
    Binding("escape", "cancel_send", "Cancel send", id="cancel_send", tooltip="Cancel the send"),
    Binding(
        "ctrl+s",
        "save",
        "Save",
        id="save",
        priority=True,
        tooltip="Save the request (a new one asks a name)",
    ),
    Binding("ctrl+l", "focus_url", "Go to URL", id="focus_url", priority=True, show=False),
    # tab and shift+tab: the help's "Moving around" names them, so no description here.
    Binding("tab", "step_pane(1)", "", id="pane.next", show=False),
    Binding("shift+tab", "step_pane(-1)", "", id="pane.previous", show=False),
    Binding(
        "ctrl+n",
        "new_request",
        "New",
        id="new_request",
        show=False,
        tooltip="New scratch request in a tab (a file once saved)",
    ),
    Binding(
        "ctrl+pagedown,alt+right",
        "step_tab(1)",
        "Next tab",
        id="tab.next",
        tooltip="Show the next request tab",
    ),
    Binding(
        "ctrl+pageup,alt+left",
        "step_tab(-1)",
        "Previous tab",
        id="tab.previous",
        show=False,
        tooltip="Show the previous request tab",
    ),
    Binding(
        "ctrl+f4,alt+w",
        "close_tab",
        "Close tab",
        id="tab.close",
        show=False,
        tooltip="Close the request tab (asks about unsaved changes)",
    ),
    Binding(
        "alt+k",
        "keep_tab",
        "Keep tab",
        id="tab.keep",
        show=False,
        tooltip="Keep the preview tab open when the next request is opened",
    ),
    Binding(
        "ctrl+t",
        "toggle_side('tree')",
        "Tree",
        id="toggle_tree",
        priority=True,
        tooltip="Show or hide the collection tree",
    ),
    Binding(
        "ctrl+g",
        "toggle_side('vars')",
        "Vars",
        id="toggle_variables",
        priority=True,
        tooltip="Show or hide the variables pane",
    ),
    Binding(
        "ctrl+o",
        "maximize_pane",
        "Zoom",
        id="maximize",
        priority=True,
        tooltip="Maximise the focused pane, or restore it",
    ),
    Binding(
        "ctrl+right",
        "resize_pane(1)",
        "Wider",
        id="pane_wider",
        show=False,
        tooltip="Widen the focused pane (the centre keeps 60 columns)",
    ),
    Binding(
        "ctrl+left",
        "resize_pane(-1)",
        "Narrower",
        id="pane_narrower",
        show=False,
        tooltip="Narrow the focused pane",
    ),
    Binding("f4", "choose_environment", "Env", id="environment", tooltip="Choose environment"),
    Binding(
        "f2",
        "show_log",
        "Log",
        id="log",
        tooltip="Log: every message in full, script output and errors",
    ),
    Binding(
        "f7",
        "show_cookies",
        "Cookies",
        id="cookies",
        show=False,
        tooltip="Cookies: list, edit, delete or clear the jar",
    ),
    Binding(
        "f3",
        "copy_curl",
        "Copy as…",
        id="copy_curl",
        show=False,
        tooltip="Copy the request as curl, Python...",
    ),
    Binding(
        "f6",
        "toggle_history",
        "History / collection",
        id="toggle_history",
        show=False,
        tooltip="Show the history of sends, or the collection again",
    ),
    Binding(
        "alt+p,f10",
        "profile",
        "Profile",
        id="profile",
        show=False,
        tooltip="Profile request… (N sends, C at once: latencies, errors, bytes)",
    ),
]


def help_subgroups() -> list[tuple[str, type]]:
    """The keys of what the main screen mounts later, listed in its help: the history."""
    from pigeon.tui.widgets.collection.history_list import HistoryList

    return [("History (f6)", HistoryList)]
