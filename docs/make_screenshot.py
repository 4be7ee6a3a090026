"""Write docs/guide/screenshot.svg, shown by README.md and the guide: the demo at 120x40 after
sending "List users".

    python docs/make_screenshot.py

Runs the app headless with its own echo server on a free loopback port, as ``pigeon`` does.
"""

from __future__ import annotations

import asyncio
import os
import tempfile
from pathlib import Path

from pigeon.model import Request
from pigeon.tui.app import PigeonApp, open_session
from pigeon.tui.widgets.collection.collection_tree import CollectionTree
from pigeon.tui.widgets.response.response_pane import ResponsePane

OUT = Path(__file__).parent / "guide" / "screenshot.svg"


async def main() -> None:
    session = open_session(None, None)
    app = PigeonApp(session, remember_theme=False)
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.pause(0.3)
            tree = app.screen.query_one(CollectionTree)
            node = next(
                n
                for n in tree._all_nodes()
                if isinstance(n.data, Request) and n.data.id == "users/list-users"
            )
            tree.move_cursor(node)
            await pilot.press("enter")
            await pilot.pause(0.3)
            await pilot.press("ctrl+r")
            pane = app.screen.query_one(ResponsePane)
            for _ in range(100):  # at most 10 s
                await pilot.pause(0.1)
                if pane.exchange is not None:
                    break
            await pilot.pause(0.5)
            tree.focus()
            await pilot.pause(0.2)
            app.save_screenshot(filename=OUT.name, path=str(OUT.parent))
    finally:
        await session.close()
    print(f"wrote {OUT}")


if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as home:  # no user config or history in the picture
        os.environ["XDG_CONFIG_HOME"] = home
        asyncio.run(main())
