"""Time from process start to the first usable screen: Pigeon beside a minimal Textual app.

Each run is a fresh interpreter (imports included) that runs the app headless. The minimal
app reports after its first refresh; Pigeon reports the moment its main screen, showing the
demo's tree, was first refreshed (``MainScreen.first_paint_at``; the editor's widgets and the
response pane are mounted just after it). The parent takes the time just before starting the
process; the child prints the wall-clock time of that moment. Prints both medians of ``--runs`` runs and the ratio (target: at most 1.5x).
Both sides run from compiled bytecode in a private cache, as an installed program does.

    python benchmarks/bench_tui.py [--runs 11]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

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
        print(f"READY {time.time():.6f}", flush=True)
        self.exit()

Minimal().run(headless=True, size=(120, 40))
"""

PIGEON = r"""
import time
from pigeon.tui.app import PigeonApp
from pigeon.tui.session import Session, demo_collection_dir

class Timed(PigeonApp):
    def on_ready(self):
        self.set_interval(0.05, self.check)

    def check(self):
        from pigeon.tui.screens.main import MainScreen

        screen = self.screen
        if isinstance(screen, MainScreen) and screen.first_paint_at and screen.is_mounted:
            if screen.query("#response"):  # everything mounted: leave cleanly
                print(f"READY {screen.first_paint_at:.6f}", flush=True)
                self.exit()

session = Session.open(demo_collection_dir())
Timed(session, remember_theme=False).run(headless=True, size=(120, 40))
"""


def one_run(code: str, env: dict[str, str]) -> float:
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
    return float(ready.split()[1]) - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=11)
    args = parser.parse_args()
    runs = max(5, args.runs)
    minimal, pigeon = [], []
    with tempfile.TemporaryDirectory() as pycache:
        # Both sides start from compiled bytecode, as an installed program does after its
        # first run: the warm-up runs write it into a private cache (even where the
        # environment sets PYTHONDONTWRITEBYTECODE) and warm the file cache.
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env["PYTHONPYCACHEPREFIX"] = pycache
        for _ in range(2):
            one_run(MINIMAL, env)
            one_run(PIGEON, env)
        for _ in range(runs):  # interleaved, so drift affects both alike
            minimal.append(one_run(MINIMAL, env))
            pigeon.append(one_run(PIGEON, env))
    m, p = statistics.median(minimal), statistics.median(pigeon)
    paired = statistics.median(b / a for a, b in zip(minimal, pigeon, strict=True))
    print(f"runs: {runs}")
    print(f"minimal Textual app: median {m * 1000:.0f} ms  (min {min(minimal) * 1000:.0f} ms)")
    print(f"pigeon (demo):       median {p * 1000:.0f} ms  (min {min(pigeon) * 1000:.0f} ms)")
    print(f"ratio: {p / m:.2f}x (median of paired runs {paired:.2f}x; target <= 1.5x)")


if __name__ == "__main__":
    main()
