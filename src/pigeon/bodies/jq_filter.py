"""jq filters on a response body (DESIGN §9), run by the jq library in a child process.

The jq binding holds the GIL while it evaluates, and a hostile program (``[range(1e9)]``,
``repeat(.)``, ``def f: f; f``) never ends or fills memory. So jq runs in a child Python
(``bodies/jq_child.py``) that gets the body as text (jq parses it; no Python objects are
built for the input), has its address space capped (``RLIMIT_AS``), stops writing at
``OUTPUT_LIMIT`` characters, and is killed after ``TIME_LIMIT`` seconds or as soon as the
caller's ``cancelled()`` says so. The caller runs this in a thread: it mostly waits.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from pigeon.bodies.cancel import Cancelled, Stopped, never
from pigeon.errors import FilterError

TIME_LIMIT = 10.0
OUTPUT_LIMIT = 16 * 1024 * 1024
MEMORY_LIMIT = 1024 * 1024 * 1024
"""The child's address space: this, plus 16 bytes for every byte of the body."""

_CHILD = Path(__file__).with_name("jq_child.py")
# -P: nothing from the current directory shadows json or jq. Run by path: no package import.
_LAUNCH = "import runpy, sys; del sys.argv[0]; runpy.run_path(sys.argv[0], run_name='__main__')"
_CUT, _FAILED, _MISSING = 3, 2, 4
_POLL = 0.05


@dataclass(frozen=True)
class JqResult:
    text: str
    """Each result pretty-printed, one after another."""
    cut: bool = False
    """The output reached the limit and was cut there."""


def run_jq(
    program: str,
    body: str | bytes,
    *,
    cancelled: Cancelled = never,
    time_limit: float = TIME_LIMIT,
    output_limit: int = OUTPUT_LIMIT,
) -> JqResult:
    """Run the jq ``program`` over ``body`` (JSON text). Raises ``FilterError`` (one line) when
    jq rejects the program or fails on the body, or a limit is reached; ``Stopped`` when
    ``cancelled()`` turns true."""
    data = body.encode("utf-8", errors="replace") if isinstance(body, str) else body
    memory = MEMORY_LIMIT + 16 * len(data)
    args = [sys.executable, "-P", "-c", _LAUNCH, str(_CHILD), program]
    args += [str(output_limit), str(memory)]
    # The body goes in as a file: communicate() feeds a pipe only on its first call, and it is
    # called again every _POLL to check the clock and the caller.
    try:
        with tempfile.TemporaryFile() as source:
            source.write(data)
            source.seek(0)
            child = subprocess.Popen(
                args, stdin=source, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
            )
    except OSError as exc:
        raise FilterError(f"jq: could not start: {exc}") from None
    deadline = time.monotonic() + time_limit
    try:
        while True:
            try:
                out, _ = child.communicate(timeout=_POLL)
                break
            except subprocess.TimeoutExpired:
                if cancelled():
                    raise Stopped from None
                if time.monotonic() > deadline:
                    raise FilterError(
                        f"jq: stopped after {time_limit:g} s (the limit for a filter)"
                    ) from None
    finally:
        if child.poll() is None:
            child.kill()
            child.communicate()
    text = out.decode("utf-8", errors="replace")
    if child.returncode == 0:
        return JqResult(text)
    if child.returncode == _CUT:
        return JqResult(text, cut=True)
    if child.returncode == _FAILED:
        last = (text.rstrip().splitlines() or ["failed"])[-1]  # the child's message
        raise FilterError(f"jq: {last[:300]}")
    if child.returncode == _MISSING:
        raise FilterError("jq is not installed (pip install jq); JMESPath and JSONPath still work")
    if child.returncode < 0:  # jq aborts when an allocation fails under the memory cap
        raise FilterError(f"jq: stopped: out of memory (the limit is {memory >> 20} MiB)")
    raise FilterError(f"jq: failed (exit status {child.returncode})")
