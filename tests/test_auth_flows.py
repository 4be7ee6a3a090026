"""Digest and AWS SigV4 auth (DESIGN §7): the signer against AWS's published SigV4 test suite,
and whole sends against loopback servers that check the digest response hash and recompute the
signature with botocore; in the core, in `pigeon run`, and with secrets kept out of history."""

from __future__ import annotations

import dataclasses
import json
from datetime import datetime, timezone
from pathlib import Path

import httpx
import pytest

from collection_files import write
from pigeon.auth_flows import SigV4
from pigeon.cli import main
from pigeon.history import list_entries
from pigeon.render import FlowAuth
from pigeon.session import Session
from servers import digest_server, sigv4_server

SUITE_AUTH = FlowAuth(
    "aws_sigv4",
    access_key="AKIDEXAMPLE",
    secret_key="wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY",
    region="us-east-1",
    service="service",
)
SUITE_TIME = datetime(2015, 8, 30, 12, 36, tzinfo=timezone.utc)
TOKEN = (
    "AQoDYXdzEPT//////////wEXAMPLEtc764bNrC9SAPBSM22wDOk4x4HIZ8j4FZTwdQWLWsKWHGBuFqwAeMicRXmxfpSPfIe"
    "oIYRqTflfKD8YUuwthAx7mSEI/qkPpKPi/kMcGdQrmGdeehM4IC1NtBmUpp2wUE8phUZampKsburEDy0KPkyQDYwT7WZ0w"
    "q5VSXDvp75YU9HFvlRd8Tx6q6fE8YQcHNVXAkiY9q6d+xo0rKwT38xVqr7ZD0u0iPPkUL64lIZbqBAz+scqKmlzm8FDryp"
    "NC9Yjc8fPOLn9FX9KSYvKTr4rvx3iSIlTJabIQwj2ICCR/oLxBA=="
)

# AWS's SigV4 test suite (aws-sig-v4-test-suite): name, method, path, headers, body,
# SignedHeaders, Signature.
VECTORS = [
    ("get-vanilla", "GET", "/", {}, b"", "host;x-amz-date",
     "5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31"),
    ("get-vanilla-query-order-key-case", "GET", "/?Param2=value2&Param1=value1", {}, b"",
     "host;x-amz-date", "b97d918cfa904a5beff61c982a1b6f458b799221646efd99d3219ec94cdf2500"),
    ("get-vanilla-query-order-value", "GET", "/?Param1=value2&Param1=value1", {}, b"",
     "host;x-amz-date", "5772eed61e12b33fae39ee5e7012498b51d56abc0abb7c60486157bd471c4694"),
    ("get-vanilla-utf8-query", "GET", "/?ሴ=bar", {}, b"", "host;x-amz-date",
     "2cdec8eed098649ff3a119c94853b13c643bcf08f8b0a1d91e12c9027818dd04"),
    ("get-header-value-trim", "GET", "/", {"My-Header1": " value1", "My-Header2": ' "a   b   c"'},
     b"", "host;my-header1;my-header2;x-amz-date",
     "acc3ed3afb60bb290fc8d2dd0098b9911fcaa05412b367055dee359757a9c736"),
    ("normalize-path/get-slashes", "GET", "//example//", {}, b"", "host;x-amz-date",
     "9a624bd73a37c9a373b5312afbebe7a714a789de108f0bdfe846570885f57e84"),
    ("normalize-path/get-relative-relative", "GET", "/example1/example2/../..", {}, b"",
     "host;x-amz-date", "5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31"),
    ("post-vanilla", "POST", "/", {}, b"", "host;x-amz-date",
     "5da7c1a2acd57cee7505fc6676e4e544621c30862966e37dddb68e92efbe5d6b"),
    ("post-x-www-form-urlencoded", "POST", "/",
     {"Content-Type": "application/x-www-form-urlencoded"}, b"Param1=value1",
     "content-type;host;x-amz-date",
     "ff11897932ad3f4e8b18135d722051e5ac45fc38421b1da7b9d196a0fe09473a"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("method", "path", "headers", "body", "signed", "signature"),
    [v[1:] for v in VECTORS],
    ids=[v[0] for v in VECTORS],
)
def test_the_signer_matches_the_aws_test_suite(
    method: str, path: str, headers: dict[str, str], body: bytes, signed: str, signature: str
) -> None:
    request = httpx.Request(
        method, "https://example.amazonaws.com" + path, headers=headers, content=body
    )
    SigV4(SUITE_AUTH, signed=headers, now=lambda: SUITE_TIME).sign(request)
    assert request.headers["Authorization"] == (
        "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, "
        f"SignedHeaders={signed}, Signature={signature}"
    )


def test_a_session_token_is_sent_and_signed_as_the_suite_says() -> None:
    request = httpx.Request("POST", "https://example.amazonaws.com/")
    auth = dataclasses.replace(SUITE_AUTH, session_token=TOKEN)
    SigV4(auth, now=lambda: SUITE_TIME).sign(request)
    assert request.headers["X-Amz-Security-Token"] == TOKEN
    assert request.headers["Authorization"].endswith(
        "SignedHeaders=host;x-amz-date;x-amz-security-token, "
        "Signature=85d96828115b5dc0cfc3bd16ad9e210dd772bbebba041836c64533a82be05ead"
    )


def _collection(root: Path, auth: str, url: str, extra: str = "") -> Path:
    write(root, "collection.toml", 'name = "c"\n')
    write(root, ".env", "AWS_SECRET=s3cr3t-aws-key/EXAMPLE\nDIGEST_PW=pa55-digest\n")
    write(
        root,
        "req.toml",
        f'name = "r"\nmethod = "POST"\nurl = "{url}/things?b=2&a=1"\n{extra}\n[body]\ntype = "json"\ncontent = \'{{"n": 1}}\'\n\n[auth]\n{auth}\n',
    )
    return root


DIGEST = 'type = "digest"\nusername = "ada"\npassword = "{{$env.DIGEST_PW}}"'
AWS = (
    'type = "aws_sigv4"\naccess_key = "AKIDTEST"\nsecret_key = "{{$env.AWS_SECRET}}"\n'
    'session_token = "tok-EXAMPLE-123"\nregion = "eu-west-3"\nservice = "execute-api"'
)


async def _send(root: Path) -> tuple[Session, object]:
    session = Session.open(root)
    request = session.collection.find("req")[1]  # type: ignore[index]
    outcome = await session.send(request, trusted=True)
    assert outcome.exchange is not None, outcome.error
    return session, outcome.exchange


async def test_digest_answers_the_challenge_and_never_sends_the_password(tmp_path: Path) -> None:
    with digest_server("ada", "pa55-digest") as server:
        session, ex = await _send(_collection(tmp_path, DIGEST, server.url))
        await session.close()
    assert ex.status == 200, ex.error
    assert server.verdicts == [False, True]  # the challenge, then the right hash
    assert all("pa55-digest" not in json.dumps(seen) for seen in server.seen)


async def test_a_wrong_digest_password_is_refused(tmp_path: Path) -> None:
    with digest_server("ada", "another") as server:
        session, ex = await _send(_collection(tmp_path, DIGEST, server.url))
        await session.close()
    assert ex.status == 401
    assert server.verdicts[-1] is False


async def test_sigv4_signs_the_request_as_sent_and_botocore_agrees(tmp_path: Path) -> None:
    pytest.importorskip("botocore")
    header = '[[headers]]\nname = "X-Custom"\nvalue = "kept   signed"\n'
    with sigv4_server("AKIDTEST", "s3cr3t-aws-key/EXAMPLE", "eu-west-3", "execute-api") as server:
        session, ex = await _send(_collection(tmp_path, AWS, server.url, header))
        record = session.record(ex)
        await session.close()
    assert record is None
    assert ex.status == 200 and server.verdicts == [True], ex.error
    _, _, headers = server.seen[0]
    assert headers["X-Amz-Security-Token"] == "tok-EXAMPLE-123"
    signed = headers["Authorization"].split("SignedHeaders=")[1].split(",")[0].split(";")
    assert {"content-type", "host", "x-amz-date", "x-amz-security-token", "x-custom"} <= set(signed)
    # History keeps neither the secret (never sent) nor the session token or signature.
    (entry,) = list_entries(tmp_path)
    text = entry.path.read_text(encoding="utf-8")
    assert "s3cr3t-aws-key" not in text and "tok-EXAMPLE-123" not in text
    assert "Signature=" not in text


async def test_a_tampered_body_fails_the_servers_check(tmp_path: Path) -> None:
    """The body is covered: the same signature over another body is refused."""
    pytest.importorskip("botocore")
    with sigv4_server("AKIDTEST", "s3cr3t-aws-key/EXAMPLE", "eu-west-3", "execute-api") as server:
        auth = FlowAuth("aws_sigv4", access_key="AKIDTEST", secret_key="s3cr3t-aws-key/EXAMPLE",
                        region="eu-west-3", service="execute-api")  # fmt: skip
        request = httpx.Request("POST", server.url + "/x", content=b'{"n": 1}')
        SigV4(auth).sign(request)
        forged = httpx.Request(
            "POST", server.url + "/x", headers=request.headers, content=b'{"n": 2}'
        )
        with httpx.Client(trust_env=False) as client:
            assert client.send(request).status_code == 200
            assert client.send(forged).status_code == 403


def test_pigeon_run_sends_digest_and_sigv4(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("botocore")
    with digest_server("ada", "pa55-digest") as digest:
        root = _collection(tmp_path / "d", DIGEST, digest.url)
        code = main(["run", str(root), "--trust", "--no-color"])
    with sigv4_server("AKIDTEST", "s3cr3t-aws-key/EXAMPLE", "eu-west-3", "execute-api") as aws:
        root = _collection(tmp_path / "a", AWS, aws.url)
        code2 = main(["run", str(root), "--trust", "--no-color"])
    out, err = capsys.readouterr()
    assert (code, code2) == (0, 0), out + err
    assert out.count("200 Successful") == 2
    assert digest.verdicts == [False, True] and aws.verdicts == [True]
    assert "pa55" not in out + err and "s3cr3t" not in out + err


def test_missing_sigv4_fields_stop_the_request_with_one_line(tmp_path: Path, capsys) -> None:
    root = _collection(
        tmp_path, 'type = "aws_sigv4"\naccess_key = "A"\nsecret_key = "B"', "http://127.0.0.1:9"
    )
    code = main(["run", str(root), "--trust", "--no-color"])
    out, err = capsys.readouterr()
    assert code == 1
    assert "aws_sigv4 auth: region is empty" in out + err


def test_export_curl_lets_curl_apply_digest_and_sigv4(tmp_path: Path, capsys) -> None:
    root = _collection(tmp_path / "d", DIGEST, "http://127.0.0.1:9")
    assert main(["export", "curl", str(root), "req", "--trust"]) == 0
    root = _collection(tmp_path / "a", AWS, "http://127.0.0.1:9")
    assert main(["export", "curl", str(root), "req", "--trust"]) == 0
    digest, aws = capsys.readouterr().out.splitlines()
    assert "--digest --user ada:pa55-digest" in digest
    assert "--aws-sigv4 aws:amz:eu-west-3:execute-api" in aws
    assert "--user AKIDTEST:s3cr3t-aws-key/EXAMPLE" in aws
    assert "-H 'X-Amz-Security-Token: tok-EXAMPLE-123'" in aws


def test_pigeon_check_reads_the_sigv4_fields(tmp_path: Path, capsys) -> None:
    auth = AWS.replace('region = "eu-west-3"', 'region = "{{aws_regoin}}"')
    root = _collection(tmp_path, auth, "http://127.0.0.1:9")
    assert main(["check", str(root)]) == 1
    out = capsys.readouterr().out
    assert "error [unresolved] {{aws_regoin}} resolves in no scope" in out
