"""The app and a script that never returns (DESIGN §8, §9): escape cancels the send and kills
the script worker; quitting never waits on a script.

Deadlines: the worker is gone within ``STOP_BOUND`` of escape (the promised 0.5 s plus a
1.0 s margin for a loaded 2-core CI box); the app quits within 1 s, plus the same margin.
"""

from __future__ import annotations

import time
from pathlib import Path

from tui_support import main_screen, running, wait_for

from pigeon.config import TrustStore
from pigeon.tui.app import PigeonApp
from processes import gone

STOP_BOUND = 1.5
SLEEPER = "pigeon.setVar('started', True)\nimport time\ntime.sleep(60)\n"


def add_sleeper(collection: Path) -> None:
    (collection / "sleeper.toml").write_text(
        f"name = \"Sleeper\"\nurl = \"{{{{base_url}}}}/get\"\n[scripts]\npre_request = '''\n{SLEEPER}'''\n",
        encoding="utf-8",
    )
    TrustStore().trust(collection)


async def test_escape_during_a_script_cancels_the_send_and_kills_the_worker(
    app: PigeonApp, collection: Path
) -> None:
    add_sleeper(collection)
    app.session.reload()
    async with running(app, "sleeper") as pilot:
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: app.session.runtime.get("started") is True)
        worker = app.session.scripts
        assert worker is not None and worker.pid is not None
        pid = worker.pid
        triggered = time.monotonic()
        await pilot.press("escape")
        while not gone(pid):
            assert time.monotonic() - triggered < STOP_BOUND, "the worker outlived escape"
            await pilot.pause(0.01)
        screen = main_screen(app)
        await wait_for(pilot, lambda: not screen._sending_workers())
        assert screen.query_one("#response").state == "cancelled"
        assert screen.last_exchange is None and app.is_running


async def test_quitting_while_a_script_runs_does_not_wait_for_it(
    app: PigeonApp, collection: Path
) -> None:
    add_sleeper(collection)
    app.session.reload()
    async with running(app, "sleeper") as pilot:
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: app.session.runtime.get("started") is True)
        worker = app.session.scripts
        assert worker is not None and worker.pid is not None
        pid = worker.pid
        triggered = time.monotonic()
        await pilot.press("ctrl+q")
    assert time.monotonic() - triggered < 1 + STOP_BOUND
    assert gone(pid) and not app.is_running
