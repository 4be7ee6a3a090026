"""`pigeon check` on a generated collection: 5,000 requests in 50 folders, 3 environments.

Run: python benchmarks/bench_check.py [--requests 5000] [--rounds 5]

Prints the median time of ``check`` (loading excluded and printed apart), and as a baseline
measured in the same run the time to render every request once per environment with
``render_request`` (what a dry run of the whole collection would cost). Goal: <= 1 s for
5,000 requests x 3 environments.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from pigeon.check import check
from pigeon.render import render_request
from pigeon.scopes import build_scopes
from pigeon.store import load_collection


def make(root: Path, n: int, folders: int = 50) -> None:
    (root / "environments").mkdir(parents=True)
    (root / "collection.toml").write_text(
        'name = "big"\n[variables]\nbase_url = "http://127.0.0.1:9"\n'
        'user = { id = 7, name = "Ada", tags = ["a", "b"] }\ntoken = "t-{{user.id}}"\n'
    )
    for env in ("dev", "staging", "prod"):
        (root / "environments" / f"{env}.toml").write_text(
            f'[variables]\nhost = "{env}.example"\nversion = "v2"\n'
        )
    for f in range(folders):
        folder = root / f"f{f:02d}"
        folder.mkdir()
        (folder / "folder.toml").write_text(f"[variables]\npage = {f}\n")
        for i in range(n // folders):
            (folder / f"r{i:04d}.toml").write_text(
                f'name = "r{i}"\nmethod = "POST"\n'
                'url = "{{base_url}}/{{version}}/users/{{user.id}}?page={{page}}"\n'
                '[[headers]]\nname = "Authorization"\nvalue = "Bearer {{token}}"\n'
                '[[headers]]\nname = "X-Host"\nvalue = "{{host}}"\n'
                "[body]\ntype = \"json\"\ncontent = '''\n"
                '{"name": "{{user.name}}", "tags": {{user.tags}}, "n": %d}\n' % i + "'''\n"
            )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--requests", type=int, default=5000)
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "big"
        make(root, args.requests)
        start = time.perf_counter()
        collection = load_collection(root)
        load_s = time.perf_counter() - start
        envs = list(collection.environments)
        walk = collection.walk()
        checks, renders = [], []
        for _ in range(args.rounds):
            start = time.perf_counter()
            report = check(collection, envs)
            checks.append(time.perf_counter() - start)
            assert not report.findings, report.findings[:3]
            start = time.perf_counter()
            for env in envs:
                for chain, request in walk:
                    render_request(
                        collection, chain, request, build_scopes(collection, chain, request, env)
                    )
            renders.append(time.perf_counter() - start)
    c, r = statistics.median(checks), statistics.median(renders)
    print(f"{len(walk):,} requests x {len(envs)} environments")
    print(f"  loading the collection      : {load_s:6.3f} s (not part of the check)")
    print(f"  pigeon check (median)       : {c:6.3f} s (goal <= 1 s)")
    print(f"  baseline: render every one  : {r:6.3f} s (once per environment)")
    print(f"  ratio check / baseline      : {c / r:6.2f}x")


if __name__ == "__main__":
    main()
