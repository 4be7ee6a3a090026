"""Pigeon's gRPC overhead: unary calls through `pigeon run`'s pipeline (``run_collection``:
selection, scopes, render, the call, the Exchange, the result) against a bare ``grpc.aio``
loop (one channel, the message built once, each call awaited in turn), same server.

The collection holds ``--requests`` copies of one unary call (a placeholder in the URL and
in the message, a metadata header) in folders of ``--block``, found by server reflection
(once per run, as `pigeon run` finds it). Each round runs every folder through
``run_collection`` and makes as many calls through the bare loop, interleaved folder by
folder (the side that goes first alternates), so a busy machine slows both alike. The figure
to read is the median of the per-round ratios (the goal: at most 1.5).

The server (tests/grpc_servers.py's Greeter, grpcio) runs in its own process so that it does
not share the client's GIL.

Run: python benchmarks/bench_grpc.py [--requests 1000] [--block 100] [--rounds 5]
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

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from pigeon.run import ResultRecord, RunContext, run_collection  # noqa: E402
from pigeon.store import load_collection  # noqa: E402

SERVER = """
import sys, threading
from pathlib import Path
sys.path.insert(0, sys.argv[1])
from grpc_servers import serve
with serve(Path(sys.argv[2])) as server:
    print(server.port, flush=True)
    sys.stdin.read()  # until the benchmark closes our stdin
"""


@contextmanager
def greeter(folder: Path) -> Iterator[int]:
    """The test Greeter (with reflection) in a process of its own; its port."""
    proc = subprocess.Popen(
        [sys.executable, "-c", SERVER, str(ROOT / "tests"), str(folder)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        port = int(proc.stdout.readline())
        deadline = time.monotonic() + 15
        while True:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                    break
            except OSError:
                if time.monotonic() > deadline:
                    raise SystemExit("the gRPC server did not start") from None
                time.sleep(0.05)
        yield port
    finally:
        if proc.stdin is not None:
            proc.stdin.close()
        proc.wait(timeout=30)


REQUEST = """\
type = "grpc"
url = "grpc://127.0.0.1:{{port}}"
rpc = "pigeon.test.Greeter/SayHello"

[[headers]]
name = "x-api-key"
value = "{{key}}"

[body]
type = "json"
content = '{"name": "{{user.name}}", "count": {{user.id}}}'
"""


def make_collection(root: Path, port: int, n: int, block: int) -> list[str]:
    """``n`` copies of one unary call in folders of ``block``; the folder names in order."""
    folders = [f"b{i:04d}" for i in range((n + block - 1) // block)]
    (root / "collection.toml").write_text(
        f'name = "bench"\norder = {json.dumps(folders)}\n\n[variables]\nport = {port}\n'
        'key = "k-123"\nuser = { id = 7, name = "Ada" }\n'
    )
    for i in range(n):
        folder = root / folders[i // block]
        folder.mkdir(exist_ok=True)
        (folder / f"hello-{i:05d}.toml").write_text(REQUEST)
    return folders


def check(result: ResultRecord) -> None:
    assert result.status == 0 and result.passed, result.error


def bare_message(descriptor_set: bytes) -> bytes:
    """The request message, serialized once (the bare loop's fairest case)."""
    from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

    pool = descriptor_pool.DescriptorPool()
    for proto in descriptor_pb2.FileDescriptorSet.FromString(descriptor_set).file:
        pool.Add(proto)
    cls = message_factory.GetMessageClass(pool.FindMessageTypeByName("pigeon.test.HelloRequest"))
    data: bytes = cls(name="Ada", count=7).SerializeToString()
    return data


async def one_round(
    root: Path, folders: list[str], port: int, message: bytes, block: int, first: int
) -> dict[str, float]:
    """Calls per second of each side, interleaved folder by folder."""
    import grpc

    collection = load_collection(root)
    assert not collection.broken, collection.broken
    ctx = RunContext(collection, reuse_scopes=True)  # as `pigeon run` does
    n = len(collection.requests())
    channel = grpc.aio.insecure_channel(f"127.0.0.1:{port}")
    say_hello = channel.unary_unary("/pigeon.test.Greeter/SayHello")

    async def pigeon_block(folder: str, k: int) -> None:
        summary = await run_collection(ctx, [folder], on_result=check)
        assert summary.passed == len(summary.results) == k

    async def bare_block(folder: str, k: int) -> None:
        for _ in range(k):
            reply = await say_hello(message, metadata=(("x-api-key", "k-123"),), timeout=30)
            assert reply

    sides = {"pigeon": pigeon_block, "grpc.aio": bare_block}
    spent = dict.fromkeys(sides, 0.0)
    names = list(sides)
    try:
        for run_block in sides.values():  # channels open and reflection done before timing
            await run_block(folders[0], min(block, n))
        for index, folder in enumerate(folders):
            k = min(block, n - index * block)
            turn = (first + index) % len(names)
            for name in names[turn:] + names[:turn]:
                start = time.perf_counter()
                await sides[name](folder, k)
                spent[name] += time.perf_counter() - start
    finally:
        await ctx.aclose()
        await channel.close()
    return {name: n / seconds for name, seconds in spent.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=1000)
    parser.add_argument("--block", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    from grpc_servers import compile_greeter

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        (folder / "server").mkdir()
        (folder / "collection").mkdir()
        _, descriptor_set = compile_greeter(folder / "server")
        message = bare_message(descriptor_set)
        with greeter(folder / "server") as port:
            folders = make_collection(folder / "collection", port, args.requests, args.block)
            ratios, rates = [], []
            for r in range(args.rounds):
                got = asyncio.run(
                    one_round(folder / "collection", folders, port, message, args.block, r)
                )
                rates.append(got)
                ratios.append(got["grpc.aio"] / got["pigeon"])
                print(
                    f"round {r + 1}: pigeon {got['pigeon']:.0f}/s  grpc.aio {got['grpc.aio']:.0f}/s"
                    f"  ratio {ratios[-1]:.2f}",
                    flush=True,
                )
    pigeon = statistics.median(r["pigeon"] for r in rates)
    bare = statistics.median(r["grpc.aio"] for r in rates)
    ratio = statistics.median(ratios)
    print(
        f"{args.requests} unary calls a round, {args.rounds} rounds: median pigeon {pigeon:.0f}"
        f" calls/s ({1e6 / pigeon:.0f} µs a call), grpc.aio {bare:.0f} calls/s"
        f" ({1e6 / bare:.0f} µs); median ratio {ratio:.2f}x (goal: at most 1.5x)"
    )


if __name__ == "__main__":
    main()
