"""Credentials never follow a redirect to another origin (DESIGN §7), checked on the wire:
real loopback servers, 127.0.0.1:A redirecting to localhost:B, to 127.0.0.1:C and from
https to http; what the last server received is what the assertions read."""

from __future__ import annotations

import base64
import ssl
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import trustme

from collection_files import write
from pigeon.cli import main
from pigeon.model import Auth, Header, Request, Settings
from pigeon.redirects import origin
from pigeon.send import Exchange, HttpSession
from pigeon.send_thread import ThreadedSession
from render_support import render_alone
from servers import HopServer, hop_server, server_tls_context
from test_send_held import HeldSession

BASIC = "Basic " + base64.b64encode(b"ada:pw").decode()

# (auth, hand-set headers, what carries the secret: ("header", name, value) or ("query", name))
CASES = {
    "basic": (
        Auth(type="basic", username="ada", password="pw"),
        [],
        ("header", "Authorization", BASIC),
    ),
    "bearer": (Auth(type="bearer", token="t0k"), [], ("header", "Authorization", "Bearer t0k")),
    "api_key header": (
        Auth(type="api_key", key="X-Api-Key", value="k1"),
        [],
        ("header", "X-Api-Key", "k1"),
    ),
    "api_key query": (
        Auth(type="api_key", key="api_key", value="k1", location="query"),
        [],
        ("query", "api_key", "k1"),
    ),
    "hand-set Authorization": (
        None,
        [Header("Authorization", "Token hand")],
        ("header", "Authorization", "Token hand"),
    ),
    "hand-set Cookie": (None, [Header("Cookie", "sid=s3cret")], ("header", "Cookie", "sid=s3cret")),
    "hand-set Proxy-Authorization": (
        None,
        [Header("Proxy-Authorization", "Basic cHJveHk=")],
        ("header", "Proxy-Authorization", "Basic cHJveHk="),
    ),
}


@pytest.fixture(autouse=True, params=["async", "threaded", "held"])
def session_kind(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Every case on the app's async session and on `pigeon run`'s sync client, in a worker
    thread and on the loop's own thread: the tests' ``HttpSession`` is that session."""
    if request.param != "async":
        kind = ThreadedSession if request.param == "threaded" else HeldSession
        monkeypatch.setattr(sys.modules[__name__], "HttpSession", kind)
    return request.param


@pytest.fixture(scope="module")
def ca() -> trustme.CA:
    return trustme.CA()


@pytest.fixture
def a() -> Iterator[HopServer]:
    with hop_server() as server:
        yield server


@pytest.fixture
def b() -> Iterator[HopServer]:
    with hop_server() as server:
        yield server


async def send(
    start: HopServer,
    case: str,
    hops: int = 1,
    keep: bool = False,
    verify: ssl.SSLContext | bool = True,
    tmp: Path = Path("."),
) -> Exchange:
    auth, headers, _ = CASES[case]
    request = Request(
        name="r",
        url=f"{start.url}/go/{hops}?page=2",
        auth=auth,
        headers=list(headers),
        settings=Settings(keep_auth_on_redirect=keep),
    )
    rendered = render_alone(request, tmp)
    async with HttpSession(verify=verify, trust_env=False) as session:
        exchange = await session.send(rendered)
    assert exchange.error is None, exchange.error
    assert exchange.status == 200
    return exchange


def carried(server: HopServer, case: str, index: int = -1) -> bool:
    """Whether request ``index`` that ``server`` received carried the case's secret."""
    path, headers = server.seen[index]
    where, name, *value = CASES[case][2]
    if where == "query":
        return f"{name}=k1" in path
    return any(k.lower() == name.lower() and v == value[0] for k, v in headers)


def to_localhost(server: HopServer) -> str:
    return f"http://localhost:{server.port}"


@pytest.mark.parametrize("case", CASES)
async def test_another_host_receives_no_credential(a: HopServer, b: HopServer, case: str) -> None:
    a.redirect_to = to_localhost(b)
    exchange = await send(a, case)
    assert carried(a, case, 0)  # the first request had it
    assert len(b.seen) == 1 and b.seen[0][0].startswith("/landed?page=2")
    assert not carried(b, case)
    assert len(exchange.warnings) == 1
    assert f"credentials not sent on to http://localhost:{b.port}" in exchange.warnings[0]
    name = CASES[case][2][1]
    assert name in exchange.warnings[0]


@pytest.mark.parametrize("case", CASES)
async def test_another_port_on_the_same_host_receives_no_credential(
    a: HopServer, b: HopServer, case: str
) -> None:
    a.redirect_to = b.url  # 127.0.0.1 both, another port
    exchange = await send(a, case)
    assert carried(a, case, 0)
    assert not carried(b, case)
    assert exchange.warnings


@pytest.mark.parametrize("case", CASES)
async def test_a_redirect_to_the_same_origin_keeps_every_credential(
    a: HopServer, case: str
) -> None:
    exchange = await send(a, case, hops=2)  # a.redirect_to is a itself
    assert [path.split("?")[0] for path, _ in a.seen] == ["/go/2", "/go/1", "/landed"]
    assert all(carried(a, case, i) for i in range(3))
    assert exchange.warnings == []


@pytest.mark.parametrize("case", CASES)
async def test_keep_auth_on_redirect_sends_them_to_another_origin(
    a: HopServer, b: HopServer, case: str
) -> None:
    a.redirect_to = to_localhost(b)
    exchange = await send(a, case, keep=True)
    assert carried(b, case)
    assert exchange.warnings == []


@pytest.mark.parametrize("case", CASES)
async def test_once_dropped_they_stay_dropped_back_at_the_first_origin(
    a: HopServer, b: HopServer, case: str
) -> None:
    a.redirect_to = to_localhost(b)
    b.redirect_to = a.url
    exchange = await send(a, case, hops=2)  # a /go/2 -> b /go/1 -> a /landed
    assert a.seen[-1][0].startswith("/landed")
    assert carried(a, case, 0)
    assert not carried(b, case)
    assert not carried(a, case)  # back at a, still not sent
    assert len(exchange.warnings) == 1  # said once, at the hop that dropped them


@pytest.mark.parametrize("case", ["bearer", "api_key header", "hand-set Cookie"])
async def test_https_to_http_is_another_origin(ca: trustme.CA, b: HopServer, case: str) -> None:
    context = ssl.create_default_context()
    ca.configure_trust(context)
    with hop_server(server_tls_context(ca)) as a:
        a.redirect_to = to_localhost(b)
        exchange = await send(a, case, verify=context)
        assert carried(a, case, 0)
    assert not carried(b, case)
    assert exchange.warnings


def test_origin_is_scheme_host_and_port() -> None:
    def same(x: str, y: str) -> bool:
        return origin(httpx.URL(x)) == origin(httpx.URL(y))

    assert same("http://h/a", "http://h:80/b?q=1")
    assert same("https://h/a", "https://h:443/")
    assert not same("https://h:443/", "http://h:443/")  # a downgrade on the same host and port
    assert not same("http://h/", "https://h/")
    assert not same("http://h:80/", "http://h:81/")
    assert not same("http://h/", "http://i/")


def test_jar_cookies_of_the_new_origin_are_still_sent(a: HopServer, b: HopServer) -> None:
    """Only what the request brought is dropped: B's own cookies from the jar still go to B."""
    import asyncio

    async def go() -> None:
        a.redirect_to = to_localhost(b)
        request = Request(name="r", url=f"{a.url}/go/1", headers=[Header("Cookie", "sid=s3cret")])
        rendered = render_alone(request, Path("."))
        async with HttpSession(trust_env=False) as session:
            session.cookie_jar.set_cookie(_cookie("b_own", "1", "localhost.local"))
            await session.send(rendered)

    asyncio.run(go())
    cookies = [v for k, v in b.seen[-1][1] if k.lower() == "cookie"]
    assert cookies == ["b_own=1"]


def _cookie(name: str, value: str, domain: str):  # type: ignore[no-untyped-def]
    import http.cookiejar

    return http.cookiejar.Cookie(
        0, name, value, None, False, domain, False, False, "/", True, False, None, False,
        None, None, {},
    )  # fmt: skip


def test_pigeon_run_shows_why_the_other_origin_answered(
    a: HopServer, b: HopServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a.redirect_to = to_localhost(b)
    write(tmp_path, "collection.toml", 'name = "c"\n')
    write(
        tmp_path,
        "me.toml",
        f'name = "Me"\nurl = "{a.url}/go/1"\n[auth]\ntype = "bearer"\ntoken = "t0k"\n',
    )
    code = main(["run", str(tmp_path), "--no-color"])
    out = capsys.readouterr().out
    assert code == 0
    assert f"warning: credentials not sent on to http://localhost:{b.port}" in out
    assert "Authorization" in out
    assert not carried(b, "bearer")


def test_the_setting_is_read_written_and_exported(tmp_path: Path) -> None:
    from pigeon.exporters.curl import to_curl
    from pigeon.store import load_collection
    from pigeon.store.write import request_data

    write(tmp_path, "collection.toml", 'name = "c"\n')
    write(
        tmp_path,
        "r.toml",
        'name = "R"\nurl = "http://h/"\n[settings]\nkeep_auth_on_redirect = true\n',
    )
    col = load_collection(tmp_path)
    req = col.requests()[0]
    assert req.settings.keep_auth_on_redirect is True
    assert "keep_auth_on_redirect" not in req.settings.extra
    assert request_data(req)["settings"] == {"keep_auth_on_redirect": True}
    argv = to_curl(render_alone(req, tmp_path))
    assert "--location-trusted" in argv and " -L " not in f" {argv} "
    req.settings.keep_auth_on_redirect = False
    argv = to_curl(render_alone(req, tmp_path))
    assert "--location-trusted" not in argv and " -L " in f" {argv} "


def test_curl_location_trusted_imports_as_the_setting() -> None:
    from pigeon.importers.curl import parse_curl

    ((_, trusted),) = parse_curl("curl --location-trusted -u a:b https://x.test").requests
    assert trusted.settings.follow_redirects and trusted.settings.keep_auth_on_redirect
    ((_, plain),) = parse_curl("curl -L -u a:b https://x.test").requests
    assert plain.settings.follow_redirects and not plain.settings.keep_auth_on_redirect


async def test_sigv4_and_digest_stay_behind_at_another_origin() -> None:
    """Neither the signature nor the session token is sent on to another origin."""
    from pigeon.render import FlowAuth, RenderedRequest
    from pigeon.send import HttpSession
    from servers import hop_server

    auth = FlowAuth("aws_sigv4", access_key="AKID", secret_key="secret",
                    session_token="tok-123456", region="r", service="s")  # fmt: skip
    with hop_server() as first, hop_server() as other:
        first.redirect_to = other.url
        rendered = RenderedRequest("GET", f"{first.url}/go/1", flow_auth=auth)
        async with HttpSession(trust_env=False) as session:
            ex = await session.send(rendered)
    assert ex.status == 200, ex.error
    sent_first = dict(first.seen[0][1])
    assert sent_first["Authorization"].startswith("AWS4-HMAC-SHA256 Credential=AKID/")
    assert sent_first["X-Amz-Security-Token"] == "tok-123456"
    landed = {name.lower() for name, _ in other.seen[0][1]}
    assert "authorization" not in landed and "x-amz-security-token" not in landed
    assert any("X-Amz-Security-Token" in w for w in ex.warnings)
