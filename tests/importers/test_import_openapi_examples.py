"""An OpenAPI document's response examples become the requests' saved examples (DESIGN §14),
which ``pigeon mock`` then serves."""

from __future__ import annotations

import json
from pathlib import Path

import httpx

from pigeon.importers import run_import
from pigeon.mock.routes import build_routes
from pigeon.mock.server import MockServer
from pigeon.model import Header
from pigeon.store import load_collection

SPEC = {
    "openapi": "3.0.3",
    "info": {"title": "Users", "version": "1"},
    "servers": [{"url": "https://api.example.test/v1"}],
    "components": {
        "examples": {"ada": {"value": {"id": 1, "name": "Ada"}}},
        "responses": {
            "NotFound": {
                "description": "gone",
                "content": {"application/json": {"example": {"error": "not found"}}},
            }
        },
    },
    "paths": {
        "/users/{id}": {
            "get": {
                "operationId": "getUser",
                "parameters": [{"name": "id", "in": "path", "required": True, "example": 1}],
                "responses": {
                    "200": {
                        "description": "a user",
                        "content": {
                            "application/json": {
                                "examples": {
                                    "ada": {"$ref": "#/components/examples/ada"},
                                    "grace": {"value": {"id": 2, "name": "Grace"}},
                                    "noValue": {"externalValue": "https://x.test/e.json"},
                                }
                            },
                            "application/xml": {"example": "<user/>"},
                        },
                    },
                    "404": {"$ref": "#/components/responses/NotFound"},
                    "4XX": {"content": {"text/plain": {"example": "bad request"}}},
                    "default": {"content": {"application/json": {"schema": {"type": "object"}}}},
                },
            }
        },
        "/ping": {
            "get": {"operationId": "ping", "responses": {"204": {"description": "up"}}},
        },
    },
}


def test_response_examples_are_saved_and_served(tmp_path: Path) -> None:
    source = tmp_path / "users.json"
    source.write_text(json.dumps(SPEC), encoding="utf-8")
    into = tmp_path / "users"
    run_import("openapi", str(source), into)
    col = load_collection(into)
    assert col.broken == [] and col.warnings == []
    by_name = {r.name: r for r in col.requests()}
    examples = by_name["getUser"].examples
    assert [(e.name, e.status) for e in examples] == [
        ("ada", 200),
        ("grace", 200),
        ("404", 404),
        ("4XX", 400),
    ]  # none is made from a schema: "default" has only a schema, "noValue" no value
    assert json.loads(examples[1].body) == {"id": 2, "name": "Grace"}
    assert examples[0].headers == [Header("Content-Type", "application/json")]
    assert (examples[3].body, examples[3].headers) == (
        "bad request",
        [Header("Content-Type", "text/plain")],
    )
    assert by_name["ping"].examples == []

    routes, notes = build_routes(col)
    assert notes == []
    with MockServer(routes) as server, httpx.Client(base_url=server.url, timeout=10) as client:
        # the server URL's path (/v1) is part of the route, as base_url holds it
        assert client.get("/v1/users/5").json() == {"id": 1, "name": "Ada"}
        assert client.get("/v1/users/5", params={"example": "grace"}).json()["name"] == "Grace"
        missing = client.get("/v1/users/5", headers={"Prefer": "example=404"})
        assert (missing.status_code, missing.json()) == (404, {"error": "not found"})
