"""What saving a request costs: an unchanged save, and a save that changes one field.

    python benchmarks/bench_save.py [--rounds 7] [--saves 200]

A typical request (the demo's users/create-user.toml, with comments added as a user would) is
loaded once per round and saved ``--saves`` times; the figure is the median per save over the
rounds. It uses only ``load_collection`` and ``save_request``, so the same script measures any
version of Pigeon (run it with another tree first on ``PYTHONPATH`` to compare).
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import tempfile
import time
from pathlib import Path

from pigeon.store import load_collection, save_request

DEMO = Path(__file__).resolve().parents[1] / "collections" / "demo"


def make_collection(root: Path) -> Path:
    shutil.copytree(DEMO, root)
    path = root / "users" / "create-user.toml"
    text = path.read_text(encoding="utf-8")
    lines = text.splitlines()
    commented = ["# Create a user; run after auth/login", *lines]
    commented = [
        line + "  # note" if line.startswith(("method", "url")) else line for line in commented
    ]
    path.write_text("\n".join(commented) + "\n", encoding="utf-8")
    return path


def per_save(root: Path, saves: int, change: bool) -> float:
    request = load_collection(root).find("users/create-user")[1]
    start = time.perf_counter()
    for n in range(saves):
        if change:
            request.url = f"{{{{base_url}}}}/users/{n}"
        save_request(request)
    return (time.perf_counter() - start) / saves


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--saves", type=int, default=200)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "demo"
        make_collection(root)
        for label, change in (("unchanged save", False), ("one field changed", True)):
            figures = [per_save(root, args.saves, change) for _ in range(args.rounds)]
            median = statistics.median(figures) * 1e6
            print(f"{label:>18}: median {median:8.0f} µs per save ({args.rounds} rounds)")


if __name__ == "__main__":
    main()
