"""The line under the panes: what the session is sending with, and what needs a look."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual.widgets import Static

from pigeon.tui.css import beside

if TYPE_CHECKING:
    from pigeon.session import Session


class SessionStatus(Static):
    """The environment, the demo's echo server, how many runtime variables scripts set, how
    many script errors the log holds (f2), and a passing note such as "send cancelled"."""

    DEFAULT_CSS = beside(__file__)

    def show(self, session: Session, extra: str = "") -> None:
        s = session
        parts = [Text.assemble(("env ", "dim"), (s.environment or "none", "bold"))]
        if s.echo is not None:
            parts.append(Text(f"echo server on {s.echo.url}", style="green"))
        if len(s.runtime):
            parts.append(Text(f"{len(s.runtime)} runtime var(s)", style="yellow"))
        errors = sum(1 for e in s.log if e.error)
        if errors:
            parts.append(Text(f"{errors} script error(s): f2", style="red"))
        if extra:
            parts.append(Text(extra))
        text = Text("  ·  ").join(parts)
        if text != self.content:  # an update costs a relayout; a send mostly changes nothing
            self.update(text)
