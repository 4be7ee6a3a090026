"""HAR 1.2 recordings: one request per entry, named by method and path, a folder per host; the
browser's own headers and cookies dropped with one note; repeats kept; responses ignored."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pigeon.importers import ImportFailed, run_import
from pigeon.importers.har import parse_har
from pigeon.store import load_collection
from render_support import render_written

SHOP = Path(__file__).parents[1] / "data" / "har" / "shop.har"


@pytest.fixture
def shop(tmp_path: Path) -> tuple[Path, list[str]]:
    into = tmp_path / "rec"
    _, notes = run_import("har", str(SHOP), into)
    return into, notes


def test_entries_become_requests_by_host_with_repeats_kept(shop: tuple[Path, list[str]]) -> None:
    root, _ = shop
    col = load_collection(root)
    assert not col.broken
    assert [(r.id, r.name) for r in col.requests()] == [
        ("api-shop-example-test/get-v1-products", "GET /v1/products"),
        ("api-shop-example-test/post-v1-cart-items", "POST /v1/cart/items"),
        ("api-shop-example-test/post-v1-cart-items-2", "POST /v1/cart/items"),
        ("api-shop-example-test/put-v1-me-avatar", "PUT /v1/me/avatar"),
        ("api-shop-example-test/patch-v1-orders-7-note", "PATCH /v1/orders/7/note"),
        ("shop-example-test/post-login", "POST /login"),
    ]
    first = render_written(root, "api-shop-example-test/post-v1-cart-items")
    second = render_written(root, "api-shop-example-test/post-v1-cart-items-2")
    assert json.loads(first.body_text or "") == {"sku": "sh-42", "qty": 1}
    assert json.loads(second.body_text or "") == {"sku": "sh-43", "qty": 2}
    assert first.headers == [("Origin", "https://shop.example.test"),
                             ("Content-Type", "application/json")]  # fmt: skip


def test_browser_headers_and_cookies_are_dropped_with_one_note(
    shop: tuple[Path, list[str]],
) -> None:
    root, notes = shop
    r = render_written(root, "api-shop-example-test/get-v1-products")
    assert r.url == "https://api.shop.example.test/v1/products?category=shoes&page=2"
    names = [name.lower() for name, _ in r.headers]
    assert names == ["accept", "accept-language", "x-request-id", "authorization"]
    assert r.header("authorization") == "Bearer eyJhbGciOiJIUzI1NiJ9.e30.sig"  # from .env
    auth = load_collection(root).find("api-shop-example-test/get-v1-products")[1].auth  # type: ignore[index]
    assert auth is not None and (auth.type, auth.token) == ("bearer", "{{$env.BEARER_TOKEN}}")
    (dropped,) = [n for n in notes if n.startswith("browser-only headers and cookies dropped")]
    for name in (":authority", ":path", "cookie", "sec-ch-ua", "user-agent", "accept-encoding",
                 "host", "content-length", "connection", "recorded cookies"):  # fmt: skip
        assert name in dropped
    text = "\n".join(p.read_text() for p in root.rglob("*.toml"))
    assert "eyJhbGciOiJIUzI1NiJ9" not in text and "k-live-9981" not in text
    assert "BEARER_TOKEN=eyJhbGciOiJIUzI1NiJ9.e30.sig" in (root / ".env").read_text()


def test_form_multipart_and_text_bodies(shop: tuple[Path, list[str]]) -> None:
    root, notes = shop
    r = render_written(root, "shop-example-test/post-login")
    assert r.body_text == "user=ada&remember=on"
    col = load_collection(root)
    avatar = col.find("api-shop-example-test/put-v1-me-avatar")
    assert avatar is not None
    assert [(f.name, f.kind, f.value, f.enabled) for f in avatar[1].body.fields] == [
        ("caption", "text", "me", True), ("file", "file", "avatar.png", False),
    ]  # fmt: skip
    assert not [h for h in avatar[1].headers if h.name.lower() == "content-type"]  # its boundary
    assert any("file part file (avatar.png) is not in the recording" in n for n in notes)
    note = render_written(root, "api-shop-example-test/patch-v1-orders-7-note")
    assert note.body_text == "<note>leave at door</note>"
    assert note.header("content-type") == "application/xml"
    assert note.header("x-api-key") == "k-live-9981"


def test_not_har_and_broken_json_are_refused_in_one_line(tmp_path: Path) -> None:
    for name, text, expected in (
        ("a.har", '{"log": {}}', "not a HAR file"),
        ("b.har", '{"log": {"entries": [', "not JSON"),
        ("c.har", "[]", "not a HAR file"),
    ):
        (tmp_path / name).write_text(text)
        with pytest.raises(ImportFailed) as exc:
            run_import("har", str(tmp_path / name), tmp_path / "out")
        assert expected in str(exc.value) and name in str(exc.value)
        assert "\n" not in str(exc.value)


def test_hostile_entries_never_crash_or_smuggle_headers() -> None:
    entries = [
        {"request": {"method": "GET", "url": "http://x.test/a", "headers": [
            {"name": "X-Evil", "value": "1\r\nInjected: yes"},
            {"name": "Bad Name", "value": "v"},
            {"name": "X-Fine", "value": "ok"}]}},
        {"request": {"method": "GET"}},
        {"request": "not an object"},
        "not an entry",
        {"request": {"method": "GET", "url": "http://x.test/" + "a/" * 500,
                     "postData": {"mimeType": "application/json", "text": "{not json"}}},
        {"request": {"method": "POST", "url": "http://[::1/bad",
                     "postData": {"mimeType": "application/octet-stream", "text": "AAEC",
                                  "encoding": "base64"}}},
    ]  # fmt: skip
    result = parse_har(json.dumps({"log": {"version": "1.2", "entries": entries}}))
    reqs = [r for _, r in result.requests]
    assert [(h.name, h.value) for h in reqs[0].headers] == [("X-Fine", "ok")]
    assert len(reqs) == 3
    assert len(reqs[1].name) < 80 and reqs[1].body.type == "text"  # not JSON: sent as text
    assert reqs[2].body.type == "none"
    notes = "\n".join(result.notes)
    assert "entry 2: no request URL; skipped" in notes
    assert "its body is not text in the recording" in notes


@pytest.mark.parametrize("kind", ["har", "insomnia"])
def test_huge_and_deep_sources_are_refused_naming_the_file(
    kind: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pigeon.importers import documents

    big = tmp_path / f"big.{kind}"
    big.write_text('{"log": {"entries": []}, "pad": "' + "x" * 2000 + '"}')
    monkeypatch.setattr(documents, "DOCUMENT_LIMIT", 1000)
    with pytest.raises(ImportFailed) as exc:
        run_import(kind, str(big), tmp_path / "out")
    assert f"big.{kind}" in str(exc.value) and "limit; not imported" in str(exc.value)
    monkeypatch.undo()
    deep = tmp_path / f"deep.{kind}"
    deep.write_text('{"log": {"entries": ' + "[" * 3000 + "]" * 3000 + "}}")
    with pytest.raises(ImportFailed, match=f"deep.{kind}:1:.*nest more than"):
        run_import(kind, str(deep), tmp_path / "out")
    assert not (tmp_path / "out").exists()


def test_recorded_authorization_becomes_auth_with_its_secret_set_aside() -> None:
    import base64

    basic = base64.b64encode(b"ada:pa:ss").decode()
    entries = [
        {"request": {"method": "GET", "url": f"http://x.test/{n}", "headers": [h]}}
        for n, h in enumerate([
            {"name": "Authorization", "value": f"Basic {basic}"},
            {"name": "Authorization", "value": "Basic !!not-base64"},
            {"name": "Authorization", "value": "Token abc123"},
        ])
    ]  # fmt: skip
    result = parse_har(json.dumps({"log": {"entries": entries}}))
    first, second, third = (r for _, r in result.requests)
    assert first.auth is not None and (first.auth.type, first.auth.username) == ("basic", "ada")
    assert first.auth.password == "{{$env.BASIC_PASSWORD}}" and first.headers == []
    assert second.auth is None and second.headers[0].value == "Basic {{$env.AUTHORIZATION}}"
    assert third.auth is None and third.headers[0].value == "Token {{$env.AUTHORIZATION_2}}"
    assert [(s.name, s.value) for s in result.secrets] == [
        ("BASIC_PASSWORD", "pa:ss"), ("AUTHORIZATION", "!!not-base64"),
        ("AUTHORIZATION_2", "abc123"),
    ]  # fmt: skip
