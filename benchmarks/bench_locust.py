"""Pigeon under Locust: requests per second per core with ``pigeon.locust.PigeonUser``
against a plain Locust ``HttpUser`` sending the same GET to the same loopback server.

Each side runs in a child process of its own (Locust's local runner, ``--users`` users, no
wait) for ``--seconds`` after a warm-up (five requests a user, then two seconds), and reports
the requests it completed per second of its own CPU time (its script workers' included), so a
busy machine slows neither side's figure much; the echo server runs in another process.
Rounds interleave the sides (the side that goes first rotates); the figures are the medians
of the rates and of each round's ratio to ``HttpUser``. Three sides: ``HttpUser`` (Locust's
requests-based client), ``PigeonUser`` with no script, and ``PigeonUser`` with a
post-response script (an assertion on the status, in a trusted collection). The goal is the
scriptless ``PigeonUser`` at 70% or more of ``HttpUser``'s rate.

Run: python benchmarks/bench_locust.py [--rounds 5] [--seconds 4] [--users 10]
     [--sides httpuser,pigeon,scripted]
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CHILD = r"""
import locust  # first: gevent patches the standard library
import glob, json, os, resource, sys, time
import gevent
from locust import HttpUser, constant, task
from locust.env import Environment

side, url, root, users, seconds, warm = sys.argv[1:7]
users, seconds, warm = int(users), float(seconds), float(warm)

if side == "httpuser":
    class Side(HttpUser):
        host = url
        wait_time = constant(0)

        @task
        def get(self):
            self.client.get("/users/7?page=2", headers={"X-Api-Key": "k1"}, name="users/get")
else:
    from pigeon.locust import PigeonUser

    class Side(PigeonUser):
        collection = root
        requests = ["users/get"]
        trust = side == "scripted"
        wait_time = constant(0)

env = Environment(user_classes=[Side])
runner = env.create_local_runner()
runner.start(users, spawn_rate=users)
started = time.monotonic()  # warm: every user going (its script worker started), then more
while env.stats.total.num_requests < 5 * users and time.monotonic() - started < 60:
    gevent.sleep(0.1)
gevent.sleep(warm)
def cpu():
    # this process's CPU seconds and its live children's (the script workers)
    r = resource.getrusage(resource.RUSAGE_SELF)
    total, tick = r.ru_utime + r.ru_stime, os.sysconf("SC_CLK_TCK")
    for stat in glob.glob("/proc/[0-9]*/stat"):
        try:
            text = open(stat).read()
        except OSError:
            continue
        fields = text[text.rfind(")") + 2 :].split()
        if int(fields[1]) == os.getpid():
            total += (int(fields[11]) + int(fields[12])) / tick
    return total
n0, c0 = env.stats.total.num_requests, cpu()
gevent.sleep(seconds)
n1, c1 = env.stats.total.num_requests, cpu()
failures = env.stats.total.num_failures
runner.quit()
print(json.dumps({"requests": n1 - n0, "cpu": c1 - c0, "failures": failures}))
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def collection(root: Path, url: str, scripted: bool) -> None:
    """One GET with placeholders in the URL and a header, as a collection holds it."""
    (root / "users").mkdir(parents=True)
    (root / "collection.toml").write_text(f'name = "bench"\n\n[variables]\nbase = "{url}"\n')
    script = (
        "\n[scripts]\npost_response = '''\nassert pigeon.response.status == 200\n'''\n"
        if scripted
        else ""
    )
    (root / "users" / "get.toml").write_text(
        'name = "get"\nmethod = "GET"\nurl = "{{base}}/users/{{id}}?page=2"\n\n'
        '[variables]\nid = 7\n\n[[headers]]\nname = "X-Api-Key"\nvalue = "k1"\n' + script
    )


def run_side(side: str, url: str, root: Path, users: int, seconds: float) -> dict[str, float]:
    out = subprocess.run(
        [sys.executable, "-c", CHILD, side, url, str(root), str(users), str(seconds), "2.0"],
        capture_output=True,
        text=True,
        timeout=seconds + 60,
        check=True,
    )
    figures: dict[str, float] = json.loads(out.stdout.strip().splitlines()[-1])
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seconds", type=float, default=4.0)
    parser.add_argument("--users", type=int, default=10)
    parser.add_argument("--sides", default="httpuser,pigeon,scripted", help="which, in order")
    args = parser.parse_args()
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "pigeon", "echo", "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    sides = args.sides.split(",")
    rates: dict[str, list[float]] = {side: [] for side in sides}
    try:
        deadline = time.monotonic() + 10
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)
        with tempfile.TemporaryDirectory() as tmp:
            plain, scripted = Path(tmp, "plain"), Path(tmp, "scripted")
            collection(plain, url, scripted=False)
            collection(scripted, url, scripted=True)
            for n in range(args.rounds):
                order = sides[n % len(sides) :] + sides[: n % len(sides)]
                for side in order:
                    root = scripted if side == "scripted" else plain
                    got = run_side(side, url, root, args.users, args.seconds)
                    if got["failures"]:
                        raise SystemExit(f"{side}: {got['failures']} failures")
                    rates[side].append(got["requests"] / got["cpu"])
                    print(f"round {n + 1} {side:9} {rates[side][-1]:8.0f} req/s per core")
    finally:
        server.terminate()
        server.wait(5)
    med = {side: statistics.median(values) for side, values in rates.items()}
    print()
    print(f"cores: {os.cpu_count()}, users: {args.users}, rounds: {args.rounds}")
    labels = {
        "httpuser": "HttpUser",
        "pigeon": "PigeonUser, no script",
        "scripted": "PigeonUser, a script",
    }
    for side in sides:
        line = f"{labels[side]:22} {med[side]:8.0f} req/s per core"
        if side != "httpuser" and "httpuser" in med:
            # the median of each round's ratio: a round's sides ran back to back
            ratio = statistics.median(
                p / h for p, h in zip(rates[side], rates["httpuser"], strict=True)
            )
            line += f"  ({ratio:.0%} of HttpUser, the median of the rounds' ratios)"
        print(line)


if __name__ == "__main__":
    main()
