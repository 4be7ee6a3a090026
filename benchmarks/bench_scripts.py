"""What running scripts in a worker process costs: one phase on a warm worker against the
same phase in a thread of this process (the way scripts ran before the worker), and the cold
start of a worker.

Each round times ``--calls`` phases of one small pre-request script (``getVar``, ``setVar``,
``render``, ``setHeader``, ``print``) on each side, interleaved (the side that goes first
rotates), so a busy machine slows both alike; the figure to read is the median over rounds of
the per-call difference, worker minus thread. A third side runs ``run_scripts`` directly, with
no thread, for scale. Cold start: a fresh ``ScriptWorker``'s first phase, minus a warm call.

Run: python benchmarks/bench_scripts.py [--calls 300] [--rounds 7] [--cold 7]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

from pigeon.model import Collection, Request, Scripts
from pigeon.scopes import RuntimeVars, build_scopes
from pigeon.scripts import ScriptWorker, run_scripts

SCRIPT = """
n = (pigeon.getVar("n") or 0) + 1
pigeon.setVar("n", n)
pigeon.setHeader("X-Trace", pigeon.render("{{base}}/{{n}}"))
print("call", n)
"""


def collection(root: Path) -> tuple[Collection, Request]:
    col = Collection("bench", root, variables={"base": "http://127.0.0.1:9", "user": "ada"})
    req = Request("r", id="r", url="{{base}}/x", scripts=Scripts(pre_request=SCRIPT))
    col.items.append(req)
    return col, req


async def per_call(run: Callable[[], Awaitable[object]], calls: int) -> float:
    started = time.perf_counter()
    for _ in range(calls):
        await run()
    return (time.perf_counter() - started) / calls * 1000


async def bench(calls: int, rounds: int, cold_runs: int) -> None:
    root = Path(tempfile.mkdtemp(prefix="pigeon-bench-scripts-"))
    col, req = collection(root)
    runtime = RuntimeVars()
    scopes = build_scopes(col, [], req, runtime=runtime)
    worker = ScriptWorker(root)

    def direct() -> object:
        return run_scripts("pre_request", col, [], req, scopes, runtime, trusted=True)

    async def in_process() -> object:
        return direct()

    async def in_thread() -> object:
        return await asyncio.to_thread(direct)

    async def in_worker() -> object:
        return await worker.run_scripts(
            "pre_request", col, [], req, scopes, runtime, trusted=True, timeout=30
        )

    sides = {"worker": in_worker, "thread": in_thread, "direct": in_process}
    for run in sides.values():  # warm up: worker started, scripts compiled
        await per_call(run, 20)
    times: dict[str, list[float]] = {name: [] for name in sides}
    order = list(sides)
    for r in range(rounds):
        for name in order[r % len(order) :] + order[: r % len(order)]:
            times[name].append(await per_call(sides[name], calls))
    worker.kill()

    colds = []
    for _ in range(cold_runs):
        fresh = ScriptWorker(root)
        started = time.perf_counter()
        await fresh.run_scripts(
            "pre_request", col, [], req, scopes, runtime, trusted=True, timeout=30
        )
        colds.append((time.perf_counter() - started) * 1000)
        fresh.kill()

    over = [w - t for w, t in zip(times["worker"], times["thread"], strict=True)]
    print(f"one pre-request phase, median of {rounds} rounds of {calls} calls:")
    for name in sides:
        print(f"  {name:7} {statistics.median(times[name]):7.3f} ms per call")
    print(f"  worker - thread: {statistics.median(over):+.3f} ms per call (median of rounds)")
    warm = statistics.median(times["worker"])
    print(
        f"cold start of a worker (first phase, median of {cold_runs}): "
        f"{statistics.median(colds):.1f} ms ({statistics.median(colds) - warm:.1f} ms over a warm call)"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--calls", type=int, default=300)
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--cold", type=int, default=7)
    args = ap.parse_args()
    asyncio.run(bench(args.calls, args.rounds, args.cold))


if __name__ == "__main__":
    main()
