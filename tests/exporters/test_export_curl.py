"""Rendered requests -> curl commands that send the same request.

Round trips curl -> Pigeon -> curl -> Pigeon keep the request; the exported command, run by a
real shell and curl against the echo server, sends what Pigeon sends.
"""

from __future__ import annotations

import asyncio
import json
import shlex
import shutil
import subprocess
from dataclasses import replace
from pathlib import Path
from urllib.parse import parse_qsl, urlsplit

import httpx
import pytest

from pigeon.echo import EchoServer
from pigeon.exporters.curl import curl_argv, curl_stdin, to_curl
from pigeon.importers.curl import parse_curl, shell_words
from pigeon.model import Request, Settings
from pigeon.render import RenderedRequest
from pigeon.send import HttpSession
from render_support import render_alone
from servers import recording_server

ENV = {"TOKEN": "tok-123"}

SHAPES = [
    "curl {base}/users",
    "curl -X DELETE {base}/users/7",
    "curl -I {base}/head",
    "curl --head -L {base}/head",
    "curl -X PUT -H 'Content-Type: application/json' -d '{{\"a\": 1}}' {base}/items/1",
    "curl --json '{{\"n\": 1}}' {base}/json",
    "curl -d 'a=1&b=two words' {base}/form",
    "curl -G --data-urlencode 'q=hello world&more' {base}/search",
    "curl -G -d q=x -d page=2 {base}/s",
    "curl -u ada:secret {base}/basic",
    "curl -u 'ada:p@ss:w rd' {base}/basic",
    "curl -H 'Authorization: Bearer abc.def' {base}/me",
    'curl -H "Authorization: Bearer $TOKEN" {base}/me',
    "curl -k -L --max-time 12.5 {base}/settings",
    "curl -A 'MyAgent/1.0' -e {base}/ref {base}/agent",
    "curl -b 'a=1; b=2' -b c=3 {base}/cookies-in",
    "curl '{base}/api?tags=a&tags=b&empty='",
    "curl '{base}/api?q=caf%C3%A9&sort=-date'",
    "curl {base}/tab -H $'X-Multi: a\\tb'",
    "curl -XPATCH -HContent-Type:text/plain -d'plain text' {base}/patch",
    "curl --request OPTIONS --url {base}/opt --header 'X-Empty;'",
    "curl -H 'Content-Type: application/xml' --data-binary '<a>1</a>' {base}/xml",
    "curl -X POST {base}/vnd -H 'Content-Type: application/vnd.api+json' -d '{{\"data\": []}}'",
    "curl -d '{{\"raw\": true}}' {base}/json-as-form",
    "curl '{base}/browser' -H 'accept: */*' -H 'accept-language: en' --compressed",
    "curl -sS -o /dev/null -w '%{{http_code}}' {base}/health",
    "curl -H 'X-Api-Key: k' -H 'X-Trace: 1' {base}/keys -m 3",
    "curl --data-raw '@literal' {base}/at",
    "curl -X POST -d '' {base}/empty",
    'curl -H \'Content-Type: application/json\' -d \'{{"name": "Zoë", "q": "it\\u0027s"}}\' {base}/unicode',
    "curl -X GET -H 'Content-Type: application/json' -d '{{\"get\": \"with body\"}}' {base}/getbody",
    "curl -X POST {base}/post-no-body",
    "curl -F name=Ada -F 'note=hi;type=text/plain' {base}/upload",
    "curl -X PURGE {base}/custom-method",
    "curl $'{base}/multi' \\\n  -H 'X-One: 1' \\\n  --data-raw $'line1\\nline2' -H 'Content-Type: text/plain'",
]


def _import(command: str) -> Request:
    result = parse_curl(command)
    assert len(result.requests) == 1
    return result.requests[0][1]


def _key(r: RenderedRequest, *, body: bool = True) -> tuple:
    headers = [(n.lower(), v) for n, v in r.headers]
    return (
        r.method,
        r.url,
        headers,
        r.body if body else None,
        (r.settings.timeout, r.settings.follow_redirects, r.settings.verify_tls),
    )


def _same_request(a: Request, b: Request) -> None:
    assert a.method == b.method
    assert a.url == b.url
    assert [(q.name, q.value) for q in a.query] == [(q.name, q.value) for q in b.query]
    assert a.auth == b.auth
    if a.body.type != "multipart":
        assert (a.body.type, a.body.content) == (b.body.type, b.body.content)
        assert [(f.name, f.value) for f in a.body.fields] == [
            (f.name, f.value) for f in b.body.fields
        ]


@pytest.mark.parametrize("shape", SHAPES)
def test_round_trip_keeps_the_request(shape: str, tmp_path: Path) -> None:
    command = shape.format(base="https://api.example.test")
    first = _import(command)
    rendered = render_alone(first, tmp_path, ENV)
    exported = to_curl(rendered)
    second = _import(exported)
    again = render_alone(second, tmp_path, ENV)
    multipart = first.body.type == "multipart"
    assert _key(again) == _key(rendered)
    if not multipart:
        _same_request(render_request_as_request(first, ENV, tmp_path), second)
    # And once more: the export of the re-import is the same command.
    assert to_curl(again) == exported
    # The command line a shell would run is exactly curl_argv.
    assert shlex.split(exported) == curl_argv(rendered)
    multiline = to_curl(rendered, multiline=True)
    assert "\\\n" in multiline or len(curl_argv(rendered)) == 2
    assert shell_words(multiline).words == curl_argv(rendered)  # a shell joins the lines


def render_request_as_request(req: Request, environ: dict[str, str], root: Path) -> Request:
    """The request with shell variables replaced, as the exported command carries them."""
    text = json.dumps({"u": req.url, "t": req.auth.token if req.auth else ""}).replace(
        "{{$env.TOKEN}}", environ["TOKEN"]
    )
    values = json.loads(text)
    out = replace(req, url=values["u"])
    if req.auth is not None:
        out.auth = replace(req.auth, token=values["t"])
    return out


def test_at_least_25_shapes() -> None:
    assert len(SHAPES) >= 25


def test_method_flag_only_when_needed() -> None:
    r = RenderedRequest(
        method="GET", url="https://x.test/", settings=Settings(follow_redirects=False)
    )
    assert curl_argv(r) == ["curl", "--url", "https://x.test/", "--compressed"]
    r = RenderedRequest(method="POST", url="https://x.test/", body=b"a", body_text="a",
                        headers=[("Content-Type", "text/plain")], settings=Settings(follow_redirects=False))  # fmt: skip
    assert curl_argv(r) == [
        "curl",
        "--url",
        "https://x.test/",
        "-H",
        "Content-Type: text/plain",
        "--data-raw",
        "a",
        "--compressed",
    ]
    r.method = "GET"
    assert curl_argv(r)[:3] == ["curl", "-X", "GET"]


def test_globbing_characters_turn_globbing_off() -> None:
    r = RenderedRequest(method="GET", url="https://x.test/a?f[0]={x}")
    assert "--globoff" in curl_argv(r)


def test_body_without_content_type_suppresses_curls_default() -> None:
    r = RenderedRequest(method="POST", url="https://x.test/", body=b"x", body_text="x")
    argv = curl_argv(r)
    assert argv[argv.index("--data-raw") - 1] == "Content-Type:"


def test_binary_body_goes_through_stdin(tmp_path: Path) -> None:
    data = bytes(range(256)) + b"'%\\"
    r = RenderedRequest(method="PUT", url="https://x.test/bin", body=data, body_text=None,
                        headers=[("Content-Type", "application/octet-stream")])  # fmt: skip
    argv = curl_argv(r)
    assert argv[-4:] == ["--data-binary", "@-", "-L", "--compressed"]
    assert curl_stdin(r) == data
    command = to_curl(r)
    assert command.startswith("printf '")
    printf = command.split(" | ", 1)[0]
    out = subprocess.run(["sh", "-c", printf], capture_output=True, check=True).stdout
    assert out == data


# -- against a real curl -------------------------------------------------------------------

CURL = shutil.which("curl")


def _echo(info_bytes: bytes) -> dict:
    return json.loads(info_bytes)


def _compare_with_pigeon(echo: dict, rendered: RenderedRequest) -> None:
    parts = urlsplit(rendered.url)
    assert echo["method"] == rendered.method
    assert echo["path"] == parts.path
    got_query = sorted(parse_qsl(urlsplit(echo["url"]).query, keep_blank_values=True))
    assert got_query == sorted(parse_qsl(parts.query, keep_blank_values=True))
    received = {k.lower(): v for k, v in echo["headers"]}
    for name, value in rendered.headers:
        assert received.get(name.lower()) == value, name
    assert echo["body"] == (rendered.body or b"").decode("utf-8", errors="replace")


@pytest.mark.skipif(CURL is None, reason="curl is not installed")
@pytest.mark.parametrize(
    "shape", [s for s in SHAPES if "-I" not in s and "--head" not in s and "-o " not in s]
)
def test_exported_command_sends_what_pigeon_sends(
    shape: str, tmp_path: Path, shared_echo_server: EchoServer
) -> None:
    base = shared_echo_server.url + "/e"  # below every special route
    rendered = render_alone(_import(shape.format(base=base)), tmp_path, ENV)
    if not rendered.settings.verify_tls:
        rendered.settings = Settings(
            rendered.settings.timeout, rendered.settings.follow_redirects, True
        )
    command = to_curl(rendered)
    proc = subprocess.run(
        ["sh", "-c", command + " -s --max-time 10"], capture_output=True, timeout=20, check=False
    )
    assert proc.returncode == 0, proc.stderr
    by_curl = _echo(proc.stdout)
    _compare_with_pigeon(by_curl, rendered)

    async def send() -> dict:
        async with HttpSession(trust_env=False) as session:
            exchange = await session.send(rendered)
        assert exchange.error is None, exchange.error
        return json.loads(exchange.body)

    by_pigeon = asyncio.run(send())
    _compare_with_pigeon(by_pigeon, rendered)
    assert by_curl["body"] == by_pigeon["body"]


AWKWARD_URLS = [
    "/search?q=a b&tag=x",  # a space in the inline query: curl refuses it raw (exit 3)
    "/p ath/é?q=ü&x={{left}}|y",  # a space in the path, non-ASCII, braces and a bar
    "/a?already=%20encoded&plus=a+b",  # what is encoded stays as it is
]


@pytest.mark.parametrize("tail", AWKWARD_URLS)
def test_the_exported_url_is_the_one_httpx_sends(tail: str) -> None:
    url = "http://127.0.0.1:9" + tail
    argv = curl_argv(RenderedRequest(method="GET", url=url))
    assert argv[argv.index("--url") + 1] == str(httpx.Request("GET", url).url)


@pytest.mark.skipif(CURL is None, reason="curl is not installed")
@pytest.mark.parametrize("tail", AWKWARD_URLS)
def test_exported_command_sends_the_target_pigeon_sends(tail: str) -> None:
    with recording_server() as server:
        rendered = RenderedRequest(method="GET", url=server.url + tail)
        proc = subprocess.run(
            ["sh", "-c", to_curl(rendered) + " -s --max-time 10"],
            capture_output=True,
            timeout=20,
            check=False,
        )
        assert proc.returncode == 0, proc.stderr

        async def send() -> None:
            async with HttpSession(trust_env=False) as session:
                exchange = await session.send(rendered)
            assert exchange.error is None, exchange.error

        asyncio.run(send())
        by_curl, by_pigeon = (raw.split(b"\r\n", 1)[0] for raw in server.requests)
    assert by_curl == by_pigeon


@pytest.mark.skipif(CURL is None, reason="curl is not installed")
def test_binary_body_with_real_curl(shared_echo_server: EchoServer) -> None:
    data = b"\x00\x01\xfe\xff binary 'quoted' %s \\"
    r = RenderedRequest(method="PUT", url=shared_echo_server.url + "/bin", body=data,
                        headers=[("Content-Type", "application/octet-stream")])  # fmt: skip
    proc = subprocess.run(
        ["sh", "-c", to_curl(r) + " -s"], capture_output=True, timeout=20, check=True
    )
    echo = json.loads(proc.stdout)
    assert echo["method"] == "PUT" and echo["size"] == len(data)


@pytest.mark.skipif(CURL is None, reason="curl is not installed")
@pytest.mark.parametrize("shell", ["sh", "bash"])
def test_a_binary_multipart_body_survives_the_exported_command(
    shell: str, tmp_path: Path, shared_echo_server: EchoServer
) -> None:
    # The body starts with "--boundary": a printf format that starts with "-" is an option.
    if shutil.which(shell) is None:
        pytest.skip(f"{shell} is not installed")
    from render_support import render_written

    blob = bytes(range(256)) * 4
    (tmp_path / "blob.bin").write_bytes(blob)
    (tmp_path / "up.toml").write_text(
        f'method = "POST"\nurl = "{shared_echo_server.url}/post"\n[body]\ntype = "multipart"\n'
        '[[body.fields]]\nname = "f"\nkind = "file"\nvalue = "blob.bin"\n'
        '[[body.fields]]\nname = "t"\nvalue = "hi"\n',
        encoding="utf-8",
    )
    rendered = render_written(tmp_path, "up")
    assert rendered.body is not None and rendered.body.startswith(b"--")
    proc = subprocess.run(
        [shell, "-c", to_curl(rendered) + " -s"], capture_output=True, timeout=20, check=True
    )
    echo = json.loads(proc.stdout)
    assert echo["size"] == len(rendered.body)
    assert echo["form"] == {"t": ["hi"]}
    assert [(f["name"], f["size"], f["filename"]) for f in echo["files"]] == [
        ("f", len(blob), "blob.bin")
    ]


# -- compression -----------------------------------------------------------------------------


def test_compressed_is_always_exported_and_survives_the_round_trip(tmp_path: Path) -> None:
    # Pigeon always asks for a compressed response and decodes it; the command says the same.
    for command in ("curl https://x.test/a --compressed", "curl https://x.test/a"):
        result = parse_curl(command)
        assert not any("compressed" in n for n in result.notes)
        exported = to_curl(render_alone(result.requests[0][1], tmp_path))
        assert exported == "curl --url https://x.test/a --compressed"
    again = parse_curl(exported)
    assert again.notes == [] and again.requests[0][1].url == "https://x.test/a"


@pytest.mark.skipif(CURL is None, reason="curl is not installed")
def test_exported_command_decodes_a_compressed_response_like_pigeon(
    tmp_path: Path, shared_echo_server: EchoServer
) -> None:
    rendered = render_alone(_import(f"curl {shared_echo_server.url}/gzip"), tmp_path)
    proc = subprocess.run(
        ["sh", "-c", to_curl(rendered) + " -s --max-time 10"],
        capture_output=True,
        timeout=20,
        check=True,
    )
    by_curl = json.loads(proc.stdout)  # decoded, not gzip bytes

    async def send() -> dict:
        async with HttpSession(trust_env=False) as session:
            exchange = await session.send(rendered)
        return json.loads(exchange.body)

    by_pigeon = asyncio.run(send())
    assert by_curl["gzipped"] is by_pigeon["gzipped"] is True
    for echo in (by_curl, by_pigeon):
        received = {k.lower(): v for k, v in echo["headers"]}
        assert "gzip" in received["accept-encoding"]


# -- pigeon export ---------------------------------------------------------------------------


@pytest.fixture
def collection(tmp_path: Path) -> Path:
    root = tmp_path / "col"
    root.mkdir()
    (root / "collection.toml").write_text('name = "c"\n[variables]\nhost = "x.test"\n')
    (root / "ok.toml").write_text('name = "ok"\nurl = "https://{{host}}/ok"\n')
    (root / "loose.toml").write_text(
        'name = "loose"\nurl = "https://{{host}}/{{nope}}"\n'
        '[[headers]]\nname = "X-Key"\nvalue = "{{$env.PIGEON_TEST_UNSET_KEY}}"\n'
    )
    return root


def export(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    from pigeon.cli import main

    code = main(["export", "curl", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_export_prints_the_command_quietly_when_everything_resolves(
    collection: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert export(capsys, str(collection), "ok") == (
        0,
        "curl --url https://x.test/ok -L --compressed\n",
        "",
    )
    assert export(capsys, str(collection), "ok", "--strict")[0] == 0


def test_export_names_unresolved_placeholders(
    collection: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("PIGEON_TEST_UNSET_KEY", raising=False)
    code, out, err = export(capsys, str(collection), "loose")
    assert code == 2 and out == ""  # $env beyond the collection's .env needs trust
    assert "needs trust: loose: reads $env.PIGEON_TEST_UNSET_KEY" in err
    code, out, err = export(capsys, str(collection), "loose", "--trust")
    assert code == 0
    assert out.startswith("curl --url https://x.test/%7B%7Bnope%7D%7D")  # as Pigeon sends it
    assert err.count("\n") == 1 and "warning" in err
    assert "nope" in err and "$env.PIGEON_TEST_UNSET_KEY" in err
    code, out, err = export(capsys, str(collection), "loose", "--strict", "--trust")
    assert code == 3 and out == ""
    assert err == "pigeon: unresolved placeholders: nope, $env.PIGEON_TEST_UNSET_KEY\n"
    code, out, err = export(
        capsys, str(collection), "loose", "--var", "nope=n", "--strict", "--trust"
    )
    assert code == 3 and "nope" not in err


def test_a_url_that_starts_with_a_dash_is_never_read_as_an_option() -> None:
    r = RenderedRequest(method="GET", url="-o/tmp/owned")
    argv = curl_argv(r)
    assert argv[argv.index("--url") + 1] == "-o/tmp/owned"
    assert "-o/tmp/owned" not in argv[: argv.index("--url")]
    assert "--url -o/tmp/owned" in to_curl(r)


def test_a_body_with_terminal_escapes_goes_through_printf_with_its_exact_bytes() -> None:
    body = b"title\x1b]0;owned\x07 and \x1b[2J"
    r = RenderedRequest(method="POST", url="https://x.test/", body=body, body_text=body.decode())
    command = to_curl(r)
    assert "\x1b" not in command and "\x07" not in command  # nothing a terminal acts on
    assert command.startswith("printf '") and "--data-binary @-" in command
    out = subprocess.run(["sh", "-c", command.split(" | ")[0]], capture_output=True, check=True)
    assert out.stdout == body


def test_export_carries_the_saved_jars_cookies_a_send_would(
    collection: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from pigeon.cookies import make_cookie, new_jar, save, snapshot

    jar = new_jar()
    jar.set_cookie(make_cookie("sid", "abc", "x.test", host_only=True))
    jar.set_cookie(make_cookie("deep", "1", "x.test", "/elsewhere", host_only=True))
    jar.set_cookie(make_cookie("other", "2", "y.test", host_only=True))
    save(snapshot(jar), collection, None)
    code, out, err = export(capsys, str(collection), "ok")
    assert (code, err) == (0, "")
    assert out == "curl --url https://x.test/ok -H 'Cookie: sid=abc' -L --compressed\n"
    # A request that keeps the jar's cookies home, or sets its own, carries none of them.
    (collection / "home.toml").write_text(
        'name = "home"\nurl = "https://x.test/"\n[settings]\nsend_cookies = false\n'
    )
    (collection / "own.toml").write_text(
        'name = "own"\nurl = "https://x.test/"\n[[headers]]\nname = "Cookie"\nvalue = "a=b"\n'
    )
    assert "Cookie" not in export(capsys, str(collection), "home")[1]
    assert "'Cookie: a=b'" in export(capsys, str(collection), "own")[1]
    assert "sid" not in export(capsys, str(collection), "own")[1]
