"""`pigeon import`, `render` and `export curl` run together through the command line, for every
import format: what Pigeon renders is what the source tool sends, the exported curl command
imports back to the same request, notes go to stderr, and importing again changes no file.

Each expectation is written by hand from the sample in tests/data: the method, URL, headers
and body that the tool (curl, Postman, REST Client, Posting, an OpenAPI client such as
Swagger UI, Insomnia, the browser a HAR recorded, Bruno) sends for it, leaving out the headers every client adds by itself (Host,
User-Agent, Accept: */*, Content-Length).
"""

from __future__ import annotations

import json
import os
import shlex
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import parse_qsl, urlsplit

import pytest

from pigeon.cli import main
from pigeon.importers import run_import
from pigeon.store import load_collection

DATA = Path(__file__).parents[1] / "data"
NOTE_PREFIX = "note: "


@dataclass
class Case:
    """One request of one sample, and what the source tool sends for it."""

    kind: str
    source: Path
    request: str  # the id of the imported request
    method: str
    url: str
    headers: list[tuple[str, str]]
    body: str | None
    options: list[str] = field(default_factory=list)  # for `pigeon render` / `export`
    environ: dict[str, str] = field(default_factory=dict)
    dotenv: str = ""  # the collection's .env, as the import notes ask for

    @property
    def id(self) -> str:
        return f"{self.kind}:{self.request}"


POSTING_DOTENV = "PASSWORD=hunter2\nAPI_TOKEN=tok-dev\n"  # the secrets of posting/shop/dev.env

CASES = [
    # curl -X POST https://shop.example.test/api/login -H 'Content-Type: application/json'
    #   -d '{"user": "ada", "password": "'"$SHOP_PASSWORD"'"}'
    Case(
        "curl", DATA / "curl" / "bash_history", "post-api-login",
        "POST", "https://shop.example.test/api/login",
        [("Content-Type", "application/json")],
        '{"user": "ada", "password": "pa ss"}',
        environ={"SHOP_PASSWORD": "pa ss"},
    ),
    # curl -H "Authorization: Bearer $TOKEN" 'https://shop.example.test/api/orders?page=2'
    Case(
        "curl", DATA / "curl" / "bash_history", "get-api-orders",
        "GET", "https://shop.example.test/api/orders?page=2",
        [("Authorization", "Bearer tk-1")],
        None,
        environ={"TOKEN": "tk-1"},
    ),
    # Postman: the folder's bearer auth and {{scope}} from Orders/Admin.
    Case(
        "postman", DATA / "postman" / "shop.postman_collection.json",
        "orders/admin/purge-cancelled",
        "DELETE", "https://shop.example.test/api/orders?state=cancelled&scope=orders:admin",
        [("X-Scope", "orders:admin"), ("Authorization", "Bearer adm-7f3e")],
        None,
    ),
    # Postman: raw JSON body, "noauth" beating the collection's bearer auth.
    Case(
        "postman", DATA / "postman" / "shop.postman_collection.json", "auth/login",
        "POST", "https://shop.example.test/api/auth/login",
        [("Content-Type", "application/json")],
        '{\n  "username": "ada",\n  "password": ""\n}',
    ),
    # REST Client: "Basic user:password" is sent base64-encoded; the form lines are joined.
    Case(
        "http", DATA / "http" / "api.http", "login-with-a-form",
        "POST", "https://shop.example.test/api/auth/login",
        [
            ("Content-Type", "application/x-www-form-urlencoded"),
            ("Authorization", "Basic YWRhOnMzY3JldA=="),  # ada:s3cret
        ],
        "user=ada&password=a+b%26c",
    ),
    # A request line without a method is a GET, and its body is still sent.
    Case(
        "http", DATA / "http" / "api.http", "order-as-xml",
        "GET", "https://shop.example.test/api/orders/1001",
        [("Content-Type", "application/xml")],
        '<order id="1001"/>',
    ),
    # posting --collection shop --env dev.env: the disabled `remember` field is not sent.
    Case(
        "posting", DATA / "posting" / "shop", "orders/log-in",
        "POST", "http://127.0.0.1:8787/login",
        [
            ("Authorization", "Basic YWRhOmh1bnRlcjI="),  # ada:hunter2
            ("Content-Type", "application/x-www-form-urlencoded"),
        ],
        "username=ada&password=hunter2",
        options=["--env", "dev"], dotenv=POSTING_DOTENV,
    ),
    # $$ is a literal $; the disabled `debug` parameter is not sent.
    Case(
        "posting", DATA / "posting" / "shop", "customers/list-customers",
        "GET", "http://127.0.0.1:8787/customers?page=2&q=ada",
        [("Accept", "application/json"), ("X-Price", "$5")],
        None,
        options=["--env", "dev"], dotenv=POSTING_DOTENV,
    ),
    # PUT /pets/{petId} with the path example (7), the `rex` body example and bearer auth,
    # against the first server with its variable's default (region eu).
    Case(
        "openapi", DATA / "openapi" / "petstore.yaml", "pets/replace-a-pet",
        "PUT", "https://eu.petstore.example.test/v1/pets/7",
        [("Authorization", "Bearer jwt-1"), ("Content-Type", "application/json")],
        '{"name": "Rex", "tag": "dog"}',
        options=["--var", "token=jwt-1"],
    ),
    # The query parameter's first example, the API key in the query (security apiKeyQuery),
    # the second server (Local) chosen.
    Case(
        "openapi", DATA / "openapi" / "petstore.yaml", "pets/search-with-a-query-key",
        "GET", "http://127.0.0.1:8787/v1/search?q=fluffy&api_key=k-1",
        [],
        None,
        options=["--env", "local", "--var", "apiKeyQuery=k-1"],
    ),
    # Insomnia, Development environment: the folder's bearer auth with the environment's token
    # (set aside in .env), the folder's header and variable; the disabled `debug` not sent.
    Case(
        "insomnia", DATA / "insomnia" / "shop-v4.json", "users/list-users",
        "GET", "http://127.0.0.1:8000/v1/users?page=1&size=20",
        [("X-Team", "growth"), ("Accept", "application/json"),
         ("Authorization", "Bearer dev-t0ken-123")],
        None,
        options=["--env", "development"],
    ),
    # A HAR entry as the browser sent it, less what the browser adds by itself (cookies,
    # sec-*, user-agent, HTTP/2's pseudo-headers, accept-encoding).
    Case(
        "har", DATA / "har" / "shop.har", "api-shop-example-test/get-v1-products",
        "GET", "https://api.shop.example.test/v1/products?category=shoes&page=2",
        [("accept", "application/json"), ("accept-language", "en-GB,en;q=0.9"),
         ("Authorization", "Bearer eyJhbGciOiJIUzI1NiJ9.e30.sig"), ("x-request-id", "r-1")],
        None,
    ),
    # Bruno, Development environment: the collection's header, the request's API key; the
    # disabled `limit` field is not sent.
    Case(
        "bruno", DATA / "bruno" / "shop", "orders/search-orders",
        "POST", "http://127.0.0.1:8000/v1/orders/search",
        [("X-Client", "pigeon-import"), ("X-Api-Key", "k-live-9981"),
         ("Content-Type", "application/x-www-form-urlencoded")],
        "q=shoes",
        options=["--env", "development"],
    ),
]  # fmt: skip

# For each format: its sample and one note its import must print on stderr.
SAMPLES = {
    "curl": (DATA / "curl" / "bash_history", "curl: option --max-time needs a value"),
    "postman": (
        DATA / "postman" / "shop.postman_collection.json",
        "Orders/Admin/Purge cancelled: 2 saved example responses not imported",
    ),
    "http": (DATA / "http" / "api.http", "a response handler script (JavaScript)"),
    "posting": (DATA / "posting" / "shop", "digest auth is not supported by Pigeon"),
    "openapi": (DATA / "openapi" / "petstore.yaml", "file field 'file'"),
    "insomnia": (DATA / "insomnia" / "shop-v4.json", "the cookie jar is not imported"),
    "har": (DATA / "har" / "shop.har", "browser-only headers and cookies dropped"),
    "bruno": (DATA / "bruno" / "shop", "Bruno's wsse auth is not supported by Pigeon"),
}


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def import_into(
    capsys: pytest.CaptureFixture[str], kind: str, source: Path | str, into: Path
) -> tuple[list[Path], list[str]]:
    """``pigeon import``: the files it says it wrote and the notes it printed."""
    code, out, err = run(capsys, "import", kind, str(source), "--into", str(into))
    assert code == 0, err
    lines = out.splitlines()
    assert all(line.startswith("wrote ") for line in lines), out
    err_lines = err.splitlines()
    assert all(line.startswith(NOTE_PREFIX) for line in err_lines), err
    return [Path(line[len("wrote ") :]) for line in lines], [
        line[len(NOTE_PREFIX) :] for line in err_lines
    ]


def render_json(capsys: pytest.CaptureFixture[str], root: Path, case: Case) -> dict:
    """``pigeon render --format json --reveal`` of an imported request, trusted: a curl
    command's ``$TOKEN`` becomes ``{{$env.TOKEN}}``, which an untrusted collection may not
    read; revealed, since what is compared is what the source tool sends."""
    code, out, err = run(
        capsys,
        "render",
        str(root),
        case.request,
        "--format",
        "json",
        "--trust",
        "--reveal",
        *case.options,
    )
    assert code == 0, err
    return json.loads(out)


def same_url(got: str, expected: str) -> bool:
    """Equal as a server reads them: query values compared decoded (``:`` or ``%3A``)."""

    def key(url: str) -> tuple:
        parts = urlsplit(url)
        query = parse_qsl(parts.query, keep_blank_values=True)
        return parts.scheme, parts.netloc, parts.path, query, parts.fragment

    return key(got) == key(expected)


def same_body(got: str | None, expected: str | None, headers: list[tuple[str, str]]) -> bool:
    """JSON bodies compared as values (the source's whitespace is not the point), others as text."""
    ctype = next((v for k, v in headers if k.lower() == "content-type"), "")
    if got is not None and expected is not None and "json" in ctype:
        return json.loads(got) == json.loads(expected)
    return got == expected


@pytest.fixture
def imported(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> Callable[[Case], Path]:
    """Import a case's sample into a fresh directory (with its .env and process environment)."""

    def go(case: Case) -> Path:
        for name, value in case.environ.items():
            monkeypatch.setenv(name, value)
        root = tmp_path / case.kind
        import_into(capsys, case.kind, case.source, root)
        if case.dotenv:
            (root / ".env").write_text(case.dotenv, encoding="utf-8")
        return root

    return go


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_import_then_render_sends_what_the_source_tool_sends(
    case: Case, imported: Callable[[Case], Path], capsys: pytest.CaptureFixture[str]
) -> None:
    data = render_json(capsys, imported(case), case)
    assert data["unresolved"] == [] and data["warnings"] == []
    assert data["method"] == case.method
    assert same_url(data["url"], case.url), (data["url"], case.url)
    assert sorted(map(tuple, data["headers"])) == sorted(case.headers)
    assert same_body(data["body"], case.body, case.headers), (data["body"], case.body)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_exported_curl_imports_back_to_the_same_request(
    case: Case, imported: Callable[[Case], Path], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    root = imported(case)
    before = render_json(capsys, root, case)
    code, out, err = run(
        capsys, "export", "curl", str(root), case.request, "--trust", *case.options
    )
    assert code == 0 and err == ""
    argv = shlex.split(out)
    assert argv[0] == "curl"
    assert any(same_url(word, case.url) for word in argv), argv
    for name, value in case.headers:
        assert ["-H", f"{name}: {value}"] in [argv[i : i + 2] for i in range(len(argv))], argv

    again = tmp_path / "again"
    written, _ = import_into(capsys, "curl", shlex.join(argv), again)
    requests = [p for p in written if p.name != "collection.toml"]
    assert len(requests) == 1
    back = Case(**{**case.__dict__, "request": requests[0].stem, "options": []})
    after = render_json(capsys, again, back)
    keys = ("method", "url", "headers", "body", "unresolved")
    assert {k: after[k] for k in keys} == {k: before[k] for k in keys}
    original = load_collection(root).find(case.request)[1]  # type: ignore[index]
    copy = load_collection(again).find(back.request)[1]  # type: ignore[index]
    assert (copy.settings.follow_redirects, copy.settings.verify_tls) == (
        original.settings.follow_redirects,
        original.settings.verify_tls,
    )


@pytest.mark.parametrize("kind", list(SAMPLES))
def test_import_lists_written_files_on_stdout_and_notes_on_stderr(
    kind: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source, expected_note = SAMPLES[kind]
    root = tmp_path / "col"
    code, out, err = run(capsys, "import", kind, str(source), "--into", str(root))
    assert code == 0
    written = [Path(line.removeprefix("wrote ")) for line in out.splitlines()]
    assert all(line.startswith("wrote ") for line in out.splitlines())
    assert len(set(written)) == len(written)  # no file written twice
    assert sorted(written) == sorted(p for p in root.rglob("*") if p.is_file())
    notes = err.splitlines()
    assert any(expected_note in n for n in notes), notes
    assert expected_note not in out
    # Every note of the import, each once, in order: the same as the importer returns.
    _, returned = run_import(kind, str(source), tmp_path / "direct")
    assert returned and notes == [NOTE_PREFIX + n for n in returned]
    assert not load_collection(root).broken


@pytest.mark.parametrize("kind", list(SAMPLES))
def test_importing_twice_writes_new_files_only_and_changes_none(
    kind: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source, _ = SAMPLES[kind]
    root = tmp_path / "col"
    import_into(capsys, kind, source, root)
    count = len(load_collection(root).requests())
    past = 1_000_000_000 * 10**9  # 2001: any write now would move the mtime
    before = {}
    for path in (p for p in root.rglob("*") if p.is_file()):
        os.utime(path, ns=(past, past))
        before[path] = path.read_bytes()

    second, _ = import_into(capsys, kind, source, root)
    assert len(set(second)) == len(second)
    assert not set(second) & set(before), sorted(set(second) & set(before))
    for path, data in before.items():
        assert path.read_bytes() == data, path
        assert path.stat().st_mtime_ns == past, path
    assert sorted(p for p in root.rglob("*") if p.is_file()) == sorted([*before, *second])
    col = load_collection(root)
    assert not col.broken and len(col.requests()) == 2 * count
