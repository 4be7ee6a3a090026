"""OAuth 2.0 through the pipeline against a real authorization server on loopback: every grant
end to end, the token cache and its key, refresh before expiry, one retry on a 401, secrets
never written, and the trust gate in front of a token fetch."""

from __future__ import annotations

import asyncio
import json
import os
import stat
from pathlib import Path

import httpx
import pytest

from oauth2.oauth_collection import oauth_collection
from oauth_server import oauth_server
from pigeon.oauth2 import DevicePrompt, Token, Tokens
from pigeon.pipeline import RunContext, execute
from pigeon.store import load_collection


@pytest.fixture
def server():
    with oauth_server() as (base, state):
        yield base, state


def send(root: Path, name: str, tokens: Tokens | None = None, trusted: bool = True, **kw):
    collection = load_collection(root)
    found = collection.find(name)
    assert found is not None
    ctx = RunContext(collection, trusted=trusted, oauth2=tokens, **kw)

    async def go():
        try:
            return await execute(ctx, *found)
        finally:
            await ctx.aclose()

    return asyncio.run(go())


def cache_file(root: Path) -> Path:
    return root / ".pigeon" / "oauth2-tokens.json"


@pytest.mark.parametrize("grant", ["client_credentials", "body_auth", "password"])
def test_a_grant_that_needs_nobody_fetches_sends_and_caches(tmp_path, server, grant) -> None:
    base, state = server
    root = oauth_collection(tmp_path / "c", base)
    first = send(root, grant)
    assert first.error is None, first.error
    assert first.exchange.status == 200
    second = send(root, grant)  # a new run: the token comes from the cache file
    assert second.exchange.status == 200
    assert sum(state.grants.values()) == 1
    assert state.me[0] == state.me[1]
    assert stat.S_IMODE(cache_file(root).stat().st_mode) == 0o600
    assert (root / ".pigeon" / ".gitignore").read_text() == "*\n"
    sent = second.exchange.request.header("Authorization")
    assert sent == f"Bearer {state.me[0]}"
    assert second.rendered.header("Authorization") == "Bearer <oauth2-token>"


def test_a_refresh_token_grant_starts_from_the_given_token_and_keeps_the_rotated_one(
    tmp_path, server
) -> None:
    base, state = server
    from oauth_server import Issued

    state.refresh["rt-given"] = Issued("cc-client", "read", 1e12)  # issued earlier
    root = oauth_collection(tmp_path / "c", base, "REFRESH_TOKEN=rt-given\n")
    result = send(root, "refresh_token")
    assert result.exchange.status == 200
    assert state.grants["refresh_token"] == 1
    kept = json.loads(cache_file(root).read_text())
    (token,) = kept.values()
    assert token["refresh_token"].startswith("rt-") and token["refresh_token"] != "rt-given"


def test_a_token_near_its_expiry_is_refreshed_before_the_send(tmp_path, server) -> None:
    base, state = server
    state.lifetime = 20  # within the 30 s leeway: renewed at the next send
    root = oauth_collection(tmp_path / "c", base)
    assert send(root, "password").exchange.status == 200
    assert send(root, "password").exchange.status == 200
    assert state.grants == {"password": 1, "refresh_token": 1}
    assert state.me[0] != state.me[1]


def test_a_changed_auth_setting_never_reuses_the_old_token(tmp_path, server) -> None:
    base, state = server
    root = oauth_collection(tmp_path / "c", base)
    assert send(root, "client_credentials").exchange.status == 200
    path = root / "client_credentials.toml"
    path.write_text(path.read_text().replace('scope = "read"', 'scope = "write"'))
    assert send(root, "client_credentials").exchange.status == 200
    assert state.grants["client_credentials"] == 2
    assert send(root, "client_credentials", environment=None).exchange.status == 200
    assert state.grants["client_credentials"] == 2


def test_a_401_is_retried_once_with_a_fresh_token(tmp_path, server) -> None:
    base, state = server
    root = oauth_collection(tmp_path / "c", base)
    assert send(root, "client_credentials").exchange.status == 200
    state.revoke_all()  # the kept token is still "valid" by its expiry, but the server forgot it
    retried = send(root, "client_credentials")
    assert retried.exchange.status == 200
    assert len(state.me) == 3 and state.grants["client_credentials"] == 2
    state.refuse_all = True
    refused = send(root, "client_credentials")
    assert refused.exchange.status == 401
    assert len(state.me) == 5  # one retry, then it gives up
    assert any("refused a fresh OAuth 2.0 token too" in w for w in refused.warnings)


def test_a_refused_client_is_one_line_without_its_secret(tmp_path, server) -> None:
    base, state = server
    root = oauth_collection(tmp_path / "c", base, "")
    (root / ".env").write_text("CLIENT_SECRET=wrong-secret-value\n")
    result = send(root, "client_credentials")
    assert result.exchange is None
    assert result.error.startswith("not sent: OAuth 2.0 token refused: invalid_client")
    assert "\n" not in result.error and "wrong-secret-value" not in result.error
    assert state.me == []


def test_a_token_endpoint_that_floods_fails_the_fetch(tmp_path, server) -> None:
    base, state = server
    state.flood = 3_000_000
    root = oauth_collection(tmp_path / "c", base)
    result = send(root, "client_credentials")
    assert "larger than 1000000 bytes" in result.error
    assert state.me == []


@pytest.mark.parametrize(
    ("placement", "seen"),
    [
        ('location = "query"\n', "access_token="),
        ('header_name = "X-Token"\nheader_prefix = ""\n', "X-Token: "),
    ],
)
def test_the_token_goes_where_the_auth_puts_it(tmp_path, server, placement, seen) -> None:
    base, state = server
    root = oauth_collection(tmp_path / "c", base)
    path = root / "client_credentials.toml"
    path.write_text(path.read_text() + placement)
    result = send(root, "client_credentials")
    assert result.exchange.status == 200
    (token,) = state.me
    sent = result.exchange.request
    wire = sent.url + "".join(f"{n}: {v}" for n, v in sent.headers)
    assert f"{seen}{token}" in wire
    assert "<oauth2-token>" not in wire and "Authorization" not in wire
    assert "%3Coauth2-token%3E" in result.rendered.url or "X-Token" in str(result.rendered.headers)


def test_an_unreachable_token_endpoint_is_one_line(tmp_path, server) -> None:
    base, _ = server
    root = oauth_collection(tmp_path / "c", "http://127.0.0.1:9")
    result = send(root, "client_credentials")
    assert result.error.startswith("not sent: OAuth 2.0 token endpoint unreachable")


def test_an_untrusted_collection_does_not_send_a_process_secret_to_its_token_url(
    tmp_path, server
) -> None:
    base, state = server
    root = oauth_collection(tmp_path / "c", base)
    (root / ".env").write_text("")  # the secret would come from the process environment
    result = send(root, "client_credentials", trusted=False, environ={"CLIENT_SECRET": "x"})
    assert "needs trust: reads $env.CLIENT_SECRET" in result.error
    assert state.grants == {} and state.errors == []

    from pigeon.trust import needs

    collection = load_collection(root)
    found = needs(collection, [collection.find("client_credentials")])
    assert [n.what for n in found] == ["CLIENT_SECRET"]


def test_grants_that_need_a_person_fail_headless_with_one_line(tmp_path, server) -> None:
    base, state = server
    root = oauth_collection(tmp_path / "c", base)
    for grant in ("device_code", "authorization_code"):
        result = send(root, grant)
        assert result.error.startswith(f"not sent: needs a person: the {grant} grant")
        assert "pigeon auth" in result.error
    assert state.grants == {}


class Browser:
    """A person who opens the sign-in URL in a browser that follows the redirect (loopback),
    or, over SSH, pastes the URL the browser ended on."""

    def __init__(self, paste: bool = False):
        self.paste, self.seen = paste, []
        self.approve = None

    async def authorize(self, url: str, redirected):
        self.seen.append(url)
        async with httpx.AsyncClient() as client:
            answer = await client.get(url)
        location = answer.headers["location"]
        if self.paste:
            return location  # the browser could not reach the loopback: pasted by hand
        async with httpx.AsyncClient() as client:
            page = await client.get(location)
        assert "close this tab" in page.text
        return await asyncio.wait_for(redirected, 5)

    async def device(self, prompt: DevicePrompt, approved) -> Token:
        self.seen.append(prompt)
        await asyncio.sleep(0.5)  # the server is polled a few times: authorization_pending
        self.approve(prompt.user_code)
        return await asyncio.wait_for(approved, 10)


@pytest.mark.parametrize("paste", [False, True])
def test_authorization_code_with_pkce_by_loopback_or_paste(tmp_path, server, paste) -> None:
    base, state = server
    root = oauth_collection(tmp_path / "c", base)
    person = Browser(paste=paste)
    result = send(root, "authorization_code", Tokens(root, person))
    assert result.error is None, result.error
    assert result.exchange.status == 200
    assert "code_challenge_method=S256" in person.seen[0]
    assert "redirect_uri=http%3A%2F%2F127.0.0.1%3A" in person.seen[0]
    assert state.grants == {"authorization_code": 1}


def test_a_pasted_answer_for_another_sign_in_is_refused(tmp_path, server) -> None:
    base, state = server
    root = oauth_collection(tmp_path / "c", base)

    class Forger(Browser):
        async def authorize(self, url, redirected):
            return "http://127.0.0.1:1/callback?code=stolen&state=not-yours"

    result = send(root, "authorization_code", Tokens(root, Forger()))
    assert "state does not match" in result.error
    assert state.grants == {}


def test_the_device_grant_polls_at_the_servers_pace_until_approved(tmp_path, server) -> None:
    base, state = server
    root = oauth_collection(tmp_path / "c", base)
    person = Browser()
    person.approve = state.approve
    result = send(root, "device_code", Tokens(root, person))
    assert result.error is None, result.error
    assert result.exchange.status == 200
    (prompt,) = person.seen
    assert prompt.user_code == "WDJB-MJHT" and prompt.verification_uri == f"{base}/activate"
    assert "authorization_pending" in state.errors
    assert "slow_down" not in state.errors
    assert state.grants == {"device_code": 1}


def test_the_device_grant_slows_down_and_gives_up_at_expiry(tmp_path, server) -> None:
    base, state = server
    state.device_interval, state.advertised_interval = 0.5, 0.2  # it tells 0.2, wants 0.5
    state.device_lifetime = 2.0
    root = oauth_collection(tmp_path / "c", base)

    class Idle(Browser):
        async def device(self, prompt, approved):
            return await asyncio.wait_for(approved, 15)  # nobody approves

    result = send(root, "device_code", Tokens(root, Idle(), slow_down=0.4))
    assert state.errors.count("slow_down") == 1  # 0.2 + 0.4 keeps the server's pace after
    assert state.errors[state.errors.index("slow_down") + 1] == "authorization_pending"
    assert "expired" in result.error and "\n" not in result.error
    assert state.grants == {}


def test_the_cache_file_is_never_written_through_a_link(tmp_path, server) -> None:
    base, state = server
    root = oauth_collection(tmp_path / "c", base)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (root / ".pigeon").symlink_to(elsewhere)
    assert send(root, "client_credentials").exchange.status == 200
    assert list(elsewhere.iterdir()) == []
    os.unlink(root / ".pigeon")
    (root / ".pigeon").mkdir()
    target = tmp_path / "victim.json"
    target.write_text("keep")
    cache_file(root).symlink_to(target)
    assert send(root, "client_credentials").exchange.status == 200
    assert target.read_text() == "keep"
    assert not cache_file(root).is_symlink()


def test_oauth2_settings_save_as_a_diff_of_their_own_lines(tmp_path) -> None:
    from pigeon.store import save_request

    root = oauth_collection(tmp_path / "c", "http://127.0.0.1:9")
    path = root / "password.toml"
    path.write_text(path.read_text() + '[auth.params]\nresource = "api://x"\n')
    before = path.read_text()
    _, request = load_collection(root).find("password")
    save_request(request)
    assert path.read_text() == before  # unchanged: byte for byte
    request.auth.oauth2.scope = "read"
    request.auth.location = "query"
    save_request(request)
    after = path.read_text()
    assert after.replace('scope = "read"\n', "").replace('location = "query"\n', "") == before
    _, again = load_collection(root).find("password")
    assert again.auth.oauth2.params == {"resource": "api://x"}
    assert (again.auth.oauth2.scope, again.auth.location) == ("read", "query")


def test_a_token_request_says_it_comes_from_pigeon(tmp_path) -> None:
    from pigeon import __version__
    from servers import recording_server

    with recording_server() as wire:  # answers 204: the fetch fails, its request is kept
        root = oauth_collection(tmp_path / "c", wire.url)
        result = send(root, "client_credentials")
    assert result.error.startswith("not sent: ")
    (head, *_) = wire.requests
    agents = [
        line.split(b":", 1)[1].strip()
        for line in head.split(b"\r\n")
        if line.lower().startswith(b"user-agent:")
    ]
    assert agents == [f"pigeon/{__version__}".encode()]
