"""Shared fixtures: a real echo server on 127.0.0.1 and a config/data home per test."""

from __future__ import annotations

import gc
import importlib.util
import itertools
import os
import re
import signal
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import settings

from pigeon.echo import EchoServer

# In CI the property tests draw the same examples every run, so a submission passes or fails on
# its code, not on the luck of a seed; on a developer's machine they keep exploring.
settings.register_profile("ci", derandomize=True, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")


def pytest_configure(config: pytest.Config) -> None:
    """Before any test: the collector's thresholds, ctrl+c heard (``_hear_ctrl_c``), and, in
    the controller, the package and the test modules compiled once (``compiled_once``).

    The youngest generation is collected every 50,000 allocations, not 700, and the older
    ones only between tests (``pytest_runtest_logfinish``). A test makes and drops a whole app:
    collected every 700 allocations, its objects lived long enough to be promoted and walked
    again and again while the app still held them, a fifth of the suite's CPU; collected
    between tests, they are mostly dead, and an old generation's pass walks them once."""
    gc.set_threshold(50_000, 1_000, 1_000)
    _hear_ctrl_c()
    if "PYTEST_XDIST_WORKER" not in os.environ:
        import pigeon
        from compiled_once import compile_before_the_workers

        tests = Path(__file__).parent
        compile_before_the_workers(config, [Path(pigeon.__file__).parent, tests], tests)


def _hear_ctrl_c() -> None:
    """A run started as a background job of a shell without job control ignores ctrl+c (the
    shell did that for it), and the processes its tests start, and interrupt as a terminal
    would, inherited that and never heard it: Python's default is put back."""
    if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


def pytest_collection_finish(session: pytest.Session) -> None:
    """What collecting imported (Textual, the package, every test module) lives until the run
    ends: frozen, no collection walks it again."""
    gc.freeze()


def pytest_runtest_logfinish() -> None:
    """Collect the two younger generations between tests, once a hundred young collections have
    passed since the last time: the garbage of finished tests, not the objects of a running app."""
    if gc.get_count()[1] >= 100:
        gc.collect(1)


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session: pytest.Session) -> None:
    """Freeze what the run leaves, garbage and all, so the five full collections pytest makes
    as it unconfigures walk nothing. Under ``-n`` those came after the worker had reported its
    end, and the controller gives a worker 5 s to exit before it sends the worker a SIGINT: on
    a loaded 2-core machine they took longer, and the interrupt landed in Hypothesis'
    garbage-collector callback, which printed a KeyboardInterrupt traceback at the end of a
    passing run. Collecting the garbage first cost a worker seconds at the end of its run, for
    memory the process gives back as it exits (what those collections would find unraisable
    was only warned of after the run's summary)."""
    gc.freeze()


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """Say once, after a run, when the app's tests ran without their speed-ups (the installed
    Textual is not one they were written against: ``tests/tui/textual_speedups.py``). The
    module is the one ``tests/tui/conftest.py`` imports."""
    speedups = sys.modules.get("textual_speedups")
    if speedups is None:
        path = Path(__file__).parent / "tui" / "textual_speedups.py"
        spec = importlib.util.spec_from_file_location("textual_speedups", path)
        assert spec is not None and spec.loader is not None
        speedups = sys.modules["textual_speedups"] = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(speedups)
    refusal = speedups.refusal()
    if refusal is not None:
        terminalreporter.write_sep("-", refusal, yellow=True)


_numbers = itertools.count()


def _fresh_dir(tmp_path_factory: pytest.TempPathFactory, name: str) -> Path:
    """A new directory ``name`` + a number under the run's base directory (a worker's own).
    pytest's ``mktemp`` finds the next number by listing the base directory, which every test
    adds to: a worker's thousandth test listed a thousand entries, twice (its ``tmp_path``
    and its homes), a few seconds of CPU over a run."""
    path = tmp_path_factory.getbasetemp() / f"{name}{next(_numbers)}"
    path.mkdir(mode=0o700)
    return path


@pytest.fixture
def tmp_path(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """pytest's ``tmp_path`` (a fresh directory named for the test, under the run's base
    directory), numbered by ``_fresh_dir``."""
    return _fresh_dir(tmp_path_factory, re.sub(r"\W", "_", request.node.name)[:30])


@pytest.fixture(autouse=True)
def isolated_config(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Path:
    """Point XDG config and data homes at fresh temporary directories: no test touches ~."""
    home = _fresh_dir(tmp_path_factory, "xdg")
    config, data = home / "config", home / "data"
    config.mkdir()
    data.mkdir()
    monkeypatch.setenv("XDG_CONFIG_HOME", str(config))
    monkeypatch.setenv("XDG_DATA_HOME", str(data))
    return home


@pytest.fixture(scope="session")
def shared_echo_server() -> Iterator[EchoServer]:
    """One echo server for the whole run, for tests that only read from it."""
    with EchoServer("127.0.0.1", 0) as server:
        yield server


@pytest.fixture
def echo_server() -> Iterator[EchoServer]:
    """A fresh echo server per test (its own tokens and connection count)."""
    with EchoServer("127.0.0.1", 0) as server:
        yield server


@pytest.fixture
def echo_url(echo_server: EchoServer) -> str:
    """The base URL of ``echo_server``, without a trailing slash."""
    return echo_server.url


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """``-n auto``: two workers a core. Much of the suite waits (on loopback servers, on
    deadlines, on the app going idle), so one worker a core leaves the cores half idle."""
    return 2 * len(os.sched_getaffinity(0))


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The type check goes first: its mypy process is the suite's longest test, and started
    first it ends while the other workers still have tests to run."""
    items.sort(key=lambda item: item.path.name != "test_typing.py")  # stable: the rest keep order
