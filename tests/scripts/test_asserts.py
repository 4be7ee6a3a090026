"""Assertions that explain: a failing assert says its values, pytest-style, evaluates each
side once and in order, keeps its line, and shows a huge value by its start only."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from collection_files import write
from pigeon.cli import main
from pigeon.scripts.asserts import EXPLAIN, explain, rewrite


def failure(code: str, **names: object) -> str:
    namespace = {EXPLAIN: explain, **names}
    with pytest.raises(AssertionError) as caught:
        exec(compile(rewrite(code, "s.py"), "s.py", "exec"), namespace)
    return str(caught.value)


@pytest.mark.parametrize(
    ("code", "message"),
    [
        ("status = 401\nassert status == 200", "assert 401 == 200 (status == 200)"),
        ("assert 3 != 3", "assert 3 != 3"),
        ("n = 5\nassert n < 2", "assert 5 < 2 (n < 2)"),
        ("assert 'x' in ['a', 'b']", "assert 'x' in ['a', 'b']"),
        ("v = None\nassert v is not None", "assert None is not None (v is not None)"),
        ("items = []\nassert items", "assert [] (items)"),
        ("a, b = 1, 0\nassert a and b", "assert 0 (a and b)"),
        ("s = 500\nassert s == 200, f'got {s}'", "got 500 (assert 500 == 200)"),
        ("assert 1 < 2 < 1", "assert False (1 < 2 < 1)"),
        ("assert False, 'as written'", "as written"),
    ],
)
def test_a_failing_assert_says_its_values(code: str, message: str) -> None:
    assert failure(code) == message


def test_each_side_is_evaluated_once_in_order_and_passing_asserts_pass() -> None:
    calls: list[str] = []

    def side(name: str, value: int) -> int:
        calls.append(name)
        return value

    namespace = {EXPLAIN: explain, "side": side}
    exec(compile(rewrite("assert side('l', 1) == side('r', 1)", "s"), "s", "exec"), namespace)
    assert calls == ["l", "r"]
    calls.clear()
    assert failure("assert side('l', 1) == side('r', 2)", side=side) == (
        "assert 1 == 2 (side('l', 1) == side('r', 2))"
    )
    assert calls == ["l", "r"]


def test_the_line_number_is_the_asserts_own() -> None:
    code = "x = 1\n\n\nassert x == 2\n"
    namespace = {EXPLAIN: explain}
    try:
        exec(compile(rewrite(code, "s.py"), "s.py", "exec"), namespace)
    except AssertionError as exc:
        assert exc.__traceback__ is not None
        tb = exc.__traceback__
        while tb.tb_next is not None:
            tb = tb.tb_next
        assert tb.tb_lineno == 4
    else:
        raise AssertionError("the assert did not fail")


def test_a_huge_value_is_shown_by_its_start() -> None:
    message = failure("big = 'x' * 5_000_000\nassert big == 'y'")
    assert len(message) < 300 and message.startswith("assert 'xxxx")


def test_pigeon_run_explains_in_the_line_json_and_junit(
    tmp_path: Path, echo_url: str, capsys
) -> None:
    root = tmp_path / "c"
    write(root, "collection.toml", f'name = "c"\n[variables]\nbase = "{echo_url}"\n')
    write(
        root,
        "status.toml",
        'name = "Status"\nurl = "{{base}}/status/404"\n[scripts]\npost_response = \'\'\'\n'
        "assert pigeon.response.status == 200\n'''\n",
    )
    report, junit = tmp_path / "r.json", tmp_path / "r.xml"
    code = main(
        [
            "run",
            str(root),
            "--trust",
            "--no-color",
            "--report",
            f"json:{report}",
            "--report",
            f"junit:{junit}",
        ]
    )
    assert code == 1
    expected = "assert 404 == 200 (pigeon.response.status == 200)"
    assert expected in capsys.readouterr().out
    entry = json.loads(report.read_text())["requests"][0]
    assert entry["assertion_failures"][0].endswith(expected)
    failure_el = ET.parse(junit).getroot().find(".//failure")
    assert failure_el is not None and expected in failure_el.get("message", "")
