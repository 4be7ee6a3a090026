"""Hostile imports: peak memory and wall time of ``pigeon import`` on documents made to hurt.

Run: python benchmarks/bench_hostile_imports.py

Each case runs as a child of a fresh helper process (so ``RUSAGE_CHILDREN`` is that child's
peak). The baseline, measured in the same run, is the import of a one-request Postman
collection: the figures are also given as ratios to it, to compare across machines.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

HELPER = """
import json, resource, subprocess, sys, time
argv, cwd = json.loads(sys.argv[1]), sys.argv[2]
start = time.monotonic()
done = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=300)
seconds = time.monotonic() - start
kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
print(json.dumps({"code": done.returncode, "mb": kb / 1024, "seconds": seconds}))
"""

LAUGHS = (
    "openapi: 3.0.0\na: &a ["
    + ",".join(['"lol"'] * 9)
    + "]\n"
    + "".join(
        f"{n}: &{n} [{','.join([f'*{p}'] * 9)}]\n"
        for p, n in zip("abcdefgh", "bcdefghi", strict=True)
    )
)
DEEP = 100_000


def cases(d: Path) -> list[tuple[str, list[str]]]:
    one = {"info": {"name": "one"}, "item": [{"name": "r", "request": {"url": "http://x/"}}]}
    (d / "one.json").write_text(json.dumps(one))
    (d / "laughs.yaml").write_text(LAUGHS)
    levels = {
        f"L{n}": {
            "type": "object",
            "properties": {
                f"p{i}": {"$ref": f"#/components/schemas/L{n + 1}"} if n < 8 else {"type": "string"}
                for i in range(12)
            },
        }
        for n in range(9)
    }
    body = {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/L0"}}}}
    refs = {
        "openapi": "3.0.0",
        "paths": {"/x": {"post": {"requestBody": body}}},
        "components": {"schemas": levels},
    }
    (d / "refs.json").write_text(json.dumps(refs))
    (d / "deep.json").write_text('{"item": [], "x": ' + "[" * DEEP + "]" * DEEP + "}")
    (d / "zero.sh").write_text("curl -d @/dev/zero http://x.test/\n")
    return [
        ("baseline: one request", ["postman", "one.json"]),
        ("YAML billion laughs", ["openapi", "laughs.yaml"]),
        ("OpenAPI 12 x 9 $refs", ["openapi", "refs.json"]),
        ("JSON 100,000 deep", ["postman", "deep.json"]),
        ("curl -d @/dev/zero", ["curl", "zero.sh", "--allow-outside"]),
    ]


def measure(args: list[str], cwd: Path, into: str) -> dict:
    argv = [sys.executable, "-m", "pigeon", "import", *args, "--into", into]
    out = subprocess.run(
        [sys.executable, "-c", HELPER, json.dumps(argv), str(cwd)],
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(out.stdout)


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        base: dict | None = None
        for n, (label, args) in enumerate(cases(d)):
            m = measure(args, d, f"out{n}")
            base = base or m
            print(
                f"{label:>22}: exit {m['code']}, {m['seconds']:5.2f} s "
                f"({m['seconds'] / base['seconds']:4.1f}x), {m['mb']:6.1f} MB "
                f"({m['mb'] / base['mb']:4.1f}x)"
            )


if __name__ == "__main__":
    main()
