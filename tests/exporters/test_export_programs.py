"""Each export kind's program, run by its own runtime against a recording loopback server,
delivers what Pigeon's own send delivers to the same server: the request line (method and
target bytes), the request's headers and the body bytes."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

import pytest

from pigeon.exporters import KINDS, REQUEST_KINDS, exporter
from pigeon.exporters.common import as_sent
from pigeon.file_body import FileBody
from pigeon.model import Settings
from pigeon.render import RenderedRequest
from pigeon.send import HttpSession
from servers import recording_server

# The tools that percent-encode the characters Pigeon sends as written in a URL ({ }).
REENCODE = ("httpie", "wget", "python-requests")

BIN = str(Path(sys.executable).parent)
PATH = BIN + os.pathsep + os.environ.get("PATH", "")


def _has_module(name: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(name) is not None


def _shell(text: str, tmp: Path) -> list[str]:
    return ["sh", "-c", text]


def _python(text: str, tmp: Path) -> list[str]:
    return [sys.executable, "-c", text]


def _node(text: str, tmp: Path) -> list[str]:
    return ["node", "-e", text]


def _go(text: str, tmp: Path) -> list[str]:
    (tmp / "main.go").write_text(text)
    return ["go", "run", str(tmp / "main.go")]


def _pwsh(text: str, tmp: Path) -> list[str]:
    (tmp / "send.ps1").write_text(text)
    return ["pwsh", "-NoProfile", "-NonInteractive", "-File", str(tmp / "send.ps1")]


RUNNERS: dict[str, tuple[Callable[[str, Path], list[str]], bool]] = {
    "curl": (_shell, shutil.which("curl") is not None),
    "httpie": (_shell, shutil.which("http", path=PATH) is not None),
    "wget": (_shell, shutil.which("wget") is not None),
    "python": (_python, _has_module("httpx")),
    "python-requests": (_python, _has_module("requests")),
    "javascript": (_node, shutil.which("node") is not None),
    "go": (_go, shutil.which("go") is not None),
    "powershell": (_pwsh, shutil.which("pwsh") is not None),
}

# Every byte a header value can carry (no CR, LF or NUL, no leading space; Pigeon sends text
# as UTF-8), with
# what a shell or a string literal would act on.
HEADER = "".join(chr(c) for c in range(0x21, 0x100) if c != 0x7F) + "\t$(id) `id` '\" \\"
BODY = bytes(range(256)) + b"$(id) `id` '\" \\ %s"


def _shapes(base: str, tmp: Path) -> dict[str, RenderedRequest]:
    upload = tmp / "upload.bin"
    upload.write_bytes(BODY)
    no_redirects = Settings(follow_redirects=False)
    return {
        "get": RenderedRequest(method="GET", url=base + "/users?q=caf%C3%A9&sort=-date&e="),
        "query-to-encode": RenderedRequest(method="GET", url=base + "/s?q=a b&x=[1]{2}"),
        "json": RenderedRequest(
            method="POST", url=base + "/items", body=b'{"name": "Zo\xc3\xab", "n": 1}',
            headers=[("Content-Type", "application/json"), ("Authorization", "Bearer t.k")],
        ),
        "form": RenderedRequest(
            method="PUT", url=base + "/form", body=b"a=1&b=two+words&c=%24%28id%29",
            headers=[("Content-Type", "application/x-www-form-urlencoded")],
            settings=no_redirects,
        ),
        "multipart": RenderedRequest(
            method="POST", url=base + "/up",
            body=b'--XyZ\r\nContent-Disposition: form-data; name="a"\r\n\r\n1\r\n--XyZ--\r\n',
            headers=[("Content-Type", "multipart/form-data; boundary=XyZ")],
        ),
        "every-byte-header": RenderedRequest(
            method="DELETE", url=base + "/h", headers=[("X-Every", HEADER), ("X-Two", "2")],
        ),
        "every-byte-body": RenderedRequest(
            method="PATCH", url=base + "/b", body=BODY,
            headers=[("Content-Type", "application/octet-stream")],
        ),
        "text-body-no-type": RenderedRequest(method="POST", url=base + "/t", body=b"it's $HOME"),
        "file-body": RenderedRequest(
            method="PUT", url=base + "/file",
            headers=[("Content-Type", "application/octet-stream")],
            body_file=FileBody(upload, str(upload), len(BODY), "application/octet-stream"),
        ),
        "custom-method": RenderedRequest(method="PURGE", url=base + "/cache"),
    }  # fmt: skip


def _parse(raw: bytes) -> tuple[bytes, list[tuple[bytes, bytes]], bytes]:
    head, _, body = raw.partition(b"\r\n\r\n")
    line, *rest = head.split(b"\r\n")
    headers = []
    for h in rest:
        name, _, value = h.partition(b":")
        headers.append((name.strip().lower(), value.strip(b" \t")))
    return line, headers, body


def _pigeon_sends(rendered: RenderedRequest) -> None:
    async def send() -> None:
        async with HttpSession(trust_env=False) as session:
            exchange = await session.send(rendered)
        assert exchange.error is None, exchange.error

    asyncio.run(send())


def test_every_request_kind_has_a_runner() -> None:
    assert set(REQUEST_KINDS) == set(RUNNERS)
    assert list(KINDS)[0] == "curl"


SHAPE_NAMES = [
    "get", "query-to-encode", "json", "form", "multipart", "every-byte-header",
    "every-byte-body", "text-body-no-type", "file-body", "custom-method",
]  # fmt: skip


# Python and JavaScript programs run all the shapes in one interpreter of their runtime, each
# program as its own script (a namespace of its own; its failure its own): starting the
# interpreter and importing httpx or requests cost more than the program. Shell programs run
# one process each.
BATCH_RUNNERS: dict[str, list[str]] = {
    "python": [sys.executable, "-c", """
import contextlib, io, json, sys, traceback
codes = []
for program in json.load(open(sys.argv[1])):
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            exec(compile(program, "<program>", "exec"), {"__name__": "__main__"})
    except BaseException:
        traceback.print_exc()
        codes.append(1)
    else:
        codes.append(0)
print("CODES", json.dumps(codes))
"""],
    "javascript": ["node", "-e", """
const programs = JSON.parse(require("node:fs").readFileSync(process.argv[1], "utf8"));
const codes = programs.map(() => 0);
programs.forEach((program, i) => {
  const own = new Proxy(process, {  // its exitCode is its own
    set(target, key, value) {
      if (key === "exitCode") { codes[i] = value; return true; }
      return Reflect.set(target, key, value);
    },
  });
  new Function("process", "require", program)(own, require);
});
process.once("beforeExit", () => console.log("CODES", JSON.stringify(codes)));
"""],
}  # fmt: skip
BATCH_RUNNERS["python-requests"] = BATCH_RUNNERS["python"]


class Batch:
    """Every shape's program of one kind, run in one interpreter against one recording server,
    then Pigeon's own send of each shape to it; each shape's path is its own, so a request is
    told by its target's path."""

    def __init__(self, kind: str, tmp: Path) -> None:
        with recording_server() as server:
            shapes = _shapes(server.url, tmp)
            self.programs = {name: exporter(kind)(shapes[name]) for name in SHAPE_NAMES}
            listing = tmp / "programs.json"
            listing.write_text(json.dumps([self.programs[name] for name in SHAPE_NAMES]))
            proc = subprocess.run(
                [*BATCH_RUNNERS[kind], str(listing)], capture_output=True, timeout=60,
                check=False, env={**os.environ, "PATH": PATH}, stdin=subprocess.DEVNULL,
            )  # fmt: skip
            self.said = proc.stderr.decode(errors="replace")
            marked = [ln for ln in proc.stdout.decode().splitlines() if ln.startswith("CODES ")]
            codes = json.loads(marked[-1].removeprefix("CODES ")) if marked else None
            self.codes = {
                name: (codes[i] if codes is not None else f"exit {proc.returncode}")
                for i, name in enumerate(SHAPE_NAMES)
            }
            by_program = list(server.requests)
            self.errors: dict[str, str | None] = {}
            for name in SHAPE_NAMES:
                try:
                    _pigeon_sends(shapes[name])
                except AssertionError as exc:
                    self.errors[name] = str(exc)
                else:
                    self.errors[name] = None
            by_pigeon = server.requests[len(by_program) :]
        self.shapes = shapes
        self.by_program, self.by_pigeon = _by_path(by_program), _by_path(by_pigeon)

    def sent(self, shape: str) -> tuple[list[bytes], list[bytes]]:
        """What the shape's program sent, and what Pigeon sent."""
        path = urlsplit(self.shapes[shape].url).path.encode()
        return self.by_program.get(path, []), self.by_pigeon.get(path, [])


def _by_path(requests: list[bytes]) -> dict[bytes, list[bytes]]:
    grouped: dict[bytes, list[bytes]] = {}
    for raw in requests:
        target = raw.split(b" ", 2)[1]
        grouped.setdefault(target.split(b"?", 1)[0], []).append(raw)
    return grouped


@pytest.fixture(scope="module")
def batches(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], Batch]:
    """Each batched kind's ``Batch``, run when a test first asks for it."""
    done: dict[str, Batch] = {}

    def batch(kind: str) -> Batch:
        if kind not in done:
            done[kind] = Batch(kind, tmp_path_factory.mktemp(f"batch-{kind}"))
        return done[kind]

    return batch


@pytest.mark.parametrize("shape", SHAPE_NAMES)
@pytest.mark.parametrize("kind", list(RUNNERS))
def test_the_exported_program_sends_what_pigeon_sends(
    kind: str, shape: str, tmp_path: Path, batches: Callable[[str], Batch]
) -> None:
    runner, present = RUNNERS[kind]
    if not present:
        pytest.skip(f"no runtime for {kind} here")
    if kind in BATCH_RUNNERS:
        batch = batches(kind)
        rendered, program = batch.shapes[shape], batch.programs[shape]
        assert batch.codes[shape] == 0, (program, batch.said)
        assert batch.errors[shape] is None, batch.errors[shape]
        sent, sent_by_pigeon = batch.sent(shape)
        assert len(sent) == len(sent_by_pigeon) == 1, program
        by_program, by_pigeon = _parse(sent[0]), _parse(sent_by_pigeon[0])
    else:
        with recording_server() as server:
            rendered = _shapes(server.url, tmp_path)[shape]
            program = exporter(kind)(rendered)
            proc = subprocess.run(
                runner(program, tmp_path),
                capture_output=True,
                timeout=60,
                check=False,
                env={**os.environ, "PATH": PATH},
                stdin=subprocess.DEVNULL,
            )
            assert proc.returncode == 0, (program, proc.stderr.decode(errors="replace"))
            _pigeon_sends(rendered)
            assert len(server.requests) == 2, program
            by_program, by_pigeon = (_parse(raw) for raw in server.requests)
    if kind in REENCODE and shape == "query-to-encode":
        # These tools percent-encode { } themselves; the target means the same.
        assert unquote(by_program[0].decode()) == unquote(by_pigeon[0].decode())
        assert by_program[0] != by_pigeon[0]
    else:
        assert by_program[0] == by_pigeon[0], program  # method and target, byte for byte
    assert by_program[2] == by_pigeon[2], program  # the body
    for name, _ in rendered.headers:
        key = name.lower().encode()
        got = [v for n, v in by_program[1] if n == key]
        want = [v for n, v in by_pigeon[1] if n == key]
        assert got == want, (name, program)
    if kind == "wget" and shape == "text-body-no-type":  # its own type, as its comment says
        assert (b"content-type", b"application/x-www-form-urlencoded") in by_program[1]
        assert "form Content-Type" in program
    elif rendered.body is not None or rendered.body_file is not None:
        types = [v for n, v in by_program[1] if n == b"content-type"]
        assert types == [v for n, v in by_pigeon[1] if n == b"content-type"], program


# -- quoting: every byte, and what a shell or a literal would act on ----------------------

TRICKY = "".join(chr(c) for c in range(1, 0x100)) + "$(id) `id` '' \" \\ \u2018x\u2019 %s ${x}"


def test_go_and_powershell_literals_hold_every_byte() -> None:
    """Decoded by their languages' rules here, where neither runtime may be installed."""
    import re

    from pigeon.exporters.go import go_string
    from pigeon.exporters.powershell import ps_string

    literal = go_string(TRICKY)
    assert literal.isascii() and literal.isprintable()
    inner = literal[1:-1]
    assert not re.search(r'(?<!\\)(\\\\)*"', inner)  # no quote left unescaped
    decoded = re.sub(
        r'\\(x[0-9a-f]{2}|["\\])',
        lambda m: chr(int(m[1][1:], 16)) if m[1][0] == "x" else m[1],
        inner,
    ).encode("latin-1")
    assert decoded == TRICKY.encode("utf-8")
    ps = ps_string(TRICKY)
    body = ps[1:-1]
    # Every quote PowerShell reads as the end of the string comes in a doubled pair.
    assert re.fullmatch(r"(?:[^'\u2018-\u201b]|(['\u2018-\u201b])\1)*", body)
    assert re.sub(r"(['\u2018-\u201b])\1", r"\1", body) == TRICKY


def test_python_and_shell_words_hold_every_byte(tmp_path: Path) -> None:
    import ast

    rendered = RenderedRequest(
        method="POST", url="-x http://127.0.0.1:1/$(id)", headers=[("X-T", TRICKY)],
        body=TRICKY.encode(), settings=Settings(timeout=1),
    )  # fmt: skip
    for kind in ("python", "python-requests"):
        program = exporter(kind)(rendered)
        tree = ast.parse(program)
        values = [n.value for n in ast.walk(tree) if isinstance(n, ast.Constant)]
        assert TRICKY.encode() in values or TRICKY in values, kind
    from pigeon.exporters.httpie import httpie_argv
    from pigeon.exporters.wget import wget_argv

    url = as_sent(rendered.url)
    assert url.startswith("-x")
    for words in (httpie_argv(rendered), wget_argv(rendered)):
        flat = [w for group in words for w in group]
        assert url in flat[flat.index("--") :]  # after "--": never an option
    for kind in ("httpie", "wget"):
        program = exporter(kind)(rendered)
        # Run with the tools replaced by one that prints its arguments: nothing is expanded.
        fake = tmp_path / ("http" if kind == "httpie" else "wget")
        fake.write_text('#!/bin/sh\nfor a in "$@"; do printf "%s\\0" "$a"; done\n')
        fake.chmod(0o755)
        out = subprocess.run(
            ["sh", "-c", program], capture_output=True, check=True,
            env={**os.environ, "PATH": f"{tmp_path}{os.pathsep}/usr/bin:/bin"},
        ).stdout  # fmt: skip
        words = out.split(b"\0")[:-1]
        header = f"X-T:{TRICKY}" if kind == "httpie" else f"--header=X-T: {TRICKY}"
        assert header.encode() in words
        assert url.encode() in words


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_javascript_literals_hold_every_byte() -> None:
    rendered = RenderedRequest(method="POST", url="http://127.0.0.1:1/", headers=[("X-T", TRICKY)],
                               body=TRICKY.encode())  # fmt: skip
    program = exporter("javascript")(rendered)
    probe = program.split("fetch(url", 1)[0] + (
        'process.stdout.write(JSON.stringify([headers[0][1], body.toString("latin1")]));'
    )
    out = subprocess.run(["node", "-e", probe], capture_output=True, check=True).stdout
    header, body = json.loads(out)
    assert header.encode("latin-1") == TRICKY.encode("utf-8")
    assert body.encode("latin-1") == TRICKY.encode("utf-8")


@pytest.mark.parametrize("kind", ["python", "python-requests"])
def test_the_python_programs_answer_a_digest_challenge_themselves(
    kind: str, tmp_path: Path
) -> None:
    from pigeon.auth_kinds import Auth
    from pigeon.model import Request
    from render_support import render_alone
    from servers import digest_server

    if not RUNNERS[kind][1]:
        pytest.skip(f"no runtime for {kind} here")
    with digest_server("ada", "s3cret 'x'") as server:
        request = Request(name="d", method="GET", url=server.url + "/private?a=1")
        request.auth = Auth(type="digest", username="ada", password="s3cret 'x'")
        rendered = render_alone(request, tmp_path)
        program = exporter(kind)(rendered)
        proc = subprocess.run(
            [sys.executable, "-c", program], capture_output=True, timeout=60, check=False
        )
        assert proc.returncode == 0, proc.stderr
    assert server.verdicts == [False, True]  # the challenge, then the right answer
    assert "auth is applied as the request is sent" not in program


# -- TLS and redirects, as the tool can say them ----------------------------------------------


@pytest.fixture(scope="module")
def ca() -> Any:
    import trustme

    return trustme.CA()


@pytest.mark.parametrize("case", ["verify-off", "ca-bundle", "no-redirects"])
@pytest.mark.parametrize("kind", list(RUNNERS))
def test_the_exported_program_keeps_tls_and_redirect_settings(
    kind: str, case: str, ca: Any, tmp_path: Path
) -> None:
    from pigeon.transport import TransportSpec
    from servers import hop_server, server_tls_context

    runner, present = RUNNERS[kind]
    if not present:
        pytest.skip(f"no runtime for {kind} here")
    bundle = tmp_path / "ca.pem"
    ca.cert_pem.write_to_path(str(bundle))
    env = {**os.environ, "PATH": PATH}
    for name in ("SSL_CERT_FILE", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE"):
        env.pop(name, None)
    with hop_server(server_tls_context(ca)) as server:
        rendered = RenderedRequest(method="GET", url=server.url + "/go/1?k=v")
        if case == "verify-off":
            rendered.settings = Settings(verify_tls=False)
        elif case == "ca-bundle":
            rendered.transport = TransportSpec(ca_bundle=str(bundle))
            if kind == "javascript":  # as the program's comment says to run it
                env["NODE_EXTRA_CA_CERTS"] = str(bundle)
        else:
            rendered.settings = Settings(verify_tls=False, follow_redirects=False)
        program = exporter(kind)(rendered)
        proc = subprocess.run(
            runner(program, tmp_path), capture_output=True, timeout=60, check=False, env=env,
            stdin=subprocess.DEVNULL,
        )  # fmt: skip
        paths = [path for path, _ in server.seen]
    if case == "no-redirects":
        assert paths == ["/go/1?k=v"], program  # wget then exits non-zero: no matter
    else:
        assert proc.returncode == 0, (program, proc.stderr.decode(errors="replace"))
        assert paths == ["/go/1?k=v", "/landed?k=v"], program
