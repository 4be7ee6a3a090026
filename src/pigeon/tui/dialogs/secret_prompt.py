"""A prompt secret asked in the app (DESIGN §11): once a session, its answer masked as it is
typed, kept only in the session's memory; escape declines, and the send then says so."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

from textual.app import App, ComposeResult
from textual.containers import Vertical
from textual.widgets import Input, Label

from pigeon.model import SecretSource
from pigeon.tui.dialogs.form_modal import FormModal


class SecretPromptScreen(FormModal[str | None]):
    """``enter`` gives the typed secret, ``escape`` declines (``None``)."""

    FIELDS = ("secret-input",)

    def __init__(self, source: SecretSource) -> None:
        super().__init__()
        self.source = source

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label(f"Secret {self.source.name}", classes="title")
            yield Label(self.source.label)
            yield Input(password=True, id="secret-input")
            yield Label("enter: use it this session   escape: do not send", classes="hint")

    def _accept(self) -> None:
        self.dismiss(self.query_one("#secret-input", Input).value)


def ask_in(app: App[Any]) -> Callable[[SecretSource], Awaitable[str | None]]:
    """``Session.ask_secret`` for the app: the dialog, awaited until it is answered."""

    async def ask(source: SecretSource) -> str | None:
        answered: asyncio.Future[str | None] = asyncio.get_running_loop().create_future()

        def answer(value: str | None) -> None:
            if not answered.done():
                answered.set_result(value)

        app.push_screen(SecretPromptScreen(source), answer)
        return await answered

    return ask
