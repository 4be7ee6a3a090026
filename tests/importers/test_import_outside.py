"""An import never reads a file outside its source's directory (symlinks followed) unless
``--allow-outside``: for every importer and every way its format names a local file, a file in
a directory beside the source, an absolute path, a ``../`` path and a symlink inside that
points out are each left unread and named in one note; the same file inside is read."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

import pytest

from pigeon.cli import main
from pigeon.importers import parse, run_import
from pigeon.importers.curl import parse_curl
from pigeon.importers.http_file import parse_http_file
from pigeon.importers.postman import parse_postman
from pigeon.model import Request
from pigeon.store import request_to_toml

SECRET = "S3CRET-outside-value"
INSIDE = "inside-value"


@dataclass
class Tree:
    """``src/`` holds the source; ``beside/secret.txt`` is the file it must not read."""

    src: Path
    secret: Path  # its real path, as the note names it

    def note(self) -> str:
        return (
            f"file {self.secret} is outside {os.path.realpath(self.src)}; "
            "not read (use --allow-outside)"
        )


@pytest.fixture
def tree(tmp_path: Path) -> Tree:
    src, beside = tmp_path / "src", tmp_path / "beside"
    src.mkdir()
    beside.mkdir()
    secret = beside / "secret.txt"
    secret.write_text(SECRET, encoding="utf-8")
    (src / "link.txt").symlink_to(secret)  # inside by name, outside in fact
    (src / "mine.txt").write_text(INSIDE, encoding="utf-8")
    return Tree(src, Path(os.path.realpath(secret)))


# How a source names the outside file: a ``../`` path, an absolute path, a symlink inside.
REFS = {
    "dotdot": lambda t: "../beside/secret.txt",
    "absolute": lambda t: str(t.secret),
    "symlink": lambda t: "link.txt",
}


def text_of(requests: list[tuple[str, Request]]) -> str:
    return "\n".join(request_to_toml(r) for _, r in requests)


# -- curl -------------------------------------------------------------------------------------

# Every curl form that reads a file's contents into the request, with FILE as the file.
CURL_READS = {
    "-d @": "curl -d @FILE https://x.test",
    "--data-binary @, with more data": "curl --data-binary @FILE -d x=1 https://x.test",
    "--data-ascii @": "curl --data-ascii @FILE https://x.test",
    "--data-urlencode name@": "curl --data-urlencode v@FILE https://x.test",
    "--json @": "curl --json @FILE https://x.test",
    "-H @": "curl -H @FILE https://x.test",
    "-F name=<": "curl -F 'v=<FILE' https://x.test",
    "-d @- < FILE": "curl -d @- https://x.test < FILE",
    "--data @- < FILE, separated": "curl --data @- https://x.test <FILE",
}


def header_file(tree: Tree) -> None:
    """-H @file reads header lines: make both files hold one."""
    (tree.src / "mine.txt").write_text(f"X-Mine: {INSIDE}\n", encoding="utf-8")
    tree.secret.write_text(f"X-Secret: {SECRET}\n", encoding="utf-8")


@pytest.mark.parametrize("ref", REFS)
@pytest.mark.parametrize("form", CURL_READS)
def test_curl_reads_no_file_outside(tree: Tree, form: str, ref: str) -> None:
    if form == "-H @":
        header_file(tree)
    command = CURL_READS[form].replace("FILE", REFS[ref](tree))
    result = parse_curl(command, base=tree.src)
    assert len(result.requests) == 1  # still imported, without the file
    assert SECRET not in text_of(result.requests)
    assert result.notes.count(tree.note()) == 1
    assert not any("cannot read" in n for n in result.notes)  # one note per file, not two

    allowed = parse_curl(command, base=tree.src, allow_outside=True)
    assert SECRET in text_of(allowed.requests)
    assert tree.note() not in allowed.notes


@pytest.mark.parametrize("form", CURL_READS)
def test_curl_reads_a_file_inside(tree: Tree, form: str) -> None:
    if form == "-H @":
        header_file(tree)
    result = parse_curl(CURL_READS[form].replace("FILE", "mine.txt"), base=tree.src)
    assert INSIDE in text_of(result.requests)
    assert not any("outside" in n for n in result.notes)


@pytest.mark.parametrize("ref", REFS)
def test_curl_file_field_outside_is_kept_switched_off(tree: Tree, ref: str) -> None:
    written = REFS[ref](tree)
    result = parse_curl(f"curl -F up=@{written} -F ok=@mine.txt https://x.test", base=tree.src)
    ((_, req),) = result.requests
    up, ok = req.body.fields
    assert (up.kind, up.value, up.enabled) == ("file", written, False)
    assert (ok.value, ok.enabled) == (str(tree.src / "mine.txt"), True)
    assert result.notes.count(tree.note()) == 1

    ((_, req),) = parse_curl(
        f"curl -F up=@{written} https://x.test", base=tree.src, allow_outside=True
    ).requests
    assert req.body.fields[0].enabled


def test_curl_options_that_name_files_read_none(tree: Tree) -> None:
    """-K (a config file), -T (an upload), -b FILE (a cookie file) are noted, never read."""
    for option in ("-K", "-T", "-b"):
        result = parse_curl(f"curl {option} {tree.secret} https://x.test", base=tree.src)
        assert SECRET not in text_of(result.requests)
        said = ("not carried over", "not read (use --allow-outside)")
        assert any(str(tree.secret) in n and n.endswith(said) for n in result.notes)


def test_a_curl_history_file_reads_beside_itself_only(tree: Tree) -> None:
    history = tree.src / "history"
    history.write_text(
        f"curl -d @mine.txt https://x.test/a\ncurl -d @{tree.secret} https://x.test/b\n",
        encoding="utf-8",
    )
    result = parse("curl", str(history))
    bodies = [r.body.content for _, r in result.requests]
    assert bodies[0] == INSIDE and SECRET not in text_of(result.requests)
    assert tree.note() in result.notes


def test_a_curl_command_as_text_reads_the_current_directory_only(
    tree: Tree, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tree.src)
    result = parse("curl", f"curl -d @mine.txt -d @{tree.secret} https://x.test")
    ((_, req),) = result.requests
    assert INSIDE in req.body.content and SECRET not in req.body.content
    assert tree.note() in result.notes


@pytest.mark.timeout(30)
def test_a_fifo_or_a_device_is_never_read(tree: Tree) -> None:
    os.mkfifo(tree.src / "fifo")  # nobody writes to it: reading would wait for ever
    result = parse_curl("curl -d @fifo https://x.test", base=tree.src)
    assert any("not a regular file" in n for n in result.notes)
    result = parse_curl("curl -d @/dev/zero https://x.test", base=tree.src, allow_outside=True)
    assert any("not a regular file" in n for n in result.notes)
    (tree.src / "api.http").write_text("POST https://x.test\n\n< ./fifo\n", encoding="utf-8")
    result = parse("http", str(tree.src / "api.http"))
    assert any("fifo is not a regular file; not carried over" in n for n in result.notes)


# -- .http files ------------------------------------------------------------------------------


@pytest.mark.parametrize("marker", ["<", "<@", "<@latin1"])
@pytest.mark.parametrize("ref", REFS)
def test_http_body_file_outside_is_not_read(tree: Tree, ref: str, marker: str) -> None:
    source = tree.src / "api.http"
    source.write_text(f"POST https://x.test/a\n\n{marker} {REFS[ref](tree)}\n", encoding="utf-8")
    result = parse_http_file(source.read_text(), source)
    ((_, req),) = result.requests
    assert req.body.type == "none"  # the request, with its body left empty
    assert result.notes.count(tree.note()) == 1
    assert not any("not carried over" in n for n in result.notes)

    ((_, req),) = parse_http_file(source.read_text(), source, allow_outside=True).requests
    if marker == "<":  # the file as it is: named, never read
        assert (req.body.type, req.body.content) == ("file", "")
        assert os.path.realpath(req.body.path) == str(tree.secret)
    else:
        assert req.body.content == SECRET


def test_http_body_file_inside_is_read(tree: Tree) -> None:
    source = tree.src / "api.http"
    source.write_text("POST https://x.test/a\n\n<@ ./mine.txt\n", encoding="utf-8")
    ((_, req),) = parse("http", str(source)).requests
    assert req.body.content == INSIDE


def test_http_environment_file_that_links_out_is_not_read(tree: Tree) -> None:
    tree.secret.write_text(json.dumps({"prod": {"token": SECRET}}), encoding="utf-8")
    (tree.src / "http-client.env.json").symlink_to(tree.secret)
    source = tree.src / "api.http"
    source.write_text("GET https://x.test/a\n", encoding="utf-8")
    result = parse("http", str(source))
    assert result.environments == [] and tree.note() in result.notes
    allowed = parse("http", str(source), allow_outside=True)
    assert allowed.environments[0].variables == {"token": SECRET}


# -- Postman ----------------------------------------------------------------------------------


def postman(*srcs: str) -> str:
    fields = [{"key": f"f{i}", "type": "file", "src": src} for i, src in enumerate(srcs)]
    item = {
        "name": "Upload",
        "request": {
            "method": "POST",
            "url": "https://x.test/up",
            "body": {"mode": "formdata", "formdata": fields},
        },
    }
    return json.dumps({"info": {"name": "c"}, "item": [item]})


@pytest.mark.parametrize("ref", REFS)
def test_postman_file_field_outside_is_kept_switched_off(tree: Tree, ref: str) -> None:
    source = tree.src / "c.postman_collection.json"
    source.write_text(postman(REFS[ref](tree), str(tree.src / "mine.txt")), encoding="utf-8")
    result = parse("postman", str(source))
    ((_, req),) = result.requests
    assert [(f.value, f.enabled) for f in req.body.fields] == [
        (REFS[ref](tree), False),
        (str(tree.src / "mine.txt"), True),
    ]
    assert result.notes.count(tree.note()) == 1
    ((_, req),) = parse_postman(source.read_text(), source, allow_outside=True).requests
    assert req.body.fields[0].enabled


# -- Posting ----------------------------------------------------------------------------------

POSTING_REQUEST = "name: Get\nmethod: GET\nurl: https://x.test/{{path}}\n"


def test_posting_files_that_link_out_are_not_read(tree: Tree) -> None:
    outside_request = tree.secret.parent / "stolen.posting.yaml"
    outside_request.write_text(f"name: {SECRET}\nurl: https://x.test/\n", encoding="utf-8")
    (tree.src / "stolen.posting.yaml").symlink_to(outside_request)
    (tree.src / "get.posting.yaml").write_text(POSTING_REQUEST, encoding="utf-8")
    tree.secret.write_text(f"path={SECRET}\n", encoding="utf-8")
    (tree.src / "prod.env").symlink_to(tree.secret)
    (tree.src / "dev.env").write_text("path=dev\n", encoding="utf-8")

    result = parse("posting", str(tree.src))
    assert [r.name for _, r in result.requests] == ["Get"]
    assert [e.name for e in result.environments] == ["dev"]
    assert tree.note() in result.notes
    assert f"file {os.path.realpath(outside_request)} is outside" in "\n".join(result.notes)

    allowed = parse("posting", str(tree.src), allow_outside=True)
    assert sorted(r.name for _, r in allowed.requests) == ["Get", SECRET]
    assert sorted(e.name for e in allowed.environments) == ["dev", "prod"]


@pytest.mark.parametrize("ref", REFS)
def test_posting_file_field_outside_is_kept_switched_off(tree: Tree, ref: str) -> None:
    (tree.src / "up.posting.yaml").write_text(
        "name: Up\nmethod: POST\nurl: https://x.test/up\nbody:\n  files:\n"
        f"    - name: out\n      path: {json.dumps(REFS[ref](tree))}\n"
        f"    - name: mine\n      path: {json.dumps(str(tree.src / 'mine.txt'))}\n",
        encoding="utf-8",
    )
    result = parse("posting", str(tree.src))
    ((_, req),) = result.requests
    assert [f.enabled for f in req.body.fields] == [False, True]
    assert tree.note() in result.notes


# -- OpenAPI ----------------------------------------------------------------------------------


def test_openapi_never_follows_a_reference_to_a_local_file(tree: Tree) -> None:
    tree.secret.write_text(json.dumps({"type": "object", "example": SECRET}), encoding="utf-8")
    doc = {
        "openapi": "3.0.0",
        "info": {"title": "t", "version": "1"},
        "servers": [{"url": "https://x.test"}],
        "paths": {
            "/a": {
                "post": {
                    "requestBody": {
                        "content": {
                            "application/json": {"schema": {"$ref": "../beside/secret.txt"}}
                        }
                    },
                    "responses": {"200": {"description": "ok"}},
                }
            }
        },
    }
    source = tree.src / "api.json"
    source.write_text(json.dumps(doc), encoding="utf-8")
    for allow in (False, True):
        result = parse("openapi", str(source), allow_outside=allow)
        assert SECRET not in text_of(result.requests)
        assert "external reference ../beside/secret.txt is not followed" in result.notes


# -- the command line -------------------------------------------------------------------------


def test_pigeon_import_notes_each_file_it_leaves_and_allow_outside_reads_it(
    tree: Tree, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tree.src)
    command = f"curl -d @{tree.secret} https://x.test/a"
    into = tmp_path / "col"
    assert main(["import", "curl", command, "--into", str(into)]) == 0
    err = capsys.readouterr().err
    assert f"note: {tree.note()}\n" in err
    assert SECRET not in "".join(p.read_text() for p in into.rglob("*.toml"))

    again = tmp_path / "col2"
    assert main(["import", "curl", command, "--into", str(again), "--allow-outside"]) == 0
    assert "outside" not in capsys.readouterr().err
    assert SECRET in "".join(p.read_text() for p in again.rglob("*.toml"))


def test_the_note_shows_a_hostile_file_name_with_escapes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = tmp_path / "src"
    src.mkdir()
    source = src / "api.http"
    source.write_text("POST https://x.test\n\n< ../\x1b]0;owned\x07.txt\n", encoding="utf-8")
    assert main(["import", "http", str(source), "--into", str(tmp_path / "col")]) == 0
    err = capsys.readouterr().err
    assert "\x1b" not in err and "\x07" not in err
    assert "is outside" in err


def test_run_import_takes_allow_outside(tree: Tree, tmp_path: Path) -> None:
    source = tree.src / "api.http"
    source.write_text(f"POST https://x.test/a\n\n<@ {tree.secret}\n", encoding="utf-8")
    _, notes = run_import("http", str(source), tmp_path / "a")
    assert tree.note() in notes
    _, notes = run_import("http", str(source), tmp_path / "b", allow_outside=True)
    assert tree.note() not in notes
    assert SECRET in (tmp_path / "b" / "post-a.toml").read_text()
