"""Secrets masked by where their values came from (DESIGN §7, §11): a value from ``$env`` (so
the collection's ``.env``) or from a variable or key named as a secret is masked in the
rendered request's shown copy wherever it went, whatever its length, and nowhere else."""

from __future__ import annotations

import asyncio
import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from collection_files import write
from pigeon.cli import main
from pigeon.history import MASK, load_entry, record
from pigeon.model import Auth, Body, Collection, FormField, Header, QueryParam, Request
from pigeon.pipeline import RunContext
from pigeon.render import RenderedRequest, render_request
from pigeon.reports import write_json_report, write_junit_report
from pigeon.run import run_collection
from pigeon.scopes import build_scopes
from pigeon.send import Exchange, HttpSession
from pigeon.store import load_collection
from servers import recording_server

KEY = "k3y9z"  # shorter than any value the text search looks for


def rendered(
    root: Path,
    request: Request,
    dotenv: dict[str, str] | None = None,
    variables: dict[str, Any] | None = None,
) -> RenderedRequest:
    collection = Collection(
        name="c", root=root, dotenv=dotenv or {"KEY": KEY}, variables=variables or {}
    )
    scopes = build_scopes(collection, [], request, environment="", environ={})
    return render_request(collection, [], request, scopes)


def send(request: RenderedRequest) -> Exchange:
    async def go() -> Exchange:
        async with HttpSession(trust_env=False) as session:
            return await session.send(request)

    return asyncio.run(go())


def test_a_short_env_value_in_a_url_path_is_sent_but_never_stored(tmp_path: Path) -> None:
    write(tmp_path, ".env", f"KEY={KEY}\n")
    with recording_server() as server:
        request = Request(name="r", url=server.url + "/{{$env.KEY}}/x")
        out = rendered(tmp_path, request)
        exchange = send(out)
        assert server.requests[0].startswith(f"GET /{KEY}/x HTTP/1.1".encode())
    assert exchange.status == 204
    path = record(tmp_path, exchange)
    assert KEY not in path.read_text(encoding="utf-8")
    assert load_entry(path).url == f"{server.url}/{MASK}/x"


def test_a_variable_that_holds_an_env_value_is_masked_where_the_value_went(
    tmp_path: Path,
) -> None:
    request = Request(name="r", url="{{base}}/x", headers=[Header("X-Where", "{{where}}")])
    out = rendered(
        tmp_path,
        request,
        variables={"base": "http://h.example/{{$env.KEY}}", "where": "at {{base}}"},
    )
    assert out.url == f"http://h.example/{KEY}/x"
    assert out.shown(out.url) == f"http://h.example/{MASK}/x"
    assert out.shown(out.header("X-Where") or "") == f"at http://h.example/{MASK}"


def test_a_one_letter_secret_masks_its_span_and_no_other_letter(tmp_path: Path) -> None:
    request = Request(
        name="r",
        url="http://kiosk.example/{{$env.K}}/kick?k={{$env.K}}",
        headers=[Header("X-Pair", "k-{{$env.K}}-k")],
    )
    out = rendered(tmp_path, request, dotenv={"K": "k"})
    assert out.url == "http://kiosk.example/k/kick?k=k"
    assert out.shown(out.url) == f"http://kiosk.example/{MASK}/kick?k={MASK}"
    assert out.shown("k-k-k") == f"k-{MASK}-k"
    entry = load_entry(record(tmp_path, _Stored(out), secrets=["k"]))
    assert entry.url == f"http://kiosk.example/{MASK}/kick?k={MASK}"
    assert ("X-Pair", f"k-{MASK}-k") in entry.request_headers


def test_a_secret_in_a_json_body_field_and_in_a_header_is_masked_by_its_span(
    tmp_path: Path,
) -> None:
    body = '{"user": "kim", "pin": "{{$env.KEY}}", "n": {{$env.NUM}}, "note": "a {{$env.KEY}}"}'
    request = Request(
        name="r",
        method="POST",
        url="http://h.example/",
        headers=[Header("X-Client", "{{$env.KEY}}"), Header("X-Trace", "t-{{$env.KEY}}")],
        body=Body("json", body),
    )
    out = rendered(tmp_path, request, dotenv={"KEY": KEY, "NUM": "42"})
    assert json.loads(out.body_text or "") == {
        "user": "kim",
        "pin": KEY,
        "n": 42,
        "note": f"a {KEY}",
    }
    shown = out.shown_request()
    assert json.loads(shown.body_text or "") == {
        "user": "kim",
        "pin": MASK,
        "n": MASK,
        "note": f"a {MASK}",
    }
    assert shown.body == (shown.body_text or "").encode()
    assert shown.header("X-Client") == MASK and shown.header("X-Trace") == f"t-{MASK}"
    entry = load_entry(record(tmp_path, _Stored(out), secrets=[]))
    assert json.loads(entry.request_body or b"")["pin"] == MASK
    assert dict(entry.request_headers)["X-Client"] == MASK


def test_variables_and_keys_named_as_secrets_are_masked_where_they_went(tmp_path: Path) -> None:
    request = Request(
        name="r",
        url="http://h.example/{{api_key}}/{{creds.password}}",
        query=[QueryParam("who", "{{creds}}")],
        body=Body("form", fields=[FormField("pin", "{{pin_secret}}"), FormField("a", "b")]),
    )
    variables = {"api_key": "ab1", "creds": {"user": "u", "password": "pw"}, "pin_secret": 7}
    out = rendered(tmp_path, request, variables=variables)
    shown = out.shown_request()
    assert shown.url.startswith(f"http://h.example/{MASK}/{MASK}?who=")
    assert "ab1" not in shown.url and "pw" not in shown.url and "u%22" in shown.url
    assert shown.body_text == "pin=%E2%80%A2%E2%80%A2%E2%80%A2&a=b"


def test_auth_built_from_a_secret_shows_it_masked(tmp_path: Path) -> None:
    request = Request(
        name="r",
        url="http://h.example/",
        auth=Auth(type="api_key", key="X-Id", value="id-{{$env.KEY}}", location="header"),
    )
    out = rendered(tmp_path, request)
    assert out.header("X-Id") == f"id-{KEY}"
    assert out.shown_request().header("X-Id") == f"id-{MASK}"


def test_a_multipart_text_field_from_a_secret_is_masked(tmp_path: Path) -> None:
    request = Request(
        name="r",
        method="POST",
        url="http://h.example/",
        body=Body("multipart", fields=[FormField("code", "{{$env.KEY}}")]),
    )
    out = rendered(tmp_path, request)
    assert KEY.encode() in (out.body or b"")
    shown = out.shown_request()
    assert KEY.encode() not in (shown.body or b"") and MASK.encode() in (shown.body or b"")
    assert KEY not in (shown.body_text or "")


@pytest.mark.parametrize("form", ["json", "http", "curl"])
def test_pigeon_render_shows_env_values_masked(
    tmp_path: Path, form: str, capsys: pytest.CaptureFixture[str]
) -> None:
    write(tmp_path, "collection.toml", 'name = "c"\n')
    write(tmp_path, ".env", f"KEY={KEY}\n")
    write(
        tmp_path,
        "r.toml",
        'url = "http://h.example/{{$env.KEY}}/x"\n'
        '[[headers]]\nname = "X-Client"\nvalue = "c-{{$env.KEY}}"\n',
    )
    assert main(["render", str(tmp_path), "r", "--format", form]) == 0
    out = capsys.readouterr().out
    assert KEY not in out and f"c-{MASK}" in out
    assert f"/{MASK}/x" in out or "/%E2%80%A2%E2%80%A2%E2%80%A2/x" in out  # as sent


def test_reports_never_hold_a_short_env_value_of_a_url_path(tmp_path: Path) -> None:
    root = tmp_path / "c"
    with recording_server() as server:
        write(root, "collection.toml", f'name = "c"\n[variables]\nbase = "{server.url}"\n')
        write(root, ".env", f"KEY={KEY}\n")
        write(root, "r.toml", 'url = "{{base}}/{{$env.KEY}}/x"\n')
        collection = load_collection(root)
        ctx = RunContext(collection, trusted=True)

        async def go() -> Any:
            try:
                return await run_collection(ctx, None)
            finally:
                await ctx.aclose()

        summary = asyncio.run(go())
        assert server.requests and f"/{KEY}/x".encode() in server.requests[0]
    write_json_report(summary, tmp_path / "r.json")
    write_junit_report(summary, tmp_path / "r.xml")
    for name in ("r.json", "r.xml"):
        assert KEY not in (tmp_path / name).read_text(encoding="utf-8"), name
    report = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    assert report["requests"][0]["url"] == f"{server.url}/{MASK}/x"
    out = ET.parse(tmp_path / "r.xml").getroot().find(".//system-out")
    assert out is not None and f"/{MASK}/x -> 204" in (out.text or "")


class _Stored:
    """A sent request with an answer that says nothing back, as history records it."""

    def __init__(self, request: RenderedRequest) -> None:
        self.request = request
        self.status = 204
        self.reason = "No Content"
        self.headers: list[tuple[str, str]] = []
        self.body = b""
