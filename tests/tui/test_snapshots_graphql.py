"""SVG snapshots of the GraphQL body editor (80x24 and 120x40): a query checked against a
cached schema, its error line, and a field completion offered at the cursor. The URL has no
server behind it: the schema is cached beforehand, so no port reaches the picture."""

from __future__ import annotations

from pathlib import Path

import pytest
from graphql import get_introspection_query, graphql_sync
from tui_support import wait_for

from collection_files import write
from graphql_server import SCHEMA
from pigeon.gql import cache
from pigeon.model import Request
from pigeon.session import Session
from pigeon.tui.app import PigeonApp
from pigeon.tui.themes import bundled_theme_dirs
from pigeon.tui.widgets.collection.collection_tree import CollectionTree
from pigeon.tui.widgets.editor.graphql_query_area import GraphQLQueryArea

URL = "http://127.0.0.1:9/graphql"

USER = """\
name = "User"
method = "POST"
url = "http://127.0.0.1:9/graphql"

[body]
type = "graphql"
operation_name = "User"
query = '''
query User($id: ID!) {
  user(id: $id) {
    name
    nickname
    em
  }
}
'''
variables = '''
{"id": "{{uid}}"}
'''
"""


@pytest.fixture(autouse=True)
def _private_config(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))


def graphql_app(tmp_path: Path) -> PigeonApp:
    root = tmp_path / "api"
    write(root, "collection.toml", 'name = "API"\n[variables]\nuid = "1"\n')
    write(root, "user.toml", USER)
    introspection = graphql_sync(SCHEMA, get_introspection_query())
    cache.save(root, URL, introspection.data)
    return PigeonApp(Session.open(root), theme_dirs=bundled_theme_dirs(), remember_theme=False)


def query_areas(screen) -> list[GraphQLQueryArea]:
    return list(screen.query("#graphql-query").results(GraphQLQueryArea))


async def open_the_query(pilot) -> None:
    screen = pilot.app.screen
    tree = screen.query_one(CollectionTree)
    node = next(n for n in tree._all_nodes() if isinstance(n.data, Request))
    tree.move_cursor(node)
    await pilot.pause()
    tree.post_message(CollectionTree.RequestChosen(node.data))
    await pilot.pause()
    screen.query_one("#editor-tabs").active = "tab-body"
    # The body tab is built when first opened, then shows the request: a cursor moved before
    # the query is loaded goes back to its start, and one moved before the editor is laid out
    # scrolls it for a height it then no longer has.
    await wait_for(pilot, lambda: any("nickname" in a.text for a in query_areas(screen)))
    await pilot.pause()
    area = screen.query_one("#graphql-query", GraphQLQueryArea)
    area.cursor_blink = False
    area.focus()
    area.move_cursor((4, 6))  # after "em"
    # The check runs in a thread once typing pauses; its schema offers a field at the cursor.
    await wait_for(pilot, lambda: area.completion and "nickname" in str(area.border_title))
    await pilot.pause()


def test_graphql_editor_80x24(snap_compare, tmp_path) -> None:
    assert snap_compare(graphql_app(tmp_path), terminal_size=(80, 24), run_before=open_the_query)


def test_graphql_editor_120x40(snap_compare, tmp_path) -> None:
    assert snap_compare(graphql_app(tmp_path), terminal_size=(120, 40), run_before=open_the_query)
