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


# -- what the jar keeps and where it sends it -------------------------------------------------


def _set_from(jar, url: str, *set_cookies: str) -> None:
    """A response from ``url`` setting ``set_cookies``, seen by the jar as httpx shows it."""
    import httpx

    cookies = httpx.Cookies(jar)
    request = httpx.Request("GET", url)
    cookies.extract_cookies(
        httpx.Response(
            200, headers=[(b"set-cookie", c.encode()) for c in set_cookies], request=request
        )
    )


def _sent(jar, url: str) -> str | None:
    """The Cookie header httpx builds from the jar for ``url`` (it copies the jar first)."""
    import httpx

    from pigeon.tls import default_context

    with httpx.Client(cookies=jar, verify=default_context(http2=False, trust_env=True)) as client:
        return client.build_request("GET", url).headers.get("cookie")


def test_an_ip_address_only_ever_gets_host_only_cookies(tmp_path: Path) -> None:
    """RFC 6265 §5.3: ``Domain=.0.0.1`` from 127.0.0.1 is not kept, so 10.0.0.1 never gets
    it; ``Domain=`` the address itself is kept for that address alone."""
    from pigeon.cookies import load, make_cookie, new_jar

    jar = new_jar()
    _set_from(
        jar,
        "http://127.0.0.1:8000/",
        "wide=1; Domain=.0.0.1",
        "wider=1; Domain=0.1",
        "self=2; Domain=127.0.0.1",
        "plain=3",
    )
    assert {(c.name, c.domain, c.domain_specified) for c in jar} == {
        ("self", "127.0.0.1", False),
        ("plain", "127.0.0.1", False),
    }
    assert _sent(jar, "http://10.0.0.1/") is None
    assert sorted(_sent(jar, "http://127.0.0.1:9/").split("; ")) == ["plain=3", "self=2"]
    v6 = new_jar()
    _set_from(v6, "http://[::1]:8000/", "wide=1; Domain=.1", "self=1; Domain=::1", "plain=2")
    assert sorted(c.name for c in v6) == ["plain", "self"] and _sent(v6, "http://[::2]/") is None
    assert sorted(_sent(v6, "http://[::1]:9/").split("; ")) == ["plain=2", "self=1"]
    # A jar file cannot plant one either.
    with pytest.raises(ValueError):
        make_cookie("wide", "1", ".0.0.1")
    path = jar_path(tmp_path, None, create=True)
    entries = [
        {"name": "wide", "value": "1", "domain": ".0.0.1", "path": "/"},
        {"name": "ok", "value": "1", "domain": "127.0.0.1", "path": "/", "host_only": True},
    ]
    path.write_text(json.dumps({"cookies": entries}))
    path.chmod(0o600)
    again = new_jar()
    warning = load(again, tmp_path, None)
    assert warning == (
        f"cookie jar {path}: not kept: 'wide' (an IP address has cookies for itself alone)"
    )
    assert [c.name for c in again] == ["ok"] and _sent(again, "http://10.0.0.1/") is None


def test_one_rule_for_a_servers_cookie_and_a_typed_one() -> None:
    from pigeon.cookies import cookie_problem, make_cookie, new_jar

    for name, value in [("名前", "値"), ("n", "値"), ("n", "a\tb"), ("n", "a;b"), ("a=b", "c")]:
        assert cookie_problem(name, value) is not None, (name, value)
        with pytest.raises(ValueError):
            make_cookie(name, value, "example.com")
    assert cookie_problem("session", 'a b=c,"d"') is None
    jar = new_jar()
    _set_from(jar, "http://example.com/", "n=a\tb", "名前=値", "ok=1")
    assert [c.name for c in jar] == ["ok"]


@pytest.mark.parametrize("kind", ["app", "run", "held"])
async def test_a_cookie_that_is_not_ascii_is_dropped_by_name_and_breaks_nothing(
    kind: str,
) -> None:
    """``Set-Cookie: 名前=値`` once made every later request to its host unsendable."""
    from pigeon.send import HttpSession
    from pigeon.send_thread import ThreadedSession
    from servers import slow_server
    from test_send import req
    from test_send_held import HeldSession

    answer = (
        "HTTP/1.1 200 OK\r\nSet-Cookie: 名前=値; Path=/\r\nSet-Cookie: tab=a\tb\r\n"
        "Set-Cookie: ok=1; Path=/\r\nContent-Length: 0\r\n\r\n"
    ).encode()
    session_type = {"app": HttpSession, "run": ThreadedSession, "held": HeldSession}[kind]
    with slow_server(lambda: [answer], interval=0) as server:
        async with session_type() as session:
            first = await session.send(req(f"{server.url}/set"))
            second = await session.send(req(f"{server.url}/again"))
    assert first.error is None and second.error is None, (first.error, second.error)
    assert [w for w in first.warnings if "not kept" in w] == [
        "cookie '名前' from 127.0.0.1 not kept: a cookie is printable ASCII, without ;",
        "cookie 'tab' from 127.0.0.1 not kept: a cookie is printable ASCII, without ;",
    ]
    assert ("cookie", "ok=1") in [(k.lower(), v) for k, v in second.sent_headers]


async def test_a_saved_cookie_that_is_not_ascii_no_longer_blocks_its_host(
    tmp_path: Path, echo_server: EchoServer
) -> None:
    """A jar saved before the rule: its bad cookie is dropped as it is read."""
    root = _collection(tmp_path, echo_server.url)
    path = jar_path(root, "", create=True)
    entries = [
        {"name": "名前", "value": "値", "domain": "127.0.0.1", "path": "/", "host_only": True},
        {"name": "ok", "value": "1", "domain": "127.0.0.1", "path": "/", "host_only": True},
    ]
    path.write_text(json.dumps({"cookies": entries}))
    path.chmod(0o600)
    session = Session.open(root)
    assert (await _send(session, "show")).json()["cookies"] == {"ok": "1"}
    await session.close()
    from pigeon.cookies import load, new_jar

    warning = load(new_jar(), root, None)
    assert warning is not None and "not kept: '名前' (a cookie's name is printable ASCII" in warning
