"""Run ``python -m pigeon ...`` as a child and measure its peak memory and wall time.

The child is started by a fresh helper process of its own, so the helper's
``RUSAGE_CHILDREN`` peak is that one child's: it is a maximum over all children, and on Linux
a child's peak starts from its parent's size when it was forked, which for a test process is
hundreds of megabytes. Also used by ``benchmarks/bench_scale.py``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pigeon as _package

# The child runs the same code as the test, wherever its working directory is.
_ENV = {**os.environ, "PYTHONPATH": str(Path(_package.__file__).resolve().parents[1])}

MEMORY_MB = 256  # what a hostile input may cost at most
SECONDS = 20.0  # the promise is 5 s; the test box is a loaded 2-core machine

_HELPER = """
import json, resource, subprocess, sys, threading, time
argv, cwd = json.loads(sys.argv[1]), sys.argv[2]
start = time.monotonic()
proc = subprocess.Popen(argv, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
err = []
reader = threading.Thread(target=lambda: err.append(proc.stderr.read()), daemon=True)
reader.start()
out, last = [], start
for line in proc.stdout:
    out.append(line)
    last = time.monotonic()
try:
    code = proc.wait(timeout=120)
except subprocess.TimeoutExpired:
    proc.kill()
    code, err = None, ["timed out"]
end = time.monotonic()
reader.join(timeout=5)
kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
print(json.dumps({"code": code, "out": "".join(out), "err": "".join(err), "mb": kb / 1024,
                  "seconds": end - start, "after_last": end - last}))
"""


@dataclass
class Measured:
    code: int | None
    out: str
    err: str
    mb: float
    seconds: float
    after_last: float  # from the last line on stdout to the exit

    def within_bounds(self) -> None:
        assert "Traceback" not in self.err, self.err
        assert self.mb <= MEMORY_MB, f"peak {self.mb:.0f} MB"
        assert self.seconds <= SECONDS, f"took {self.seconds:.1f} s"


def pigeon(*args: str, cwd: Path) -> Measured:
    """``python -m pigeon ARGS`` in ``cwd``, measured."""
    return measure([sys.executable, "-m", "pigeon", *args], cwd)


def measure(argv: list[str], cwd: Path) -> Measured:
    """Any command in ``cwd``, measured."""
    helper = subprocess.run(
        [sys.executable, "-c", _HELPER, json.dumps(argv), str(cwd)],
        capture_output=True,
        text=True,
        timeout=180,
        check=True,
        env=_ENV,
    )
    return Measured(**json.loads(helper.stdout))
