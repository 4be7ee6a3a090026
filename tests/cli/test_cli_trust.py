"""`pigeon run --no-scripts` (DESIGN §8): a run without the collection's scripts reports the
requests whose assertions did not run as skipped -- on the live line, in the summary, the
JSON report and JUnit -- never as passed."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from collection_files import write
from pigeon.cli import main

CHECKED = """\
name = "{name}"
url = "{url}/{path}"

[scripts]
post_response = '''
assert pigeon.response.status == 200, pigeon.response.status
'''
"""


@pytest.fixture
def col(tmp_path: Path, echo_url: str) -> Path:
    root = tmp_path / "col"
    write(root, "collection.toml", 'name = "checked"\norder = ["a", "b", "c"]\n')
    write(root, "a.toml", CHECKED.format(name="A", url=echo_url, path="status/401"))
    write(root, "b.toml", CHECKED.format(name="B", url=echo_url, path="ok"))
    write(root, "c.toml", f'name = "C"\nurl = "{echo_url}/plain"\n')  # nothing to check
    return root


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["run", *argv, "--no-color"])
    out, err = capsys.readouterr()
    return code, out, err


def test_untrusted_assertions_refuse_the_run(col: Path, capsys) -> None:
    code, out, err = run(capsys, str(col))
    assert code == 2 and out == ""
    assert "needs trust: a: runs a.toml [scripts.post_response]" in err
    assert "--no-scripts" in err


def test_no_scripts_reports_skipped_everywhere(col: Path, capsys) -> None:
    code, out, err = run(
        capsys,
        str(col),
        "--no-scripts",
        "--report",
        f"json:{col}/r.json",
        "--report",
        f"junit:{col}/r.xml",
    )
    assert code == 0, err  # nothing failed; skipped is not a failure (README: exit codes)
    lines = out.splitlines()
    assert lines[0].startswith("○ GET    a") and lines[0].endswith("skipped")
    assert "401" in lines[0]  # the response that no assertion looked at
    assert lines[1] == "    post-response scripts not run (--no-scripts)"
    assert lines[-1].startswith("3 requests · 1 passed · 0 failed · 2 skipped · ")
    assert not any(line.startswith("✔") and " a " in line for line in lines)

    report = json.loads((col / "r.json").read_text())
    assert report["totals"]["passed"] == 1 and report["totals"]["skipped"] == 2
    by_id = {r["id"]: r for r in report["requests"]}
    assert by_id["a"]["skipped"] is True and by_id["a"]["passed"] is False
    assert by_id["a"]["scripts_skipped"] == ["post_response"]
    assert by_id["c"]["passed"] is True and by_id["c"]["skipped"] is False

    suite = ET.parse(col / "r.xml").getroot().find("testsuite")
    assert suite is not None and suite.get("skipped") == "2" and suite.get("failures") == "0"
    skipped = {case.get("name"): case.find("skipped") for case in suite.iter("testcase")}
    assert skipped["C"] is None
    assert skipped["A"] is not None and "--no-scripts" in skipped["A"].get("message", "")


def test_trusted_no_scripts_skips_and_trusted_checks(col: Path, capsys) -> None:
    code, out, _ = run(capsys, str(col), "--trust", "--no-scripts")
    assert code == 0 and "2 skipped" in out
    code, out, _ = run(capsys, str(col), "--trust")
    assert code == 1 and "1 failed" in out and "skipped" not in out
