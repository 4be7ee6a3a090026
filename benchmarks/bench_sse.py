"""The app receiving Server-Sent Events at full speed from a loopback server.

The response pane runs headless (``App.run_test``) and a real send (``HttpSession`` with a
``StreamSink`` on its ``Progress``, as the main screen sends) reads ``--events`` events
written one chunk each as fast as the server can; the pane follows them live as the app does
(a timer reading the sink, rows in the events table). Meanwhile a 10 ms timer records how
late it fires: the worst lateness is the longest the UI loop could not answer a key. The
baseline, measured in the same run first, is the same app idle for as long. Memory is the
process's peak RSS (``ru_maxrss``) and its RSS when idle before the stream.

Goals: worst stall <= 50 ms, peak RSS <= 200 MB.

    python benchmarks/bench_sse.py [--events 10000]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import resource
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

from textual.app import App, ComposeResult

from pigeon.exchange import Progress
from pigeon.model import Settings
from pigeon.render import RenderedRequest
from pigeon.send import HttpSession
from pigeon.stream import StreamSink
from pigeon.tui.widgets.response.events_panel import EventsPanel
from pigeon.tui.widgets.response.response_pane import ResponsePane

TICK = 0.01
TESTS = Path(__file__).resolve().parents[1] / "tests"
# The server runs in a process of its own, so its writes never take the app's GIL.
SERVER = """
import sys
from stream_servers import stream_server
with stream_server() as server:
    print(server.url, flush=True)
    sys.stdin.read()
"""


@contextlib.contextmanager
def server_process() -> Iterator[str]:
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(TESTS), os.environ.get("PYTHONPATH", "")]),
    }
    proc = subprocess.Popen(
        [sys.executable, "-c", SERVER],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        env=env,
        text=True,
    )
    try:
        assert proc.stdout is not None
        yield proc.stdout.readline().strip()
    finally:
        assert proc.stdin is not None
        proc.stdin.close()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()


def rss_mb() -> float:
    with open("/proc/self/statm") as fh:
        pages = int(fh.read().split()[1])
    return pages * os.sysconf("SC_PAGE_SIZE") / 2**20


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


class PaneApp(App[None]):
    def compose(self) -> ComposeResult:
        yield ResponsePane(id="response")


class Lateness:
    """A timer that should fire every ``TICK`` seconds; the worst delay seen."""

    def __init__(self, app: App[None], settle: float = 0.0) -> None:
        self.worst = 0.0
        self.steady = 0.0  # the worst after the first ``settle`` seconds
        self.ticks = 0
        self._start = time.perf_counter()
        self._settle = settle
        self._due = self._start + TICK
        self._timer = app.set_interval(TICK, self._tick)

    def _tick(self) -> None:
        now = time.perf_counter()
        self.worst = max(self.worst, now - self._due)
        if now - self._start > self._settle:
            self.steady = max(self.steady, now - self._due)
        self.ticks += 1
        self._due = now + TICK

    def stop(self) -> None:
        self._timer.stop()


async def measure(count: int) -> dict[str, float]:
    with server_process() as base:
        app = PaneApp()
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.pause(0.5)
            pane = app.query_one(ResponsePane)
            panel = app.query_one(EventsPanel)
            url = f"{base}/sse?count={count}&interval=0"
            rendered = RenderedRequest(method="GET", url=url, settings=Settings(timeout=300))
            async with HttpSession() as session:
                # Baseline: the app idle, for about as long as the stream will take.
                idle = Lateness(app)
                await asyncio.sleep(3.0)
                idle.stop()
                idle_rss = rss_mb()

                progress = Progress(sink=StreamSink())
                busy = Lateness(app, settle=0.5)
                started = time.perf_counter()
                sending = asyncio.ensure_future(session.send(rendered, progress))
                pane.show_pending("GET", url, progress)
                exchange = await sending
                received_s = time.perf_counter() - started
                pane.show_exchange(exchange)
                await pilot.pause()
                busy.stop()
            assert exchange.error is None, exchange.error
            assert panel.total == count and len(panel.table.rows) == count, panel.total
    return {
        "idle_worst_ms": idle.worst * 1000,
        "busy_worst_ms": busy.worst * 1000,
        "steady_worst_ms": busy.steady * 1000,
        "load": os.getloadavg()[0],
        "received_s": received_s,
        "idle_rss_mb": idle_rss,
        "peak_rss_mb": peak_rss_mb(),
        "ticks": busy.ticks,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--events", type=int, default=10_000)
    args = ap.parse_args()
    figures = asyncio.run(measure(args.events))
    print(f"{args.events:,} events at full speed over loopback, shown live in the events table")
    print(f"  received and shown in        : {figures['received_s']:6.2f} s")
    print(f"  worst UI stall while arriving: {figures['busy_worst_ms']:6.1f} ms (goal <= 50 ms)")
    print(f"    after its first 0.5 s      : {figures['steady_worst_ms']:6.1f} ms")
    print(f"  baseline: worst stall idle   : {figures['idle_worst_ms']:6.1f} ms (same app, 3 s)")
    print(f"  peak RSS                     : {figures['peak_rss_mb']:6.1f} MB (goal <= 200 MB)")
    print(f"  baseline: RSS idle           : {figures['idle_rss_mb']:6.1f} MB")
    print(f"  (load average {figures['load']:.1f} on {os.cpu_count()} cores while measured)")


if __name__ == "__main__":
    main()
