"""Folding a response body in the real widget: the fold keys, levels, unfolding to a path,
copying the cursor's path, a search or a filter meeting folds, HTML/XML, and snapshots."""

from __future__ import annotations

import json

import pytest
from response_pane_app import BodyApp, ResponsePaneApp, make_exchange
from textual.pilot import Pilot
from textual.widgets import Input, Static
from tui_support import wait_for

from pigeon.tui.widgets.response.body_panel import BodyPanel
from pigeon.tui.widgets.response.folding_view import FoldingBodyView

pytestmark = pytest.mark.timeout(60)

USERS = {
    "users": [
        {"id": 1, "name": "Ada", "tags": ["math", "engines"]},
        {"id": 2, "name": "Grace", "tags": ["cobol"]},
    ],
    "total": 2,
}


def shown(view: FoldingBodyView, count: int | None = None) -> list[str]:
    rows = view.row_count if count is None else count
    return [view.render_line(y).text.rstrip() for y in range(min(rows, view.size.height))]


async def folding(pilot: Pilot, body: object = USERS) -> FoldingBodyView:
    """The body shown in a ``BodyApp``, its outline built, the view focused."""
    view = pilot.app.query_one(FoldingBodyView)
    view.show_text(json.dumps(body), is_json=True)
    await wait_for(pilot, lambda: view.folds is not None)
    view.focus()
    await pilot.pause()
    return view


def path_line(app: BodyApp) -> Static:
    return app.query_one("#body-path", Static)


async def test_enter_folds_and_unfolds_the_node_at_the_cursor() -> None:
    app = BodyApp()
    async with app.run_test(size=(60, 20)) as pilot:
        view = await folding(pilot)
        await pilot.press("j")
        assert view.cursor_path == "users"
        cursor = view.get_component_rich_style("body-view--cursor").bgcolor
        assert {s.style.bgcolor for s in view.render_line(1) if s.text.strip()} == {cursor}
        assert cursor not in {s.style.bgcolor for s in view.render_line(0)}
        await pilot.press("enter")
        assert shown(view) == ["{", '  "users": [ … 2 items ],', '  "total": 2', "}"]
        await pilot.press("j")
        assert view.cursor_path == "total"
        await pilot.press("k", "z")
        assert view.row_count == view.line_count == 20
        # On a value, the key folds the node holding it and the cursor goes to its first line.
        await pilot.press("j", "j")
        assert view.cursor_path == "users[0].id"
        await pilot.press("enter")
        assert shown(view)[2] == "    { … 3 keys },"
        assert view.cursor_line == 2 and view.cursor_path == "users[0]"


async def test_levels_fold_all_and_unfold_all() -> None:
    app = BodyApp()
    async with app.run_test(size=(60, 30)) as pilot:
        view = await folding(pilot)
        await pilot.press("minus")
        assert shown(view) == ["{ … 2 keys }"]
        await pilot.press("1")
        assert shown(view) == ["{", '  "users": [ … 2 items ],', '  "total": 2', "}"]
        await pilot.press("2")
        assert shown(view)[2:4] == ["    { … 3 keys },", "    { … 3 keys }"]
        await pilot.press("3")
        assert '      "tags": [ … 2 items ]' in shown(view)
        await pilot.press("0")
        assert view.row_count == view.line_count


async def test_unfold_to_a_path_and_a_path_that_leads_nowhere() -> None:
    app = BodyApp()
    async with app.run_test(size=(60, 30)) as pilot:
        view = await folding(pilot)
        await pilot.press("minus", "o")
        panel = app.query_one(BodyPanel)
        assert panel.mode == "path"
        await pilot.press(*"users[1].tags[0]", "enter")
        await wait_for(pilot, lambda: panel.mode == "")
        assert app.focused is view
        assert view.line_text(view.cursor_line).strip() == '"cobol"'
        assert view.cursor_path == "users[1].tags[0]"
        assert str(path_line(app).render()) == "users[1].tags[0]"
        # Only the way there opened: the first user stays folded.
        assert "    { … 3 keys }," in shown(view)
        await pilot.press("o", *"users[7]", "enter")
        hint = app.query_one("#body-bar-hint", Static)
        assert str(hint.render()) == "✖ nothing at users[7]"
        assert app.focused is app.query_one("#body-bar-input", Input)
        await pilot.press("escape")
        assert view.cursor_path == "users[1].tags[0]"


async def test_the_path_shows_under_the_body_and_copies_as_path_or_script_line() -> None:
    app = BodyApp()
    async with app.run_test(size=(60, 30)) as pilot:
        view = await folding(pilot, {"data": {"a b": [{"token": "x\u001b[31m"}]}})
        assert path_line(app).display is False or str(path_line(app).render()) == "@"
        await pilot.press("j", "j", "j", "j")
        assert view.cursor_path == 'data."a b"[0].token'
        await wait_for(pilot, lambda: path_line(app).display)
        assert str(path_line(app).render()) == 'data."a b"[0].token'
        await pilot.press("y")
        assert app.clipboard == 'data."a b"[0].token'
        await pilot.press("Y")
        assert app.clipboard == (
            'pigeon.setVar("token", pigeon.response.json()["data"]["a b"][0]["token"])'
        )
        # Away from the body, the path line goes.
        app.query_one(BodyPanel).action_search()
        await pilot.pause()
        await pilot.press("escape")
        app.set_focus(None)
        await wait_for(pilot, lambda: not path_line(app).display)


async def test_a_search_hit_inside_a_folded_node_unfolds_to_it() -> None:
    app = BodyApp()
    async with app.run_test(size=(60, 30)) as pilot:
        view = await folding(pilot)
        await pilot.press("minus")
        assert view.row_count == 1
        await pilot.press("slash", *"cobol", "enter")
        await wait_for(pilot, lambda: view.match_count == 1 and app.focused is view)
        assert view.cursor_path == "users[1].tags[0]"
        rows = shown(view)
        assert '        "cobol"' in rows
        assert "    { … 3 keys }," in rows  # the other user stays folded
        row = view._row_of(view.cursor_line) - view.scroll_offset.y
        assert view.render_line(row).text.strip() == '"cobol"'


async def test_a_filter_result_folds_too() -> None:
    app = BodyApp()
    async with app.run_test(size=(60, 30)) as pilot:
        view = await folding(pilot)
        await pilot.press("1")
        folded = shown(view)
        await pilot.press("f", *"users", "enter")
        await wait_for(pilot, lambda: view.is_filtered and view.folds is not None)
        assert view.cursor_path == "@"
        assert view.row_count == view.line_count == 17
        await pilot.press("1")
        assert shown(view) == ["[", "  { … 3 keys },", "  { … 3 keys }", "]"]
        # Clearing the filter brings back the body as it was folded.
        await pilot.press("escape")
        await wait_for(pilot, lambda: not view.is_filtered and view.folds is not None)
        assert shown(view) == folded


async def test_a_large_body_folds_once_its_outline_is_built_in_a_thread() -> None:
    items = [{"id": i, "name": f"user {i}", "tags": ["a", "b"]} for i in range(6_000)]
    app = BodyApp()
    async with app.run_test(size=(60, 20)) as pilot:
        view = await folding(pilot, {"items": items, "count": len(items)})
        assert view.line_count > 40_000
        await pilot.press("1")
        assert shown(view) == ["{", '  "items": [ … 6,000 items ],', '  "count": 6000', "}"]
        await pilot.press("o", *"items[4321].name", "enter")
        await wait_for(pilot, lambda: view.cursor_path == "items[4321].name")
        assert view.line_text(view.cursor_line).strip() == '"name": "user 4321",'
        # The way there opened: the item's own lines show, its tags stay folded.
        assert view.row_count == 5 + 6_000 + 4


async def test_html_and_xml_fold_by_element() -> None:
    page = "<html><body><ul>" + "".join(f"<li>{i}</li>" for i in range(40)) + "</ul></body></html>"
    app = BodyApp()
    async with app.run_test(size=(60, 20)) as pilot:
        view = app.query_one(FoldingBodyView)
        view.show_text(page, markup="html")
        await wait_for(pilot, lambda: view.line_count > 100 and view.folds is not None)
        view.focus()
        await pilot.press("2")
        assert shown(view) == [
            "<html>",
            "  <body>",
            "    <ul> … 120 lines </ul>",
            "  </body>",
            "</html>",
        ]
        assert view.cursor_path == ""
        assert not path_line(app).display
        xml = "<?xml version='1.0'?><feed><entry><id>1</id></entry><entry><id>2</id></entry></feed>"
        view.show_text(xml, markup="xml")
        await wait_for(pilot, lambda: "<feed>\n" in view.text and view.folds is not None)
        await pilot.press("minus")
        assert shown(view)[-1] == "<feed> … 6 lines </feed>"


def test_snapshot_folded_json_80x24(snap_compare) -> None:
    async def fold(pilot: Pilot) -> None:
        view = pilot.app.query_one("#body-view", FoldingBodyView)
        await wait_for(pilot, lambda: view.folds is not None)
        await pilot.press("2", "j", "j", "enter")

    assert snap_compare(ResponsePaneApp(make_exchange()), terminal_size=(80, 24), run_before=fold)


def test_snapshot_folded_json_120x40(snap_compare) -> None:
    async def fold(pilot: Pilot) -> None:
        view = pilot.app.query_one("#body-view", FoldingBodyView)
        await wait_for(pilot, lambda: view.folds is not None)
        await pilot.press("2", "j", "j", "enter", "j", "j")

    assert snap_compare(ResponsePaneApp(make_exchange()), terminal_size=(120, 40), run_before=fold)


async def test_a_large_bodys_outline_is_the_one_written_with_its_pretty_text(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Over the size formatted in a thread, the pretty printer records the nesting as it
    writes: the folds are ready with the pretty view, the text never scanned again."""
    from pigeon.tui.widgets.response import folding_view

    def no_scan(*args: object, **kwargs: object) -> None:
        raise AssertionError("the outline was scanned for")

    monkeypatch.setattr(folding_view, "build_outline", no_scan)
    body = {"items": [{"id": n, "name": f"user {n}", "tags": ["a", "b"]} for n in range(8000)]}
    app = BodyApp()
    async with app.run_test(size=(60, 20)) as pilot:
        view = pilot.app.query_one(FoldingBodyView)
        view.show_text(json.dumps(body), is_json=True)
        await wait_for(pilot, lambda: view.phase == "pretty")
        assert view.folds is not None  # with the pretty view, not after it
        view.focus()
        await pilot.press("j", "enter")
        assert shown(view, 3) == ["{", '  "items": [ … 8,000 items ]', "}"]
        await pilot.press("2")
        assert shown(view, 4) == ["{", '  "items": [', "    { … 3 keys },", "    { … 3 keys },"]
