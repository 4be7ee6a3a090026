"""Keys in a burst go where the key before them left the focus, even when the app is held up
for longer than a key usually takes (a loaded machine): only a lost key stops holding the next
ones, never the clock."""

from __future__ import annotations

import time

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widget import Widget
from textual.widgets import Input
from tui_support import burst, wait_for

from pigeon.tui.key_order import KeysInOrder


class Slow(Widget, can_focus=True):
    """``f`` focuses the input; the app is held up while the key is on its way to it."""

    BINDINGS = [Binding("f", "to_input", "To the input")]

    def __init__(self) -> None:
        super().__init__()
        self.keys: list[str] = []

    def action_to_input(self) -> None:
        self.app.query_one(Input).focus()

    def on_key(self, event: events.Key) -> None:
        self.keys.append(event.key)
        if event.key == "f":  # the process does not run, as on a loaded machine, for longer
            time.sleep(0.7)  # than a key's trip was once allowed


class Burst(KeysInOrder):
    def compose(self) -> ComposeResult:
        yield Slow()
        yield Input()


async def test_a_held_up_app_still_sends_the_keys_after_f_to_the_input() -> None:
    app = Burst()
    async with app.run_test() as pilot:
        slow = app.query_one(Slow)
        slow.focus()
        await pilot.press("x")  # a key before: the app watches keys' trips from now on
        await wait_for(pilot, lambda: not app.keys_pending)
        burst(app, "f", *"abc")
        field = app.query_one(Input)
        await wait_for(pilot, lambda: field.value == "abc" or len(slow.keys) > 2)
        await wait_for(pilot, lambda: not app.keys_pending)
        assert field.value == "abc" and slow.keys == ["x", "f"]
