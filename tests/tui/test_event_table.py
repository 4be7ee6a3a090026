"""The events table (SSE events, gRPC replies): rows are cut to the view's width, so rows
that come after a vertical scrollbar has appeared never bring a horizontal one."""

from __future__ import annotations

from textual.app import App, ComposeResult

from pigeon.stream import Event
from pigeon.tui.widgets.response.event_table import EventTable


class TableApp(App[None]):
    def compose(self) -> ComposeResult:
        yield EventTable()


def events(first: int, count: int) -> list[Event]:
    return [Event("tick", str(n), f'{{"n": {n}}}', None, 0.0) for n in range(first, first + count)]


async def test_rows_that_bring_a_vertical_scrollbar_bring_no_horizontal_one() -> None:
    app = TableApp()
    async with app.run_test(size=(60, 8)) as pilot:
        table = app.query_one(EventTable)
        table.add_rows(events(1, 2))  # fits: no scrollbar, the rows as wide as the view
        await pilot.pause()
        table.add_rows(events(3, 20))  # a vertical scrollbar takes a column
        await pilot.pause()
        assert table.show_vertical_scrollbar
        assert not table.show_horizontal_scrollbar
        assert table.scroll_offset.y == table.max_scroll_y  # followed to the last row
