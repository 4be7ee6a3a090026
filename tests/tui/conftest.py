"""Fixtures for the app's Pilot tests: a private config folder, an echo server, a copy of the
demo collection and the app on it."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
import textual_speedups
from tui_support import DEMO, make_app

from pigeon.echo import EchoServer
from pigeon.tui.app import PigeonApp


@pytest.fixture(scope="session", autouse=True)
def textual_speedups_fixture() -> Iterator[None]:
    """The speed-ups of ``textual_speedups``, when the installed Textual allows them."""
    with textual_speedups.applied():
        yield


@pytest.fixture(autouse=True)
def textual_speedups_after_each_test() -> Iterator[None]:
    yield
    textual_speedups.after_each_test()


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
