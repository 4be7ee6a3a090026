"""Saved examples in the app (DESIGN §14): a response saved as an example (e on the response
pane: a name asked, secrets masked, written into the request's file), and the editor's
Examples tab listing them, editing a body and deleting one."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import DataTable, Tab, TabbedContent, TextArea
from tui_support import main_screen, make_app, open_request, show_tab, wait_for

from pigeon.echo import EchoServer
from pigeon.session import Session
from pigeon.store.read import request_from_toml
from pigeon.tui.app import PigeonApp
from pigeon.tui.themes import bundled_theme_dirs
from pigeon.tui.widgets.collection.collection_tree import CollectionTree
from pigeon.tui.widgets.editor.request_editor import RequestEditor

pytestmark = pytest.mark.timeout(120)

TOKEN = "sekrit-token-0123456789"
USER = """\
name = "Get user"
url = "{{base_url}}/anything/7"

[[headers]]
name = "Authorization"
value = "Bearer {{$env.TOKEN}}"
"""


@pytest.fixture
def root(tmp_path: Path) -> Path:
    root = tmp_path / "col"
    root.mkdir()
    (root / "collection.toml").write_text('name = "Users"\n', encoding="utf-8")
    (root / ".env").write_text(f"TOKEN={TOKEN}\n", encoding="utf-8")
    (root / "user.toml").write_text(USER, encoding="utf-8")
    return root


def examples_tab(tabs: TabbedContent) -> Tab | None:
    """The editor's Examples tab, shown or hidden, or None: it is added for the first request
    with an example."""
    return tabs.get_tab("tab-examples") if tabs.query("#tab-examples") else None


async def test_a_response_is_saved_as_an_example(root: Path, echo: EchoServer) -> None:
    app = make_app(root, echo)
    async with app.run_test(size=(120, 40)) as pilot:
        await open_request(pilot, "user")
        screen = main_screen(app)
        tabs = screen.query_one("#editor-tabs", TabbedContent)
        assert examples_tab(tabs) is None  # none yet: no tab
        pane = screen.query_one("#response")
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: pane.exchange is not None and pane.exchange.status == 200)
        assert TOKEN in pane.exchange.text  # the echo server sends the token back
        pane.body_view.focus()
        await pilot.press("e")
        await wait_for(pilot, lambda: bool(app.screen.query("#prompt-input")))
        prompt = app.screen.query_one("#prompt-input")
        assert prompt.value == "ok"
        prompt.value = "found"
        await pilot.press("enter")
        path = root / "user.toml"
        await wait_for(pilot, lambda: "[[examples]]" in path.read_text(encoding="utf-8"))
        text = path.read_text(encoding="utf-8")
        assert text.startswith(USER)  # the rest of the file as it was
        assert TOKEN not in text  # the echoed secret is masked
        (example,) = request_from_toml(text).examples
        assert (example.name, example.status) == ("found", 200)
        assert "Bearer •••" in example.body
        names = {h.name.lower() for h in example.headers}
        assert "content-type" in names and "content-length" not in names and "date" not in names
        editor = screen.query_one(RequestEditor)
        assert editor.request.examples == [example] and not editor.dirty
        await wait_for(pilot, lambda: (tab := examples_tab(tabs)) is not None and tab.display)
        assert "Examples 1" in str(tabs.get_tab("tab-examples").label)

        # saved again under the same name: replaced, not added
        await pilot.press("e")
        await wait_for(pilot, lambda: bool(app.screen.query("#prompt-input")))
        app.screen.query_one("#prompt-input").value = "found"
        await pilot.press("enter")
        await wait_for(pilot, lambda: len(app.screen.query("#prompt-input")) == 0)
        await pilot.pause()
        assert len(request_from_toml(path.read_text(encoding="utf-8")).examples) == 1


EXAMPLES = """\
name = "Get user"
url = "{{base_url}}/users/{{id}}"

[[examples]]
name = "found"
status = 200
body = '''
{"id": "{{request.path.id}}", "name": "Ada"}
'''

[[examples]]
name = "missing"
status = 404
body = "no such user"

[[examples]]
name = "avatar"
body_file = "fixtures/a.png"
"""


def examples_app(tmp_path: Path) -> PigeonApp:
    root = tmp_path / "col"
    root.mkdir()
    (root / "collection.toml").write_text('name = "Users"\n', encoding="utf-8")
    (root / "user.toml").write_text(EXAMPLES, encoding="utf-8")
    return PigeonApp(Session.open(root), theme_dirs=bundled_theme_dirs(), remember_theme=False)


async def test_the_examples_tab_edits_and_deletes(tmp_path: Path) -> None:
    app = examples_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await open_request(pilot, "user")
        screen = await show_tab(pilot, "tab-examples")
        table = screen.query_one("#examples-table", DataTable)
        assert [table.get_row_at(i)[:2] for i in range(table.row_count)] == [
            ["found", "200"],
            ["missing", "404"],
            ["avatar", "200"],
        ]
        body = screen.query_one("#example-body", TextArea)
        assert body.text == '{"id": "{{request.path.id}}", "name": "Ada"}\n'
        table.focus()
        await pilot.press("down")
        await wait_for(pilot, lambda: body.text == "no such user")
        body.focus()
        await pilot.press("end", *"!")
        editor = screen.query_one(RequestEditor)
        await wait_for(pilot, lambda: editor.request.examples[1].body == "no such user!")
        assert editor.dirty
        table.focus()
        await pilot.press("down")
        await wait_for(pilot, lambda: body.read_only)  # a file's body is not edited here
        await pilot.press("d")
        await wait_for(pilot, lambda: len(editor.request.examples) == 2)
        await pilot.press("ctrl+s")
        path = tmp_path / "col" / "user.toml"
        await wait_for(pilot, lambda: "avatar" not in path.read_text(encoding="utf-8"))
        saved = request_from_toml(path.read_text(encoding="utf-8"))
        assert [(e.name, e.body) for e in saved.examples] == [
            ("found", '{"id": "{{request.path.id}}", "name": "Ada"}\n'),
            ("missing", "no such user!"),
        ]


async def open_examples(pilot) -> None:
    await open_request(pilot, "user")
    await show_tab(pilot, "tab-examples")
    pilot.app.screen.query_one(CollectionTree).focus()  # no blinking cursor in the picture
    await pilot.pause()
    await pilot.wait_for_scheduled_animations()  # at 80 columns the tab strip scrolls to it
    await pilot.pause()


def test_examples_tab_80x24(snap_compare, tmp_path: Path) -> None:
    assert snap_compare(examples_app(tmp_path), terminal_size=(80, 24), run_before=open_examples)


def test_examples_tab_120x40(snap_compare, tmp_path: Path) -> None:
    assert snap_compare(examples_app(tmp_path), terminal_size=(120, 40), run_before=open_examples)
