"""How the editor answers with a large text in it: typing in a 1.5 MB JSON body, and a 1.5 MB
one-line paste into the URL bar.

Headless (``App.run_test``, 120x40), each case in its own process, Pigeon and its anchor in the
same run:

* typing: the app on a collection whose one request has a 1.5 MB pretty-printed JSON body;
  the Body tab open, the cursor in the middle of the body, ``--keys`` characters typed one at a
  time, each timed from the key (posted as the terminal sends it) to the end of the frame
  that shows it, with a pause of ``--gap`` seconds between keys, as a person types; the
  worst stall of the UI loop (how late a 10 ms timer fired) over the typing and the second
  after it counts the work put off from the keys too. The anchor is Textual's ``TextArea``
  with the same text and nothing else (no highlighting, no wrapping, no app around it), typed
  in the same way. Goal: 50 ms a key.
* paste: a 1.5 MB one-line text pasted into the URL bar (Pigeon, a request open) and into a
  bare Textual ``Input`` (the anchor), timed from the paste to the end of the frame after it;
  then a key typed in the same field, timed the same way (the app answers again). Goal: the
  app answers within 1 s.

    python benchmarks/bench_editing.py [--keys 15] [--gap 0.1] [--size-mb 1.5]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench_tui_body import TICK, Stalls, make_body

GUARD_SECONDS = 120


def json_text(size: int) -> str:
    """A pretty-printed JSON document of about ``size`` characters (deterministic)."""
    text = json.dumps(json.loads(make_body(size * 7 // 10)), indent=2, ensure_ascii=False)
    return text + "\n"


def write_collection(root: Path, body: str) -> None:
    (root / "collection.toml").write_text('name = "Large body"\n', encoding="utf-8")
    (root / "big.toml").write_text(
        'name = "Big"\nmethod = "POST"\nurl = "http://127.0.0.1:9/items"\n\n'
        f"[body]\ntype = \"json\"\ncontent = '''\n{body}'''\n",
        encoding="utf-8",
    )


async def until(condition: Any, limit: float = GUARD_SECONDS) -> None:
    deadline = time.perf_counter() + limit
    while not condition():
        if time.perf_counter() > deadline:
            raise TimeoutError
        await asyncio.sleep(0.005)


class Frames:
    """When the screen wrote a frame: each ``Screen._compositor_refresh`` that ends after a
    condition held at its start is the frame that shows it."""

    def __init__(self) -> None:
        from textual.screen import Screen

        self.waiting: Any = None  # (condition, future) of the moment waited for
        original = Screen._compositor_refresh
        frames = self

        def refresh(screen: Screen) -> None:
            waiting = frames.waiting
            held = waiting is not None and waiting[0]()
            original(screen)
            if held and not waiting[1].done():
                waiting[1].set_result((time.perf_counter(), time.process_time()))

        Screen._compositor_refresh = refresh  # type: ignore[method-assign]

    async def shown(self, condition: Any) -> tuple[float, float]:
        """perf_counter and process CPU time at the end of the first frame drawn once
        ``condition()`` holds."""
        future = asyncio.get_running_loop().create_future()
        self.waiting = (condition, future)
        try:
            return await asyncio.wait_for(future, GUARD_SECONDS)
        finally:
            self.waiting = None


def press(app: Any, char: str) -> None:
    """A key as the terminal sends it (``pilot.press`` waits for idle, which costs more than
    the key)."""
    from textual import events

    event = events.Key(char, char)
    event.set_sender(app)
    app.post_message(event)


async def type_keys(
    app: Any, area: Any, keys: int, gap: float, stalls: Stalls
) -> tuple[list[float], list[float]]:
    """Type ``keys`` characters, each timed from the key to the end of the frame that shows it
    (the cursor one further on): ms, and ms of the process's CPU time (what load skews least)."""
    frames = Frames()
    times, cpu = [], []
    stalls.start()
    for n in range(keys):
        row, column = area.cursor_location
        start, cpu_start = time.perf_counter(), time.process_time()
        press(app, "abcdefghij"[n % 10])
        shown = await frames.shown(lambda r=row, c=column: area.cursor_location == (r, c + 1))
        times.append((shown[0] - start) * 1000)
        cpu.append((shown[1] - cpu_start) * 1000)
        await asyncio.sleep(gap)
    await asyncio.sleep(1.0)  # the work put off from the keys counts in the stalls
    stalls.active = False
    return times, cpu


async def typing_pigeon(body: str, keys: int, gap: float) -> dict[str, Any]:
    from textual.widgets import TextArea

    from pigeon.session import Session
    from pigeon.tui.app import PigeonApp
    from pigeon.tui.screens.main import MainScreen
    from pigeon.tui.widgets.collection.collection_tree import CollectionTree

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        write_collection(root, body)
        app = PigeonApp(Session.open(root, None), remember_theme=False)
        stalls = Stalls()
        async with app.run_test(size=(120, 40)) as pilot:
            screen = app.screen
            assert isinstance(screen, MainScreen)
            await until(lambda: bool(screen.built_at))
            tree = screen.query_one(CollectionTree)
            node = next(n for n in tree._all_nodes() if getattr(n.data, "name", "") == "Big")
            tree.move_cursor(node)
            tree.focus()
            await pilot.press("enter")
            await until(lambda: screen.editor.request is not None)
            start = time.perf_counter()
            screen.query_one("#editor-tabs").active = "tab-body"
            await until(lambda: bool(screen.query("#body-text")))
            area = screen.query_one("#body-text", TextArea)
            await until(lambda: area.document.line_count > 1000)
            await pilot.pause()
            opened = (time.perf_counter() - start) * 1000
            area.focus()
            area.move_cursor((area.document.line_count // 2, 4))
            area.scroll_cursor_visible(center=True, animate=False)
            app.set_interval(TICK, stalls.tick)
            await pilot.pause(0.5)
            times, cpu = await type_keys(app, area, keys, gap, stalls)
            typed = "abcdefghij"[:keys] if keys <= 10 else None
            assert typed is None or typed in area.document.get_line(area.cursor_location[0])
            await until(lambda: screen.editor.dirty)
            assert screen.editor.request is not None
            assert screen.editor.request.body.content == area.text
    return {"open_ms": opened, "keys_ms": times, "cpu_ms": cpu, "stall_ms": stalls.worst * 1000}


async def typing_anchor(body: str, keys: int, gap: float) -> dict[str, Any]:
    from textual.app import App, ComposeResult
    from textual.widgets import TextArea

    class Bare(App[None]):
        def compose(self) -> ComposeResult:
            yield TextArea(body)

    app = Bare()
    stalls = Stalls()
    async with app.run_test(size=(120, 40)) as pilot:
        area = app.query_one(TextArea)
        area.focus()
        area.move_cursor((area.document.line_count // 2, 4))
        area.scroll_cursor_visible(center=True, animate=False)
        app.set_interval(TICK, stalls.tick)
        await pilot.pause(0.5)
        times, cpu = await type_keys(app, area, keys, gap, stalls)
    return {"open_ms": 0.0, "keys_ms": times, "cpu_ms": cpu, "stall_ms": stalls.worst * 1000}


async def paste_into(pilot: Any, field: Any, text: str, stalls: Stalls) -> dict[str, Any]:
    from textual import events

    field.focus()
    await pilot.pause(0.3)
    stalls.start()
    start = time.perf_counter()
    pilot.app.post_message(events.Paste(text))  # what the terminal sends for a paste
    await pilot.pause()
    await pilot.pause()
    pasted = (time.perf_counter() - start) * 1000
    start = time.perf_counter()
    await pilot.press("x")
    await pilot.pause()
    key = (time.perf_counter() - start) * 1000
    await asyncio.sleep(1.0)
    stalls.active = False
    return {"paste_ms": pasted, "key_ms": key, "stall_ms": stalls.worst * 1000}


async def paste_pigeon(text: str) -> dict[str, Any]:
    from textual.widgets import Input

    from pigeon.session import Session
    from pigeon.tui.app import PigeonApp
    from pigeon.tui.screens.main import MainScreen
    from pigeon.tui.widgets.collection.collection_tree import CollectionTree

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        write_collection(root, "{}\n")
        app = PigeonApp(Session.open(root, None), remember_theme=False)
        stalls = Stalls()
        async with app.run_test(size=(120, 40)) as pilot:
            screen = app.screen
            assert isinstance(screen, MainScreen)
            await until(lambda: bool(screen.built_at))
            tree = screen.query_one(CollectionTree)
            node = next(n for n in tree._all_nodes() if getattr(n.data, "name", "") == "Big")
            tree.move_cursor(node)
            tree.focus()
            await pilot.press("enter")
            await until(lambda: screen.editor.request is not None)
            app.set_interval(TICK, stalls.tick)
            url = screen.query_one("#url", Input)
            result = await paste_into(pilot, url, text, stalls)
            result["taken"] = len(url.value) >= len(text)
            result["said"] = [n.message for n in app._notifications][-1:]
    return result


async def paste_anchor(text: str) -> dict[str, Any]:
    from textual.app import App, ComposeResult
    from textual.widgets import Input

    class Bare(App[None]):
        def compose(self) -> ComposeResult:
            yield Input()

    app = Bare()
    stalls = Stalls()
    async with app.run_test(size=(120, 40)) as pilot:
        app.set_interval(TICK, stalls.tick)
        field = app.query_one(Input)
        result = await paste_into(pilot, field, text, stalls)
        result["taken"] = len(field.value) >= len(text)
        result["said"] = []
    return result


def one_line(size: int) -> str:
    """A one-line text of ``size`` characters: JSON with its line breaks taken out."""
    return json.dumps(json.loads(make_body(size)))[:size]


def child(case: str, args: argparse.Namespace) -> None:
    size = int(args.size_mb * 1_000_000)
    if case.startswith("typing"):
        body = json_text(size)
        runner = typing_pigeon if case == "typing-pigeon" else typing_anchor
        result = asyncio.run(runner(body, args.keys, args.gap))
        result["chars"] = len(body)
        result["lines"] = body.count("\n")
    else:
        text = one_line(size)
        result = asyncio.run((paste_pigeon if case == "paste-pigeon" else paste_anchor)(text))
        result["chars"] = len(text)
    print(json.dumps(result))


def run_case(case: str, args: argparse.Namespace) -> dict[str, Any] | None:
    cmd = [sys.executable, __file__, "--case", case, "--keys", str(args.keys)]
    cmd += ["--gap", str(args.gap), "--size-mb", str(args.size_mb)]
    try:
        done = subprocess.run(
            cmd, capture_output=True, text=True, timeout=GUARD_SECONDS + 60, check=False
        )
    except subprocess.TimeoutExpired:
        print(f"{case}: no result (timed out)")
        return None
    if done.returncode != 0:
        print(f"{case}: failed\n{done.stderr[-3000:]}")
        return None
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--case", choices=["typing-pigeon", "typing-anchor", "paste-pigeon", "paste-anchor"]
    )
    parser.add_argument("--keys", type=int, default=15)
    parser.add_argument("--gap", type=float, default=0.1)
    parser.add_argument("--size-mb", type=float, default=1.5)
    parser.add_argument("--only", choices=["typing", "paste"])
    args = parser.parse_args(argv)
    if args.case:
        child(args.case, args)
        return
    if args.only != "paste":
        ours = run_case("typing-pigeon", args)
        anchor = run_case("typing-anchor", args)
        if ours and anchor:
            print(
                f"typing in a JSON body: {ours['chars']:,} characters, {ours['lines']:,} lines,"
                f" {args.keys} keys {args.gap * 1000:.0f} ms apart, 120x40, headless"
            )
            print(f"  {'':34}{'Pigeon':>12}{'bare TextArea':>16}")
            for label, a, b in [
                (
                    "key -> frame, median",
                    statistics.median(ours["keys_ms"]),
                    statistics.median(anchor["keys_ms"]),
                ),
                ("key -> frame, worst", max(ours["keys_ms"]), max(anchor["keys_ms"])),
                (
                    "CPU time a key, median",
                    statistics.median(ours["cpu_ms"]),
                    statistics.median(anchor["cpu_ms"]),
                ),
                ("worst UI stall (keys and after)", ours["stall_ms"], anchor["stall_ms"]),
            ]:
                print(f"  {label:34}{a:9.1f} ms{b:13.1f} ms")
            print(f"  Body tab opened on the request: {ours['open_ms']:.0f} ms")
            print("  goal: <= 50 ms a key")
    if args.only != "typing":
        ours = run_case("paste-pigeon", args)
        anchor = run_case("paste-anchor", args)
        if ours and anchor:
            print(f"\none-line paste into the URL bar: {ours['chars']:,} characters")
            print(f"  {'':34}{'Pigeon':>12}{'bare Input':>16}")
            for label, key in [
                ("paste -> frame", "paste_ms"),
                ("next key -> frame", "key_ms"),
                ("worst UI stall", "stall_ms"),
            ]:
                print(f"  {label:34}{ours[key]:9.1f} ms{anchor[key]:13.1f} ms")
            taken = "taken" if ours["taken"] else f"refused: {ours['said'][0][:70]!r}"
            print(f"  Pigeon: {taken}; bare Input: {'taken' if anchor['taken'] else 'not taken'}")
            print("  goal: the app answers within 1 s")


if __name__ == "__main__":
    main()
