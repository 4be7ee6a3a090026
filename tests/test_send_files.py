"""A multipart file field reads its file within bounds when sending: a device (``/dev/zero``) or
a FIFO is refused before it is opened, a file over ``SEND_FILE_LIMIT`` is refused with its size
in the message, each as one line and exit 1 within 256 MB; a file within it is sent. Each
``pigeon run`` is a child process, against the real echo server on 127.0.0.1."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from collection_files import write
from measured import pigeon
from pigeon.files import read_capped
from pigeon.render import SEND_FILE_LIMIT

UPLOAD = """\
name = "Upload"
method = "POST"
url = "{{{{base_url}}}}/upload"

[body]
type = "multipart"
[[body.fields]]
name = "doc"
value = "{path}"
kind = "file"

[scripts]
post_response = '''
assert "hello-upload" in pigeon.response.json()["body"], pigeon.response.text
'''
"""


def _collection(root: Path, url: str, path: str) -> Path:
    write(root, "collection.toml", f'name = "files"\n\n[variables]\nbase_url = "{url}"\n')
    write(root, "upload.toml", UPLOAD.format(path=path))
    return root


@pytest.mark.slow
def test_a_file_within_the_limit_is_sent(tmp_path: Path, echo_url: str) -> None:
    (tmp_path / "doc.txt").write_text("hello-upload")
    col = _collection(tmp_path / "col", echo_url, str(tmp_path / "doc.txt"))
    run = pigeon("run", str(col), "--trust", "--no-color", cwd=tmp_path)
    run.within_bounds()
    assert run.code == 0, run.out + run.err


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["device", "fifo", "huge"])
def test_an_unbounded_file_is_refused_before_reading(
    tmp_path: Path, echo_url: str, kind: str
) -> None:
    if kind == "device":
        path, why = "/dev/zero", "not a regular file"
    elif kind == "fifo":
        path, why = str(tmp_path / "pipe"), "not a regular file"
        os.mkfifo(path)  # opening it would wait for a writer that never comes
    else:
        path = str(tmp_path / "huge.bin")
        with open(path, "wb") as fh:
            fh.truncate(1_200_000_000)  # a hole: no disk used
        why = f"1.2 GB, over the {SEND_FILE_LIMIT // 1_000_000} MB limit"
    col = _collection(tmp_path / "col", echo_url, path)
    run = pigeon("run", str(col), "--trust", "--no-color", cwd=tmp_path)
    run.within_bounds()
    assert run.code == 1
    assert f"multipart field 'doc': cannot read {path}: {why}" in run.out + run.err


def test_read_capped_names_the_size_and_the_limit(tmp_path: Path) -> None:
    path = tmp_path / "f"
    path.write_bytes(b"x" * 10)
    assert read_capped(path, 10) == b"x" * 10
    with pytest.raises(OSError, match=r"f is 11 bytes, over the 10 bytes limit"):
        path.write_bytes(b"x" * 11)
        read_capped(path, 10)
