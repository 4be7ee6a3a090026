"""Rendering speed: typical requests per second, and one very large template.

Run: python benchmarks/bench_render.py [--seconds 1] [--rounds 7]

Prints medians of rounds taken in turn -- Pigeon's fresh render, Bruno's ``interpolate`` on
the same parts (``bruno_interpolate.cjs``, in a node process kept for the run), Pigeon's
re-render, a baseline (plain ``str.format`` filling the same 20 holes) -- so a busy moment of
a shared machine weighs on each alike and the ratios hold across machines. When Bruno cannot
run here, the figure quoted below stands in for it, and the output says so. The fresh path
(new scopes, nothing cached) and the first render of a large template (its parse included)
are what a first send and a first preview cost; the first parse of 1,000 and of 100,000
placeholders shows that parsing grows linearly.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass
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


def rate(fn: Callable[[], object], seconds: float) -> float:
    """Calls of ``fn`` per second over about ``seconds``."""
    n, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        for _ in range(200):
            fn()
        n += 200
    return n / (time.perf_counter() - start)


@dataclass
class Typical:
    """Medians over rounds taken in turn: Pigeon fresh, Bruno, Pigeon re-render, baseline."""

    fresh: float
    warm: float
    baseline: float
    bruno: float | None
    body_len: int


def bench_typical(seconds: float, rounds: int, bruno: Bruno | None) -> Typical:
    collection, request = typical()
    scopes = build_scopes(collection, [], request)
    rendered = render_request(collection, [], request, scopes)
    assert not rendered.unresolved and not rendered.warnings, (
        rendered.unresolved,
        rendered.warnings,
    )
    json.loads(rendered.body_text or "")
    fmt = rendered.url.replace("{", "{{").replace("}", "}}")
    baseline_template = (fmt + "|{}" * 20).format  # 20 holes, like the request's placeholders
    args = tuple(str(i) for i in range(20))

    def fresh() -> object:
        return render_request(collection, [], request, build_scopes(collection, [], request))

    figures: dict[str, list[float]] = {"fresh": [], "warm": [], "baseline": [], "bruno": []}
    for _ in range(rounds):  # in turn, so a busy moment of the machine weighs on each alike
        figures["fresh"].append(rate(fresh, seconds))
        if bruno is not None:
            figures["bruno"].append(bruno.typical(seconds))
        figures["warm"].append(
            rate(lambda: render_request(collection, [], request, scopes), seconds)
        )
        figures["baseline"].append(rate(lambda: baseline_template(*args), seconds))
    median = statistics.median
    return Typical(
        fresh=median(figures["fresh"]),
        warm=median(figures["warm"]),
        baseline=median(figures["baseline"]),
        bruno=median(figures["bruno"]) if figures["bruno"] else None,
        body_len=len(rendered.body or b""),
    )


def clear_parse_caches() -> None:
    parse.cache_clear()
    _parse_inner.cache_clear()
    _placeholder.cache_clear()


def bench_large(rounds: int, bruno: Bruno | None) -> tuple[float, float, float, float | None]:
    """Fresh scopes every round (nothing cached but the parsed template), then with parsing;
    Bruno's render of the same template in the same rounds."""
    text, variables = large()
    collection = Collection("bench", Path("."), variables=variables)
    clear_parse_caches()
    start = time.perf_counter()
    parse(text)
    parse_ms = (time.perf_counter() - start) * 1000
    times, anchor = [], []
    for _ in range(rounds):
        scopes = build_scopes(collection)
        start = time.perf_counter()
        r = Renderer(scopes)
        out = r.render_text(text)
        times.append((time.perf_counter() - start) * 1000)
        assert not r.unresolved and "{{" not in out
        if bruno is not None:
            anchor.append(bruno.large())
    cold = []
    for _ in range(3):
        clear_parse_caches()
        scopes = build_scopes(collection)
        start = time.perf_counter()
        Renderer(scopes).render_text(text)
        cold.append((time.perf_counter() - start) * 1000)
    median = statistics.median
    return median(times), median(cold), parse_ms, median(anchor) if anchor else None


def placeholders(n: int) -> str:
    """``n`` placeholders, each its own (no parse of one is reused for another)."""
    forms = ["{{v%d.id}}", "{{v%d.name}}", "{{v%d.tags[1]}}", "{{v%d.inner.deep}}", "{{v%d}}"]
    return " ".join(forms[i % len(forms)] % i for i in range(n))


def first_parse_ms(text: str) -> float:
    clear_parse_caches()
    start = time.perf_counter()
    parse(text)
    return (time.perf_counter() - start) * 1000


def bench_parse_scale(rounds: int = 3) -> tuple[float, float]:
    """The first parse of 1,000 and of 100,000 placeholders (medians, taken in turn): linear
    when the second is about 100 times the first."""
    small, big = placeholders(1_000), placeholders(100_000)
    smalls, bigs = [], []
    for _ in range(rounds):
        smalls.append(statistics.median(first_parse_ms(small) for _ in range(5)))
        bigs.append(first_parse_ms(big))
    clear_parse_caches()
    return statistics.median(smalls), statistics.median(bigs)


# Bruno's ``interpolate`` on the same two cases, measured once on another machine: quoted when
# Bruno cannot be run here.
BRUNO_TYPICAL = 15_587
BRUNO_LARGE_MS = 25.2
BRUNO_DRIVER = Path(__file__).with_name("bruno_interpolate.cjs")
BRUNO_MODULES = Path(
    os.environ.get("PIGEON_BRUNO_MODULES", Path(__file__).with_name(".bruno") / "node_modules")
)


class Bruno:
    """Bruno's ``interpolate`` on the same cases in a node process (node +
    ``@usebruno/common``), one round at a time, so its rounds take turns with Pigeon's."""

    def __init__(self, process: subprocess.Popen[str]) -> None:
        self.process = process

    @classmethod
    def start(cls) -> Bruno | str:
        """The running driver, or a string saying why it cannot run."""
        node = shutil.which("node")
        if node is None:
            return "node is not installed"
        if not (BRUNO_MODULES / "@usebruno" / "common").is_dir():
            return "install it: npm install --prefix benchmarks/.bruno @usebruno/common"
        collection, request = typical()
        variables = {
            k: v.isoformat() if isinstance(v, datetime) else v
            for k, v in collection.variables.items()
        }
        large_text, large_variables = large()
        case = {
            "url": request.url,
            "texts": [h.value for h in request.headers] + [q.value for q in request.query],
            "body": request.body.content,
            "variables": variables,
            "large": large_text,
            "large_variables": large_variables,
        }
        process = subprocess.Popen(
            [node, str(BRUNO_DRIVER)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, "PIGEON_BRUNO_MODULES": str(BRUNO_MODULES)},
        )
        bruno = cls(process)
        try:
            bruno._ask(json.dumps(case))
        except RuntimeError as exc:
            return str(exc)
        return bruno

    def _ask(self, line: str) -> dict:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()
        answer = self.process.stdout.readline()
        if not answer:
            err = self.process.stderr.read() if self.process.stderr else ""
            raise RuntimeError(f"node failed: {err.strip().splitlines()[-1:]}")
        return json.loads(answer)

    def typical(self, seconds: float) -> float:
        return float(self._ask(f"typical {seconds}")["typical"])

    def large(self) -> float:
        return float(self._ask("large")["large_ms"])

    def close(self) -> None:
        if self.process.stdin is not None:
            self.process.stdin.close()
        self.process.wait(timeout=30)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--seconds", type=float, default=1.0, help="seconds per round")
    ap.add_argument("--rounds", type=int, default=7, help="rounds of each, taken in turn")
    args = ap.parse_args()
    started = Bruno.start()
    bruno = started if isinstance(started, Bruno) else None
    try:
        t = bench_typical(args.seconds, args.rounds, bruno)
        warm, cold, parse_ms, bruno_large = bench_large(args.rounds, bruno)
    finally:
        if bruno is not None:
            bruno.close()
    print(f"typical request ({t.body_len} B JSON body, 20 placeholders, 40 variables)")
    print(f"  medians of {args.rounds} rounds of {args.seconds:g} s, Pigeon's and Bruno's in turn")
    print(f"  build_scopes + render_request (fresh)   : {t.fresh:>9,.0f} renders/s")
    print(f"  render_request, same scopes (re-render) : {t.warm:>9,.0f} renders/s")
    print(f"  baseline str.format, 20 holes           : {t.baseline:>9,.0f} formats/s")
    print(f"  ratio baseline / fresh render           : {t.baseline / t.fresh:>9.1f}x")
    if t.bruno is not None:
        print(f"  Bruno interpolate, same parts, this run  : {t.bruno:>9,.0f} renders/s")
        print(
            f"  ratio fresh render / Bruno              : {t.fresh / t.bruno:>9.2f}x (goal >= 2.8x)"
        )
    else:
        print(f"  Bruno not run ({started}); quoted: {BRUNO_TYPICAL:,}/s")
        print(
            f"  ratio fresh render / quoted Bruno       : {t.fresh / BRUNO_TYPICAL:>9.2f}x "
            "(goal >= 2.8x)"
        )
    print(f"  ratio re-render / fresh render          : {t.warm / t.fresh:>9.2f}x (goal >= 1)")
    print("large template (10,000 placeholders, 1,000 nested variables)")
    print(f"  render, fresh scopes, parsed form cached : {warm:8.2f} ms")
    print(f"  first render, parse included             : {cold:8.2f} ms (goal <= 25 ms)")
    print(f"  parse alone (first)                      : {parse_ms:8.2f} ms")
    if bruno_large is not None:
        print(f"  Bruno interpolate, this run (median)     : {bruno_large:8.2f} ms")
    else:
        print(f"  Bruno not run; quoted: {BRUNO_LARGE_MS} ms")
    small, big = bench_parse_scale()
    print("first parse, each placeholder its own (caches emptied)")
    print(f"  1,000 placeholders                       : {small:8.2f} ms")
    print(f"  100,000 placeholders                     : {big:8.2f} ms")
    print(f"  ratio 100,000 / 1,000                    : {big / small:8.0f}x (linear: about 100x)")


if __name__ == "__main__":
    main()
