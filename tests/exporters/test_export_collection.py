"""`pigeon export postman DIR` and `pigeon export har DIR`: a whole collection. A Postman
export imports back (`pigeon import postman`) to requests that render the same (method, URL,
headers, body); a HAR log holds each request as it would be sent."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pigeon.cli import main
from pigeon.store import load_collection
from render_support import render_written

FILES = {
    "collection.toml": """name = "Shop"
[variables]
base = "https://api.example.test"
token = "t-1"
[[headers]]
name = "X-Client"
value = "pigeon"
[auth]
type = "bearer"
token = "{{token}}"
""",
    "users/folder.toml": """[variables]
page = 2
[[headers]]
name = "X-Folder"
value = "users"
[auth]
type = "basic"
username = "ada"
password = "p@ss word"
""",
    "users/list.toml": """name = "List"
method = "GET"
url = "{{base}}/users"
[[query]]
name = "page"
value = "{{page}}"
[[query]]
name = "q"
value = "a b&c=d%"
[[headers]]
name = "X-Client"
value = "override"
""",
    "users/create.toml": """name = "Create"
method = "POST"
url = "{{base}}/users"
[body]
type = "json"
content = '{"name": "Zoë", "page": {{page}}}'
""",
    "users/key.toml": """name = "Key"
method = "DELETE"
url = "{{base}}/users/7"
[auth]
type = "api_key"
key = "X-Api-Key"
value = "k-{{token}}"
[settings]
follow_redirects = false
verify_tls = false
""",
    "form.toml": """name = "Form"
method = "PUT"
url = "{{base}}/form"
[auth]
type = "none"
[body]
type = "form"
[[body.fields]]
name = "a"
value = "1 2"
[[body.fields]]
name = "b"
value = "x&y"
""",
    "upload.toml": """name = "Upload"
method = "PUT"
url = "{{base}}/upload"
[body]
type = "file"
path = "fixtures/data.bin"
content_type = "application/x-thing"
""",
    "fixtures/data.bin": "bytes\x00",
    "text.toml": """name = "Text"
method = "PATCH"
url = "{{base}}/text"
[[headers]]
name = "Content-Type"
value = "application/xml"
[body]
type = "text"
content = "<a>it's</a>"
""",
}


@pytest.fixture
def collection(tmp_path: Path) -> Path:
    root = tmp_path / "shop"
    for name, text in FILES.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


def _key(root: Path, ref: str) -> tuple:
    r = render_written(root, ref, environment=None)
    headers = sorted((n.lower(), v) for n, v in r.headers)
    file = r.body_file
    sent = None if file is None else (file.path.resolve(), file.content_type)
    return r.method, r.url, headers, r.body, sent


def test_a_postman_export_imports_back_to_the_same_requests(
    collection: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["export", "postman", str(collection)]) == 0
    out, _ = capsys.readouterr()
    doc = json.loads(out)
    assert doc["info"]["schema"].endswith("/v2.1.0/collection.json")
    items = {i["name"]: i for i in doc["item"]}
    assert sorted(items) == ["Fixtures", "Form", "Text", "Upload", "Users"]  # folders too
    assert [i["name"] for i in items["Users"]["item"]] == ["Create", "Key", "List"]
    exported = tmp_path / "shop.postman_collection.json"
    exported.write_text(out)
    again = tmp_path / "again"
    again.mkdir()
    assert main(["import", "postman", str(exported), "--into", str(again)]) == 0
    capsys.readouterr()
    before = load_collection(collection)
    after = load_collection(again)
    refs = sorted(r.id for r in before.requests())
    assert refs == sorted(r.id for r in after.requests())
    for ref in refs:
        assert _key(again, ref) == _key(collection, ref), ref
    settings = {r.id: r.settings for r in after.requests()}
    assert settings["users/key"].follow_redirects is False
    assert settings["users/key"].verify_tls is False


def test_a_har_export_holds_every_request_as_sent(
    collection: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["export", "har", str(collection)]) == 0
    out, _ = capsys.readouterr()
    log = json.loads(out)["log"]
    assert log["version"] == "1.2"
    entries = {e["comment"]: e["request"] for e in log["entries"]}
    assert sorted(entries) == sorted(r.id for r in load_collection(collection).requests())
    listed = entries["users/list"]
    assert listed["url"] == "https://api.example.test/users?page=2&q=a%20b%26c%3Dd%25"
    assert {"name": "q", "value": "a b&c=d%"} in listed["queryString"]
    assert {"name": "X-Client", "value": "override"} in listed["headers"]
    created = entries["users/create"]
    assert created["postData"]["text"] == '{"name": "Zoë", "page": 2}'
    assert created["bodySize"] == len('{"name": "Zoë", "page": 2}'.encode())
    form = entries["form"]["postData"]
    assert {"name": "b", "value": "x&y"} in form["params"]
    for entry in log["entries"]:
        assert entry["response"]["status"] == 0  # never sent


def test_a_request_kind_needs_a_request_and_a_collection_kind_takes_none(
    collection: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["export", "python", str(collection)]) == 2
    assert main(["export", "har", str(collection), "form"]) == 2
    capsys.readouterr()


def test_a_har_body_that_is_not_text_is_base64() -> None:
    import base64

    from pigeon.exporters.har import to_har
    from pigeon.render import RenderedRequest

    data = bytes(range(256))
    rendered = RenderedRequest(method="PUT", url="https://x.test/b", body=data,
                               headers=[("Content-Type", "application/octet-stream")])  # fmt: skip
    post = to_har([rendered])["log"]["entries"][0]["request"]["postData"]
    assert post["encoding"] == "base64"
    assert base64.b64decode(post["text"]) == data


def test_export_prints_each_kind_of_program_for_a_request(
    collection: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    firsts = {"python": "import httpx", "python-requests": "import requests",
              "go": "package main", "httpie": "http", "wget": "wget",
              "javascript": "const url", "powershell": "$headers"}  # fmt: skip
    import base64

    encoded = base64.b64encode('{"name": "Zoë", "page": 2}'.encode()).decode()
    for kind, first in firsts.items():
        assert main(["export", kind, str(collection), "users/create"]) == 0, kind
        out, _ = capsys.readouterr()
        assert out.startswith(first), (kind, out)
        assert "https://api.example.test/users" in out  # rendered, no placeholder left
        body = '{"name": "Zoë", "page": 2}'
        forms = (body, json.dumps(body)[1:-1], repr(body)[1:-1], encoded, '{\\"name\\": \\"Zo')
        assert any(form in out for form in forms), (kind, out)  # the body, in some form
