"""Which shard a machine runs (DESIGN §13): ``--shard auto`` from each CI's own variables, and
``--shard-by durations:REPORT.json``, which balances the shards by an earlier run's times
(longest folder first onto the least loaded shard, folders never split, every request of the
selection in exactly one shard)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from collection_files import write
from pigeon.cli import main
from pigeon.errors import UsageError
from pigeon.model import Folder, Request
from pigeon.run import shard
from pigeon.shards import durations, from_ci, shard_spec, weight_by

Selection = list[tuple[list[Folder], Request]]


@pytest.mark.parametrize(
    ("environ", "expected"),
    [
        ({"PIGEON_SHARD": "2/5"}, (2, 5)),
        ({"CI_NODE_INDEX": "1", "CI_NODE_TOTAL": "3"}, (1, 3)),  # GitLab: 1-based
        ({"CI_NODE_INDEX": "3", "CI_NODE_TOTAL": "3"}, (3, 3)),
        ({"CI_NODE_TOTAL": "1"}, (1, 1)),  # GitLab, a job without parallel:
        ({"CIRCLE_NODE_INDEX": "0", "CIRCLE_NODE_TOTAL": "4"}, (1, 4)),  # CircleCI: 0-based
        ({"CIRCLE_NODE_INDEX": "3", "CIRCLE_NODE_TOTAL": "4"}, (4, 4)),
        ({"BUILDKITE_PARALLEL_JOB": "0", "BUILDKITE_PARALLEL_JOB_COUNT": "2"}, (1, 2)),
        ({"BUILDKITE_PARALLEL_JOB": "1", "BUILDKITE_PARALLEL_JOB_COUNT": "2"}, (2, 2)),
        # PIGEON_SHARD wins over the CI's own.
        ({"PIGEON_SHARD": "1/2", "CI_NODE_INDEX": "3", "CI_NODE_TOTAL": "4"}, (1, 2)),
        ({"PIGEON_SHARD": "", "CIRCLE_NODE_INDEX": "1", "CIRCLE_NODE_TOTAL": "2"}, (2, 2)),
    ],
)
def test_auto_reads_each_ci_s_variables(environ: dict[str, str], expected: tuple[int, int]) -> None:
    assert from_ci(environ) == expected
    assert shard_spec("auto", environ) == expected


@pytest.mark.parametrize(
    ("environ", "named"),
    [
        ({"PIGEON_SHARD": "3/2"}, ["PIGEON_SHARD"]),
        ({"PIGEON_SHARD": "two"}, ["PIGEON_SHARD"]),
        ({"CI_NODE_INDEX": "0", "CI_NODE_TOTAL": "3"}, ["CI_NODE_INDEX", "CI_NODE_TOTAL"]),
        ({"CI_NODE_INDEX": "2"}, ["CI_NODE_INDEX", "CI_NODE_TOTAL"]),
        ({"CI_NODE_TOTAL": "3"}, ["CI_NODE_INDEX", "CI_NODE_TOTAL"]),
        ({"CIRCLE_NODE_INDEX": "4", "CIRCLE_NODE_TOTAL": "4"}, ["CIRCLE_NODE_INDEX"]),
        ({"CIRCLE_NODE_INDEX": "-1", "CIRCLE_NODE_TOTAL": "4"}, ["CIRCLE_NODE_INDEX"]),
        ({"BUILDKITE_PARALLEL_JOB": "1", "BUILDKITE_PARALLEL_JOB_COUNT": "x"}, ["BUILDKITE"]),
        ({"BUILDKITE_PARALLEL_JOB": "1"}, ["BUILDKITE_PARALLEL_JOB_COUNT"]),
    ],
)
def test_auto_refuses_malformed_variables_naming_them(
    environ: dict[str, str], named: list[str]
) -> None:
    with pytest.raises(UsageError) as caught:
        from_ci(environ)
    message = str(caught.value)
    assert "\n" not in message and all(name in message for name in named), message


def test_auto_with_nothing_set_names_every_variable() -> None:
    with pytest.raises(UsageError) as caught:
        from_ci({"CI": "true", "HOME": "/root"})
    message = str(caught.value)
    for name in (
        "PIGEON_SHARD",
        "CI_NODE_INDEX",
        "CI_NODE_TOTAL",
        "CIRCLE_NODE_INDEX",
        "CIRCLE_NODE_TOTAL",
        "BUILDKITE_PARALLEL_JOB",
        "BUILDKITE_PARALLEL_JOB_COUNT",
    ):
        assert name in message
    assert "\n" not in message


def selection(sizes: list[int]) -> Selection:
    """Top-level folders of these sizes (a size for ``""``: top-level requests), in order."""
    out: Selection = []
    for n, size in enumerate(sizes):
        folder = Folder(f"f{n}", id=f"f{n}")
        for i in range(size):
            out.append(([folder], Request(f"r{i}", id=f"f{n}/r{i}")))
    return out


def report(path: Path, took: dict[str, float | None]) -> Path:
    """A JSON report of an earlier run, as `pigeon run` writes one, with these times."""
    requests = [{"id": key, "duration_ms": ms, "time_ms": ms} for key, ms in took.items()]
    data = {"schema": 1, "collection": "c", "totals": {"time_ms": 0}, "requests": requests}
    path.write_text(json.dumps(data))
    return path


def test_durations_put_the_longest_folder_first_onto_the_least_loaded_shard(
    tmp_path: Path,
) -> None:
    chosen = selection([1, 1, 1, 1, 1])
    took = {"f0/r0": 50.0, "f1/r0": 100.0, "f2/r0": 10.0, "f3/r0": 60.0, "f4/r0": 40.0}
    weight = weight_by(durations(report(tmp_path / "r.json", took)))
    ids = [[r.id for _, r in shard(chosen, k, 2, weight)] for k in (1, 2)]
    # 100 -> 1; 60 -> 2; 50 -> 2 (60 < 100); 40 -> 1 (100 < 110); 10 -> 2 (110 < 140)
    assert ids == [["f1/r0", "f4/r0"], ["f0/r0", "f2/r0", "f3/r0"]]
    # By count alone the same five would be dealt out in collection order.
    assert [[r.id for _, r in shard(chosen, k, 2)] for k in (1, 2)] != ids


def test_a_request_the_report_lacks_weighs_the_median(tmp_path: Path) -> None:
    took = {"a": 10.0, "b": 30.0, "c": 1000.0, "d [row 1]": 5.0, "d [row 2]": 7.0, "e": None}
    weight = weight_by(durations(report(tmp_path / "r.json", took)))
    assert weight(Request("a", id="a")) == 10.0
    assert weight(Request("d", id="d")) == 12.0  # its rows add up
    assert weight(Request("new", id="new")) == 21.0  # median of 10, 12, 30, 1000
    assert weight(Request("e", id="e")) == 21.0  # it never finished: no time of its own
    assert weight_by({})(Request("x", id="x")) == 1.0  # no times at all: all equal


@given(
    sizes=st.lists(st.integers(1, 4), min_size=0, max_size=8),
    times=st.lists(st.one_of(st.none(), st.floats(0, 1e4)), min_size=0, max_size=40),
    count=st.integers(1, 6),
)
def test_the_shards_hold_the_selection_exactly_once(
    sizes: list[int], times: list[float | None], count: int
) -> None:
    chosen = selection(sizes)
    took = {r.id: t for (_, r), t in zip(chosen, times, strict=False) if t is not None}
    weight = weight_by(took)
    slices = [shard(chosen, k, count, weight) for k in range(1, count + 1)]
    every = [r.id for s in slices for _, r in s]
    assert sorted(every) == sorted(r.id for _, r in chosen)  # each exactly once
    order = [r.id for _, r in chosen]
    for s in slices:  # in collection order within a shard
        assert [r.id for _, r in s] == sorted((r.id for _, r in s), key=order.index)
    owner: dict[str, int] = {}
    for k, s in enumerate(slices):  # a folder is never split
        for chain, _ in s:
            assert owner.setdefault(chain[0].id, k) == k
    assert slices == [shard(chosen, k, count, weight) for k in range(1, count + 1)]  # stable


def small(root: Path, base: str) -> Path:
    write(root, "collection.toml", f'name = "s"\n[variables]\nbase = "{base}"\n')
    for folder in ("a", "b", "c"):
        write(root, f"{folder}/r.toml", f'url = "{{{{base}}}}/{folder}"\n')
    return root


@pytest.mark.parametrize(
    ("environ", "ran"),
    [
        ({"CI_NODE_INDEX": "1", "CI_NODE_TOTAL": "3"}, "a/r"),
        ({"CIRCLE_NODE_INDEX": "1", "CIRCLE_NODE_TOTAL": "3"}, "b/r"),
        ({"BUILDKITE_PARALLEL_JOB": "2", "BUILDKITE_PARALLEL_JOB_COUNT": "3"}, "c/r"),
        ({"PIGEON_SHARD": "2/3", "BUILDKITE_PARALLEL_JOB": "2"}, "b/r"),
    ],
)
def test_run_shard_auto_runs_the_ci_s_slice(
    tmp_path: Path, echo_url: str, environ: dict[str, str], ran: str, monkeypatch, capsys
) -> None:
    for name in ("PIGEON_SHARD", "CI_NODE_INDEX", "CI_NODE_TOTAL", "CIRCLE_NODE_INDEX"):
        monkeypatch.delenv(name, raising=False)
    for name, value in environ.items():
        monkeypatch.setenv(name, value)
    root = small(tmp_path / "c", echo_url)
    assert main(["run", str(root), "--shard", "auto", "--no-color"]) == 0
    out = capsys.readouterr().out
    assert [line.split()[2] for line in out.splitlines() if line.startswith("✔")] == [ran]


def test_run_shard_auto_with_nothing_set_is_one_line(tmp_path: Path, monkeypatch, capsys) -> None:
    for name in ("PIGEON_SHARD", "CI_NODE_INDEX", "CI_NODE_TOTAL", "CIRCLE_NODE_INDEX"):
        monkeypatch.delenv(name, raising=False)
    for name in ("CIRCLE_NODE_TOTAL", "BUILDKITE_PARALLEL_JOB", "BUILDKITE_PARALLEL_JOB_COUNT"):
        monkeypatch.delenv(name, raising=False)
    root = small(tmp_path / "c", "http://127.0.0.1:9")
    assert main(["run", str(root), "--shard", "auto"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "PIGEON_SHARD" in err and "CI_NODE_INDEX" in err


def test_run_shard_by_durations_balances_by_an_earlier_report(
    tmp_path: Path, echo_url: str, capsys
) -> None:
    root = small(tmp_path / "c", echo_url)
    earlier = report(tmp_path / "earlier.json", {"a/r": 10.0, "b/r": 10.0, "c/r": 500.0})
    ran = []
    for k in (1, 2):
        argv = ["run", str(root), "--shard", f"{k}/2", "--shard-by", f"durations:{earlier}"]
        assert main([*argv, "--no-color"]) == 0
        out = capsys.readouterr().out
        ran.append([line.split()[2] for line in out.splitlines() if line.startswith("✔")])
    assert ran == [["c/r"], ["a/r", "b/r"]]  # the slow folder alone; by count: a+c, b


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["--shard-by", "durations:r.json"], "--shard-by needs --shard"),
        (["--shard", "1/2", "--shard-by", "times:r.json"], "expected durations:REPORT.json"),
        (["--shard", "1/2", "--shard-by", "durations:missing.json"], "missing.json"),
    ],
)
def test_a_bad_shard_by_is_bad_usage(tmp_path: Path, argv: list[str], said: str, capsys) -> None:
    root = small(tmp_path / "c", "http://127.0.0.1:9")
    assert main(["run", str(root), *argv]) == 2
    err = capsys.readouterr().err
    assert said in err and err.count("\n") == 1
