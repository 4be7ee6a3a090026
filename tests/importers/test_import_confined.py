"""An import creates every file exclusively and only inside ``--into``: two imports into one
directory at once never replace each other's files (the later one takes ``name-2.toml``), and a
link inside ``--into`` that leads out (a folder, ``environments/``, a request file name,
``.gitignore``) is never written through."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from pigeon.importers import ImportResult, Secret, write_dotenv, write_import
from pigeon.model import Environment, Request
from pigeon.store import load_collection


def _postman(tag: str, count: int) -> dict:
    """``count`` requests named as in any other export (``req 0``...) but sent to ``tag``."""
    return {
        "info": {"name": tag},
        "variable": [{"key": "who", "value": tag}],
        "item": [
            {"name": f"req {i}", "request": {"method": "GET", "url": f"http://{tag}.test/{i}"}}
            for i in range(count)
        ],
    }


def _urls(root: Path) -> list[str]:
    col = load_collection(root)
    assert not col.broken
    return sorted(r.url for r in col.requests())


def test_two_imports_at_once_lose_no_file(tmp_path: Path) -> None:
    count = 300
    for tag in ("a", "b"):
        (tmp_path / f"{tag}.json").write_text(json.dumps(_postman(tag, count)))
    into = tmp_path / "col"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "pigeon", "import", "postman", f"{tag}.json", "--into", "col"],
            cwd=tmp_path,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for tag in ("a", "b")
    ]
    outputs = [p.communicate(timeout=120) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], outputs
    expected = sorted(f"http://{tag}.test/{i}" for tag in ("a", "b") for i in range(count))
    assert _urls(into) == expected
    # One of them made collection.toml; the other says what it could not put there.
    who = load_collection(into).variables["who"]
    loser = "b" if who == "a" else "a"
    assert "variable who not written: collection.toml exists" in outputs[loser == "b"][1]


def test_threads_importing_into_one_directory_keep_every_request(tmp_path: Path) -> None:
    tags = ["t0", "t1", "t2", "t3"]
    start = threading.Barrier(len(tags))
    errors: list[BaseException] = []

    def run(tag: str) -> None:
        result = ImportResult(variables={"who": tag})
        result.requests = [
            ("folder", Request(name=f"req {i}", url=f"http://{tag}.test/{i}")) for i in range(40)
        ]
        result.environments = [Environment("dev", {"who": tag})]
        start.wait(timeout=30)
        try:
            write_import(result, tmp_path)
        except BaseException as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(tag,)) for tag in tags]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not errors
    assert _urls(tmp_path) == sorted(f"http://{t}.test/{i}" for t in tags for i in range(40))
    envs = sorted(p.name for p in (tmp_path / "environments").iterdir())
    assert "dev.toml" in envs  # made by one import; the others wrote beside it or noted it


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    d = tmp_path / "outside"
    d.mkdir()
    return d


def _files(directory: Path) -> list[str]:
    return sorted(str(p.relative_to(directory)) for p in directory.rglob("*"))


def test_folder_linked_out_of_into_is_not_written_through(tmp_path: Path, outside: Path) -> None:
    into = tmp_path / "col"
    into.mkdir()
    (into / "users").symlink_to(outside, target_is_directory=True)
    result = ImportResult()
    result.requests = [("users", Request(name="list", url="http://x.test/users"))]
    written = write_import(result, into)
    assert _files(outside) == []
    assert into / "users-2" / "list.toml" in written
    assert (
        f"{into / 'users'} is a link to {outside}, outside {into}; nothing is written through it"
    ) in result.notes


def test_environments_linked_out_are_not_written(tmp_path: Path, outside: Path) -> None:
    into = tmp_path / "col"
    into.mkdir()
    (into / "environments").symlink_to(outside, target_is_directory=True)
    result = ImportResult(environments=[Environment("dev", {"base_url": "http://x.test"})])
    result.requests = [("", Request(name="one", url="{{base_url}}/"))]
    write_import(result, into)
    assert _files(outside) == []
    assert any(n.startswith("environments not written:") and "outside" in n for n in result.notes)


def test_request_file_name_that_is_a_link_out_is_passed_over(tmp_path: Path, outside: Path) -> None:
    into = tmp_path / "col"
    into.mkdir()
    (into / "one.toml").symlink_to(outside / "one.toml")  # a link to nothing yet
    result = ImportResult()
    result.requests = [("", Request(name="one", url="http://x.test/"))]
    written = write_import(result, into)
    assert _files(outside) == []
    assert into / "one-2.toml" in written


def test_gitignore_that_is_a_link_keeps_secrets_out(tmp_path: Path, outside: Path) -> None:
    into = tmp_path / "col"
    into.mkdir()
    (outside / "ignored").write_text("*.log\n")
    (into / ".gitignore").symlink_to(outside / "ignored")
    result = ImportResult()
    result.secrets = [Secret("TOKEN", "s3cret", "dev.env", "note")]  # type: ignore[attr-defined]
    assert write_dotenv(result, into) == []
    assert (outside / "ignored").read_text() == "*.log\n"
    assert not (into / ".env").exists()
    assert any("TOKEN (from dev.env) not written" in n and "is a link" in n for n in result.notes)
