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

``--app-replies N`` measures the app instead (``app_stream``): one server-stream call of N
replies (the Greeter's ``Flood``, as fast as the server sends) made with the send key in the
app, headless (``App.run_test``), each reply shown live in the response pane. It reports the
worst stall of the UI loop from the send key to the call's end drawn (how late a 10 ms timer
fired, as ``bench_tui_body.py`` measures it) and the process's memory (goals: at most 50 ms
and 200 MB for 10,000 replies). The call is made twice and the second is the figure: the
first also opens the channel and asks the server's reflection (grpc itself loads in a thread
as the request is shown).
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


FLOOD = """\
name = "Flood"
type = "grpc"
url = "grpc://127.0.0.1:{{port}}"
rpc = "pigeon.test.Greeter/Flood"

[body]
type = "json"
content = '{"count": %d}'
"""


async def app_stream(root: Path, replies: int) -> dict[str, float]:
    """A server-stream call of ``replies`` replies in the app, shown live, made twice: the
    worst stall of the UI loop from the send key to the end drawn for each (the first call
    also opens the channel and asks reflection), the time each took, and memory."""
    from bench_tui_body import TICK, Stalls, peak_rss_mb, rss_mb
    from tui_support import open_request

    from pigeon.session import Session
    from pigeon.tui import start_gc
    from pigeon.tui.app import PigeonApp
    from pigeon.tui.themes import bundled_theme_dirs
    from pigeon.tui.widgets.response.grpc_view import GrpcView

    start_gc.pause()  # as ``pigeon`` starts the app: what start-up built is frozen after it
    app = PigeonApp(Session.open(root), theme_dirs=bundled_theme_dirs(), remember_theme=False)
    stalls = Stalls()
    got: dict[str, float] = {}
    async with app.run_test(size=(120, 40)) as pilot:
        await open_request(pilot, "flood")
        await pilot.pause(0.3)
        view = app.screen.query_one(GrpcView)
        app.set_interval(TICK, stalls.tick)
        await pilot.pause(0.3)
        got["idle_rss_mb"] = rss_mb()
        for phase in ("first", "again"):
            stalls.worst = 0.0
            stalls.start()
            start = time.perf_counter()
            await pilot.press("ctrl+r")
            deadline = start + 120
            while view.live or not view.state_line.startswith(("✔", "✘")):
                if time.perf_counter() > deadline:
                    raise SystemExit(f"the call did not end: {view.state_line}")
                await asyncio.sleep(0.01)
            await pilot.pause()
            got[f"{phase}_seconds"] = time.perf_counter() - start
            stalls.active = False
            got[f"{phase}_max_stall_ms"] = stalls.worst * 1000
            line, shown = view.state_line, view.replies.total
            assert line.startswith("✔ OK") and shown == replies, (line, shown)
            got["replies"] = shown
            got["rss_mb"] = rss_mb()
    got["peak_rss_mb"] = peak_rss_mb()
    return got


def run_app(replies: int) -> None:
    from grpc_servers import compile_greeter

    sys.path.insert(0, str(ROOT / "tests" / "tui"))
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        (folder / "server").mkdir()
        root = folder / "collection"
        root.mkdir()
        compile_greeter(folder / "server")
        with greeter(folder / "server") as port:
            (root / "collection.toml").write_text(f'name = "bench"\n[variables]\nport = {port}\n')
            (root / "flood.toml").write_text(FLOOD % replies)
            got = asyncio.run(app_stream(root, replies))
    print(
        f"{got['replies']:,} server-stream replies shown live in the app: worst UI stall"
        f" {got['again_max_stall_ms']:.1f} ms in {got['again_seconds']:.2f} s (goal: at most"
        f" 50 ms); the first call, which also asks reflection, {got['first_max_stall_ms']:.1f} ms in"
        f" {got['first_seconds']:.2f} s; RSS {got['rss_mb']:.0f} MB after, peak"
        f" {got['peak_rss_mb']:.0f} MB (goal: at most 200 MB; {got['idle_rss_mb']:.0f} MB idle"
        " before the calls)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=1000)
    parser.add_argument("--block", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--app-replies", type=int, default=0, help="measure the app instead")
    args = parser.parse_args()
    if args.app_replies:
        run_app(args.app_replies)
        return
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
