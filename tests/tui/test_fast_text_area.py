"""The editor's text area does per key what the edit touches: its text, height, wrapping and
highlights stay those of the whole document; a large body's preview waits for a pause."""

from __future__ import annotations

import json
from pathlib import Path

from textual.app import App, ComposeResult
from textual.document._document import Document
from textual.document._wrapped_document import WrappedDocument
from textual.geometry import Region
from textual.widgets import TextArea
from tui_support import main_screen, running, show_tab, wait_for

from collection_files import write
from pigeon.session import Session
from pigeon.tui.app import PigeonApp
from pigeon.tui.widgets.editor import request_editor
from pigeon.tui.widgets.editor.fast_text_area import FastTextArea, _CountedWrap

DOCUMENT = json.dumps([{"id": n, "name": f"item {n}"} for n in range(400)], indent=2) + "\n"


class AreaApp(App[None]):
    def compose(self) -> ComposeResult:
        yield FastTextArea.code_editor(DOCUMENT, language="json", soft_wrap=True)


async def test_the_text_follows_every_kind_of_edit() -> None:
    app = AreaApp()
    async with app.run_test(size=(60, 20)) as pilot:
        area = app.query_one(FastTextArea)
        area.focus()
        assert area.text == DOCUMENT
        area.move_cursor((1, 0))
        await pilot.press("x", "y")
        assert area.text == area.document.text and "xy" in area.text.splitlines()[1]
        area.undo()
        assert area.text == DOCUMENT == area.document.text
        area.redo()
        assert area.text == area.document.text != DOCUMENT
        area.load_text("one\ntwo")
        assert area.text == "one\ntwo"
        area.text = "three"
        assert area.text == "three" == area.document.text


async def test_the_height_is_that_of_the_wrapped_document() -> None:
    app = AreaApp()
    async with app.run_test(size=(30, 20)) as pilot:
        area = app.query_one(FastTextArea)
        wrapped = area.wrapped_document
        assert wrapped.height == sum(len(o) + 1 for o in wrapped._wrap_offsets) > 1200
        area.move_cursor((3, 0))
        area.insert("a long line that wraps at thirty columns, more than once\n")
        await pilot.pause()
        assert wrapped.height == sum(len(o) + 1 for o in wrapped._wrap_offsets)
        assert area.virtual_size.height == wrapped.height


async def test_a_change_of_height_alone_wraps_nothing_again() -> None:
    app = AreaApp()
    async with app.run_test(size=(40, 20)) as pilot:
        area = app.query_one(FastTextArea)
        wraps: list[int] = []
        original = area.wrapped_document.wrap
        area.wrapped_document.wrap = lambda *a, **k: (wraps.append(1), original(*a, **k))[1]
        width = area.size.width
        await pilot.resize_terminal(40, 12)
        await wait_for(pilot, lambda: area.size.height < 20)  # laid out at the new size...
        await pilot.pause()  # ...and the resize it was sent handled
        assert not wraps
        await pilot.resize_terminal(50, 12)  # a new width wraps the lines again
        await wait_for(pilot, lambda: area.size.width > width)
        await pilot.pause()
        assert wraps


def lit_rows(area: FastTextArea) -> set[int]:
    return {row for row, found in area._highlights.items() if found}


def styles_drawn(area: FastTextArea) -> set[object]:
    """The styles of the text on the cursor's line as the next frame draws it."""
    y = area.cursor_screen_offset.y - area.region.y
    [line] = area.render_lines(Region(0, y, area.size.width, 1))
    return {segment.style for segment in line if segment.text.strip()}


async def test_highlights_are_those_of_the_lines_on_screen_wherever_they_are() -> None:
    app = AreaApp()
    async with app.run_test(size=(60, 20)) as pilot:
        area = app.query_one(FastTextArea)
        area.move_cursor((2, 4))
        await pilot.pause()
        assert len(styles_drawn(area)) > 1  # key and number
        assert 2 in lit_rows(area) and 1502 not in lit_rows(area)
        area.move_cursor((1502, 4))
        area.scroll_cursor_visible(center=True, animate=False)
        await pilot.pause()
        assert area.text.splitlines()[1502].strip().startswith('"id"')
        assert len(styles_drawn(area)) > 1 and 1502 in lit_rows(area)
        await pilot.press("z")  # an edit: the lines on screen are highlighted again
        await pilot.pause()
        assert len(styles_drawn(area)) > 1 and 1502 in lit_rows(area)


async def test_a_large_bodys_preview_follows_after_a_pause_in_typing(
    tmp_path: Path, monkeypatch
) -> None:
    monkeypatch.setattr(request_editor, "LARGE_BODY", 1000)
    write(tmp_path, "collection.toml", 'name = "Large"\n')
    body = DOCUMENT.replace('"item 0"', '"{{who}}"')
    write(
        tmp_path,
        "big.toml",
        'name = "Big"\nmethod = "POST"\nurl = "http://127.0.0.1:9/{{who}}"\n'
        f"[body]\ntype = \"json\"\ncontent = '''\n{body}'''\n",
    )
    app = PigeonApp(Session.open(tmp_path, None), remember_theme=False)
    async with running(app, "big") as pilot:
        screen = await show_tab(pilot, "tab-body")
        editor = screen.editor
        assert editor.last_preview is not None and "who" in editor.last_preview.unresolved
        area = screen.query_one("#body-text", TextArea)
        area.focus()
        area.move_cursor((1, 0))
        previews: list[object] = []
        rendered = editor._preview
        editor._preview = lambda r: (previews.append(r), rendered(r))[1]
        monkeypatch.setattr(request_editor, "TYPING_PAUSE", 0.01)
        await pilot.press("x")
        await wait_for(pilot, lambda: bool(previews))  # after the pause
        await pilot.pause()  # and what follows it (the Changed it posts) is handled
        seen = len(previews)
        assert editor.dirty and editor.request is not None
        assert editor.request.body.content == area.text
        monkeypatch.setattr(request_editor, "TYPING_PAUSE", 60)
        await pilot.press("y", "z")
        await pilot.pause()
        assert len(previews) == seen and editor._settle is not None  # the keys are in, it waits
        assert "yz" in area.text and editor.request.body.content == area.text
        main_screen(app).editor.load(editor.saved)  # another request: its own preview
        await pilot.pause()
        assert editor._settle is None and len(previews) == seen + 1


def test_the_wrap_table_is_textuals_whatever_the_lines() -> None:
    """Lines that fit and hold no tab are not measured: the table is the same."""
    lines = ["", "\t", "a\tb\tc", "中文" * 20, "x" * 200, " " * 70, "word " * 30, "é" * 40]
    document = Document(DOCUMENT + "\n".join(lines * 2) + "\ntab\tat end\t")
    for width in (0, 1, 5, 30, 59, 60, 61, 120):
        for tab in (2, 4, 8):
            textual = WrappedDocument(document, width, tab)
            ours = WrappedDocument(document, 0, tab)
            ours.__class__ = _CountedWrap
            ours.wrap(width, tab)
            for table in ("_wrap_offsets", "_offset_to_line_info", "_line_index_to_offsets"):
                assert getattr(ours, table) == getattr(textual, table), (width, tab, table)
            assert ours._tab_width_cache == textual._tab_width_cache
            assert ours.height == textual.height


def test_the_matching_bracket_is_textuals() -> None:
    """Found a line at a time, the bracket matched is the one Textual's own search finds."""
    texts = ["{[()]}", "((a)", "a)(b", "{\n  [1, (2\n]}\n", "}{", "[(])", "((\n)\n)x", "}\n\n{"]
    texts.append(DOCUMENT[:3000])
    for text in texts:
        textual, ours = TextArea(text), FastTextArea(text)
        for row, line in enumerate(textual.document.lines):
            for column in range(len(line) + 1):
                char = line[column] if column < len(line) else ""
                where = (row, column)
                found = ours.find_matching_bracket(char, where)
                assert found == textual.find_matching_bracket(char, where), (text, where)
    last = DOCUMENT.count("\n") - 1
    assert FastTextArea(DOCUMENT).find_matching_bracket("[", (0, 0)) == (last, 0)
