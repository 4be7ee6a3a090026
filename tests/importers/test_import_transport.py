"""Importing digest, AWS SigV4 and client certificates (Postman) and OpenAPI's mutualTLS: mapped
to Pigeon's auth kinds and ``[[certificates]]``, secrets read from ``.env`` instead of written."""

from __future__ import annotations

import json
from pathlib import Path

from pigeon.importers import run_import
from pigeon.store import load_collection


def _postman(tmp_path: Path) -> Path:
    doc = {
        "info": {"name": "t", "schema": "https://schema.getpostman.com/json/collection/v2.1.0/"},
        "item": [
            {
                "name": "digest",
                "request": {
                    "method": "GET",
                    "url": "https://api.corp.example/d",
                    "auth": {
                        "type": "digest",
                        "digest": [
                            {"key": "username", "value": "ada"},
                            {"key": "password", "value": "{{pw}}"},
                            {"key": "realm", "value": "r"},
                        ],
                    },
                    "certificate": {
                        "name": "corp",
                        "matches": ["https://*.corp.example/*", "https://api.corp.example:8443/*"],
                        "cert": {"src": "/home/ada/corp.pem"},
                        "key": {"src": "/home/ada/corp.key"},
                        "passphrase": "not-written-anywhere",
                    },
                },
            },
            {
                "name": "aws",
                "request": {
                    "method": "GET",
                    "url": "https://execute-api.example/x",
                    "auth": {
                        "type": "awsv4",
                        "awsv4": [
                            {"key": "accessKey", "value": "AKID"},
                            {"key": "secretKey", "value": "very-secret-key"},
                            {"key": "sessionToken", "value": "tok"},
                            {"key": "region", "value": "eu-west-3"},
                            {"key": "service", "value": "execute-api"},
                        ],
                    },
                },
            },
        ],
    }
    path = tmp_path / "t.postman_collection.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


def test_postman_digest_awsv4_and_certificates(tmp_path: Path) -> None:
    into = tmp_path / "col"
    _, notes = run_import("postman", str(_postman(tmp_path)), into)
    col = load_collection(into)
    assert not col.broken
    digest = col.find("digest")[1].auth  # type: ignore[index]
    assert (digest.type, digest.username, digest.password) == ("digest", "ada", "{{pw}}")
    aws = col.find("aws")[1].auth  # type: ignore[index]
    assert (aws.type, aws.access_key, aws.region, aws.service) == (
        "aws_sigv4", "AKID", "eu-west-3", "execute-api",
    )  # fmt: skip
    assert aws.secret_key == "{{$env.AWS_SECRET_ACCESS_KEY}}"
    assert aws.session_token == "{{$env.AWS_SESSION_TOKEN}}"
    certs = col.transport.certificates
    assert [(c.host, c.cert, c.key) for c in certs] == [
        ("*.corp.example", "/home/ada/corp.pem", "/home/ada/corp.key"),
        ("api.corp.example", "/home/ada/corp.pem", "/home/ada/corp.key"),
    ]
    assert certs[0].password == "{{$env.CERT_PASSPHRASE}}"
    written = "".join(p.read_text(encoding="utf-8") for p in into.rglob("*.toml"))
    assert "very-secret-key" not in written and "not-written-anywhere" not in written
    assert any("CERT_PASSPHRASE" in n for n in notes)
    assert any("digest realm is taken from the server's challenge" in n for n in notes)


def test_openapi_mutual_tls_becomes_a_certificate_per_server_host(tmp_path: Path) -> None:
    doc = tmp_path / "api.json"
    doc.write_text(
        json.dumps(
            {
                "openapi": "3.1.0",
                "info": {"title": "m", "version": "1"},
                "servers": [{"url": "https://mtls.corp.example/v1"}],
                "components": {"securitySchemes": {"clientCert": {"type": "mutualTLS"}}},
                "security": [{"clientCert": []}],
                "paths": {"/ping": {"get": {"responses": {"200": {"description": "ok"}}}}},
            }
        ),
        encoding="utf-8",
    )
    into = tmp_path / "col"
    _, notes = run_import("openapi", str(doc), into)
    col = load_collection(into)
    assert [(c.host, c.cert, c.key) for c in col.transport.certificates] == [
        ("mtls.corp.example", "client.pem", "client.key")
    ]
    assert any("clientCert needs a client certificate: put client.pem" in n for n in notes)
