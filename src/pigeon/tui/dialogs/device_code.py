"""The device grant's dialog (RFC 8628): the code to enter and where, while Pigeon polls."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label

from pigeon.terminal import printable
from pigeon.tui.dialogs.form_modal import DIALOG_CSS

if TYPE_CHECKING:
    from pigeon.oauth2 import DevicePrompt


class DeviceCodeScreen(ModalScreen[None]):
    """Shown until the device is approved (the sign-in closes it) or escape gives up."""

    DEFAULT_CSS = DIALOG_CSS
    BINDINGS = [Binding("escape", "dismiss", "Give up", id="dialog.cancel")]

    def __init__(self, prompt: DevicePrompt) -> None:
        super().__init__()
        self.prompt = prompt

    def compose(self) -> ComposeResult:
        p = self.prompt
        with Vertical(classes="dialog"):
            yield Label("Sign in on another device", classes="title")
            yield Label(f"Open {printable(p.verification_uri)}", classes="message")
            yield Label(f"and enter the code  {printable(p.user_code)}", id="device-code")
            if p.verification_uri_complete:
                yield Label(
                    f"(or open {printable(p.verification_uri_complete)}; copied)",
                    classes="message",
                )
            yield Label(
                f"Waiting for the approval; the code expires in {p.expires_in:.0f} s.",
                classes="hint",
            )
            yield Label("escape: give up", classes="hint")

    def on_mount(self) -> None:
        p = self.prompt
        self.app.copy_to_clipboard(p.verification_uri_complete or p.verification_uri)
