"""Run reports from real runs against the echo server: JSON schema, JUnit structure, safety."""

from __future__ import annotations

import asyncio
import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from collection_files import write
from junit_schema import junit_problems
from pigeon.pipeline import RunContext
from pigeon.reports import parse_report_specs, write_json_report, write_junit_report, xml_text
from pigeon.run import RunSummary, run_collection
from pigeon.store import load_collection
from servers import free_port


def run(root: Path, *, strict: bool = False, scripts: bool = True) -> RunSummary:
    collection = load_collection(root)
    assert not collection.broken, collection.broken
    ctx = RunContext(collection, trusted=True, allow_scripts=scripts)

    async def go() -> RunSummary:
        try:
            return await run_collection(ctx, None, strict=strict)
        finally:
            await ctx.aclose()

    return asyncio.run(go())


@pytest.fixture
def mixed(tmp_path: Path, echo_url: str) -> Path:
    """One request for each outcome a report must tell apart, in this order."""
    with free_port() as port:
        pass
    root = tmp_path / "mixed"
    order = ["ok", "missing", "asserts", "raises", "bad-header", "down", "unresolved"]
    write(
        root,
        "collection.toml",
        f'name = "mixed"\norder = ["api"]\n\n[variables]\nbase = "{echo_url}"\n',
    )
    write(root, "api/folder.toml", f"order = {json.dumps(order)}\n")
    write(root, "api/ok.toml", 'name = "OK"\nurl = "{{base}}/get"\n')
    # A 404 without an assertion on it is a response, not a failure.
    write(root, "api/missing.toml", 'name = "Missing"\nurl = "{{base}}/status/404"\n')
    write(
        root,
        "api/asserts.toml",
        'name = "Asserts"\nurl = "{{base}}/status/500"\n[scripts]\n'
        "post_response = '''\nprint(\"status\", pigeon.response.status)\n"
        "assert pigeon.response.status == 200, \"wanted 200\"\n'''\n",
    )
    write(
        root,
        "api/raises.toml",
        'name = "Raises"\nurl = "{{base}}/get"\n[scripts]\n'
        "post_response = '''\nraise ValueError(\"boom\")\n'''\n",
    )
    write(
        root,
        "api/bad-header.toml",
        'name = "Bad header"\nurl = "{{base}}/get"\n[variables]\nsneaky = "a\\r\\nX-Injected: 1"\n'
        '[[headers]]\nname = "X-Note"\nvalue = "{{sneaky}}"\n',
    )
    write(root, "api/down.toml", f'name = "Down"\nurl = "http://127.0.0.1:{port}/"\n')
    write(root, "api/unresolved.toml", 'name = "Unresolved"\nurl = "{{base}}/get/{{nope}}"\n')
    return root


def test_junit_counts_and_kinds(mixed: Path, tmp_path: Path) -> None:
    summary = run(mixed, strict=True)
    path = tmp_path / "out" / "junit.xml"
    path.parent.mkdir()
    write_junit_report(summary, path)
    root = ET.parse(path).getroot()
    assert root.tag == "testsuites"
    suites = root.findall("testsuite")
    assert len(suites) == 1
    suite = suites[0]
    assert suite.get("name") == "mixed"
    assert (suite.get("tests"), suite.get("failures"), suite.get("errors")) == ("7", "2", "3")
    assert (root.get("tests"), root.get("failures"), root.get("errors")) == ("7", "2", "3")
    float(suite.get("time", "x"))  # a number CI systems can add up
    cases = {c.get("name"): c for c in suite.findall("testcase")}
    assert list(cases) == ["OK", "Missing", "Asserts", "Raises", "Bad header", "Down", "Unresolved"]
    assert {c.get("classname") for c in cases.values()} == {"api"}

    def outcome(name: str) -> str:
        kinds = [child.tag for child in cases[name] if child.tag in ("failure", "error")]
        return kinds[0] if kinds else "passed"

    assert [outcome(n) for n in cases] == [
        "passed",
        "passed",
        "failure",
        "error",
        "error",
        "error",
        "failure",
    ]
    failure = cases["Asserts"].find("failure")
    assert failure is not None and "wanted 200" in failure.get("message", "")
    assert "AssertionError" in (failure.text or "")
    error = cases["Raises"].find("error")
    assert error is not None and "ValueError: boom" in error.get("message", "")
    assert error.get("type") == "ValueError"
    assert cases["Down"].find("error").get("type") == "SendError.connect"  # type: ignore[union-attr]
    assert cases["Bad header"].find("error").get("type") == "RenderError"  # type: ignore[union-attr]
    assert cases["Unresolved"].find("failure").get("type") == "UnresolvedPlaceholders"  # type: ignore[union-attr]
    assert "CR" in cases["Bad header"].find("error").get("message", "")  # type: ignore[union-attr]
    assert "refused" in cases["Down"].find("error").get("message", "").lower()  # type: ignore[union-attr]
    assert "nope" in cases["Unresolved"].find("failure").get("message", "")  # type: ignore[union-attr]
    out = cases["Asserts"].find("system-out")
    assert out is not None and "status 500" in (out.text or "") and "-> 500" in (out.text or "")


@pytest.mark.parametrize("scripts", [True, False], ids=["scripts", "no-scripts"])
def test_junit_validates_against_the_junit_schema(
    mixed: Path, tmp_path: Path, scripts: bool
) -> None:
    """Every outcome (passed, failure, error, skipped) as Jenkins' JUnit XSD describes it."""
    summary = run(mixed, strict=True, scripts=scripts)
    path = tmp_path / "junit.xml"
    write_junit_report(summary, path)
    assert junit_problems(path) == []
    tags = {el.tag for el in ET.parse(path).getroot().iter()}
    assert {"failure", "error", "system-out"} <= tags
    assert ("skipped" in tags) is not scripts


def test_json_report_schema(mixed: Path, tmp_path: Path) -> None:
    summary = run(mixed, strict=True)
    path = tmp_path / "r.json"
    write_json_report(summary, path)
    report = json.loads(path.read_text(encoding="utf-8"))
    assert report["schema"] == 1 and report["collection"] == "mixed"
    totals = report["totals"]
    assert totals["requests"] == 7 and totals["passed"] == 2 and totals["failed"] == 5
    assert totals["assertion_failures"] == 1 and totals["exit_code"] == 1
    assert totals["bailed"] is False and totals["time_ms"] > 0
    by_id = {r["id"]: r for r in report["requests"]}
    assert list(by_id) == [
        f"api/{n}"
        for n in ("ok", "missing", "asserts", "raises", "bad-header", "down", "unresolved")
    ]
    ok = by_id["api/ok"]
    assert set(ok) >= {
        "id",
        "name",
        "method",
        "url",
        "status",
        "status_class",
        "time_ms",
        "size",
        "passed",
        "error",
        "script_errors",
        "assertion_failures",
        "unresolved",
        "warnings",
        "log",
    }
    assert ok["method"] == "GET" and ok["url"].endswith("/get") and ok["status"] == 200
    assert ok["status_class"] == "Successful" and ok["passed"] is True and ok["size"] > 0
    assert by_id["api/missing"]["status"] == 404 and by_id["api/missing"]["passed"] is True
    assert by_id["api/asserts"]["assertion_failures"][0].endswith("wanted 200 (assert 500 == 200)")
    assert by_id["api/raises"]["script_errors"] and by_id["api/raises"]["status"] == 200
    down = by_id["api/down"]
    assert down["status"] is None and down["time_ms"] is None and "refused" in down["error"].lower()
    assert by_id["api/bad-header"]["url"] is None  # never built, so never sent
    assert by_id["api/unresolved"]["unresolved"] == ["nope"]
    assert by_id["api/unresolved"]["status"] is None  # --strict: not sent


def test_junit_survives_control_characters(tmp_path: Path, echo_url: str) -> None:
    root = tmp_path / "c"
    write(root, "collection.toml", f'name = "c"\n[variables]\nbase = "{echo_url}"\n')
    write(
        root,
        "ctl.toml",
        'name = "bell \\u0007 name"\nurl = "{{base}}/get"\n[scripts]\n'
        "post_response = '''\nprint(\"\\x1b[31mred\\x1b[0m nul \\x00 end\")\n"
        "assert False, \"bad \\x07 bell\"\n'''\n",
    )
    summary = run(root)
    path = tmp_path / "j.xml"
    write_junit_report(summary, path)
    assert junit_problems(path) == []
    case = ET.parse(path).getroot().find("testsuite/testcase")  # parses: the point
    assert case is not None and case.get("name") == "bell \\x07 name"
    out = case.find("system-out")
    assert out is not None and "\\x1b[31mred\\x1b[0m nul \\x00 end" in (out.text or "")
    failure = case.find("failure")
    assert failure is not None and "bad \\x07 bell" in failure.get("message", "")


def test_xml_text_keeps_what_xml_allows() -> None:
    assert xml_text("tab\there\nline\r\n é ✓ 🐦") == "tab\there\nline\r\n é ✓ 🐦"
    assert xml_text("a\x00b\x1fc\ufffe") == "a\\x00b\\x1fc\\ufffe"


def test_reports_replace_atomically(mixed: Path, tmp_path: Path) -> None:
    summary = run(mixed)
    path = tmp_path / "r.json"
    path.write_text("old", encoding="utf-8")
    write_json_report(summary, path)
    write_junit_report(summary, tmp_path / "j.xml")
    assert json.loads(path.read_text(encoding="utf-8"))["totals"]["requests"] == 7
    assert sorted(p.name for p in tmp_path.iterdir() if p.is_file()) == ["j.xml", "r.json"]


def test_report_specs() -> None:
    assert parse_report_specs(["json:out/r.json", "junit:C:/x.xml"]) == [
        ("json", Path("out/r.json")),
        ("junit", Path("C:/x.xml")),
    ]
    for bad in ("xml:r.xml", "json:", "r.json"):
        with pytest.raises(ValueError, match="expected KIND:PATH"):
            parse_report_specs([bad])


def test_unwritable_report_is_refused_before_sending(tmp_path: Path) -> None:
    from pigeon.reports import check_report_paths

    check_report_paths([("json", tmp_path / "new" / "dir" / "r.json")])
    assert (tmp_path / "new" / "dir").is_dir()
    with pytest.raises(ValueError, match="is a directory"):
        check_report_paths([("junit", tmp_path)])
    blocker = tmp_path / "file"
    blocker.write_text("x", encoding="utf-8")
    with pytest.raises(ValueError, match="cannot create"):
        check_report_paths([("json", blocker / "r.json")])


SECRET_SCRIPT = """\
name = "r"
url = "{{base}}/get?api_key=k-998877&page=2"

[scripts]
post_response = '''
print("signing with", pigeon.env["SIGNING_SECRET"])
assert pigeon.response.status == 201, "no " + pigeon.env["SIGNING_SECRET"]
'''
"""


def test_reports_mask_secrets(tmp_path: Path, echo_url: str) -> None:
    root = tmp_path / "c"
    write(root, "collection.toml", f'name = "c"\n[variables]\nbase = "{echo_url}"\n')
    write(root, ".env", "SIGNING_SECRET=s3cr3t-value-42\n")
    write(root, "r.toml", SECRET_SCRIPT)
    summary = run(root)
    write_json_report(summary, tmp_path / "r.json")
    write_junit_report(summary, tmp_path / "j.xml")
    for name in ("r.json", "j.xml"):
        text = (tmp_path / name).read_text(encoding="utf-8")
        assert "k-998877" not in text and "s3cr3t-value-42" not in text, name
        assert "page=2" in text and "signing with" in text, name
    entry = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))["requests"][0]
    assert entry["url"].endswith("/get?api_key=%E2%80%A2%E2%80%A2%E2%80%A2&page=2")
    assert entry["log"] == ["[r post_response] signing with •••"]
    assert entry["assertion_failures"][0].endswith("no ••• (assert 200 == 201)")


def test_the_reports_say_when_the_run_started(mixed: Path, tmp_path: Path) -> None:
    """JUnit's timestamp is when the suite started, not when its report was written."""
    from datetime import datetime, timedelta, timezone

    before = datetime.now(timezone.utc)
    summary = run(mixed)
    after = datetime.now(timezone.utc)
    assert before <= summary.started_at
    assert summary.started_at + timedelta(milliseconds=summary.duration_ms) <= after
    summary.started_at = datetime(2024, 1, 2, 3, 4, 5, 600_000, tzinfo=timezone.utc)
    write_junit_report(summary, tmp_path / "r.xml")
    suite = ET.parse(tmp_path / "r.xml").getroot().find("testsuite")
    assert suite is not None and suite.get("timestamp") == "2024-01-02T03:04:05"
    write_json_report(summary, tmp_path / "r.json")
    report = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    assert report["started_at"] == "2024-01-02T03:04:05+00:00"
    assert report["finished_at"] > report["started_at"]
