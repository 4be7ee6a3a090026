""".http / .rest files -> requests that render what REST Client / the JetBrains client send."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest

from pigeon.importers import ImportFailed, run_import
from pigeon.importers.http_file import parse_http_file
from pigeon.store import load_collection
from render_support import render_written

DATA = Path(__file__).parents[1] / "data" / "http"


@pytest.fixture
def imported(tmp_path: Path) -> tuple[Path, list[str]]:
    into = tmp_path / "col"
    written, notes = run_import("http", str(DATA / "api.http"), into)
    assert all(p.exists() for p in written)
    return into, notes


def test_requests_and_names(imported: tuple[Path, list[str]]) -> None:
    root, _ = imported
    col = load_collection(root)
    assert not col.broken
    assert [r.name for r in col.requests()] == [
        "List customers", "createCustomer", "Login with a form", "Search (multi-line query)",
        "Upload a body from a file", "Order as XML", "Uses another response",
    ]  # fmt: skip
    assert col.variables == {
        "base_url": "https://shop.example.test/api",
        "user": "ada",
        "password": "s3cret",
    }


def test_get_with_query_and_directive(imported: tuple[Path, list[str]]) -> None:
    root, _ = imported
    r = render_written(root, "list-customers")
    assert r.method == "GET"
    assert r.url == "https://shop.example.test/api/customers?page=2&q=Zo%C3%AB"
    assert [n for n, _ in r.headers] == ["Accept", "X-Request-Id"]
    assert len(r.header("x-request-id") or "") == 36
    assert r.settings.follow_redirects is False  # # @no-redirect


def test_json_body_bearer_from_dotenv_and_handler(imported: tuple[Path, list[str]]) -> None:
    root, notes = imported
    (root / ".env").write_text("SHOP_TOKEN=tok\n")
    r = render_written(root, "createcustomer")
    assert r.method == "POST"
    assert r.headers == [("Authorization", "Bearer tok"), ("Content-Type", "application/json")]
    body = json.loads(r.body_text or "")
    assert body["name"] == "Ada Lovelace" and body["created"].endswith("Z")
    assert any("response handler" in n for n in notes)


def test_form_body_and_unencoded_basic_auth(imported: tuple[Path, list[str]]) -> None:
    root, _ = imported
    r = render_written(root, "login-with-a-form")
    assert r.body == b"user=ada&password=a+b%26c"
    assert r.header("content-type") == "application/x-www-form-urlencoded"
    assert r.header("authorization") == "Basic " + base64.b64encode(b"ada:s3cret").decode()


def test_multiline_query_file_body_no_method_and_references(
    imported: tuple[Path, list[str]],
) -> None:
    root, notes = imported
    r = render_written(root, "search-multi-line-query")
    assert r.url == "https://shop.example.test/api/search?q=shoes&size=42"
    r = render_written(root, "upload-a-body-from-a-file")
    assert r.method == "PUT" and r.body is None  # "< FILE": a file body, never read on import
    assert r.body_file is not None and r.body_file.path.name == "note.txt"
    assert r.body_text == "<file " + str(r.body_file.path) + ", 19 bytes, text/plain>"
    assert not any("note.txt" in n for n in notes)
    r = render_written(root, "order-as-xml")
    assert r.method == "GET" and r.body == b'<order id="1001"/>'
    assert r.header("content-type") == "application/xml"
    assert any("createCustomer.response" in n for n in notes)


def test_environments_from_jetbrains_files(imported: tuple[Path, list[str]]) -> None:
    root, notes = imported
    col = load_collection(root)
    assert col.environments["dev"].variables == {
        "base_url": "http://127.0.0.1:8787",
        "page_size": 50,
    }
    assert col.environments["prod"].variables["password"] == "{{$env.PASSWORD}}"
    assert "never-written" not in (root / "environments" / "prod.toml").read_text()
    assert any("PASSWORD=" in n for n in notes)
    r = render_written(root, "list-customers", environment="dev")
    assert r.url.startswith("http://127.0.0.1:8787/customers")


def test_inline_text_without_separators() -> None:
    result = parse_http_file("https://x.test/ping\n")
    [(_, req)] = result.requests
    assert (req.method, req.url) == ("GET", "https://x.test/ping")


def test_bad_header_is_reported_with_line() -> None:
    with pytest.raises(ImportFailed, match="line 3: not a header"):
        parse_http_file("###\nGET https://x.test\nnot a header line\n")


@pytest.mark.parametrize(
    "head",
    ["GRAPHQL https://x.test/gql", "POST https://x.test/gql\nX-REQUEST-TYPE: GraphQL"],
)
def test_graphql_requests_become_graphql_bodies_with_their_variables(
    head: str, tmp_path: Path
) -> None:
    text = (
        f"### Find\n{head}\nAuthorization: Bearer {{{{token}}}}\n\n"
        "query Find($id: ID!) {\n  user(id: $id) {\n    name\n\n    email\n  }\n}\n\n"
        '{\n  "id": "{{uid}}"\n}\n'
    )
    req = parse_http_file(text).requests[0][1]
    assert req.method == "POST"
    assert req.headers == [] and req.auth is not None and req.auth.type == "bearer"
    assert req.body.type == "graphql"
    assert (
        req.body.query
        == "query Find($id: ID!) {\n  user(id: $id) {\n    name\n\n    email\n  }\n}\n"
    )
    assert req.body.variables == '{\n  "id": "{{uid}}"\n}\n'
    (tmp_path / "api.http").write_text(text)
    run_import("http", str(tmp_path / "api.http"), tmp_path / "col")
    rendered = render_written(tmp_path / "col", "find")
    assert json.loads(rendered.body_text or "")["query"].startswith("query Find")


def test_lower_case_methods_graphql_and_websocket() -> None:
    text = (
        "get https://x.test/a\n\n###\ndelete https://x.test/b\n\n"
        "###\nGRAPHQL https://x.test/gql\n\nquery { me { name } }\n\n"
        "###\nWEBSOCKET ws://x.test/live\n\n###\nGET https://x.test/after\n"
    )
    result = parse_http_file(text)
    got = [(r.method, r.url) for _, r in result.requests]
    assert got == [
        ("GET", "https://x.test/a"), ("DELETE", "https://x.test/b"), ("POST", "https://x.test/gql"),
        ("GET", "https://x.test/after"),
    ]  # fmt: skip
    gql = result.requests[2][1]
    assert (gql.body.type, gql.body.query, gql.body.variables) == (
        "graphql", "query { me { name } }\n", "",
    )  # fmt: skip
    assert any("WEBSOCKET" in n for n in result.notes)
    with pytest.raises(ImportFailed, match="not a request line"):
        parse_http_file("fetch something\n")
