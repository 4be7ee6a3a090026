"""How a request reaches its server (DESIGN §7): client certificates by host, a CA bundle,
the system trust store, HTTP and SOCKS5 proxies with exclusions, the environment's proxy
variables; against a loopback mTLS server and loopback proxies, in the core and in
`pigeon run`."""

from __future__ import annotations

import ssl
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import trustme

from collection_files import write
from pigeon.cli import main
from pigeon.echo import EchoServer
from pigeon.model import Settings
from pigeon.render import RenderedRequest
from pigeon.send import HttpSession
from pigeon.send_thread import ThreadedSession
from pigeon.session import Session
from pigeon.transport import TransportSpec
from servers import HOST, http_proxy, mtls_context, socks5_proxy, tls_echo_server


@pytest.fixture(scope="module")
def ca() -> trustme.CA:
    return trustme.CA()


@pytest.fixture
def mtls(ca: trustme.CA) -> Iterator[EchoServer]:
    with EchoServer(HOST, 0, ssl_context=mtls_context(ca)) as server:
        yield server


def _files(root: Path, ca: trustme.CA, password: bytes | None = None) -> None:
    client = ca.issue_cert("ada@client.example")
    ca.cert_pem.write_to_path(root / "ca.pem")
    client.cert_chain_pems[0].write_to_path(root / "client.pem")
    key = client.private_key_pem.bytes()
    if password is not None:
        from cryptography.hazmat.primitives import serialization

        loaded = serialization.load_pem_private_key(key, None)
        key = loaded.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.BestAvailableEncryption(password),
        )
    (root / "client.key").write_bytes(key)


def _collection(root: Path, url: str, collection: str = "", env: str = "") -> Path:
    write(root, "collection.toml", f'name = "c"\n{collection}')
    write(root, "req.toml", f'name = "r"\nurl = "{url}"\n')
    if env:
        write(root, "environments/corp.toml", env)
    return root


async def _send(root: Path, environment: str | None = None, trusted: bool = True):
    session = Session.open(root, environment)
    request = session.collection.find("req")[1]  # type: ignore[index]
    try:
        return await session.send(request, trusted=trusted)
    finally:
        await session.close()


CERT = """
[settings]
ca_bundle = "ca.pem"

[[certificates]]
host = "*.nowhere.example"
cert = "other.pem"

[[certificates]]
host = "127.0.0.1"
cert = "client.pem"
key = "client.key"
password = "{{key_password}}"

[variables]
key_password = "k3y-pass"
"""


async def test_a_client_certificate_is_presented_to_a_server_that_requires_one(
    tmp_path: Path, ca: trustme.CA, mtls: EchoServer
) -> None:
    _files(tmp_path, ca, password=b"k3y-pass")
    outcome = await _send(_collection(tmp_path, f"{mtls.url}/get", CERT))
    assert outcome.exchange is not None and outcome.exchange.status == 200, outcome.exchange


async def test_without_a_certificate_the_handshake_fails_in_one_line(
    tmp_path: Path, ca: trustme.CA, mtls: EchoServer
) -> None:
    _files(tmp_path, ca)
    outcome = await _send(
        _collection(tmp_path, f"{mtls.url}/get", '[settings]\nca_bundle = "ca.pem"\n')
    )
    ex = outcome.exchange
    assert ex is not None and ex.status is None
    # TLS 1.3: the refusal arrives as an alert or a reset after the client's side is done.
    assert ex.error and "\n" not in ex.error


async def test_a_wrong_key_password_names_the_certificate(
    tmp_path: Path, ca: trustme.CA, mtls: EchoServer
) -> None:
    _files(tmp_path, ca, password=b"right")
    outcome = await _send(_collection(tmp_path, f"{mtls.url}/get", CERT))
    ex = outcome.exchange
    assert ex is not None and ex.error_kind == "tls"
    assert ex.error == (
        f"Client certificate {tmp_path / 'client.pem'} with key {tmp_path / 'client.key'}: "
        f"wrong password for {tmp_path / 'client.key'}"
    )
    assert "k3y-pass" not in ex.error


async def test_an_encrypted_key_without_a_password_says_so(
    tmp_path: Path, ca: trustme.CA, mtls: EchoServer
) -> None:
    """Never OpenSSL's prompt on the terminal: the key's password is asked of the file."""
    _files(tmp_path, ca, password=b"right")
    settings = '[[certificates]]\nhost = "127.0.0.1"\ncert = "client.pem"\nkey = "client.key"\n'
    outcome = await _send(_collection(tmp_path, f"{mtls.url}/get", settings))
    ex = outcome.exchange
    assert ex is not None and ex.error_kind == "tls"
    assert ex.error.endswith(f"{tmp_path / 'client.key'} is encrypted: give its password")


@pytest.mark.parametrize("scheme", ["http", "socks5", "socks5h"])
@pytest.mark.parametrize("threaded", [False, True], ids=["app", "run"])
async def test_a_proxy_that_refuses_is_named_not_the_target(
    tmp_path: Path, scheme: str, threaded: bool
) -> None:
    from servers import free_port

    with free_port() as proxy_port, free_port() as target_port:
        spec = TransportSpec(proxy=f"{scheme}://user:pw@{HOST}:{proxy_port}")
        url = f"http://{HOST}:{target_port}/x"
        ex = await _send_with(spec, url, threaded)
    assert ex.error_kind == "connect"
    assert ex.error == (
        f"Connection refused by the proxy {scheme}://{HOST}:{proxy_port}: check its address in proxy"
    )
    assert "pw" not in ex.error


@pytest.mark.parametrize("threaded", [False, True], ids=["app", "run"])
async def test_a_name_a_socks5_proxy_leaves_to_this_machine_is_named(threaded: bool) -> None:
    with socks5_proxy() as proxy:
        spec = TransportSpec(proxy=proxy.url)
        ex = await _send_with(spec, "http://nowhere.invalid/x", threaded)
    assert ex.error_kind == "dns"
    assert ex.error.startswith("DNS lookup failed for host nowhere.invalid (")
    assert "socks5h://" in ex.error


async def _send_with(spec: TransportSpec, url: str, threaded: bool):
    from pigeon.model import Settings
    from pigeon.render import RenderedRequest
    from pigeon.send import HttpSession
    from pigeon.send_thread import ThreadedSession

    rendered = RenderedRequest(
        method="GET", url=url, headers=[], settings=Settings(timeout=10), transport=spec
    )
    async with (ThreadedSession if threaded else HttpSession)() as session:
        return await session.send(rendered)


async def test_the_environment_chooses_the_certificate_and_ca(
    tmp_path: Path, ca: trustme.CA, mtls: EchoServer
) -> None:
    _files(tmp_path, ca)
    env = '[settings]\nca_bundle = "ca.pem"\n[[certificates]]\nhost = "127.0.0.*"\ncert = "client.pem"\nkey = "client.key"\n'
    root = _collection(tmp_path, f"{mtls.url}/get", env=env)
    without = await _send(root)
    with_env = await _send(root, "corp")
    assert without.exchange.status is None and without.exchange.error_kind == "tls"
    assert with_env.exchange.status == 200


async def test_an_untrusted_collection_reads_no_certificate_outside_itself(
    tmp_path: Path, ca: trustme.CA, mtls: EchoServer
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    _files(outside, ca)
    settings = f'[[certificates]]\nhost = "127.0.0.1"\ncert = "{outside / "client.pem"}"\n'
    outcome = await _send(_collection(tmp_path / "c", f"{mtls.url}/get", settings), trusted=False)
    assert outcome.exchange is None
    assert "needs trust" in outcome.error and "outside the collection" in outcome.error


async def test_system_trust_does_not_know_a_private_ca_until_its_bundle_is_added(
    tmp_path: Path, ca: trustme.CA
) -> None:
    from servers import tls_echo_server

    ca.cert_pem.write_to_path(tmp_path / "ca.pem")
    with tls_echo_server(ca) as server:
        alone = await _send(
            _collection(tmp_path, f"{server.url}/get", "[settings]\nsystem_trust = true\n")
        )
        both = await _send(
            _collection(
                tmp_path,
                f"{server.url}/get",
                '[settings]\nsystem_trust = true\nca_bundle = "ca.pem"\n',
            )
        )
    assert alone.exchange.error_kind == "tls" and "verif" in alone.exchange.error
    assert both.exchange.status == 200, both.exchange.error


@pytest.mark.parametrize("scheme", ["http", "https"])
async def test_an_http_proxy_carries_http_and_https(
    tmp_path: Path, ca: trustme.CA, scheme: str, echo_server: EchoServer
) -> None:
    from servers import tls_echo_server

    ca.cert_pem.write_to_path(tmp_path / "ca.pem")
    with http_proxy() as proxy, tls_echo_server(ca) as tls:
        target = echo_server if scheme == "http" else tls
        settings = f'[settings]\nproxy = "{proxy.url}"\nca_bundle = "ca.pem"\n'
        outcome = await _send(_collection(tmp_path, f"{target.url}/get", settings))
    assert outcome.exchange.status == 200, outcome.exchange.error
    port = target.url.rsplit(":", 1)[1]
    expected = f"CONNECT {HOST}:{port}" if scheme == "https" else f"GET {target.url}/get"
    assert proxy.targets == [expected]


async def test_a_socks5_proxy_and_its_exclusions(tmp_path: Path, echo_server: EchoServer) -> None:
    with socks5_proxy() as proxy:
        settings = f'[settings]\nproxy = "{proxy.url}"\n'
        via = await _send(_collection(tmp_path, f"{echo_server.url}/get", settings))
        excluded = settings + f'no_proxy = "example.org, {HOST}"\n'
        direct = await _send(_collection(tmp_path, f"{echo_server.url}/get", excluded))
    assert via.exchange.status == 200 and direct.exchange.status == 200, via.exchange.error
    assert proxy.targets == [f"{HOST}:{echo_server.url.rsplit(':', 1)[1]}"]


async def test_the_environments_proxy_variables_unless_trust_env_is_off(
    tmp_path: Path, echo_server: EchoServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    with http_proxy() as proxy:
        monkeypatch.setenv("HTTP_PROXY", proxy.url)
        monkeypatch.setenv("NO_PROXY", "")
        monkeypatch.delenv("http_proxy", raising=False)
        monkeypatch.delenv("no_proxy", raising=False)
        # A collection setting makes a client of its own, which reads the variables anew.
        honoured = await _send(
            _collection(tmp_path, f"{echo_server.url}/get", '[settings]\nno_proxy = "x.invalid"\n')
        )
        ignored = await _send(
            _collection(tmp_path, f"{echo_server.url}/get", "[settings]\ntrust_env = false\n")
        )
    assert honoured.exchange.status == 200 and ignored.exchange.status == 200
    assert proxy.targets == [f"GET {echo_server.url}/get"]


async def test_a_proxy_with_another_scheme_is_refused_in_one_line(tmp_path: Path) -> None:
    outcome = await _send(
        _collection(
            tmp_path, "http://127.0.0.1:9/", '[settings]\nproxy = "ftp://u:secret@proxy:21"\n'
        )
    )
    assert outcome.exchange is None
    assert "start it with http, https, socks5, socks5h://" in outcome.error
    assert "secret" not in outcome.error


def test_pigeon_run_through_a_socks5_proxy_with_a_client_certificate(
    tmp_path: Path, ca: trustme.CA, mtls: EchoServer, capsys: pytest.CaptureFixture[str]
) -> None:
    _files(tmp_path, ca, password=b"k3y-pass")
    with socks5_proxy() as proxy:
        settings = CERT.replace("[settings]\n", f'[settings]\nproxy = "{proxy.url}"\n')
        root = _collection(tmp_path, f"{mtls.url}/get", settings)
        code = main(["run", str(root), "--trust", "--no-color"])
    out, err = capsys.readouterr()
    assert code == 0, out + err
    assert "200 Successful" in out and "k3y-pass" not in out + err
    assert len(proxy.targets) == 1


def test_a_broken_certificates_table_names_its_line(tmp_path: Path, capsys) -> None:
    write(tmp_path, "collection.toml", 'name = "c"\n[[certificates]]\nhost = "a"\n')
    write(tmp_path, "req.toml", 'name = "r"\nurl = "http://127.0.0.1:9"\n')
    code = main(["run", str(tmp_path), "--trust", "--no-color"])
    out, err = capsys.readouterr()
    assert code == 2
    assert "collection.toml" in err and "certificates" in err and "missing cert" in err


def test_export_curl_names_the_proxy_ca_and_certificate(
    tmp_path: Path, ca: trustme.CA, capsys
) -> None:
    _files(tmp_path, ca, password=b"k3y-pass")
    settings = CERT.replace(
        "[settings]\n", '[settings]\nproxy = "socks5h://127.0.0.1:1080"\nno_proxy = "a.example"\n'
    )
    root = _collection(tmp_path, "https://127.0.0.1:8443/get", settings)
    assert main(["export", "curl", str(root), "req", "--trust"]) == 0
    out = capsys.readouterr().out
    assert "--proxy socks5h://127.0.0.1:1080 --noproxy a.example" in out
    assert f"--cacert {tmp_path / 'ca.pem'}" in out
    assert f"--cert {tmp_path / 'client.pem'}:k3y-pass --key {tmp_path / 'client.key'}" in out


def test_an_untrusted_run_names_a_certificate_outside_the_collection(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    settings = '[[certificates]]\nhost = "*"\ncert = "/etc/ssl/private/client.pem"\n'
    root = _collection(tmp_path, "https://127.0.0.1:9/", settings)
    code = main(["run", str(root), "--no-color"])
    _, err = capsys.readouterr()
    assert code == 2
    assert "the certificate for * reads /etc/ssl/private/client.pem, outside the collection" in err


# -- one default verifying context a process ------------------------------------------------


def _context_of(client: Any) -> ssl.SSLContext:
    """The context an httpx client hands each of its TLS connections."""
    return client._transport._pool._ssl_context  # type: ignore[no-any-return]


def _get(url: str) -> RenderedRequest:
    return RenderedRequest(
        method="GET", url=url, headers=[], body=None, body_text=None, settings=Settings()
    )


@pytest.fixture
def no_cert_env(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    monkeypatch.delenv("SSL_CERT_FILE", raising=False)
    monkeypatch.delenv("SSL_CERT_DIR", raising=False)
    return monkeypatch


async def test_sessions_share_one_verifying_context_that_refuses_an_unknown_ca(
    ca: trustme.CA, no_cert_env: pytest.MonkeyPatch
) -> None:
    with tls_echo_server(ca) as server:
        async with HttpSession() as one, HttpSession() as two:
            shared = _context_of(one._client(True))
            assert _context_of(two._client(True)) is shared
            for session in (one, two):
                exchange = await session.send(_get(f"{server.url}/x"))
                assert exchange.error_kind == "tls", exchange.error
        assert server.request_count == 0
    # As strict as the context httpx builds for itself.
    fresh = httpx.create_ssl_context()
    assert shared.check_hostname and shared.verify_mode == ssl.CERT_REQUIRED
    assert shared.minimum_version == fresh.minimum_version and shared.options == fresh.options
    assert len(shared.get_ca_certs()) == len(fresh.get_ca_certs())


async def test_http2_and_http1_clients_and_threaded_sessions_pick_their_shared_context(
    no_cert_env: pytest.MonkeyPatch,
) -> None:
    """httpcore sets the ALPN offer on the context at every connection: clients offering h2
    and clients that do not keep apart, so neither changes the other's offer."""
    async with HttpSession() as h2, HttpSession(http2=False) as h1:
        threaded = ThreadedSession()
        try:
            assert _context_of(h2._client(True)) is not _context_of(h1._client(True))
            assert _context_of(threaded._client(True)) is _context_of(h2._client(True))
        finally:
            await threaded.aclose()


async def test_a_ca_bundle_a_client_certificate_or_no_verification_gets_its_own_context(
    tmp_path: Path, ca: trustme.CA, mtls: EchoServer, no_cert_env: pytest.MonkeyPatch
) -> None:
    _files(tmp_path, ca, password=b"k3y-pass")
    outcome = await _send(_collection(tmp_path, f"{mtls.url}/get", CERT))
    assert outcome.exchange is not None and outcome.exchange.status == 200, outcome.exchange
    bundle = TransportSpec(ca_bundle=str(tmp_path / "ca.pem"))
    cert = TransportSpec(
        ca_bundle=bundle.ca_bundle,
        cert=str(tmp_path / "client.pem"),
        key=str(tmp_path / "client.key"),
        password="k3y-pass",
    )
    async with HttpSession() as session:
        shared = _context_of(session._client(True))
        own = {id(_context_of(session._client(True, spec))) for spec in (bundle, cert)}
        assert id(shared) not in own and len(own) == 2
        assert _context_of(session._client(False)) is not shared
        mine = _context_of(session._client(True, cert))
        async with HttpSession() as other:
            assert _context_of(other._client(True, cert)) is not mine


async def test_the_environments_ssl_cert_file_is_the_default_trust_while_it_is_set(
    tmp_path: Path, ca: trustme.CA, no_cert_env: pytest.MonkeyPatch
) -> None:
    ca.cert_pem.write_to_path(tmp_path / "ca.pem")
    with tls_echo_server(ca) as server:
        url = f"{server.url}/x"
        async with HttpSession() as before:
            assert (await before.send(_get(url))).error_kind == "tls"
        no_cert_env.setenv("SSL_CERT_FILE", str(tmp_path / "ca.pem"))
        async with HttpSession() as trusting:
            exchange = await trusting.send(_get(url))
            assert exchange.error is None and exchange.status == 200, exchange.error
        async with HttpSession(trust_env=False) as untrusting:
            assert (await untrusting.send(_get(url))).error_kind == "tls"
        no_cert_env.delenv("SSL_CERT_FILE")
        async with HttpSession() as after:
            assert (await after.send(_get(url))).error_kind == "tls"
