"""The history list: every recorded exchange of the collection, newest first.

Like the tree, it mostly shows and reports: ``Open``, ``Resend``, ``Delete`` and ``Prune``
messages go to the history pane that holds it. The one thing it does itself is drop the
entries past the config's age limit when asked to prune, before reporting. Entries are read
off the UI loop (a history of large bodies is many megabytes of JSON).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from rich.style import Style
from rich.text import Text
from textual import work
from textual.binding import Binding
from textual.message import Message
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from pigeon.history import HistoryEntry, list_entries, prune
from pigeon.terminal import printable
from pigeon.tui.css import beside
from pigeon.tui.format import duration, status_kind
from pigeon.tui.session_of import session_of
from pigeon.tui.themes import method_colour
from pigeon.tui.vim_keys import HalfPages, vim_bindings


def short_time(when: datetime, now: datetime | None = None, seconds: bool = True) -> str:
    """Local time: ``14:03:22`` (or ``14:03``) today, ``11-20 14:03`` on another day."""
    local = when.astimezone()
    today = (now or datetime.now().astimezone()).date()
    if local.date() != today:
        return local.strftime("%m-%d %H:%M")
    return local.strftime("%H:%M:%S" if seconds else "%H:%M")


def matches(entry: HistoryEntry, words: str) -> bool:
    """Whether an entry's name, URL, method, status or environment holds every word of
    ``words``."""
    status = str(entry.status) if entry.status is not None else (entry.error or "")
    haystack = f"{entry.request_name} {entry.method} {entry.url} {status} {entry.environment}"
    haystack = haystack.lower()
    return all(word in haystack for word in words.lower().split())


def short_url(url: str, width: int) -> str:
    """The URL without its scheme, cut to ``width`` with an ellipsis."""
    parts = urlsplit(url)
    text = url[len(parts.scheme) + 3 :] if parts.scheme and "://" in url else url
    if len(text) <= width:
        return text
    return text[: max(width - 1, 0)] + "…"


class HistoryList(HalfPages, OptionList):
    """Two lines per exchange: time, method, status, the environment it was sent in and
    duration; then the request's name and the URL. Both are cut to the list's width by hand: an option's prompt wraps otherwise.
    ``search`` narrows the list to the entries that match it."""

    DEFAULT_CSS = beside(__file__)
    COMPONENT_CLASSES = {
        "history-list--info",
        "history-list--success",
        "history-list--redirect",
        "history-list--client-error",
        "history-list--server-error",
        "history-list--error",
        "history-list--muted",
    }
    BINDINGS = [
        *vim_bindings(top="first", bottom="last", find=""),  # `/` searches: below
        Binding("enter", "select", "Open entry", id="history.open"),
        Binding("r", "resend", "Re-send", id="history.resend"),
        Binding("d,delete", "delete", "Delete entry", id="history.delete"),
        Binding("p", "prune", "Prune…", id="history.prune"),
        Binding("slash", "search", "Search", id="history.search"),
        Binding("m", "mark", "Mark for diff", id="history.mark", show=False),
        Binding("equals_sign", "diff", "Diff with marked", id="history.diff", show=False),
    ]

    @dataclass
    class Open(Message):
        """Show the entry's exchange in the response pane, and its request in the editor."""

        entry: HistoryEntry
        """The chosen history entry."""

    @dataclass
    class Resend(Message):
        """Send the entry's request again (or open it, when it holds masked secrets)."""

        entry: HistoryEntry
        """The chosen history entry."""

    @dataclass
    class Delete(Message):
        """Delete the entry's file."""

        entry: HistoryEntry
        """The chosen history entry."""

    @dataclass
    class Prune(Message):
        """Ask how many entries to keep, then drop the older ones."""

        count: int
        """How many entries are listed now."""

    @dataclass
    class Diff(Message):
        """Compare two entries' responses: ``old`` (the earlier send) with ``new``."""

        old: HistoryEntry
        """The earlier of the two."""
        new: HistoryEntry
        """The later of the two."""

    class SearchRequested(Message):
        """``/`` was pressed: ask for words to narrow the list with."""

    @dataclass
    class Loaded(Message):
        """The list was read from disk (in a thread) and is on screen."""

        count: int
        """How many entries it shows."""

    def __init__(self, root: Path, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.root = root
        self.entries: list[HistoryEntry] = []  # those shown: the ones the search matches
        self.all_entries: list[HistoryEntry] = []
        self.search = ""
        self.marked: Path | None = None
        """The entry marked with ``m``, to compare another with (``=``)."""
        self._width = 0

    def on_mount(self) -> None:
        self.app.theme_changed_signal.subscribe(self, self._on_theme_changed)

    def _on_theme_changed(self, theme: Any) -> None:
        """Method and status colours come from the theme: repaint them."""
        if self.entries:
            self._redraw()

    # -- data ---------------------------------------------------------------------------------

    @work(exclusive=True, group="history", exit_on_error=False)
    async def reload(self) -> None:
        """Read the history again (in a thread) and redraw, keeping the highlighted entry."""
        entries = await asyncio.to_thread(list_entries, self.root)
        self.show_entries(entries)
        self.post_message(self.Loaded(len(entries)))

    def show_entries(self, entries: list[HistoryEntry]) -> None:
        current = self.current
        self.all_entries = entries
        self.entries = [e for e in entries if matches(e, self.search)] if self.search else entries
        self._redraw()
        if current is not None:
            index = next((i for i, e in enumerate(entries) if e.path == current.path), None)
            if index is not None:
                self.highlighted = index

    @property
    def current(self) -> HistoryEntry | None:
        index = self.highlighted
        if index is None or not 0 <= index < len(self.entries):
            return None
        return self.entries[index]

    # -- drawing ------------------------------------------------------------------------------

    def set_search(self, words: str) -> None:
        """Show only the entries whose name, URL, status or environment holds each of
        ``words``."""
        self.search = words.strip()
        self.show_entries(self.all_entries)

    def _redraw(self) -> None:
        highlighted = self.highlighted
        self._width = self.scrollable_content_region.width
        self.clear_options()
        if not self.entries:
            empty = (
                f"Nothing matches “{self.search}”."
                if self.all_entries
                else ("No sends yet: ctrl+r sends a request.")
            )
            self.add_option(Option(Text(empty, style="dim"), disabled=True))
            return
        now = datetime.now().astimezone()
        self.add_options(
            Option(self._prompt(e, now), id=str(i)) for i, e in enumerate(self.entries)
        )
        if highlighted is not None:
            self.highlighted = min(highlighted, len(self.entries) - 1)
        elif self.entries:
            self.highlighted = 0

    def _style(self, name: str) -> Style:
        return self.get_component_rich_style(f"history-list--{name}", partial=True)

    def _prompt(self, entry: HistoryEntry, now: datetime) -> Text:
        muted = self._style("muted")
        kind = self._style(status_kind(entry.status))
        if entry.status is not None:
            status = str(entry.status)
        else:
            status = "cancelled" if entry.error_kind == "cancelled" else "ERR"
        colour = method_colour(self.app.current_theme, entry.method)
        width = max(self._width, 12)
        text = Text()
        if entry.path == self.marked:
            text.append("◆ ", Style(bold=True))
        if width >= 22:  # narrower, the status and its time come first: the clock goes
            text.append(short_time(entry.started_at, now, seconds=width >= 26), muted)
            text.append(" ")
        text.append(entry.method[:6], Style(color=colour, bold=True))
        text.append(" ")
        text.append(status, kind + Style(bold=True))
        if entry.environment:  # before the duration: a narrow list cuts that first
            text.append(f" {printable(entry.environment)[:20]}", Style(italic=True))
        text.append(f" {duration(entry.total_ms)}", muted)
        text.truncate(width, overflow="ellipsis")  # the list would wrap it
        text.append("\n  ")
        room = width - 2
        if entry.request_name:  # the name first, in at most half the line; the URL after it
            name = Text(printable(entry.request_name), Style(bold=True))
            name.truncate(max(room // 2, 6), overflow="ellipsis")
            text.append_text(name)
            text.append(" · ", muted)
            room -= len(name) + 3
        text.append(short_url(printable(entry.url), max(room, 6)))
        return text

    def on_resize(self) -> None:
        if self.entries and self.scrollable_content_region.width != self._width:
            self._redraw()

    # -- actions ------------------------------------------------------------------------------

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        entry = self.current
        if entry is not None:
            self.post_message(self.Open(entry))

    def action_resend(self) -> None:
        entry = self.current
        if entry is not None:
            self.post_message(self.Resend(entry))

    def action_delete(self) -> None:
        entry = self.current
        if entry is not None:
            self.post_message(self.Delete(entry))

    def action_search(self) -> None:
        self.post_message(self.SearchRequested())

    def action_mark(self) -> None:
        """Mark the entry to compare another with (``m`` again on it: unmark)."""
        entry = self.current
        if entry is None:
            return
        self.marked = None if entry.path == self.marked else entry.path
        self._redraw()
        if self.marked is not None:
            self.notify("Marked: = on another entry compares the two.")

    def action_diff(self) -> None:
        entry = self.current
        marked = next((e for e in self.all_entries if e.path == self.marked), None)
        if entry is None or marked is None or entry.path == marked.path:
            self.notify("Mark an entry with m, then press = on another to compare them.")
            return
        old, new = sorted((marked, entry), key=lambda e: e.started_at)
        self.post_message(self.Diff(old, new))

    def action_prune(self) -> None:
        """Drop the entries older than the config's ``history_max_age_days`` first (when set),
        then let the history pane ask how many of the rest to keep."""
        days = session_of(self).config.history_max_age_days
        if days:
            self._prune_by_age(days)
        else:
            self.post_message(self.Prune(len(self.all_entries)))

    @work(exclusive=True, group="history-prune", exit_on_error=False)
    async def _prune_by_age(self, days: float) -> None:
        try:
            removed = await asyncio.to_thread(prune, self.root, older_than=timedelta(days=days))
        except (OSError, ValueError) as exc:
            self.app.notify(f"Not pruned: {exc}", severity="error", timeout=8)
        else:
            if removed:
                age = f"{days:g} day{'' if days == 1 else 's'}"
                self.app.notify(
                    f"Removed {removed} history entr{'y' if removed == 1 else 'ies'} "
                    f"older than {age}."
                )
                self.show_entries(await asyncio.to_thread(list_entries, self.root))
        self.post_message(self.Prune(len(self.all_entries)))
