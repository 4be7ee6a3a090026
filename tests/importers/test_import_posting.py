"""Posting collections (``*.posting.yaml`` trees and ``*.env`` files) -> a Pigeon collection."""

from __future__ import annotations

import base64
import json
import shutil
import stat
import subprocess
from pathlib import Path

import pytest

from pigeon.importers import ImportFailed, run_import, write_import
from pigeon.importers.common import Secret, write_dotenv
from pigeon.importers.posting import PostingImport, convert, parse_posting
from pigeon.store import load_collection
from render_support import render_written

SHOP = Path(__file__).parents[1] / "data" / "posting" / "shop"


def import_into(source: Path, into: Path) -> tuple[list[Path], list[str]]:
    """What ``pigeon import posting`` does: write the collection, then its .env."""
    result = parse_posting(source)
    written = write_import(result, into)
    written += write_dotenv(result, into)
    return written, result.notes


@pytest.fixture
def shop(tmp_path: Path) -> tuple[Path, list[str]]:
    into = tmp_path / "shop"
    _, notes = import_into(SHOP, into)
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
    # API_TOKEN differs between dev and prod: one .env name each. PASSWORD is only in dev.
    assert dev["API_TOKEN"] == "{{$env.DEV_API_TOKEN}}"
    assert dev["PASSWORD"] == "{{$env.PASSWORD}}"
    assert col.environments["prod"].variables["API_TOKEN"] == "{{$env.PROD_API_TOKEN}}"
    assert not any("looks secret" in n for n in notes)  # written, so nothing to say


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
        ("Authorization", "Bearer tok-dev"),
        ("Content-Type", "application/json"),
    ]
    assert json.loads(r.body_text or "") == {"name": "Ada", "email": "ada@example.com"}
    assert r.settings.timeout == 5  # Posting's default, not Pigeon's 30
    r = render_written(root, "customers/create-customer", environment="prod")
    assert r.url == "https://shop.example.test/customers"
    assert r.header("authorization") == "Bearer tok-prod"


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


# -- secrets: the collection's .env ---------------------------------------------------------


def test_secret_values_go_to_the_ignored_dotenv_only(shop: tuple[Path, list[str]]) -> None:
    root, _ = shop
    col = load_collection(root)
    assert col.dotenv == {
        "PASSWORD": "hunter2",
        "DEV_API_TOKEN": "tok-dev",
        "PROD_API_TOKEN": "tok-prod",
    }
    assert stat.S_IMODE((root / ".env").stat().st_mode) == 0o600
    for toml in root.rglob("*.toml"):
        text = toml.read_text()
        assert "hunter2" not in text and "tok-dev" not in text and "tok-prod" not in text, toml
    assert ".env" in (root / ".gitignore").read_text().splitlines()


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_git_ignores_the_written_dotenv(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    import_into(SHOP, root)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    check = subprocess.run(["git", "-C", str(root), "check-ignore", "-q", ".env"], check=False)
    assert check.returncode == 0


def test_existing_dotenv_is_left_alone_and_each_missing_value_noted(tmp_path: Path) -> None:
    into = tmp_path / "shop"
    into.mkdir()
    (into / ".env").write_text("PASSWORD=other\nDEV_API_TOKEN=tok-dev\n")
    written, notes = import_into(SHOP, into)
    assert (into / ".env").read_text() == "PASSWORD=other\nDEV_API_TOKEN=tok-dev\n"
    assert into / ".env" not in written and not (into / ".gitignore").exists()
    missing = [n for n in notes if "not written" in n]
    assert len(missing) == 2, missing  # DEV_API_TOKEN is there with the same value
    password = next(n for n in missing if n.startswith("PASSWORD (from dev.env) not written"))
    assert "holds another value" in password
    assert any(n.startswith("PROD_API_TOKEN (from prod.env)") for n in missing)
    assert not any("tok-prod" in n or "hunter2" in n for n in notes)  # no secret in a note


def test_dotenv_values_read_back_exactly(tmp_path: Path) -> None:
    values = {
        "PLAIN": "abc-1.2/x:y@z",
        "QUOTES": 'it\'s "quoted"',
        "ODD": "a\\b # not a comment $HOME ${X} `cmd`",
        "LINES": "one\ntwo",
        "EMPTY": "",
    }
    result = PostingImport()
    result.secrets = [Secret(k, v, "dev.env", f"note {k}") for k, v in values.items()]
    result.notes = [f"note {k}" for k in values]
    into = tmp_path / "col"
    write_import(result, into)
    assert write_dotenv(result, into) == [into / ".gitignore", into / ".env"]
    col = load_collection(into)
    assert not col.broken and col.dotenv == values
    assert result.notes == []


def test_an_existing_gitignore_is_never_changed(tmp_path: Path) -> None:
    """An import writes only new files: the secrets go to a new ``.env`` only where the
    collection's own ``.gitignore`` already ignores it; elsewhere each is a note."""
    cases = {
        "node_modules/\n": False,
        "build": False,
        ".env\n!.env\n": False,
        "*.env\n": True,
        "/.env\n": True,
    }
    for i, (before, ignored) in enumerate(cases.items()):
        into = tmp_path / str(i)
        into.mkdir()
        (into / ".gitignore").write_text(before)
        result = PostingImport(secrets=[Secret("TOKEN", "t", "dev.env", "")])
        written = write_dotenv(result, into)
        assert (into / ".gitignore").read_text() == before
        if ignored:
            assert written == [into / ".env"] and result.notes == []
            assert (into / ".env").read_text().endswith("TOKEN=t\n")
        else:
            assert written == [] and not (into / ".env").exists(), before
            assert len(result.notes) == 1 and "TOKEN (from dev.env) not written" in result.notes[0]
            assert "does not ignore .env" in result.notes[0]


# -- Posting's defaults and single files -----------------------------------------------------


def test_posting_default_timeout_is_carried_over() -> None:
    result = parse_posting(SHOP)
    timeouts = {r.name: r.settings.timeout for _, r in result.requests}
    assert timeouts["List customers"] == 12.5  # its own options.timeout
    assert timeouts["Add a note"] == 5.0


def test_single_file_takes_the_env_files_beside_it(tmp_path: Path) -> None:
    (tmp_path / "ping.posting.yaml").write_text(
        "url: $BASE_URL/ping\nheaders:\n- name: X-Key\n  value: $API_KEY\n"
    )
    (tmp_path / "local.env").write_text("BASE_URL=http://127.0.0.1:9\nAPI_KEY=k-1\n")
    into = tmp_path / "col"
    _, notes = import_into(tmp_path / "ping.posting.yaml", into)
    r = render_written(into, "ping", environment="local")
    assert r.url == "http://127.0.0.1:9/ping" and r.header("x-key") == "k-1"
    assert notes == []
    # A file whose directory holds no .env files: said, with the variables left without value.
    result = parse_posting(SHOP / "customers" / "list.posting.yaml")
    assert result.environments == []
    said = "\n".join(result.notes)
    assert "no Posting .env files beside list.posting.yaml" in said and "BASE_URL, SEARCH" in said


def test_pigeon_import_posting_writes_the_dotenv(tmp_path: Path) -> None:
    into = tmp_path / "shop"
    written, notes = run_import("posting", str(SHOP), into)
    assert into / ".env" in written
    assert load_collection(into).dotenv["PASSWORD"] == "hunter2"
    assert not any("looks secret" in n for n in notes)
