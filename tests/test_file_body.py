"""File bodies (DESIGN §11): a file sent as it is, streamed from disk with its Content-Length,
to a real loopback server that checks the bytes and headers it got; re-sent whole by a 307 or
308, dropped by a 303; a file that changes size is an error, never a short body; a missing
file, a folder or a FIFO is a clear error and never a hang; a path out of the collection (``..``,
absolute, a symlink) is a trust need."""

from __future__ import annotations

import asyncio
import hashlib
import os
from pathlib import Path

import pytest

from collection_files import write
from pigeon.errors import RenderError
from pigeon.exchange import Progress
from pigeon.file_body import CHUNK, FileBody, FileChanged, inspect
from pigeon.render import RenderedRequest, render_request
from pigeon.scopes import build_scopes
from pigeon.send import HttpSession
from pigeon.send_thread import ThreadedSession
from pigeon.store import load_collection
from pigeon.trust import Gate, Refused, needs
from upload_server import upload_server

DATA = bytes(range(256)) * 2400 + b"tail"  # 614,404 bytes: several chunks


def _request(path: str, url: str = "http://127.0.0.1:1", extra: str = "") -> str:
    return (
        f'name = "Upload"\nmethod = "POST"\nurl = "{url}"\n\n'
        f'[body]\ntype = "file"\npath = "{path}"\n{extra}'
    )


def _collection(root: Path, request: str, files: dict[str, bytes] | None = None) -> Path:
    write(root, "collection.toml", 'name = "files"\n')
    write(root, "upload.toml", request)
    for rel, data in (files or {}).items():
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    return root


def _render(root: Path, gate: bool = False) -> RenderedRequest:
    col = load_collection(root)
    found = col.find("upload")
    assert found is not None
    chain, request = found
    scopes = build_scopes(col, chain, request, None, gate=Gate(col) if gate else None)
    return render_request(col, chain, request, scopes)


def _send(rendered: RenderedRequest, sync: bool, progress: Progress | None = None):  # type: ignore[no-untyped-def]
    async def go():  # type: ignore[no-untyped-def]
        session = ThreadedSession() if sync else HttpSession()
        async with session:
            return await session.send(rendered, progress)

    return asyncio.run(go())


# -- rendering --------------------------------------------------------------------------------


def test_a_file_body_renders_as_its_description_without_reading_it(tmp_path: Path) -> None:
    root = _collection(tmp_path, _request("fixtures/upload.bin"), {"fixtures/upload.bin": DATA})
    rendered = _render(root)
    assert rendered.body is None
    assert (
        rendered.body_text
        == f"<file fixtures/upload.bin, {len(DATA)} bytes, application/octet-stream>"
    )
    assert rendered.header("Content-Type") == "application/octet-stream"
    assert rendered.body_file is not None and rendered.body_file.size == len(DATA)
    assert rendered.to_json()["body"] == rendered.body_text


def test_the_path_takes_placeholders_and_the_type_is_guessed_from_the_name(
    tmp_path: Path,
) -> None:
    text = (
        'name = "Upload"\nmethod = "PUT"\nurl = "http://127.0.0.1:1"\n\n'
        '[variables]\nstem = "data"\n\n[body]\ntype = "file"\npath = "fixtures/{{stem}}.json"\n'
    )
    root = _collection(tmp_path, text, {"fixtures/data.json": b'{"a": 1}'})
    rendered = _render(root)
    assert rendered.body_text == "<file fixtures/data.json, 8 bytes, application/json>"
    assert rendered.header("Content-Type") == "application/json"


def test_a_content_type_given_wins_over_the_guess(tmp_path: Path) -> None:
    root = _collection(
        tmp_path,
        _request("up.json", extra='content_type = "application/vnd.api+json"\n'),
        {"up.json": b"{}"},
    )
    rendered = _render(root)
    assert rendered.header("Content-Type") == "application/vnd.api+json"
    assert rendered.body_text == "<file up.json, 2 bytes, application/vnd.api+json>"


def test_a_missing_file_is_a_clear_render_error(tmp_path: Path) -> None:
    root = _collection(tmp_path, _request("fixtures/missing.bin"))
    with pytest.raises(RenderError, match=r"^file not found: fixtures/missing\.bin$"):
        _render(root)


def test_a_folder_is_a_clear_render_error(tmp_path: Path) -> None:
    root = _collection(tmp_path, _request("fixtures"))
    (root / "fixtures").mkdir()
    with pytest.raises(RenderError, match=r"^fixtures is a folder, not a file$"):
        _render(root)


def test_a_fifo_is_a_clear_render_error_and_never_opened(tmp_path: Path) -> None:
    root = _collection(tmp_path, _request("pipe"))
    os.mkfifo(root / "pipe")  # opening it would wait for a writer that never comes
    with pytest.raises(RenderError, match=r"^pipe is a FIFO, not a file$"):
        _render(root)


# -- trust ------------------------------------------------------------------------------------


@pytest.mark.parametrize("how", ["dots", "absolute", "symlink"])
def test_a_file_outside_the_collection_is_a_trust_need(tmp_path: Path, how: str) -> None:
    outside = tmp_path / "secret.bin"
    outside.write_bytes(b"not yours")
    root = tmp_path / "col"
    if how == "dots":
        path = "../secret.bin"
    elif how == "absolute":
        path = str(outside)
    else:
        path = "link.bin"
    _collection(root, _request(path))
    if how == "symlink":
        (root / "link.bin").symlink_to(outside)
    col = load_collection(root)
    found = needs(col, col.walk())
    assert [(n.kind, n.what) for n in found] == [("file", str(outside))]
    assert "the file body reads" in found[0].thing
    with pytest.raises(Refused, match="needs trust: the file body reads .*secret.bin, outside"):
        _render(root, gate=True)
    assert _render(root).body_file is not None  # trusted: sent


def test_a_file_inside_the_collection_needs_no_trust(tmp_path: Path) -> None:
    root = _collection(tmp_path, _request("up.bin"), {"up.bin": b"x"})
    col = load_collection(root)
    assert needs(col, col.walk()) == []
    assert _render(root, gate=True).body_text == "<file up.bin, 1 byte, application/octet-stream>"


# -- sending ----------------------------------------------------------------------------------


@pytest.mark.parametrize("sync", [False, True], ids=["app", "run"])
def test_the_file_is_streamed_with_its_length_and_type(tmp_path: Path, sync: bool) -> None:
    with upload_server() as server:
        root = _collection(
            tmp_path,
            _request("fixtures/upload.bin", server.url + "/up"),
            {"fixtures/upload.bin": DATA},
        )
        rendered = _render(root)
        progress = Progress()
        exchange = _send(rendered, sync, progress)
    assert exchange.error is None and exchange.status == 200
    [got] = server.seen
    assert (got.method, got.path, got.body) == ("POST", "/up", DATA)
    assert got.headers["content-length"] == str(len(DATA))
    assert "transfer-encoding" not in got.headers
    assert got.headers["content-type"] == "application/octet-stream"
    assert (progress.bytes_sent, progress.bytes_to_send) == (len(DATA), len(DATA))
    assert rendered.body_file is not None
    assert rendered.body_file.sha256 == hashlib.sha256(DATA).hexdigest()


@pytest.mark.parametrize("sync", [False, True], ids=["app", "run"])
@pytest.mark.parametrize("code", [307, 308])
def test_a_307_or_308_sends_the_file_again_from_its_start(
    tmp_path: Path, sync: bool, code: int
) -> None:
    with upload_server() as server:
        root = _collection(
            tmp_path, _request("up.bin", f"{server.url}/redirect/{code}"), {"up.bin": DATA}
        )
        exchange = _send(_render(root), sync)
    assert exchange.error is None and exchange.status == 200
    assert [(u.method, u.path, u.body) for u in server.seen] == [
        ("POST", f"/redirect/{code}", DATA),
        ("POST", "/landed", DATA),
    ]
    assert server.seen[1].headers["content-length"] == str(len(DATA))


@pytest.mark.parametrize("sync", [False, True], ids=["app", "run"])
def test_a_303_drops_the_file(tmp_path: Path, sync: bool) -> None:
    with upload_server() as server:
        root = _collection(
            tmp_path, _request("up.bin", f"{server.url}/redirect/303"), {"up.bin": DATA}
        )
        exchange = _send(_render(root), sync)
    assert exchange.error is None and exchange.status == 200
    first, landed = server.seen
    assert (first.method, first.body) == ("POST", DATA)
    assert (landed.method, landed.path, landed.size) == ("GET", "/landed", 0)
    assert "content-length" not in landed.headers


@pytest.mark.parametrize("sync", [False, True], ids=["app", "run"])
def test_a_file_that_changed_size_since_the_render_is_not_sent_short(
    tmp_path: Path, sync: bool
) -> None:
    with upload_server() as server:
        root = _collection(tmp_path, _request("up.bin", server.url), {"up.bin": DATA})
        rendered = _render(root)
        (root / "up.bin").write_bytes(DATA[:1000])
        exchange = _send(rendered, sync)
    assert exchange.status is None
    assert exchange.error == (
        f"up.bin changed size since the request was rendered ({len(DATA)} bytes, now 1000): "
        "its body was not sent"
    )
    assert all(u.size != 1000 for u in server.seen)


def test_a_file_that_shrinks_while_it_is_read_ends_the_pass(tmp_path: Path) -> None:
    path = tmp_path / "up.bin"
    path.write_bytes(DATA)
    body = inspect(path, "up.bin", "")
    chunks = body.chunks()
    assert next(chunks) == DATA[:CHUNK]
    os.truncate(path, CHUNK + 1000)
    with pytest.raises(
        FileChanged, match=rf"shrank while it was sent \({CHUNK + 1000} of {len(DATA)}"
    ):
        list(chunks)
    assert body.sha256 is None


def test_a_file_that_grows_while_it_is_read_ends_the_pass(tmp_path: Path) -> None:
    path = tmp_path / "up.bin"
    path.write_bytes(DATA)
    body = inspect(path, "up.bin", "")
    chunks = body.chunks()
    next(chunks)
    with path.open("ab") as fh:
        fh.write(b"more")
    with pytest.raises(FileChanged, match=r"up\.bin grew while it was sent"):
        list(chunks)


def test_a_fifo_swapped_in_after_the_render_is_refused_at_once(tmp_path: Path) -> None:
    path = tmp_path / "up.bin"
    path.write_bytes(b"x")
    body = inspect(path, "up.bin", "")
    path.unlink()
    os.mkfifo(path)  # no writer: a blocking open would wait for ever
    with pytest.raises(FileChanged, match=r"up\.bin is a FIFO, not a file: not sent"):
        list(body.chunks())


def test_a_description_counts_its_bytes() -> None:
    body = FileBody(Path("/x"), "x", 0, "text/plain")
    assert body.describe() == "<file x, 0 bytes, text/plain>"


# -- export -----------------------------------------------------------------------------------


def test_export_curl_names_the_file_and_curl_sends_the_same_bytes(tmp_path: Path) -> None:
    import shlex
    import shutil
    import subprocess

    from pigeon.exporters.curl import to_curl

    with upload_server() as server:
        root = _collection(
            tmp_path,
            _request("fixtures/up load.bin", server.url + "/up"),
            {"fixtures/up load.bin": DATA},
        )
        command = to_curl(_render(root))
        assert f"--data-binary {shlex.quote('@' + str(root / 'fixtures/up load.bin'))}" in command
        assert "-H 'Content-Type: application/octet-stream'" in command
        if shutil.which("curl") is None:
            pytest.skip("no curl here to run the command")
        subprocess.run(command + " -s -o /dev/null", shell=True, check=True, timeout=30)
    [got] = server.seen
    assert (got.method, got.body) == ("POST", DATA)
    assert got.headers["content-type"] == "application/octet-stream"


# -- the command line, history, scripts -------------------------------------------------------

SCRIPTED = """\
name = "Upload"
method = "POST"
url = "{url}/up"

[body]
type = "file"
path = "fixtures/upload.bin"

[scripts]
pre_request = '''
print("before:", pigeon.request.body.content)
'''
post_response = '''
print("after:", pigeon.request.body.content)
assert pigeon.response.json()["size"] == {size}
'''
"""


def test_run_sends_records_and_shows_the_scripts_a_description(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import json

    from pigeon.cli import main
    from pigeon.history import list_entries, to_request

    described = f"<file fixtures/upload.bin, {len(DATA)} bytes, application/octet-stream>"
    with upload_server() as server:
        root = _collection(
            tmp_path,
            SCRIPTED.format(url=server.url, size=len(DATA)),
            {"fixtures/upload.bin": DATA},
        )
        code = main(["run", str(root), "--trust", "--history", "--no-color"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert server.seen[0].body == DATA
    assert f"before: {described}" in out and f"after: {described}" in out
    [entry] = list_entries(root)
    stored = json.loads(entry.path.read_text())["request"]
    assert stored["body"] is None
    assert stored["file"] == {
        "path": "fixtures/upload.bin",
        "size": len(DATA),
        "content_type": "application/octet-stream",
        "sha256": hashlib.sha256(DATA).hexdigest(),
    }
    assert DATA[:64].hex() not in entry.path.read_text()
    assert entry.to_exchange().request.body_text == described
    again = to_request(entry)
    assert (again.body.type, again.body.path) == ("file", "fixtures/upload.bin")


def test_render_shows_the_description_and_run_says_a_missing_file_was_not_sent(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import json

    from pigeon.cli import main

    root = _collection(tmp_path, _request("fixtures/upload.bin"), {"fixtures/upload.bin": b"ab"})
    assert main(["render", str(root), "upload", "--format", "json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["body"] == "<file fixtures/upload.bin, 2 bytes, application/octet-stream>"
    (root / "fixtures" / "upload.bin").unlink()
    assert main(["run", str(root), "--no-color"]) == 1
    out, err = capsys.readouterr()
    assert "not sent: file not found: fixtures/upload.bin" in out + err
    assert main(["render", str(root), "upload"]) == 1
    assert "file not found: fixtures/upload.bin" in capsys.readouterr().err


def test_run_of_an_untrusted_collection_names_a_file_outside_as_a_need(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from pigeon.cli import main

    (tmp_path / "secret.bin").write_bytes(b"s")
    root = _collection(tmp_path / "col", _request("../secret.bin"))
    assert main(["run", str(root), "--no-color"]) == 2
    err = capsys.readouterr().err
    assert f"the file body reads {tmp_path / 'secret.bin'}, outside the collection" in err


def test_check_names_a_missing_file_and_one_outside(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from pigeon.cli import main

    root = _collection(tmp_path / "col", _request("fixtures/{{stem}}.bin"))
    write(root, "outside.toml", _request("../secret.bin").replace("Upload", "Outside"))
    write(root, "collection.toml", 'name = "files"\n[variables]\nstem = "gone"\n')
    assert main(["check", str(root)]) == 1
    out = capsys.readouterr().out
    assert "upload.toml:7:9: error [missing-file] the file body: no file fixtures/gone.bin" in out
    assert "outside.toml:7:9: warning [file-outside] the file body reads ../secret.bin" in out


@pytest.mark.parametrize("sync", [False, True], ids=["app", "run"])
def test_a_digest_challenge_sends_the_file_again_whole(tmp_path: Path, sync: bool) -> None:
    from servers import digest_server

    auth = '\n[auth]\ntype = "digest"\nusername = "ada"\npassword = "pw"\n'
    with digest_server("ada", "pw") as server:
        root = _collection(
            tmp_path, _request("up.bin", server.url + "/up") + auth, {"up.bin": DATA}
        )
        rendered = _render(root)
        exchange = _send(rendered, sync)
    assert exchange.error is None and exchange.status == 200
    assert server.verdicts == [False, True]  # challenged, then answered with the whole file
    assert [headers["Content-Length"] for _, _, headers in server.seen] == [str(len(DATA))] * 2
    assert rendered.body_file is not None
    assert rendered.body_file.sha256 == hashlib.sha256(DATA).hexdigest()


@pytest.mark.parametrize("sync", [False, True], ids=["app", "run"])
def test_a_file_the_server_never_reads_stops_at_the_deadline(tmp_path: Path, sync: bool) -> None:
    from servers import deaf_server

    with deaf_server() as url:
        root = _collection(tmp_path, _request("big.bin", url, "\n[settings]\ntimeout = 1.0\n"))
        with (root / "big.bin").open("wb") as fh:
            fh.truncate(64 * 1024 * 1024)  # more than the socket buffers hold
        progress = Progress()
        exchange = _send(_render(root), sync, progress)
    assert exchange.error == "Timed out after 1.0 s while sending the request"
    assert 0 < progress.bytes_sent < 64 * 1024 * 1024


@pytest.mark.timeout(60)
@pytest.mark.parametrize("kind", ["fifo", "folder"])
def test_run_refuses_a_fifo_or_a_folder_at_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], kind: str
) -> None:
    from pigeon.cli import main

    root = _collection(tmp_path, _request("thing"))
    if kind == "fifo":
        os.mkfifo(root / "thing")  # nobody writes to it: opening it to read would wait
        said = "thing is a FIFO, not a file"
    else:
        (root / "thing").mkdir()
        said = "thing is a folder, not a file"
    assert main(["run", str(root), "--no-color"]) == 1
    assert f"not sent: {said}" in capsys.readouterr().out


# -- on disk ----------------------------------------------------------------------------------


def test_a_file_body_saves_as_written_and_a_change_is_its_lines(tmp_path: Path) -> None:
    from pigeon.model import Body, Request
    from pigeon.store import save_request

    written = _request("fixtures/upload.bin", extra='content_type = "image/png"  # a logo\n')
    root = _collection(tmp_path, written)
    col = load_collection(root)
    found = col.find("upload")
    assert found is not None
    request = found[1]
    assert (request.body.type, request.body.path, request.body.content_type) == (
        "file",
        "fixtures/upload.bin",
        "image/png",
    )
    save_request(request)
    assert (root / "upload.toml").read_text() == written  # unchanged: byte for byte
    request.body.path = "fixtures/other.bin"
    save_request(request)
    assert (root / "upload.toml").read_text() == written.replace("upload.bin", "other.bin")
    fresh = Request("New", "POST", "http://x.test", body=Body(type="file", path="a.bin"))
    save_request(fresh, root / "new.toml")
    text = (root / "new.toml").read_text()
    assert '[body]\ntype = "file"\npath = "a.bin"\n' in text and "content_type" not in text
