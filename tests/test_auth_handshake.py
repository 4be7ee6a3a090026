"""NTLM and Negotiate auth (DESIGN §7): the handshake against a loopback server whose acceptor
is pyspnego's, checking the client's authenticate message with the account it was given; on
one connection, with the body sent on each leg, the password never on the wire, and nothing
sent on after a redirect to another origin."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest

from auth_servers import handshake_server
from collection_files import write
from pigeon.cli import main
from pigeon.history import list_entries
from pigeon.session import Session
from servers import checking_server

pytest.importorskip("spnego")


@pytest.fixture
def users(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The accounts the acceptor knows (``DOMAIN:user:password``)."""
    path = write(tmp_path, "ntlm-users", "CORP:ada:pa55-ntlm\n")
    monkeypatch.setenv("NTLM_USER_FILE", str(path))
    return path


def _collection(root: Path, auth: str, url: str) -> Path:
    write(root, "collection.toml", 'name = "c"\n')
    write(root, ".env", "NTLM_PW=pa55-ntlm\n")
    write(
        root,
        "req.toml",
        f'name = "r"\nmethod = "POST"\nurl = "{url}/things"\n\n[body]\ntype = "json"\n'
        f"content = '{{\"n\": 1}}'\n\n[auth]\n{auth}\n",
    )
    return root


NTLM = 'type = "ntlm"\nusername = "ada"\npassword = "{{$env.NTLM_PW}}"\ndomain = "CORP"'


async def _send(root: Path) -> tuple[Session, object]:
    session = Session.open(root)
    request = session.collection.find("req")[1]  # type: ignore[index]
    outcome = await session.send(request, trusted=True)
    assert outcome.exchange is not None, outcome.error
    return session, outcome.exchange


@pytest.mark.parametrize(("kind", "scheme"), [("ntlm", "NTLM"), ("negotiate", "Negotiate")])
async def test_the_handshake_authenticates_on_one_connection(
    tmp_path: Path, users: Path, kind: str, scheme: str
) -> None:
    auth = NTLM.replace('"ntlm"', f'"{kind}"')
    with handshake_server(kind, scheme, users) as server:
        session, ex = await _send(_collection(tmp_path / "c", auth, server.url))
        record = session.record(ex)
        await session.close()
    assert record is None
    assert ex.status == 200, ex.error  # type: ignore[attr-defined]
    # The request, the negotiate message, the authenticate message, all on one connection.
    assert server.verdicts == [False, False, True]
    assert len(set(server.connections)) == 1
    assert server.principals == ["CORP\\ada"]
    first, second, third = (headers for _, _, headers in server.seen)
    assert "Authorization" not in first
    assert second["Authorization"].startswith(f"{scheme} ")
    assert third["Authorization"].startswith(f"{scheme} ")
    # NTLM's own messages, or (Negotiate) a SPNEGO token around them.
    negotiate = base64.b64decode(second["Authorization"].split()[1])
    assert negotiate.startswith(b"NTLMSSP\0" if kind == "ntlm" else b"\x60")
    assert all(h["Content-Length"] == "8" for h in (first, second, third))
    assert all("pa55-ntlm" not in json.dumps(seen) for seen in server.seen)
    (entry,) = list_entries(tmp_path / "c")
    assert "pa55-ntlm" not in entry.path.read_text(encoding="utf-8")


async def test_a_domain_in_the_username_is_the_same_account(tmp_path: Path, users: Path) -> None:
    auth = 'type = "ntlm"\nusername = "CORP\\\\ada"\npassword = "pa55-ntlm"'
    with handshake_server("ntlm", "NTLM", users) as server:
        session, ex = await _send(_collection(tmp_path, auth, server.url))
        await session.close()
    assert ex.status == 200  # type: ignore[attr-defined]
    assert server.principals == ["CORP\\ada"]


async def test_a_wrong_password_ends_on_the_servers_401(tmp_path: Path, users: Path) -> None:
    auth = NTLM.replace("{{$env.NTLM_PW}}", "not-it")
    with handshake_server("ntlm", "NTLM", users) as server:
        session, ex = await _send(_collection(tmp_path, auth, server.url))
        await session.close()
    assert ex.status == 401  # type: ignore[attr-defined]
    assert server.verdicts == [False, False, False]
    assert server.principals == []


async def test_a_server_that_does_not_offer_the_scheme_gets_one_request(tmp_path: Path) -> None:
    with checking_server(lambda handler, body: (401, [("WWW-Authenticate", "Basic")])) as server:
        session, ex = await _send(_collection(tmp_path, NTLM, server.url))
        await session.close()
    assert ex.status == 401  # type: ignore[attr-defined]
    assert server.verdicts == [False]


async def test_no_handshake_with_another_origin_after_a_redirect(
    tmp_path: Path, users: Path
) -> None:
    with handshake_server("ntlm", "NTLM", users) as other:
        moved = (307, [("Location", f"http://localhost:{other.port}/moved")])
        with checking_server(lambda handler, body: moved) as first:
            session, ex = await _send(_collection(tmp_path, NTLM, first.url))
            await session.close()
    assert ex.status == 401  # type: ignore[attr-defined]
    assert len(other.seen) == 1 and "Authorization" not in other.seen[0][2]


def test_pigeon_run_and_curl_export(
    tmp_path: Path, users: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with handshake_server("ntlm", "NTLM", users) as server:
        root = _collection(tmp_path, NTLM, server.url)
        code = main(["run", str(root), "--trust", "--no-color"])
    assert main(["export", "curl", str(root), "req", "--trust"]) == 0
    out, err = capsys.readouterr()
    assert code == 0, out + err
    assert "200 Successful" in out
    assert "--ntlm --user 'CORP\\ada:pa55-ntlm'" in out


def test_missing_credentials_stop_the_request_and_check_names_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _collection(tmp_path, 'type = "negotiate"\nusername = "ada"', "http://127.0.0.1:9")
    assert main(["run", str(root), "--trust", "--no-color"]) == 1
    assert "negotiate auth: password is empty" in "".join(capsys.readouterr())
    assert main(["check", str(root)]) == 1
    out = capsys.readouterr().out
    assert "error [auth-incomplete]" in out and "password" in out


RUN_PROBE = """
import json, sys
from pigeon.cli import main
try:
    main(["run", sys.argv[1], "--trust", "--no-color"])
except SystemExit:
    pass
print(json.dumps(sorted(sys.modules)))
"""


@pytest.mark.parametrize(
    ("auth", "loaded"),
    [
        ('type = "basic"\nusername = "ada"\npassword = "pw"', ()),
        ('type = "jwt"\nprivate_key = "k"', ("joserfc",)),
        ('type = "oauth1"\nconsumer_key = "ck"\nconsumer_secret = "cs"', ("authlib.oauth1",)),
    ],
    ids=["basic", "jwt", "oauth1"],
)
def test_pigeon_run_loads_an_auth_library_only_for_its_kind(
    tmp_path: Path, auth: str, loaded: tuple[str, ...]
) -> None:
    import subprocess
    import sys

    with checking_server(lambda handler, body: (401, [("WWW-Authenticate", "NTLM")])) as server:
        root = _collection(tmp_path, auth, server.url)
        out = subprocess.run(
            [sys.executable, "-c", RUN_PROBE, str(root)],
            capture_output=True, text=True, timeout=120, check=True,
        ).stdout  # fmt: skip
    modules = set(json.loads(out.splitlines()[-1]))
    libraries = {"spnego", "joserfc", "authlib.oauth1"}
    assert libraries & modules == set(loaded)
