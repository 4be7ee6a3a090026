"""`pigeon export postman DIR` then `pigeon import postman`: the same requests come back (method,
URL, headers, query, bodies, auth of every kind Postman has), compared field by field and as
rendered; and `pigeon export har DIR` then `pigeon import har` sends the same bytes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from collection_files import write
from pigeon.cli import main
from pigeon.store import load_collection
from render_support import render_written

COLLECTION = 'name = "Trip"\n\n[variables]\nbase = "https://api.example.test"\npw = "s3cret"\n'
REQUESTS = {
    "digest": '[auth]\ntype = "digest"\nusername = "ada"\npassword = "{{pw}}"\n',
    "ntlm": '[auth]\ntype = "ntlm"\nusername = "ada"\npassword = "{{pw}}"\ndomain = "CORP"\n',
    "aws": '[auth]\ntype = "aws_sigv4"\naccess_key = "AKIA1"\nsecret_key = "{{pw}}"\n'
    'session_token = "{{session}}"\nregion = "eu-west-1"\nservice = "s3"\n',
    "oauth1": '[auth]\ntype = "oauth1"\nconsumer_key = "ck"\nconsumer_secret = "{{pw}}"\n'
    'token = "tk"\ntoken_secret = "{{pw}}"\nsignature_method = "HMAC-SHA256"\nrealm = "r"\n'
    'placement = "query"\n',
    "hawk": '[auth]\ntype = "hawk"\nhawk_id = "id-1"\nhawk_key = "{{pw}}"\n'
    'hawk_algorithm = "sha1"\nhawk_ext = "x"\nhawk_app = "a1"\nhawk_dlg = "d1"\nhawk_payload = "skip"\n',
    "basic": '[auth]\ntype = "basic"\nusername = "ada"\npassword = "{{pw}}"\n',
    "bearer": '[auth]\ntype = "bearer"\ntoken = "{{pw}}"\n',
    "key": '[auth]\ntype = "api_key"\nkey = "k"\nvalue = "{{pw}}"\nlocation = "query"\n',
    "none": '[auth]\ntype = "none"\n',
}
BODIES = {
    "multipart": 'method = "POST"\n[[headers]]\nname = "X-Off"\nvalue = "1"\nenabled = false\n'
    '[[query]]\nname = "q"\nvalue = "a b"\n[[query]]\nname = "off"\nvalue = "1"\nenabled = false\n'
    '[body]\ntype = "multipart"\n[[body.fields]]\nname = "note"\nvalue = "hi"\n'
    '[[body.fields]]\nname = "meta"\nvalue = "{}"\ncontent_type = "application/json"\n'
    '[[body.fields]]\nname = "doc"\nvalue = "fixtures/doc.txt"\nkind = "file"\n',
    "graphql": 'method = "POST"\n[body]\ntype = "graphql"\nquery = "query Q($n: Int) { a(n: $n) }"\n'
    "variables = '{\"n\": 1}'\n",
    "json": 'method = "PUT"\n[body]\ntype = "json"\ncontent = \'{"a": [1, "{{pw}}"]}\'\n',
}


def _unbounded(headers: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """Headers with a multipart boundary (new at each render) left out of the comparison."""
    return [(n, v.split("; boundary=")[0]) for n, v in headers]


@pytest.fixture
def trip(tmp_path: Path) -> Path:
    root = tmp_path / "trip"
    write(root, "collection.toml", COLLECTION)
    write(root, "fixtures/doc.txt", "doc-bytes")
    for name, text in {**REQUESTS, **BODIES}.items():
        write(root, f"{name}.toml", f'name = "{name}"\nurl = "{{{{base}}}}/{name}"\n{text}')
    return root


def _export_import(
    root: Path, kind: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> Path:
    assert main(["export", kind, str(root)]) == 0
    out, _ = capsys.readouterr()
    exported = tmp_path / f"trip.{kind}.json"
    exported.write_text(out)
    again = tmp_path / f"again-{kind}"
    assert main(["import", kind, str(exported), "--into", str(again)]) == 0
    capsys.readouterr()
    return again


def test_postman_round_trip_keeps_every_request_and_auth_kind(
    trip: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    again = _export_import(trip, "postman", tmp_path, capsys)
    before = {r.id: r for r in load_collection(trip).requests()}
    after = {r.id: r for r in load_collection(again).requests()}
    assert sorted(before) == sorted(after)
    for ref, old in before.items():
        new = after[ref]
        assert (new.method, new.url) == (old.method, old.url), ref
        assert [(q.name, q.value, q.enabled) for q in new.query] == [
            (q.name, q.value, q.enabled) for q in old.query
        ], ref
        assert [(h.name, h.value, h.enabled) for h in new.headers] == [
            (h.name, h.value, h.enabled) for h in old.headers
        ], ref
        assert new.auth == old.auth, ref
        old_fields = [(f.name, f.kind, f.content_type, f.enabled) for f in old.body.fields]
        assert [(f.name, f.kind, f.content_type, f.enabled) for f in new.body.fields] == old_fields
        assert (new.body.type, new.body.content, new.body.query, new.body.variables) == (
            old.body.type, old.body.content, old.body.query, old.body.variables,
        ), ref  # fmt: skip
    for ref in ("multipart", "graphql", "json", "key", "basic", "bearer", "none"):
        r_old = render_written(trip, ref, environment=None)
        r_new = render_written(again, ref, environment=None)
        assert (r_new.method, r_new.url) == (r_old.method, r_old.url)
        assert _unbounded(r_new.headers) == _unbounded(r_old.headers), ref
        if ref != "multipart":  # its boundary differs from render to render
            assert r_new.body == r_old.body, ref
        else:
            assert r_new.body is not None and r_old.body is not None
            assert r_new.body.count(b"doc-bytes") == r_old.body.count(b"doc-bytes") == 1


def test_har_round_trip_sends_the_same_bytes(
    trip: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    again = _export_import(trip, "har", tmp_path, capsys)
    host = "api-example-test"
    for ref in ("json", "graphql", "key"):
        r_old = render_written(trip, ref, environment=None)
        (new,) = [r for r in load_collection(again).requests() if r.url.endswith(f"/{ref}")]
        r_new = render_written(again, f"{host}/{new.id.split('/')[-1]}", environment=None)
        assert (r_new.method, r_new.url, r_new.body) == (r_old.method, r_old.url, r_old.body)
        assert json.dumps(r_new.headers) == json.dumps(r_old.headers), ref
