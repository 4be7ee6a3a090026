"""A paste of several lines into a one-line field: Textual's ``Input`` keeps the first line
and drops the rest without a word. Pigeon joins the lines with spaces and says so.

A paste over ``PASTE_LIMIT`` into a one-line field is refused with a word: an ``Input`` lays
out its whole line on each change, and 1.5 MB froze the app for seconds. (A curl command
in a field that takes it whole is imported, not typed, so it goes through.)
"""

from __future__ import annotations

from textual.widget import Widget
from textual.widgets import Input

PASTE_LIMIT = 64 * 1024  # characters a one-line field takes in one paste


def too_large(widget: Widget | None, text: str) -> bool:
    """Whether ``text`` pasted into ``widget`` is refused: a one-line field, over the limit."""
    if not isinstance(widget, Input) or len(text) <= PASTE_LIMIT:
        return False
    return not (getattr(widget, "pastes_curl", False) and _curl(text))


def joined(widget: Widget | None, text: str) -> tuple[str, int] | None:
    """``(the text as one line, how many lines it had)`` when ``text`` pasted into ``widget``
    would lose lines; ``None`` when it pastes as it is (a multi-line field, one line, a curl
    command in a field that takes it whole)."""
    if not isinstance(widget, Input) or getattr(widget, "pastes_curl", False) and _curl(text):
        return None
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if len(lines) < 2:
        return None
    return " ".join(lines), len(lines)


def _curl(text: str) -> bool:
    from pigeon.importers.curl import looks_like_curl

    return looks_like_curl(text)
