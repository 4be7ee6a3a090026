"""Posting collections (``*.posting.yaml`` trees and ``*.env`` files) -> a Pigeon collection."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest

from pigeon.importers import ImportFailed, run_import
from pigeon.importers.posting import convert, parse_posting
from pigeon.store import load_collection
from test_import_support import render_written

SHOP = Path(__file__).parent / "data" / "posting" / "shop"
DOTENV = "API_TOKEN=tok-secret\nPASSWORD=hunter2\n"


@pytest.fixture
def shop(tmp_path: Path) -> tuple[Path, list[str]]:
    into = tmp_path / "shop"
    _, notes = run_import("posting", str(SHOP), into)
    (into / ".env").write_text(DOTENV)
    return into, notes


def test_template_conversion() -> None:
    assert convert("$A/${b_2}/$$5/$ x/${bad-name}") == "{{A}}/{{b_2}}/$5/$ x/${bad-name}"


def test_tree_order_and_environments(shop: tuple[Path, list[str]]) -> None:
    root, notes = shop
    col = load_collection(root)
    assert not col.broken
    assert [r.id for r in col.requests()] == [
        "customers/list-customers", "customers/create-customer", "orders/log-in",
        "orders/add-a-note", "orders/admin/purge-cache",
    ]  # fmt: skip
    dev = col.environments["dev"].variables
    assert dev["BASE_URL"] == "http://127.0.0.1:8787" and dev["SEARCH"] == "ada"
    assert dev["API_TOKEN"] == "{{$env.API_TOKEN}}" and dev["PASSWORD"] == "{{$env.PASSWORD}}"
    assert "hunter2" not in (root / "environments" / "dev.toml").read_text()
    assert any("PASSWORD looks secret" in n for n in notes)


def test_get_with_params_headers_options_and_script_note(shop: tuple[Path, list[str]]) -> None:
    root, notes = shop
    r = render_written(root, "customers/list-customers", environment="dev")
    assert r.method == "GET"
    assert r.url == "http://127.0.0.1:8787/customers?page=2&q=ada"
    assert r.headers == [("Accept", "application/json"), ("X-Price", "$5")]
    assert (r.settings.follow_redirects, r.settings.timeout) == (False, 12.5)
    assert any("save_id.py" in n and "not carried over" in n for n in notes)


def test_json_body_and_bearer(shop: tuple[Path, list[str]]) -> None:
    root, _ = shop
    r = render_written(root, "customers/create-customer", environment="dev")
    assert r.headers == [
        ("Authorization", "Bearer tok-secret"),
        ("Content-Type", "application/json"),
    ]
    assert json.loads(r.body_text or "") == {"name": "Ada", "email": "ada@example.com"}
    r = render_written(root, "customers/create-customer", environment="prod")
    assert r.url == "https://shop.example.test/customers"


def test_form_basic_auth_tls_and_unsupported(shop: tuple[Path, list[str]]) -> None:
    root, notes = shop
    r = render_written(root, "orders/log-in", environment="dev")
    assert r.body == b"username=ada&password=hunter2"
    assert r.header("authorization") == "Basic " + base64.b64encode(b"ada:hunter2").decode()
    assert r.settings.verify_tls is False
    assert any("proxy" in n for n in notes)
    r = render_written(root, "orders/admin/purge-cache", environment="dev")
    assert r.method == "DELETE" and r.header("authorization") is None
    assert any("digest auth is not supported" in n for n in notes)
    r = render_written(root, "orders/add-a-note", environment="dev")
    assert r.body == b"Leave it at the door, ada."
    assert r.header("content-type") == "text/plain; charset=utf-8"


def test_single_file_and_errors(tmp_path: Path) -> None:
    result = parse_posting(SHOP / "orders" / "note.posting.yaml")
    assert [r.name for _, r in result.requests] == ["Add a note"]
    with pytest.raises(ImportFailed, match="no .posting.yaml files"):
        parse_posting(tmp_path)
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "x.posting.yaml").write_text("name: [unclosed\n")
    (bad / "ok.posting.yaml").write_text("url: http://x.test\n")
    result = parse_posting(bad)
    assert [r.name for _, r in result.requests] == ["ok"]
    assert any("x.posting.yaml" in n and "not valid YAML" in n for n in result.notes)
