"""How fast a 5 MB JSON response shows in the response pane, and what it costs.

Runs headless (``App.run_test``), each case in its own process so memory figures do not mix:

* ``pigeon``: ``ResponsePane.show_exchange`` of a 5 MB JSON body. Reports the time to the first
  frame with body lines in it (the raw body), to the first frame of the pretty view, to the
  fold keys answering (the outline in, and the pretty view on screen), the worst
  stall of the UI loop meanwhile (how late a 10 ms timer fired), and memory.
* ``textarea``: the same JSON pretty-printed and loaded into a ``TextArea`` with JSON
  highlighting on the UI loop, the way a TextArea-based client shows it. Guarded by a 60 s
  timeout.

    python benchmarks/bench_tui_body.py [--size-mb 5]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import subprocess
import sys
import time
from typing import Any

TICK = 0.01
GUARD_SECONDS = 60


def make_body(size: int) -> bytes:
    """A realistic API listing of about ``size`` bytes (deterministic)."""
    items = []
    total = 0
    n = 0
    while total < size:
        item = {
            "id": n,
            "uuid": f"{n:08x}-7c1e-4d2a-9f3b-{n * 7919:012x}",
            "name": f"User {n}",
            "email": f"user{n}@example.com",
            "active": n % 3 != 0,
            "score": round((n * 37 % 1000) / 7, 3),
            "tags": ["alpha", "beta", "gamma"][: n % 4],
            "address": {"street": f"{n} Main St", "city": "Zürich", "zip": None},
        }
        total += len(json.dumps(item)) + 1
        items.append(item)
        n += 1
    return json.dumps({"count": n, "items": items}).encode()


def rss_mb() -> float:
    """Resident set size now, from /proc (falls back to the peak)."""
    try:
        with open("/proc/self/statm") as fh:
            pages = int(fh.read().split()[1])
        return pages * os.sysconf("SC_PAGE_SIZE") / 2**20
    except OSError:
        return peak_rss_mb()


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


class Stalls:
    """Records how late a repeating timer fires: the UI loop's worst stall."""

    def __init__(self) -> None:
        self.last = 0.0
        self.worst = 0.0
        self.active = False

    def start(self) -> None:
        """Count from now: a late tick before the measured span must not count."""
        self.last = time.perf_counter()
        self.active = True

    def tick(self) -> None:
        now = time.perf_counter()
        if self.active and self.last:
            self.worst = max(self.worst, now - self.last - TICK)
        self.last = now


async def wait_until(pilot: Any, condition: Any, limit: float) -> None:
    deadline = time.perf_counter() + limit
    while not condition():
        if time.perf_counter() > deadline:
            raise TimeoutError
        await pilot.pause(0.005)


def make_exchange(body: bytes) -> Any:
    from pigeon.render import RenderedRequest
    from pigeon.send import Exchange, Timings

    request = RenderedRequest("GET", "http://127.0.0.1:8000/users")
    return Exchange(
        request=request,
        method="GET",
        url=request.url,
        status=200,
        reason="OK",
        http_version="HTTP/1.1",
        headers=[("Content-Type", "application/json"), ("Content-Length", str(len(body)))],
        body=body,
        body_size=len(body),
        wire_body_size=len(body),
        headers_size=80,
        timings=Timings(total_ms=250.0),
    )


async def run_pigeon(body: bytes) -> dict[str, Any]:
    from textual.app import App, ComposeResult

    from pigeon.tui.widgets.response.body_view import BodyView
    from pigeon.tui.widgets.response.folding_view import FoldingBodyView
    from pigeon.tui.widgets.response.response_pane import ResponsePane

    class PaneApp(App[None]):
        def compose(self) -> ComposeResult:
            yield ResponsePane()

    painted: dict[str, float] = {}
    cpu: dict[str, float] = {}  # the process's CPU time at each moment: what load does not skew
    original = BodyView.render_line

    def render_line(self: BodyView, y: int) -> Any:
        strip = original(self, y)
        if self.id == "body-view" and self.phase in ("raw", "pretty") and strip.text.strip():
            painted.setdefault(self.phase, time.perf_counter())
            cpu.setdefault(self.phase, time.process_time())
        return strip

    BodyView.render_line = render_line  # type: ignore[method-assign]
    outline_ready = FoldingBodyView._outline_ready

    def ready(self: FoldingBodyView, *args: Any) -> None:
        outline_ready(self, *args)
        if self.folds is not None:
            painted.setdefault("foldable", time.perf_counter())
            cpu.setdefault("foldable", time.process_time())

    FoldingBodyView._outline_ready = ready  # type: ignore[method-assign]
    app = PaneApp()
    stalls = Stalls()
    async with app.run_test(size=(120, 40)) as pilot:
        pane = app.query_one(ResponsePane)
        app.set_interval(TICK, stalls.tick)
        await pilot.pause(0.3)
        idle_rss = rss_mb()
        exchange = make_exchange(body)
        stalls.start()
        start, cpu_start = time.perf_counter(), time.process_time()
        pane.show_exchange(exchange)
        returned = time.perf_counter() - start
        await wait_until(pilot, lambda: "pretty" in painted, GUARD_SECONDS)
        await wait_until(pilot, lambda: "foldable" in painted, GUARD_SECONDS)
        stalls.active = False
        # Scroll to the end and back: the view keeps up.
        view = pane.body_view
        t = time.perf_counter()
        view.focus()
        await pilot.press("G")
        await pilot.pause()
        assert view.scroll_offset.y > 0
        await pilot.press("g")
        await pilot.pause()
        scroll = time.perf_counter() - t
        lines = view.line_count
        after_rss = rss_mb()
    return {
        "show_exchange_returns_s": returned,
        "first_content_s": painted.get("raw", painted["pretty"]) - start,
        "pretty_s": painted["pretty"] - start,
        "foldable_s": max(painted["foldable"], painted["pretty"]) - start,
        "pretty_cpu_s": cpu["pretty"] - cpu_start,
        "foldable_cpu_s": max(cpu["foldable"], cpu["pretty"]) - cpu_start,
        "max_stall_s": stalls.worst,
        "scroll_end_and_back_s": scroll,
        "lines": lines,
        "idle_rss_mb": idle_rss,
        "rss_mb": after_rss,
        "peak_rss_mb": peak_rss_mb(),
    }


async def run_textarea(body: bytes) -> dict[str, Any]:
    from textual.app import App, ComposeResult
    from textual.widgets import TextArea

    painted: dict[str, float] = {}
    original = TextArea.render_line

    def render_line(self: TextArea, y: int) -> Any:
        strip = original(self, y)
        if self.text and strip.text.strip():
            painted.setdefault("content", time.perf_counter())
        return strip

    TextArea.render_line = render_line  # type: ignore[method-assign]

    class Baseline(App[None]):
        def compose(self) -> ComposeResult:
            yield TextArea.code_editor("", language="json", read_only=True)

    app = Baseline()
    stalls = Stalls()
    async with app.run_test(size=(120, 40)) as pilot:
        area = app.query_one(TextArea)
        app.set_interval(TICK, stalls.tick)
        await pilot.pause(0.3)
        idle_rss = rss_mb()
        stalls.start()
        start = time.perf_counter()
        area.load_text(json.dumps(json.loads(body), indent=2, ensure_ascii=False))
        returned = time.perf_counter() - start
        await wait_until(pilot, lambda: "content" in painted, GUARD_SECONDS)
        await pilot.pause(0.05)
        stalls.active = False
        lines = area.document.line_count
        after_rss = rss_mb()
    return {
        "show_exchange_returns_s": returned,
        "first_content_s": painted["content"] - start,
        "pretty_s": painted["content"] - start,
        "foldable_s": None,  # a TextArea does not fold
        "max_stall_s": stalls.worst,
        "lines": lines,
        "idle_rss_mb": idle_rss,
        "rss_mb": after_rss,
        "peak_rss_mb": peak_rss_mb(),
    }


def child(case: str, size_mb: float) -> None:
    body = make_body(int(size_mb * 1_000_000))
    runner = run_pigeon if case == "pigeon" else run_textarea
    result = asyncio.run(runner(body))
    result["body_bytes"] = len(body)
    print(json.dumps(result))


def run_case(case: str, size_mb: float) -> dict[str, Any] | None:
    cmd = [sys.executable, __file__, "--case", case, "--size-mb", str(size_mb)]
    started = time.perf_counter()
    try:
        done = subprocess.run(
            cmd, capture_output=True, text=True, timeout=GUARD_SECONDS + 30, check=False
        )
    except subprocess.TimeoutExpired:
        print(f"{case}: no result after {time.perf_counter() - started:.0f} s (timed out)")
        return None
    if done.returncode != 0:
        print(f"{case}: failed\n{done.stderr[-2000:]}")
        return None
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--case", choices=["pigeon", "textarea"])
    parser.add_argument("--size-mb", type=float, default=5.0)
    args = parser.parse_args(argv)
    if args.case:
        child(args.case, args.size_mb)
        return
    ours = run_case("pigeon", args.size_mb)
    base = run_case("textarea", args.size_mb)
    rows = [
        ("show_exchange returns", "show_exchange_returns_s", "s"),
        ("first frame with body lines", "first_content_s", "s"),
        ("first frame of the pretty view", "pretty_s", "s"),
        ("pretty view foldable (outline in)", "foldable_s", "s"),
        ("... CPU time to the pretty view", "pretty_cpu_s", "s"),
        ("... CPU time to foldable", "foldable_cpu_s", "s"),
        ("worst UI loop stall", "max_stall_s", "s"),
        ("RSS idle (before the body)", "idle_rss_mb", "MB"),
        ("RSS after", "rss_mb", "MB"),
        ("peak RSS", "peak_rss_mb", "MB"),
        ("lines", "lines", ""),
    ]
    size = (ours or base or {}).get("body_bytes", 0)
    print(f"5 MB-class JSON body: {size:,} bytes, terminal 120x40, headless\n")
    print(f"{'':34}{'Pigeon BodyView':>18}{'TextArea baseline':>20}{'ratio':>8}")
    for label, key, unit in rows:
        a = ours.get(key) if ours else None
        b = base.get(key) if base else None
        fa = "—" if a is None else (f"{a:,}" if unit == "" else f"{a:.3f} {unit}")
        fb = (
            "timeout"
            if base is None
            else "—"
            if b is None
            else f"{b:,}"
            if unit == ""
            else f"{b:.3f} {unit}"
        )
        ratio = f"{b / a:.1f}x" if a and b and unit == "s" else ""
        print(f"{label:34}{fa:>18}{fb:>20}{ratio:>8}")
    if ours:
        print(f"\nscroll to the end and back (G, g): {ours['scroll_end_and_back_s']:.3f} s")


if __name__ == "__main__":
    main()
