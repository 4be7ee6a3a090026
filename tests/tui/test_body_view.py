"""The body viewer: pretty JSON with highlighting, huge bodies kept responsive, search,
JSON filters, long lines. Runs the real widget in a headless app."""

from __future__ import annotations

import json
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from response_pane_app import BodyApp
from textual.widgets import Input
from tui_support import wait_for

from pigeon import bodies
from pigeon.bodies import build_index, json_line_tokens
from pigeon.tui.widgets.response.body_panel import BodyPanel
from pigeon.tui.widgets.response.body_view import BodyView

pytestmark = pytest.mark.timeout(60)


def lines_of(view: BodyView, count: int) -> list[str]:
    return [view.render_line(y).text.rstrip() for y in range(count)]


def style_of(view: BodyView, y: int, fragment: str):
    """The style of the segment holding ``fragment`` on screen row ``y``."""
    for segment in view.render_line(y):
        if fragment in segment.text:
            return segment.style
    raise AssertionError(f"{fragment!r} not on row {y}: {view.render_line(y).text!r}")


def big_json(target: int = 5_000_000) -> str:
    item = {
        "id": 0,
        "name": "user",
        "email": "u@example.com",
        "active": True,
        "score": 12.5,
        "tags": ["a", "b"],
        "address": {"city": "Zürich", "zip": None},
    }
    count = target // len(json.dumps(item)) + 1
    items = [dict(item, id=i, name=f"user {i}") for i in range(count)]
    return json.dumps({"items": items})


# -- pure helpers ------------------------------------------------------------------------------


def test_index_lines_and_width() -> None:
    index = build_index("ab\r\ncdef\n\nx\n")
    assert len(index) == 4
    assert [index.line(n) for n in range(4)] == ["ab", "cdef", "", "x"]
    assert index.width == 4
    assert index.line_of(0) == 0 and index.line_of(4) == 1 and index.line_of(9) == 2
    assert len(build_index("")) == 0


def test_index_measures_wide_characters_with_the_given_function() -> None:
    from rich.cells import cell_len

    index = build_index("abc\n日本語日本\nxyz", cell_len)
    assert index.width == 10
    assert build_index("Zürich\nab", cell_len).width == 6


def test_pretty_keeps_numbers_as_written_and_repeated_keys() -> None:
    text = '{"a": 1.10, "a": 2, "big": 123456789012345678901, "e": 1E+2, "s": "\\u00e9\\n"}'
    assert bodies.pretty_json(text) == (
        '{\n  "a": 1.10,\n  "a": 2,\n  "big": 123456789012345678901,\n  "e": 1E+2,\n'
        '  "s": "é\\n"\n}'
    )
    with pytest.raises(ValueError):
        bodies.pretty_json("{not json")


_json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=5), children, max_size=4)
    ),
    max_leaves=20,
)


@settings(max_examples=200, deadline=None)
@given(_json_values)
def test_pretty_printing_matches_the_standard_library(value) -> None:
    assert bodies.dumps_pretty(value) == json.dumps(value, indent=2, ensure_ascii=False)
    text = json.dumps(value)
    assert bodies.pretty_json(text) == json.dumps(
        json.loads(text), indent=2, ensure_ascii=False
    )


def test_json_tokens_per_line() -> None:
    line = '    "key": "va\\"l:ue", 12.5e3, true, null, -1 }'
    kinds = [(line[a:b], kind) for a, b, kind in json_line_tokens(line)]
    assert kinds == [
        ('"key"', "key"),
        (":", "punct"),
        ('"va\\"l:ue"', "string"),
        (",", "punct"),
        ("12.5e3", "number"),
        (",", "punct"),
        ("true", "literal"),
        (",", "punct"),
        ("null", "literal"),
        (",", "punct"),
        ("-1", "number"),
        ("}", "punct"),
    ]
    # A string cut off at the end of a line is still a string.
    assert json_line_tokens('"abc') == [(0, 4, "string")]


def test_find_all_is_smart_case_and_capped() -> None:
    found = bodies.find_all("Ada ada ADA", "ada")
    assert list(found.starts) == [0, 4, 8]
    assert list(bodies.find_all("Ada ada ADA", "Ada").starts) == [0]
    capped = bodies.find_all("a" * 50, "a", limit=10)
    assert len(capped) == 10 and capped.capped


def test_jmespath_filters() -> None:
    data = {"items": [{"name": "a", "n": 1}, {"name": "b", "n": 5}]}
    assert bodies.apply_filter(data, "items[?n > `2`].name") == ["b"]
    assert bodies.apply_filter(data, "length(items)") == 2
    for bad in ("items[", "a ^ b", "length(`1`)", "nope(@)", "  "):
        with pytest.raises(bodies.FilterError):
            bodies.apply_filter(data, bad)


def test_jsonpath_filters() -> None:
    pytest.importorskip("jsonpath_ng")
    data = {"items": [{"name": "a", "n": 1}, {"name": "b", "n": 5}]}
    assert bodies.apply_filter(data, "$.items[*].name") == ["a", "b"]
    assert bodies.apply_filter(data, "$.items[?(@.n > 2)].name") == ["b"]
    assert bodies.apply_filter(data, "$..name") == ["a", "b"]
    for bad in ("$.items[", "$$"):
        with pytest.raises(bodies.FilterError, match="JSONPath"):
            bodies.apply_filter(data, bad)


def test_classify_and_describe() -> None:
    png = (
        b"\x89PNG\r\n\x1a\n"
        + b"\x00\x00\x00\rIHDR"
        + (400).to_bytes(4, "big")
        + (300).to_bytes(4, "big")
    )
    assert bodies.classify_body("image/png", png, 1234) == "image"
    assert bodies.describe_binary("image/png", png, 1234) == "PNG image, 1,234 bytes (400x300)"
    gif = b"GIF89a" + (2).to_bytes(2, "little") + (3).to_bytes(2, "little")
    assert bodies.describe_binary("", gif, 10) == "GIF image, 10 bytes (2x3)"
    assert bodies.classify_body("application/octet-stream", b"\x00\x01\x02", 3) == "binary"
    assert bodies.classify_body("", "héllo".encode(), 6) == "text"
    assert bodies.classify_body("application/vnd.api+json", b"{}", 2) == "json"
    assert bodies.classify_body("text/html", b"", 0) == "empty"
    assert (
        bodies.describe_binary("application/octet-stream", b"\x00", 5 * 1024 * 1024)
        == "Binary body, application/octet-stream, 5.0 MB"
    )


# -- the widget --------------------------------------------------------------------------------


async def test_json_is_pretty_and_highlighted() -> None:
    app = BodyApp()
    async with app.run_test(size=(60, 20)) as pilot:
        view = app.query_one(BodyView)
        view.show_text('{"name": "Ada", "n": 1.50, "ok": true, "x": null}', is_json=True)
        await pilot.pause()
        assert view.phase == "pretty"
        assert lines_of(view, 7) == [
            "{",
            '  "name": "Ada",',
            '  "n": 1.50,',
            '  "ok": true,',
            '  "x": null',
            "}",
            "",
        ]
        key = style_of(view, 1, '"name"')
        string = style_of(view, 1, '"Ada"')
        number = style_of(view, 2, "1.50")
        literal = style_of(view, 3, "true")
        assert len({key.color, string.color, number.color, literal.color}) == 4
        assert key.color == view.get_component_rich_style("body-view--key").color


async def test_text_that_is_not_json_stays_raw() -> None:
    app = BodyApp()
    async with app.run_test(size=(40, 10)) as pilot:
        view = app.query_one(BodyView)
        view.show_text("{oops\nline two", is_json=True)
        await pilot.pause()
        assert view.phase == "text"
        assert lines_of(view, 2) == ["{oops", "line two"]


async def test_huge_json_shows_at_once_formats_in_a_thread_and_stays_responsive() -> None:
    app = BodyApp()
    text = big_json()
    async with app.run_test(size=(80, 24)) as pilot:
        view = app.query_one(BodyView)
        ticks: list[float] = []
        app.set_interval(0.02, lambda: ticks.append(time.monotonic()))
        await pilot.pause(0.1)
        started = time.monotonic()
        view.show_text(text, is_json=True)
        # The call returns before formatting: the raw line is on show before the pretty view.
        assert view.phase != "pretty"
        await wait_for(pilot, lambda: view.phase == "pretty")
        pretty_at = time.monotonic()
        await wait_for(pilot, lambda: "pretty" in app.loaded)
        assert app.loaded[:2] == ["raw", "pretty"]
        formatting = [t for t in ticks if started < t < pretty_at]
        # The loop kept running while the worker formatted 5 MB: done on the loop, not one
        # tick would fit in between. How long the loop may stall is measured in
        # benchmarks/bench_tui_body.py, not asserted here.
        assert len(formatting) >= 3
        assert view.line_count > 400_000
        assert lines_of(view, 3) == ["{", '  "items": [', "    {"]
        await pilot.press("G")
        await pilot.pause()
        assert view.scroll_offset.y == view.max_scroll_y > 0
        assert view.render_line(view.size.height - 1).text.rstrip() == "}"
        await pilot.press("g", "pagedown", "down")
        await pilot.pause()
        assert view.scroll_offset.y > 0
        row = view.render_line(0).text
        assert row.strip()


async def test_search_counts_highlights_and_moves() -> None:
    app = BodyApp()
    async with app.run_test(size=(60, 20)) as pilot:
        view = app.query_one(BodyView)
        panel = app.query_one(BodyPanel)
        view.show_text(json.dumps({"a": "Ada", "b": "ada", "c": "Bob", "d": "ADA!"}), is_json=True)
        await pilot.pause()
        await pilot.press("slash", *"ada")
        await pilot.pause()
        count = app.query_one("#body-bar-count")
        assert view.match_count == 3
        assert str(count.render()) == "1/3"
        current = style_of(view, 1, "Ada")
        assert current.bgcolor == view.get_component_rich_style("body-view--match-current").bgcolor
        await pilot.press("enter")  # back to the view, matches kept
        assert app.focused is view
        await pilot.press("n")
        await pilot.pause()
        assert str(count.render()) == "2/3"
        assert style_of(view, 2, "ada").bgcolor == current.bgcolor
        await pilot.press("n", "n")
        await pilot.pause()
        assert str(count.render()) == "1/3"  # wraps around
        await pilot.press("N")
        await pilot.pause()
        assert str(count.render()) == "3/3"
        await pilot.press("slash", "ctrl+u", *"zzz")
        await pilot.pause()
        assert str(count.render()) == "no matches"
        await pilot.press("escape")
        await pilot.pause()
        assert view.search_text == "" and panel.mode == ""
        assert app.focused is view


async def test_search_in_a_huge_body_runs_in_a_thread_and_a_new_query_wins() -> None:
    app = BodyApp()
    async with app.run_test(size=(80, 24)) as pilot:
        view = app.query_one(BodyView)
        view.show_text(big_json(), is_json=True)
        await wait_for(pilot, lambda: view.phase == "pretty")
        view.search("user")  # many matches: replaced before it reports
        view.search('user 4242"')
        await wait_for(pilot, lambda: view.match_count == 1)
        await pilot.pause(0.3)
        assert view.search_text == 'user 4242"' and view.match_count == 1
        row = view.scroll_offset.y + view.size.height // 2
        on_screen = [view.render_line(y).text for y in range(view.size.height)]
        assert any('"user 4242"' in line for line in on_screen), row


async def test_the_search_count_writes_both_numbers_alike() -> None:
    app = BodyApp()
    async with app.run_test(size=(60, 20)) as pilot:
        view = app.query_one(BodyView)
        view.show_text("x\n" * 1200)
        await pilot.pause()
        await pilot.press("slash", "x", "enter", "N")  # from the first match back to the last
        count = app.query_one("#body-bar-count")
        await wait_for(pilot, lambda: str(count.render()).startswith("1,200/"))
        assert str(count.render()) == "1,200/1,200"


ITEMS = json.dumps({"items": [{"name": "a", "n": 1}, {"name": "b", "n": 5}]})


async def test_jmespath_filter_and_a_bad_expression() -> None:
    app = BodyApp()
    async with app.run_test(size=(70, 20)) as pilot:
        view = app.query_one(BodyView)
        hint = app.query_one("#body-bar-hint")
        view.show_text(ITEMS, is_json=True)
        await pilot.pause()
        await pilot.press("f", *"items[?n > `2`]", "enter")
        await wait_for(pilot, lambda: view.phase == "filtered")
        assert lines_of(view, 6) == ["[", "  {", '    "name": "b",', '    "n": 5', "  }", "]"]
        assert app.focused is view
        # A bad expression: its error under the input, the view untouched.
        await pilot.press("full_stop", "ctrl+u", *"items[", "enter")
        await wait_for(pilot, lambda: "✖" in str(hint.render()))
        assert "JMESPath" in str(hint.render()) and hint.has_class("-error")
        assert lines_of(view, 6) == ["[", "  {", '    "name": "b",', '    "n": 5', "  }", "]"]
        await pilot.press("escape")
        await pilot.pause()
        assert view.phase == "pretty"
        assert lines_of(view, 2) == ["{", '  "items": [']


async def test_jsonpath_filter_in_the_view() -> None:
    pytest.importorskip("jsonpath_ng")
    app = BodyApp()
    async with app.run_test(size=(70, 20)) as pilot:
        view = app.query_one(BodyView)
        hint = app.query_one("#body-bar-hint")
        view.show_text(ITEMS, is_json=True)
        await pilot.pause()
        await pilot.press("f", *"$.items[*].name", "enter")
        await wait_for(pilot, lambda: view.is_filtered)
        assert lines_of(view, 4) == ["[", '  "a",', '  "b"', "]"]
        await pilot.press("f", "ctrl+u", *"$..[", "enter")
        await wait_for(pilot, lambda: "JSONPath" in str(hint.render()))
        assert lines_of(view, 4) == ["[", '  "a",', '  "b"', "]"]
        await pilot.press("escape")
        await pilot.pause()
        assert view.phase == "pretty"


async def test_filter_is_not_offered_for_text() -> None:
    app = BodyApp()
    async with app.run_test(size=(40, 10)) as pilot:
        view = app.query_one(BodyView)
        view.show_text("plain text")
        await pilot.pause()
        await pilot.press("f")
        await pilot.pause()
        assert app.query_one(BodyPanel).mode == ""


async def test_long_lines_scroll_horizontally() -> None:
    app = BodyApp()
    async with app.run_test(size=(40, 10)) as pilot:
        view = app.query_one(BodyView)
        long_line = "".join(f"{n:05d} " for n in range(2000))  # 12,000 characters
        view.show_text(f"short\n{long_line}\nend")
        await pilot.pause()
        assert view.virtual_size.width == len(long_line)
        assert view.render_line(1).text.startswith("00000 00001")
        view.scroll_to(x=6 * 1500, animate=False, immediate=True)
        await pilot.pause()
        assert view.render_line(1).text.startswith("01500 01501")
        assert view.render_line(0).text.strip() == ""
        await pilot.press("home")
        await pilot.pause()
        assert view.scroll_offset.y == 0


async def test_messages_and_control_characters() -> None:
    app = BodyApp()
    async with app.run_test(size=(40, 10)) as pilot:
        view = app.query_one(BodyView)
        view.show_message("PNG image, 10 bytes (1x1)")
        await pilot.pause()
        assert view.phase == "message"
        assert view.render_line(0).text.rstrip() == "PNG image, 10 bytes (1x1)"
        view.show_text("a\x1b]2;title\x07b\tc\x9b2J\rd\r\n")
        await pilot.pause()
        # Shown as escapes, never sent: no title, no clear screen, no carriage return.
        shown = "a\\x1b]2;title\\x07b\tc\\x9b2J\\x0dd".expandtabs()
        assert view.render_line(0).text.rstrip() == shown


async def test_new_body_while_formatting_drops_the_old_result() -> None:
    app = BodyApp()
    async with app.run_test(size=(40, 10)) as pilot:
        view = app.query_one(BodyView)
        view.show_text(big_json(1_000_000), is_json=True)
        view.show_text('{"small": 1}', is_json=True)
        await wait_for(pilot, lambda: all(w.is_finished for w in app.workers))
        await pilot.pause(0.3)  # a stale result would have landed by now
        assert lines_of(view, 3) == ["{", '  "small": 1', "}"]


async def test_search_reveals_a_match_off_to_the_right_and_returns_when_nothing_matches() -> None:
    app = BodyApp()
    async with app.run_test(size=(40, 10)) as pilot:
        view = app.query_one(BodyView)
        view.show_text("\n".join(["x" * 100 + " needle"] + [f"line {n}" for n in range(50)]))
        await pilot.pause()
        await pilot.press("slash", *"need")
        await pilot.pause()
        assert view.scroll_offset.x > 0
        assert "need" in view.render_line(0).text
        await pilot.press(*"zz")  # "needzz": nothing
        await pilot.pause()
        assert view.match_count == 0 and view.scroll_offset.x == 0


async def test_long_minified_json_is_highlighted_and_searchable_in_a_window() -> None:
    app = BodyApp()
    async with app.run_test(size=(40, 10)) as pilot:
        view = app.query_one(BodyView)
        line = '{"k": "' + "v" * 10_000 + '", "needle": 12, "t": true}'
        view._start(line, is_json=True)  # the raw phase, as a worker would show it first
        view._set_doc(build_index(line), "raw", view._generation)
        await pilot.pause()
        assert view.render_line(0).text.startswith('{"k": "vvvv')
        assert (
            style_of(view, 0, '"k"').color == view.get_component_rich_style("body-view--key").color
        )
        view.search("needle")
        await pilot.pause()
        assert view.scroll_offset.x > 9_000
        row = view.render_line(0)
        assert "needle" in row.text
        current = view.get_component_rich_style("body-view--match-current").bgcolor
        assert style_of(view, 0, "needle").bgcolor == current
        # The string that began off screen is still drawn as a string.
        assert (
            style_of(view, 0, "vvv").color
            == view.get_component_rich_style("body-view--string").color
        )


async def test_mouse_selection_is_drawn_and_copied_from_the_document() -> None:
    from textual.geometry import Offset
    from textual.selection import Selection

    app = BodyApp()
    async with app.run_test(size=(60, 20)) as pilot:
        view = app.query_one(BodyView)
        view.show_text('{"name": "Ada", "n": 1}', is_json=True)
        await pilot.pause()
        app.screen.selections = {view: Selection.from_offsets(Offset(2, 1), Offset(5, 2))}
        await pilot.pause()
        assert app.screen.get_selected_text() == '"name": "Ada",\n  "n"'
        selected = app.screen.get_component_rich_style("screen--selection").bgcolor
        assert style_of(view, 1, "name").bgcolor == selected
        assert style_of(view, 0, "{").bgcolor != selected


async def test_a_new_theme_recolours_the_body() -> None:
    app = BodyApp()
    async with app.run_test(size=(60, 10)) as pilot:
        view = app.query_one(BodyView)
        view.show_text('{"name": "Ada"}', is_json=True)
        await pilot.pause()
        before = style_of(view, 1, '"name"').color
        app.theme = "textual-light"
        await pilot.pause()
        after = style_of(view, 1, '"name"').color
        assert after != before
        assert after == view.get_component_rich_style("body-view--key").color


async def test_small_bodies_filter_as_you_type() -> None:
    app = BodyApp()
    async with app.run_test(size=(60, 12)) as pilot:
        view = app.query_one(BodyView)
        view.show_text(json.dumps({"a": {"b": [1, 2]}}), is_json=True)
        await pilot.pause()
        await pilot.press("f", *"a.b")
        await wait_for(pilot, lambda: view.is_filtered)
        assert lines_of(view, 4) == ["[", "  1,", "  2", "]"]
        assert isinstance(app.focused, Input)  # still typing
        await pilot.press("backspace", "backspace", "backspace")
        await wait_for(pilot, lambda: view.phase == "pretty")
        assert app.query_one(BodyPanel).mode == "filter"


async def test_a_filter_applied_while_formatting_survives_the_pretty_view() -> None:
    app = BodyApp()
    async with app.run_test(size=(60, 12)) as pilot:
        view = app.query_one(BodyView)
        view.show_text(big_json(1_000_000), is_json=True)
        view.apply_filter("items[1].name")
        await wait_for(pilot, lambda: view.is_filtered)
        await wait_for(pilot, lambda: all(w.is_finished for w in app.workers))
        await pilot.pause()
        assert view.is_filtered and lines_of(view, 1) == ['"user 1"']
        view.clear_filter()
        await pilot.pause()
        assert view.phase == "pretty"
        assert lines_of(view, 2) == ["{", '  "items": [']


async def test_only_the_latest_filter_is_shown() -> None:
    app = BodyApp()
    async with app.run_test(size=(60, 12)) as pilot:
        view = app.query_one(BodyView)
        view.show_text(json.dumps({"a": 1, "b": 2}), is_json=True)
        await pilot.pause()
        view.apply_filter("a")
        view.apply_filter("b")
        await wait_for(pilot, lambda: view.filter_expression == "b")
        await pilot.pause(0.2)
        assert lines_of(view, 1) == ["2"] and view.filter_expression == "b"
