"""Postman collection v2.1 and environment exports -> a collection on disk that renders the
requests Postman would send."""

from __future__ import annotations

import base64
import contextlib
import json
import shutil
from pathlib import Path

import pytest

from pigeon.importers import ImportFailed, run_import
from pigeon.importers.postman import parse_postman
from pigeon.store import load_collection
from render_support import render_written

DATA = Path(__file__).parents[1] / "data" / "postman"
COLLECTION = DATA / "shop.postman_collection.json"
ENVIRONMENT = DATA / "staging.postman_environment.json"


@pytest.fixture
def shop(tmp_path: Path) -> tuple[Path, list[str]]:
    into = tmp_path / "shop"
    _, notes = run_import("postman", str(COLLECTION), into)
    _, env_notes = run_import("postman", str(ENVIRONMENT), into)
    shutil.copy(DATA / "invoice.txt", into / "invoice.txt")
    return into, notes + env_notes


def test_structure_and_order(shop: tuple[Path, list[str]]) -> None:
    root, _ = shop
    col = load_collection(root)
    assert not col.broken
    assert col.name == "Shop API"
    assert [i.name for i in col.items] == ["Auth", "Customers", "Orders"]
    customers = col.items[1]
    assert [r.name for r in customers.items] == [  # type: ignore[union-attr]
        "Get customer", "Search customers (query key)", "Create customer (form)",
    ]  # fmt: skip
    assert col.variables == {
        "base_url": "https://shop.example.test/api", "username": "ada", "password": "", "token": "",
    }  # fmt: skip
    assert col.auth is not None and col.auth.type == "bearer" and col.auth.token == "{{token}}"


def test_login_json_body_no_auth(shop: tuple[Path, list[str]]) -> None:
    root, notes = shop
    r = render_written(root, "auth/login")
    assert r.method == "POST" and r.url == "https://shop.example.test/api/auth/login"
    assert r.headers == [("Content-Type", "application/json")]  # noauth: no Authorization
    assert json.loads(r.body_text or "") == {"username": "ada", "password": ""}
    assert any("Auth/Login: Postman test script (2 lines" in n for n in notes)
    req = load_collection(root).find("auth/login")[1]  # type: ignore[index]
    assert "pm.collectionVariables.set" in req.description


def test_folder_api_key_path_variable_query_and_disabled_header(
    shop: tuple[Path, list[str]],
) -> None:
    root, _ = shop
    r = render_written(root, "customers/get-customer")
    assert r.url == "https://shop.example.test/api/customers/42?expand=orders&fields=id%2Cname"
    names = [n for n, _ in r.headers]
    assert names == ["Accept", "X-Request-Id", "X-Api-Key"]  # X-Debug is disabled
    assert dict(r.headers)["X-Api-Key"] == "{{api_key}}"  # unresolved without the environment
    assert len(dict(r.headers)["X-Request-Id"]) == 36  # $guid -> a fresh UUID
    req = load_collection(root).find("customers/get-customer")[1]  # type: ignore[index]
    assert [(h.name, h.enabled) for h in req.headers][1] == ("X-Debug", False)
    assert [(q.name, q.enabled) for q in req.query][2] == ("draft", False)


def test_environment_and_secret(shop: tuple[Path, list[str]]) -> None:
    root, notes = shop
    env_text = (root / "environments" / "staging.toml").read_text()
    assert "sk-live-should-not-be-written" not in env_text
    assert "{{$env.API_KEY}}" in env_text and "old_host" not in env_text
    assert any("API_KEY=" in n and ".env" in n for n in notes)
    (root / ".env").write_text("API_KEY=sk-from-dotenv\n")
    r = render_written(root, "customers/search-customers-query-key", environment="staging")
    assert r.url.startswith("https://staging.shop.example.test/api/customers?q=Zo%C3%AB&t=")
    assert r.url.endswith("&api_key=sk-from-dotenv")
    assert r.unresolved == []


def test_urlencoded_multipart_xml_text_graphql(shop: tuple[Path, list[str]]) -> None:
    root, notes = shop
    r = render_written(root, "customers/create-customer-form")
    assert r.body == b"name=Ada+Lovelace&email=ada%40example.com"
    assert r.header("content-type") == "application/x-www-form-urlencoded"

    r = render_written(root, "orders/upload-invoice")
    assert r.header("authorization") == "Basic " + base64.b64encode(b"ada:").decode()
    body = r.body or b""
    assert b'name="order"\r\n\r\n1001' in body
    assert b'name="meta"\r\nContent-Type: application/json\r\n\r\n{"paid": true}' in body
    assert b'filename="invoice.txt"' in body and b"invoice 1001: 3 items" in body
    assert b"skip me" not in body

    r = render_written(root, "orders/order-as-xml")
    assert r.method == "PUT" and r.header("content-type") == "application/xml"
    assert r.body == b'<order id="1001"><state>shipped</state></order>'

    r = render_written(root, "orders/note-plain-text")
    assert r.header("content-type") == "text/plain"
    assert r.body_text == "Leave at the door, {{$randomFirstName}}."
    assert any("{{$randomFirstName}}" in n for n in notes)

    r = render_written(root, "orders/graph")
    assert json.loads(r.body_text or "") == {
        "query": "query { order(id: 1001) { state } }",
        "variables": {"x": 1},
    }
    graph = load_collection(root).find("orders/graph")[1]  # type: ignore[index]
    assert (graph.body.type, graph.body.variables) == ("graphql", '{"x": 1}')

    r = render_written(root, "orders/signed-aws")
    assert r.header("authorization") is None  # signed as it is sent
    assert r.flow_auth is not None and r.flow_auth.region == "eu-west-1"
    req = load_collection(root).find("orders/signed-aws")[1]  # type: ignore[index]
    assert req.auth.secret_key == "{{$env.AWS_SECRET_ACCESS_KEY}}"
    assert any("$env.AWS_SECRET_ACCESS_KEY: put it in .env" in n for n in notes)


def test_graphql_variables_with_placeholders_stay_a_template(tmp_path: Path) -> None:
    item = {
        "name": "Q",
        "request": {
            "method": "POST",
            "url": "https://x.test/graphql",
            "body": {
                "mode": "graphql",
                "graphql": {
                    "query": "query ($id: ID!) { a(id: $id) }",
                    "variables": '{"id": {{id}}}',
                },
            },
        },
    }
    doc = {"info": {"name": "g"}, "item": [item]}
    source = tmp_path / "g.json"
    source.write_text(json.dumps(doc))
    run_import("postman", str(source), tmp_path / "col")
    body = load_collection(tmp_path / "col").find("q")[1].body  # type: ignore[index]
    assert (body.type, body.query, body.variables) == (
        "graphql", "query ($id: ID!) { a(id: $id) }", '{"id": {{id}}}',
    )  # fmt: skip


def test_not_postman() -> None:
    with pytest.raises(ImportFailed, match="not JSON"):
        parse_postman("{nope")
    with pytest.raises(ImportFailed, match='no "item" list'):
        parse_postman('{"info": {}}')


def test_v20_auth_objects_and_string_urls() -> None:
    data = {
        "info": {"name": "old"},
        "item": [{
            "name": "x",
            "request": {
                "url": "https://x.test/a/:id?b=1",
                "method": "get",
                "auth": {"type": "basic", "basic": {"username": "u", "password": "p"}},
            },
        }],
    }  # fmt: skip
    result = parse_postman(json.dumps(data))
    req = result.requests[0][1]
    assert req.method == "GET" and req.url == "https://x.test/a/{{id}}"
    assert [(q.name, q.value) for q in req.query] == [("b", "1")]
    assert req.auth is not None and (req.auth.username, req.auth.password) == ("u", "p")
    assert any(":id has no value" in n for n in result.notes)


def test_variable_names_pigeon_refuses_are_renamed_with_their_placeholders(tmp_path: Path) -> None:
    data = {
        "info": {"name": "odd"},
        "variable": [{"key": "base url", "value": "https://x.test"}, {"key": "n", "value": None}],
        "item": [{"name": "a", "request": {"method": "GET", "url": "{{ base url }}/a",
                  "header": [{"key": "X", "value": "{{base url}}"}]}}],
    }  # fmt: skip
    src = tmp_path / "odd.json"
    src.write_text(json.dumps(data))
    _, notes = run_import("postman", str(src), tmp_path / "col")
    assert any("'base url' renamed to 'base_url'" in n for n in notes)
    r = render_written(tmp_path / "col", "a")
    assert r.url == "https://x.test/a" and r.headers == [("X", "https://x.test")]
    assert load_collection(tmp_path / "col").variables == {"base_url": "https://x.test", "n": ""}


def _paths(node: object, prefix: tuple = ()) -> list[tuple]:
    out = [prefix]
    if isinstance(node, dict):
        for k, v in node.items():
            out += _paths(v, (*prefix, k))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            out += _paths(v, (*prefix, i))
    return out


def mutate(doc: object, seed: int, rounds: int) -> list[object]:
    """Copies of ``doc`` with one to three values replaced by values of the wrong type."""
    import copy
    import random

    rnd = random.Random(seed)
    junk: list[object] = [None, 1, 2.5, True, "x", [], {}, [1], {"a": None}, "{{x}}"]
    paths = [p for p in _paths(doc) if p]
    out = []
    for _ in range(rounds):
        d = copy.deepcopy(doc)
        for _ in range(rnd.randint(1, 3)):
            p = rnd.choice(paths)
            node = d
            try:
                for k in p[:-1]:
                    node = node[k]  # type: ignore[index]
                node[p[-1]] = rnd.choice(junk)  # type: ignore[index]
            except (KeyError, IndexError, TypeError):
                pass
        out.append(d)
    return out


def test_malformed_collections_are_skipped_or_refused_never_crash() -> None:
    from pigeon.importers import sanitize

    doc = json.loads(COLLECTION.read_text())
    for variant in mutate(doc, seed=1, rounds=400):
        with contextlib.suppress(ImportFailed):
            sanitize(parse_postman(json.dumps(variant)))


def test_oauth2_becomes_bearer_with_the_saved_token() -> None:
    data = {"info": {"name": "o"}, "item": [
        {"name": "a", "request": {"url": "https://x.test", "auth": {"type": "oauth2", "oauth2": [
            {"key": "accessToken", "value": "at-1"}, {"key": "tokenType", "value": "Bearer"}]}}},
        {"name": "b", "request": {"url": "https://x.test", "auth": {"type": "oauth2", "oauth2": []}}},
    ]}  # fmt: skip
    result = parse_postman(json.dumps(data))
    tokens = [r.auth.token for _, r in result.requests if r.auth]
    assert tokens == ["at-1", "{{access_token}}"]
    assert any("OAuth 2.0" in n for n in result.notes)


def test_query_text_is_decoded_as_the_server_reads_it(tmp_path: Path) -> None:
    data = {"info": {"name": "q"}, "item": [{"name": "a", "request": {"method": "GET", "url": {
        "raw": "https://x.test/s?q=a+b&r=50%25&t={{t}}",
        "query": [{"key": "q", "value": "a+b"}, {"key": "r", "value": "50%25"}, {"key": "t", "value": "{{t}}"}],
    }}}]}  # fmt: skip
    req = parse_postman(json.dumps(data)).requests[0][1]
    assert [(q.name, q.value) for q in req.query] == [("q", "a b"), ("r", "50%"), ("t", "{{t}}")]


def test_nested_folder_variables_auth_and_protocol_behavior(shop: tuple[Path, list[str]]) -> None:
    root, notes = shop
    col = load_collection(root)
    orders = col.find_folder("orders")
    assert orders is not None and orders.items[-1].name == "Admin"
    admin = col.find_folder("orders/admin")
    assert admin is not None
    assert [i.name for i in admin.items] == ["Purge cancelled", "Export report", "Archive"]
    assert admin.variables == {"scope": "orders:admin", "admin_token": "adm-7f3e"}
    assert "- admin_token: Issued by the back office" in admin.extra["description"]
    assert col.find_folder("orders/admin/archive") is not None  # empty in Postman, still there

    # {{scope}} and the folder's bearer auth come from Orders/Admin; Postman's folder-level
    # protocolProfileBehavior (no redirects, no TLS check) reaches both of its requests.
    r = render_written(root, "orders/admin/purge-cancelled")
    assert r.method == "DELETE"
    assert r.url == "https://shop.example.test/api/orders?state=cancelled&scope=orders%3Aadmin"
    assert r.headers == [("X-Scope", "orders:admin"), ("Authorization", "Bearer adm-7f3e")]
    assert r.unresolved == []
    assert (r.settings.follow_redirects, r.settings.verify_tls) == (False, False)
    req = col.find("orders/admin/purge-cancelled")[1]  # type: ignore[index]
    assert "- query scope: Limits the purge to one scope." in req.description
    assert "- header X-Scope: Checked against the token's scopes." in req.description

    r = render_written(root, "orders/admin/export-report")  # its own strictSSL: true wins
    assert (r.settings.follow_redirects, r.settings.verify_tls) == (False, True)
    assert r.method == "GET" and r.header("authorization") == "Bearer adm-7f3e"
    assert json.loads(r.body_text or "") == {"from": "2024-01-01", "scope": "orders:admin"}

    r = render_written(root, "orders/graph")  # outside the folder: Postman's defaults
    assert (r.settings.follow_redirects, r.settings.verify_tls) == (True, True)

    for expected in (
        "folder Orders/Admin: variable legacy_scope is disabled; not carried over",
        "folder Orders/Admin: Postman setting disableCookies = true is not carried over",
        "Orders/Admin/Purge cancelled: 2 saved example responses not imported",
        "Orders/Admin/Export report: Postman setting maxRedirects = 3 is not carried over",
    ):
        assert any(n.startswith(expected) for n in notes), (expected, notes)
    assert not any("disableBodyPruning" in n or "strictSSL" in n for n in notes)


def _one(item: dict, **collection: object) -> tuple[list[tuple[str, object]], list[str]]:
    data = {"info": {"name": "c"}, "item": [item], **collection}
    result = parse_postman(json.dumps(data))
    return result.requests, result.notes  # type: ignore[return-value]


def test_collection_behavior_reaches_every_request_and_defaults_say_nothing() -> None:
    data = {
        "info": {"name": "c"},
        "protocolProfileBehavior": {
            "followRedirects": False,
            "removeRefererHeaderOnRedirect": True,
            "tlsDisabledProtocols": [],
            "disableCookies": False,
            "maxRedirects": 0,
        },
        "item": [
            {"name": "F", "item": [{"name": "a", "request": {"url": "https://x.test/a"}}]},
            {
                "name": "b",
                "protocolProfileBehavior": {"followRedirects": True, "protocolVersion": "http1"},
                "request": {
                    "method": "GET",
                    "url": "https://x.test/b",
                    "body": {"mode": "raw", "raw": "q"},
                },
            },
        ],
    }
    result = parse_postman(json.dumps(data))
    follow = {r.name: r.settings.follow_redirects for _, r in result.requests}
    assert follow == {"a": False, "b": True}
    assert result.notes == [
        "the collection: Postman setting maxRedirects = 0 is not carried over "
        "(Pigeon's redirect limit is not set per request)",
        'b: Postman setting protocolVersion = "http1" is not carried over '
        "(Pigeon chooses the HTTP version itself)",
        "b: Postman leaves out the body of a GET request unless disableBodyPruning is set; "
        "Pigeon sends it",
    ]


def test_what_pigeon_cannot_hold_is_noted_and_text_is_kept() -> None:
    data = {
        "info": {"name": "c"},
        "variable": [{"key": "host", "value": "x.test", "description": "Where it runs."}],
        "item": [
            {"name": "Dup", "item": [{"name": "a", "request": {"url": "https://x.test/1"}}]},
            {"name": "Dup", "item": [{"name": "a", "request": {"url": "https://x.test/2"}}],
             "auth": {"type": "basic", "basic": {"username": "u"}}},
            {"name": "loose", "description": "neither"},
            {
                "name": "r",
                "description": "Item text.",
                "variable": [{"key": "page", "value": 2, "description": "Which page."}],
                "event": [
                    {"listen": "test", "disabled": True, "script": {"exec": ["pm.test()"]}},
                    {"listen": "prerequest", "script": {"src": "https://x.test/s.js"}},
                ],
                "request": {
                    "method": "POST",
                    "url": "https://{{host}}/r?p={{page}}",
                    "header": "Accept: text/csv\n// X-Off: 1\n",
                    "body": {"mode": "raw", "raw": "gone", "disabled": True},
                    "proxy": {"host": "proxy.test", "port": 3128},
                    "certificate": {"name": "c", "matches": ["https://x.test/*"]},
                    "description": "Request text.",
                },
            },
        ],
    }  # fmt: skip
    result = parse_postman(json.dumps(data))
    reqs = {f"{folder}/{r.name}": r for folder, r in result.requests}
    assert list(reqs) == ["Dup/a", "Dup (2)/a", "/r"]
    assert [(f.id, f.auth.type if f.auth else None) for f in result.folders] == [
        ("Dup (2)", "basic")
    ]
    r = reqs["/r"]
    assert [(h.name, h.value, h.enabled) for h in r.headers] == [
        ("Accept", "text/csv", True), ("X-Off", "1", False),
    ]  # fmt: skip
    assert r.variables == {"page": 2} and r.body.type == "none"
    assert r.description.startswith("Item text.\n\nRequest text.\n\nParameters:\n- variable page")
    assert "Postman test (disabled) script" in r.description and "pm.test()" in r.description
    assert "- host: Where it runs." in result.description
    for expected in (
        "folder Dup: another folder has the same name; imported as 'Dup (2)'",
        "loose: neither a request nor a folder; skipped",
        "r: its body is disabled in Postman; not carried over",
        "r: its proxy setting is not carried over",
        "r: its certificate setting is not carried over",
        "r: Postman pre-request script loaded from a URL is not carried over",
        "r: Postman test (disabled) script (1 line of JavaScript) is not run by Pigeon; "
        "its text is kept in the description",
    ):
        assert expected in result.notes, (expected, result.notes)


def test_oauth2_token_goes_where_postman_puts_it() -> None:
    def auth(*params: tuple[str, str]) -> object:
        item = {"name": "a", "request": {"url": "https://x.test", "auth": {
            "type": "oauth2", "oauth2": [{"key": k, "value": v} for k, v in params]}}}  # fmt: skip
        req = parse_postman(json.dumps({"info": {}, "item": [item]})).requests[0][1]
        a = req.auth
        assert a is not None
        return (a.type, a.token) if a.type == "bearer" else (a.type, a.location, a.key, a.value)

    assert auth(("accessToken", "t")) == ("bearer", "t")
    assert auth(("accessToken", "t"), ("headerPrefix", " Token ")) == (
        "api_key", "header", "Authorization", "Token t",
    )  # fmt: skip
    assert auth(("accessToken", "t"), ("headerPrefix", "")) == (
        "api_key", "header", "Authorization", "t",
    )  # fmt: skip
    assert auth(("accessToken", "t"), ("addTokenTo", "queryParams")) == (
        "api_key", "query", "access_token", "t",
    )  # fmt: skip


def test_auth_without_a_type_is_noted() -> None:
    _, notes = _one({"name": "a", "request": {"url": "https://x.test", "auth": {"x": 1}}})
    assert notes == ["a: auth without a type is not supported by Pigeon; not carried over"]
