"""A jq filter on a 5 MB JSON body (29,000 objects), off the UI thread, against JMESPath on the
same document in the same run.

Headless (``App.run_test``), a ``BodyPanel`` showing the body pretty-printed; then each filter
is applied as the filter bar applies it (``BodyView.apply_filter``) and timed from the call to
its ``FilterApplied`` message, while a 10 ms timer records the UI loop's worst stall. Also the
filter alone, without the app: ``run_jq`` (child process, the body as text) against
``json.loads`` + JMESPath.

    python benchmarks/bench_jq.py [--rounds 3]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from bench_tui_body import TICK, Stalls, wait_until  # noqa: E402

GUARD_SECONDS = 60
# (what it does, jq, JMESPath): the same result in both languages. jq's are named with the
# prefix where the first character would choose JMESPath (as a user writes them in the bar).
CASES = [
    ("one field of one object", ".items[13500].name", "items[13500].name"),
    ("a field of every object", "jq: [.items[].email]", "items[*].email"),
    (
        "objects that match",
        "jq: [.items[] | select(.score > 12 and .active) | .id]",
        "items[?score > `12` && active].id",
    ),
]


def make_body(target: int = 5_000_000) -> str:
    """About ``target`` bytes of JSON: a listing of about 29,000 objects (deterministic)."""
    items, total, n = [], 0, 0
    while total < target:
        item = {
            "id": n,
            "name": f"user {n}",
            "email": f"user{n}@example.com",
            "active": n % 3 != 0,
            "score": 12 + n % 7 / 2,
            "tags": ["a", "b"],
            "address": {"city": "Zürich", "zip": None},
        }
        total += len(json.dumps(item)) + 2
        items.append(item)
        n += 1
    return json.dumps({"items": items})


def alone(body: str, rounds: int) -> list[tuple[str, float, float]]:
    """Each case without the app: (label, jq seconds, JMESPath seconds), medians."""
    import jmespath

    from pigeon.bodies.jq_filter import run_jq

    rows = []
    for label, jq_program, jmes in CASES:
        jq_times, jmes_times = [], []
        for _ in range(rounds):
            start = time.perf_counter()
            jq_result = run_jq(jq_program.removeprefix("jq: "), body).text
            jq_times.append(time.perf_counter() - start)
            start = time.perf_counter()
            jmes_result = jmespath.search(jmes, json.loads(body))
            jmes_times.append(time.perf_counter() - start)
        if json.loads(jq_result) != jmes_result:
            raise SystemExit(f"{label}: jq and JMESPath disagree")
        rows.append((label, statistics.median(jq_times), statistics.median(jmes_times)))
    return rows


async def in_the_app(body: str, rounds: int) -> list[tuple[str, float, float, float, float]]:
    """Each case in the app: (label, jq s, jq worst stall s, JMESPath s, its worst stall s)."""
    from textual.app import App, ComposeResult

    from pigeon.tui.widgets.response.body_panel import BodyPanel
    from pigeon.tui.widgets.response.body_view import BodyView

    applied: list[str | None] = []

    class PanelApp(App[None]):
        def compose(self) -> ComposeResult:
            yield BodyPanel()

        def on_body_view_filter_applied(self, event: BodyView.FilterApplied) -> None:
            applied.append(event.error)

    app = PanelApp()
    stalls = Stalls()
    rows = []
    async with app.run_test(size=(120, 40)) as pilot:
        view = app.query_one(BodyView)
        app.set_interval(TICK, stalls.tick)
        view.show_text(body, is_json=True)
        await wait_until(pilot, lambda: view.phase == "pretty", GUARD_SECONDS)

        async def timed(expression: str) -> tuple[float, float]:
            times, worst = [], []
            for _ in range(rounds):
                view.clear_filter()
                await pilot.pause(0.2)
                applied.clear()
                stalls.worst = 0.0
                stalls.start()
                start = time.perf_counter()
                view.apply_filter(expression)
                await wait_until(pilot, lambda: applied, GUARD_SECONDS)
                times.append(time.perf_counter() - start)
                stalls.active = False
                worst.append(stalls.worst)
                if applied[0] is not None:
                    raise SystemExit(f"{expression}: {applied[0]}")
            return statistics.median(times), max(worst)

        for label, jq_program, jmes in CASES:
            jq_time, jq_stall = await timed(jq_program)
            jmes_time, jmes_stall = await timed(jmes)
            rows.append((label, jq_time, jq_stall, jmes_time, jmes_stall))
    return rows


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    body = make_body()
    count = len(json.loads(body)["items"])
    print(f"JSON body: {len(body.encode()):,} bytes, {count:,} objects; medians of {args.rounds}\n")
    print("The filter alone (jq: child process over the text; JMESPath: json.loads + search)")
    print(f"{'':28}{'jq':>10}{'JMESPath':>12}{'jq/JMESPath':>14}")
    for label, jq_time, jmes_time in alone(body, args.rounds):
        print(f"{label:28}{jq_time:>9.3f}s{jmes_time:>11.3f}s{jq_time / jmes_time:>13.2f}x")
    print("\nIn the app: apply_filter to the result on show, and the UI loop's worst stall")
    print(f"{'':28}{'jq':>10}{'stall':>9}{'JMESPath':>12}{'stall':>9}{'ratio':>8}")
    for label, jq_time, jq_stall, jmes_time, jmes_stall in asyncio.run(
        in_the_app(body, args.rounds)
    ):
        print(
            f"{label:28}{jq_time:>9.3f}s{jq_stall * 1000:>7.0f}ms"
            f"{jmes_time:>11.3f}s{jmes_stall * 1000:>7.0f}ms{jq_time / jmes_time:>7.2f}x"
        )


if __name__ == "__main__":
    main()
