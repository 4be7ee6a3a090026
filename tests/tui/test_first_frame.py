"""The first screen reaches the terminal whole and first: ``pigeon`` runs in a real pty and
every byte it writes is read back (``MainScreen._write_first_frame``, ``tui/start_gc``)."""

from __future__ import annotations

import gc
import os
import re
import sys
from pathlib import Path

import pytest
from test_terminal_escapes import pigeon_on_a_pty
from tui_support import main_screen, running, wait_for

from collection_files import write
from pigeon.session import Session
from pigeon.tui import start_gc
from pigeon.tui.app import PigeonApp
from pigeon.tui.screens.main import MainScreen
from pigeon.tui.widgets.collection.collection_tree import CollectionTree

# CSI, OSC and two-byte escapes: what is left is the text on screen.
ESCAPES = re.compile(rb"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|.)", re.DOTALL)


@pytest.mark.skipif(sys.platform == "win32", reason="needs a pty")
def test_the_whole_first_screen_is_written_before_the_rest_is_built(tmp_path: Path) -> None:
    """Textual draws the first frame inside its start-up batch and writes none of it: the
    screen used to come out in pieces as later work marked them, the pane borders after the
    variables were filled in. The whole screen must be out before that later work."""
    env = {
        **os.environ,
        "TERM": "xterm-256color",
        "COLUMNS": "120",
        "LINES": "40",
        "HOME": str(tmp_path),
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
        "XDG_DATA_HOME": str(tmp_path / "data"),
    }
    out = pigeon_on_a_pty([], env, lambda b: b"api.version" in ESCAPES.sub(b"", b))
    text = ESCAPES.sub(b"", out).decode("utf-8", "replace")
    filled = text.find("api.version")  # the variables, filled in once the screen is out
    assert filled > 0, text[-2000:]
    for part in ("Large JSON", "╭─ Collection", "╭─ Request", "╭─ Variables", "^p Palette"):
        assert -1 < text.find(part) < filled, part


async def test_the_collector_paused_for_start_up_resumes_with_the_first_frame(app) -> None:
    """``pigeon`` pauses the collector before it imports the app; the main screen's first
    frame resumes it, with what start-up built frozen out of later passes."""
    start_gc.pause()
    try:
        assert not gc.isenabled()
        async with running(app) as pilot:
            await wait_for(pilot, gc.isenabled)
            await wait_for(pilot, lambda: main_screen(app).built_at)  # before it quits
        assert gc.get_freeze_count() > 0
    finally:
        gc.enable()
        gc.unfreeze()
    start_gc.resume()  # once resumed, again is nothing: nothing is frozen anew
    assert gc.get_freeze_count() == 0


async def test_quitting_as_the_first_frame_is_out_leaves_no_error(
    app, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What the first frame does not show is built after it: a quit in between (ctrl+q as
    soon as the screen shows) must not fail that building."""
    write_first_frame = MainScreen._write_first_frame

    async def quit_once_written(screen: MainScreen) -> None:
        await write_first_frame(screen)
        screen.app.exit()

    monkeypatch.setattr(MainScreen, "_write_first_frame", quit_once_written)
    async with running(app) as pilot:
        await pilot.pause()
    assert app.return_code == 0


async def test_a_large_tree_shows_its_first_rows_first_and_every_row_once_built(
    tmp_path: Path,
) -> None:
    """The first frame adds only the rows a screen holds: 500 requests added 66 ms."""
    write(tmp_path, "collection.toml", 'name = "Large"\n')
    for n in range(300):
        write(tmp_path, f"f{n // 20:02d}/r{n:03d}.toml", f'name = "R{n}"\nurl = "http://x/{n}"\n')
    app = PigeonApp(Session.open(tmp_path, None), remember_theme=False)
    rows_in_first_frame: list[int] = []
    original = MainScreen._write_first_frame

    async def write_first_frame(screen: MainScreen) -> None:
        rows_in_first_frame.append(screen.query_one(CollectionTree).last_line + 1)
        await original(screen)

    MainScreen._write_first_frame = write_first_frame  # type: ignore[method-assign]
    try:
        async with running(app, size=(100, 30)) as pilot:
            await wait_for(pilot, lambda: main_screen(app).built_at)
            tree = main_screen(app).query_one(CollectionTree)
            assert tree.last_line + 1 == 15 + 300  # every folder and request, in order
            names = [str(tree.get_node_at_line(y).label) for y in range(tree.last_line + 1)]
            assert names[:3] == ["F00", "GET  R0", "GET  R1"] and names[-1] == "GET  R299"
    finally:
        MainScreen._write_first_frame = original  # type: ignore[method-assign]
    assert rows_in_first_frame and 30 <= rows_in_first_frame[0] < 60
