"""The filters used on each request: newest first, bounded, written atomically, and a broken
or hostile file ignored with a note."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pigeon.store import filter_history
from pigeon.store.filter_history import (
    FILTERS_FILE,
    PER_REQUEST,
    load_filter_history,
    remember_filter,
)


def stored(root: Path) -> Path:
    return root / ".pigeon" / FILTERS_FILE


def test_filters_come_back_newest_first_once_each(tmp_path: Path) -> None:
    assert load_filter_history(tmp_path) == ({}, None)
    for expression in [".a", "b", ".a", "  $.c  "]:
        assert remember_filter(tmp_path, "users/list", expression) is None
    remember_filter(tmp_path, "other", ".x")
    history, problem = load_filter_history(tmp_path)
    assert problem is None
    assert history == {"other": [".x"], "users/list": ["$.c", ".a", "b"]}
    assert (tmp_path / ".pigeon" / ".gitignore").read_text().strip() == "*"


def test_a_scratch_request_keeps_none(tmp_path: Path) -> None:
    assert remember_filter(tmp_path, "", ".a") is None
    assert not stored(tmp_path).exists()


def test_each_request_keeps_at_most_its_share_and_old_requests_go(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for n in range(PER_REQUEST + 10):
        remember_filter(tmp_path, "r", f".a{n}")
    history, _ = load_filter_history(tmp_path)
    assert len(history["r"]) == PER_REQUEST
    assert history["r"][0] == f".a{PER_REQUEST + 9}"
    monkeypatch.setattr(filter_history, "REQUESTS", 3)
    for request_id in ["a", "b", "c", "d"]:
        remember_filter(tmp_path, request_id, ".x")
    assert list(load_filter_history(tmp_path)[0]) == ["d", "c", "b"]


@pytest.mark.parametrize(
    "text",
    ["{not json", '["a list"]', '{"requests": 3}', "\xff\xfe", "[" * 100_000],
)
def test_a_broken_file_is_ignored_with_a_note_and_replaced(tmp_path: Path, text: str) -> None:
    stored(tmp_path).parent.mkdir()
    stored(tmp_path).write_bytes(text.encode("latin-1"))
    history, problem = load_filter_history(tmp_path)
    assert history == {}
    assert problem is not None and problem.startswith("filter history not read")
    assert "\n" not in problem
    assert remember_filter(tmp_path, "r", ".a") is None
    assert load_filter_history(tmp_path) == ({"r": [".a"]}, None)


def test_foreign_values_in_the_file_are_dropped(tmp_path: Path) -> None:
    stored(tmp_path).parent.mkdir()
    data = {"requests": {"r": [".a", 3, None, "x" * 5000, "b"], "s": "not a list"}}
    stored(tmp_path).write_text(json.dumps(data))
    assert load_filter_history(tmp_path) == ({"r": [".a", "b"]}, None)


def test_a_file_too_large_is_not_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(filter_history, "_LIMIT", 100)
    stored(tmp_path).parent.mkdir()
    stored(tmp_path).write_text(json.dumps({"requests": {"r": ["x" * 200]}}))
    history, problem = load_filter_history(tmp_path)
    assert history == {} and problem


def test_a_linked_pigeon_folder_is_never_written(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    root = tmp_path / "collection"
    root.mkdir()
    (root / ".pigeon").symlink_to(elsewhere)
    problem = remember_filter(root, "r", ".a")
    assert problem is not None and "link" in problem
    assert list(elsewhere.iterdir()) == []
    assert load_filter_history(root)[1] is not None


def test_the_write_is_atomic(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    remember_filter(tmp_path, "r", ".a")
    before = stored(tmp_path).read_text()

    def fail(*args: object) -> None:
        raise OSError("disk full")

    monkeypatch.setattr("os.replace", fail)
    assert remember_filter(tmp_path, "r", ".b") == "disk full"
    assert stored(tmp_path).read_text() == before
    assert sorted(p.name for p in stored(tmp_path).parent.iterdir()) == [
        ".gitignore",
        FILTERS_FILE,
    ]
