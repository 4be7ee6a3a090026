"""The authorization code grant's dialog: the sign-in URL, and a field for the URL the browser
ended on (or the code), for when the browser cannot reach Pigeon's loopback redirect (SSH)."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Input, Label

from pigeon.terminal import printable
from pigeon.tui.dialogs.form_modal import FormModal


class SignInScreen(FormModal[str | None]):
    """``enter`` gives what was pasted; ``escape`` gives up (``None``). The URL is copied to
    the clipboard on opening (OSC 52, so over SSH too)."""

    FIELDS = ("sign-in-answer",)

    def __init__(self, url: str, loopback: bool) -> None:
        super().__init__()
        self.url, self.loopback = url, loopback

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label("Sign in", classes="title")
            yield Label("Open this URL in a browser (copied to the clipboard):", classes="hint")
            yield Label(printable(self.url), id="sign-in-url", classes="message")
            if self.loopback:
                yield Label(
                    "Pigeon takes the redirect itself when the browser runs on this machine. "
                    "Otherwise paste the URL the browser ended on (or the code):",
                    classes="message",
                )
            else:
                yield Label("Paste the URL the browser ended on (or the code):", classes="message")
            yield Input(placeholder="http://127.0.0.1/callback?code=...", id="sign-in-answer")
            yield Label("", classes="error", id="sign-in-error")
            yield Label("enter: sign in   escape: give up", classes="hint")

    def on_mount(self) -> None:
        self.app.copy_to_clipboard(self.url)
        self.query_one("#sign-in-answer", Input).focus()

    def _accept(self) -> None:
        value = self.query_one("#sign-in-answer", Input).value.strip()
        if not value:
            self.query_one("#sign-in-error", Label).update("paste the URL or the code")
            return
        self.dismiss(value)
