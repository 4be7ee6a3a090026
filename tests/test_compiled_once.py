"""The test modules the controller rewrites before the workers start are the ones the run
collects, and the workers' import hook reads them as its own."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import cast

import pytest

import compiled_once


def test_a_module_rewritten_before_the_workers_is_read_by_their_import_hook(
    tmp_path: Path, pytestconfig: pytest.Config, monkeypatch: pytest.MonkeyPatch
) -> None:
    if not compiled_once._rewrites(pytestconfig):
        pytest.skip("this pytest rewrites its test modules itself")
    from _pytest.assertion import rewrite

    module = tmp_path / "test_sample.py"
    module.write_text("def test_sum():\n    total = 1 + 1\n    assert total == 3\n")
    monkeypatch.setattr(compiled_once, "_config", pytestconfig)
    compiled_once._rewrite([module])

    pyc = rewrite.get_cache_dir(module) / ("test_sample" + rewrite.PYC_TAIL)
    state = pytestconfig.stash[rewrite.assertstate_key]
    code = rewrite._read_pyc(module, pyc, state.trace)
    assert code is not None  # the hook takes it: same format, same source stamp
    namespace: dict[str, object] = {}
    exec(code, namespace)
    with pytest.raises(AssertionError) as failed:
        namespace["test_sum"]()  # type: ignore[operator]
    assert "assert 2 == 3" in str(failed.value)  # rewritten: the message shows the values

    written = pyc.stat()
    compiled_once._rewrite([module])  # up to date: not written again
    assert (pyc.stat().st_ino, pyc.stat().st_mtime_ns) == (written.st_ino, written.st_mtime_ns)


def test_only_what_the_run_collects_is_rewritten(tmp_path: Path) -> None:
    tests = tmp_path / "tests"
    (tests / "tui").mkdir(parents=True)
    names = ["conftest.py", "test_a.py", "helpers.py", "tui/conftest.py", "tui/test_b.py"]
    for name in [*names, "tui/test_c.py"]:
        (tests / name).write_text("")
    (tmp_path / "test_outside.py").write_text("")

    def collected(*args: str) -> list[str]:
        config = SimpleNamespace(args=list(args), invocation_params=SimpleNamespace(dir=tmp_path))
        found = compiled_once._collected(cast(pytest.Config, config), tests)
        return [path.relative_to(tests).as_posix() for path in found]

    assert collected("tests/tui/test_b.py::test_x") == [
        "conftest.py",
        "tui/conftest.py",
        "tui/test_b.py",
    ]
    assert collected("tests") == [
        "conftest.py",
        "test_a.py",
        "tui/conftest.py",
        "tui/test_b.py",
        "tui/test_c.py",
    ]
    assert collected("test_outside.py") == []
