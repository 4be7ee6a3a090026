"""A gRPC call's replies as rows, the events table's way (``EventsPanel``): newest in view as
they arrive, a filter (``/``: text in the reply), the selected reply in full below (``enter``;
JSON pretty-printed). A call is not resumed, so there is no reconnect here."""

from __future__ import annotations

import json
from typing import Any

from textual.widgets import Static

from pigeon.stream import Event
from pigeon.tui.widgets.response.event_table import ID_WIDTH, TYPE_WIDTH
from pigeon.tui.widgets.response.events_panel import EventsPanel, _Note

HEAD = f"{'time':<12} {'reply':<{TYPE_WIDTH}} {'#':<{ID_WIDTH}} message"


def reply_event(seq: int, value: Any, note: str = "", at: float = 0.0) -> Event:
    """A reply as a row: its number, its JSON on one line (or why it did not decode)."""
    if note:
        return Event("undecodable", str(seq), note, None, at)
    return Event("reply", str(seq), json.dumps(value, ensure_ascii=False), None, at)


class ReplyPanel(EventsPanel):
    """The replies of a call, live or finished (``add``/``show`` take ``reply_event`` rows)."""

    def on_mount(self) -> None:
        self.query_one("#events-head", Static).update(HEAD)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "reconnect":
            return False
        return super().check_action(action, parameters)

    def _update_note(self) -> None:
        total = self.total
        parts = [f"{total:,} repl{'ies' if total != 1 else 'y'}"]
        dropped = total - len(self._all)
        if dropped > 0:
            parts.append(f"{dropped:,} oldest dropped from view")
        if self._words or self._kind:
            parts.append(f"{len(self.table.rows):,} shown by the filter")
        if self.live:
            parts.append("following" if self.table.following else "paused: end follows again")
        self.query_one(_Note).text = " · ".join(parts)
