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
from render_support import render_written

SPEC = Path(__file__).parents[1] / "data" / "openapi" / "petstore.yaml"


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
    from test_import_postman import mutate

    from pigeon.importers import sanitize

    for seed, spec in enumerate([SPEC, ORDERS], 2):
        doc = yaml.safe_load(spec.read_text())
        for variant in mutate(doc, seed=seed, rounds=400):
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


ORDERS = Path(__file__).parents[1] / "data" / "openapi" / "orders.yaml"
SAMPLE_UUID = "3fa85f64-5717-4562-b3fc-2c963f66afa6"


@pytest.fixture
def orders(tmp_path: Path) -> tuple[Path, list[str]]:
    into = tmp_path / "orders"
    _, notes = run_import("openapi", str(ORDERS), into)
    (into / ".env").write_text("")
    text = (into / "collection.toml").read_text().replace('token = ""', 'token = "jwt"')
    (into / "collection.toml").write_text(text)
    return into, notes


def test_security_that_cannot_be_auth_does_not_inherit_the_api_auth(
    orders: tuple[Path, list[str]],
) -> None:
    root, notes = orders
    assert render_written(root, "orders/list-orders").header("authorization") == "Bearer jwt"
    # A cookie API key: no auth, the cookie is sent instead.
    r = render_written(root, "orders/get-an-order-shop-session")
    assert r.header("authorization") is None
    assert r.header("cookie") == "shop_session="
    assert "GET /orders/{orderId}: API key sessionCookie is a cookie: sent in a Cookie header" in (
        notes
    )
    # A scheme Pigeon has no auth for: no auth at all, and a note.
    r = render_written(root, "orders/remove-an-order-line")
    assert r.header("authorization") is None
    assert any("digest auth (digestAuth) is not supported" in n for n in notes)
    # `security: []`: no auth.
    assert render_written(root, "log-in").header("authorization") is None
    # Alternatives: the first that can be carried over.
    r = render_written(root, "customers/a-customer-s-orders-on-one-day")
    assert r.header("authorization") is None and r.header("x-partner-key") == ""
    assert (
        "GET /customers/{customerNo}/orders/{day}: accepts digestAuth or partnerKey; "
        "imported with partnerKey" in notes
    )
    req = load_collection(root).find("orders/remove-an-order-line")[1]  # type: ignore[index]
    assert req.auth is not None and req.auth.type == "none"


def test_path_parameters_always_have_a_value_or_stay_visible(
    orders: tuple[Path, list[str]],
) -> None:
    root, notes = orders
    r = render_written(root, "customers/a-customer-s-orders-on-one-day")
    assert r.url == (
        "https://acme.orders.example.test:8443/api/v2/customers/1/orders/2024-01-01?channel=web"
    )
    r = render_written(root, "orders/get-an-order-shop-session")  # a $ref to a $ref to a uuid
    assert r.url.endswith(f"/orders/{SAMPLE_UUID}")
    # Used in the path but never declared: a placeholder left for the user to set.
    r = render_written(root, "orders/remove-an-order-line")
    assert r.url.endswith(f"/orders/{SAMPLE_UUID}/lines/{{{{lineNo}}}}")
    assert r.unresolved == ["lineNo"]
    assert (
        "DELETE /orders/{orderId}/lines/{lineNo}: path parameter lineNo is not declared; "
        "set {{lineNo}} before sending" in notes
    )


def test_path_values_from_schemas_examples_and_their_styles() -> None:
    spec = {
        "openapi": "3.0.3", "info": {"title": "t"}, "servers": [{"url": "https://x.test"}],
        "components": {"securitySchemes": {"basic": {"type": "http", "scheme": "basic"}}},
        "paths": {
            "/a/{id}": {"get": {"parameters": [
                {"name": "id", "in": "path", "required": True, "schema": {"type": "integer"}},
            ]}},
            "/b/{id}": {"get": {"parameters": [
                {"name": "id", "in": "path", "required": True, "example": "b-7"},
            ]}},
            "/c/{id}/{kind}/{day}": {"get": {"parameters": [
                {"name": "id", "in": "path", "required": True, "schema": {"type": "integer"}},
                {"name": "kind", "in": "path", "required": True,
                 "schema": {"type": "string", "enum": ["big", "small"]}},
                {"name": "day", "in": "path", "required": True, "style": "label",
                 "schema": {"type": "array", "items": {"type": "string", "format": "date"}}},
            ]}},
            "/users/{username}": {"get": {"security": [{"basic": []}], "parameters": [
                {"name": "username", "in": "path", "required": True, "example": "ada"},
            ]}},
        },
    }  # fmt: skip
    result = parse_openapi(json.dumps(spec))
    urls = {req.url: req.variables for _, req in result.requests}
    assert urls == {
        "{{base_url}}/a/{{id}}": {},
        "{{base_url}}/b/{{id}}": {},
        "{{base_url}}/c/{{id}}/{{kind}}/.{{day}}": {},
        "{{base_url}}/users/{{path_username}}": {},
    }
    # A documented example wins over one made from a type; each value is sendable.
    assert result.variables["id"] == "b-7"
    assert result.variables["kind"] == "big" and result.variables["day"] == "2024-01-01"
    assert result.variables["path_username"] == "ada" and result.variables["username"] == ""
    spec["paths"]["/d/{id}"] = {"get": {"parameters": [  # type: ignore[index]
        {"name": "id", "in": "path", "required": True, "example": 12},
    ]}}  # fmt: skip
    result = parse_openapi(json.dumps(spec))
    assert result.variables["id"] == "b-7"
    assert [req.variables for _, req in result.requests][-1] == {"id": 12}


def test_bodies_follow_their_media_type(orders: tuple[Path, list[str]]) -> None:
    root, notes = orders
    r = render_written(root, "orders/replace-an-order-xml")
    assert r.header("content-type") == "application/xml"
    assert r.body == b'<order><line sku="SKU-1" quantity="2"/></order>'
    r = render_written(root, "orders/add-a-note-to-an-order")
    assert r.header("content-type") == "text/plain" and r.body == b""
    assert (
        "PATCH /orders/{orderId}: text/plain body has no example to take; "
        "it is left empty to write by hand" in notes
    )
    r = render_written(root, "log-in")
    assert r.body == b"username=shop-owner&password=&remember=true&scopes=orders&scopes=invoices"
    req = load_collection(root).find("orders/attach-an-invoice")[1]  # type: ignore[index]
    assert [(f.name, f.value, f.kind, f.content_type) for f in req.body.fields] == [
        ("kind", "pdf", "text", ""),
        ("metadata", '{"pages": 1}', "text", "application/json"),
        ("file", "", "file", "application/pdf"),
    ]  # the readOnly id is not sent


def test_json_bodies_resolve_refs_and_leave_out_read_only(
    orders: tuple[Path, list[str]],
) -> None:
    root, _ = orders
    r = render_written(root, "orders/create-an-order")
    body = json.loads(r.body_text or "")
    # requestBody $ref -> schema $ref; id, created_at and price are readOnly; a product is a
    # $ref to a $ref; Order inside Order (replaces) is left out rather than sent as null.
    assert body == {
        "lines": [{"sku": "SKU-1", "quantity": 1, "product": {"name": "Anvil"}}],
        "customer": {"name": "Wile E. Coyote", "email": "wile@acme.example.test"},
        "payment_token": "tok_visa",
        "callback_url": "https://example.com",
    }
    r = render_written(root, "customers/update-a-customer")
    assert r.header("content-type") == "application/merge-patch+json"
    assert json.loads(r.body_text or "") == {
        "name": "Wile E. Coyote",
        "email": "wile@acme.example.test",
    }  # the schema's own example, less its readOnly number


def test_what_is_not_carried_over_is_noted(orders: tuple[Path, list[str]]) -> None:
    root, notes = orders
    for line in [
        "server 'https://{tenant}.orders.example.test:{port}/api/v2': {tenant} is acme "
        "(also: globex, initech); change base_url in environment cloud for another",
        "GET /orders: response links (GetOrderById) are not carried over",
        "POST /orders: callbacks (orderShipped) are requests the API makes; not imported",
        "webhooks (orderPaid) are requests the API sends; not imported",
    ]:
        assert line in notes
    r = render_written(root, "orders/list-orders", environment="local")
    assert r.url == (
        "http://127.0.0.1:9000/api/v2/orders?status=open&filter%5Bcustomer%5D=c-42"
        "&filter%5Btotal_gt%5D=100"
    )
    assert r.headers == [
        ("X-Request-Id", SAMPLE_UUID),
        ("Cookie", "locale=en-GB"),  # the optional theme cookie is there, disabled
        ("Authorization", "Bearer jwt"),
    ]
    req = load_collection(root).find("orders/add-a-note-to-an-order")[1]  # type: ignore[index]
    assert req.description.startswith("Deprecated.")
    req = load_collection(root).find("orders/replace-an-order-xml")[1]  # type: ignore[index]
    assert req.description == "See https://docs.orders.example.test/xml (The XML format)"


def test_long_operation_names_make_short_file_names(tmp_path: Path) -> None:
    summary = "Replace " + " and ".join(f"the settings of part {i}" for i in range(14))
    op_id = "get" + "".join(f"Resource{i}" for i in range(30))
    assert len(summary) > 300 and len(op_id) > 250
    spec = {
        "openapi": "3.0.3", "info": {"title": "t"}, "servers": [{"url": "https://x.test"}],
        "tags": [{"name": "t" * 300}],
        "paths": {"/a": {
            "put": {"summary": summary, "tags": ["t" * 300]},
            "post": {"summary": summary, "tags": ["t" * 300]},
            "get": {"operationId": op_id},
        }},
    }  # fmt: skip
    into = tmp_path / "long"
    written, _ = run_import("openapi", json.dumps(spec), into)
    names = sorted(p.relative_to(into).as_posix() for p in written)
    assert all(len(part) <= 85 for name in names for part in name.split("/"))
    col = load_collection(into)
    assert not col.broken and len(col.requests()) == 3
    assert {r.name for r in col.requests()} == {summary, op_id}
