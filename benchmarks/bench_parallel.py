"""`pigeon run --parallel 4` against a sequential run: 1,000 GETs in 20 top-level folders,
served with 20 ms of latency each (the echo server's ``/delay`` route, in its own process).

Run: python benchmarks/bench_parallel.py [--requests 1000] [--folders 20] [--rounds 3]

Whole ``pigeon run`` processes, interleaved; prints each side's median and the speed-up.
The floor for the sequential side is requests x latency (20 s for 1,000), for 4 lanes a
quarter of it.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_run import echo_server

LATENCY = 0.02


def make(root: Path, base_url: str, n: int, folders: int) -> None:
    root.mkdir(parents=True)
    (root / "collection.toml").write_text(f'name = "p"\n[variables]\nbase_url = "{base_url}"\n')
    for i in range(n):
        folder = root / f"f{i % folders:02d}"
        folder.mkdir(exist_ok=True)
        (folder / f"r{i:05d}.toml").write_text(
            f'name = "r{i}"\nurl = "{{{{base_url}}}}/delay/{LATENCY}?n={i}"\n'
        )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--requests", type=int, default=1000)
    ap.add_argument("--folders", type=int, default=20)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--parallel", type=int, default=4)
    args = ap.parse_args()
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    with tempfile.TemporaryDirectory() as tmp, echo_server("process") as base_url:
        root = Path(tmp) / "c"
        make(root, base_url, args.requests, args.folders)
        sides = {
            "sequential": [],
            f"--parallel {args.parallel}": ["--parallel", str(args.parallel)],
        }
        spent: dict[str, list[float]] = {name: [] for name in sides}
        names = list(sides)
        for i in range(args.rounds):
            for name in names[i % 2 :] + names[: i % 2]:
                command = [sys.executable, "-m", "pigeon", "run", str(root), "--no-color"]
                start = time.perf_counter()
                subprocess.run(
                    command + sides[name], stdout=subprocess.DEVNULL, check=True, env=env
                )
                spent[name].append(time.perf_counter() - start)
    floor = args.requests * LATENCY
    print(f"{args.requests:,} GETs, {args.folders} folders, {LATENCY * 1000:.0f} ms latency each")
    for name, values in spent.items():
        rounds = ", ".join(f"{v:.2f}" for v in values)
        print(f"  {name:<14}: {statistics.median(values):6.2f} s (median; rounds {rounds})")
    seq, par = (statistics.median(v) for v in spent.values())
    print(f"  speed-up      : {seq / par:6.2f}x (ideal {args.parallel}x)")
    print(f"  latency floor : {floor:6.2f} s sequential, {floor / args.parallel:.2f} s in parallel")


if __name__ == "__main__":
    main()
