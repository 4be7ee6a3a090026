"""The app's two speed figures: start-up, and showing a 5 MB JSON response.

Start-up: time from process start to the first usable screen, Pigeon beside a minimal
Textual app, each run a fresh interpreter (imports included) running headless, interleaved.
The minimal app reports after its first refresh. Pigeon runs as ``pigeon`` does (the demo
collection and its echo server) and reports two moments: its main screen first on display
with the collection tree taking keys and written out (``MainScreen.first_paint_at``, once
Textual's start-up batch is over: a frame drawn before is not written; enter on a request then
opens it as soon as the editor is in), and everything built (``MainScreen.built_at``: the
editor's URL bar and tabs and the response pane mounted; the editor's other tabs are built
when first opened). The parent takes the time just before starting each process. Both sides
run from compiled bytecode in a private cache, as an installed program does after its first
run. Then the same on a collection of ``--requests`` requests (500) in folders of 20. Goals:
the first usable screen within 1.3x the minimal app, and 1.4x with 500 requests.

5 MB JSON: ``bench_tui_body.py``'s Pigeon case (``--body-baseline`` adds its TextArea case,
which takes up to a minute): time from the response's arrival to its first lines and to the
pretty view, and the worst UI stall meanwhile. Target: shown within 1 s, app responsive.

    python benchmarks/bench_tui.py [--runs 11] [--requests 500] [--no-body] [--body-baseline]
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

MINIMAL = r"""
import time
from textual.app import App
from textual.widgets import Footer, Static

class Minimal(App):
    def compose(self):
        yield Static("hello")
        yield Footer()

    def on_ready(self):
        self.call_after_refresh(self.done)

    def done(self):
        print(f"READY {time.time():.6f} CPU {time.process_time():.6f}", flush=True)
        self.exit()

Minimal().run(headless=True, size=(120, 40))
"""

PIGEON = r"""
import time
from pigeon.tui import start_gc
start_gc.pause()  # as ``pigeon`` does before it imports the app
resume, painted_cpu = start_gc.resume, []

def resumed():  # the first frame resumes the collector: the process's CPU time then
    painted_cpu.append((time.time(), time.process_time()))
    resume()

start_gc.resume = resumed
from pigeon.tui.app import PigeonApp, open_session

class Timed(PigeonApp):
    def on_ready(self):
        self.set_interval(0.02, self.check)

    def check(self):
        from pigeon.tui.screens.main import MainScreen

        screen = self.screen
        if isinstance(screen, MainScreen) and screen.built_at:
            response = screen.query_one("#response")
            if response.query("#headers-table"):  # everything mounted: leave cleanly
                moments = f"{screen.first_paint_at:.6f} {screen.built_at:.6f}"
                # (a 2 s timer resumes it too, should a dialog come first: not that call)
                at = min(painted_cpu, key=lambda c: abs(c[0] - screen.first_paint_at))[1]
                print(f"READY {moments} CPU {at:.6f}", flush=True)
                self.exit()

import os
from pathlib import Path

where = os.environ.get("BENCH_COLLECTION")  # else the demo and its echo server, as `pigeon`
session = open_session(Path(where) if where else None, None)
try:
    Timed(session, remember_theme=False).run(headless=True, size=(120, 40))
finally:
    if session.echo is not None:  # the app stops it when it closes the session
        session.echo.stop()
"""


def one_run(code: str, env: dict[str, str]) -> list[float]:
    """Seconds from process start to each moment the child reports, then the CPU time the
    child had used at the first (what a loaded machine skews least)."""
    start = time.time()
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
        env=env,
    ).stdout
    ready = next(line for line in out.splitlines() if line.startswith("READY "))
    moments, cpu = ready.removeprefix("READY ").split(" CPU ")
    return [float(t) - start for t in moments.split()] + [float(cpu)]


def write_collection(root: Path, requests: int) -> None:
    """A collection of ``requests`` small requests in folders of 20."""
    (root / "collection.toml").write_text('name = "Large"\n', encoding="utf-8")
    for n in range(requests):
        folder = root / f"folder-{n // 20:02d}"
        folder.mkdir(exist_ok=True)
        (folder / f"request-{n:03d}.toml").write_text(
            f'name = "Request {n}"\nmethod = "GET"\nurl = "{{{{base_url}}}}/items/{n}"\n',
            encoding="utf-8",
        )


def startup(runs: int, requests: int = 0) -> None:
    """Start-up beside the minimal app: the demo, or (``requests``) a collection that large."""
    minimal: list[float] = []
    usable: list[float] = []
    built: list[float] = []
    cpu: list[tuple[float, float]] = []  # the CPU time of each pair at its first screen
    with tempfile.TemporaryDirectory() as pycache:
        # The warm-up runs write the bytecode into a private cache (even where the
        # environment sets PYTHONDONTWRITEBYTECODE) and warm the file cache.
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env["PYTHONPYCACHEPREFIX"] = pycache
        if requests:
            env["BENCH_COLLECTION"] = os.path.join(pycache, "collection")
            os.mkdir(env["BENCH_COLLECTION"])
            write_collection(Path(env["BENCH_COLLECTION"]), requests)
        for _ in range(2):
            one_run(MINIMAL, env)
            one_run(PIGEON, env)
        for _ in range(runs):  # interleaved, so drift affects both alike
            ready, minimal_cpu = one_run(MINIMAL, env)
            minimal.append(ready)
            first, done, first_cpu = one_run(PIGEON, env)
            usable.append(first)
            built.append(done)
            cpu.append((minimal_cpu, first_cpu))
    m = statistics.median(minimal)
    what = f"a {requests}-request collection" if requests else "the demo"
    print(f"start-up on {what}, {runs} runs each, medians (min):")
    print(f"  minimal Textual app       {m * 1000:5.0f} ms ({min(minimal) * 1000:.0f})")
    for label, times in (("first usable screen", usable), ("everything built", built)):
        med = statistics.median(times)
        paired = statistics.median(b / a for a, b in zip(minimal, times, strict=True))
        print(
            f"  pigeon {label:19}{med * 1000:5.0f} ms ({min(times) * 1000:.0f})"
            f"   ratio {med / m:.2f}x, paired {paired:.2f}x"
        )
    a, b = (statistics.median(side) for side in zip(*cpu, strict=True))
    paired = statistics.median(p / m for m, p in cpu)
    print(
        f"  CPU time to it: minimal {a * 1000:.0f} ms, pigeon {b * 1000:.0f} ms"
        f"   ratio {b / a:.2f}x, paired {paired:.2f}x"
    )
    goal = "1.4x" if requests else "1.3x"
    print(f"  goal: first usable screen <= {goal} the minimal app")


def body(baseline: bool) -> None:
    sys.path.insert(0, str(Path(__file__).parent))
    import bench_tui_body

    print("\n5 MB JSON response (bench_tui_body.py):")
    if baseline:
        bench_tui_body.main([])
        return
    ours = bench_tui_body.run_case("pigeon", 5.0)
    if ours is None:
        return
    print(f"  body: {ours['body_bytes']:,} bytes, {ours['lines']:,} lines pretty-printed")
    print(f"  first lines shown   {ours['first_content_s']:.3f} s after arrival")
    print(f"  pretty view shown   {ours['pretty_s']:.3f} s after arrival")
    print(f"  ... and foldable    {ours['foldable_s']:.3f} s after arrival (goal <= 0.5 s)")
    print(
        f"  CPU time to them    {ours['pretty_cpu_s']:.3f} s, {ours['foldable_cpu_s']:.3f} s"
        " (the process's: what a loaded machine does not skew)"
    )
    print(f"  worst UI stall      {ours['max_stall_s'] * 1000:.0f} ms")
    print(f"  peak RSS            {ours['peak_rss_mb']:.0f} MB (goal <= 150 MB)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=11)
    parser.add_argument("--no-body", action="store_true", help="start-up only")
    parser.add_argument(
        "--requests", type=int, default=500, help="start-up on a collection this large too (0: not)"
    )
    parser.add_argument("--body-baseline", action="store_true", help="add the TextArea case")
    args = parser.parse_args()
    startup(max(5, args.runs))
    if args.requests:
        print()
        startup(max(5, args.runs), args.requests)
    if not args.no_body:
        body(args.body_baseline)


if __name__ == "__main__":
    main()
