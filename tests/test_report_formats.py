"""HTML, Markdown and TAP reports of real runs against the echo server: each parses as its
format says, masks what the JSON report masks, and can go to stdout alone."""

from __future__ import annotations

import asyncio
import json
import re
from html.parser import HTMLParser
from pathlib import Path

import html5lib
import pytest
from tap.parser import Parser

from collection_files import write
from pigeon.cli import main
from pigeon.excerpts import CAP, Excerpts, checked
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
    """A run as `pigeon run` makes it when a report shows the exchanges: each one spooled."""
    collection = load_collection(root)
    assert not collection.broken, collection.broken
    ctx = RunContext(collection, trusted=True)
    excerpts = Excerpts(collection.dotenv.values())  # kept alive by the records

    async def go() -> RunSummary:
        try:
            return await run_collection(ctx, None, excerpts=excerpts)
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
    names = [f"r{n}" for n in range(100)]  # some 32 fit under the cap: three times that
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


class _Text(HTMLParser):
    """What a page says with no style applied: the text of its body, with ``<style>`` left out
    (as a browser under Jenkins' default policy leaves it out)."""

    def __init__(self) -> None:
        super().__init__()
        self.parts: list[str] = []
        self._skip = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._skip += tag in ("style", "title")

    def handle_endtag(self, tag: str) -> None:
        self._skip -= tag in ("style", "title")

    def handle_data(self, data: str) -> None:
        if not self._skip:
            self.parts.append(data)


def test_html_says_everything_with_no_style_applied(collection: Path, tmp_path: Path) -> None:
    """Jenkins' default policy blocks the page's ``<style>``: what it shows is all in the text,
    and the style only lays it out (it hides nothing and adds nothing)."""
    text = written(run(collection), "html", tmp_path)
    style = re.search(r"<style>(.*?)</style>", text, re.S)
    assert style is not None
    for rule in ("display", "visibility", "content", "url(", "@import", "font-face", "opacity"):
        assert rule not in style.group(1)
    bare = _Text()
    bare.feed(text.replace(style.group(0), ""))
    said = "".join(bare.parts)
    # The summary, then each request with its verdict, status, time and assertions in words.
    assert "3 requests, 1 passed, 2 failed" in said
    for line in (
        "1. PASS: OK ok",
        "2. FAIL: Sign | check sign",
        "3. ERROR: Raises raises",
        "Status: 200 OK. Time: ",
        "Assertions: passed.",
        "Assertions: 1 failed.",
        "Assertions: script error.",
    ):
        assert line in said, line
    # The failure, and each request's exchange: the request line, its headers, the response's
    # status line, headers and body.
    assert "assertion failed: no ••• (assert 200 == 201)" in said
    assert said.count("Request and response") == 3
    assert said.count("\nGET http://127.0.0.1:") == 3
    assert said.count("HTTP/1.1 200 OK\n") == 3
    assert "Content-Type: application/json" in said
    assert '"path": "/get"' in said  # the echo's body
    assert_masked(said)


LEAKY = """\
name = "Leak"
method = "POST"
url = "{{base}}/anything/{{$env.TOKEN}}?q={{$env.TOKEN}}&page=2"

[[headers]]
name = "X-Trace"
value = "{{$env.TOKEN}}"

[[headers]]
name = "Authorization"
value = "Bearer {{$env.PASSWORD}}"

[body]
type = "json"
content = '{"note": "{{$env.TOKEN}} and more", "password": "{{$env.PASSWORD}}", "n": 1}'

[scripts]
post_response = '''
assert pigeon.response.status == 201, "wanted 201"
'''
"""
TOKEN, PASSWORD = "tok-SECRET-1234567", "hunter2-Secret-99"


def test_no_secret_reaches_a_report(tmp_path: Path, echo_url: str, capsys) -> None:
    """``.env`` values in the URL (path and query), a header, the body and the server's echo
    of all of them (and in a response header it sets), in every report, merged ones too."""
    root = tmp_path / "leaky"
    write(root, "collection.toml", f'name = "leaky"\n[variables]\nbase = "{echo_url}"\n')
    write(root, ".env", f"TOKEN={TOKEN}\nPASSWORD={PASSWORD}\n")
    write(root, "leak.toml", LEAKY)
    write(root, "header.toml", 'url = "{{base}}/response-headers?X-Echo={{$env.TOKEN}}"\n')
    out = tmp_path / "out"
    reports = {kind: out / f"r.{kind}" for kind in ("json", "junit", "html", "markdown", "tap")}
    argv = ["run", str(root), "--trust", "--no-color"]
    for kind, path in reports.items():
        argv += ["--report", f"{kind}:{path}"]
    assert main(argv) == 1
    shard = reports["json"]
    merged = {kind: out / f"m.{kind}" for kind in ("html", "markdown")}
    merge = ["report", "merge", str(shard)]
    for kind, path in merged.items():
        merge += ["--report", f"{kind}:{path}"]
    assert main(merge) == 1
    capsys.readouterr()
    for path in [*reports.values(), *merged.values()]:
        text = path.read_text(encoding="utf-8")
        for secret in (TOKEN, PASSWORD, "hunter2"):
            assert secret not in text, (path.name, secret)
    for path in (reports["html"], reports["markdown"], *merged.values()):
        text = path.read_text(encoding="utf-8").replace("&quot;", '"')
        assert "X-Trace: •••" in text and "Authorization: Bearer •••" in text, path.name
        assert '"note": "••• and more"' in text and '"password": "•••"' in text, path.name
        assert "/anything/•••?q=•••&amp;page=2" in text or "/anything/•••?q=•••&page=2" in text
        assert "X-Echo: •••" in text  # the response header the server set from the query
    entry = json.loads(shard.read_text(encoding="utf-8"))["requests"][1]
    assert entry["exchange"]["request"]["body"]["size"] == len(
        f'{{"note": "{TOKEN} and more", "password": "{PASSWORD}", "n": 1}}'
    )  # its size as sent, though shown masked


def test_bodies_are_cut_at_4_kb_saying_how_much_is_left(tmp_path: Path, echo_url: str) -> None:
    root = tmp_path / "big"
    big = "x" * 10_000
    write(root, "collection.toml", f'name = "big"\n[variables]\nbase = "{echo_url}"\n')
    write(
        root,
        "big.toml",
        f'method = "POST"\nurl = "{{{{base}}}}/anything"\n[body]\ntype = "text"\n'
        f"content = '{big}'\n",
    )
    summary = run(root)
    exchange = json.loads(written(summary, "json", tmp_path))["requests"][0]["exchange"]
    sent, got = exchange["request"]["body"], exchange["response"]["body"]
    assert sent["size"] == 10_000 and len(sent["text"]) == CAP and sent["more"] == 10_000 - CAP
    assert got["size"] > 10_000 and len(got["text"].encode()) <= CAP
    assert got["more"] == got["size"] - CAP
    text = written(summary, "html", tmp_path)
    assert f"… {10_000 - CAP} more bytes" in text and f"… {got['size'] - CAP} more bytes" in text
    assert "x" * (CAP + 1) not in text


def test_markdown_folds_the_other_requests_while_room_is_left(
    collection: Path, tmp_path: Path
) -> None:
    """Passing requests with big bodies fold their exchanges until the cap, then are counted."""
    root = tmp_path / "many"
    count = 150  # some 72 fold under the cap: twice that
    names = [f"r{n}" for n in range(count)]
    write(root, "collection.toml", f'name = "many"\norder = {json.dumps(names)}\n')
    base = load_collection(collection).variables["base"]
    for name in names:
        write(
            root,
            f"{name}.toml",
            f'method = "POST"\nurl = "{base}/anything"\n'
            f"[body]\ntype = \"text\"\ncontent = '{'y' * 3000}'\n",
        )
    text = written(run(root), "markdown", tmp_path)
    assert len(text.encode()) < MARKDOWN_CAP + 4096
    folded = text.count("<details><summary>")
    assert 10 < folded < count
    assert f"… {count - folded} more requests not shown" in text
    assert text.count("<details>") == text.count("</details>")


def test_a_merged_report_without_exchanges_says_only_what_it_has(
    collection: Path, tmp_path: Path, capsys
) -> None:
    """A JSON report written before the exchanges were kept still merges: each request folds
    its one-line summary, no request or response block."""
    shard = tmp_path / "shard.json"
    main(["run", str(collection), "--trust", "--report", f"json:{shard}"])
    report = json.loads(shard.read_text(encoding="utf-8"))
    for entry in report["requests"]:
        del entry["exchange"]
    shard.write_text(json.dumps(report), encoding="utf-8")
    page = tmp_path / "m.html"
    assert main(["report", "merge", str(shard), "--report", f"html:{page}"]) == 1
    capsys.readouterr()
    text = page.read_text(encoding="utf-8")
    assert text.count("<details>") == 3 and "<h4>Request and response</h4>" in text
    assert "<h4>Request</h4>" not in text and "-&gt; 200 OK" in text
    assert text.count("headers and bodies: not in the report this one was made from") == 3


def test_the_spool_reads_back_what_it_kept_between_writes(collection: Path) -> None:
    """Reads and writes interleave (a merge reads none back until the end; a test may), and
    an excerpt read back from a report is taken as it was written."""
    summary = run(collection)
    kept = [r.excerpt.read() for r in summary.results if r.excerpt is not None]
    assert len(kept) == 3 and all(checked(k) == k for k in kept)
    with Excerpts() as spool:
        first, second = spool.add(kept[0]), spool.add(kept[1])
        assert first.read() == kept[0]
        third = spool.add(kept[2])  # after a read: written at the end, not over the second
        assert [e.read() for e in (first, second, third)] == kept
