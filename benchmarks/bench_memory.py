"""Memory after large responses: is it given back once a small response replaces them?

Runs the real app headless (``App.run_test``) on a copy of the demo collection against the
bundled echo server, in its own process, and prints the resident set size (RSS):

* ``idle``: the app started, a request open, nothing sent (the baseline of this run);
* ``after N x 5 MB``: after each of N sends of ``/json/large?mb=5`` has been shown (pretty);
* ``after tiny``: after one small request replaced the last large response.

Figures are MB and, in brackets, MB above the idle baseline.

    python benchmarks/bench_memory.py [--sends 5] [--size-mb 5]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "tui"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))


def rss_mb() -> float:
    with open("/proc/self/statm") as fh:
        pages = int(fh.read().split()[1])
    return pages * os.sysconf("SC_PAGE_SIZE") / 2**20


async def settle(pilot, seconds: float = 60.0) -> None:
    """Until the send, the body's formatting and the history record are done."""
    app = pilot.app
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        await app.workers.wait_for_complete()
        await pilot.pause(0.05)
        if not any(w.is_running for w in app.workers):
            return
    raise RuntimeError("still busy")


async def measure(sends: int, size_mb: float) -> None:
    from tui_support import DEMO, make_app, open_request, replace_url

    from pigeon.echo import EchoServer

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "demo"
        shutil.copytree(DEMO, root, ignore=shutil.ignore_patterns(".pigeon"))
        os.environ["XDG_CONFIG_HOME"] = str(Path(tmp) / "config")
        echo = EchoServer("127.0.0.1", 0).start()
        try:
            app = make_app(root, echo)
            async with app.run_test(size=(120, 40)) as pilot:
                await open_request(pilot, "users/list-users")
                await settle(pilot)
                idle = rss_mb()
                print(f"idle                {idle:7.1f} MB")

                def line(label: str) -> None:
                    now = rss_mb()
                    print(f"{label:<20}{now:7.1f} MB  (+{now - idle:.1f})")

                await replace_url(pilot, f"{echo.url}/json/large?mb={size_mb:g}")
                for n in range(1, sends + 1):
                    await pilot.press("ctrl+r")
                    await settle(pilot)
                    line(f"after {n} x {size_mb:g} MB")
                await replace_url(pilot, f"{echo.url}/status/204")
                await pilot.press("ctrl+r")
                await settle(pilot)
                await pilot.pause(0.5)
                line("after tiny")
        finally:
            echo.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sends", type=int, default=5)
    parser.add_argument("--size-mb", type=float, default=5.0)
    args = parser.parse_args()
    asyncio.run(measure(args.sends, args.size_mb))


if __name__ == "__main__":
    main()
