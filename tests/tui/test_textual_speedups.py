"""The speed-ups of the app's tests are applied only under a Textual they were written for."""

from __future__ import annotations

import importlib
import inspect
import re

import pytest
import textual
import textual_speedups
from textual import _wait
from textual.app import App
from textual.css.stylesheet import Stylesheet
from textual.screen import Screen

from pigeon.tui.painted import Painted

REPLACED = [
    (Screen, "_compositor_refresh"),
    (App, "run_test"),
    (Painted, "wait"),
    (Stylesheet, "_parse_rules"),
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
