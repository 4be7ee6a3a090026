"""OAuth 2.0 on the command line: `pigeon run` fetches and reuses tokens for the grants that
need nobody and refuses the others in one line; `pigeon auth` signs in by the device grant and
fills the cache `pigeon run` uses; no secret reaches the reports, the history or the files."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest

from oauth2.oauth_collection import oauth_collection
from oauth_server import Issued, oauth_server
from pigeon.cli import main

SECRETS = ("cc-secret-9f8e7d", "lovelace-pw-77", "rt-given-3344")


@pytest.fixture
def server():
    with oauth_server() as (base, state):
        yield base, state


def every_file(root: Path) -> str:
    return "\n".join(
        p.read_text(errors="replace")
        for p in sorted(root.rglob("*"))
        if p.is_file() and p.name not in (".env", "oauth2-tokens.json")
    )


def test_pigeon_run_sends_with_every_grant_that_needs_nobody(tmp_path, server, capsys) -> None:
    base, state = server
    state.refresh["rt-given-3344"] = Issued("cc-client", "read", 1e12)
    root = oauth_collection(tmp_path / "c", base, "REFRESH_TOKEN=rt-given-3344\n")
    report = tmp_path / "report.json"
    names = ["client_credentials", "body_auth", "password", "refresh_token"]
    code = main(["run", str(root), *names, "--trust", "--history", f"--report=json:{report}"])
    out = capsys.readouterr()
    assert code == 0, out
    assert out.out.count("200") == 4
    assert state.grants == {"client_credentials": 2, "password": 1, "refresh_token": 1}
    assert main(["run", str(root), *names, "--trust"]) == 0  # the kept tokens
    assert sum(state.grants.values()) == 4
    issued = [t for t in state.me if t]
    assert issued and all(t.startswith("at-") for t in issued)
    history = root / ".pigeon" / "history"
    assert len(list(history.iterdir())) == 4
    written = every_file(root) + report.read_text() + out.out + out.err
    for secret in (*SECRETS, *issued):
        assert secret not in written
    assert "Bearer •••" in every_file(history)


def test_pigeon_run_refuses_the_grants_that_need_a_person(tmp_path, server, capsys) -> None:
    base, state = server
    root = oauth_collection(tmp_path / "c", base)
    code = main(["run", str(root), "device_code", "authorization_code", "--trust"])
    out = capsys.readouterr().out
    assert code == 1
    assert out.count("needs a person") == 2
    assert "pigeon auth" in out
    assert state.grants == {}


def test_export_and_render_show_a_stand_in_never_a_token(tmp_path, server, capsys) -> None:
    base, _ = server
    root = oauth_collection(tmp_path / "c", base)
    assert main(["run", str(root), "client_credentials", "--trust"]) == 0
    capsys.readouterr()
    assert main(["export", "curl", str(root), "client_credentials", "--trust"]) == 0
    curl = capsys.readouterr().out
    assert "Authorization: Bearer <oauth2-token>" in curl
    assert main(["render", str(root), "client_credentials", "--trust"]) == 0
    rendered = json.loads(capsys.readouterr().out)
    assert ["Authorization", "Bearer <oauth2-token>"] in rendered["headers"]
    assert "at-" not in curl + json.dumps(rendered)


def test_pigeon_auth_signs_in_by_the_device_grant_for_pigeon_run(tmp_path, server, capsys) -> None:
    base, state = server
    root = oauth_collection(tmp_path / "c", base)
    approve = threading.Timer(0.6, state.approve, args=("WDJB-MJHT",))
    approve.start()
    try:
        code = main(["auth", str(root), "device_code", "--trust"])
    finally:
        approve.cancel()
    out = capsys.readouterr()
    assert code == 0, out.err
    assert "enter the code WDJB-MJHT" in out.err and f"{base}/activate" in out.err
    assert "token kept for device_code (device_code, scope read, expires in" in out.out
    assert main(["run", str(root), "device_code", "--trust"]) == 0
    assert state.grants == {"device_code": 1}
    assert capsys.readouterr().out.count("200") == 1


def test_pigeon_auth_says_so_for_a_request_without_oauth2(tmp_path, server, capsys) -> None:
    base, _ = server
    root = oauth_collection(tmp_path / "c", base)
    (root / "plain.toml").write_text('name = "plain"\nurl = "{{oauth}}/me"\n')
    assert main(["auth", str(root), "plain"]) == 1
    assert "its auth is not oauth2" in capsys.readouterr().err


def test_pigeon_auth_takes_the_pasted_redirect_url_on_stdin(tmp_path, server) -> None:
    import os
    import subprocess
    import sys

    import httpx

    base, state = server
    root = oauth_collection(tmp_path / "c", base)
    path = root / "authorization_code.toml"
    path.write_text(path.read_text() + 'redirect_uri = "https://app.example/callback"\n')
    proc = subprocess.Popen(
        [sys.executable, "-m", "pigeon", "auth", str(root), "authorization_code", "--trust"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "NO_COLOR": "1"},
    )
    try:
        assert proc.stderr is not None and proc.stdin is not None
        line = proc.stderr.readline()  # "pigeon: sign in at: URL"
        url = line.strip().partition("sign in at: ")[2]
        assert url.startswith(f"{base}/authorize?"), line
        redirected = httpx.get(url).headers["location"]  # the browser, on another machine
        out, err = proc.communicate(redirected + "\n", timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)
    assert proc.returncode == 0, err
    assert "token kept for authorization_code (authorization_code, scope profile" in out
    assert main(["run", str(root), "authorization_code", "--trust"]) == 0
    assert state.grants == {"authorization_code": 1}


def _auth_with_closed_stdin(root: Path, ref: str):
    import os
    import subprocess
    import sys

    return subprocess.Popen(
        [sys.executable, "-m", "pigeon", "auth", str(root), ref, "--trust"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "NO_COLOR": "1"},
    )


def test_pigeon_auth_with_stdin_closed_says_what_it_needs_in_one_line(tmp_path, server) -> None:
    base, state = server
    root = oauth_collection(tmp_path / "c", base)
    path = root / "authorization_code.toml"
    path.write_text(path.read_text() + 'redirect_uri = "https://app.example/callback"\n')
    proc = _auth_with_closed_stdin(root, "authorization_code")
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 1 and out == ""
    lines = err.splitlines()
    assert lines[0].startswith("pigeon: sign in at: ")
    assert len(lines) == 3, err  # the URL, what to paste, then why it cannot be pasted
    assert "needs the URL the browser ended on (or the code) on standard input" in lines[2]
    assert "which is closed" in lines[2]
    assert state.grants == {}


def test_pigeon_auth_with_stdin_closed_waits_for_the_loopback_redirect(tmp_path, server) -> None:
    import httpx

    base, state = server
    root = oauth_collection(tmp_path / "c", base)
    proc = _auth_with_closed_stdin(root, "authorization_code")
    try:
        assert proc.stderr is not None
        url = proc.stderr.readline().strip().partition("sign in at: ")[2]
        proc.stderr.readline()  # what to paste
        assert "standard input is closed" in proc.stderr.readline()  # still waiting
        redirected = httpx.get(url).headers["location"]  # the browser, on this machine
        assert redirected.startswith("http://127.0.0.1:")
        httpx.get(redirected)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)
    assert proc.returncode == 0, err
    assert "token kept for authorization_code" in out
    assert state.grants == {"authorization_code": 1}


@pytest.mark.parametrize("command", ["auth", "graphql-schema"])
def test_commands_that_run_no_script_offer_no_no_scripts(command: str, capsys) -> None:
    assert main([command, "--help"]) == 0
    assert "--no-scripts" not in capsys.readouterr().out
    assert main(["render", "--help"]) == 0
    assert "--no-scripts" in capsys.readouterr().out


def test_pigeon_auth_runs_no_script(tmp_path, server) -> None:
    base, _ = server
    root = oauth_collection(tmp_path / "c", base)
    marker = tmp_path / "ran"
    path = root / "authorization_code.toml"
    path.write_text(
        path.read_text() + 'redirect_uri = "https://app.example/callback"\n'
        f"\n[scripts]\npre_request = '''\nopen({str(marker)!r}, 'w').write('x')\n'''\n"
    )
    proc = _auth_with_closed_stdin(root, "authorization_code")
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 1 and "standard input" in err
    assert not marker.exists()
