"""GraphQL bodies (DESIGN §7): the file's keys, the JSON POST they send, introspection and
its cache, checking a query and completing it at a cursor, on the command line too."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from collection_files import write
from graphql_server import SCHEMA, graphql_server
from pigeon.cli import main
from pigeon.gql import cache
from pigeon.gql.cache import SchemaError, endpoint_of
from pigeon.gql.document import check, complete
from pigeon.gql.introspect import fetch_schema
from pigeon.model import Body, Request
from pigeon.pipeline import RunContext
from pigeon.store import load_collection, save_request
from render_support import render_alone, render_written

QUERY = "query User($id: ID!) {\n  user(id: $id) { name email }\n}\n"

REQUEST = """\
# a GraphQL request written by hand
name = "User"
method = "POST"
url = "{{base}}"

[body]
type = "graphql"   # the standard JSON POST
query = '''
query User($id: ID!) {
  user(id: $id) { name email }
}
'''
variables = '''
{"id": {{uid}}, "note": "{{note}}"}
'''
operation_name = "User"
x-kept = "unknown keys stay"
"""


def collection(root: Path, url: str, request: str = REQUEST) -> Path:
    write(
        root,
        "collection.toml",
        f'name = "g"\n[variables]\nbase = "{url}"\nuid = 1\nnote = "a \\"q\\""\n',
    )
    write(root, "user.toml", request)
    return root


# -- the file and the body sent ---------------------------------------------------------------


def test_the_file_reads_and_an_unchanged_save_is_byte_identical(tmp_path: Path) -> None:
    root = collection(tmp_path, "http://127.0.0.1:9/graphql")
    col = load_collection(root)
    _, req = col.find("user")
    assert req.body.type == "graphql"
    assert req.body.query == QUERY
    assert req.body.variables == '{"id": {{uid}}, "note": "{{note}}"}\n'
    assert req.body.operation_name == "User"
    assert req.body.extra == {"x-kept": "unknown keys stay"}
    before = (root / "user.toml").read_bytes()
    save_request(req)
    assert (root / "user.toml").read_bytes() == before
    req.body.query = QUERY.replace("email", "email posts { title }")
    save_request(req)
    after = (root / "user.toml").read_text()
    assert "# a GraphQL request written by hand" in after
    assert 'type = "graphql"   # the standard JSON POST' in after
    assert "user(id: $id) { name email posts { title } }" in after
    assert load_collection(root).find("user")[1].body.variables == req.body.variables


def test_a_new_file_writes_the_query_and_variables_as_blocks(tmp_path: Path) -> None:
    req = Request(name="New", method="POST", url="http://x/graphql", path=tmp_path / "new.toml")
    req.body = Body(type="graphql", query="{ users { id } }\n", variables='{"a": 1}\n')
    save_request(req)
    text = (tmp_path / "new.toml").read_text()
    assert "query = '''\n{ users { id } }\n'''" in text
    assert "variables = '''\n{\"a\": 1}\n'''" in text
    assert "operation_name" not in text


def test_render_sends_the_standard_json_post(tmp_path: Path) -> None:
    root = collection(tmp_path, "http://127.0.0.1:9/graphql")
    rendered = render_written(root, "user")
    assert rendered.method == "POST"
    assert ("Content-Type", "application/json") in rendered.headers
    payload = json.loads(rendered.body_text)
    assert payload == {
        "query": QUERY,
        "variables": {"id": 1, "note": 'a "q"'},  # a value place and a string place (§5)
        "operationName": "User",
    }
    assert rendered.warnings == []


def test_the_query_is_a_text_place_and_blank_parts_are_left_out(tmp_path: Path) -> None:
    req = Request(name="r", method="POST", url="http://127.0.0.1:9/")
    req.variables = {"field": 'na"me'}
    req.body = Body(type="graphql", query="{ {{field}} }")
    rendered = render_alone(req, tmp_path)
    assert json.loads(rendered.body_text) == {"query": '{ na"me }'}


def test_variables_that_do_not_parse_warn_and_go_as_rendered(tmp_path: Path) -> None:
    req = Request(name="r", method="POST", url="http://127.0.0.1:9/")
    req.body = Body(type="graphql", query="{ a }", variables='{"id": 1,}')
    rendered = render_alone(req, tmp_path)
    assert rendered.body_text == '{"query": "{ a }", "variables": {"id": 1,}}'
    assert rendered.warnings == [
        "GraphQL variables are not valid JSON after rendering: Expecting property name enclosed "
        "in double quotes (line 1, column 10); it is sent as rendered"
    ]
    req.body.variables = "[1]"
    assert "must be a JSON object" in render_alone(req, tmp_path).warnings[0]


def test_a_get_sends_the_parts_as_query_parameters(tmp_path: Path) -> None:
    req = Request(name="r", method="GET", url="http://127.0.0.1:9/graphql?x=1")
    req.body = Body(type="graphql", query="{ a }", variables='{"n": 2}', operation_name="Op")
    rendered = render_alone(req, tmp_path)
    assert rendered.body is None
    assert rendered.url == (
        "http://127.0.0.1:9/graphql?x=1&query=%7B%20a%20%7D&variables=%7B%22n%22%3A%202%7D"
        "&operationName=Op"
    )


def test_pigeon_run_sends_it_and_the_server_answers(tmp_path: Path, capsys) -> None:
    with graphql_server() as server:
        root = collection(tmp_path, server.url)
        code = main(["run", str(root), "--report", f"json:{tmp_path / 'r.json'}"])
        assert code == 0, capsys.readouterr()
        sent = server.requests[0]
    assert sent["headers"]["Content-Type"] == "application/json"
    assert json.loads(sent["body"])["variables"] == {"id": 1, "note": 'a "q"'}
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["totals"]["passed"] == 1


def test_export_curl_shows_the_json_post(tmp_path: Path, capsys) -> None:
    root = collection(tmp_path, "http://127.0.0.1:9/graphql")
    assert main(["export", "curl", str(root), "user"]) == 0
    out = capsys.readouterr().out
    assert "application/json" in out
    assert '\\"operationName\\": \\"User\\"' in out or '"operationName": "User"' in out


# -- checking and completing --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("query", "problem"),
    [
        ("{ user(id: 1) { name } }", None),
        ("{ user(id: 1) { name }", "1:23 Expected Name, found <EOF>."),
        (
            "{ user(id: 1) { nme } }",
            "1:17 Cannot query field 'nme' on type 'User'. Did you mean 'name'?",
        ),
        (
            "{ user { name } }",
            "1:3 Argument 'Query.user(id:)' of type 'ID!' is required, but it was not provided.",
        ),
        ("", "1:1 Unexpected <EOF>."),
    ],
)
def test_check_says_what_and_where_in_one_line(query: str, problem: str | None) -> None:
    assert check(query, SCHEMA) == problem


def test_without_a_schema_only_the_syntax_is_checked() -> None:
    assert check("{ nothing { here } }", None) is None
    assert check("{ nothing {", None) == "1:12 Expected Name, found <EOF>."


def test_a_hostile_query_is_one_line_not_a_hang() -> None:
    for query in ("{" * 200_000, "{ a " * 100_000 + "}" * 100_000, "{ a(x: " + "[" * 50_000):
        problem = check(query, SCHEMA)
        assert problem is not None and "\n" not in problem and len(problem) < 400


@pytest.mark.parametrize(
    ("before", "names"),
    [
        ("{ ", ["user", "users", "echo", "__typename"]),
        ("{ us", ["user", "users"]),
        ("query Q($id: ID!) {\n  user(id: $id) {\n    n", ["name"]),
        ("{ user(id: 1) { posts { t", ["title"]),
        ("{ user(", ["id"]),
        ("{ user(id: 1) { posts(", ["first"]),
        ("mutation { rename(id: 1, ", ["name"]),
        ("{ user(id: 1) { ... on ", ["Mutation", "Post", "Query", "User"]),
        ('{ user(id: "', None),  # in a string
        ("{ user(id: ", None),  # a value
        ("# { ", None),  # a comment
        ("", None),
    ],
)
def test_completion_offers_what_is_valid_at_the_cursor(
    before: str, names: list[str] | None
) -> None:
    found = complete(before, SCHEMA)
    assert (found and [c.name for c in found.candidates]) == names or (
        found is None and names is None
    )


def test_a_completion_says_the_type_and_an_argument_inserts_its_colon() -> None:
    found = complete("{ us", SCHEMA)
    assert found is not None and found.partial == "us"
    assert (found.candidates[0].name, found.candidates[0].detail) == ("user", "(id: ID!): User")
    arg = complete("{ user(", SCHEMA)
    assert arg is not None and arg.candidates[0].insert == "id: "


def test_a_huge_type_is_filtered_before_it_is_described() -> None:
    """The type is ``type Query { f0(a: Int, b: [String!]): String ... }``, built as objects:
    parsed from that text, it takes graphql-core seconds."""
    from graphql import (
        GraphQLArgument,
        GraphQLField,
        GraphQLInt,
        GraphQLList,
        GraphQLNonNull,
        GraphQLObjectType,
        GraphQLSchema,
        GraphQLString,
    )

    args = {
        "a": GraphQLArgument(GraphQLInt),
        "b": GraphQLArgument(GraphQLList(GraphQLNonNull(GraphQLString))),
    }
    fields = {f"f{i}": GraphQLField(GraphQLString, args=args) for i in range(20_000)}
    schema = GraphQLSchema(GraphQLObjectType("Query", fields))
    found = complete("{ f1999", schema)
    assert found is not None and [c.name for c in found.candidates] == [
        "f19990",
        *(f"f1999{i}" for i in range(1, 10)),
    ]
    assert len(complete("{ ", schema).candidates) == 50  # the limit, out of 20,001


# -- introspection and its cache -------------------------------------------------------------


def _fetch(root: Path, request_id: str = "user", trusted: bool = True):
    col = load_collection(root)
    chain, req = col.find(request_id)
    ctx = RunContext(col, trusted=trusted, allow_scripts=False)

    async def go():
        try:
            return await fetch_schema(ctx, chain, req)
        finally:
            await ctx.aclose()

    return asyncio.run(go())


def test_introspection_caches_the_schema_per_endpoint(tmp_path: Path) -> None:
    request = REQUEST.replace("[body]", '[[headers]]\nname = "X-Token"\nvalue = "t1"\n\n[body]')
    with graphql_server() as server:
        root = collection(tmp_path, server.url + "?key=secret", request)
        fetched = _fetch(root)
        sent = server.requests[0]
    assert sent["method"] == "POST" and sent["headers"]["X-Token"] == "t1"  # its own headers
    assert json.loads(sent["body"])["operationName"] == "IntrospectionQuery"
    assert fetched.endpoint == server.url  # the query string is not part of the key
    assert fetched.path.parent == root / ".pigeon" / "graphql"
    assert "types, cached" in fetched.summary()
    schema = cache.load(root, server.url)
    assert schema is not None and check("{ user(id: 1) { nme } }", schema).startswith("1:17")
    assert cache.load(root, "http://127.0.0.1:9/other") is None


def test_a_refused_introspection_is_one_line(tmp_path: Path) -> None:
    with graphql_server() as server:
        root = collection(tmp_path, server.url.replace("/graphql", "/huge"))
        with pytest.raises(SchemaError, match=r"larger than 32 MB"):
            _fetch(root)
    root2 = collection(tmp_path / "b", "http://127.0.0.1:9/graphql")
    with pytest.raises(SchemaError) as refused:
        _fetch(root2)
    assert "\n" not in str(refused.value) and "127.0.0.1:9" in str(refused.value)


def test_an_answer_without_a_schema_says_so() -> None:
    with pytest.raises(SchemaError, match="refused introspection: disabled"):
        cache.introspection_data({"errors": [{"message": "disabled"}]})
    with pytest.raises(SchemaError, match="no data.__schema"):
        cache.introspection_data({"data": {"x": 1}})
    with pytest.raises(SchemaError, match="does not build"):
        cache.build({"__schema": {"types": "nope"}})


@pytest.mark.parametrize(
    "content",
    [
        "not json",
        "[" * 100_000,
        json.dumps({"endpoint": "http://h/graphql", "data": {"__schema": {"types": 5}}}),
        json.dumps({"endpoint": "http://other/graphql", "data": {}}),
    ],
)
def test_a_hostile_cache_file_counts_as_none(tmp_path: Path, content: str) -> None:
    path = cache.cache_path(tmp_path, "http://h/graphql", create=True)
    path.write_text(content)
    assert cache.load(tmp_path, "http://h/graphql") is None


def test_a_cache_folder_that_links_out_is_not_written(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (tmp_path / "col").mkdir()
    os.symlink(outside, tmp_path / "col" / ".pigeon")
    with pytest.raises(SchemaError, match="could not be cached"):
        cache.save(tmp_path / "col", "http://h/graphql", {"__schema": {}})
    assert list(outside.iterdir()) == []


def test_endpoint_keeps_scheme_host_and_path() -> None:
    assert endpoint_of("HTTP://Example.TEST/api/graphql?x=1#f") == "http://example.test/api/graphql"


def test_the_cli_fetches_and_prints_the_schema(tmp_path: Path, capsys) -> None:
    with graphql_server() as server:
        root = collection(tmp_path, server.url)
        assert main(["graphql-schema", str(root), "user"]) == 0
        assert "types, cached in" in capsys.readouterr().out
        assert main(["graphql-schema", str(root), "user", "--sdl"]) == 0
        assert "type User {" in capsys.readouterr().out
    assert main(["graphql-schema", str(root), "user"]) == 1
    err = capsys.readouterr().err
    failure = [line for line in err.splitlines() if "unknown key `body.x-kept`" not in line]
    assert "user: no schema:" in err and len(failure) == 1


def test_graphql_core_is_not_imported_by_the_app_or_a_plain_send() -> None:
    """The first screen and the plain HTTP path never pay for graphql-core."""
    code = (
        "import sys\n"
        "import pigeon.tui.app, pigeon.tui.screens.main, pigeon.tui.widgets.editor.editor_body\n"
        "import pigeon.tui.widgets.editor.body_editor, pigeon.pipeline, pigeon.send, pigeon.cli\n"
        "import pigeon.importers.http_file, pigeon.importers.postman, pigeon.check\n"
        "print(sorted(m for m in sys.modules if m == 'graphql' or m.startswith('graphql.')))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    ).stdout
    assert out.strip() == "[]"
