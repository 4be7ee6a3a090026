"""The cookie jar kept per collection and environment in `.pigeon/cookies/` (DESIGN §7):
cookies a server sets come back after a restart and between `pigeon run --cookies keep`
runs, never through a link or from a jar Pigeon did not write, not sent with
`send_cookies = false`, and never in history in clear."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from collection_files import write
from pigeon.cli import main
from pigeon.cookies import jar_path
from pigeon.echo import EchoServer
from pigeon.history import list_entries
from pigeon.session import Session

SET = 'name = "Set"\nurl = "{{base}}/cookies/set?flavour=oat-s3cr3t"\n'
SHOW = 'name = "Show"\nurl = "{{base}}/cookies"\n'


def _collection(root: Path, base: str) -> Path:
    write(root, "collection.toml", f'name = "c"\n[variables]\nbase = "{base}"\n')
    write(root, "environments/dev.toml", "[variables]\n")
    write(root, "set.toml", SET)
    write(root, "show.toml", SHOW)
    return root


async def _send(session: Session, request_id: str):
    request = session.collection.find(request_id)[1]  # type: ignore[index]
    outcome = await session.send(request, trusted=True)
    assert outcome.exchange is not None and outcome.exchange.error is None, outcome
    return outcome.exchange


async def test_cookies_come_back_after_a_restart_per_environment(
    tmp_path: Path, echo_server: EchoServer
) -> None:
    root = _collection(tmp_path, echo_server.url)
    first = Session.open(root)
    await _send(first, "set")
    await first.close()
    path = jar_path(root, "")
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert (root / ".pigeon" / ".gitignore").read_text() == "*\n"

    again = Session.open(root)
    assert (await _send(again, "show")).json()["cookies"] == {"flavour": "oat-s3cr3t"}
    again.environment = "dev"  # another environment has a jar of its own
    assert (await _send(again, "show")).json()["cookies"] == {}
    await again.close()


async def test_send_cookies_false_keeps_the_jar_home_but_not_a_hand_set_cookie(
    tmp_path: Path, echo_server: EchoServer
) -> None:
    root = _collection(tmp_path, echo_server.url)
    write(root, "quiet.toml", SHOW + "[settings]\nsend_cookies = false\n")
    write(
        root,
        "hand.toml",
        SHOW + '[[headers]]\nname = "Cookie"\nvalue = "mine=1"\n[settings]\nsend_cookies = false\n',
    )
    session = Session.open(root)
    await _send(session, "set")
    assert (await _send(session, "quiet")).json()["cookies"] == {}
    assert (await _send(session, "hand")).json()["cookies"] == {"mine": "1"}
    assert (await _send(session, "show")).json()["cookies"] == {"flavour": "oat-s3cr3t"}
    await session.close()


async def test_history_never_holds_a_cookie_value(tmp_path: Path, echo_server: EchoServer) -> None:
    root = _collection(tmp_path, echo_server.url)
    session = Session.open(root)
    await _send(session, "set")
    exchange = await _send(session, "show")
    assert session.record(exchange) is None
    await session.close()
    (entry,) = list_entries(root)
    text = entry.path.read_text(encoding="utf-8")
    # The response body echoes the cookie under a field named "cookies": masked like the rest.
    assert "oat-s3cr3t" not in text


@pytest.mark.parametrize("how", ["mode", "link"])
async def test_a_jar_pigeon_did_not_write_is_not_read(
    tmp_path: Path, echo_server: EchoServer, how: str
) -> None:
    root = _collection(tmp_path / "c", echo_server.url)
    path = jar_path(root, "", create=True)
    planted = {"cookies": [{"name": "planted", "value": "1", "domain": "127.0.0.1", "path": "/"}]}
    if how == "mode":  # as a git checkout would leave it
        path.write_text(json.dumps(planted))
        path.chmod(0o644)
    else:
        elsewhere = tmp_path / "elsewhere.json"
        elsewhere.write_text(json.dumps(planted))
        elsewhere.chmod(0o600)
        path.symlink_to(elsewhere)
    session = Session.open(root)
    assert (await _send(session, "show")).json()["cookies"] == {}
    assert any("cookie jar" in entry.text for entry in session.log)
    await session.close()
    if how == "link":  # and nothing is written through the link
        assert json.loads((tmp_path / "elsewhere.json").read_text()) == planted


async def test_hostile_entries_in_a_jar_are_dropped(
    tmp_path: Path, echo_server: EchoServer
) -> None:
    root = _collection(tmp_path, echo_server.url)
    path = jar_path(root, "", create=True)
    entries = [
        {"name": "ok", "value": "1", "domain": "127.0.0.1", "path": "/"},
        {"name": "bad", "value": "1\r\nX-Evil: 1", "domain": "127.0.0.1", "path": "/"},
        {"name": "typed", "value": 5, "domain": "127.0.0.1"},
        "not a cookie",
    ]
    path.write_text(json.dumps({"cookies": entries}))
    path.chmod(0o600)
    session = Session.open(root)
    assert (await _send(session, "show")).json()["cookies"] == {"ok": "1"}
    await session.close()


def test_pigeon_run_keeps_cookies_only_when_asked(
    tmp_path: Path, echo_server: EchoServer, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _collection(tmp_path, echo_server.url)
    write(
        root,
        "show.toml",
        SHOW + "[scripts]\npost_response = '''\nprint(pigeon.response.json()['cookies'])\n'''\n",
    )
    assert main(["run", str(root), "set", "--trust", "--cookies", "keep", "--no-color"]) == 0
    assert main(["run", str(root), "show", "--trust", "--cookies", "keep", "--no-color"]) == 0
    assert main(["run", str(root), "show", "--trust", "--no-color"]) == 0  # fresh by default
    out, err = capsys.readouterr()
    assert out.count("{'flavour': 'oat-s3cr3t'}") == 1, out + err
    assert "{}" in out.split("{'flavour': 'oat-s3cr3t'}")[1]


def test_a_cookie_comes_back_as_it_was_set(tmp_path: Path) -> None:
    """Host-only or for a whole domain, secure, expiry: what the jar knew, it knows again."""
    import http.cookiejar

    from pigeon.cookies import load, make_cookie, save, snapshot

    jar = http.cookiejar.CookieJar()
    jar.set_cookie(make_cookie("h", "1", "corp.example", host_only=True))
    jar.set_cookie(make_cookie("d", "2", ".corp.example", secure=True, expires=4102444800))
    save(snapshot(jar), tmp_path, None)
    again = http.cookiejar.CookieJar()
    assert load(again, tmp_path, None) is None
    seen = {c.name: (c.domain, c.domain_specified, c.secure, c.expires) for c in again}
    assert seen == {
        "h": ("corp.example", False, False, None),
        "d": (".corp.example", True, True, 4102444800),
    }
