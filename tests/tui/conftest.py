"""Fixtures for the app's Pilot tests: a private config folder, an echo server, a copy of the
demo collection and the app on it."""

from __future__ import annotations

import shutil
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from weakref import WeakSet

import pytest
from textual import _wait as textual_wait
from textual._styles_cache import StylesCache
from textual.app import App
from textual.css.stylesheet import Stylesheet
from textual.pilot import Pilot
from textual.screen import Screen
from textual.widget import Widget
from tui_support import DEMO, make_app

from pigeon.echo import EchoServer
from pigeon.tui.app import PigeonApp
from pigeon.tui.painted import Painted

_run_test = App.run_test
_compositor_refresh = Screen._compositor_refresh
_painted_wait = Painted.wait
_awaiting_paint: WeakSet[Widget] = WeakSet()


async def _painted_wait_noted(painted: Painted, widget: Widget, timeout: float) -> None:
    _awaiting_paint.add(widget)
    await _painted_wait(painted, widget, timeout)


def _unseen_refresh(screen: Screen) -> None:
    """An app under test draws its frames for nobody: keep the layout, the hover and the dirty
    marks as a refresh does, but draw only the widgets on screen that the app waits to see
    drawn (``pigeon.tui.painted``). Drawing was a third of the CPU of a Pilot test. A test
    draws the screen it ends on (``_run_test_drawing_the_end``), a snapshot the screen it
    takes (``export_screenshot`` draws it in full)."""
    app = screen.app
    if screen is not app.screen:
        _compositor_refresh(screen)
        return
    if _awaiting_paint:
        visible = screen._compositor.visible_widgets
        for widget in [widget for widget in _awaiting_paint if widget in visible]:
            _awaiting_paint.discard(widget)
            widget.render_lines(widget.size.region)
    screen._dirty_widgets.clear()
    app._update_mouse_over(screen)


@asynccontextmanager
async def _run_test_drawing_the_end(app: App, *args, **kwargs) -> AsyncIterator[Pilot]:
    """``App.run_test`` without drawing each frame, drawing in full the screen the test ends
    on, so a widget that cannot draw its final state still fails the test."""
    async with _run_test(app, *args, **kwargs) as pilot:
        yield pilot
        if app._exit or not app._screen_stack:
            return
        screen = app.screen
        screen._refresh_layout()
        screen._compositor.render_update(full=True, screen_stack=app._background_screens)


@pytest.fixture(autouse=True)
def draw_only_what_is_looked_at(monkeypatch: pytest.MonkeyPatch) -> None:
    """Pilot and snapshot tests check what the app holds and, through screenshots, what it
    shows: the frames in between need not be drawn."""
    monkeypatch.setattr(Screen, "_compositor_refresh", _unseen_refresh)
    monkeypatch.setattr(App, "run_test", _run_test_drawing_the_end)
    monkeypatch.setattr(Painted, "wait", _painted_wait_noted)


SLEEP_STEP = 1 / 200  # seconds: Pilot's step while it waits for the app to go idle
_parse_rules = Stylesheet._parse_rules
_rules_parsed: dict[tuple, list] = {}


def _parse_rules_once(self: Stylesheet, css: str, read_from: tuple, *args, **kwargs) -> list:
    """``Stylesheet._parse_rules`` with one cache for every app of the process. Each app
    parses the same stylesheets with the same theme variables: some 30 ms a Pilot test."""
    variables = self.__dict__.get("_variables_key")
    if variables is None or variables[0] is not self._variables:
        variables = (self._variables, tuple(sorted(self._variables.items())))
        self.__dict__["_variables_key"] = variables
    key = (css, read_from, args, tuple(sorted(kwargs.items())), variables[1])
    rules = _rules_parsed.get(key)
    if rules is None:
        rules = _rules_parsed[key] = _parse_rules(self, css, read_from, *args, **kwargs)
    return rules


@pytest.fixture(scope="session", autouse=True)
def parse_each_stylesheet_once() -> Iterator[None]:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(Stylesheet, "_parse_rules", _parse_rules_once)
        yield


@pytest.fixture(scope="session", autouse=True)
def idle_sooner() -> Iterator[None]:
    """Pilot waits for the app to go idle after each key and pause: it sleeps in steps of
    20 ms until a step used under 5% of a CPU. Steps of 5 ms (the same 5%) tell idle as
    well and wait a quarter as long: most of a Pilot test's time was these sleeps."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(textual_wait, "SLEEP_GRANULARITY", SLEEP_STEP)
        patch.setattr(textual_wait, "SLEEP_IDLE", SLEEP_STEP / 20)
        yield


@pytest.fixture(autouse=True)
def forget_dead_widgets() -> Iterator[None]:
    """Textual's ``StylesCache.get_inner_outer`` is an ``lru_cache`` on a method: it keeps the
    line caches of up to 1,024 widgets alive after their app is gone. In one process running
    hundreds of apps that is some 300,000 objects the collector walks after every test."""
    yield
    StylesCache.get_inner_outer.cache_clear()


@pytest.fixture(name="private_config", autouse=True)
def private_config_fixture(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Trust decisions and the config file go to a temporary folder, never the user's."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))


@pytest.fixture(name="echo")
def echo_fixture():
    server = EchoServer("127.0.0.1", 0).start()
    yield server
    server.stop()


@pytest.fixture(name="collection")
def collection_fixture(tmp_path: Path) -> Path:
    """A copy of the demo collection (saves must not touch the repo) plus one broken file."""
    assert DEMO is not None
    root = tmp_path / "demo"
    shutil.copytree(DEMO, root, ignore=shutil.ignore_patterns(".pigeon"))  # not its history
    (root / "users" / "broken.toml").write_text('name = "Broken"\nmethod = \n', encoding="utf-8")
    return root


@pytest.fixture(name="app")
def app_fixture(collection: Path, echo: EchoServer) -> PigeonApp:
    """The app on the demo copy, talking to the echo server; not yet running."""
    return make_app(collection, echo)
