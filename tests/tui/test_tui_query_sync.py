"""The URL bar and the Query tab show one query: parameters typed in the URL are listed (and
stay in the URL, as DESIGN §5 has it), and editing or deleting them in the tab rewrites it."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Input
from tui_support import main_screen, replace_url, running, show_tab, wait_for

from pigeon.store import load_collection
from pigeon.tui.app import PigeonApp
from pigeon.tui.dialogs.pair_edit import PairEditScreen
from pigeon.tui.widgets.editor.query_table import QueryTable
from pigeon.tui.widgets.editor.request_editor import RequestEditor
from pigeon.tui.widgets.editor.url_query import split_url, with_params


def test_a_url_query_splits_outside_placeholders_and_joins_back() -> None:
    url = "{{base}}/x?a=1&flag&c={{ 'x&y=z' }}&d=%20#top"
    base, pairs, fragment = split_url(url)
    assert (base, fragment) == ("{{base}}/x", "#top")
    assert pairs == [("a", "1"), ("flag", None), ("c", "{{ 'x&y=z' }}"), ("d", "%20")]
    assert with_params(url, pairs) == url
    assert with_params(url, []) == "{{base}}/x#top"
    assert with_params("http://h/p", [("q", "1")]) == "http://h/p?q=1"


def rows(table: QueryTable) -> list[tuple[str, str, str]]:
    return [tuple(str(c) for c in table.get_row_at(i)) for i in range(table.row_count)]


async def test_the_query_typed_in_the_url_is_listed_and_edited_in_the_query_tab(
    app: PigeonApp, collection: Path
) -> None:
    async with running(app, "users/list-users") as pilot:
        screen = main_screen(app)
        request = screen.query_one(RequestEditor).request
        await replace_url(pilot, "{{base_url}}/users?x=1&y={{page}}")
        await show_tab(pilot, "tab-query")
        table = screen.query_one("#query", QueryTable)
        assert rows(table)[:3] == [
            ("?", "x", "1"),
            ("?", "y", "{{page}}"),
            ("✓", "page", "{{page}}"),
        ]
        assert str(screen.query_one("#editor-tabs").get_tab("tab-query").label) == "Query 6"
        # Editing a URL parameter in the tab rewrites the URL bar.
        table.focus()
        table.move_cursor(row=0)
        await pilot.press("e")
        await wait_for(pilot, lambda: isinstance(app.screen, PairEditScreen))
        value = app.screen.query_one("#pair-value", Input)
        value.value = "2"
        value.focus()
        await pilot.pause()
        await pilot.press("enter")
        await wait_for(pilot, lambda: request.url == "{{base_url}}/users?x=2&y={{page}}")
        assert screen.query_one("#url", Input).value == request.url
        await pilot.press("d")  # deletes x from the URL
        await pilot.pause()
        assert request.url == "{{base_url}}/users?y={{page}}"
        assert screen.query_one("#url", Input).value == request.url
        assert rows(table)[0] == ("?", "y", "{{page}}") and len(request.query) == 5
        # The preview sends both: the URL's as typed, then [[query]], each encoded.
        preview = screen.query_one(RequestEditor).last_preview
        assert "/users?y=1&page=1&per_page=10&q=Ada%20%26" in preview.url
        await pilot.press("ctrl+s")
        await pilot.pause()
    saved = load_collection(collection).find("users/list-users")
    assert saved is not None and saved[1].url == "{{base_url}}/users?y={{page}}"
