"""`pigeon run` at scale: peak memory, time per request and time to exit, for long runs.

    python benchmarks/bench_scale.py [--sizes 1000,5000,20000] [--big 1500]

Each size is a collection of that many small GETs (in folders of 100) run by `pigeon run` in a
subprocess against the echo server in another process; ``--big`` runs that many GETs each
answered with 1 MB. For each it prints the peak RSS of the `pigeon run` process (``wait4``'s
rusage for that child alone), the microseconds per request, and the time from the last
request's line to the process's exit. The baseline, measured in the same run, is a bare
``httpx.Client`` loop in its own process sending as many requests to the same server: the
ratios show what Pigeon adds. Each process is measured through ``tests/measured.py``, which
starts it from a small helper: on Linux a child's peak RSS starts from its parent's size. The figures to hold: peak RSS flat in the count (<= 80 MB at
20,000 small requests, <= 150 MB for 1,500 x 1 MB), exit within 1 s of the last request, and
the cost per request the same at every size.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent / "tests")]
# The benchmarks share one echo helper; the tests' measuring helper gives a child's own peak.
from bench_run import echo_server  # noqa: E402

from measured import measure  # noqa: E402

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


def one(base: str, n: int, path: str, label: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "c"
        root.mkdir()
        make_collection(root, base, n, path)
        run = measure([sys.executable, "-m", "pigeon", "run", str(root)], root)
        if run.code != 0 or run.out.count("\n") != n + 1:
            raise SystemExit(f"pigeon run exited {run.code}: {run.err or run.out[-300:]}")
        bare = measure([sys.executable, "-c", BASELINE, base + path, str(n)], root)
        if bare.code != 0:
            raise SystemExit(f"the httpx loop exited {bare.code}: {bare.err}")
    print(
        f"{label:>18}: peak RSS {run.mb:6.1f} MB ({run.mb / bare.mb:4.2f}x bare httpx's "
        f"{bare.mb:5.1f}) · {run.seconds / n * 1e6:6.0f} µs/request "
        f"({run.seconds / bare.seconds:4.2f}x bare {bare.seconds / n * 1e6:5.0f}) · "
        f"exit {run.after_last * 1000:5.0f} ms after the last request",
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
