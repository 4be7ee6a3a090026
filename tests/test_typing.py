"""The package type-checks: mypy, configured in pyproject.toml (strict outside ``pigeon.tui``),
finds nothing in ``src/pigeon``. It runs as a test so that the suite's one command checks the
types too, in a process of its own beside the other tests rather than after them."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.timeout(600)  # a cold run is CPU-bound: on a loaded machine it can take a while
def test_mypy_finds_nothing() -> None:
    # No cache read or written (mypy's documented /dev/null): a cache left from another checkout
    # cannot mislead it, and writing one for nobody cost a tenth of the check.
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--config-file",
            str(ROOT / "pyproject.toml"),
            "--cache-dir",
            os.devnull,
            "src/pigeon",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
    )
    if done.returncode != 0:
        pytest.fail(f"mypy exited {done.returncode}:\n{done.stdout}{done.stderr}", pytrace=False)
