"""The ways to reach an API, each sent from the app with ctrl+r against a real loopback
server: OAuth 2.0's password and refresh-token grants, AWS SigV4 (checked by botocore), and a
client certificate over a SOCKS5 proxy."""

from __future__ import annotations

from pathlib import Path

import pytest
import trustme
from tui_support import main_screen, open_request, running, wait_for

from collection_files import write
from oauth2.oauth_collection import oauth_collection
from oauth_server import Issued, oauth_server
from pigeon.echo import EchoServer
from pigeon.session import Session
from pigeon.tui.app import PigeonApp
from pigeon.tui.themes import bundled_theme_dirs
from servers import HOST, mtls_context, sigv4_server, socks5_proxy


def _app(root: Path) -> PigeonApp:
    return PigeonApp(Session.open(root), theme_dirs=bundled_theme_dirs(), remember_theme=False)


async def _send(app: PigeonApp, pilot, request_id: str):
    await open_request(pilot, request_id)
    await pilot.press("ctrl+r")
    await wait_for(pilot, lambda: main_screen(app).last_exchange is not None)
    return main_screen(app).last_exchange


@pytest.mark.parametrize("grant", ["password", "refresh_token"])
async def test_oauth2_grants_that_need_nobody_send_from_the_app(tmp_path: Path, grant: str) -> None:
    with oauth_server() as (base, state):
        state.refresh["rt-given"] = Issued("cc-client", "read", 1e12)  # issued earlier
        app = _app(oauth_collection(tmp_path / "c", base, "REFRESH_TOKEN=rt-given\n"))
        async with running(app) as pilot:
            exchange = await _send(app, pilot, grant)
    assert exchange.status == 200, exchange.error
    assert state.grants.get(grant) == 1


async def test_aws_sigv4_sends_from_the_app_and_botocore_agrees(tmp_path: Path) -> None:
    pytest.importorskip("botocore")
    write(tmp_path, "collection.toml", 'name = "c"\n')
    write(tmp_path, ".env", "AWS_SECRET=s3cr3t-aws-key/EXAMPLE\n")
    with sigv4_server("AKIDTEST", "s3cr3t-aws-key/EXAMPLE", "eu-west-3", "execute-api") as server:
        write(
            tmp_path,
            "req.toml",
            f'name = "r"\nurl = "{server.url}/things?b=2&a=1"\n[auth]\ntype = "aws_sigv4"\n'
            'access_key = "AKIDTEST"\nsecret_key = "{{$env.AWS_SECRET}}"\n'
            'region = "eu-west-3"\nservice = "execute-api"\n',
        )
        app = _app(tmp_path)
        async with running(app) as pilot:
            exchange = await _send(app, pilot, "req")
    assert exchange.status == 200, exchange.error
    assert server.verdicts == [True]


async def test_a_client_certificate_through_a_socks5_proxy_from_the_app(tmp_path: Path) -> None:
    ca = trustme.CA()
    client = ca.issue_cert("ada@client.example")
    ca.cert_pem.write_to_path(tmp_path / "ca.pem")
    client.cert_chain_pems[0].write_to_path(tmp_path / "client.pem")
    client.private_key_pem.write_to_path(tmp_path / "client.key")
    with EchoServer(HOST, 0, ssl_context=mtls_context(ca)) as server, socks5_proxy() as proxy:
        write(
            tmp_path,
            "collection.toml",
            f'name = "c"\n[settings]\nca_bundle = "ca.pem"\nproxy = "{proxy.url}"\n'
            '[[certificates]]\nhost = "127.0.0.1"\ncert = "client.pem"\nkey = "client.key"\n',
        )
        write(tmp_path, "req.toml", f'name = "r"\nurl = "{server.url}/get"\n')
        app = _app(tmp_path)
        async with running(app) as pilot:
            exchange = await _send(app, pilot, "req")
    assert exchange.status == 200, exchange.error
    assert proxy.targets == [f"{HOST}:{server.port}"]
