"""``pigeon.bodies``, the one face of the body helpers: its names, and no filter library loaded
until a filter runs (start-up time is a product goal)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from pigeon import bodies
from pigeon.errors import PigeonError


def test_the_face_offers_every_name_it_lists_and_the_old_home_is_gone() -> None:
    for name in bodies.__all__:
        assert getattr(bodies, name) is not None, name
    with pytest.raises(ModuleNotFoundError):
        __import__("pigeon.bodyformat")


def test_a_filter_library_is_imported_by_the_first_filter_not_by_the_import() -> None:
    code = (
        "import sys\n"
        "import pigeon.bodies as bf\n"
        "libs = lambda: sorted(m for m in ('jmespath', 'jsonpath_ng') if m in sys.modules)\n"
        "print(libs())\n"
        "bf.apply_filter({'a': 1}, 'a')\n"
        "print(libs())\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    ).stdout.splitlines()
    assert out == ["[]", "['jmespath']"]


def test_a_filter_error_is_in_the_error_tree_and_still_a_value_error() -> None:
    with pytest.raises(bodies.FilterError, match="empty expression") as exc:
        bodies.apply_filter({}, "  ")
    assert isinstance(exc.value, PigeonError) and isinstance(exc.value, ValueError)


def test_which_text_bodies_show_as_json() -> None:
    from pigeon.bodies import shows_as_json

    assert shows_as_json("json", "application/json", "nope", truncated=False)
    assert shows_as_json("text", "", ' {"a": 1}', truncated=False)  # undeclared, looks like it
    assert shows_as_json("text", "text/plain", "[1]", truncated=False)
    assert not shows_as_json("text", "text/html", "[1]", truncated=False)
    assert not shows_as_json("json", "application/json", '{"a": ', truncated=True)  # cut short
