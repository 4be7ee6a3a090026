"""The child process that runs a jq program over a body (DESIGN §9); see ``bodies/jq.py``.

Run by path, not as ``pigeon.bodies.jq_child``: importing the package would cost the child a
tenth of a second. It reads the body from stdin, the program and the limits from argv, and
writes each result pretty-printed to stdout until the output limit. Exit status: 0 done,
3 output cut at the limit, 4 the jq library is not installed, 2 a jq error (its one line last on stdout: stderr is not read, as
jq's ``debug`` and ``stderr`` could fill it without end). Memory is capped with ``RLIMIT_AS``
before jq starts, so a hostile program dies here, not in the app.
"""

from __future__ import annotations

import json
import sys

CUT = 3
FAILED = 2
MISSING = 4


def _limit_memory(limit: int) -> None:
    try:
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    except (ImportError, ValueError, OSError):  # not on this platform: the time limit remains
        pass


def _one_line(exc: BaseException) -> str:
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    return (lines[0] if lines else type(exc).__name__)[:300]


def main(argv: list[str]) -> int:
    program, output_limit, memory_limit = argv[0], int(argv[1]), int(argv[2])
    _limit_memory(memory_limit)
    try:
        import jq
    except ImportError:
        return MISSING

    try:
        compiled = jq.compile(program)
    except ValueError as exc:
        # "jq: error: syntax error, ... line 1, column 2:" then the program and a caret.
        return _failed(_one_line(exc).removeprefix("jq: error: ").rstrip(":"))
    text = sys.stdin.buffer.read().decode("utf-8", errors="replace")
    out = sys.stdout
    written = 0
    try:
        for value in compiled.input_text(text):
            chunk = json.dumps(value, indent=2, ensure_ascii=False) + "\n"
            if written + len(chunk) > output_limit:
                out.write(chunk[: output_limit - written])
                return CUT
            out.write(chunk)
            written += len(chunk)
    except MemoryError:
        return _failed("stopped: out of memory")
    except (ValueError, RecursionError) as exc:
        return _failed(_one_line(exc))
    return 0


def _failed(message: str) -> int:
    sys.stdout.write(f"\n{message}\n")
    return FAILED


if __name__ == "__main__":
    sys.stdout.reconfigure(encoding="utf-8", errors="replace")  # type: ignore[union-attr]
    sys.exit(main(sys.argv[1:]))
