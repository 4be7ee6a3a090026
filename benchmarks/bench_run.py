"""Pigeon's send overhead: sequential requests through `pigeon run`'s pipeline
(``run_collection``: selection, scopes, render, send, Exchange, result) against a bare
``httpx.AsyncClient`` loop, same server, same process.

The collection holds ``--requests`` copies of one GET (placeholders in the URL, a collection
header, a request header) in folders of ``--block``; each round runs every folder through
``run_collection`` and sends as many requests through httpx, interleaved folder by folder
(the side that goes first alternates), so a busy machine slows both sides alike. The figure
to read is the median of the per-round ratios.

Run: python benchmarks/bench_run.py [--requests 1000] [--rounds 7] [--server process|thread]

``--server process`` (default) runs the echo server in its own process so it does not share
the client's GIL; ``--server thread`` runs it in a thread of this process, which adds the
server's work to both sides and so makes the ratio look better than it is.
"""

from __future__ import annotations

import argparse
import asyncio
import json
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
from pigeon.run import RequestResult, RunContext, run_collection
from pigeon.store import load_collection


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


def check(result: RequestResult) -> None:
    assert result.exchange is not None and result.exchange.status == 200, result.error


async def one_round(
    root: Path, folders: list[str], base_url: str, block: int, pigeon_first: bool
) -> tuple[float, float]:
    """(pigeon req/s, httpx req/s), interleaved folder by folder."""
    collection = load_collection(root)
    assert not collection.broken, collection.broken
    ctx = RunContext(collection)
    url = f"{base_url}/users/7?name=Ada"
    headers = {"X-Api-Key": "k-123", "Accept": "application/json"}
    n = len(collection.requests())

    async def pigeon_block(folder: str) -> float:
        start = time.perf_counter()
        summary = await run_collection(ctx, [folder], on_result=check)
        assert summary.passed == len(summary.results) > 0
        return time.perf_counter() - start

    async def httpx_block(client: httpx.AsyncClient, k: int) -> float:
        start = time.perf_counter()
        for _ in range(k):
            response = await client.get(url, headers=headers)
            await response.aread()
            assert response.status_code == 200
        return time.perf_counter() - start

    spent = {"pigeon": 0.0, "httpx": 0.0}
    try:
        async with httpx.AsyncClient(http2=True) as client:
            await pigeon_block(folders[0])  # open both connections before timing
            await httpx_block(client, block)
            for index, folder in enumerate(folders):
                k = min(block, n - index * block)
                sides = ["pigeon", "httpx"] if pigeon_first else ["httpx", "pigeon"]
                for side in sides:
                    spent[side] += await (pigeon_block(folder) if side == "pigeon" else httpx_block(client, k))
                pigeon_first = not pigeon_first
    finally:
        await ctx.aclose()
    return n / spent["pigeon"], n / spent["httpx"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--requests", type=int, default=1000)
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--block", type=int, default=50)
    ap.add_argument("--server", choices=("process", "thread"), default="process")
    args = ap.parse_args()
    pigeon: list[float] = []
    bare: list[float] = []
    with echo_server(args.server) as base_url, tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        folders = make_collection(root, base_url, args.requests, args.block)
        asyncio.run(one_round(root, folders[:2], base_url, args.block, True))  # warm up
        for i in range(args.rounds):
            p, b = asyncio.run(one_round(root, folders, base_url, args.block, i % 2 == 0))
            pigeon.append(p)
            bare.append(b)
    ratios = [p / b for p, b in zip(pigeon, bare, strict=True)]
    ratio = statistics.median(ratios)
    print(
        f"{args.requests} sequential GETs each way per round, {args.rounds} rounds, "
        f"echo server in a {args.server}"
    )
    print(f"  pigeon run pipeline : {statistics.median(pigeon):8.0f} req/s (median)   "
          f"rounds: {', '.join(f'{x:.0f}' for x in pigeon)}")
    print(f"  bare httpx loop     : {statistics.median(bare):8.0f} req/s (median)   "
          f"rounds: {', '.join(f'{x:.0f}' for x in bare)}")
    print(f"  ratio pigeon/httpx  : {ratio:8.3f} (median of per-round ratios: "
          f"{', '.join(f'{x:.2f}' for x in ratios)})")
    print(f"  pigeon overhead     : {(1 / ratio - 1) * 100:7.1f}% (target <= 15%)")


if __name__ == "__main__":
    main()
