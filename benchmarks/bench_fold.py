"""How fast a 5 MB JSON response opens as a tree and how fast its folds answer.

The body is ``bench_tui_body.make_body``'s API listing (about 20,000 objects). Two parts, in
one process, each figure the median of ``--repeat`` runs:

* the model (no UI): the baseline is what today's unfolded view costs before its first pretty
  frame (``pretty_json`` + ``build_index``); the tree adds ``build_outline``. Then each fold
  operation on ``Folds`` alone.
* the widget (headless ``App.run_test``, 120x40): from ``show_text`` to the first frame of the
  pretty view (the baseline: nothing more is needed to show it unfolded) and to the outline
  ready (the tree view: the fold keys answer from then on), then each fold key pressed in the
  real view, timed from the key to the end of the frame that shows its result (every visible
  line built again), next to a plain cursor move (``j``) as the baseline of a key's cost.

    python benchmarks/bench_fold.py [--size-mb 5] [--repeat 5]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
from collections.abc import Callable
from typing import Any

from bench_tui_body import make_body

GUARD_SECONDS = 60


def median_ms(
    work: Callable[[], object], repeat: int, before: Callable[[], object] = lambda: 0
) -> float:
    times = []
    for _ in range(repeat):
        before()
        start = time.perf_counter()
        work()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def model(body: str, repeat: int) -> list[tuple[str, float]]:
    from pigeon.bodies import build_index, pretty_json
    from pigeon.bodies.folds import Folds
    from pigeon.bodies.outline import build_outline, parse_path

    rows = [
        (
            "today's pretty view (pretty_json + build_index)",
            median_ms(lambda: build_index(pretty_json(body)), repeat),
        )
    ]
    doc = build_index(pretty_json(body))
    rows.append(
        ("the outline (build_outline)", median_ms(lambda: build_outline(doc, "json"), repeat))
    )
    outline = build_outline(doc, "json")
    folds = Folds(outline)
    items = outline.node_at(outline.line_of_path(["items"]))
    last = outline.line_of_path(parse_path("items[-1].address.city"))
    rows += [
        ("fold to level 1", median_ms(lambda: folds.fold_level(1), repeat)),
        ("fold to level 2 (every object folded)", median_ms(lambda: folds.fold_level(2), repeat)),
        ("fold to level 3", median_ms(lambda: folds.fold_level(3), repeat)),
        ("fold all", median_ms(folds.fold_all, repeat)),
        ("unfold all", median_ms(folds.unfold_all, repeat)),
        ("fold the items array", median_ms(lambda: folds.fold(items), repeat, folds.unfold_all)),
        (
            "unfold the items array over folded objects",
            median_ms(lambda: folds.unfold(items), repeat, lambda: folds.fold_level(1)),
        ),
        (
            "reveal the last city from fold all",
            median_ms(lambda: folds.reveal(last), repeat, folds.fold_all),
        ),
        ("the path of the last line", median_ms(lambda: outline.path_at(last), repeat)),
    ]
    return rows


async def widget(body: str, repeat: int) -> list[tuple[str, float]]:
    from textual.app import App, ComposeResult

    from pigeon.tui.widgets.response.body_panel import BodyPanel
    from pigeon.tui.widgets.response.folding_view import FoldingBodyView

    class FoldApp(App[None]):
        def compose(self) -> ComposeResult:
            yield BodyPanel()

    app = FoldApp()
    async with app.run_test(size=(120, 40)) as pilot:
        view = app.query_one(FoldingBodyView)
        view.focus()
        await pilot.pause(0.2)
        start = time.perf_counter()
        view.show_text(body, is_json=True)
        await until(lambda: view.phase == "pretty")
        await pilot.pause()
        pretty = time.perf_counter() - start
        await until(lambda: view.folds is not None)
        await pilot.pause()
        tree = time.perf_counter() - start
        rows = [
            ("show_text to the pretty view on screen (unfolded, today)", pretty * 1000),
            ("show_text to the tree view ready (outline built)", tree * 1000),
        ]
        for label, keys in [
            ("j: move the cursor (a key's baseline)", ["j"]),
            ("1: fold to level 1", ["1"]),
            ("2: fold to level 2", ["2"]),
            ("3: fold to level 3", ["3"]),
            ("-: fold all", ["minus"]),
            ("0: unfold all", ["0"]),
        ]:
            times = []
            for _ in range(repeat):
                start = time.perf_counter()
                await pilot.press(*keys)
                await pilot.pause()
                times.append((time.perf_counter() - start) * 1000)
                await pilot.press("0", "g")
            rows.append((label, statistics.median(times)))
        times = []
        for _ in range(repeat):
            await pilot.press("1", "j")
            start = time.perf_counter()
            await pilot.press("enter")  # unfold the items array over 20,000 folded objects
            await pilot.pause()
            times.append((time.perf_counter() - start) * 1000)
        rows.append(("enter: unfold the items array at level 1", statistics.median(times)))
        # A key's own work on the UI loop, without Pilot's waits (which dwarf it above): the
        # action, then every visible row drawn, as the next frame will.
        for label, act in [
            ("own work of j (the baseline)", view.action_cursor_down),
            ("own work of 1: fold to level 1", lambda: view.action_fold_level(1)),
            ("own work of 2: fold to level 2", lambda: view.action_fold_level(2)),
            ("own work of 3: fold to level 3", lambda: view.action_fold_level(3)),
            ("own work of -: fold all", view.action_fold_all),
            ("own work of 0: unfold all", view.action_unfold_all),
        ]:
            times = []
            for _ in range(repeat):
                start = time.perf_counter()
                act()
                for y in range(view.size.height):
                    view.render_line(y)
                times.append((time.perf_counter() - start) * 1000)
                view.action_unfold_all()
                await pilot.pause()
            rows.append((label, statistics.median(times)))
    return rows


async def until(condition: Callable[[], Any]) -> None:
    deadline = time.perf_counter() + GUARD_SECONDS
    while not condition():
        if time.perf_counter() > deadline:
            raise TimeoutError
        await asyncio.sleep(0.002)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size-mb", type=float, default=5.0)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args(argv)
    body = make_body(int(args.size_mb * 1_000_000)).decode()
    print(f"body: {len(body):,} characters")
    for title, rows in (
        ("model", model(body, args.repeat)),
        ("widget (120x40)", asyncio.run(widget(body, args.repeat))),
    ):
        print(f"\n{title}")
        width = max(len(label) for label, _ in rows)
        for label, ms in rows:
            print(f"  {label:<{width}}  {ms:9.1f} ms")


if __name__ == "__main__":
    main()
