"""Pigeon's send overhead: sequential requests through `pigeon run`'s pipeline
(``run_collection``: selection, scopes, render, send, Exchange, result) against a bare sync
``httpx.Client`` loop (the cheapest way to send them in Python), same server.

In-process: the collection holds ``--requests`` copies of one GET (placeholders in the URL, a
collection header, a request header) in folders of ``--block``; each round runs every folder
through ``run_collection`` (on ``ThreadedSession``, as `pigeon run` sends) and sends as many
requests through each bare loop, interleaved folder by folder (the side that goes first
rotates), so a busy machine slows every side alike. The figure to read is the median of the
per-round ratios. ``ThreadedSession.send`` and the app's async ``HttpSession.send`` of an
already rendered request split Pigeon's overhead into sending and building, and a bare
``httpx.AsyncClient`` loop shows what the async stack costs; building alone is also timed
without the network.

Whole processes (``--processes`` rounds): ``pigeon run`` of the same collection, as a user
runs it (untrusted, so the trust check renders every request first), against a Python process
running the bare sync loop, interleaved; start-up, imports and loading included. The same is
then measured at ``--big`` requests (default 10,000; ``--big-processes`` rounds, fewer since
each takes longer), against a bare loop of as many, in the same run.

Run: python benchmarks/bench_run.py [--requests 1000] [--rounds 7] [--processes 5]
     [--big 10000] [--big-processes 3] [--server process|thread]

``--rounds 0`` skips the in-process rounds, ``--big 0`` the second size.

``--server process`` (default) runs the echo server in its own process so it does not share
the client's GIL; ``--server thread`` runs it in a thread of this process, which adds the
server's work to both sides and so makes the ratio look better than it is.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx

from pigeon.echo import EchoServer
from pigeon.run import RequestResult, ResultRecord, RunContext, build, run_collection
from pigeon.send import HttpSession
from pigeon.send_thread import ThreadedSession
from pigeon.store import load_collection
from pigeon.trust import needs


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def echo_server(kind: str) -> Iterator[str]:
    """The echo server's base URL, on 127.0.0.1, stopped on exit."""
    if kind == "thread":
        with EchoServer("127.0.0.1", 0) as server:
            yield server.url
        return
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "pigeon", "echo", "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 15
        while True:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                    break
            except OSError:
                if time.monotonic() > deadline:
                    raise SystemExit("echo server did not start") from None
                time.sleep(0.05)
        yield f"http://127.0.0.1:{port}"
    finally:
        proc.terminate()
        proc.wait(timeout=10)


REQUEST = (
    'name = "get"\nurl = "{{base_url}}/users/{{user.id}}?name={{user.name}}"\n'
    '\n[[headers]]\nname = "Accept"\nvalue = "application/json"\n'
)


def make_collection(root: Path, base_url: str, n: int, block: int) -> list[str]:
    """``n`` copies of one GET in folders of ``block``; returns the folder names in order."""
    folders = [f"b{i:04d}" for i in range((n + block - 1) // block)]
    (root / "collection.toml").write_text(
        f'name = "bench"\norder = {json.dumps(folders)}\n\n[variables]\nbase_url = "{base_url}"\n'
        'user = { id = 7, name = "Ada" }\nkey = "k-123"\n'
        '\n[[headers]]\nname = "X-Api-Key"\nvalue = "{{key}}"\n'
    )
    for i in range(n):
        folder = root / folders[i // block]
        folder.mkdir(exist_ok=True)
        (folder / f"get-{i:05d}.toml").write_text(REQUEST)
    return folders


def check(result: ResultRecord) -> None:
    assert result.status == 200, result.error


async def one_round(
    root: Path, folders: list[str], base_url: str, block: int, first: int
) -> dict[str, float]:
    """Requests per second of each side, interleaved folder by folder.

    ``pigeon``: ``run_collection``. ``send``: ``ThreadedSession.send`` of an already rendered
    request, holding the loop as a one-lane run does (the send layer alone); ``async send``: the app's ``HttpSession.send``.
    ``httpx``: a bare sync client; ``async httpx``: a bare async one. pigeon/send splits
    Pigeon's overhead into building the request and sending it.
    """
    collection = load_collection(root)
    assert not collection.broken, collection.broken
    # As `pigeon run` with one lane does: scopes reused, sends on the sync client on the
    # loop's own thread.
    ctx = RunContext(collection, reuse_scopes=True, http=ThreadedSession(alone=True))
    session = ThreadedSession(alone=True)
    async_session = HttpSession()
    sync_client = httpx.Client(http2=True)
    chain, request = collection.walk()[0]
    probe = RequestResult(request, chain)
    await build(ctx, chain, request, probe)
    rendered = probe.rendered
    assert rendered is not None
    url = f"{base_url}/users/7?name=Ada"
    headers = {"X-Api-Key": "k-123", "Accept": "application/json"}
    n = len(collection.requests())

    async def pigeon_block(folder: str, k: int, client: httpx.AsyncClient) -> None:
        summary = await run_collection(ctx, [folder], on_result=check)
        assert summary.passed == len(summary.results) == k

    async def send_block(folder: str, k: int, client: httpx.AsyncClient) -> None:
        for _ in range(k):
            exchange = await session.send(rendered, hold_loop=True)
            assert exchange.status == 200, exchange.error

    async def async_send_block(folder: str, k: int, client: httpx.AsyncClient) -> None:
        for _ in range(k):
            exchange = await async_session.send(rendered)
            assert exchange.status == 200, exchange.error

    async def httpx_block(folder: str, k: int, client: httpx.AsyncClient) -> None:
        for _ in range(k):
            response = sync_client.get(url, headers=headers)
            response.read()
            assert response.status_code == 200

    async def async_httpx_block(folder: str, k: int, client: httpx.AsyncClient) -> None:
        for _ in range(k):
            response = await client.get(url, headers=headers)
            await response.aread()
            assert response.status_code == 200

    sides = {
        "pigeon": pigeon_block,
        "send": send_block,
        "async send": async_send_block,
        "httpx": httpx_block,
        "async httpx": async_httpx_block,
    }
    spent = dict.fromkeys(sides, 0.0)
    names = list(sides)
    try:
        async with httpx.AsyncClient(http2=True) as client:
            for run_block in sides.values():  # open every connection before timing
                await run_block(folders[0], block, client)
            for index, folder in enumerate(folders):
                k = min(block, n - index * block)
                turn = (first + index) % len(names)
                for name in names[turn:] + names[:turn]:  # who goes first rotates
                    start = time.perf_counter()
                    await sides[name](folder, k, client)
                    spent[name] += time.perf_counter() - start
    finally:
        await ctx.aclose()
        await session.aclose()
        await async_session.aclose()
        sync_client.close()
    return {name: n / seconds for name, seconds in spent.items()}


async def build_cost(root: Path, n: int = 2000, trusted: bool = False) -> float:
    """Microseconds to build one request without sending it: scopes, render, result (and,
    untrusted, the trust gate's checks)."""
    collection = load_collection(root)
    ctx = RunContext(collection, reuse_scopes=True, trusted=trusted)  # as `pigeon run` does
    chain, request = collection.walk()[0]
    best = float("inf")
    for _ in range(5):
        start = time.perf_counter()
        for _ in range(n):
            await build(ctx, chain, request, RequestResult(request, chain))
        best = min(best, (time.perf_counter() - start) / n)
    return best * 1e6


def needs_cost(root: Path) -> float:
    """Microseconds per request of the static trust check an untrusted `pigeon run` makes
    before sending (``pigeon.trust.needs``: one recording render of each request)."""
    collection = load_collection(root)
    selection = collection.walk()
    best = float("inf")
    for _ in range(5):
        start = time.perf_counter()
        needs(collection, selection)
        best = min(best, (time.perf_counter() - start) / len(selection))
    return best * 1e6


BARE_SCRIPT = """import sys
import httpx
url, n = sys.argv[1], int(sys.argv[2])
headers = {"X-Api-Key": "k-123", "Accept": "application/json"}
with httpx.Client() as client:
    for _ in range(n):
        response = client.get(url, headers=headers)
        response.read()
        assert response.status_code == 200
"""


def process_rounds(
    root: Path, base_url: str, n: int, rounds: int
) -> tuple[dict[str, list[float]], dict[str, list[float]]]:
    """Seconds of whole processes, wall-clock and CPU (user + system): `pigeon run` of the
    collection and a bare sync loop of as many GETs, interleaved (who goes first alternates).
    On a shared machine the CPU seconds say what each side costs when the wall-clock ones
    mostly say how long it waited for a core."""
    commands = {
        "pigeon run": [sys.executable, "-m", "pigeon", "run", str(root), "--no-color"],
        "bare loop": [sys.executable, "-c", BARE_SCRIPT, f"{base_url}/users/7?name=Ada", str(n)],
    }
    # As a user's machine runs them: bytecode cached (some environments set
    # PYTHONDONTWRITEBYTECODE, which would compile Pigeon's modules on every start while
    # httpx's were compiled at install) and the file cache warm (one untimed run each).
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    for command in commands.values():
        subprocess.run(command, stdout=subprocess.DEVNULL, check=True, env=env)
    spent: dict[str, list[float]] = {name: [] for name in commands}
    cpu: dict[str, list[float]] = {name: [] for name in commands}
    names = list(commands)
    for i in range(rounds):
        for name in names[i % 2 :] + names[: i % 2]:
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            start = time.perf_counter()
            subprocess.run(commands[name], stdout=subprocess.DEVNULL, check=True, env=env)
            spent[name].append(time.perf_counter() - start)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu[name].append(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
    return spent, cpu


def line(label: str, values: list[float], unit: str = "req/s", fmt: str = ".0f") -> str:
    return (
        f"  {label:<22}: {statistics.median(values):8{fmt}} {unit} (median)   "
        f"rounds: {', '.join(f'{x:{fmt}}' for x in values)}"
    )


def print_processes(procs: tuple[dict[str, list[float]], dict[str, list[float]]], n: int) -> None:
    spent, cpu = procs
    run, loop = spent["pigeon run"], spent["bare loop"]
    proc_ratios = [r / b for r, b in zip(run, loop, strict=True)]
    cpu_ratios = [r / b for r, b in zip(cpu["pigeon run"], cpu["bare loop"], strict=True)]
    print(f"whole processes, {len(run)} interleaved rounds ({n} GETs each)")
    print(line("pigeon run <collection>", run, "s", ".3f"))
    print(line("python bare sync loop", loop, "s", ".3f"))
    print(
        f"  time pigeon / bare    : {statistics.median(proc_ratios):8.3f}x (median of per-round "
        f"ratios: {', '.join(f'{x:.2f}' for x in proc_ratios)}; goal <= 1.3x, then 1.15x)"
    )
    print(line("  cpu, pigeon run", cpu["pigeon run"], "s", ".3f"))
    print(line("  cpu, bare loop", cpu["bare loop"], "s", ".3f"))
    print(
        f"  cpu pigeon / bare     : {statistics.median(cpu_ratios):8.3f}x (median of per-round "
        f"ratios: {', '.join(f'{x:.2f}' for x in cpu_ratios)})"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--requests", type=int, default=1000)
    ap.add_argument("--rounds", type=int, default=7, help="in-process rounds (0: none)")
    ap.add_argument("--processes", type=int, default=5, help="rounds of whole processes")
    ap.add_argument("--big", type=int, default=10_000, help="the second size (0: none)")
    ap.add_argument("--big-processes", type=int, default=3, help="its rounds")
    ap.add_argument("--block", type=int, default=50)
    ap.add_argument("--server", choices=("process", "thread"), default="process")
    args = ap.parse_args()
    rates: dict[str, list[float]] = {}
    with echo_server(args.server) as base_url, tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "small"
        root.mkdir()
        folders = make_collection(root, base_url, args.requests, args.block)
        if args.rounds:
            asyncio.run(one_round(root, folders[:2], base_url, args.block, 0))  # warm up
        for i in range(args.rounds):
            for name, rate in asyncio.run(
                one_round(root, folders, base_url, args.block, i)
            ).items():
                rates.setdefault(name, []).append(rate)
        if args.rounds:
            build_us = asyncio.run(build_cost(root))
            trusted_us = asyncio.run(build_cost(root, trusted=True))
            needs_us = needs_cost(root)
        procs = process_rounds(root, base_url, args.requests, args.processes)
        big_procs = None
        if args.big:
            big = Path(tmp) / "big"
            big.mkdir()
            make_collection(big, base_url, args.big, args.block)
            big_procs = process_rounds(big, base_url, args.big, args.big_processes)
    if args.rounds:
        print_rounds(args, rates, build_us, trusted_us, needs_us)
    print_processes(procs, args.requests)
    if big_procs is not None:
        print_processes(big_procs, args.big)


def print_rounds(
    args: argparse.Namespace,
    rates: dict[str, list[float]],
    build_us: float,
    trusted_us: float,
    needs_us: float,
) -> None:
    pigeon, send, bare = rates["pigeon"], rates["send"], rates["httpx"]
    ratios = [b / p for p, b in zip(pigeon, bare, strict=True)]
    ratio = statistics.median(ratios)
    send_ratio = statistics.median(b / s for s, b in zip(send, bare, strict=True))
    async_ratio = statistics.median(b / a for a, b in zip(rates["async httpx"], bare, strict=True))
    print(
        f"{args.requests} sequential GETs each way per round, {args.rounds} rounds, "
        f"echo server in a {args.server}"
    )
    print(line("pigeon run pipeline", pigeon))
    print(line("ThreadedSession.send", send))
    print(line("HttpSession.send (app)", rates["async send"]))
    print(line("bare httpx.Client loop", bare))
    print(line("bare AsyncClient loop", rates["async httpx"]))
    print(
        f"  time pigeon / bare    : {ratio:8.3f}x (median of per-round ratios: "
        f"{', '.join(f'{x:.2f}' for x in ratios)}; goal <= 1.3x, then 1.15x)"
    )
    print(f"    sending alone       : {send_ratio:8.3f}x (ThreadedSession.send vs the bare loop)")
    print(f"    async httpx alone   : {async_ratio:8.3f}x (what the async stack costs)")
    print(f"  building one request  : {build_us:7.1f} us (scopes, render, result; no network)")
    print(f"    trusted (no gate)   : {trusted_us:7.1f} us (ratio {build_us / trusted_us:.2f})")
    print(f"  trust check (needs)   : {needs_us:7.1f} us per request, once before a run")


if __name__ == "__main__":
    main()
