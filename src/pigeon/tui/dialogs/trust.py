"""Ask once whether to trust a collection, listing what it wants (DESIGN §8)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import Button, Label

from pigeon.terminal import printable
from pigeon.tui.dialogs.form_modal import YesNoModal, button_row

if TYPE_CHECKING:
    from textual.app import App

    from pigeon.model import Request
    from pigeon.session import Session


async def ensure_trust(app: App[Any], session: Session, request: Request) -> bool:
    """Whether the collection is trusted for a send of ``request``: asked once a session, when
    a request needs trust, listing what all of the collection wants; a yes is recorded in the
    trust store. Untrusted, the pipeline skips the scripts and refuses the rest
    (``pigeon.trust``)."""
    import asyncio

    if session.is_trusted():
        return True
    if session.trust_asked or not session.needs(request):
        return False
    session.trust_asked = True
    wants = await asyncio.to_thread(session.trust_wants)  # renders every request: off the loop
    if await app.push_screen_wait(TrustScreen(session.trust_key(), wants)):
        session.trust()
        return True
    return False


class TrustScreen(YesNoModal):
    """``True``: trust the collection (recorded); ``False``: not now (its scripts are skipped,
    its reads of the environment and of files outside it refused)."""

    BINDINGS = [
        Binding("escape,n", "answer(False)", "Not now", id="dialog.not_now"),
        Binding("t", "answer(True)", "Trust", id="dialog.trust"),
    ]

    def __init__(self, key: str, wants: list[str]) -> None:
        """``key``: the collection as the trust store records it; ``wants``: one line per
        kind of thing it asks for (``pigeon.trust.summary``)."""
        super().__init__()
        self._key = key
        self._wants = wants

    def compose(self) -> ComposeResult:
        wants = "\n".join(f"• {printable(line)}" for line in self._wants)
        with Vertical(classes="dialog"):
            yield Label("Trust this collection?", classes="title")
            yield Label(printable(self._key), id="trust-path", classes="message")
            yield Label(f"It wants:\n{wants}", id="trust-wants", classes="message")
            yield Label(
                "Scripts run with your permissions, and the environment and files go to the "
                "servers it names: trust only collections you wrote or have read. The answer "
                "is remembered. Not now: its scripts are skipped and those reads refused.",
                classes="message",
            )
            yield button_row(
                Button("Not now", id="no"), Button("Trust", id="yes", variant="warning")
            )
