"""The rendered URL under the URL bar, unresolved placeholders highlighted, warnings below.

The preview fits in the rows its stylesheet allows (``max-height``): given one row for the
warnings (a short screen, ``screens/main.tcss``), it shows the first and a count of the rest,
``… 2 more``, and the whole list is its tooltip (and shows in full when the editor is zoomed).
"""

from __future__ import annotations

import re

from rich.console import Group
from rich.text import Text
from textual.widgets import Static

from pigeon.tui.css import beside

_PLACEHOLDER = re.compile(r"\{\{(.*?)\}\}")


def _url_text(url: str, unresolved: list[str]) -> Text:
    text = Text.assemble(("→ ", "dim"))  # the arrow only: the URL is in the muted colour
    missing = {u.strip() for u in unresolved}
    pos = 0
    for match in _PLACEHOLDER.finditer(url):
        text.append(url[pos : match.start()])
        style = "bold red underline" if match.group(1).strip() in missing else ""
        text.append(match.group(0), style=style)
        pos = match.end()
    text.append(url[pos:])
    return text


def _notes(unresolved: list[str], warnings: list[str]) -> list[Text]:
    """One line each, indented, for the unresolved placeholders and every warning."""
    notes = [Text(f"  unresolved: {', '.join(unresolved)}", style="red")] if unresolved else []
    return notes + [Text(f"  ⚠ {warning}", style="yellow") for warning in warnings]


def preview_text(url: str, unresolved: list[str], warnings: list[str], error: str | None) -> Text:
    """One line for the URL (placeholders left verbatim are red and underlined), then the
    warnings and the error, if any."""
    if error:
        return Text.assemble(("✗ ", "bold red"), (error, "red"))
    text = _url_text(url, unresolved)
    for note in _notes(unresolved, warnings):
        text.append("\n")
        text.append_text(note)
    return text


def one_line(notes: list[Text], width: int) -> Text:
    """The first note cut to fit ``width`` cells with the count of the others after it."""
    more = Text(f"  … {len(notes) - 1} more", style="dim") if len(notes) > 1 else Text("")
    line = notes[0].copy()
    line.truncate(max(3, width - more.cell_len), overflow="ellipsis")
    line.append_text(more)
    line.no_wrap, line.overflow = True, "ellipsis"
    return line


class UrlPreview(Static):
    DEFAULT_CSS = beside(__file__)

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("", id=id)
        self.url = ""
        self.unresolved: list[str] = []
        self.warnings: list[str] = []
        self.error: str | None = None
        self._shown: tuple[object, ...] = ()

    def show(
        self, url: str, unresolved: list[str], warnings: list[str], error: str | None = None
    ) -> None:
        self.url, self.unresolved, self.warnings, self.error = (
            url,
            list(unresolved),
            list(warnings),
            error,
        )
        self._draw()

    @property
    def rows(self) -> int | None:
        """The rows the stylesheet allows the preview (``None``: as many as it needs)."""
        limit = self.styles.max_height
        return int(limit.value) if limit is not None and limit.is_cells else None

    def notify_style_update(self) -> None:
        """The screen grew or shrank past the short height: fit the rows allowed now."""
        super().notify_style_update()
        if self._shown:
            self._draw()

    def on_resize(self) -> None:
        if self._shown and self._shown[-2]:  # one line of notes: cut to the new width
            self._draw()

    def _draw(self) -> None:
        url, unresolved, warnings, error = self.url, self.unresolved, self.warnings, self.error
        notes = _notes(unresolved, warnings) if not error else []
        capped = bool(notes) and self.rows is not None and self.rows <= 2
        width = self.size.width if capped else 0
        shown = (url, tuple(unresolved), tuple(warnings), error, capped, width)
        if shown == self._shown:  # an update costs a relayout
            return
        self._shown = shown
        if error:
            self.tooltip = None
            text = preview_text(url, unresolved, warnings, error)
            text.overflow = "fold"  # an error wraps: read in full
            self.update(text)
            return
        # The URL keeps one line (it is in the bar above, whole); what is below it wraps.
        first = _url_text(url, unresolved)
        first.no_wrap, first.overflow = True, "ellipsis"
        if capped:
            self.tooltip = Text("\n").join(notes)
            self.update(Group(first, one_line(notes, width or 80)))
            return
        self.tooltip = None
        for note in notes:
            note.overflow = "fold"  # a warning wraps: read in full
        self.update(Group(first, *notes))
