"""The GraphQL body in the app: the editor, its check while typing, the schema fetched with
f9 and cached, completion from it, the send refused once for a broken query, the response."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from textual.content import Content
from textual.widgets import Input, Select
from tui_support import main_screen, open_request, running, show_tab, wait_for

from collection_files import write
from graphql_server import GraphQLServer, graphql_server
from pigeon.gql import cache
from pigeon.session import Session
from pigeon.tui.app import PigeonApp
from pigeon.tui.keys import palette_actions
from pigeon.tui.themes import bundled_theme_dirs
from pigeon.tui.widgets.editor.graphql_query_area import GraphQLQueryArea
from pigeon.tui.widgets.editor.placeholder_text_area import PlaceholderTextArea

USER = """\
name = "User"
method = "POST"
url = "{{api}}"

[body]
type = "graphql"
query = '''
query User($id: ID!) {
  user(id: $id) {
    name
  }
}
'''
variables = '''
{"id": "{{uid}}"}
'''
"""

PLAIN = """\
name = "Plain"
method = "GET"
url = "{{api}}"
"""


@pytest.fixture(name="server")
def server_fixture() -> Iterator[GraphQLServer]:
    with graphql_server() as server:
        yield server


@pytest.fixture(name="gql_app")
def gql_app_fixture(tmp_path: Path, server: GraphQLServer) -> PigeonApp:
    root = tmp_path / "g"
    write(root, "collection.toml", f'name = "g"\n[variables]\napi = "{server.url}"\nuid = "1"\n')
    write(root, "user.toml", USER)
    write(root, "plain.toml", PLAIN)
    return PigeonApp(Session.open(root), theme_dirs=bundled_theme_dirs(), remember_theme=False)


def status(app: PigeonApp) -> str:
    """The verdict heading the query's frame."""
    title = main_screen(app).query_one("#graphql-query", GraphQLQueryArea).border_title
    return Content.from_markup(title or "").plain.removeprefix("Query").strip()


async def open_graphql(pilot, request_id: str = "user") -> GraphQLQueryArea:
    await open_request(pilot, request_id)
    screen = await show_tab(pilot, "tab-body")
    area = screen.query_one("#graphql-query", GraphQLQueryArea)
    await wait_for(pilot, lambda: area.display and status(pilot.app) != "")
    return area


async def test_the_editor_checks_fetches_completes_refuses_and_sends(
    gql_app: PigeonApp, server: GraphQLServer
) -> None:
    async with running(gql_app) as pilot:
        area = await open_graphql(pilot)
        screen = main_screen(gql_app)
        assert area.text.startswith("query User($id: ID!)")
        assert (
            screen.query_one("#graphql-variables", PlaceholderTextArea).text
            == '{"id": "{{uid}}"}\n'
        )
        assert "no schema cached for this URL" in status(gql_app)

        # A syntax error shows while typing, with its line and column, before any schema.
        area.focus()
        area.move_cursor((2, 8))  # after "name"
        await pilot.press(*" $")
        await wait_for(pilot, lambda: status(gql_app) == "⚠ 3:10 Expected Name, found '$'.")
        await pilot.press("backspace", "backspace")
        await wait_for(pilot, lambda: status(gql_app).startswith("✓ syntax"))

        # f9 fetches the schema from the request's URL and caches it in the collection.
        await pilot.press("f9")
        await wait_for(pilot, lambda: status(gql_app).startswith("✓ valid for the cached schema"))
        root = gql_app.session.collection.root
        assert cache.cache_path(root, server.url).is_file()
        assert json.loads(server.requests[-1]["body"])["operationName"] == "IntrospectionQuery"

        # Completion: the fields of User at the cursor; tab takes the first.
        area.move_cursor((2, 8))  # after "name"
        await pilot.press("enter", *"em")
        await wait_for(pilot, lambda: area.completion == "ail")
        assert "tab → email: String" in str(area.border_subtitle)
        await pilot.press("tab")
        await wait_for(pilot, lambda: "    name\nemail\n" in area.text)
        assert gql_app.session.collection.find("user")[1].body.query != area.text  # unsaved edit
        await wait_for(pilot, lambda: status(gql_app).startswith("✓ valid"))

        # A field the schema lacks: shown, and the send refused once with that line.
        await pilot.press("enter", *"nickname")
        await wait_for(
            pilot, lambda: "Cannot query field 'nickname' on type 'User'" in status(gql_app)
        )
        assert status(gql_app).startswith("⚠ 5:")
        sent = len(server.requests)
        await pilot.press("ctrl+r")
        pane = screen.response_pane
        await wait_for(
            pilot,
            lambda: pane is not None and "Not sent: GraphQL query 5:" in pane.status_line.plain,
        )
        assert "send again to send it anyway" in pane.status_line.plain
        assert pane.status_line.plain.startswith("✖ Not sent: GraphQL query 5:")
        assert len(server.requests) == sent
        await pilot.press("ctrl+r")  # the same query again: sent anyway, the server says why
        await wait_for(pilot, lambda: screen.last_exchange is not None)
        answer = screen.last_exchange.json()
        assert "nickname" in answer["errors"][0]["message"]

        # Fixed: sent at once, and the response is the server's data.
        await pilot.press("backspace", *("backspace",) * len("nickname"))
        await wait_for(pilot, lambda: status(gql_app).startswith("✓ valid"))
        await pilot.press("ctrl+r")
        await wait_for(
            pilot,
            lambda: (
                screen.last_exchange is not None
                and "data" in screen.last_exchange.json()
                and screen.last_exchange.json()["data"] is not None
            ),
        )
        assert screen.last_exchange.json() == {
            "data": {"user": {"name": "Ada", "email": "ada@example.test"}}
        }
        body = json.loads(server.requests[-1]["body"])
        assert body["variables"] == {"id": "1"} and "email" in body["query"]


async def test_choosing_graphql_for_a_get_makes_it_a_post(gql_app: PigeonApp) -> None:
    async with running(gql_app) as pilot:
        request = await open_request(pilot, "plain")
        screen = await show_tab(pilot, "tab-body")
        screen.query_one("#body-type", Select).value = "graphql"
        await wait_for(pilot, lambda: request.method == "POST")
        assert screen.query_one("#method", Select).value == "POST"
        area = screen.query_one("#graphql-query", GraphQLQueryArea)
        await wait_for(pilot, lambda: area.display)
        screen.query_one("#graphql-operation", Input).value = "Op"
        area.load_text("query Op { users { id } }")
        await wait_for(pilot, lambda: request.body.query == "query Op { users { id } }")
        assert (request.body.type, request.body.operation_name) == ("graphql", "Op")
        variables = screen.query_one("#graphql-variables", PlaceholderTextArea)
        variables.load_text('{"a":[1,2]}')
        variables.focus()
        await pilot.press("f8")  # formats the variables, the JSON of a GraphQL body
        await wait_for(
            pilot, lambda: request.body.variables == '{\n  "a": [\n    1,\n    2\n  ]\n}\n'
        )


async def test_the_palette_offers_the_schema_fetch(gql_app: PigeonApp) -> None:
    async with running(gql_app) as pilot:
        area = await open_graphql(pilot)
        area.focus()
        await pilot.pause()
        titles = [
            a.title for a in palette_actions(area.ancestors_with_self, gql_app.help_groups(), {})
        ]
        assert (
            "GraphQL body: Fetch the GraphQL schema (introspection of the request's URL, cached)"
            in titles
        )


async def test_a_fetch_that_fails_says_why_in_one_line(
    gql_app: PigeonApp, server: GraphQLServer
) -> None:
    async with running(gql_app) as pilot:
        area = await open_graphql(pilot)
        main_screen(gql_app).query_one("#url", Input).value = "http://127.0.0.1:9/graphql"
        area.focus()
        await pilot.press("f9")
        await wait_for(pilot, lambda: status(gql_app).startswith("⚠ No schema:"))
        assert "\n" not in status(gql_app)
        assert not any(r["path"] == "/graphql" for r in server.requests)


async def test_a_schema_arriving_offers_at_the_cursor_already_placed(gql_app: PigeonApp) -> None:
    async with running(gql_app) as pilot:
        area = await open_graphql(pilot)
        area.focus()
        area.move_cursor((2, 8))  # after "name"
        await pilot.press("enter", *"em")
        await wait_for(pilot, lambda: status(gql_app).startswith("✓ syntax"))  # no schema yet
        assert area.completion == ""
        await pilot.press("f9")  # the cursor stays after "em": the offer comes with the schema
        await wait_for(pilot, lambda: area.completion == "ail")
        assert "tab → email: String" in str(area.border_subtitle)
