"""Keys in a burst (a paste, a macro, fast typing over SSH) go where the keys before them left
the focus.

Textual hands each key to the widget focused when the key is read, but a binding runs only
once the key has bubbled back up to the app: a burst is read whole first, so in ``f`` +
``length(items)`` + enter every key after ``f`` went to the body view (``s`` saved the body)
instead of the filter bar ``f`` opens. ``KeysInOrder`` holds each key back until the one
before it has been handled all the way up, focus moves included.

A key whose marker is lost (a widget on its way removed) stops holding the next ones after
``HOLD_CHECKS`` checks of the app's loop, never after a span of wall time: on a loaded machine
the process may not run for half a second, and a clock would then let the next key go to the
widget the key before it was about to leave.
"""

from __future__ import annotations

from collections import deque

from textual import events
from textual.app import App
from textual.message import Message
from textual.screen import Screen
from textual.timer import Timer
from textual.widget import Widget

CHECK_EVERY = 0.02  # seconds: how often a held burst looks for a trip cut short
HOLD_CHECKS = 25  # checks (half a second, when the app runs): a trip that never ends


class KeyPassed(Message):
    """Follows a key up from the widget it went to: when it reaches the app, the key has been
    handled by every widget on the way and by the bindings."""

    def __init__(self, number: int) -> None:
        super().__init__()
        self.number = number


class KeysInOrder(App[int]):
    """An app that hands a key (or a paste) to a widget only once the one before it is done."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self._held: deque[events.Event] = deque()
        self._in_flight = 0  # the number of the key on its way, 0 when none
        self._key_number = 0
        self._trip: tuple[Widget, Screen[object]] | None = None  # where the key went
        self._checks = 0  # the checks made since the key went
        self._watch: Timer | None = None

    async def on_event(self, event: events.Event) -> None:
        if not isinstance(event, (events.Key, events.Paste)) or event.is_forwarded:
            await super().on_event(event)
            return
        if self._in_flight:
            self._held.append(event)
            return
        await self._pass(event)

    @property
    def keys_pending(self) -> bool:
        """Whether a key is still on its way to the app or held back behind one."""
        return bool(self._in_flight or self._held)

    def before_passing(self, event: events.Event) -> events.Event:
        """The event as the focused widget is to get it (an app may change a paste)."""
        return event

    async def _pass(self, event: events.Event) -> None:
        await super().on_event(self.before_passing(event))
        screen = self.screen
        target = self.focused or screen
        self._key_number += 1
        if target.post_message(KeyPassed(self._key_number)):
            self._in_flight = self._key_number
            self._trip, self._checks = (target, screen), 0
            if self._watch is None:
                self._watch = self.set_interval(CHECK_EVERY, self._check_trip)
            else:
                self._watch.resume()

    def on_key_passed(self, message: KeyPassed) -> None:
        message.stop()
        if message.number == self._in_flight:
            # After what the key's binding queued (a focus change is a call_later).
            self.call_later(self._release, message.number)

    async def _check_trip(self) -> None:
        """A marker is lost with the widgets it was passing through (a dialog closed by the
        key): the next key goes as soon as that shows, or after ``HOLD_CHECKS`` checks. The
        timer skips the ticks the process missed, so a check is made only when it runs."""
        if self._trip is None:
            return
        target, screen = self._trip
        self._checks += 1
        if not target.is_attached or self.screen is not screen or self._checks > HOLD_CHECKS:
            await self._release(self._in_flight)

    async def _release(self, number: int) -> None:
        if number != self._in_flight:
            return  # released already (its marker, or the watch, came first)
        self._in_flight = 0
        self._trip = None
        if self._watch is not None:
            self._watch.pause()
        while self._held and not self._in_flight:
            await self._pass(self._held.popleft())
