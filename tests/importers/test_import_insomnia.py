"""Insomnia v4 (JSON) and v5 (YAML) exports: written as a collection, read back and rendered as
Pigeon would send them; secrets in .env, not TOML; what Pigeon does not run kept, noted."""

from __future__ import annotations

import base64
import json
import shutil
from pathlib import Path

import pytest

from pigeon.importers import ImportFailed, run_import
from pigeon.importers.insomnia import parse_insomnia
from pigeon.store import load_collection
from render_support import render_written

DATA = Path(__file__).parents[1] / "data" / "insomnia"


@pytest.fixture
def v4(tmp_path: Path) -> tuple[Path, list[str]]:
    into = tmp_path / "shop"
    _, notes = run_import("insomnia", str(DATA / "shop-v4.json"), into)
    return into, notes


def _toml_text(root: Path) -> str:
    return "\n".join(p.read_text(encoding="utf-8") for p in sorted(root.rglob("*.toml")))


def test_v4_folders_order_and_environments(v4: tuple[Path, list[str]]) -> None:
    root, _ = v4
    col = load_collection(root)
    assert not col.broken and col.name == "Shop API"
    assert col.extra["description"] == "The shop's public API."
    ids = [r.id for r in col.requests()]
    assert ids == [
        "users/list-users", "users/create-user", "users/get-user", "users/admin/audit-log",
        "orders/search-orders", "orders/upload-receipt", "orders/bulk-import", "orders/add-note",
        "products-graphql", "signed-ping", "invoke-lambda", "from-netrc",
    ]  # fmt: skip
    # The base environment is the collection's; each sub environment one of Pigeon's.
    assert col.variables["base_url"] == "https://shop.example.test/v1"
    assert col.variables["user"] == {"name": "ada", "id": 7}
    assert sorted(col.environments) == ["development", "production"]
    dev = col.environments["development"].variables
    assert dev["base_url"] == "http://127.0.0.1:8000/v1"
    assert dev["api_token"] == "{{$env.DEVELOPMENT_API_TOKEN}}"


def test_v4_secrets_go_to_dotenv_never_into_toml(v4: tuple[Path, list[str]]) -> None:
    root, notes = v4
    text = _toml_text(root)
    for secret in ("hunter2", "k-live-9981", "w1nd0ws", "hawk-s3cret", "cl1ent-s3cret",
                   "cs-s3cret", "ts-s3cret", "aws-s3cret", "dev-t0ken-123", "prod-t0ken-456"):  # fmt: skip
        assert secret not in text
        assert secret in (root / ".env").read_text()
    assert ".env" in (root / ".gitignore").read_text()
    assert not any("a secret written as" in n for n in notes)  # written: their notes go
    r = render_written(root, "users/list-users", environment="development")
    assert r.url == "http://127.0.0.1:8000/v1/users?page=1&size=20"
    assert r.header("authorization") == "Bearer dev-t0ken-123"  # the folder's bearer
    assert r.header("x-team") == "growth"
    r = render_written(root, "users/admin/audit-log")
    assert r.header("authorization") == "Basic " + base64.b64encode(b"root:hunter2").decode()


def test_v4_templates_tags_and_scripts(v4: tuple[Path, list[str]]) -> None:
    root, notes = v4
    r = render_written(root, "users/create-user")
    body = json.loads(r.body_text or "")
    assert body["name"] == "ada" and len(body["id"]) == 36 and body["at"].startswith("20")
    assert [h for h in r.headers if h[0].lower() == "content-type"] == [
        ("Content-Type", "application/json")
    ]
    col = load_collection(root)
    create = col.find("users/create-user")
    assert create is not None and "insomnia.environment.set" in create[1].description
    assert create[1].scripts.pre_request == ""  # JavaScript: never run
    r = render_written(root, "users/get-user")
    assert r.url == "https://shop.example.test/v1/users/7" and r.header("authorization") is None
    assert not r.settings.follow_redirects
    audit = col.find("users/admin/audit-log")
    assert audit is not None and audit[1].query[0].value.startswith("{% response 'body'")
    joined = "\n".join(notes)
    assert "{% response %} tag is not run by Pigeon; kept as text" in joined
    assert "{{ _.user.name | upper }} (a Nunjucks filter or expression)" in joined
    assert "pre-request script (JavaScript) is not run by Pigeon" in joined
    assert "the cookie jar is not imported" in joined
    assert "1 WebSocket request not imported" in joined
    assert "netrc auth is not supported by Pigeon" in joined


def test_v4_each_body_kind(v4: tuple[Path, list[str]]) -> None:
    root, notes = v4
    r = render_written(root, "orders/search-orders")
    assert r.body_text == "q=shoes"
    assert r.header("content-type") == "application/x-www-form-urlencoded"
    assert r.header("x-api-key") == "k-live-9981"
    col = load_collection(root)
    upload = col.find("orders/upload-receipt")
    assert upload is not None
    fields = upload[1].body.fields
    assert [(f.name, f.kind, f.enabled) for f in fields] == [
        ("note", "text", True), ("scan", "file", True), ("secret", "file", False),
    ]  # fmt: skip
    assert fields[1].value == str(DATA / "fixtures" / "avatar.png")
    assert fields[2].value == "/etc/passwd"  # named, switched off: never read
    assert upload[1].auth is not None and upload[1].auth.type == "digest"
    bulk = col.find("orders/bulk-import")
    assert bulk is not None and bulk[1].body.type == "file"
    assert bulk[1].body.path == str(DATA / "fixtures" / "upload.json")
    assert bulk[1].body.content_type == "application/json"
    assert bulk[1].auth is not None and (bulk[1].auth.username, bulk[1].auth.domain) == (
        "clerk", "CORP",
    )  # fmt: skip
    note = col.find("orders/add-note")
    assert note is not None and note[1].body.type == "text"
    assert [(h.name, h.value) for h in note[1].headers] == [("Content-Type", "application/xml")]
    gql = col.find("products-graphql")
    assert gql is not None and gql[1].body.type == "graphql"
    assert gql[1].body.query.startswith("query Products($first: Int)")
    assert json.loads(gql[1].body.variables) == {"first": 5}
    assert gql[1].body.operation_name == "Products"
    assert "file /etc/passwd is outside" in "\n".join(notes)


def test_v4_each_auth_kind(v4: tuple[Path, list[str]]) -> None:
    root, _ = v4
    auths = {r.id: r.auth for r in load_collection(root).requests()}
    gql = auths["products-graphql"]
    assert gql is not None and gql.type == "oauth2"
    assert (gql.oauth2.grant, gql.oauth2.token_url, gql.oauth2.client_auth) == (
        "client_credentials", "https://auth.example.test/token", "body",
    )  # fmt: skip
    assert gql.oauth2.client_secret == "{{$env.CLIENT_SECRET}}"
    oauth1 = auths["signed-ping"]
    assert oauth1 is not None and oauth1.type == "oauth1"
    assert (oauth1.consumer_key, oauth1.token, oauth1.signature_method, oauth1.realm) == (
        "ck", "tk", "HMAC-SHA256", "shop",
    )  # fmt: skip
    aws = auths["invoke-lambda"]
    assert aws is not None and aws.type == "aws_sigv4"
    assert (aws.access_key, aws.region, aws.service, aws.session_token) == (
        "AKIAEXAMPLE", "eu-west-1", "lambda", "",
    )  # fmt: skip
    hawk = auths["orders/add-note"]
    assert hawk is not None and (hawk.type, hawk.hawk_id, hawk.hawk_algorithm) == (
        "hawk", "hawk-id", "sha1",
    )  # fmt: skip
    assert auths["users/get-user"] is not None and auths["users/get-user"].type == "none"
    assert auths["users/list-users"] is None  # inherits the folder's bearer
    assert auths["from-netrc"] is None


def test_v5_yaml_export(tmp_path: Path) -> None:
    root = tmp_path / "shop"
    _, notes = run_import("insomnia", str(DATA / "shop-v5.yaml"), root)
    col = load_collection(root)
    assert not col.broken and col.name == "Shop API"
    assert [r.id for r in col.requests()] == [
        "users/list-users", "users/create-user", "products-graphql",
    ]  # fmt: skip
    r = render_written(root, "users/list-users", environment="development")
    assert r.url == "http://127.0.0.1:8000/v1/users?page=1"
    assert r.header("authorization") == "Bearer dev-t0ken-123"
    create = col.find("users/create-user")
    assert create is not None
    req = create[1]
    assert not req.settings.follow_redirects and not req.settings.send_cookies
    assert "insomnia.test('created'" in req.description
    body = json.loads(render_written(root, "users/create-user").body_text or "")
    assert body["name"] == "ada" and len(body["id"]) == 36
    gql = col.find("products-graphql")
    assert gql is not None and gql[1].auth is not None
    auth = gql[1].auth
    assert (auth.type, auth.oauth2.grant, auth.username, auth.oauth2.header_prefix) == (
        "oauth2", "password", "ada", "Token",
    )  # fmt: skip
    assert auth.password == "{{$env.OAUTH2_PASSWORD}}"
    assert "OAUTH2_PASSWORD=pa55word" in (root / ".env").read_text()
    users = col.find_folder("users")
    assert users is not None and users.extra.get("description") == "Who shops."
    assert "Live updates: a WebSocket request; not imported" in notes


def test_not_insomnia_and_other_formats_are_refused_in_one_line(tmp_path: Path) -> None:
    cases = {
        "postman.json": ('{"info": {}, "item": []}', "not an Insomnia export"),
        "v3.json": ('{"_type": "export", "__export_format": 3, "resources": []}',
                    "Insomnia export format 3 is not supported"),
        "spec.yaml": ("type: spec.insomnia.rest/5.0\nname: x\n", "an Insomnia design document"),
        "broken.json": ('{"_type": "export",', "not JSON"),
        "broken.yaml": ("type: collection.insomnia.rest/5.0\ncollection: [\n", "not YAML"),
    }  # fmt: skip
    for name, (text, expected) in cases.items():
        (tmp_path / name).write_text(text)
        with pytest.raises(ImportFailed) as exc:
            run_import("insomnia", str(tmp_path / name), tmp_path / "out")
        message = str(exc.value)
        assert expected in message and name in message and "\n" not in message, message
    assert not (tmp_path / "out").exists()


def test_hostile_names_headers_and_parent_loops(tmp_path: Path) -> None:
    resources = [
        {"_id": "wrk", "_type": "workspace", "name": "w"},
        {"_id": "a", "_type": "request_group", "parentId": "b", "name": "../../etc"},
        {"_id": "b", "_type": "request_group", "parentId": "a", "name": "loop"},
        {"_id": "f", "_type": "request_group", "parentId": "wrk", "name": "../../escape\x1b[31m"},
        {"_id": "r1", "_type": "request", "parentId": "f", "name": "../x\r\nInjected: 1",
         "method": "GET", "url": "http://x.test/",
         "headers": [{"name": "X-Ok", "value": "fine"},
                     {"name": "X-Bad", "value": "a\r\nInjected: 1"},
                     {"name": "Bad Name", "value": "v"}]},
    ]  # fmt: skip
    source = tmp_path / "hostile.json"
    source.write_text(json.dumps({"_type": "export", "__export_format": 4, "resources": resources}))
    into = tmp_path / "out"
    written, notes = run_import("insomnia", str(source), into)
    assert all(Path(p).resolve().is_relative_to(into.resolve()) for p in written)
    col = load_collection(into)
    assert not col.broken
    (req,) = col.requests()
    assert "\r" not in req.name and "\n" not in req.name
    assert [(h.name, h.value) for h in req.headers] == [("X-Ok", "fine")]
    assert "header 'X-Bad' has characters a header cannot hold; dropped" in "\n".join(notes)
    assert not (tmp_path / "etc").exists() and not (tmp_path / "escape").exists()


def test_deep_nesting_is_refused_naming_the_file(tmp_path: Path) -> None:
    deep = "[" * 5000 + "]" * 5000
    source = tmp_path / "deep.json"
    source.write_text('{"_type": "export", "__export_format": 4, "resources": ' + deep + "}")
    with pytest.raises(ImportFailed, match="deep.json:1:.*nest more than"):
        run_import("insomnia", str(source), tmp_path / "out")


def test_a_file_body_outside_the_export_is_left_off(tmp_path: Path) -> None:
    shutil.copy(DATA / "shop-v4.json", tmp_path / "x.json")
    data = {"_type": "export", "__export_format": 4, "resources": [
        {"_id": "wrk", "_type": "workspace", "name": "w"},
        {"_id": "r", "_type": "request", "parentId": "wrk", "name": "up", "method": "POST",
         "url": "http://x.test/", "body": {"mimeType": "", "fileName": "/etc/hostname"}},
    ]}  # fmt: skip
    result = parse_insomnia(json.dumps(data), tmp_path / "x.json")
    ((_, req),) = result.requests
    assert req.body.type == "none"
    assert any("/etc/hostname is outside" in n for n in result.notes)
    allowed = parse_insomnia(json.dumps(data), tmp_path / "x.json", allow_outside=True)
    assert allowed.requests[0][1].body.path == "/etc/hostname"


def test_a_design_document_brings_its_requests_and_global_environments_their_values(
    tmp_path: Path,
) -> None:
    spec = tmp_path / "design.yaml"
    spec.write_text(
        "type: spec.insomnia.rest/5.0\nname: Airline\nmeta: {id: wrk_1}\n"
        "collection:\n  - url: '{{ _.base_url }}/auth/token'\n    name: Get token\n"
        "    meta: {id: req_1, sortKey: -1}\n    method: GET\n"
        "environments:\n  name: Base\n  data: {base_url: 'https://air.example.test'}\n"
        "spec:\n  contents: {openapi: 3.0.4, info: {title: Airline, version: '1'}, paths: {}}\n"
    )
    result = parse_insomnia(spec.read_text(), spec)
    assert [(f, r.name, r.url) for f, r in result.requests] == [
        ("", "Get token", "{{base_url}}/auth/token")
    ]
    assert result.variables == {"base_url": "https://air.example.test"}
    assert any("OpenAPI spec is not imported" in n for n in result.notes)

    globals_ = tmp_path / "globals.yaml"
    globals_.write_text(
        "type: environment.insomnia.rest/5.0\nname: Globals\n"
        "environments:\n  name: Shared\n  data: {region: eu, host: a.test}\n"
        "  subEnvironments:\n    - name: US\n      data: {region: us}\n"
    )
    envs = parse_insomnia(globals_.read_text(), globals_).environments
    assert [(e.name, e.variables) for e in envs] == [
        ("Shared", {"region": "eu", "host": "a.test"}),
        ("US", {"region": "us", "host": "a.test"}),
    ]
    mock = tmp_path / "mock.yaml"
    mock.write_text("type: mock.insomnia.rest/5.0\nname: m\nurl: http://x\n")
    with pytest.raises(ImportFailed, match="mock.yaml: an Insomnia mock file has no requests"):
        run_import("insomnia", str(mock), tmp_path / "out")


def test_sibling_folders_of_one_name_keep_their_own_settings(tmp_path: Path) -> None:
    resources = [{"_id": "wrk", "_type": "workspace", "name": "w"}]
    for n, token in ((1, "{{a}}"), (2, "{{b}}")):
        resources += [
            {"_id": f"f{n}", "_type": "request_group", "parentId": "wrk", "name": "Users",
             "metaSortKey": n, "authentication": {"type": "bearer", "token": token}},
            {"_id": f"r{n}", "_type": "request", "parentId": f"f{n}", "name": "List",
             "method": "GET", "url": "http://x.test/"},
        ]  # fmt: skip
    result = parse_insomnia(json.dumps({"_type": "export", "__export_format": 4,
                                        "resources": resources}))  # fmt: skip
    assert [f for f, _ in result.requests] == ["Users", "Users (2)"]
    assert [(f.id, f.auth.token if f.auth else "") for f in result.folders] == [
        ("Users", "{{a}}"), ("Users (2)", "{{b}}"),
    ]  # fmt: skip
    assert "folder Users: another folder has the same name; imported as 'Users (2)'" in (
        result.notes
    )
