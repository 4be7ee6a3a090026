"""Postman's ntlm, oauth1, hawk and jwt auth imported as Pigeon's kinds (written to disk,
read back and rendered; a private key is never written into the collection), and curl's
--ntlm and --negotiate, which the curl export writes back."""

from __future__ import annotations

import json
from pathlib import Path

from pigeon.importers import run_import
from pigeon.store import load_collection
from render_support import render_written


def _postman(tmp_path: Path, auths: dict[str, dict]) -> tuple[Path, list[str]]:
    data = {
        "info": {"name": "a", "schema": "https://schema.getpostman.com/json/collection/v2.1.0/"},
        "item": [
            {"name": name, "request": {"method": "GET", "url": "https://x.test/p", "auth": auth}}
            for name, auth in auths.items()
        ],
    }
    source = tmp_path / "a.postman_collection.json"
    source.write_text(json.dumps(data), encoding="utf-8")
    into = tmp_path / "out"
    _, notes = run_import("postman", str(source), into)
    return into, notes


def _kv(**values: object) -> list[dict[str, object]]:
    return [{"key": k, "value": v} for k, v in values.items()]


def test_each_kind_is_carried_over_and_renders(tmp_path: Path) -> None:
    pem = "-----BEGIN PRIVATE KEY-----\nMII-secret\n-----END PRIVATE KEY-----"
    root, notes = _postman(
        tmp_path,
        {
            "ntlm": {"type": "ntlm", "ntlm": _kv(
                username="ada", password="{{pw}}", domain="CORP", workstation="WS1")},
            "oauth1": {"type": "oauth1", "oauth1": _kv(
                consumerKey="ck", consumerSecret="{{cs}}", token="t", tokenSecret="ts",
                signatureMethod="HMAC-SHA1", realm="r", addParamsToHeader=False,
                nonce="fixed")},
            "oauth1-rsa": {"type": "oauth1", "oauth1": _kv(
                consumerKey="ck", signatureMethod="RSA-SHA512", privateKey=pem,
                addParamsToHeader=True)},
            "hawk": {"type": "hawk", "hawk": _kv(
                authId="id-1", authKey="{{hawk_key}}", algorithm="sha1", extraData="x",
                app="a1", delegation="d1", includePayloadHash=False)},
            "jwt": {"type": "jwt", "jwt": _kv(
                algorithm="HS512", secret="{{jwt_secret}}", addTokenTo="header",
                headerPrefix="JWT", payload='{"sub": "{{user}}", "n": 1}',
                header='{"kid": "k1"}')},
            "jwt-rs": {"type": "jwt", "jwt": _kv(algorithm="RS256", privateKey=pem)},
            "jwt-query": {"type": "jwt", "jwt": _kv(algorithm="HS256", addTokenTo="queryParam")},
        },
    )  # fmt: skip
    col = load_collection(root)
    assert not col.broken
    auths = {r.name: r.auth for r in col.requests()}
    ntlm = auths["ntlm"]
    assert ntlm is not None and (ntlm.type, ntlm.username, ntlm.password, ntlm.domain) == (
        "ntlm", "ada", "{{pw}}", "CORP",
    )  # fmt: skip
    oauth1 = auths["oauth1"]
    assert oauth1 is not None and oauth1.type == "oauth1"
    assert (oauth1.consumer_key, oauth1.consumer_secret, oauth1.token_secret) == (
        "ck",
        "{{cs}}",
        "ts",
    )
    assert (oauth1.realm, oauth1.placement, oauth1.signature_method) == ("r", "query", "HMAC-SHA1")
    rsa = auths["oauth1-rsa"]
    assert rsa is not None and rsa.signature_method == "RSA-SHA1"
    assert rsa.private_key == "{{$env.PRIVATE_KEY}}" and rsa.placement == "header"
    hawk = auths["hawk"]
    assert hawk is not None and (hawk.hawk_id, hawk.hawk_key, hawk.hawk_algorithm) == (
        "id-1", "{{hawk_key}}", "sha1",
    )  # fmt: skip
    assert (hawk.hawk_ext, hawk.hawk_app, hawk.hawk_dlg, hawk.hawk_payload) == (
        "x",
        "a1",
        "d1",
        "skip",
    )
    jwt = auths["jwt"]
    assert jwt is not None and jwt.type == "jwt" and jwt.jwt_algorithm == "HS512"
    assert jwt.private_key == "{{jwt_secret}}" and jwt.oauth2.header_prefix == "JWT"
    assert jwt.claims == {"sub": "{{user}}", "n": 1} and jwt.jwt_header == {"kid": "k1"}
    assert auths["jwt-rs"] is not None and auths["jwt-rs"].private_key == "{{$env.PRIVATE_KEY}}"
    assert auths["jwt-query"] is None
    # No private key in any file written.
    for path in root.rglob("*"):
        if path.is_file():
            assert "MII-secret" not in path.read_text(encoding="utf-8")
    text = "\n".join(notes)
    assert "workstation" in text and "RSA-SHA512 signature is not supported" in text
    assert "fixed nonce" in text and "$env.PRIVATE_KEY" in text
    assert "a JWT sent in the query is not carried over" in text
    # The JWT renders with the claims' placeholders filled.
    (root / "collection.toml").write_text(
        'name = "a"\n\n[variables]\nuser = "ada"\njwt_secret = "s3cret"\n', encoding="utf-8"
    )
    rendered = render_written(root, "jwt")
    assert rendered.header("Authorization").startswith("JWT ey")  # type: ignore[union-attr]


def test_curls_ntlm_and_negotiate_import_as_the_kinds_and_export_back() -> None:
    from pigeon.exporters.curl import curl_argv
    from pigeon.importers.curl import parse_curl
    from render_support import render_alone

    for flag in ("ntlm", "negotiate"):
        result = parse_curl(f"curl --{flag} -u 'CORP\\ada:pw' https://x.test/p")
        ((_, request),) = result.requests
        assert request.auth is not None
        assert (request.auth.type, request.auth.username, request.auth.password) == (
            flag, "CORP\\ada", "pw",
        )  # fmt: skip
        assert result.notes == []
        argv = curl_argv(render_alone(request, Path(".")))
        assert argv[argv.index(f"--{flag}") + 1 : argv.index(f"--{flag}") + 3] == [
            "--user", "CORP\\ada:pw",
        ]  # fmt: skip
