"""Postman's OAuth 2.0 auth and OpenAPI's oauth2 security schemes import as the oauth2 auth,
by the grant they name, and the files written load back to the same auth."""

from __future__ import annotations

import json
from pathlib import Path

from pigeon.importers import run_import
from pigeon.importers.openapi import parse_openapi
from pigeon.importers.postman import parse_postman
from pigeon.store import load_collection


def postman(*params: tuple[str, str]):
    item = {"name": "a", "request": {"url": "https://x.test/me", "auth": {
        "type": "oauth2", "oauth2": [{"key": k, "value": v} for k, v in params]}}}  # fmt: skip
    return parse_postman(json.dumps({"info": {"name": "p"}, "item": [item]}))


def test_postman_oauth2_with_a_token_url_is_the_oauth2_auth() -> None:
    result = postman(
        ("grant_type", "password_credentials"),
        ("accessTokenUrl", "{{idp}}/token"),
        ("clientId", "cli"),
        ("clientSecret", "{{secret}}"),
        ("scope", "read write"),
        ("username", "ada"),
        ("password", "{{pw}}"),
        ("client_authentication", "body"),
        ("addTokenTo", "queryParams"),
        ("accessToken", "old-token"),
    )
    auth = result.requests[0][1].auth
    assert auth is not None and auth.type == "oauth2"
    o = auth.oauth2
    assert (o.grant, o.token_url, o.client_id, o.client_secret, o.scope, o.client_auth) == (
        "password", "{{idp}}/token", "cli", "{{secret}}", "read write", "body",
    )  # fmt: skip
    assert (auth.username, auth.password, auth.location) == ("ada", "{{pw}}", "query")
    assert any("saved access token is left behind" in n for n in result.notes)


def test_postman_grants_map_and_implicit_stays_a_token() -> None:
    def grant(name: str) -> tuple[str, str]:
        auth = postman(("grant_type", name), ("accessTokenUrl", "https://idp/token"),
                       ("authUrl", "https://idp/auth")).requests[0][1].auth  # fmt: skip
        assert auth is not None
        return auth.type, auth.oauth2.grant if auth.type == "oauth2" else auth.token

    assert grant("client_credentials") == ("oauth2", "client_credentials")
    assert grant("authorization_code_with_pkce") == ("oauth2", "authorization_code")
    assert grant("authorization_code") == ("oauth2", "authorization_code")
    assert grant("implicit") == ("bearer", "{{access_token}}")


def spec(flows: dict, scopes: list[str]) -> str:
    return json.dumps({
        "openapi": "3.1.0", "info": {"title": "t", "version": "1"},
        "servers": [{"url": "https://api.test"}],
        "components": {"securitySchemes": {"idp": {"type": "oauth2", "flows": flows}}},
        "security": [{"idp": scopes}],
        "paths": {"/me": {"get": {"operationId": "me", "responses": {"200": {"description": "ok"}}}}},
    })  # fmt: skip


def test_openapi_oauth2_picks_a_flow_that_needs_nobody_with_the_required_scopes() -> None:
    flows = {
        "authorizationCode": {"authorizationUrl": "/authorize", "tokenUrl": "/token"},
        "clientCredentials": {"tokenUrl": "https://idp.test/token", "scopes": {}},
    }
    result = parse_openapi(spec(flows, ["read", "write"]))
    auth = result.auth  # the API's security: the collection's auth
    assert auth is not None and auth.type == "oauth2"
    o = auth.oauth2
    assert (o.grant, o.token_url, o.scope) == (
        "client_credentials",
        "https://idp.test/token",
        "read write",
    )
    assert (o.client_id, o.client_secret) == ("{{client_id}}", "{{client_secret}}")
    assert {"client_id", "client_secret"} <= set(result.variables)
    assert any("the clientCredentials flow" in n for n in result.notes)


def test_openapi_authorization_code_and_device_flows_and_implicit() -> None:
    code = parse_openapi(spec({"authorizationCode": {
        "authorizationUrl": "/authorize", "tokenUrl": "/token"}}, []))  # fmt: skip
    o = code.auth.oauth2
    assert (o.grant, o.auth_url, o.token_url) == (
        "authorization_code", "{{base_url}}/authorize", "{{base_url}}/token",
    )  # fmt: skip
    device = parse_openapi(spec({"deviceAuthorization": {
        "deviceAuthorizationUrl": "https://idp/device", "tokenUrl": "https://idp/token"}}, []))  # fmt: skip
    assert device.auth.oauth2.device_url == "https://idp/device"
    implicit = parse_openapi(spec({"implicit": {"authorizationUrl": "https://idp/a"}}, []))
    auth = implicit.auth
    assert auth.type == "bearer" and auth.token == "{{token}}"


def test_imported_oauth2_files_load_back_the_same(tmp_path: Path) -> None:
    source = tmp_path / "api.json"
    source.write_text(spec({"password": {"tokenUrl": "https://idp.test/token"}}, ["read"]))
    into = tmp_path / "col"
    run_import("openapi", str(source), into)
    auth = load_collection(into).auth
    assert auth is not None and auth.type == "oauth2"
    assert auth.oauth2.grant == "password" and auth.username == "{{username}}"
    text = (into / "collection.toml").read_text()
    assert 'type = "oauth2"' in text and 'grant = "password"' in text
    assert "header_name" not in text  # defaults are left out
