"""HTML, Markdown and TAP reports of real runs against the echo server: each parses as its
format says, masks what the JSON report masks, and can go to stdout alone."""

from __future__ import annotations

import asyncio
import re
from html.parser import HTMLParser
from pathlib import Path

import html5lib
import pytest
from tap.parser import Parser

from collection_files import write
from pigeon.cli import main
from pigeon.pipeline import RunContext
from pigeon.report_formats import MARKDOWN_CAP
from pigeon.reports import write_reports
from pigeon.run import RunSummary, run_collection
from pigeon.store import load_collection

ENV_SECRET = "s3cr3t-value-42"
VAR_SECRET = "k-998877"

FAILING = """\
name = "Sign | check"
url = "{{base}}/get?api_key={{api_key}}&page=2"

[scripts]
post_response = '''
print("signing with", pigeon.env["SIGNING_SECRET"], "<b>&")
assert pigeon.response.status == 201, "no " + pigeon.env["SIGNING_SECRET"]
'''
"""


@pytest.fixture
def collection(tmp_path: Path, echo_url: str) -> Path:
    """A passing request, then one whose assertion fails naming a ``.env`` value and whose URL
    carries a secret variable; then one that raises."""
    root = tmp_path / "c"
    write(
        root,
        "collection.toml",
        f'name = "c <&>"\norder = ["ok", "sign", "raises"]\n[variables]\nbase = "{echo_url}"\n'
        f'api_key = "{VAR_SECRET}"\n',
    )
    write(root, ".env", f"SIGNING_SECRET={ENV_SECRET}\n")
    write(root, "ok.toml", 'name = "OK"\nurl = "{{base}}/get"\n')
    write(root, "sign.toml", FAILING)
    write(
        root,
        "raises.toml",
        'name = "Raises"\nurl = "{{base}}/get"\n[scripts]\n'
        "post_response = '''\nraise ValueError(\"boom #1\")\n'''\n",
    )
    return root


def run(root: Path) -> RunSummary:
    collection = load_collection(root)
    assert not collection.broken, collection.broken
    ctx = RunContext(collection, trusted=True)

    async def go() -> RunSummary:
        try:
            return await run_collection(ctx, None)
        finally:
            await ctx.aclose()

    return asyncio.run(go())


def written(summary: RunSummary, kind: str, tmp_path: Path) -> str:
    path = tmp_path / f"report.{kind}"
    write_reports(summary, [(kind, path)])
    return path.read_text(encoding="utf-8")


def assert_masked(text: str) -> None:
    assert ENV_SECRET not in text and VAR_SECRET not in text
    assert "page=2" in text and "signing with" in text


class _Outside(HTMLParser):
    """Every script, style attribute and URL of a page, and every style sheet but the one
    ``<style>`` block in its head: what a strict content policy blocks, and what would be lost
    with it."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[str] = []
        self.styles = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "style":
            self.styles += 1
        outside = ("script", "link", "iframe", "object", "embed", "img", "base", "meta")
        if tag in outside and (tag, attrs) != ("meta", [("charset", "utf-8")]):
            self.found.append(tag)
        for name, value in attrs:
            if name.startswith("on") or name == "style":
                self.found.append(f"{tag} {name}")
            if name in ("href", "src", "action") and not (value or "").startswith("#"):
                self.found.append(f"{tag} {name}={value}")


def test_html_is_one_page_with_nothing_from_outside(collection: Path, tmp_path: Path) -> None:
    text = written(run(collection), "html", tmp_path)
    html5lib.HTMLParser(strict=True).parse(text)  # raises on any parse error
    outside = _Outside()
    outside.feed(text)
    assert outside.found == [] and outside.styles == 1
    assert not re.search(r"https?://(?!127\.0\.0\.1)", text)  # only the echo server's URLs
    assert_masked(text)
    # Readable without styles: the verdicts are words, each request folds its exchange.
    assert re.findall(r'<strong class="\w+">(\w+)</strong>', text) == ["PASS", "FAIL", "ERROR"]
    assert text.count("<details>") == 3 and "<summary>Request and response</summary>" in text
    assert "no ••• (assert 200 == 201)" in text and "ValueError: boom #1" in text
    assert "&lt;b&gt;&amp;" in text and "c &lt;&amp;&gt;" in text  # outside text stays text


def test_markdown_has_the_table_and_folds_the_failures(collection: Path, tmp_path: Path) -> None:
    text = written(run(collection), "markdown", tmp_path)
    lines = text.splitlines()
    header = lines.index("| # | Result | Request | Status | Time | Assertions |")
    rows = lines[header + 2 : header + 5]
    assert [row.split(" | ")[1] for row in rows] == ["PASS", "FAIL", "ERROR"]
    assert all(row.count(" | ") == 5 for row in rows)  # no cell breaks its row
    assert "| 3 | 1 | 2 | 0 | 1 |" in text  # requests, passed, failed, skipped, assertions
    assert "### Failures" in text and "### Other requests" in text
    assert text.count("<details><summary>") == 3  # the two failures, then the request that passed
    assert "#### 2. FAIL: Sign \\| check (sign)" in text
    assert "\\<b\\>" not in text and "c &lt;&amp;&gt;" in text
    assert_masked(text)


def test_markdown_stays_under_its_cap(collection: Path, tmp_path: Path) -> None:
    """A run of many failing requests with long output still fits a step summary."""
    root = tmp_path / "many"
    names = [f"r{n}" for n in range(400)]
    write(root, "collection.toml", f'name = "many"\norder = {names!r}\n'.replace("'", '"'))
    script = "post_response = '''\nprint('x' * 20000)\nassert False, 'y' * 3000\n'''\n"
    base = load_collection(collection).variables["base"]
    for name in names:
        write(root, f"{name}.toml", f'url = "{base}/get"\n[scripts]\n{script}')
    text = written(run(root), "markdown", tmp_path)
    assert len(text.encode()) < MARKDOWN_CAP + 4096
    assert "more failures not shown" in text
    assert text.count("<details>") == text.count("</details>")


def test_tap_is_version_14_with_a_yaml_block_per_failure(collection: Path, tmp_path: Path) -> None:
    text = written(run(collection), "tap", tmp_path)
    assert text.startswith("TAP version 14\n1..3\n")
    lines = list(Parser().parse_text(text))
    assert [line.category for line in lines] == ["version", "plan", "test", "test", "test"]
    tests = lines[2:]
    assert [t.ok for t in tests] == [True, False, False]
    assert [t.number for t in tests] == [1, 2, 3]
    assert tests[0].yaml_block is None
    failed = tests[1].yaml_block
    assert failed["severity"] == "fail" and failed["message"].endswith("no ••• (assert 200 == 201)")
    assert tests[2].yaml_block["severity"] == "error"
    assert "boom #1" in tests[2].yaml_block["message"]
    assert_masked(text)


def test_tap_skips_what_was_not_checked(collection: Path, tmp_path: Path, capsys) -> None:
    code = main(["run", str(collection), "sign", "--no-scripts", "--report", "tap:-"])
    out = capsys.readouterr().out
    assert code == 0
    (test,) = [line for line in Parser().parse_text(out) if line.category == "test"]
    assert test.ok and test.skip


@pytest.mark.parametrize("kind", ["json", "junit", "html", "markdown", "tap"])
def test_a_report_to_stdout_is_all_stdout_holds(collection: Path, kind: str, capsys) -> None:
    """The run's own lines go to stderr when a report is written to stdout."""
    code = main(["run", str(collection), "--trust", "--no-color", "--report", f"{kind}:-"])
    out, err = capsys.readouterr()
    assert code == 1
    assert "✘ GET    sign" in err and "3 requests" in err
    assert "✘" not in out and "3 requests ·" not in out
    expected_start = {
        "json": "{",
        "junit": "<?xml",
        "html": "<!DOCTYPE html>",
        "markdown": "## ❌ Pigeon run",
        "tap": "TAP version 14",
    }
    assert out.startswith(expected_start[kind])
    assert_masked(out)


def test_only_one_report_may_go_to_stdout(collection: Path, capsys) -> None:
    code = main(["run", str(collection), "--report", "tap:-", "--report", "json:-"])
    assert code == 2 and "only one report can go to stdout" in capsys.readouterr().err


def test_merge_writes_every_format(collection: Path, tmp_path: Path, capsys) -> None:
    shard = tmp_path / "shard.json"
    main(["run", str(collection), "--trust", "--report", f"json:{shard}"])
    capsys.readouterr()
    outputs = [f"{kind}:{tmp_path / ('m.' + kind)}" for kind in ("html", "markdown", "tap")]
    args = ["report", "merge", str(shard)]
    for spec in outputs:
        args += ["--report", spec]
    assert main([*args, "--report", "json:-"]) == 1
    out, err = capsys.readouterr()
    assert out.startswith("{") and "merged 1 reports" in err
    assert (tmp_path / "m.tap").read_text(encoding="utf-8").startswith("TAP version 14\n1..3\n")
    assert "<details>" in (tmp_path / "m.html").read_text(encoding="utf-8")
    assert "| FAIL |" in (tmp_path / "m.markdown").read_text(encoding="utf-8")
    for kind in ("html", "markdown", "tap"):
        assert_masked((tmp_path / f"m.{kind}").read_text(encoding="utf-8"))
