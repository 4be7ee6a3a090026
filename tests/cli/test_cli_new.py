"""`pigeon new DIR`: a collection to start from, never written over anything, that
`pigeon run` sends as it is."""

from __future__ import annotations

import json
import shutil
import subprocess
import tomllib
from pathlib import Path

import pytest

from pigeon.cli import main
from pigeon.store import load_collection, write_beside


def new(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["new", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_the_collection_template_lists_every_auth_kind(tmp_path: Path, capsys) -> None:
    from pigeon.auth_kinds import KINDS

    root = tmp_path / "api"
    assert new(capsys, str(root))[0] == 0
    collection = (root / "collection.toml").read_text()
    lines = collection.splitlines()
    at = next(i for i, line in enumerate(lines) if "Auth for every request" in line)
    listed = " ".join(line[4:] for line in lines[at + 1 :] if line.startswith("#   "))
    assert listed == " | ".join(KINDS)
    assert {"oauth2", "digest", "aws_sigv4", "ntlm", "negotiate", "oauth1", "hawk", "jwt"} <= set(
        listed.split(" | ")
    )
    assert all(len(line) <= 100 for line in collection.splitlines())


def test_new_makes_a_collection_with_an_environment_and_an_example(tmp_path: Path, capsys) -> None:
    root = tmp_path / "billing-api"
    code, out, err = new(capsys, str(root))
    assert code == 0, err
    made = sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file())
    assert made == [".gitignore", "collection.toml", "environments/local.toml", "example.toml"]
    assert f"pigeon {root}" in out.splitlines()[-1]
    ignored = [line for line in (root / ".gitignore").read_text().splitlines() if line[:1] != "#"]
    assert ignored == [".env", ".pigeon/", "*.toml.mine", "*.toml.mine-*"]
    collection = (root / "collection.toml").read_text()
    assert "# [[headers]]" in collection and "# [auth]" in collection  # commented examples
    assert tomllib.loads(collection)["name"] == "Billing api"
    loaded = load_collection(root)
    assert loaded.broken == []
    assert loaded.default_environment == "local" and list(loaded.environments) == ["local"]
    assert [r.id for r in loaded.requests()] == ["example"]
    assert "# [settings]" in (root / "example.toml").read_text()


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_new_keeps_copies_saved_beside_out_of_git(tmp_path: Path, capsys) -> None:
    root = tmp_path / "api"
    assert new(capsys, str(root))[0] == 0
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    beside = [write_beside(root / "example.toml", "x"), write_beside(root / "example.toml", "y")]
    beside.append(write_beside(root / "environments" / "local.toml", "z"))
    names = [str(p.relative_to(root)) for p in beside]
    ignored = subprocess.run(
        ["git", "-C", str(root), "check-ignore", *names, "example.toml"],
        capture_output=True,
        text=True,
    ).stdout.split()
    assert ignored == names


def test_new_refuses_a_directory_that_holds_something(tmp_path: Path, capsys) -> None:
    root = tmp_path / "api"
    assert new(capsys, str(root))[0] == 0
    before = {p: p.read_bytes() for p in root.rglob("*") if p.is_file()}
    code, out, err = new(capsys, str(root))
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "not empty" in err and "a collection" in err
    assert {p: p.read_bytes() for p in root.rglob("*") if p.is_file()} == before

    other = tmp_path / "notes"
    other.mkdir()
    (other / "todo.txt").write_text("keep me")
    code, _, err = new(capsys, str(other))
    assert code == 2 and "not empty" in err
    assert sorted(p.name for p in other.iterdir()) == ["todo.txt"]

    a_file = tmp_path / "file"
    a_file.write_text("x")
    code, _, err = new(capsys, str(a_file))
    assert code == 2 and "not a directory" in err


def test_new_accepts_an_empty_directory_or_a_fresh_git_repository(tmp_path: Path, capsys) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    assert new(capsys, str(empty))[0] == 0
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    assert new(capsys, str(repo))[0] == 0
    assert (repo / "collection.toml").is_file()


def test_pigeon_run_sends_the_new_collection(tmp_path: Path, capsys, echo_url: str) -> None:
    root = tmp_path / "api"
    assert new(capsys, str(root))[0] == 0
    report = tmp_path / "report.json"
    code = main(
        ["run", str(root), "--var", f"base_url={echo_url}", "--report", f"json:{report}"]
        + ["--no-color"]
    )
    out, err = capsys.readouterr()
    assert code == 0, out + err
    (only,) = json.loads(report.read_text())["requests"]
    assert only["id"] == "example" and only["status"] == 200
    assert only["url"] == f"{echo_url}/get?from=pigeon"
