"""`pigeon run` at scale: peak memory, time per request and time to exit, for long runs.

    python benchmarks/bench_scale.py [--sizes 1000,5000,20000] [--big 1500]

Each size is a collection of that many small GETs (in folders of 100) run by `pigeon run` in a
subprocess against the echo server in another process; ``--big`` runs that many GETs each
answered with 1 MB. For each it prints the peak RSS of the `pigeon run` process (``wait4``'s
rusage for that child alone), the microseconds per request, and the time from the last
request's line to the process's exit. The baseline, measured in the same run, is a bare
``httpx.Client`` loop in its own process sending as many requests to the same server: the
ratios show what Pigeon adds. The figures to hold: peak RSS flat in the count (<= 80 MB at
20,000 small requests, <= 150 MB for 1,500 x 1 MB), exit within 1 s of the last request, and
the cost per request the same at every size.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_run import echo_server  # noqa: E402  (the benchmarks share one echo helper)

BASELINE = """
import sys, httpx
url, n = sys.argv[1], int(sys.argv[2])
with httpx.Client() as client:
    for i in range(n):
        r = client.get(url)
        r.read()
        assert r.status_code == 200
"""


def make_collection(root: Path, base_url: str, n: int, path: str) -> None:
    """``n`` GETs of ``path``, 100 to a folder."""
    (root / "collection.toml").write_text(f'name = "scale"\n[variables]\nbase = "{base_url}"\n')
    for i in range(n):
        folder = root / f"f{i // 100:04d}"
        folder.mkdir(exist_ok=True)
        (folder / f"r{i % 100:03d}.toml").write_text(
            f'method = "GET"\nurl = "{{{{base}}}}{path}?i={i}"\n'
        )


def measure(argv: list[str]) -> tuple[float, float, float, int]:
    """Run ``argv``; (wall seconds, seconds from its last output line to exit, peak RSS in MB,
    lines read)."""
    started = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    assert proc.stdout is not None
    last_line = started
    lines = 0
    for line in proc.stdout:
        if not line.startswith(b"\xe2\x9c\x94") and not line.startswith(b"\xe2\x9c\x98"):
            continue  # only result lines (a check or a cross) mark a request done
        last_line = time.perf_counter()
        lines += 1
    _, status, usage = os.wait4(proc.pid, 0)
    ended = time.perf_counter()
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"{argv[:3]} exited {proc.returncode}")
    return ended - started, ended - last_line, usage.ru_maxrss / 1024, lines


def one(base: str, n: int, path: str, label: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "c"
        root.mkdir()
        make_collection(root, base, n, path)
        wall, tail, rss, lines = measure([sys.executable, "-m", "pigeon", "run", str(root)])
        assert lines == n, f"{lines} results for {n} requests"
    b_wall, _, b_rss, _ = measure([sys.executable, "-c", BASELINE, base + path, str(n)])
    print(
        f"{label:>18}: peak RSS {rss:6.1f} MB ({rss / b_rss:4.2f}x bare httpx's {b_rss:5.1f}) · "
        f"{wall / n * 1e6:6.0f} µs/request ({wall / b_wall:4.2f}x bare {b_wall / n * 1e6:5.0f}) · "
        f"exit {tail * 1000:5.0f} ms after the last request",
        flush=True,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,5000,20000")
    parser.add_argument("--big", type=int, default=1500, help="requests answered with 1 MB")
    args = parser.parse_args()
    with echo_server("process") as base:
        for n in (int(s) for s in args.sizes.split(",") if s):
            one(base, n, "/get", f"{n:,} small")
        if args.big:
            one(base, args.big, f"/bytes/{1024 * 1024}", f"{args.big:,} x 1 MB")


if __name__ == "__main__":
    main()
