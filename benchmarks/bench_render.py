"""Rendering speed: typical requests per second, and one very large template.

Run: python benchmarks/bench_render.py [--seconds 3]

Prints the median of several rounds, plus a baseline measured in the same run (plain
``str.format`` filling the same 20 holes) so figures can be compared across machines. The
fresh path (new scopes, nothing cached) and the first render of a large template (its parse
included) are what a first send and a first preview cost.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import time
from datetime import datetime, timezone
from pathlib import Path

from pigeon.model import Body, Collection, Header, QueryParam, Request
from pigeon.render import Renderer, render_request
from pigeon.scopes import build_scopes
from pigeon.template import _parse_inner, _placeholder, parse


def typical() -> tuple[Collection, Request]:
    """URL with 5 placeholders (incl. query), 3 headers, a ~1 KB JSON body with 10
    placeholders of objects, arrays and numbers, 40 variables."""
    variables: dict = {
        "base_url": "http://127.0.0.1:8000",
        "version": "v2",
        "user": {
            "id": 7,
            "name": "Ada Lovelace",
            "age": 36,
            "tags": ["admin", "ops", "math"],
            "address": {"city": "London", "zip": "W1"},
        },
        "items": [{"id": i, "sku": f"SKU-{i}", "price": i * 1.25} for i in range(5)],
        "creds": {"key": "k-123", "secret": "s-456"},
        "token": "{{creds.key}}-{{creds.secret}}",
        "created": datetime(2024, 1, 2, 3, 4, 5, 678000, tzinfo=timezone.utc),
        "page": 2,
        "limit": 50,
    }
    for i in range(40 - len(variables)):
        variables[f"filler_{i}"] = f"value {i}"
    filler = ", ".join(f'"field_{i}": "constant text {i:03d} for padding"' for i in range(18))
    body = (
        '{"user": {{user}}, "name": "{{user.name}}", "age": {{user.age}}, '
        '"tags": {{user.tags}}, "first": {{items[0]}}, "last_id": {{items[-1].id}}, '
        '"city": "{{user.address.city}}", "price": {{items[2].price}}, '
        '"created": {{created}}, "page": {{page}}, ' + filler + "}"
    )
    request = Request(
        name="typical",
        method="POST",
        url="{{base_url}}/{{version}}/users/{{user.id}}/orders?page={{page}}",
        headers=[
            Header("X-Api-Key", "{{creds.key}}"),
            Header("Authorization", "Bearer {{token}}"),
            Header("X-Request-Id", "req-{{user.id}}"),
        ],
        query=[QueryParam("limit", "{{limit}}")],
        body=Body("json", body),
    )
    return Collection("bench", Path("."), variables=variables), request


def large() -> tuple[str, dict]:
    """10,000 placeholders over 1,000 nested variables."""
    variables = {
        f"v{i}": {"id": i, "name": f"n{i}", "tags": [i, i + 1], "inner": {"deep": f"d{i}"}}
        for i in range(1000)
    }
    forms = ["{{v%d.id}}", "{{v%d.name}}", "{{v%d.tags[1]}}", "{{v%d.inner.deep}}", "{{v%d}}"]
    parts = [forms[i % len(forms)] % (i % 1000) for i in range(10_000)]
    return " ".join(parts), variables


def bench_typical(seconds: float) -> tuple[float, float, float, int]:
    collection, request = typical()
    scopes = build_scopes(collection, [], request)
    rendered = render_request(collection, [], request, scopes)
    assert not rendered.unresolved and not rendered.warnings, (
        rendered.unresolved,
        rendered.warnings,
    )
    json.loads(rendered.body_text or "")
    body_len = len(rendered.body or b"")

    def rate(fn) -> float:
        n, start = 0, time.perf_counter()
        while time.perf_counter() - start < seconds:
            for _ in range(200):
                fn()
            n += 200
        return n / (time.perf_counter() - start)

    fmt = rendered.url.replace("{", "{{").replace("}", "}}")
    baseline_template = (fmt + "|{}" * 20).format  # 20 holes, like the request's placeholders
    args = tuple(str(i) for i in range(20))
    warm = statistics.median(
        rate(lambda: render_request(collection, [], request, scopes)) for _ in range(3)
    )
    cold = statistics.median(
        rate(lambda: render_request(collection, [], request, build_scopes(collection, [], request)))
        for _ in range(3)
    )
    baseline = statistics.median(rate(lambda: baseline_template(*args)) for _ in range(3))
    return warm, cold, baseline, body_len


def bench_large(rounds: int = 7) -> tuple[float, float, float]:
    """Fresh scopes every round (nothing cached but the parsed template), then with parsing."""
    text, variables = large()
    collection = Collection("bench", Path("."), variables=variables)
    start = time.perf_counter()
    parse(text)
    parse_ms = (time.perf_counter() - start) * 1000
    times = []
    for _ in range(rounds):
        scopes = build_scopes(collection)
        start = time.perf_counter()
        r = Renderer(scopes)
        out = r.render_text(text)
        times.append((time.perf_counter() - start) * 1000)
        assert not r.unresolved and "{{" not in out
    cold = []
    for _ in range(3):
        parse.cache_clear()
        _parse_inner.cache_clear()
        _placeholder.cache_clear()
        scopes = build_scopes(collection)
        start = time.perf_counter()
        Renderer(scopes).render_text(text)
        cold.append((time.perf_counter() - start) * 1000)
    return statistics.median(times), statistics.median(cold), parse_ms


# Bruno's ``interpolate`` on the same two cases, measured once on another machine: quoted when
# Bruno cannot be run here.
BRUNO_TYPICAL = 15_587
BRUNO_LARGE_MS = 25.2
BRUNO_DRIVER = Path(__file__).with_name("bruno_interpolate.cjs")
BRUNO_MODULES = Path(
    os.environ.get("PIGEON_BRUNO_MODULES", Path(__file__).with_name(".bruno") / "node_modules")
)


def bruno(seconds: float) -> dict | str:
    """Bruno's ``interpolate`` on the same cases, in this run (node + ``@usebruno/common``);
    a string saying why not when it cannot run."""
    node = shutil.which("node")
    if node is None:
        return "node is not installed"
    if not (BRUNO_MODULES / "@usebruno" / "common").is_dir():
        return "install it: npm install --prefix benchmarks/.bruno @usebruno/common"
    collection, request = typical()
    variables = {
        k: v.isoformat() if isinstance(v, datetime) else v for k, v in collection.variables.items()
    }
    large_text, large_variables = large()
    case = {
        "seconds": seconds,
        "rounds": 7,
        "url": request.url,
        "texts": [h.value for h in request.headers] + [q.value for q in request.query],
        "body": request.body.content,
        "variables": variables,
        "large": large_text,
        "large_variables": large_variables,
    }
    done = subprocess.run(
        [node, str(BRUNO_DRIVER)],
        input=json.dumps(case),
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PIGEON_BRUNO_MODULES": str(BRUNO_MODULES)},
    )
    if done.returncode != 0:
        return f"node failed: {done.stderr.strip().splitlines()[-1:]}"
    return json.loads(done.stdout)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--seconds", type=float, default=2.0, help="seconds per round (3 rounds)")
    args = ap.parse_args()
    warm, cold, baseline, body_len = bench_typical(args.seconds)
    anchor = bruno(args.seconds)
    print(f"typical request ({body_len} B JSON body, 20 placeholders, 40 variables)")
    print(f"  render_request, same scopes (re-render) : {warm:>9,.0f} renders/s")
    print(f"  build_scopes + render_request (fresh)   : {cold:>9,.0f} renders/s (goal >= 30,000)")
    print(f"  baseline str.format, 20 holes           : {baseline:>9,.0f} formats/s")
    print(f"  ratio baseline / fresh render           : {baseline / cold:>9.1f}x")
    if isinstance(anchor, dict):
        print(f"  Bruno interpolate, same parts, this run  : {anchor['typical']:>9,.0f} renders/s")
        print(f"  ratio fresh render / Bruno              : {cold / anchor['typical']:>9.2f}x")
    else:
        print(f"  Bruno not run ({anchor}); quoted: {BRUNO_TYPICAL:,}/s")
    warm, cold, parse_ms = bench_large()
    print("large template (10,000 placeholders, 1,000 nested variables)")
    print(f"  render, fresh scopes, parsed form cached : {warm:8.2f} ms")
    print(f"  first render, parse included             : {cold:8.2f} ms (goal <= 25 ms)")
    print(f"  parse alone (first)                      : {parse_ms:8.2f} ms")
    if isinstance(anchor, dict):
        print(f"  Bruno interpolate, this run (median)     : {anchor['large_ms']:8.2f} ms")
        print(f"  Bruno interpolate, its first call        : {anchor['first_large_ms']:8.2f} ms")
    else:
        print(f"  Bruno not run; quoted: {BRUNO_LARGE_MS} ms")


if __name__ == "__main__":
    main()
