"""What the run's controller compiles once, before any worker starts.

Under ``-n`` every worker imports the package and collects every test module. On a fresh
clone, or under ``PYTHONDONTWRITEBYTECODE`` (which also stops pytest caching the test modules
it rewrites for assertion messages), each worker compiled the same modules again: the
package, and some 180 test modules rewritten, 4 s of CPU a worker before its first test.
The controller compiles them once, in as many processes as there are cores, and the workers
(and every ``pigeon`` process a test starts) read what it wrote.

Rewriting uses pytest's own rewriter, through names pytest keeps private: it is done only
under a pytest version they were read in (``WRITTEN_FOR``). Under any other version the
workers rewrite the modules themselves, as pytest does, and nothing else changes.
"""

from __future__ import annotations

import compileall
import os
import sys
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from pathlib import Path

import pytest

WRITTEN_FOR = ("8.4.",)  # _rewrite_test, _read_pyc, _write_pyc, get_cache_dir, PYC_TAIL...

_config: pytest.Config | None = None  # the controller's, inherited by the forked processes


def compile_before_the_workers(config: pytest.Config, folders: list[Path], tests: Path) -> None:
    """Byte-compile ``folders``, then write the rewritten test modules of ``tests`` in one
    process a core. ``compileall`` writes ``__pycache__`` whatever ``sys.dont_write_bytecode``
    says, and imports read it."""
    global _config
    cores = len(os.sched_getaffinity(0))
    for folder in folders:
        compileall.compile_dir(folder, quiet=2)
    if not config.getoption("numprocesses", None) or not _rewrites(config):
        return  # no workers, or not this pytest's way
    modules = _collected(config, tests)
    if not modules:
        return
    _config = config
    try:
        if len(modules) < 10:  # not worth a process
            _rewrite(modules)
            return
        with ProcessPoolExecutor(cores, mp_context=get_context("fork")) as pool:
            list(pool.map(_rewrite, [modules[i::cores] for i in range(cores)]))
    finally:
        _config = None


def _collected(config: pytest.Config, tests: Path) -> list[Path]:
    """The test modules and conftests under ``tests`` that the run's arguments will collect."""
    found: set[Path] = set()
    for arg in config.args:
        path = Path(os.path.abspath(Path(config.invocation_params.dir, arg.split("::")[0])))
        if path.is_dir():
            found.update(p for p in path.rglob("*.py") if p.name.startswith("test_"))
            found.update(path.rglob("conftest.py"))
        elif path.name.startswith("test_"):
            found.add(path)
        found.update(c for p in path.parents if (c := p / "conftest.py").is_file())
    return sorted(path for path in found if path.is_relative_to(tests))


def _rewrites(config: pytest.Config) -> bool:
    """Whether the workers will rewrite test modules, as this pytest does it."""
    return (
        pytest.__version__.startswith(WRITTEN_FOR)
        and config.getoption("assertmode") == "rewrite"
        and sys.platform != "win32"  # no fork
    )


def _rewrite(modules: list[Path]) -> None:
    """Rewrite ``modules`` and write each where the workers' import hook looks first."""
    from _pytest.assertion import rewrite

    assert _config is not None
    state = _config.stash[rewrite.assertstate_key]
    for module in modules:
        cache = rewrite.get_cache_dir(module)
        pyc = cache / (module.name[:-3] + rewrite.PYC_TAIL)
        if rewrite._read_pyc(module, pyc, state.trace) is not None:
            continue  # written by an earlier run, for the source as it is
        cache.mkdir(exist_ok=True)
        source_stat, code = rewrite._rewrite_test(module, _config)
        rewrite._write_pyc(state, code, source_stat, pyc)
