"""Per-request settings: timeout, redirects (and credentials on them), TLS verification, and
whether the cookie jar's cookies are sent."""

from __future__ import annotations

import math

from textual.app import ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import Checkbox, Input, Label

from pigeon.model import Settings
from pigeon.tui.css import beside
from pigeon.tui.input_undo import UndoableInput
from pigeon.tui.widgets.editor.messages import RequestEdited


class SettingsEditor(VerticalScroll):
    DEFAULT_CSS = beside(__file__)

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._settings = Settings()

    def compose(self) -> ComposeResult:
        with Horizontal(classes="setting-row"):
            yield Label("Timeout (s)", classes="setting-label")
            yield UndoableInput(type="number", id="setting-timeout", compact=True)
        yield Label("", id="setting-error", classes="setting-error")
        yield Checkbox("Follow redirects", True, id="setting-redirects")
        yield Checkbox(
            "Keep credentials on redirects to another origin", False, id="setting-keep-auth"
        )
        yield Checkbox("Verify TLS certificates", True, id="setting-verify")
        yield Checkbox("Send cookies from the jar", True, id="setting-cookies")

    def show(self, settings: Settings) -> None:
        self._settings = settings
        with self.prevent(Input.Changed, Checkbox.Changed):
            self.query_one("#setting-timeout", Input).value = f"{settings.timeout:g}"
            self.query_one("#setting-redirects", Checkbox).value = settings.follow_redirects
            self.query_one("#setting-keep-auth", Checkbox).value = settings.keep_auth_on_redirect
            self.query_one("#setting-verify", Checkbox).value = settings.verify_tls
            self.query_one("#setting-cookies", Checkbox).value = settings.send_cookies
        self.query_one("#setting-error", Label).update("")

    def on_input_changed(self, event: Input.Changed) -> None:
        event.stop()
        error = self.query_one("#setting-error", Label)
        try:
            timeout = float(event.value)
        except ValueError:
            error.update("a number of seconds, e.g. 30 or 2.5")
            return
        if not math.isfinite(timeout) or timeout <= 0:
            error.update("the timeout must be more than 0")
            return
        error.update("")
        self._settings.timeout = timeout
        self.post_message(RequestEdited())

    def on_checkbox_changed(self, event: Checkbox.Changed) -> None:
        event.stop()
        if event.checkbox.id == "setting-redirects":
            self._settings.follow_redirects = event.value
        elif event.checkbox.id == "setting-keep-auth":
            self._settings.keep_auth_on_redirect = event.value
        elif event.checkbox.id == "setting-cookies":
            self._settings.send_cookies = event.value
        else:
            self._settings.verify_tls = event.value
        self.post_message(RequestEdited())
