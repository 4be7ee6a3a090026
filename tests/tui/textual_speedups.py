"""What makes the app's Pilot tests fast, and the one check that allows it.

Each speed-up reaches into Textual's private names (Textual has no public hook for any of
them): they are applied only under a Textual version they were written against
(``WRITTEN_FOR``). Under any other version the tests run as Textual runs them, slower but
whole, and the run's header says so once (``tests/conftest.py``), so an upgrade cannot break
them in silence. To allow a new version, read each name of ``PRIVATE_NAMES`` again in its
source, then add it to ``WRITTEN_FOR``.
"""

from __future__ import annotations

import asyncio
from asyncio import FIRST_COMPLETED
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from functools import partial
from typing import Any
from weakref import WeakSet

import pytest
import textual
from textual.app import App
from textual.pilot import Pilot, WaitForScreenTimeout
from textual.screen import Screen
from textual.scroll_view import ScrollView
from textual.widget import Widget

from pigeon.tui.painted import Painted

WRITTEN_FOR = frozenset({"8.2.8"})

PRIVATE_NAMES: dict[str, str] = {
    "textual.screen.Screen._compositor_refresh": "replaced: under run_test a frame is drawn for "
    "nobody, so only the widgets the app waits to see drawn (pigeon.tui.painted) are drawn; "
    "drawing was a third of a Pilot test's CPU",
    "textual.screen.Screen._compositor": "read: its visible widgets",
    "textual.screen.Screen._dirty_widgets": "cleared, as a refresh clears it",
    "textual.screen.Screen._refresh_layout": "called to lay out the screen a test ends on",
    "textual.app.App._update_mouse_over": "called, as a refresh calls it",
    "textual.app.App._background_screens": "the screens under the last one, drawn with it",
    "textual.scroll_view.ScrollView.render": "Textual's own blank, as Widget.render and "
    "Screen.render are: a widget whose drawing is only that and its styles is not drawn at a "
    "test's end",
    "textual.css.stylesheet.Stylesheet._parse_rules": "wrapped by one cache a process: every "
    "app parses the same stylesheets with the same variables, some 30 ms a test",
    "textual._wait.SLEEP_GRANULARITY": "5 ms, not 20: Pilot waits for an idle app in sleeps "
    "of this length, and those sleeps were most of a test's time",
    "textual._wait.SLEEP_IDLE": "a twentieth of the step, as Textual has it (idle is under 5% "
    "of a CPU)",
    "textual.css.model.RuleSet.__hash__": "replaced by object's own: the same identity hash "
    "(``id``), computed without a Python call. Every style pass hashes each of the app's ~500 "
    "rules for each widget it restyles: 12 million calls, a twentieth of a Pilot test's CPU",
    "textual.message_pump.MessagePump._get_dispatch_methods": "replaced by the same walk over "
    "a plan made once a test for each pump class, handler name and message class: the classes "
    "of the pump's MRO with a handler for it. Textual walks the whole MRO (some 40 classes for "
    "a widget) and the message's for every message, a twentieth of a Pilot test's CPU",
    "textual.message_pump.MessagePump._decorated_handlers": "read, as Textual reads it: the "
    "``@on`` handlers of a class, by message class",
    "textual._callback.count_parameters": "replaced: a ``partial``'s count is its function's "
    "(counted once and kept on the function, as Textual keeps it) less the arguments it "
    "holds. Textual counted each new ``partial`` with ``inspect.signature``: every "
    "``call_later`` makes one, and Pilot makes one for each widget of the screen at each "
    "key it presses and each pause",
    "textual.pilot.Pilot._wait_for_screen": "replaced by the same wait, asking only the "
    "pumps that are not idle: Pilot sends every widget of the screen a callback at each key "
    "and each pause, and a widget waiting for its next message with none queued has nothing "
    "to finish (a refresh, ``call_next`` and every message wake it through its queue)",
    "textual.message_pump.MessagePump._message_queue": "read: empty, and its ``ready_event`` "
    "awaited by the pump's own task, is a pump at rest",
    "textual._queue.Queue.values": "read: the messages a pump has yet to take",
    "textual._queue.Queue.ready_event": "read: its waiters (asyncio's ``Event._waiters``) are "
    "the pump's own task, waiting for a message",
    "textual.app.App._exception_event": "awaited, as Pilot awaits it",
    "textual._styles_cache.StylesCache.get_inner_outer": "its lru_cache is cleared after each "
    "test: it kept the widgets of up to 1,024 dead apps alive for the collector to walk",
}

SLEEP_STEP = 1 / 200  # seconds: Pilot's step while it waits for the app to go idle


def refusal(version: str | None = None) -> str | None:
    """Why the speed-ups are not applied under Textual ``version`` (the installed one when not
    given), or None when they were written against it."""
    version = textual.__version__ if version is None else version
    if version in WRITTEN_FOR:
        return None
    return (
        f"textual {version}: the app's tests run without their speed-ups, which use private "
        f"names of Textual {', '.join(sorted(WRITTEN_FOR))} (tests/tui/textual_speedups.py)"
    )


_applied = False
_awaiting_paint: WeakSet[Widget] = WeakSet()


def _unseen_refresh(original: Any) -> Any:
    def refresh(screen: Screen) -> None:
        """Keep the layout, the hover and the dirty marks as a refresh does, but draw only the
        widgets on screen that the app waits to see drawn. A test draws the screen it ends on
        (``_run_test_drawing_the_end``), a snapshot the screen it takes (``export_screenshot``
        draws it in full)."""
        app = screen.app
        if screen is not app.screen:
            original(screen)
            return
        if _awaiting_paint:
            visible = screen._compositor.visible_widgets
            for widget in [widget for widget in _awaiting_paint if widget in visible]:
                _awaiting_paint.discard(widget)
                widget.render_lines(widget.size.region)
        screen._dirty_widgets.clear()
        app._update_mouse_over(screen)

    return refresh


def _painted_wait_noted(original: Any) -> Any:
    async def wait(painted: Painted, widget: Widget, timeout: float) -> None:
        _awaiting_paint.add(widget)
        await original(painted, widget, timeout)

    return wait


def _run_test_drawing_the_end(original: Any) -> Any:
    @asynccontextmanager
    async def run_test(app: App, *args: Any, **kwargs: Any) -> AsyncIterator[Pilot]:
        """``App.run_test`` drawing the screen the test ends on, so a widget that cannot draw
        its final state still fails the test. Each widget that draws content of its own is
        drawn in full; containers, which draw only their styles (backgrounds, borders, and
        titles made when they were set), are not: they were two thirds of the drawing."""
        async with original(app, *args, **kwargs) as pilot:
            yield pilot
            if app.return_code is not None or not app.screen_stack:
                return
            app.screen._refresh_layout()
            for screen in (*app._background_screens, app.screen):
                for widget in list(screen._compositor.visible_widgets):
                    if _draws_content(type(widget)):
                        widget.render_lines(widget.size.region)

    return run_test


_BLANK_RENDERS = (Widget, ScrollView, Screen)  # Textual's: their render is a blank region
_content_of: dict[type, bool] = {}


def _draws_content(widget_class: type) -> bool:
    """Whether a widget of ``widget_class`` draws something besides its styles: a class of
    its MRO, below Textual's blank renders, defines ``render``, ``render_line`` or
    ``render_lines``."""
    drawn = _content_of.get(widget_class)
    if drawn is None:
        drawn = False
        for cls in widget_class.__mro__:
            if cls in _BLANK_RENDERS:
                break
            if {"render", "render_line", "render_lines"} & cls.__dict__.keys():
                drawn = True
                break
        _content_of[widget_class] = drawn
    return drawn


_Plan = tuple[tuple[type, tuple[tuple[Any, dict], ...]], ...]
_dispatch_plans: dict[tuple[type, str, type], _Plan] = {}


def _dispatch_plan(pump: type, method_name: str, message: type) -> _Plan:
    """The classes of ``pump``'s MRO that handle ``message``: each with its ``@on`` handlers
    for the message's classes, in Textual's order. A class is in the plan when it has either
    those or a method named for the message; the method itself is looked up as it is called."""
    from textual.message import Message

    message_mro = [cls for cls in message.__mro__ if issubclass(cls, Message)]
    plan = []
    for cls in pump.__mro__:
        decorated: list[tuple[Any, dict]] = []
        handlers = cls.__dict__.get("_decorated_handlers")
        if handlers:
            for message_class in message_mro:
                decorated.extend(handlers.get(message_class, []))
        if decorated or f"_{method_name}" in cls.__dict__ or method_name in cls.__dict__:
            plan.append((cls, tuple(decorated)))
    return tuple(plan)


def _planned_dispatch(original: Any) -> Any:
    from textual._on import OnNoWidget
    from textual.css.match import match

    def get_dispatch_methods(self: Any, method_name: str, message: Any) -> Iterator[tuple]:
        """``MessagePump._get_dispatch_methods``, walking only the classes of the plan."""
        key = (self.__class__, method_name, message.__class__)
        plan = _dispatch_plans.get(key)
        if plan is None:
            plan = _dispatch_plans[key] = _dispatch_plan(*key)
        private_name = f"_{method_name}"
        methods_dispatched: set = set()
        for cls, decorated in plan:
            if message._no_default_action:
                break
            for method, selectors in decorated:
                if method in methods_dispatched:
                    continue
                if selectors:
                    if not message._sender:
                        continue
                    for attribute, selector in selectors.items():
                        node = getattr(message, attribute)
                        if node is None:
                            break
                        if not isinstance(node, Widget):
                            raise OnNoWidget(
                                f"on decorator can't match against {attribute!r} as it is not "
                                "a widget."
                            )
                        if not match(selector, node):
                            break
                    else:
                        yield cls, method.__get__(self, cls)
                        methods_dispatched.add(method)
                    continue
                yield cls, method.__get__(self, cls)
                methods_dispatched.add(method)
            method = cls.__dict__.get(private_name) or cls.__dict__.get(method_name)
            if method is not None and not getattr(method, "_textual_on", None):
                yield cls, method.__get__(self, cls)

    get_dispatch_methods.__wrapped__ = original  # type: ignore[attr-defined]
    return get_dispatch_methods


def _counted_once(original: Any) -> Any:
    def count_parameters(func: Any) -> int:
        """``count_parameters``, counting a ``partial``'s function once."""
        if type(func) is partial:
            return count_parameters(func.func) - (len(func.args) + len(func.keywords))
        return original(func)

    count_parameters.__wrapped__ = original  # type: ignore[attr-defined]
    return count_parameters


def _at_rest(pump: Any) -> bool:
    """Whether ``pump`` waits for its next message with none queued: nothing it was sent is
    left to do. (A pump that never made its queue has not started: not at rest.)"""
    queue = pump.__dict__.get("_message_queue")
    return queue is not None and not queue.values and bool(queue.ready_event._waiters)


def _waiting_for_busy_pumps(original: Any) -> Any:
    async def wait_for_screen(pilot: Pilot, timeout: float = 30.0) -> bool:
        """``Pilot._wait_for_screen``: the app and the screen's widgets that are not at rest
        each run a callback once they have done what they were sent before it."""
        try:
            screen = pilot.app.screen
        except Exception:
            return False
        count = 0
        done = asyncio.Event()

        def one_done() -> None:
            nonlocal count
            count -= 1
            if count == 0:
                done.set()

        for pump in [pilot.app, *screen.walk_children(with_self=True)]:
            if not _at_rest(pump) and pump.call_later(one_done):
                count += 1
        if count:
            waits = [
                asyncio.create_task(done.wait()),
                asyncio.create_task(pilot.app._exception_event.wait()),
            ]
            _, pending = await asyncio.wait(waits, timeout=timeout, return_when=FIRST_COMPLETED)
            for task in pending:
                task.cancel()
            if len(pending) == len(waits):
                raise WaitForScreenTimeout(
                    "Timed out while waiting for widgets to process pending messages."
                )
            if count > 0:
                return False
        return True

    wait_for_screen.__wrapped__ = original  # type: ignore[attr-defined]
    return wait_for_screen


_rules_parsed: dict[tuple, list] = {}


def _parse_rules_once(original: Any) -> Any:
    def parse_rules(self: Any, css: str, read_from: tuple, *args: Any, **kwargs: Any) -> list:
        variables = self.__dict__.get("_variables_key")
        if variables is None or variables[0] is not self._variables:
            variables = (self._variables, tuple(sorted(self._variables.items())))
            self.__dict__["_variables_key"] = variables
        key = (css, read_from, args, tuple(sorted(kwargs.items())), variables[1])
        rules = _rules_parsed.get(key)
        if rules is None:
            rules = _rules_parsed[key] = original(self, css, read_from, *args, **kwargs)
        return rules

    return parse_rules


@contextmanager
def applied(version: str | None = None) -> Iterator[bool]:
    """Apply the speed-ups for as long as the block runs, when Textual ``version`` (the
    installed one when not given) is one they were written against; yield whether they are."""
    if refusal(version) is not None:
        yield False
        return
    from textual import _callback, _wait
    from textual.css.model import RuleSet
    from textual.css.stylesheet import Stylesheet
    from textual.message_pump import MessagePump

    global _applied
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(Screen, "_compositor_refresh", _unseen_refresh(Screen._compositor_refresh))
        patch.setattr(App, "run_test", _run_test_drawing_the_end(App.run_test))
        patch.setattr(Painted, "wait", _painted_wait_noted(Painted.wait))
        patch.setattr(Stylesheet, "_parse_rules", _parse_rules_once(Stylesheet._parse_rules))
        patch.setattr(RuleSet, "__hash__", object.__hash__)
        patch.setattr(Pilot, "_wait_for_screen", _waiting_for_busy_pumps(Pilot._wait_for_screen))
        patch.setattr(_callback, "count_parameters", _counted_once(_callback.count_parameters))
        patch.setattr(
            MessagePump,
            "_get_dispatch_methods",
            _planned_dispatch(MessagePump._get_dispatch_methods),
        )
        patch.setattr(_wait, "SLEEP_GRANULARITY", SLEEP_STEP)
        patch.setattr(_wait, "SLEEP_IDLE", SLEEP_STEP / 20)
        was_applied, _applied = _applied, True
        try:
            yield True
        finally:
            _applied = was_applied


def after_each_test() -> None:
    """While the speed-ups are applied, clear ``StylesCache.get_inner_outer``, an ``lru_cache``
    on a method, which keeps the line caches of up to 1,024 widgets alive after their app is
    gone (in one process running hundreds of apps, some 300,000 objects the collector walks
    after every test), and the dispatch plans, which hold the classes a test defined."""
    if not _applied:
        return
    from textual._styles_cache import StylesCache

    StylesCache.get_inner_outer.cache_clear()
    _dispatch_plans.clear()  # a class a test gave a handler is planned again
