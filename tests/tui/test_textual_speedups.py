"""The speed-ups of the app's tests are applied only under a Textual they were written for."""

from __future__ import annotations

import asyncio
import importlib
import inspect
import re
from functools import partial
from typing import Any

import pytest
import textual
import textual_speedups
from textual import _callback, _wait, events, on
from textual.app import App, ComposeResult
from textual.containers import Vertical
from textual.css.stylesheet import Stylesheet
from textual.message import Message
from textual.message_pump import MessagePump
from textual.pilot import Pilot
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Input, Static, Tree

from pigeon.tui.painted import Painted

REPLACED = [
    (Screen, "_compositor_refresh"),
    (App, "run_test"),
    (Painted, "wait"),
    (Stylesheet, "_parse_rules"),
    (MessagePump, "_get_dispatch_methods"),
    (Pilot, "_wait_for_screen"),
    (_callback, "count_parameters"),
]
UNDER_A_KNOWN_TEXTUAL = pytest.mark.skipif(
    textual.__version__ not in textual_speedups.WRITTEN_FOR,
    reason="the speed-ups are off under this Textual",
)
PATCHED = [*REPLACED, (_wait, "SLEEP_GRANULARITY"), (_wait, "SLEEP_IDLE")]


def test_the_speedups_refuse_a_textual_they_were_not_written_for() -> None:
    before = [getattr(owner, name) for owner, name in PATCHED]
    with textual_speedups.applied("9.0.0") as applied:
        assert applied is False
        assert [getattr(owner, name) for owner, name in PATCHED] == before
    reason = textual_speedups.refusal("9.0.0")
    assert reason is not None and reason.startswith("textual 9.0.0: ")
    assert "without their speed-ups" in reason


@UNDER_A_KNOWN_TEXTUAL
def test_the_speedups_are_applied_under_a_textual_they_were_written_for() -> None:
    version = min(textual_speedups.WRITTEN_FOR)
    assert textual_speedups.refusal(version) is None
    before = [getattr(owner, name) for owner, name in PATCHED]
    with textual_speedups.applied(version) as applied:
        assert applied is True
        for (owner, name), was in zip(REPLACED, before[: len(REPLACED)], strict=True):
            assert getattr(owner, name) is not was, name
        assert _wait.SLEEP_GRANULARITY == textual_speedups.SLEEP_STEP
    assert [getattr(owner, name) for owner, name in PATCHED] == before


@UNDER_A_KNOWN_TEXTUAL
@pytest.mark.parametrize("dotted", sorted(textual_speedups.PRIVATE_NAMES))
def test_each_private_name_the_speedups_use_is_in_the_textual_they_were_written_for(
    dotted: str,
) -> None:
    """A name is an attribute of its module or class, or one the class sets on ``self``."""
    parts = dotted.split(".")
    split = next(n for n in range(len(parts) - 1, 0, -1) if _is_module(".".join(parts[:n])))
    owner = importlib.import_module(".".join(parts[:split]))
    *path, name = parts[split:]
    for part in path:
        owner = getattr(owner, part)
    assert hasattr(owner, name) or re.search(rf"self\.{name}\b", inspect.getsource(owner)), dotted


def _is_module(name: str) -> bool:
    try:
        importlib.import_module(name)
    except ImportError:
        return False
    return True


class _Outer(Widget):
    def on_key(self, event: events.Key) -> None: ...

    @on(Input.Changed, "#first")
    def first_changed(self, event: Input.Changed) -> None: ...


class _Inner(_Outer):
    def _on_key(self, event: events.Key) -> None: ...

    @on(Input.Changed)
    def any_changed(self, event: Input.Changed) -> None: ...

    def on_input_changed(self, event: Input.Changed) -> None: ...

    def compose(self) -> ComposeResult:
        yield Input(id="first")
        yield Input(id="second")


class _Handlers(App[None]):
    def compose(self) -> ComposeResult:
        yield _Inner()

    def on_key(self, event: events.Key) -> None: ...


def _dispatched(pump: MessagePump, message: Message, walk: Any) -> list[tuple[type, Any, Any]]:
    return [
        (cls, method.__func__, method.__self__)
        for cls, method in walk(pump, message.handler_name, message)
    ]


@UNDER_A_KNOWN_TEXTUAL
@pytest.mark.parametrize("app_class", [_Handlers, "pigeon"])
async def test_the_planned_dispatch_finds_the_handlers_textual_finds(
    app_class: Any, app: App
) -> None:
    """For every node of an app, and messages handled by name, by ``@on`` with and without a
    selector, and with the default action prevented, the planned walk yields the handlers
    Textual's own walk yields, in its order."""
    planned = MessagePump._get_dispatch_methods
    textual_walk = planned.__wrapped__  # type: ignore[attr-defined]
    under_test = app if app_class == "pigeon" else app_class()
    async with under_test.run_test() as pilot:
        inputs = list(pilot.app.screen.query(Input))
        messages: list[Message] = [events.Key("a", "a"), events.Mount(), events.Focus()]
        for field in inputs[:2]:
            changed = Input.Changed(field, "x")
            changed.set_sender(field)
            messages.append(changed)
        prevented = events.Key("b", "b")
        prevented.prevent_default()
        messages.append(prevented)
        nodes = [pilot.app, *pilot.app.screen.walk_children(with_self=True)]
        found = 0
        for node in nodes:
            for message in messages:
                expected = _dispatched(node, message, textual_walk)
                assert _dispatched(node, message, planned) == expected, (node, message)
                found += len(expected)
        assert found > len(nodes)  # handlers were found, not only the empty lists compared


class _Breaks(Widget):
    broken = False

    def render(self) -> str:
        if self.broken:
            raise ValueError("cannot draw this")
        return "fine"


class _BreaksInABox(App[None]):
    def compose(self) -> ComposeResult:
        with Vertical():
            yield _Breaks()


@UNDER_A_KNOWN_TEXTUAL
async def test_a_widget_that_cannot_draw_the_state_a_test_ends_in_fails_the_test() -> None:
    app = _BreaksInABox()
    with pytest.raises(ValueError, match="cannot draw this"):
        async with app.run_test():
            app.query_one(_Breaks).broken = True  # never drawn before the test ends


@UNDER_A_KNOWN_TEXTUAL
def test_the_end_draws_what_widgets_show_not_the_boxes_around_them() -> None:
    draws = textual_speedups._draws_content
    assert draws(_Breaks) and draws(Static) and draws(Input) and draws(Tree)
    assert not draws(Vertical) and not draws(Widget) and not draws(Screen)


class _Slow(Widget):
    """Handles ``Work`` slowly: its pump is busy, its queue empty, while a handler awaits."""

    class Work(Message):
        def __init__(self, name: str) -> None:
            super().__init__()
            self.name = name

    def __init__(self, done: list[str]) -> None:
        super().__init__()
        self.done = done
        self.begun = asyncio.Event()

    async def on__slow_work(self, message: Work) -> None:
        self.begun.set()
        await asyncio.sleep(0.02)
        self.done.append(message.name)


class _Workers(App[None]):
    def __init__(self) -> None:
        super().__init__()
        self.done: list[str] = []

    def compose(self) -> ComposeResult:
        for _ in range(4):
            yield _Slow(self.done)


@UNDER_A_KNOWN_TEXTUAL
async def test_the_wait_for_the_screen_waits_for_every_pump_that_is_not_at_rest() -> None:
    """Pilot's wait, asking only the pumps not at rest, still returns only once each has
    handled what it was sent before the wait: queued, or being handled with none queued."""
    app = _Workers()
    async with app.run_test() as pilot:
        slow = list(app.query(_Slow))
        assert all(textual_speedups._at_rest(widget) for widget in slow)
        slow[0].post_message(_Slow.Work("handling"))
        await slow[0].begun.wait()  # in its handler, nothing queued: not at rest
        assert not slow[0]._message_queue.values and not textual_speedups._at_rest(slow[0])
        slow[1].post_message(_Slow.Work("queued"))
        slow[1].post_message(_Slow.Work("queued after"))
        slow[3].post_message(_Slow.Work("last"))
        assert not textual_speedups._at_rest(slow[1])
        await pilot._wait_for_screen()
        assert sorted(app.done) == ["handling", "last", "queued", "queued after"]
        assert all(textual_speedups._at_rest(widget) for widget in slow)


@UNDER_A_KNOWN_TEXTUAL
def test_a_partial_counts_the_parameters_its_function_has_left() -> None:
    def three(a: int, b: int, c: int) -> None: ...

    count = _callback.count_parameters
    textual_count = count.__wrapped__  # type: ignore[attr-defined]
    for made in (partial(three), partial(three, 1), partial(three, 1, c=2), partial(three, b=1)):
        assert count(made) == textual_count(made)
    assert count(partial(three, 1)) == 2 and count(three) == 3
