"""OAuth 1.0a and Hawk auth (DESIGN §7): the published examples (RFC 5849 §1.2 for the
server's recomputation, Hawk's README for the signer), then whole sends checked by loopback
servers that verify with code of their own (RFC 5849 recomputed, an RSA public key, mohawk's
``Receiver``); secrets kept out of history and never sent to another origin."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest

from auth_servers import base_string, hawk_server, hmac_sha1, oauth1_server, oauth_header_params
from collection_files import write
from pigeon.auth_flows import HawkSigner
from pigeon.auth_kinds import FlowAuth
from pigeon.cli import main
from pigeon.history import list_entries
from pigeon.session import Session
from servers import checking_server


def test_the_servers_recomputation_matches_rfc_5849s_example() -> None:
    """RFC 5849 §1.2: the photo request, its base string and HMAC-SHA1 signature."""
    header = (
        'OAuth realm="Photos", oauth_consumer_key="dpf43f3p2l4k3l03", '
        'oauth_token="nnch734d00sl2jdk", oauth_signature_method="HMAC-SHA1", '
        'oauth_timestamp="137131202", oauth_nonce="chapoH", '
        'oauth_signature="MdpQcU8iPSUjWoN%2FUDMsK2sui9I%3D"'
    )
    url = "http://photos.example.net/photos?file=vacation.jpg&size=original"
    params = [("file", "vacation.jpg"), ("size", "original"), *oauth_header_params(header)]
    base = base_string("GET", url, params)
    assert base == (
        "GET&http%3A%2F%2Fphotos.example.net%2Fphotos&file%3Dvacation.jpg%26"
        "oauth_consumer_key%3Ddpf43f3p2l4k3l03%26oauth_nonce%3DchapoH%26"
        "oauth_signature_method%3DHMAC-SHA1%26oauth_timestamp%3D137131202%26"
        "oauth_token%3Dnnch734d00sl2jdk%26size%3Doriginal"
    )
    assert hmac_sha1(base, "kd94hf93k423kf44", "pfkkdhi9sl3r4s00") == "MdpQcU8iPSUjWoN/UDMsK2sui9I="
    assert dict(params)["oauth_signature"] == "MdpQcU8iPSUjWoN/UDMsK2sui9I="


HAWK_EXAMPLE = FlowAuth(
    "hawk",
    hawk_id="dh37fgj492je",
    hawk_key="werxhqb98rpaxn39848xrunpaw3489ruxnpa98w4rxn",
    hawk_algorithm="sha256",
    hawk_ext="some-app-ext-data",
)


def test_the_hawk_signer_matches_the_published_examples() -> None:
    """Hawk's README: a GET, and a POST whose payload is hashed."""
    signer = HawkSigner(HAWK_EXAMPLE, now=lambda: 1353832234, nonce=lambda: "j4h3g2")
    get = httpx.Request("GET", "http://example.com:8000/resource/1?b=1&a=2")
    assert signer.header(get) == (
        'Hawk id="dh37fgj492je", ts="1353832234", nonce="j4h3g2", ext="some-app-ext-data", '
        'mac="6R4rV5iE+NPoym+WwjeHzjAGXUtLNIxmo1vpMofpLAE="'
    )
    post = httpx.Request(
        "POST",
        "http://example.com:8000/resource/1?b=1&a=2",
        headers={"Content-Type": "text/plain"},
        content=b"Thank you for flying Hawk",
    )
    assert signer.header(post) == (
        'Hawk id="dh37fgj492je", ts="1353832234", nonce="j4h3g2", '
        'hash="Yi9LfIIFRtBEPt74PVmbTF/xVAwPn7ub15ePICfgnuY=", ext="some-app-ext-data", '
        'mac="aSe1DERmZuRl3pI36/9BdZmnErTw3sNzOOAUlfeKjVw="'
    )


# -- whole sends ----------------------------------------------------------------------------


def _collection(root: Path, auth: str, url: str, body: str = "json") -> Path:
    write(root, "collection.toml", 'name = "c"\n')
    write(root, ".env", "CS=c0nsumer-s3cret\nTS=t0ken-s3cret\nHAWK=h4wk-k3y-s3cret\n")
    content = {
        "json": '[body]\ntype = "json"\ncontent = \'{"n": 1}\'\n',
        "form": '[body]\ntype = "form"\n[[body.fields]]\nname = "a b"\nvalue = "c&d"\n',
        "none": "",
    }[body]
    write(
        root,
        "req.toml",
        f'name = "r"\nmethod = "POST"\nurl = "{url}/things?b=2&a=1&sp=x%20y"\n\n'
        f"{content}\n[auth]\n{auth}\n",
    )
    return root


async def _send(root: Path) -> tuple[Session, object]:
    session = Session.open(root)
    request = session.collection.find("req")[1]  # type: ignore[index]
    outcome = await session.send(request, trusted=True)
    assert outcome.exchange is not None, outcome.error
    return session, outcome.exchange


OAUTH1 = (
    'type = "oauth1"\nconsumer_key = "ck-1"\nconsumer_secret = "{{$env.CS}}"\n'
    'token = "tok-1"\ntoken_secret = "{{$env.TS}}"\nrealm = "Photos"'
)


@pytest.mark.parametrize("placement", ["header", "query", "body"])
async def test_oauth1_hmac_sha1_is_verified_wherever_it_is_placed(
    tmp_path: Path, placement: str
) -> None:
    auth = f'{OAUTH1}\nplacement = "{placement}"'
    with oauth1_server("c0nsumer-s3cret", "t0ken-s3cret") as server:
        session, ex = await _send(_collection(tmp_path, auth, server.url, body="form"))
        record = session.record(ex)
        await session.close()
    assert record is None
    assert ex.status == 200 and server.verdicts == [True], ex.error  # type: ignore[attr-defined]
    (params,) = server.params
    assert params["oauth_consumer_key"] == "ck-1" and params["oauth_token"] == "tok-1"
    assert params["oauth_signature_method"] == "HMAC-SHA1"
    method, path, headers = server.seen[0]
    assert ("oauth_signature=" in path) == (placement == "query")
    assert ("Authorization" in headers) == (placement == "header")
    text = json.dumps(server.seen)
    assert "c0nsumer-s3cret" not in text and "t0ken-s3cret" not in text
    (entry,) = list_entries(tmp_path)
    history = entry.path.read_text(encoding="utf-8")
    assert "c0nsumer-s3cret" not in history and "t0ken-s3cret" not in history


async def test_oauth1_covers_a_json_body_by_its_hash(tmp_path: Path) -> None:
    with oauth1_server("c0nsumer-s3cret", "t0ken-s3cret") as server:
        session, ex = await _send(_collection(tmp_path, OAUTH1, server.url))
        await session.close()
    assert ex.status == 200, ex.error  # type: ignore[attr-defined]
    assert "oauth_body_hash" in server.params[0]


async def test_oauth1_hmac_sha256_is_verified(tmp_path: Path) -> None:
    auth = f'{OAUTH1}\nsignature_method = "HMAC-SHA256"'
    with oauth1_server("c0nsumer-s3cret", "t0ken-s3cret") as server:
        session, ex = await _send(_collection(tmp_path, auth, server.url, body="form"))
        await session.close()
    assert ex.status == 200, ex.error  # type: ignore[attr-defined]
    assert server.params[0]["oauth_signature_method"] == "HMAC-SHA256"


async def test_oauth1_a_wrong_secret_fails_the_servers_check(tmp_path: Path) -> None:
    with oauth1_server("another-secret", "t0ken-s3cret") as server:
        session, ex = await _send(_collection(tmp_path, OAUTH1, server.url))
        await session.close()
    assert ex.status == 401  # type: ignore[attr-defined]


async def test_oauth1_plaintext_and_callback_and_verifier(tmp_path: Path) -> None:
    auth = f'{OAUTH1}\nsignature_method = "PLAINTEXT"\ncallback = "oob"\nverifier = "v-9"'
    with oauth1_server("c0nsumer-s3cret", "t0ken-s3cret") as server:
        session, ex = await _send(_collection(tmp_path, auth, server.url))
        await session.close()
    assert ex.status == 200, ex.error  # type: ignore[attr-defined]
    params = server.params[0]
    assert params["oauth_callback"] == "oob" and params["oauth_verifier"] == "v-9"


@pytest.fixture(scope="module")
def rsa_pem() -> tuple[bytes, bytes]:
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa

    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    private = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )
    public = key.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    return private, public


@pytest.mark.parametrize("method", ["RSA-SHA1", "RSA-SHA256"])
async def test_oauth1_rsa_with_a_key_file_is_verified_by_the_public_key(
    tmp_path: Path, rsa_pem: tuple[bytes, bytes], method: str
) -> None:
    private, public = rsa_pem
    (tmp_path / "keys").mkdir()
    (tmp_path / "keys" / "oauth.pem").write_bytes(private)
    auth = (
        f'type = "oauth1"\nconsumer_key = "ck-1"\nsignature_method = "{method}"\n'
        'private_key_file = "keys/oauth.pem"'
    )
    with oauth1_server(public_key_pem=public) as server:
        session, ex = await _send(_collection(tmp_path, auth, server.url))
        await session.close()
    assert ex.status == 200 and server.verdicts == [True], ex.error  # type: ignore[attr-defined]
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa

    another = rsa.generate_private_key(public_exponent=65537, key_size=2048).public_key()
    pem = another.public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    with oauth1_server(public_key_pem=pem) as server:
        session, ex = await _send(_collection(tmp_path, auth, server.url))
        await session.close()
    assert server.verdicts == [False]


def test_oauth1_placement_body_without_a_form_body_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _collection(tmp_path, f'{OAUTH1}\nplacement = "body"', "http://127.0.0.1:9")
    assert main(["run", str(root), "--trust", "--no-color"]) == 1
    assert "placement = body needs a form body" in "".join(capsys.readouterr())


async def test_hawk_is_verified_by_mohawk_with_and_without_the_body_hash(tmp_path: Path) -> None:
    pytest.importorskip("mohawk")
    auth = (
        'type = "hawk"\nhawk_id = "dh37fgj492je"\nhawk_key = "{{$env.HAWK}}"\n'
        'hawk_ext = "some-ext"\nhawk_app = "app-1"\nhawk_dlg = "dlg-1"'
    )
    with hawk_server("dh37fgj492je", "h4wk-k3y-s3cret") as server:
        session, ex = await _send(_collection(tmp_path / "a", auth, server.url))
        record = session.record(ex)
        await session.close()
        assert record is None
        assert ex.status == 200, ex.error  # type: ignore[attr-defined]
        header = server.seen[0][2]["Authorization"]
        assert 'hash="' in header and 'app="app-1"' in header and 'dlg="dlg-1"' in header
        skip = auth + '\nhawk_payload = "skip"\nhawk_algorithm = "sha256"'
        session, ex = await _send(_collection(tmp_path / "b", skip, server.url))
        await session.close()
        assert ex.status == 200  # type: ignore[attr-defined]
        assert 'hash="' not in server.seen[1][2]["Authorization"]
    assert server.verdicts == [True, True]
    (entry,) = list_entries(tmp_path / "a")
    assert "h4wk-k3y-s3cret" not in entry.path.read_text(encoding="utf-8")


async def test_hawk_sha1_and_a_wrong_key(tmp_path: Path) -> None:
    pytest.importorskip("mohawk")
    auth = 'type = "hawk"\nhawk_id = "id-1"\nhawk_key = "{{$env.HAWK}}"\nhawk_algorithm = "sha1"'
    with hawk_server("id-1", "h4wk-k3y-s3cret", "sha1") as server:
        session, ex = await _send(_collection(tmp_path, auth, server.url))
        await session.close()
    assert ex.status == 200, ex.error  # type: ignore[attr-defined]
    with hawk_server("id-1", "another-key", "sha1") as server:
        session, ex = await _send(_collection(tmp_path, auth, server.url))
        await session.close()
    assert ex.status == 401  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    "auth",
    [
        f'{OAUTH1}\nplacement = "header"',
        f'{OAUTH1}\nplacement = "query"',
        'type = "hawk"\nhawk_id = "id-1"\nhawk_key = "{{$env.HAWK}}"',
    ],
    ids=["oauth1 header", "oauth1 query", "hawk"],
)
async def test_nothing_signed_goes_to_another_origin(tmp_path: Path, auth: str) -> None:
    """A 307 to another origin, keeping the query as a moved resource does: the other origin
    gets neither the signature nor the OAuth parameters."""

    def moved(handler, body):  # type: ignore[no-untyped-def]
        query = handler.path.partition("?")[2]
        return 307, [("Location", f"http://localhost:{other.port}/moved?{query}")]

    with checking_server(lambda handler, body: None) as other, checking_server(moved) as first:
        session, ex = await _send(_collection(tmp_path, auth, first.url, body="none"))
        await session.close()
    assert ex.status == 200, ex.error  # type: ignore[attr-defined]
    first_path, first_headers = first.seen[0][1], first.seen[0][2]
    assert "Authorization" in first_headers or "oauth_signature=" in first_path
    path, headers = other.seen[0][1], other.seen[0][2]
    assert "Authorization" not in headers
    assert "oauth_" not in path and path.startswith("/moved?b=2&a=1")


def test_pigeon_check_names_what_oauth1_and_hawk_cannot_go_without(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _collection(tmp_path / "o", 'type = "oauth1"\nconsumer_key = "ck"', "http://x")
    assert main(["check", str(root)]) == 1
    assert "oauth1 auth: consumer_secret is empty" in capsys.readouterr().out
    auth = 'type = "oauth1"\nconsumer_key = "ck"\nsignature_method = "RSA-SHA1"\nprivate_key_file = "k.pem"'
    root = _collection(tmp_path / "r", auth, "http://x")
    assert main(["check", str(root)]) == 1
    out = capsys.readouterr().out
    assert "[missing-file] private_key_file: no file k.pem" in out
    root = _collection(tmp_path / "h", 'type = "hawk"\nhawk_key = "k"', "http://x")
    assert main(["check", str(root)]) == 1
    assert "[auth-incomplete] hawk auth: hawk_id is empty" in capsys.readouterr().out


def test_pigeon_render_names_a_send_time_auth_without_its_secrets(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _collection(tmp_path, OAUTH1, "http://127.0.0.1:9")
    assert main(["render", str(root), "req", "--trust"]) == 0
    out = capsys.readouterr().out
    doc = json.loads(out)
    assert doc["auth"] == {
        "type": "oauth1", "consumer_key": "ck-1", "signature_method": "HMAC-SHA1",
        "realm": "Photos",
    }  # fmt: skip
    assert "c0nsumer" not in out and "t0ken" not in out and "tok-1" not in out
    assert main(["render", str(root), "req", "--trust", "--format", "http"]) == 0
    out, err = capsys.readouterr()
    assert "oauth1 auth is applied as the request is sent (consumer_key=ck-1" in err
    assert "c0nsumer" not in out + err


def test_export_curl_says_it_cannot_sign_oauth1_or_hawk(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    hawk = 'type = "hawk"\nhawk_id = "id-1"\nhawk_key = "{{$env.HAWK}}"'
    for sub, auth in (("o", OAUTH1), ("h", hawk)):
        root = _collection(tmp_path / sub, auth, "http://127.0.0.1:9")
        assert main(["export", "curl", str(root), "req", "--trust"]) == 0
        out, err = capsys.readouterr()
        assert "auth signs each request as it is sent: curl has no way to" in err
        assert "s3cret" not in out + err
