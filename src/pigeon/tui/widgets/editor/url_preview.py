"""The rendered URL under the URL bar, unresolved placeholders highlighted, warnings below."""

from __future__ import annotations

import re

from rich.console import Group
from rich.text import Text
from textual.widgets import Static

from pigeon.tui.css import beside

_PLACEHOLDER = re.compile(r"\{\{(.*?)\}\}")


def preview_text(url: str, unresolved: list[str], warnings: list[str], error: str | None) -> Text:
    """One line for the URL (placeholders left verbatim are red and underlined), then the
    warnings and the error, if any."""
    if error:
        return Text.assemble(("✗ ", "bold red"), (error, "red"))
    text = Text.assemble(("→ ", "dim"))  # the arrow only: the URL is in the muted colour
    missing = {u.strip() for u in unresolved}
    pos = 0
    for match in _PLACEHOLDER.finditer(url):
        text.append(url[pos : match.start()])
        style = "bold red underline" if match.group(1).strip() in missing else ""
        text.append(match.group(0), style=style)
        pos = match.end()
    text.append(url[pos:])
    if unresolved:
        text.append(f"\n  unresolved: {', '.join(unresolved)}", style="red")
    for warning in warnings:
        text.append(f"\n  ⚠ {warning}", style="yellow")
    return text


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
        shown = (url, tuple(unresolved), tuple(warnings), error)
        if shown == self._shown:  # an update costs a relayout
            return
        self._shown = shown
        text = preview_text(url, unresolved, warnings, error)
        text.overflow = "fold"  # an error or a warning wraps: read in full
        if error:
            self.update(text)
            return
        # The URL keeps one line (it is in the bar above, whole); what is below it wraps.
        first, *rest = text.split("\n")
        first.no_wrap, first.overflow = True, "ellipsis"
        self.update(Group(first, *rest) if rest else first)
