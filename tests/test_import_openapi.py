"""OpenAPI 3 (YAML and JSON) -> one request per operation, rendered as the API describes."""

from __future__ import annotations

import base64
import contextlib
import json
from pathlib import Path

import pytest
import yaml

from pigeon.importers import ImportFailed, run_import
from pigeon.importers.openapi import parse_openapi
from pigeon.store import load_collection
from test_import_support import render_written

SPEC = Path(__file__).parent / "data" / "openapi" / "petstore.yaml"


@pytest.fixture
def pets(tmp_path: Path) -> tuple[Path, list[str]]:
    into = tmp_path / "pets"
    _, notes = run_import("openapi", str(SPEC), into)
    (into / ".env").write_text("")
    return into, notes


def test_folders_names_environments(pets: tuple[Path, list[str]]) -> None:
    root, _ = pets
    col = load_collection(root)
    assert not col.broken and col.name == "Petstore"
    assert [i.name for i in col.items] == ["pets", "photos", "Log in", "admin"]  # document order
    assert [r.name for r in col.items[0].items] == [  # type: ignore[union-attr]
        "List pets", "Create a pet", "showPetById", "Replace a pet", "Delete a pet",
        "Search with a query key",
    ]  # fmt: skip
    assert {n: e.variables for n, e in col.environments.items()} == {
        "production": {"base_url": "https://eu.petstore.example.test/v1"},
        "local": {"base_url": "http://127.0.0.1:8787/v1"},
    }
    assert col.variables["petId"] == 7


def test_query_params_required_enabled_optional_disabled(pets: tuple[Path, list[str]]) -> None:
    root, _ = pets
    (root / "collection.toml").write_text(
        (root / "collection.toml").read_text().replace('token = ""', 'token = "jwt"')
    )
    r = render_written(root, "pets/list-pets", environment="local")
    assert r.url == "http://127.0.0.1:8787/v1/pets?limit=20"
    assert r.headers == [("Authorization", "Bearer jwt")]  # X-Trace-Id is optional: disabled
    req = load_collection(root).find("pets/list-pets")[1]  # type: ignore[index]
    assert [(q.name, q.value, q.enabled) for q in req.query] == [
        ("limit", "20", True),
        ("status", "available", False),
    ]
    assert [(h.name, h.enabled) for h in req.headers] == [("X-Trace-Id", False)]


def test_body_from_schema_with_refs_allof_and_recursion(pets: tuple[Path, list[str]]) -> None:
    root, _ = pets
    r = render_written(root, "pets/create-a-pet")
    body = json.loads(r.body_text or "")
    assert body["name"] == "Rex" and body["tag"] == "dog" and body["vaccinated"] is False
    assert body["owner"]["email"] == "user@example.com"
    assert body["owner"]["since"] == "2024-01-01T00:00:00Z"
    # Pet is allOf [NewPet, {id}]: NewPet is already being expanded, so only id is added.
    assert body["owner"]["pets"] == [{"id": 0}]
    assert r.header("content-type") == "application/json"


def test_path_params_examples_and_operation_security(pets: tuple[Path, list[str]]) -> None:
    root, _ = pets
    r = render_written(root, "pets/replace-a-pet")
    assert r.method == "PUT" and r.url == "https://eu.petstore.example.test/v1/pets/7"
    assert json.loads(r.body_text or "") == {"name": "Rex", "tag": "dog"}
    r = render_written(root, "pets/delete-a-pet")
    assert r.headers == [("X-Api-Key", "")]
    r = render_written(root, "pets/search-with-a-query-key")
    assert r.url.endswith("/search?q=fluffy&api_key=")
    r = render_written(root, "admin/stats-basic-auth")
    assert r.header("authorization") == "Basic " + base64.b64encode(b":").decode()


def test_form_and_multipart_and_anonymous(pets: tuple[Path, list[str]], tmp_path: Path) -> None:
    root, notes = pets
    r = render_written(root, "log-in")
    assert r.body == b"username=ada&password="
    assert r.header("authorization") is None  # security: [] overrides the global bearer
    req = load_collection(root).find("photos/upload-a-photo")[1]  # type: ignore[index]
    assert [(f.name, f.value, f.kind) for f in req.body.fields] == [
        ("caption", "At the beach", "text"), ("file", "", "file"),
    ]  # fmt: skip
    assert any("file field 'file'" in n for n in notes)


def test_json_document_and_errors(tmp_path: Path) -> None:
    spec = yaml.safe_load(SPEC.read_text())
    result = parse_openapi(json.dumps(spec))
    assert len(result.requests) == 9
    with pytest.raises(ImportFailed, match="Swagger 2.0"):
        parse_openapi('{"swagger": "2.0"}')
    with pytest.raises(ImportFailed, match="not YAML") as info:
        parse_openapi("openapi: 3.0.0\npaths: [\n")
    assert info.value.line is not None
    with pytest.raises(ImportFailed, match="not an OpenAPI 3"):
        parse_openapi("a: 1\n")


def test_no_servers_and_external_refs() -> None:
    result = parse_openapi(
        "openapi: 3.1.0\ninfo: {title: t}\npaths:\n  /x:\n    post:\n      requestBody:\n"
        "        content:\n          application/json:\n            schema: {$ref: 'other.yaml#/X'}\n"
    )
    assert result.variables == {"base_url": ""}
    assert any("no servers" in n for n in result.notes)
    assert any("other.yaml#/X" in n for n in result.notes)
    assert result.requests[0][1].body.content == "null"


def test_malformed_documents_are_skipped_or_refused_never_crash() -> None:
    from pigeon.importers import sanitize
    from test_import_postman import mutate

    doc = yaml.safe_load(SPEC.read_text())
    for variant in mutate(doc, seed=2, rounds=400):
        with contextlib.suppress(ImportFailed):
            sanitize(parse_openapi(json.dumps(variant, default=str)))


def test_array_query_parameters_follow_their_style() -> None:
    spec = {
        "openapi": "3.0.0", "info": {"title": "t"}, "servers": [{"url": "https://x.test"}],
        "paths": {"/a": {"get": {"servers": [{"url": "https://other.test"}], "parameters": [
            {"name": "id", "in": "query", "required": True, "example": [1, 2]},
            {"name": "tag", "in": "query", "required": True, "explode": False, "example": ["a", "b"]},
            {"name": "p", "in": "query", "required": True, "style": "pipeDelimited", "explode": False, "example": ["x", "y"]},
        ]}}},
    }  # fmt: skip
    result = parse_openapi(json.dumps(spec))
    req = result.requests[0][1]
    assert [(q.name, q.value) for q in req.query] == [
        ("id", "1"),
        ("id", "2"),
        ("tag", "a,b"),
        ("p", "x|y"),
    ]
    assert any("own servers" in n for n in result.notes)
