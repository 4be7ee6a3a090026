"""JWT bearer auth: a token signed at render from claims written in TOML (placeholders rendered
JSON-aware), with a key from a secret variable or a file of the collection, checked by a
loopback server that verifies the signature with ``cryptography`` (not the library that
signed it); the key file outside the collection is a trust need."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from auth_servers import jwt_server, verify_jwt
from collection_files import write
from pigeon.auth_kinds import JWT_ALGORITHMS
from pigeon.cli import main
from pigeon.history import list_entries
from pigeon.session import Session
from servers import checking_server

CLAIMS = """
[auth.claims]
sub = "{{user_id}}"
name = "user-{{user_id}}"
roles = "{{roles}}"
aud = ["api", "{{audience}}"]
nested = { admin = "{{admin}}", at = 2024-01-02T03:04:05Z }
"""


def _collection(root: Path, auth: str, url: str) -> Path:
    write(
        root,
        "collection.toml",
        'name = "c"\n\n[variables]\nuser_id = 42\nroles = ["a", "b"]\naudience = "web"\n'
        "admin = true\n",
    )
    write(root, ".env", "JWT_SECRET=hs-s3cret-0123456789abcdef0123456789abcdef\n")
    write(
        root,
        "req.toml",
        f'name = "r"\nmethod = "GET"\nurl = "{url}/things"\n\n[auth]\n{auth}\n',
    )
    return root


async def _send(root: Path) -> tuple[Session, object]:
    session = Session.open(root)
    request = session.collection.find("req")[1]  # type: ignore[index]
    outcome = await session.send(request, trusted=True)
    assert outcome.exchange is not None, outcome.error
    return session, outcome.exchange


HS = 'type = "jwt"\nprivate_key = "{{$env.JWT_SECRET}}"\njwt_exp = "300"\n'


async def test_an_hs256_token_carries_the_claims_rendered_json_aware(tmp_path: Path) -> None:
    secret = b"hs-s3cret-0123456789abcdef0123456789abcdef"
    auth = HS + CLAIMS + '\n[auth.jwt_header]\nkid = "k-{{audience}}"\n'
    with jwt_server(secret) as server:
        session, ex = await _send(_collection(tmp_path, auth, server.url))
        record = session.record(ex)
        await session.close()
    assert record is None
    assert ex.status == 200, ex.error  # type: ignore[attr-defined]
    ((header, claims),) = server.tokens
    assert header == {"alg": "HS256", "typ": "JWT", "kid": "k-web"}
    iat = claims.pop("iat")
    assert claims.pop("exp") == iat + 300
    assert claims == {
        "sub": 42,
        "name": "user-42",
        "roles": ["a", "b"],
        "aud": ["api", "web"],
        "nested": {"admin": True, "at": 1704164645},
    }
    (entry,) = list_entries(tmp_path)
    text = entry.path.read_text(encoding="utf-8")
    assert "hs-s3cret" not in text
    token = server.seen[0][2]["Authorization"].removeprefix("Bearer ")
    assert token not in text  # the token sent is masked with the Authorization header


def _pem_pair(algorithm: str) -> tuple[bytes, bytes]:
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ec, rsa

    if algorithm.startswith("RS"):
        key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    else:
        curve = {"256": ec.SECP256R1, "384": ec.SECP384R1, "512": ec.SECP521R1}[algorithm[2:]]
        key = ec.generate_private_key(curve())  # type: ignore[assignment]
    private = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    public = key.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    return private, public


@pytest.mark.parametrize("algorithm", [a for a in JWT_ALGORITHMS if not a.startswith("HS")])
async def test_rs_and_es_tokens_from_a_key_file_verify_with_the_public_key(
    tmp_path: Path, algorithm: str
) -> None:
    private, public = _pem_pair(algorithm)
    write(tmp_path, "keys/signing.pem", private.decode())
    auth = (
        f'type = "jwt"\njwt_algorithm = "{algorithm}"\nprivate_key_file = "keys/signing.pem"\n'
        'jwt_iat = "omit"\nheader_name = "X-Jwt"\nheader_prefix = ""\n'
        '[auth.claims]\nsub = "{{user_id}}"\n'
    )
    with jwt_server(public, header="X-Jwt", prefix="") as server:
        session, ex = await _send(_collection(tmp_path, auth, server.url))
        await session.close()
    assert ex.status == 200, ex.error  # type: ignore[attr-defined]
    ((header, claims),) = server.tokens
    assert header["alg"] == algorithm and claims == {"sub": 42}  # no iat, no exp


async def test_an_hmac_secret_file_is_read_without_its_final_newline(tmp_path: Path) -> None:
    write(tmp_path, "secret.txt", "file-s3cret-0123456789abcdef0123456789\n")
    auth = 'type = "jwt"\njwt_algorithm = "HS256"\nprivate_key_file = "secret.txt"'
    with jwt_server(b"file-s3cret-0123456789abcdef0123456789") as server:
        session, ex = await _send(_collection(tmp_path, auth, server.url))
        await session.close()
    assert ex.status == 200, ex.error  # type: ignore[attr-defined]


@pytest.mark.parametrize("algorithm", ["HS384", "HS512"])
def test_hs384_and_hs512_verify(tmp_path: Path, algorithm: str) -> None:
    from pigeon.auth_kinds import sign_jwt

    token = sign_jwt(algorithm, b"k" * 64, {"a": 1}, {})
    assert verify_jwt(token, b"k" * 64) == ({"typ": "JWT", "alg": algorithm}, {"a": 1})
    with pytest.raises(ValueError):
        verify_jwt(token, b"j" * 64)


def test_a_key_that_does_not_fit_the_algorithm_stops_the_request(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    auth = 'type = "jwt"\njwt_algorithm = "RS256"\nprivate_key = "not a pem"'
    root = _collection(tmp_path, auth, "http://127.0.0.1:9")
    assert main(["run", str(root), "--trust", "--no-color"]) == 1
    assert "jwt auth: the key does not sign RS256" in "".join(capsys.readouterr())


def test_a_key_file_outside_the_collection_needs_trust(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(tmp_path, "outside.pem", _pem_pair("ES256")[0].decode())
    auth = 'type = "jwt"\njwt_algorithm = "ES256"\nprivate_key_file = "../outside.pem"'
    root = _collection(tmp_path / "c", auth, "http://127.0.0.1:9")
    assert main(["render", str(root), "req"]) == 2
    err = capsys.readouterr().err
    assert "outside.pem" in err and "outside the collection" in err
    assert main(["check", str(root)]) == 1
    assert "[file-outside] private_key_file reads ../outside.pem" in capsys.readouterr().out


def test_render_and_export_show_the_signed_header(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _collection(tmp_path, HS + CLAIMS, "http://127.0.0.1:9")
    assert main(["render", str(root), "req", "--trust"]) == 0
    doc = json.loads(capsys.readouterr().out)
    (name, value), *_ = doc["headers"]
    assert name == "Authorization" and value.startswith("Bearer ey")
    assert main(["export", "curl", str(root), "req", "--trust"]) == 0
    assert "Authorization: Bearer ey" in capsys.readouterr().out


async def test_the_token_stays_behind_at_another_origin(tmp_path: Path) -> None:
    auth = HS + 'header_name = "X-Jwt"\n'
    with checking_server(lambda handler, body: None) as other:
        moved = (307, [("Location", f"http://localhost:{other.port}/moved")])
        with checking_server(lambda handler, body: moved) as first:
            session, ex = await _send(_collection(tmp_path, auth, first.url))
            session.record(ex)
            await session.close()
    assert ex.status == 200, ex.error  # type: ignore[attr-defined]
    token = first.seen[0][2]["X-Jwt"]
    assert token.startswith("Bearer ")
    assert "X-Jwt" not in other.seen[0][2]
    (entry,) = list_entries(tmp_path)  # a header named for a JWT is masked like Authorization
    assert token.split()[1] not in entry.path.read_text(encoding="utf-8")


def test_pigeon_check_names_a_missing_key_and_a_bad_claim_placeholder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    auth = 'type = "jwt"\njwt_exp = "5m"\n[auth.claims]\nsub = "{{user_idd}}"\n'
    root = _collection(tmp_path, auth, "http://x")
    assert main(["check", str(root)]) == 1
    out = capsys.readouterr().out
    assert "[auth-incomplete] jwt auth: private_key or private_key_file is empty" in out
    assert "[auth-incomplete] jwt auth: jwt_exp '5m' is not a whole number of seconds" in out
    assert "[unresolved] {{user_idd}} resolves in no scope" in out


def test_claims_of_any_type_save_byte_for_byte_and_a_change_keeps_them(tmp_path: Path) -> None:
    from pigeon.store import load_collection, save_request

    root = _collection(tmp_path, HS + CLAIMS + '[auth.jwt_header]\nkid = "k"\n', "http://x")
    path = root / "req.toml"
    before = path.read_bytes()
    request = load_collection(root).find("req")[1]  # type: ignore[index]
    assert request.auth.claims["nested"]["admin"] == "{{admin}}"  # type: ignore[union-attr]
    save_request(request)
    assert path.read_bytes() == before
    request.auth.jwt_exp = "60"  # type: ignore[union-attr]
    request.auth.claims["iss"] = "pigeon"  # type: ignore[union-attr]
    save_request(request)
    again = load_collection(root).find("req")[1].auth  # type: ignore[index, union-attr]
    assert again.jwt_exp == "60" and again.claims["iss"] == "pigeon"
    assert again.claims["aud"] == ["api", "{{audience}}"]
    assert again.jwt_header == {"kid": "k"}
