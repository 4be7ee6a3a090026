"""The diff of two responses in the app: two history entries (m, then =), and the response on
show against an earlier one of the same request (d)."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import OptionList
from tui_support import main_screen, make_app, open_request, wait_for

from pigeon.echo import EchoServer
from pigeon.history import DEFAULT_CAP, list_entries
from pigeon.tui.dialogs.choose import ChooseScreen
from pigeon.tui.dialogs.diff import DiffScreen
from pigeon.tui.dialogs.diff_view import DiffView
from pigeon.tui.widgets.collection.history_list import HistoryList

pytestmark = pytest.mark.timeout(120)


async def send_twice(pilot, collection: Path) -> None:
    await open_request(pilot, "users/list-users")
    pane = main_screen(pilot.app).query_one("#response")
    for count in (1, 2):
        shown = pane.exchange
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda c=count: len(list_entries(collection)) == c)
        await wait_for(pilot, lambda s=shown: pane.exchange not in (None, s))


def headings(screen: DiffScreen) -> list[str]:
    assert screen.diff is not None
    return [row.left or "" for row in screen.diff.split if row.kind == "section"]


async def test_two_history_entries_compared(collection: Path, echo: EchoServer) -> None:
    app = make_app(collection, echo)
    async with app.run_test(size=(120, 40)) as pilot:
        await send_twice(pilot, collection)
        await pilot.press("f6")
        history = main_screen(app).query_one(HistoryList)
        await wait_for(pilot, lambda: len(history.entries) == 2 and app.focused is history)
        await pilot.press("equals_sign")  # nothing marked yet: a hint, no diff
        await pilot.pause()
        assert not isinstance(app.screen, DiffScreen)
        await pilot.press("m")
        assert history.marked == history.entries[0].path
        assert "◆" in str(history.get_option_at_index(0).prompt)
        await pilot.press("j", "equals_sign")
        await wait_for(pilot, lambda: isinstance(app.screen, DiffScreen) and app.screen.diff)
        screen = app.screen
        assert isinstance(screen, DiffScreen)
        # The earlier send on the left.
        old, new = sorted(list_entries(collection), key=lambda e: e.started_at)
        assert screen.old.body == old.body.decode() and screen.new.body == new.body.decode()
        assert headings(screen)[0] == "Status: same"
        assert headings(screen)[2].startswith("Body (JSON, keys in the document's order)")
        view = screen.query_one(DiffView)
        assert view.mode == "split" and app.focused is view
        assert view.render_line(0).text.startswith("Status: same")
        await pilot.press("u")
        assert view.mode == "unified" and view.rows is screen.diff.unified
        await pilot.press("o")
        await wait_for(pilot, lambda: "keys sorted" in headings(screen)[2])
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, DiffScreen))


async def test_the_response_against_an_earlier_one(collection: Path, echo: EchoServer) -> None:
    app = make_app(collection, echo)
    async with app.run_test(size=(120, 40)) as pilot:
        await send_twice(pilot, collection)
        screen = main_screen(app)
        pane = screen.query_one("#response")
        pane.body_view.focus()
        await pilot.press("d")
        await wait_for(pilot, lambda: isinstance(app.screen, ChooseScreen))
        options = app.screen.query_one(OptionList)
        assert options.option_count == 1  # the other send, not this one
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, DiffScreen) and app.screen.diff)
        diff_screen = app.screen
        assert isinstance(diff_screen, DiffScreen)
        assert diff_screen.new.label == "this response"
        assert diff_screen.new.body == pane.exchange.text
        first = min(list_entries(collection), key=lambda e: e.started_at)
        assert diff_screen.old.body == first.body.decode()


async def test_identical_large_responses_compare_the_same(
    collection: Path, echo: EchoServer
) -> None:
    """The history keeps only a large body's start (and its digest): two identical bodies
    larger than it keeps are the same, from the history (m, =) and from the response on show
    (d)."""
    mb = (DEFAULT_CAP + 64 * 1024) / 2**20  # past the cap: each entry keeps only the start
    (collection / "big.toml").write_text(
        f'name = "Big"\nurl = "{{{{base_url}}}}/json/large?mb={mb}"\n', encoding="utf-8"
    )
    app = make_app(collection, echo)
    async with app.run_test(size=(120, 40)) as pilot:
        await open_request(pilot, "big")
        pane = main_screen(app).query_one("#response")
        for count in (1, 2):
            shown = pane.exchange
            await pilot.press("ctrl+r")
            await wait_for(pilot, lambda c=count: len(list_entries(collection)) == c)
            await wait_for(pilot, lambda s=shown: pane.exchange not in (None, s))
        assert all(e.body_truncated for e in list_entries(collection))
        pane.body_view.focus()
        await pilot.press("d")
        await wait_for(pilot, lambda: isinstance(app.screen, ChooseScreen))
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, DiffScreen) and app.screen.diff)
        assert headings(app.screen)[-1] == "Body: same (by the whole bodies' SHA-256)"
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, DiffScreen))
        await pilot.press("f6")
        history = main_screen(app).query_one(HistoryList)
        await wait_for(pilot, lambda: len(history.entries) == 2 and app.focused is history)
        await pilot.press("m", "j", "equals_sign")
        await wait_for(pilot, lambda: isinstance(app.screen, DiffScreen) and app.screen.diff)
        screen = app.screen
        assert headings(screen)[-1] == "Body: same (by the whole bodies' SHA-256)"
        notes = str(screen.query_one("#diff-notes").render())
        assert "only the start" in notes.lower() and "1 change" not in notes
