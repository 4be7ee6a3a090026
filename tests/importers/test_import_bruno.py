"""Bruno collections: the .bru reader, the collection written and rendered as Pigeon sends it
(and sent to the echo server), secrets in .env, scripts kept as text, reading confined to the
collection's directory."""

from __future__ import annotations

import base64
import json
import os
import shutil
from pathlib import Path

import pytest

from pigeon.echo import EchoServer
from pigeon.importers import ImportFailed, run_import
from pigeon.importers import bruno as bruno_module
from pigeon.importers.bru import BruError, parse_bru
from pigeon.importers.bruno import parse_bruno
from pigeon.send import HttpSession
from pigeon.store import load_collection
from render_support import render_written

SHOP = Path(__file__).parents[1] / "data" / "bruno" / "shop"


@pytest.fixture
def shop(tmp_path: Path) -> tuple[Path, list[str]]:
    into = tmp_path / "shop"
    _, notes = run_import("bruno", str(SHOP), into)
    return into, notes


# -- the .bru reader ----------------------------------------------------------------------------


def test_bru_blocks_pairs_text_lists_and_multiline_values() -> None:
    blocks = parse_bru(
        "meta {\n  name: Get: user\n  seq: 2\n}\n\n"
        "headers {\n  Accept: */*\n  ~X-Off: 1\n  X-Empty:\n}\n\n"
        'body:json {\n  {\n    "a": "}"\n  }\n}\n\n'
        "docs {\n  '''\n  long\n    text\n  '''\n}\n\n"
        "settings {\n  note: '''\n    line one\n    line two\n  '''\n}\n\n"
        "vars:secret [\n  token,\n  ~old\n]\n\nvars:secret [a, b c]\n\nvars:secret []\n"
    )
    meta, headers, body, docs, settings, secret, inline, empty = blocks
    assert [p.key for p in inline.pairs] == ["a", "b", "c"] and empty.pairs == []
    assert meta.get("name") == "Get: user" and meta.get("seq") == "2"
    assert [(p.key, p.value, p.enabled) for p in headers.pairs] == [
        ("Accept", "*/*", True), ("X-Off", "1", False), ("X-Empty", "", True),
    ]  # fmt: skip
    assert body.is_text and json.loads(body.text) == {"a": "}"}
    assert docs.text == "'''\nlong\n  text\n'''"
    assert settings.get("note") == "line one\nline two"
    assert [(p.key, p.enabled) for p in secret.pairs] == [("token", True), ("old", False)]


@pytest.mark.parametrize(
    ("text", "line", "reason"),
    [
        ("meta {\n  name: x\n", 1, "block meta is not closed"),
        ("meta {\n  name: x\n}\nstray text\n", 4, "expected a block"),
        ("headers {\n  no colon here\n}\n", 2, "expected key: value"),
        ("vars:secret [\n  a;b\n]\n", 2, "expected a name"),
        ("vars:secret [\n  a\n", 1, "list vars:secret is not closed"),
        ("meta { name: x }\n", 1, "text after meta {"),
        ("meta {\n  v: '''\n  never closed\n}\n", 2, "not closed by '''"),
        ("x {\n}\n" * 201, 401, "more than 200 blocks"),
    ],
)
def test_bru_errors_name_the_line(text: str, line: int, reason: str) -> None:
    with pytest.raises(BruError) as exc:
        parse_bru(text)
    assert exc.value.line == line and reason in exc.value.reason


# -- a whole collection -------------------------------------------------------------------------


def test_structure_order_environments_and_collection_settings(
    shop: tuple[Path, list[str]],
) -> None:
    root, notes = shop
    col = load_collection(root)
    assert not col.broken and col.name == "Shop API"
    assert [r.id for r in col.requests()] == [
        "users/list-users", "users/create-user", "users/get-user", "users/admin/audit-log",
        "orders/search-orders", "orders/upload-receipt", "orders/bulk-import", "orders/add-note",
        "products-graphql", "ping",
    ]  # fmt: skip
    assert col.variables == {"api_version": "v1"}
    assert [(h.name, h.value) for h in col.headers] == [("X-Client", "pigeon-import")]
    assert col.auth is not None and (col.auth.type, col.auth.token) == ("bearer", "{{api_token}}")
    assert col.extra["description"] == "The shop's public API."
    dev = col.environments["development"].variables
    assert dev == {
        "base_url": "http://127.0.0.1:8000",
        "page_size": "20",
        "api_token": "{{$env.DEVELOPMENT_API_TOKEN}}",
    }
    prod = col.environments["production"].variables
    assert prod["client_secret"] == "{{$env.PRODUCTION_CLIENT_SECRET}}"
    joined = "\n".join(notes)
    assert "api_token is a Bruno secret" in joined and "legacy_url is switched off" in joined
    r = render_written(
        root, "users/list-users", environment="development",
        environ={"DEVELOPMENT_API_TOKEN": "t0k"},
    )  # fmt: skip
    assert r.url == "http://127.0.0.1:8000/v1/users?page=1&size=20"  # the query once
    assert r.header("authorization") == "Bearer t0k"
    assert r.header("x-team") == "growth" and r.header("x-client") == "pigeon-import"
    assert r.header("x-trace") is None  # ~X-Trace: kept, switched off
    admin = render_written(root, "users/admin/audit-log", environment="development")
    assert admin.flow_auth is not None and admin.flow_auth.type == "digest"


def test_scripts_tests_and_assertions_are_text_never_run(shop: tuple[Path, list[str]]) -> None:
    root, notes = shop
    col = load_collection(root)
    found = col.find("users/create-user")
    assert found is not None
    req = found[1]
    assert req.scripts.pre_request == "" and req.scripts.post_response == ""
    assert 'req.setHeader("X-Started", Date.now());' in req.description
    assert "expect(res.getStatus()).to.equal(201);" in req.description
    assert "user_id: res.body.id" in req.description
    assert req.variables == {"role": "admin"}
    listed = col.find("users/list-users")
    assert listed is not None and "res.status: eq 200" in listed[1].description
    assert listed[1].description.startswith("Paged list of users.")
    joined = "\n".join(notes)
    assert "Users/Create user: Bruno's pre-request script (JavaScript): not run by Pigeon" in joined
    assert "Users/Create user: variable team is switched off in Bruno; dropped" in joined
    assert "Users/List users: Bruno assertions are not run by Pigeon" in joined


def test_each_body_and_auth_kind(shop: tuple[Path, list[str]]) -> None:
    root, notes = shop
    env = {"ADMIN_EMAIL": "ada@example.test"}
    r = render_written(root, "users/create-user", environment="development", environ=env)
    assert json.loads(r.body_text or "") == {"name": "Ada", "email": "ada@example.test"}
    r = render_written(root, "users/get-user", environment="development")
    assert r.url == "http://127.0.0.1:8000/v1/users/7"
    assert r.header("authorization") == "Basic " + base64.b64encode(b"ada:hunter2").decode()
    r = render_written(root, "orders/search-orders", environment="development")
    assert r.body_text == "q=shoes" and r.header("x-api-key") == "k-live-9981"
    col = load_collection(root)
    upload = col.find("orders/upload-receipt")
    assert upload is not None
    assert [(f.name, f.kind, f.enabled, f.content_type) for f in upload[1].body.fields] == [
        ("note", "text", True, ""), ("meta", "text", True, "application/json"),
        ("scan", "file", True, ""), ("other", "file", False, ""),
    ]  # fmt: skip
    assert upload[1].body.fields[2].value == str(SHOP / "fixtures" / "receipt.png")
    auth = upload[1].auth
    assert auth is not None and (auth.type, auth.username, auth.domain) == ("ntlm", "clerk", "CORP")
    bulk = col.find("orders/bulk-import")
    assert bulk is not None
    assert (bulk[1].body.type, bulk[1].body.path, bulk[1].body.content_type) == (
        "file", str(SHOP / "fixtures" / "orders.csv"), "text/csv",
    )  # fmt: skip
    aws = bulk[1].auth
    assert aws is not None and aws.type == "aws_sigv4"
    assert (aws.access_key, aws.region, aws.service) == ("AKIAEXAMPLE", "eu-west-1", "execute-api")
    r = render_written(root, "orders/add-note", environment="development")
    assert r.body_text == "<note>leave at door</note>"
    assert r.header("content-type") == "application/xml" and r.header("authorization") is None
    gql = col.find("products-graphql")
    assert gql is not None and gql[1].body.type == "graphql"
    assert json.loads(gql[1].body.variables) == {"first": 5}
    oauth = gql[1].auth
    assert oauth is not None and oauth.type == "oauth2"
    assert (oauth.oauth2.grant, oauth.oauth2.client_secret) == (
        "client_credentials", "{{client_secret}}",
    )  # fmt: skip
    ping = col.find("ping")
    assert ping is not None and ping[1].auth is None
    assert "Ping: Bruno's wsse auth is not supported by Pigeon" in "\n".join(notes)
    text = "\n".join(p.read_text() for p in root.rglob("*.toml"))
    for secret in ("hunter2", "k-live-9981", "w1nd0ws", "aws-s3cret", "pr0d-cl1ent-s3cret"):
        assert secret not in text and secret in (root / ".env").read_text()


async def test_an_imported_request_arrives_at_the_echo_server_as_bruno_sends_it(
    tmp_path: Path, echo_server: EchoServer
) -> None:
    source = tmp_path / "bruno"
    shutil.copytree(SHOP, source)
    env = source / "environments" / "Development.bru"
    env.write_text(env.read_text().replace("http://127.0.0.1:8000", echo_server.url))
    into = tmp_path / "shop"
    run_import("bruno", str(source), into)
    environ = {"ADMIN_EMAIL": "ada@example.test", "DEVELOPMENT_API_TOKEN": "t0k"}
    async with HttpSession() as session:
        sent = render_written(into, "users/create-user", environment="development",
                              environ=environ)  # fmt: skip
        ex = await session.send(sent)
        got = json.loads(ex.body)
        assert (got["method"], got["path"]) == ("POST", "/v1/users")
        assert got["json"] == {"name": "Ada", "email": "ada@example.test"}
        headers = {k.lower(): v for k, v in got["headers"]}
        assert headers["authorization"] == "Bearer t0k"
        assert headers["content-type"] == "application/json"
        assert headers["x-team"] == "growth" and headers["x-client"] == "pigeon-import"

        sent = render_written(into, "users/list-users", environment="development",
                              environ=environ)  # fmt: skip
        got = json.loads((await session.send(sent)).body)
        assert got["query"] == {"page": ["1"], "size": ["20"]}
        assert "x-trace" not in {k.lower() for k, _ in got["headers"]}

        sent = render_written(into, "orders/upload-receipt", environment="development")
        sent.flow_auth = None  # NTLM needs a server that asks; the body is what is checked
        got = json.loads((await session.send(sent)).body)
        assert got["form"]["note"] == ["paper copy"]
        assert got["form"]["meta"] == ['{"pages": 1}']
        assert [(f["name"], f["filename"], f["size"]) for f in got["files"]] == [
            ("scan", "receipt.png", len("png-bytes\n")),
        ]  # /etc/passwd, outside the collection, is switched off: never sent


# -- reading stays inside the collection --------------------------------------------------------


def _minimal(root: Path) -> Path:
    root.mkdir(parents=True)
    (root / "bruno.json").write_text('{"version": "1", "name": "m", "type": "collection"}')
    (root / "ok.bru").write_text("meta {\n  name: ok\n}\n\nget {\n  url: http://x.test/\n}\n")
    return root


def test_links_out_of_the_collection_are_not_followed(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "steal.bru").write_text("meta {\n  name: steal\n}\n\nget {\n  url: http://x/\n}\n")
    root = _minimal(tmp_path / "col")
    (root / "linked").symlink_to(outside)
    (root / "linked.bru").symlink_to(outside / "steal.bru")
    (root / "upload.bru").write_text(
        "meta {\n  name: up\n}\n\npost {\n  url: http://x.test/\n  body: file\n}\n\n"
        "body:file {\n  file: @file(../outside/steal.bru)\n}\n"
    )
    result = parse_bruno(root)
    names = sorted(r.name for _, r in result.requests)
    assert names == ["ok", "up"]
    assert [r for _, r in result.requests if r.name == "up"][0].body.type == "none"
    outside_notes = [n for n in result.notes if "is outside" in n]
    assert len(outside_notes) == 2, result.notes  # the folder, and the file (linked and named)


def test_huge_bad_and_deep_files_are_skipped_with_a_note(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = _minimal(tmp_path / "col")
    with open(root / "huge.bru", "wb") as fh:
        fh.truncate(bruno_module.BRU_LIMIT + 1)
    (root / "bad.bru").write_text("meta {\n  name: bad\n}\n\nget {\n  url http://x/\n}\n")
    (root / "ctl.bru").write_text(
        "meta {\n  name: a\x1b[2Jb\n}\n\nget {\n  url: http://x.test/\n}\n\n"
        "headers {\n  X-Ok: 1\n  X-Bad: a\x0bb\n}\n"
    )
    deep = root
    for n in range(6):
        deep = deep / f"d{n}"
    deep.mkdir(parents=True)
    (deep / "deep.bru").write_text("get {\n  url: http://x.test/deep\n}\n")
    monkeypatch.setattr(bruno_module, "MAX_DEPTH", 3)
    result = parse_bruno(root)
    notes = "\n".join(result.notes)
    assert "huge.bru: cannot read (file" in notes and "limit" in notes
    assert "bad.bru:6: not a .bru file (expected key: value" in notes
    assert "d0/d1/d2/d3: folders nest past 3; not read" in notes
    (ctl,) = [r for _, r in result.requests if r.name.startswith("a")]
    assert ctl.name == "a [2Jb" and [h.name for h in ctl.headers] == ["X-Ok"]
    assert "deep" not in {r.name for _, r in result.requests}


def test_the_file_count_and_the_bytes_read_are_capped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = _minimal(tmp_path / "col")
    for n in range(20):
        (root / f"r{n:02}.bru").write_text(f"get {{\n  url: http://x.test/{n}\n}}\n")
    monkeypatch.setattr(bruno_module, "MAX_FILES", 10)
    result = parse_bruno(root)
    assert 0 < len(result.requests) < 10
    assert "more than 10 files: the rest are not read" in result.notes
    monkeypatch.setattr(bruno_module, "MAX_FILES", 100)
    monkeypatch.setattr(bruno_module, "TOTAL_LIMIT", 200)
    result = parse_bruno(root)
    assert 0 < len(result.requests) < 10
    assert "the files add up to over 200 bytes: the rest are not read" in result.notes


def test_bad_bruno_json_and_no_requests_fail_in_one_line_naming_the_file(tmp_path: Path) -> None:
    root = _minimal(tmp_path / "col")
    (root / "bruno.json").write_text('{"name": "m",')
    with pytest.raises(ImportFailed) as exc:
        run_import("bruno", str(root), tmp_path / "out")
    assert "bruno.json:1:" in str(exc.value) and "not JSON" in str(exc.value)
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(ImportFailed, match="no Bruno requests"):
        run_import("bruno", str(empty), tmp_path / "out")
    with pytest.raises(ImportFailed, match="meta {}: no such file"):
        run_import("bruno", "meta {}", tmp_path / "out")
    assert not (tmp_path / "out").exists()


def test_a_single_request_file_imports_alone(tmp_path: Path) -> None:
    result = parse_bruno(SHOP / "users" / "get-user.bru")
    ((folder, req),) = result.requests
    assert folder == "" and req.name == "Get user" and req.variables == {"id": "7"}


def test_process_env_becomes_env_and_a_bruno_dotenv_is_named(tmp_path: Path) -> None:
    root = _minimal(tmp_path / "col")
    (root / ".env").write_text("KEY=v\n")
    (root / "k.bru").write_text(
        "get {\n  url: http://x.test/?k={{process.env.KEY}}\n}\n\n"
        "headers {\n  X-Key: {{ process.env.KEY }}\n}\n"
    )
    result = parse_bruno(root)
    (req,) = [r for _, r in result.requests if r.headers]
    assert req.headers[0].value == "{{$env.KEY}}"
    assert req.query[0].value == "{{$env.KEY}}"
    assert any("Bruno's .env is not copied" in n for n in result.notes)
    assert os.path.exists(root / ".env")


def test_names_that_would_leave_the_collection_stay_inside(tmp_path: Path) -> None:
    root = _minimal(tmp_path / "col")
    (root / "sub").mkdir()
    (root / "sub" / "folder.bru").write_text("meta {\n  name: ../../../escape\n}\n")
    (root / "sub" / "r.bru").write_text(
        "meta {\n  name: ../../etc/passwd\n}\n\nget {\n  url: http://x.test/\n}\n"
    )
    into = tmp_path / "out" / "inner"
    written, _ = run_import("bruno", str(root), into)
    assert all(p.resolve().is_relative_to(into.resolve()) for p in written)
    assert not (tmp_path / "escape").exists() and not (tmp_path / "etc").exists()
    names = sorted(r.name for r in load_collection(into).requests())
    assert names == ["../../etc/passwd", "ok"]


def test_older_bru_blocks_and_local_variables(tmp_path: Path) -> None:
    root = _minimal(tmp_path / "col")
    (root / "old.bru").write_text(
        "meta {\n  name: old\n  seq: 1\n}\n\npost {\n  url: http://x.test/a?x=1\n}\n\n"
        "query {\n  x: 1\n  ~y: 2\n}\n\nheaders {\n  X-Tight:tight\n}\n\n"
        "vars:pre-request {\n  @local: 1\n}\n\n"
        'body {\n  {"old": true}\n}\n\n'
        "auth:oauth2 {\n  grant_type: client_credentials\n  access_token_url: http://x.test/t\n"
        "  credentials_placement: basic_auth_header\n}\n"
    )
    (req,) = [r for _, r in parse_bruno(root).requests if r.name == "old"]
    assert req.url == "http://x.test/a"
    assert [(q.name, q.value, q.enabled) for q in req.query] == [
        ("x", "1", True),
        ("y", "2", False),
    ]
    assert [(h.name, h.value) for h in req.headers] == [("X-Tight", "tight")]
    assert req.variables == {"local": "1"}
    assert (req.body.type, json.loads(req.body.content)) == ("json", {"old": True})
    products = parse_bruno(SHOP / "products.bru").requests[0][1]
    assert (
        products.auth is not None and products.auth.oauth2.client_auth == "body"
    )  # Bruno's default
