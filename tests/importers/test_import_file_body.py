"""Imports map a body that is a file to a file body (DESIGN §11) that names the file where it
is and never reads it: curl's ``--data-binary @FILE`` and ``-T FILE``, Postman's ``body.mode:
file``, a ``.http`` file's ``< ./FILE``. A file outside the source's directory is left out with
a note, as for every import (``--allow-outside`` names it)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pigeon.importers import parse
from pigeon.importers.curl import parse_curl
from pigeon.model import Request

SECRET = "never-copied-into-the-collection"


@pytest.fixture
def src(tmp_path: Path) -> Path:
    folder = tmp_path / "src"
    (folder / "fixtures").mkdir(parents=True)
    (folder / "fixtures" / "upload.bin").write_text(SECRET)
    with (folder / "fixtures" / "huge.bin").open("wb") as fh:
        fh.truncate(1_200_000_000)  # a hole: reading it would be refused as too big
    (tmp_path / "outside.bin").write_text(SECRET)
    return folder


def only(result_requests: list[tuple[str, Request]]) -> Request:
    ((_, request),) = result_requests
    return request


@pytest.mark.parametrize(
    ("command", "method"),
    [
        ("curl --data-binary @fixtures/upload.bin https://x.test/up", "POST"),
        ("curl -T fixtures/upload.bin https://x.test/up", "PUT"),
        ("curl -X PATCH --data-binary @./fixtures/upload.bin https://x.test/up", "PATCH"),
    ],
)
def test_curl_file_bodies_name_the_file(src: Path, command: str, method: str) -> None:
    request = only(parse_curl(command, src).requests)
    assert request.method == method
    assert (request.body.type, request.body.path) == (
        "file",
        str(src / "fixtures" / "upload.bin"),
    )
    assert request.body.content == ""


def test_curl_names_a_file_too_big_to_read(src: Path) -> None:
    result = parse_curl(
        "curl -H 'Content-Type: video/mp4' --data-binary @fixtures/huge.bin https://x.test", src
    )
    request = only(result.requests)
    assert (request.body.type, request.body.content_type) == ("file", "video/mp4")
    assert request.headers == []  # the type moved to the body
    assert not any("limit" in n for n in result.notes)


def test_curl_file_outside_the_source_is_left_out_unless_allowed(src: Path) -> None:
    result = parse_curl("curl --data-binary @../outside.bin https://x.test", src)
    assert only(result.requests).body.type == "none"
    assert any("outside" in n and "--allow-outside" in n for n in result.notes)
    allowed = only(parse_curl("curl -T ../outside.bin https://x.test", src, True).requests)
    assert allowed.body.path == str(src.parent / "outside.bin")


def test_postman_file_mode_is_a_file_body(src: Path) -> None:
    document = {
        "info": {
            "name": "P",
            "schema": "https://schema.getpostman.com/json/collection/v2.1.0/collection.json",
        },
        "item": [
            {
                "name": "Upload",
                "request": {
                    "method": "POST",
                    "url": "https://x.test/up",
                    "header": [{"key": "Content-Type", "value": "image/png"}],
                    "body": {"mode": "file", "file": {"src": "fixtures/upload.bin"}},
                },
            },
            {
                "name": "Outside",
                "request": {
                    "method": "POST",
                    "url": "https://x.test/up",
                    "body": {"mode": "file", "file": {"src": "../outside.bin"}},
                },
            },
        ],
    }
    source = src / "p.json"
    source.write_text(json.dumps(document))
    result = parse("postman", str(source))
    upload, outside = (r for _, r in result.requests)
    assert (upload.body.type, upload.body.path, upload.body.content_type) == (
        "file",
        str(src / "fixtures" / "upload.bin"),
        "image/png",
    )
    assert upload.headers == []
    assert outside.body.type == "none"
    assert any("outside.bin is outside" in n for n in result.notes)


def test_http_file_body_is_a_file_body(src: Path) -> None:
    source = src / "api.http"
    source.write_text(
        "PUT https://x.test/up\nContent-Type: application/pdf\n\n< ./fixtures/upload.bin\n"
    )
    result = parse("http", str(source))
    request = only(result.requests)
    assert (request.body.type, request.body.path, request.body.content_type) == (
        "file",
        str(src / "fixtures" / "upload.bin"),
        "application/pdf",
    )
    assert SECRET not in repr(request)


def test_an_import_writes_the_path_never_the_content(src: Path, tmp_path: Path) -> None:
    from pigeon.cli import main

    source = src / "cmd.sh"
    source.write_text("curl --data-binary @fixtures/upload.bin https://x.test/up\n")
    assert main(["import", "curl", str(source), "--into", str(tmp_path / "col")]) == 0
    (written,) = (tmp_path / "col").glob("post-*.toml")
    text = written.read_text()
    assert 'type = "file"' in text and str(src / "fixtures" / "upload.bin") in text
    assert SECRET not in text
