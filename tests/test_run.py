"""Which requests a run selects: requests and folders by name, in the order named (a folder's
requests in collection order)."""

from __future__ import annotations

from pathlib import Path

import pytest

from collection_files import write


def test_select_nested_folders_once_each_in_the_order_named(tmp_path: Path) -> None:
    from pigeon.run import RunUsageError, select
    from pigeon.store import load_collection

    root = tmp_path / "c"
    write(root, "collection.toml", 'name = "x"\norder = ["top", "a"]\n')
    write(root, "top.toml", 'name = "top"\nurl = "http://127.0.0.1:1/"\n')
    write(root, "a/folder.toml", 'order = ["b", "one"]\n')
    write(root, "a/one.toml", 'name = "one"\nurl = "http://127.0.0.1:1/"\n')
    write(root, "a/b/two.toml", 'name = "two"\nurl = "http://127.0.0.1:1/"\n')
    write(root, "ab/three.toml", 'name = "three"\nurl = "http://127.0.0.1:1/"\n')
    collection = load_collection(root)

    def ids(*names: str) -> list[str]:
        return [r.id for _, r in select(collection, list(names) or None)]

    assert ids() == ["top", "a/b/two", "a/one", "ab/three"]
    assert ids("a") == ["a/b/two", "a/one"]  # not "ab/three": a folder, not a prefix
    assert ids("a/one.toml", "a", "./top") == ["a/one", "a/b/two", "top"]
    assert ids("ab", "a/b", "top", "a") == ["ab/three", "a/b/two", "top", "a/one"]
    assert ids("a/b/") == ["a/b/two"]
    with pytest.raises(RunUsageError, match=r"did you mean: a/b/two"):
        select(collection, ["a/b/tow"])


def test_a_summary_of_many_results_has_a_short_repr() -> None:
    """asyncio formats the run's task, result included, when it puts the SIGINT handler back:
    a repr that grows with the run made a 3,000-request run take 20 s to exit."""
    from pigeon.model import Collection, Request
    from pigeon.pipeline import RequestResult
    from pigeon.run import RunSummary

    results = [RequestResult(Request(name=f"r{i}"), []) for i in range(3000)]
    summary = RunSummary(Collection(name="c", root=Path(".")), results, 1234.5)
    assert repr(summary) == "<RunSummary 3000 results, 1234 ms>"
