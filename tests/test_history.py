"""Send history: one masked JSON file per send, listed newest first, pruned, re-sendable."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest

from pigeon.echo import EchoServer
from pigeon.history import (
    MASK,
    history_dir,
    list_entries,
    load_entry,
    prune,
    record,
    record_and_prune,
    to_request,
)
from pigeon.model import (
    Auth,
    Body,
    Collection,
    Environment,
    Folder,
    FormField,
    Header,
    QueryParam,
    Request,
    Settings,
)
from pigeon.render import RenderedRequest, render_request
from pigeon.scopes import build_scopes
from pigeon.send import Exchange, HttpSession


def _send(root: Path, req: Request) -> Exchange:
    col = Collection(name="h", root=root)
    rendered = render_request(col, [], req, build_scopes(col, [], req, environment="", environ={}))

    async def go() -> Exchange:
        async with HttpSession(trust_env=False) as session:
            return await session.send(rendered)

    return asyncio.run(go())


def test_a_send_creates_an_entry(tmp_path: Path, shared_echo_server: EchoServer) -> None:
    req = Request(
        name="Create user",
        method="POST",
        url=shared_echo_server.url + "/e/users",
        query=[QueryParam("page", "2")],
        body=Body(type="json", content='{"name": "Ada"}'),
    )
    exchange = _send(tmp_path, req)
    assert exchange.error is None
    path = record(tmp_path, exchange)
    assert path.parent == history_dir(tmp_path)
    assert (tmp_path / ".pigeon" / ".gitignore").read_text() == "*\n"
    [entry] = list_entries(tmp_path)
    assert entry.path == path
    assert (entry.method, entry.url) == ("POST", shared_echo_server.url + "/e/users?page=2")
    assert entry.request_name == "Create user"
    assert entry.request_body == b'{"name": "Ada"}'
    assert entry.status == 200 and entry.reason == "OK"
    assert entry.http_version.startswith("HTTP/1.1")
    assert json.loads(entry.body)["json"] == {"name": "Ada"}
    assert entry.body_size == len(exchange.body)
    assert entry.total_ms > 0 and entry.total_ms == pytest.approx(exchange.timings.total_ms)
    assert ("Content-Type", "application/json") in entry.request_headers
    assert abs((entry.started_at - exchange.started_at).total_seconds()) < 0.001


def test_masking(tmp_path: Path, shared_echo_server: EchoServer) -> None:
    (tmp_path / ".env").write_text("SHOP_TOKEN=very-secret-value\nSHORT=abc\n")
    req = Request(
        name="Secret things",
        method="POST",
        url=shared_echo_server.url + "/e/x",
        headers=[
            Header("X-Api-Key", "k-123"),
            Header("Cookie", "sid=1"),
            Header("X-Refresh-Token", "rt"),
            Header("X-Plain", "very-secret-value"),
            Header("X-Short", "abc"),
            Header("X-Visible", "hello"),
        ],
        query=[QueryParam("api_key", "q-secret"), QueryParam("q", "shoes")],
        body=Body(type="text", content="token is very-secret-value"),
        auth=Auth(type="bearer", token="very-secret-value"),
    )
    path = record(tmp_path, _send(tmp_path, req))
    text = path.read_text(encoding="utf-8")
    assert "very-secret-value" not in text and "k-123" not in text and "q-secret" not in text
    entry = load_entry(path)
    headers = dict(entry.request_headers)
    assert headers["Authorization"] == f"Bearer {MASK}"
    assert headers["X-Api-Key"] == MASK and headers["Cookie"] == MASK
    assert headers["X-Refresh-Token"] == MASK and headers["X-Plain"] == MASK
    assert headers["X-Short"] == MASK  # equal to a .env value
    assert headers["X-Visible"] == "hello"
    assert "api_key=%E2%80%A2%E2%80%A2%E2%80%A2" in entry.url and "q=shoes" in entry.url
    assert entry.request_body == f"token is {MASK}".encode()
    # The echo reflected the secrets back in its body: masked there too.
    assert b"very-secret-value" not in entry.body


@dataclass
class FakeRendered:
    method: str = "GET"
    url: str = "http://127.0.0.1/x"
    headers: list[tuple[str, str]] = field(default_factory=list)
    body: bytes | None = None
    name: str = "x"


@dataclass
class FakeExchange:
    """An Exchange-like object: what record() accepts besides pigeon.send.Exchange."""

    rendered: Any
    status: int | None = 200
    reason: str = "OK"
    http_version: str = "HTTP/1.1"
    headers: list[tuple[str, str]] = field(default_factory=list)
    body: bytes = b""
    body_size: int = 0
    timings: dict[str, float] = field(default_factory=lambda: {"total": 12.5})
    error: str | None = None
    started_at: datetime = field(default_factory=lambda: datetime.now(timezone.utc))


def test_cap_binary_and_set_cookie(tmp_path: Path) -> None:
    body = "é".encode() * 1000  # 2000 bytes
    ex = FakeExchange(
        FakeRendered(), headers=[("Set-Cookie", "sid=abc; Path=/")], body=body, body_size=len(body)
    )
    entry = load_entry(record(tmp_path, ex, cap=1001))
    assert entry.body_truncated and entry.body == "é".encode() * 500  # not cut inside a character
    assert entry.body_size == 2000 and entry.total_ms == 12.5
    assert entry.response_headers == [("Set-Cookie", MASK)]
    binary = bytes(range(256))
    entry = load_entry(record(tmp_path, FakeExchange(FakeRendered(body=binary), body=binary)))
    assert entry.body == binary and entry.request_body == binary and not entry.body_truncated


def test_a_cut_body_keeps_the_digest_of_the_whole(tmp_path: Path) -> None:
    """A diff needs to know whether two large bodies are the same: the start alone cannot."""
    import hashlib

    body = b"a" * 5000
    entry = load_entry(record(tmp_path, FakeExchange(FakeRendered(), body=body), cap=1000))
    assert entry.body_truncated and len(entry.body) == 1000
    assert entry.body_sha256 == hashlib.sha256(body).hexdigest()
    assert entry.to_exchange().body_sha256 == entry.body_sha256
    small = load_entry(record(tmp_path, FakeExchange(FakeRendered(), body=b"a"), cap=1000))
    assert small.body_sha256 is None  # kept whole: the body itself is compared
    # Too big for memory: the whole body is on disk, and its digest is taken from there.
    spooled = tmp_path / "spool"
    spooled.write_bytes(body + b"b")
    ex = Exchange(
        request=RenderedRequest(method="GET", url="http://h/"),
        status=200,
        body=body[:2000],
        body_size=len(body) + 1,
        truncated=True,
        body_path=spooled,
    )
    entry = load_entry(record(tmp_path, ex, cap=1000))
    assert entry.body_sha256 == hashlib.sha256(body + b"b").hexdigest()


def test_an_entry_keeps_the_environment_it_was_sent_with(tmp_path: Path) -> None:
    col = Collection(root=tmp_path, name="c")
    col.environments["staging"] = Environment("staging", {"host": "s.example"})
    req = Request(name="r", url="http://{{host}}/")
    rendered = render_request(col, [], req, build_scopes(col, [], req, environment="staging"))
    assert rendered.environment == "staging"
    entry = load_entry(record(tmp_path, FakeExchange(rendered)))
    assert entry.environment == "staging" and entry.to_exchange().request.environment == "staging"
    none = render_request(col, [], req, build_scopes(col, [], req, environment=""))
    assert load_entry(record(tmp_path, FakeExchange(none))).environment == ""


def test_entries_follow_requests_renamed_or_moved_in_the_store(tmp_path: Path) -> None:
    from pigeon import store

    root = tmp_path / "c"
    root.mkdir()
    (root / "collection.toml").write_text('name = "c"\n', encoding="utf-8")
    (root / "users").mkdir()
    (root / "users" / "list.toml").write_text('name = "List"\nurl = "http://h/"\n', "utf-8")
    col = store.load_collection(root)
    (req,) = col.requests()
    sent = RenderedRequest(method="GET", url="http://h/", name="List", request_id=req.id)
    record(root, FakeExchange(sent))
    store.rename_request(col, req, "All users")
    assert [e.request_id for e in list_entries(root)] == ["users/all-users"]
    folder = next(f for f in col.items if isinstance(f, Folder))
    store.rename_folder(col, folder, "People")
    assert [e.request_id for e in list_entries(root)] == ["people/all-users"]
    store.move_request(col, req, None)
    assert [e.request_id for e in list_entries(root)] == ["all-users"]
    # A new request that takes an old id is its own: its entries are not moved away.
    (root / "users").mkdir(exist_ok=True)
    (root / "users" / "list.toml").write_text('name = "List"\nurl = "http://h/"\n', "utf-8")
    record(root, FakeExchange(sent))
    assert list_entries(root)[0].request_id == "users/list"


def test_errors_are_recorded(tmp_path: Path) -> None:
    ex = FakeExchange(FakeRendered(), status=None, reason="", error="connection refused")
    entry = load_entry(record(tmp_path, ex))
    assert entry.status is None and entry.error == "connection refused" and not entry.ok
    assert "connection refused" in entry.label


def test_list_newest_first_and_prune(tmp_path: Path) -> None:
    now = datetime.now(timezone.utc)
    paths = [
        record(
            tmp_path,
            FakeExchange(FakeRendered(name=f"r{i}"), started_at=now - timedelta(days=10 - i)),
        )
        for i in range(10)
    ]
    (history_dir(tmp_path) / "notes.txt").write_text("not an entry")
    (history_dir(tmp_path) / "broken.json").write_text("{")
    entries = list_entries(tmp_path)
    assert [e.request_name for e in entries] == [f"r{i}" for i in range(9, -1, -1)]
    assert prune(tmp_path, older_than=timedelta(days=5, hours=12)) == 5
    assert [e.request_name for e in list_entries(tmp_path)] == ["r9", "r8", "r7", "r6", "r5"]
    assert prune(tmp_path, keep=3) == 2
    assert [e.request_name for e in list_entries(tmp_path)] == ["r9", "r8", "r7"]
    assert all(not p.exists() for p in paths[:7])
    assert (history_dir(tmp_path) / "notes.txt").exists()
    assert prune(tmp_path, keep=0) == 3 and list_entries(tmp_path) == []
    with pytest.raises(ValueError):
        prune(tmp_path, keep=-1)


def test_to_request_resends_the_same_request(
    tmp_path: Path, shared_echo_server: EchoServer
) -> None:
    req = Request(
        name="Send it",
        method="PUT",
        url=shared_echo_server.url + "/e/items/7",
        headers=[Header("X-One", "1")],
        query=[QueryParam("v", "a b")],
        body=Body(type="json", content='{"n": 1}'),
        auth=Auth(type="bearer", token="tok-xyz"),
    )
    req.settings.timeout = 9.0
    first = _send(tmp_path, req)
    entry = load_entry(record(tmp_path, first))
    again = to_request(entry)
    assert again.settings.timeout == 9.0
    assert [(h.name, h.enabled) for h in again.headers] == [
        ("X-One", True), ("Authorization", False), ("Content-Type", True),
    ]  # fmt: skip
    second = _send(tmp_path, again)
    a, b = json.loads(first.body), json.loads(second.body)
    assert (a["method"], a["url"], a["body"]) == (b["method"], b["url"], b["body"])


def test_load_entry_refuses_other_files(tmp_path: Path) -> None:
    bad = tmp_path / "x.json"
    bad.write_text('{"format": 1}')
    with pytest.raises(ValueError, match="not a Pigeon history entry"):
        load_entry(bad)


@pytest.mark.skipif(not hasattr(os, "getuid"), reason="POSIX only")
def test_history_is_git_ignored(tmp_path: Path) -> None:
    record(tmp_path, FakeExchange(FakeRendered()))
    if subprocess.run(["git", "--version"], capture_output=True).returncode != 0:
        pytest.skip("git is not installed")
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    out = subprocess.run(
        ["git", "-C", str(tmp_path), "status", "--porcelain", "--untracked-files=all"],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    assert ".pigeon" not in out.stdout


def test_rendered_request_type_is_accepted(tmp_path: Path) -> None:
    rendered = RenderedRequest(method="GET", url="http://127.0.0.1/a?token=t1", name="typed")
    entry = load_entry(record(tmp_path, FakeExchange(rendered)))
    assert entry.url == "http://127.0.0.1/a?token=%E2%80%A2%E2%80%A2%E2%80%A2"


# -- secrets in bodies ------------------------------------------------------------------------


def test_a_login_keeps_neither_the_password_nor_the_token(
    tmp_path: Path, shared_echo_server: EchoServer
) -> None:
    req = Request(
        name="Log in",
        method="POST",
        url=shared_echo_server.url + "/login",
        body=Body(type="json", content='{"username": "ada", "password": "pw-123456"}'),
    )
    exchange = _send(tmp_path, req)
    token = exchange.json()["token"]
    path = record(tmp_path, exchange)
    text = path.read_text(encoding="utf-8")
    assert "pw-123456" not in text and token not in text
    entry = load_entry(path)
    assert json.loads(entry.request_body or b"") == {"username": "ada", "password": MASK}
    assert json.loads(entry.body) == {"token": MASK, "token_type": "Bearer", "expires_in": 3600}
    assert (
        entry.request_body == f'{{"username": "ada", "password": "{MASK}"}}'.encode()
    )  # as laid out


def test_json_secrets_nested_and_in_arrays_and_their_echoes(
    tmp_path: Path, shared_echo_server: EchoServer
) -> None:
    (tmp_path / ".env").write_text("SHOP_TOKEN=env-secret-4242\n")
    sent = {
        "user": {"name": "ada", "Password": "pw", "api-key": 12345, "apiKey": ""},
        "sessions": [{"refresh_token": "rt-abcdef"}, {"ID-TOKEN": "it-abcdef"}],
        "Client_Secret": {"value": "cs-1", "rotated": True, "old": ["cs-0", None]},
        "token_type": "Bearer",
        "monkey": "banana",
        "note": "made with env-secret-4242 inside",
        "count": 3,
    }
    req = Request(
        name="Nested",
        method="POST",
        url=shared_echo_server.url + "/e/x",
        body=Body(type="json", content=json.dumps(sent, indent=2)),
    )
    path = record(tmp_path, _send(tmp_path, req))
    masked = {
        "user": {"name": "ada", "Password": MASK, "api-key": MASK, "apiKey": ""},
        "sessions": [{"refresh_token": MASK}, {"ID-TOKEN": MASK}],
        "Client_Secret": {"value": MASK, "rotated": True, "old": [MASK, None]},
        "token_type": "Bearer",
        "monkey": "banana",
        "note": f"made with {MASK} inside",
        "count": 3,
    }
    entry = load_entry(path)
    assert json.loads(entry.request_body or b"") == masked
    assert entry.request_body.decode().startswith('{\n  "user": {')  # the layout is kept
    echoed = json.loads(entry.body)
    assert echoed["json"] == masked
    assert json.loads(echoed["body"]) == masked  # the raw body the server showed back
    text = path.read_text(encoding="utf-8")
    for secret in ("rt-abcdef", "it-abcdef", "cs-1", "cs-0", "12345", "env-secret-4242"):
        assert secret not in text, secret


def test_form_and_multipart_secrets(tmp_path: Path, shared_echo_server: EchoServer) -> None:
    fields = [
        FormField("username", "ada"),
        FormField("client_secret", "cs-777777"),
        FormField("passwd", "pw"),
        FormField("grant_type", "password"),
    ]
    form = Request(
        name="Form",
        method="POST",
        url=shared_echo_server.url + "/e/token",
        body=Body(type="form", fields=fields),
    )
    entry = load_entry(record(tmp_path, _send(tmp_path, form)))
    dots = "%E2%80%A2%E2%80%A2%E2%80%A2"
    assert entry.request_body == (
        f"username=ada&client_secret={dots}&passwd={dots}&grant_type=password".encode()
    )
    echoed = json.loads(entry.body)
    assert echoed["form"]["client_secret"] == [MASK] and echoed["form"]["passwd"] == [MASK]
    assert echoed["form"]["grant_type"] == ["password"]
    assert b"cs-777777" not in entry.path.read_bytes()
    multipart = Request(
        name="Multipart",
        method="POST",
        url=shared_echo_server.url + "/e/upload",
        body=Body(type="multipart", fields=fields),
    )
    entry = load_entry(record(tmp_path, _send(tmp_path, multipart)))
    body = entry.request_body or b""
    assert b'name="passwd"\r\n\r\n' + MASK.encode() + b"\r\n" in body
    assert b'name="username"\r\n\r\nada\r\n' in body
    assert b"\r\n\r\npw\r\n" not in body and b"cs-777777" not in entry.path.read_bytes()
    assert json.loads(entry.body)["form"]["passwd"] in (MASK, [MASK])


def test_a_secret_learned_late_is_masked_everywhere(tmp_path: Path) -> None:
    """The response's token, masked by its name, is masked where the request carried it too."""
    token = "tok-9f8e7d6c5b"
    ex = FakeExchange(
        FakeRendered(
            url=f"http://127.0.0.1/x?state={token}",
            headers=[("X-Trace", token), ("Content-Type", "text/plain")],
            body=f"sent {token}".encode(),
        ),
        headers=[("Content-Type", "application/json"), ("X-Echo", token)],
        body=json.dumps({"access_token": token, "data": [token]}).encode(),
    )
    text = record(tmp_path, ex).read_text(encoding="utf-8")
    assert token not in text
    entry = load_entry(next(history_dir(tmp_path).glob("*.json")))
    assert json.loads(entry.body) == {"access_token": MASK, "data": [MASK]}
    assert ("X-Trace", MASK) in entry.request_headers and ("X-Echo", MASK) in entry.response_headers


def test_the_cap_applies_after_masking_and_never_cuts_a_secret_open(tmp_path: Path) -> None:
    token = "t" * 50
    body = json.dumps({"pad": "x" * 80, "token": token, "tail": "y" * 500}).encode()
    cut = body.index(token.encode()) + 20  # the cap falls inside the token
    entry = load_entry(record(tmp_path, FakeExchange(FakeRendered(), body=body), cap=cut))
    assert entry.body_truncated and "t" * 10 not in entry.body.decode()
    stored = json.loads(entry.path.read_text(encoding="utf-8"))["response"]["body"]
    assert stored["size"] == len(body) and len(stored["data"].encode()) <= cut
    # .env secrets straddling the cut too, in a body that is not JSON
    text = ("z" * 100 + "env-secret-4242" + "z" * 100).encode()
    entry = load_entry(
        record(
            tmp_path, FakeExchange(FakeRendered(), body=text), cap=108, secrets=["env-secret-4242"]
        )
    )
    assert entry.body == b"z" * 100 + MASK[:2].encode()  # the cap cut the mask, not the secret
    assert entry.body_truncated


# -- limits -----------------------------------------------------------------------------------


def test_record_and_prune_keeps_the_newest_and_drops_the_old(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    now = datetime.now(timezone.utc)
    for days in (40, 20, 3, 2):
        record(
            tmp_path,
            FakeExchange(FakeRendered(name=f"d{days}"), started_at=now - timedelta(days=days)),
        )
    record_and_prune(tmp_path, FakeExchange(FakeRendered(name="new")), max_age_days=10)
    assert [e.request_name for e in list_entries(tmp_path)] == ["new", "d2", "d3"]
    record_and_prune(tmp_path, FakeExchange(FakeRendered(name="newer")), keep=2, max_age_days=10)
    assert [e.request_name for e in list_entries(tmp_path)] == ["newer", "new"]

    # Pruning goes by file names: no entry is read, whatever is due.
    def no_reading(path: Path) -> None:
        raise AssertionError(f"read {path}")

    monkeypatch.setattr("pigeon.history.load_entry", no_reading)
    record_and_prune(tmp_path, FakeExchange(FakeRendered(name="3rd")), keep=3, max_age_days=1)
    record_and_prune(tmp_path, FakeExchange(FakeRendered(name="4th")), keep=3, max_age_days=1)
    monkeypatch.undo()
    assert [e.request_name for e in list_entries(tmp_path)] == ["4th", "3rd", "newer"]


def test_an_entry_becomes_the_exchange_it_recorded_and_can_be_deleted(
    tmp_path: Path, shared_echo_server: EchoServer
) -> None:
    from pigeon.history import delete_entry
    from pigeon.model import DEFAULT_TIMEOUT

    req = Request(name="Get", url=shared_echo_server.url + "/e/x", settings=Settings(timeout=7.5))
    exchange = _send(tmp_path, req)
    record(tmp_path, exchange)
    [entry] = list_entries(tmp_path)
    again = entry.to_exchange()
    assert (again.method, again.url, again.status) == (exchange.method, exchange.url, 200)
    assert again.body == exchange.body and again.headers == exchange.headers
    assert again.request is not None and again.request.settings.timeout == 7.5
    entry.settings.clear()
    assert entry.request_settings().timeout == DEFAULT_TIMEOUT
    delete_entry(entry)
    assert list_entries(tmp_path) == []
    delete_entry(entry)  # already gone: fine
