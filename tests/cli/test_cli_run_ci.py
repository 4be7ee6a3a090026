"""`pigeon run` at CI scale against the real echo server: data-driven runs (typed values),
``--iterations``, ``--shard K/N`` (every request exactly once, folders never split) and
`pigeon report merge` (equal to the unsharded report)."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from collection_files import write
from junit_schema import junit_problems
from pigeon.cli import main
from pigeon.run import select, shard
from pigeon.store import load_collection

# The echo server answers with what it got; the script checks the kinds the body carried.
CREATE = """\
name = "Create user"
method = "POST"
url = "{{base_url}}/users/{{id}}"

[body]
type = "json"
content = '{"name": "{{name}}", "age": {{age}}, "active": {{active}}, "tags": {{tags}}}'

[scripts]
post_response = '''
sent = pigeon.response.json()["json"]
assert isinstance(sent["age"], int), type(sent["age"]).__name__
assert isinstance(sent["active"], bool), type(sent["active"]).__name__
assert isinstance(sent["tags"], list), type(sent["tags"]).__name__
pigeon.log(f"{sent['name']} {sent['age']} {sent['active']}")
'''
"""


def data_collection(root: Path, base_url: str) -> Path:
    write(root, "collection.toml", f'name = "data"\n[variables]\nbase_url = "{base_url}"\n')
    write(root, "users/create.toml", CREATE)
    return root


def logged(report: dict) -> list[list[str]]:
    """Each request's script log, without the ``[request phase]`` prefix of each line."""
    return [[line.split("] ", 1)[1] for line in r["log"]] for r in report["requests"]]


def steady(entry: dict) -> dict:
    """A report's request entry without what changes from one run to the next: the times, and
    the response's headers and body (a date, the echoed client port); what was sent and the
    status that came back stay."""
    out = {k: v for k, v in entry.items() if k not in ("time_ms", "duration_ms", "exchange")}
    exchange = entry["exchange"]
    out["sent"] = exchange["request"] if exchange else None
    out["got"] = exchange["response"]["status"] if exchange and exchange["response"] else None
    return out


def run_json(capsys, *argv: str, tmp: Path) -> tuple[int, dict, str]:
    report = tmp / f"report-{len(list(tmp.glob('report-*')))}.json"
    code = main(["run", *argv, "--report", f"json:{report}", "--no-color", "--trust"])
    out = capsys.readouterr().out
    return code, json.loads(report.read_text()), out


def test_csv_rows_typed_by_header_and_flag(tmp_path: Path, echo_url: str, capsys) -> None:
    root = data_collection(tmp_path / "c", echo_url)
    rows = tmp_path / "rows.csv"
    rows.write_text(
        'id,name,age:number,active,tags:json\n1,Ada,36,true,"[""a""]"\n2,"Bob, Jr",7,no,[]\n'
    )
    code, report, out = run_json(
        capsys, str(root), "--data", str(rows), "--data-types", "active=bool", tmp=tmp_path
    )
    assert code == 0, out
    ids = [r["id"] for r in report["requests"]]
    assert ids == ["users/create [row 1]", "users/create [row 2]"]
    assert logged(report) == [["Ada 36 True"], ["Bob, Jr 7 False"]]
    assert "users/create [row 2]" in out


def test_json_and_jsonl_rows_keep_their_kinds(tmp_path: Path, echo_url: str, capsys) -> None:
    root = data_collection(tmp_path / "c", echo_url)
    rows = [
        {"id": 1, "name": "Ada", "age": 36, "active": True, "tags": ["x"]},
        {"id": 2, "name": "Bo", "age": 5, "active": False, "tags": []},
    ]
    as_json = tmp_path / "rows.json"
    as_json.write_text(json.dumps(rows))
    as_lines = tmp_path / "rows.jsonl"
    as_lines.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    for path in (as_json, as_lines):
        code, report, out = run_json(capsys, str(root), "--data", str(path), tmp=tmp_path)
        assert code == 0, out
        assert logged(report) == [["Ada 36 True"], ["Bo 5 False"]]


def test_an_explicit_var_wins_over_the_data(tmp_path: Path, echo_url: str, capsys) -> None:
    root = data_collection(tmp_path / "c", echo_url)
    rows = tmp_path / "rows.jsonl"
    rows.write_text('{"id": 1, "name": "Ada", "age": 1, "active": true, "tags": []}\n')
    code, report, _ = run_json(
        capsys, str(root), "--data", str(rows), "--var", "name=Override", tmp=tmp_path
    )
    assert code == 0
    assert logged(report)[0] == ["Override 1 True"]


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("id,age:number\n1,old\n", "rows.csv:2:2: age: expected a number, got 'old'"),
        ("id,age\n1,2,3\n", "rows.csv:2: 3 cells for 2 columns"),
        ("id,age:weird\n1,2\n", "rows.csv:1: column 'age:weird': unknown kind"),
        ("id,bad name\n1,2\n", "invalid variable name 'bad name'"),
        ("id\n", "rows.csv: no rows"),
    ],
)
def test_a_bad_data_file_is_named_and_nothing_is_sent(
    tmp_path: Path, echo_server, content: str, message: str, capsys
) -> None:
    root = data_collection(tmp_path / "c", echo_server.url)
    rows = tmp_path / "rows.csv"
    rows.write_text(content)
    assert main(["run", str(root), "--data", str(rows), "--trust"]) == 2
    assert message in capsys.readouterr().err
    assert echo_server.state.requests == 0


def test_a_data_cell_that_reads_the_environment_needs_trust_before_anything_runs(
    tmp_path: Path, echo_server, capsys
) -> None:
    """A cell is a variable as a ``--var`` is: the up-front trust check sees what it reaches."""
    root = tmp_path / "c"
    write(root, "collection.toml", f'name = "d"\n[variables]\nbase_url = "{echo_server.url}"\n')
    write(root, "get.toml", 'name = "Get"\nurl = "{{base_url}}/get?q={{q}}"\n')
    rows = tmp_path / "rows.csv"
    rows.write_text("q\nplain\n{{$env.HOME}}\n{{$env.HOME}}\n")
    assert main(["run", str(root), "--data", str(rows), "--no-color"]) == 2
    captured = capsys.readouterr()
    needs = [line for line in captured.err.splitlines() if "needs trust:" in line]
    assert needs == [
        "pigeon: needs trust: get [row 2]: reads $env.HOME from the process "
        "environment (not in the collection's .env)"
    ], captured.err
    assert "is not trusted" in captured.err and not captured.out
    assert echo_server.state.requests == 0
    assert main(["run", str(root), "--data", str(rows), "--no-color", "--trust"]) == 0


def test_data_rows_are_read_as_the_run_goes_not_held(tmp_path: Path) -> None:
    """What a data file costs is one row at a time, however many rows it has."""
    import argparse
    import tracemalloc

    from pigeon.cli.run import _iterations

    rows = tmp_path / "rows.csv"
    count = 5_000  # held whole, over 2 MB: four times the bound below; one at a time, 40 kB
    with rows.open("w") as fh:
        fh.write("id:number,name,note\n")
        fh.writelines(
            f"{n},name-{n},a note long enough to weigh something {n}\n" for n in range(count)
        )
    args = argparse.Namespace(data=str(rows), data_types=None, iterations=None)
    tracemalloc.start()
    try:
        seen = 0
        for label, row in _iterations(args) or ():
            seen += 1
            last = (label, row)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert seen == count and last == (
        f"row {count}",
        {
            "id": count - 1,
            "name": f"name-{count - 1}",
            "note": f"a note long enough to weigh something {count - 1}",
        },
    )
    assert peak < 500_000, peak  # the rows held would be megabytes


def test_a_run_takes_each_row_only_when_it_reaches_it(tmp_path: Path, echo_url: str) -> None:
    """``run_collection`` iterates the rows as it goes: row n+1 is read after row n's result."""
    import asyncio

    from pigeon.pipeline import RunContext
    from pigeon.run import run_collection

    root = tmp_path / "c"
    write(root, "collection.toml", f'name = "d"\n[variables]\nbase_url = "{echo_url}"\n')
    write(root, "get.toml", 'name = "Get"\nurl = "{{base_url}}/get?n={{n}}"\n')
    events: list[str] = []

    def rows():
        for n in range(1, 4):
            events.append(f"read {n}")
            yield f"row {n}", {"n": n}

    async def go() -> None:
        ctx = RunContext(load_collection(root), trusted=True)
        try:
            await run_collection(
                ctx, iterations=rows(), on_result=lambda r: events.append(f"sent {r.id}")
            )
        finally:
            await ctx.aclose()

    asyncio.run(go())
    assert events == [
        "read 1", "sent get [row 1]", "read 2", "sent get [row 2]", "read 3", "sent get [row 3]"
    ]  # fmt: skip


def test_iterations_repeat_the_selection_sharing_runtime_variables(
    tmp_path: Path, echo_url: str, capsys
) -> None:
    root = tmp_path / "c"
    write(root, "collection.toml", f'name = "it"\n[variables]\nbase_url = "{echo_url}"\n')
    write(
        root,
        "count.toml",
        'name = "Count"\nurl = "{{base_url}}/count/{{n}}"\n[scripts]\npre_request = \'\'\'\n'
        "pigeon.setVar('n', (pigeon.getVar('n') or 0) + 1)\n'''\n",
    )
    code, report, _ = run_json(capsys, str(root), "--iterations", "3", tmp=tmp_path)
    assert code == 0
    assert [r["id"] for r in report["requests"]] == [
        "count [iteration 1]",
        "count [iteration 2]",
        "count [iteration 3]",
    ]
    assert [r["url"].rsplit("/", 1)[1] for r in report["requests"]] == ["1", "2", "3"]


def sharded_collection(root: Path, base_url: str) -> Path:
    """Folders of different sizes, top-level requests, and a chain inside a folder."""
    write(root, "collection.toml", f'name = "sharded"\n[variables]\nbase_url = "{base_url}"\n')
    sizes = {"alpha": 5, "beta": 1, "gamma": 3, "delta": 2, "epsilon": 4}
    for folder, size in sizes.items():
        for i in range(size):
            write(
                root,
                f"{folder}/r{i}.toml",
                f'name = "{folder} {i}"\nurl = "{{{{base_url}}}}/{folder}/{i}"\n',
            )
    write(root, "top-a.toml", 'name = "Top A"\nurl = "{{base_url}}/top/a"\n')
    write(root, "top-b.toml", 'name = "Top B"\nurl = "{{base_url}}/top/b"\n')
    # A chain: login sets the token the next request of its folder needs.
    write(
        root,
        "auth/1-login.toml",
        'name = "Login"\nmethod = "POST"\nurl = "{{base_url}}/login"\n[body]\ntype = "json"\n'
        'content = \'{"username": "ada", "password": "pw"}\'\n[scripts]\npost_response = \'\'\'\n'
        "pigeon.setVar('token', pigeon.response.json()['token'])\n'''\n",
    )
    write(
        root,
        "auth/2-me.toml",
        'name = "Me"\nurl = "{{base_url}}/me"\n[auth]\ntype = "bearer"\ntoken = "{{token}}"\n'
        "[scripts]\npost_response = '''\nassert pigeon.response.status == 200\n'''\n",
    )
    return root


def test_shards_run_every_request_exactly_once_never_splitting_a_folder(tmp_path: Path) -> None:
    root = sharded_collection(tmp_path / "c", "http://127.0.0.1:9")
    collection = load_collection(root)
    everything = select(collection, None)
    for count in (1, 2, 3, 4, 7):
        slices = [shard(everything, k, count) for k in range(1, count + 1)]
        ids = [r.id for s in slices for _, r in s]
        assert sorted(ids) == sorted(r.id for _, r in everything)  # each exactly once
        for s in slices:
            # each folder wholly in one shard, and in collection order within it
            order = [r.id for _, r in everything]
            assert [r.id for _, r in s] == sorted((r.id for _, r in s), key=order.index)
        owners = {}
        for k, s in enumerate(slices):
            for chain, _ in s:
                key = chain[0].id if chain else ""
                assert owners.setdefault(key, k) == k
        assert slices == [shard(everything, k, count) for k in range(1, count + 1)]  # stable
    sizes = [len(shard(everything, k, 2)) for k in (1, 2)]
    assert abs(sizes[0] - sizes[1]) <= 1  # 5+1+3+2+4+2+2 = 19 split 10/9


def test_merged_shard_reports_equal_the_unsharded_report(
    tmp_path: Path, echo_url: str, capsys
) -> None:
    root = sharded_collection(tmp_path / "c", echo_url)
    whole = tmp_path / "whole"
    whole.mkdir()
    code, unsharded, _ = run_json(capsys, str(root), tmp=whole)
    assert code == 0
    parts = []
    for k in (1, 2, 3):
        shard_dir = tmp_path / f"shard{k}"
        shard_dir.mkdir()
        code, _, _ = run_json(capsys, str(root), "--shard", f"{k}/3", tmp=shard_dir)
        assert code == 0
        parts.append(str(next(shard_dir.glob("report-*.json"))))
    merged_json, merged_junit = tmp_path / "merged.json", tmp_path / "merged.xml"
    code = main(
        [
            "report",
            "merge",
            *parts,
            "--report",
            f"json:{merged_json}",
            "--report",
            f"junit:{merged_junit}",
        ]
    )
    assert code == 0
    merged = json.loads(merged_json.read_text())

    def stable(report: dict) -> dict:
        """Everything but the times and the finishing moment."""
        drop = {"time_ms", "duration_ms"}
        return {
            "totals": {k: v for k, v in report["totals"].items() if k not in drop},
            "requests": [steady(r) for r in report["requests"]],
            "collection": report["collection"],
        }

    assert stable(merged) == stable(unsharded)
    # Each request's exchange as its shard kept it, headers and bodies included.
    kept = {
        r["id"]: r["exchange"] for p in parts for r in json.loads(Path(p).read_text())["requests"]
    }
    assert all(r["exchange"]["response"]["body"]["text"] for r in merged["requests"])
    assert [r["exchange"] for r in merged["requests"]] == [
        kept[r["id"]] for r in merged["requests"]
    ]
    starts = [json.loads(Path(p).read_text())["started_at"] for p in parts]
    assert merged["started_at"] == min(starts)  # the merged run started with its first shard
    assert junit_problems(merged_junit) == []  # as Jenkins' JUnit XSD describes it
    suite = ET.parse(merged_junit).getroot().find("testsuite")
    assert suite is not None and suite.get("timestamp") == min(starts).removesuffix("+00:00")
    cases = ET.parse(merged_junit).getroot().findall(".//testcase")
    assert [c.get("name") for c in cases] == [r["name"] for r in unsharded["requests"]]


def test_merge_refuses_the_same_shard_twice(tmp_path: Path, echo_url: str, capsys) -> None:
    root = sharded_collection(tmp_path / "c", echo_url)
    code, _, _ = run_json(capsys, str(root), "--shard", "1/2", tmp=tmp_path)
    report = str(next(tmp_path.glob("report-*.json")))
    out = tmp_path / "m.json"
    assert main(["report", "merge", report, report, "--report", f"json:{out}"]) == 2
    assert "the same request" in capsys.readouterr().err


def test_a_huge_shard_count_costs_the_units_not_the_count(tmp_path: Path, capsys) -> None:
    """More shards than units leaves the rest empty; N is never a list's length."""
    root = sharded_collection(tmp_path / "c", "http://127.0.0.1:9")
    everything = select(load_collection(root), None)
    huge = 10**23
    firsts = [shard(everything, k, huge) for k in range(1, 9)]
    assert sorted(r.id for s in firsts for _, r in s) == sorted(r.id for _, r in everything)
    assert shard(everything, huge, huge) == [] and shard(everything, 9, huge) == []
    assert firsts[:7] == [shard(everything, k, 7) for k in range(1, 8)]  # one unit each
    assert main(["run", str(root), "--shard", f"{huge}/{huge}", "--no-color"]) == 0
    assert "0 requests" in capsys.readouterr().out


def _tamper(report: dict, how: str) -> None:
    entry = report["requests"][0]
    if how == "entry":
        report["requests"][0] = "x"
    elif how == "status":
        entry["status"] = "200"
    elif how == "no id":
        del entry["id"]
    elif how == "frames":
        entry["frames"] = {"sent": "x", "received": 1}
    elif how == "log":
        entry["log"] = [1]
    elif how == "exchange":
        entry["exchange"] = {"request": {"method": "GET", "url": "/", "headers": [["a"]]}}
    elif how == "exchange body":
        entry["exchange"]["request"]["body"] = {"size": "1", "text": "", "more": 0}
    elif how == "collection":
        report["collection"] = ["a"]
    elif how == "totals":
        report["totals"] = []
    elif how == "requests":
        report["requests"] = {"a": 1}


@pytest.mark.parametrize(
    "how",
    [
        "entry",
        "status",
        "no id",
        "frames",
        "log",
        "exchange",
        "exchange body",
        "collection",
        "totals",
        "requests",
    ],
)
def test_merging_a_tampered_report_is_one_line_naming_it(tmp_path: Path, how: str, capsys) -> None:
    root = sharded_collection(tmp_path / "c", "http://127.0.0.1:9")
    run_json(capsys, str(root), "--shard", "1/2", tmp=tmp_path)
    good = next(tmp_path.glob("report-*.json"))
    report = json.loads(good.read_text())
    _tamper(report, how)
    bad = tmp_path / "tampered.json"
    bad.write_text(json.dumps(report))
    out = tmp_path / "m.json"
    assert main(["report", "merge", str(good), str(bad), "--report", f"json:{out}"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and str(bad) in err, err
    assert not out.exists()


@pytest.mark.parametrize("spec", ["0/2", "3/2", "x", "1/0", "1-2"])
def test_a_bad_shard_is_bad_usage(tmp_path: Path, spec: str, capsys) -> None:
    root = sharded_collection(tmp_path / "c", "http://127.0.0.1:9")
    assert main(["run", str(root), "--shard", spec]) == 2
    assert "--shard" in capsys.readouterr().err


@pytest.mark.parametrize("count", ["0", "-1"])
def test_parallel_below_one_is_bad_usage(tmp_path: Path, count: str, capsys) -> None:
    root = sharded_collection(tmp_path / "c", "http://127.0.0.1:9")
    assert main(["run", str(root), "--trust", "--parallel", count]) == 2
    captured = capsys.readouterr()
    assert f"--parallel {count}: expected 1 or more" in captured.err and not captured.out


def test_parallel_folders_give_the_sequential_result(tmp_path: Path, echo_url: str, capsys) -> None:
    """Chains stay within their folders, so running folders at once changes nothing but the
    time; the report lists the requests in collection order either way."""
    root = sharded_collection(tmp_path / "c", echo_url)
    one, four = tmp_path / "one", tmp_path / "four"
    one.mkdir()
    four.mkdir()
    code, sequential, _ = run_json(capsys, str(root), tmp=one)
    assert code == 0
    code, parallel, out = run_json(capsys, str(root), "--parallel", "4", tmp=four)
    assert code == 0, out

    assert [steady(r) for r in parallel["requests"]] == [steady(r) for r in sequential["requests"]]
    assert len(out.splitlines()) == len(sequential["requests"]) + 1  # whole lines, one summary


def test_parallel_folders_do_not_see_each_others_runtime_variables(
    tmp_path: Path, echo_url: str, capsys
) -> None:
    root = tmp_path / "c"
    write(root, "collection.toml", f'name = "c"\n[variables]\nbase = "{echo_url}"\n')
    for folder in ("a", "b"):
        write(
            root,
            f"{folder}/1.toml",
            f'name = "{folder} 1"\nurl = "{{{{base}}}}/delay/0.2"\n[scripts]\npost_response = \'\'\'\n'
            f"assert pigeon.getVar('mark') is None\npigeon.setVar('mark', '{folder}')\n'''\n",
        )
        write(
            root,
            f"{folder}/2.toml",
            f'name = "{folder} 2"\nurl = "{{{{base}}}}/x"\n[scripts]\npost_response = \'\'\'\n'
            f"assert pigeon.getVar('mark') == '{folder}'\n'''\n",
        )
    code, report, out = run_json(capsys, str(root), "--parallel", "2", tmp=tmp_path)
    assert code == 0, out
    assert all(r["passed"] for r in report["requests"])


def test_bail_stops_every_lane(tmp_path: Path, echo_url: str, capsys) -> None:
    root = tmp_path / "c"
    write(root, "collection.toml", f'name = "c"\n[variables]\nbase = "{echo_url}"\n')
    write(
        root,
        "a/1.toml",
        'name = "a 1"\nurl = "{{base}}/status/500"\n'
        "[scripts]\npost_response = '''\nassert pigeon.response.status == 200\n'''\n",
    )
    for i in range(20):
        write(root, f"b/{i:02d}.toml", f'name = "b {i}"\nurl = "{{{{base}}}}/delay/0.05"\n')
    code, report, _ = run_json(capsys, str(root), "--parallel", "2", "--bail", tmp=tmp_path)
    assert code == 1 and report["totals"]["bailed"]
    assert len(report["requests"]) < 21  # the other lane stopped too
