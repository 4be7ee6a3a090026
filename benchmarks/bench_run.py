"""Pigeon's send overhead: 1,000 sequential requests through `pigeon run`'s pipeline
(scopes, render, send, Exchange) against a bare ``httpx.AsyncClient`` loop, same server,
same process, alternating rounds.

Run: python benchmarks/bench_run.py [--requests 1000] [--rounds 5]

The echo server runs in its own process on 127.0.0.1 so it does not share the client's GIL.
"""

from __future__ import annotations

import argparse
import asyncio
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

from pigeon.run import RunContext, execute
from pigeon.store import load_collection


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_echo(port: int) -> subprocess.Popen[bytes]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "pigeon", "echo", "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return proc
        except OSError:
            time.sleep(0.05)
    proc.kill()
    raise SystemExit("echo server did not start")


def make_collection(root: Path, base_url: str) -> None:
    (root / "collection.toml").write_text(
        f'name = "bench"\n\n[variables]\nbase_url = "{base_url}"\n'
        'user = { id = 7, name = "Ada" }\nkey = "k-123"\n'
        '\n[[headers]]\nname = "X-Api-Key"\nvalue = "{{key}}"\n'
    )
    (root / "get.toml").write_text(
        'name = "get"\nurl = "{{base_url}}/users/{{user.id}}?name={{user.name}}"\n'
        '\n[[headers]]\nname = "Accept"\nvalue = "application/json"\n'
    )


async def pigeon_round(root: Path, n: int) -> float:
    collection = load_collection(root)
    ctx = RunContext(collection)
    chain, request = collection.walk()[0]
    start = time.perf_counter()
    try:
        for _ in range(n):
            result = await execute(ctx, chain, request)
            assert result.exchange is not None and result.exchange.status == 200, result.error
    finally:
        await ctx.aclose()
    return n / (time.perf_counter() - start)


async def httpx_round(base_url: str, n: int) -> float:
    url = f"{base_url}/users/7?name=Ada"
    headers = {"X-Api-Key": "k-123", "Accept": "application/json"}
    async with httpx.AsyncClient(http2=True) as client:
        start = time.perf_counter()
        for _ in range(n):
            response = await client.get(url, headers=headers)
            await response.aread()
            assert response.status_code == 200
    return n / (time.perf_counter() - start)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--requests", type=int, default=1000)
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    port = free_port()
    echo = start_echo(port)
    base_url = f"http://127.0.0.1:{port}"
    try:
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp)
            make_collection(root, base_url)
            asyncio.run(httpx_round(base_url, 50))  # warm up both paths
            asyncio.run(pigeon_round(root, 50))
            pigeon, bare = [], []
            for i in range(args.rounds):
                order = [("pigeon", pigeon), ("httpx", bare)]
                for name, sink in order if i % 2 == 0 else reversed(order):
                    if name == "pigeon":
                        sink.append(asyncio.run(pigeon_round(root, args.requests)))
                    else:
                        sink.append(asyncio.run(httpx_round(base_url, args.requests)))
    finally:
        echo.terminate()
        echo.wait(timeout=10)
    p, b = statistics.median(pigeon), statistics.median(bare)
    print(f"{args.requests} sequential GETs to the local echo server, median of {args.rounds} rounds")
    print(f"  pigeon run pipeline : {p:8.0f} req/s   rounds: {', '.join(f'{x:.0f}' for x in pigeon)}")
    print(f"  bare httpx loop     : {b:8.0f} req/s   rounds: {', '.join(f'{x:.0f}' for x in bare)}")
    print(f"  ratio pigeon/httpx  : {p / b:8.3f}     overhead: {(b / p - 1) * 100:.1f}% (target <= 15%)")


if __name__ == "__main__":
    main()
