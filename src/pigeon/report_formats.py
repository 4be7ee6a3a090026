"""Run reports for people and other tools (DESIGN §12): HTML, Markdown and TAP, beside the
JSON and JUnit reports of ``pigeon.reports``.

Each writer reads the JSON report's head and its request entries as ``pigeon.reports`` builds
them, so every format shows the same masked data (``.env`` values, secret query parameters,
URL passwords) and none can show more. They write to a stream one request at a time, as the
JSON report does.

Each request's exchange (``pigeon.excerpts``: the request as sent and the response, headers
and bodies, masked, bodies cut at 4 KB) is folded under it in HTML and Markdown.

* HTML is one file that opens under Jenkins' default content policy (``sandbox;
  default-src 'none'; img-src 'self'; style-src 'self'``): no script, no outside link, font
  or image. That policy blocks inline styles too, so the page reads from its markup alone
  (tables with borders as attributes, headings, verdicts as words, ``<details>`` for what
  folds); its ``<style>`` block only adds to that where a browser applies it, and hides or
  adds nothing.
* Markdown fits ``$GITHUB_STEP_SUMMARY`` (GitHub shows up to 1 MiB of it): a summary table,
  a table of the requests, each failure with its exchange folded, then the other requests'
  exchanges folded while room is left; each fold and the whole are capped, and what is left
  out is counted ("… N more requests").
* TAP is version 14: one test point per request, a YAML block under each failure.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable
from typing import Any, TextIO

import yaml

# GitHub refuses a step summary over 1 MiB; a report stays well below.
MARKDOWN_CAP = 512 * 1024
FOLD_CAP = 8 * 1024  # one request's folded details in Markdown
MAX_LISTED = 100  # failures given in full in Markdown; the rest are counted

Entry = dict[str, Any]


def verdict(entry: Entry) -> str:
    """``PASS``, ``FAIL``, ``ERROR`` (could not be built or sent, or a script raised) or
    ``SKIP``: words, so a report reads the same without colour."""
    if entry["error"] or entry["script_errors"]:
        return "ERROR"
    if entry["skipped"]:
        return "SKIP"
    return "PASS" if entry["passed"] else "FAIL"


def _status(entry: Entry) -> str:
    if entry["status"] is None:
        return "—"
    return f"{entry['status']} {entry.get('reason') or entry['status_class'] or ''}".rstrip()


def _time(entry: Entry) -> str:
    ms = entry["time_ms"] if entry["time_ms"] is not None else entry.get("duration_ms")
    return f"{ms:.0f} ms" if isinstance(ms, int | float) else "—"


def _assertions(entry: Entry) -> str:
    failed = len(entry["assertion_failures"])
    if failed:
        return f"{failed} failed"
    if entry["script_errors"]:
        return "script error"
    return "not checked" if entry["skipped"] else "passed"


def problems(entry: Entry) -> list[str]:
    """What went wrong, one line each (already masked)."""
    lines = [entry["error"]] if entry["error"] else []
    lines += entry["script_errors"] + entry["assertion_failures"]
    if entry.get("strict_failure"):
        lines.append("unresolved placeholders (--strict): " + ", ".join(entry["unresolved"]))
    return lines


def exchange_lines(entry: Entry) -> list[str]:
    """The request and what came back, as the reports keep them (masked)."""
    lines = [f"{entry['method']} {entry['url'] if entry['url'] is not None else '(not built)'}"]
    if entry["status"] is not None:
        size = f", {entry['size']} bytes" if entry["size"] is not None else ""
        lines.append(f"-> {_status(entry)}, {_time(entry)}{size}")
    else:
        lines.append("-> no response")
    if entry["frames"]:
        lines.append(
            f"messages: {entry['frames']['sent']} sent, {entry['frames']['received']} received"
        )
    if entry["unresolved"]:
        lines.append("unresolved: " + ", ".join(entry["unresolved"]))
    lines += [f"warning: {w}" for w in entry["warnings"]]
    if entry["scripts_skipped"]:
        lines.append("scripts not run (--no-scripts): " + ", ".join(entry["scripts_skipped"]))
    if entry["log"]:
        lines += ["", "script output:", *entry["log"]]
    return lines


def _body_text(body: Entry) -> str:
    """An excerpt's body as text: what is kept of it, and what is not."""
    if body.get("file") is not None:
        return f"(the file {body['file']}, {body['size']} bytes, sent as it is)"
    if body["text"] is None:
        return f"({body['size']} bytes, not text)"
    more = f"\n… {body['more']} more bytes" if body["more"] else ""
    return str(body["text"]) + more


def _message(first: str, headers: list[list[str]], body: Entry | None) -> str:
    """A request or response as HTTP writes it: its first line, headers, a blank line, body."""
    lines = [first, *(f"{name}: {value}" for name, value in headers)]
    binary = body is not None and body["text"] is None and body["size"] > 0
    if body is not None and (body["text"] or body.get("file") or binary):
        lines += ["", _body_text(body)]  # an empty body: none
    return "\n".join(lines)


def exchange_blocks(entry: Entry) -> list[tuple[str, str]]:
    """What folds under a request, as (title, text): the request as sent and the response with
    their headers and bodies (masked), then what the run noted (warnings, script output). A
    request never built, or a report without exchanges, has the one-line summary instead."""
    exchange = entry.get("exchange")
    lines = exchange_lines(entry)
    if not exchange:
        if entry["url"] is not None:  # built, sent, but merged from a report that lacks them
            lines.append("(headers and bodies: not in the report this one was made from)")
        return [("Request and response", "\n".join(lines))]
    request, response = exchange["request"], exchange["response"]
    blocks = [
        (
            "Request",
            _message(f"{request['method']} {request['url']}", request["headers"], request["body"]),
        )
    ]
    if response is None:
        blocks.append(("Response", "no response"))
    else:
        first = f"{response['http_version']} {response['status']} {response['reason']}".strip()
        blocks.append(("Response", _message(first, response["headers"], response["body"])))
    notes = "\n".join(lines[2:]).strip("\n")  # below the request and status lines
    if notes:
        blocks.append(("Run", notes))
    return blocks


def tracebacks(entry: Entry) -> list[str]:
    return [d["traceback"] for d in entry.get("script_error_details", []) if d.get("traceback")] + [
        tb for tb in entry.get("assertion_tracebacks", []) if tb
    ]


def _totals_line(head: Entry) -> str:
    t = head["totals"]
    parts = [
        f"{t['requests']} requests",
        f"{t['passed']} passed",
        f"{t['failed']} failed",
        f"{t['skipped']} skipped",
        f"{t['assertion_failures']} assertion failures",
        f"{t['time_ms'] / 1000:.2f} s",
    ]
    if t["bailed"]:
        parts.append("stopped after the first failure (--bail)")
    if t["interrupted"]:
        parts.append("interrupted")
    return ", ".join(parts)


# -- HTML -----------------------------------------------------------------------------------


def _e(text: object) -> str:
    return html.escape(str(text), quote=True)


# Applied where a browser allows it (Jenkins' default policy does not): layout and colour only,
# nothing hidden or added, so the page says the same with it or without it.
_STYLE = """\
body { font-family: system-ui, sans-serif; margin: 1.5em; line-height: 1.4; }
table { border-collapse: collapse; }
th, td { padding: 0.2em 0.6em; text-align: left; vertical-align: top; }
pre { background: #f6f8fa; padding: 0.6em; white-space: pre-wrap; overflow-wrap: anywhere; }
.PASS { color: #1a7f37; } .FAIL, .ERROR { color: #cf222e; } .SKIP { color: #9a6700; }
summary { cursor: pointer; }
"""


def _figures(entry: Entry) -> str:
    """A request's status, time, size and assertions, in words."""
    size = f" Size: {entry['size']} bytes." if entry["size"] is not None else ""
    return (
        f"Status: {_status(entry)}. Time: {_time(entry)}.{size} Assertions: {_assertions(entry)}."
    )


def write_html(head: Entry, entries: Iterable[Entry], out: TextIO) -> None:
    """The HTML report: a summary, a table of every request, then each request's details
    (``entries`` is read twice, one request at a time)."""
    name = _e(head["collection"])
    t = head["totals"]
    out.write(
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f"<title>Pigeon run: {name}</title>\n<style>\n{_STYLE}</style>\n</head>\n<body>\n"
        f"<h1>Pigeon run: {name}</h1>\n"
        f"<p>{_e(_totals_line(head))}. Exit code {t['exit_code']}.</p>\n"
        f"<p>Started {_e(head['started_at'])}, finished {_e(head['finished_at'])}.</p>\n"
        '<table border="1">\n<caption>Totals</caption>\n<tr>'
        + "".join(f'<th scope="col">{k}</th>' for k in ("Requests", "Passed", "Failed", "Skipped"))
        + "</tr>\n<tr>"
        + "".join(f"<td>{t[k]}</td>" for k in ("requests", "passed", "failed", "skipped"))
        + '</tr>\n</table>\n<h2>Requests</h2>\n<table border="1">\n<tr>'
        + "".join(
            f'<th scope="col">{k}</th>'
            for k in ("#", "Result", "Request", "Status", "Time", "Assertions")
        )
        + "</tr>\n"
    )
    for number, entry in enumerate(entries, 1):
        out.write(
            f'<tr><td>{number}</td><td><strong class="{verdict(entry)}">{verdict(entry)}'
            "</strong></td>"
            f'<td><a href="#r{number}">{_e(entry["method"])} {_e(entry["id"])}</a></td>'
            f"<td>{_e(_status(entry))}</td><td>{_time(entry)}</td>"
            f"<td>{_assertions(entry)}</td></tr>\n"
        )
    out.write("</table>\n<h2>Details</h2>\n")
    for number, entry in enumerate(entries, 1):
        out.write(_html_details(number, entry))
    out.write("</body>\n</html>\n")


def _html_details(number: int, entry: Entry) -> str:
    result = verdict(entry)
    parts = [
        f'<section id="r{number}">\n<h3>{number}. <span class="{result}">{result}</span>: '
        f"{_e(entry['name'] or entry['id'])} <code>{_e(entry['id'])}</code></h3>\n"
        f"<p>{_e(_figures(entry))}</p>\n"
    ]
    found = problems(entry)
    if found:
        parts.append("<ul>\n" + "".join(f"<li>{_e(p)}</li>\n" for p in found) + "</ul>\n")
    for tb in tracebacks(entry):
        parts.append(f"<pre>{_e(tb)}</pre>\n")
    parts.append("<details>\n<summary>Request and response</summary>\n")
    for title, text in exchange_blocks(entry):
        parts.append(f"<h4>{_e(title)}</h4>\n<pre>{_e(text)}</pre>\n")
    parts.append("</details>\n</section>\n")
    return "".join(parts)


# -- Markdown -------------------------------------------------------------------------------


def _cell(text: str) -> str:
    """Text for a Markdown table cell: one line, no column break, no markup of its own."""
    text = html.escape(" ".join(text.split()), quote=False)
    return re.sub(r"([|\\`*_\[\]])", r"\\\1", text)


def _fenced(text: str, cap: int) -> str:
    """A code block holding ``text`` (cut at ``cap`` characters): its fence is longer than
    any run of backticks inside, so nothing in it ends it early."""
    if len(text) > cap:
        text = text[:cap] + f"\n… cut ({len(text) - cap} more characters)"
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}text\n{text}\n{fence}"


def write_markdown(head: Entry, entries: Iterable[Entry], out: TextIO) -> None:
    """The Markdown report: the totals, a table of every request, each failure with its
    details folded, within ``MARKDOWN_CAP`` (a longer one ends saying what was left out)."""
    t = head["totals"]
    mark = "✅" if t["exit_code"] == 0 else "❌"
    text = [
        f"## {mark} Pigeon run: {_cell(head['collection'])}\n\n",
        f"{_cell(_totals_line(head))}. Exit code {t['exit_code']}.\n\n",
        "| Requests | Passed | Failed | Skipped | Assertion failures | Time |\n",
        "| ---: | ---: | ---: | ---: | ---: | ---: |\n",
        f"| {t['requests']} | {t['passed']} | {t['failed']} | {t['skipped']} "
        f"| {t['assertion_failures']} | {t['time_ms'] / 1000:.2f} s |\n\n",
        "| # | Result | Request | Status | Time | Assertions |\n",
        "| ---: | --- | --- | --- | ---: | --- |\n",
    ]
    written = sum(len(s.encode()) for s in text)
    out.writelines(text)
    left_out = 0
    for number, entry in enumerate(entries, 1):
        row = (
            f"| {number} | {verdict(entry)} | {_cell(entry['method'] + ' ' + entry['id'])} "
            f"| {_cell(_status(entry))} | {_time(entry)} | {_assertions(entry)} |\n"
        )
        if written + len(row.encode()) > MARKDOWN_CAP // 2:
            left_out += 1
        else:
            out.write(row)
            written += len(row.encode())
    if left_out:
        out.write(f"\n… {left_out} more requests not listed (see the JSON or HTML report).\n")
    failed = shown = 0
    for number, entry in enumerate(entries, 1):
        if verdict(entry) not in ("FAIL", "ERROR"):
            continue
        failed += 1
        block = _markdown_failure(number, entry) if shown == failed - 1 < MAX_LISTED else ""
        if block and written + len(block.encode()) <= MARKDOWN_CAP:
            out.write(("\n### Failures\n" if not shown else "") + block)
            written += len(block.encode())
            shown += 1
    if failed > shown:
        out.write(f"\n… {failed - shown} more failures not shown (see the JSON report).\n")
    others = folded = 0
    for number, entry in enumerate(entries, 1):
        if verdict(entry) in ("FAIL", "ERROR"):
            continue
        others += 1
        block = _markdown_other(number, entry) if folded == others - 1 < MAX_LISTED else ""
        if block and written + len(block.encode()) <= MARKDOWN_CAP:
            out.write(("\n### Other requests\n\n" if not folded else "") + block)
            written += len(block.encode())
            folded += 1
    if others > folded:
        out.write(f"\n… {others - folded} more requests not shown (see the HTML or JSON report).\n")


def _markdown_fold(summary: str, blocks: list[tuple[str, str]]) -> str:
    """A ``<details>`` block: ``summary`` (HTML text) over each titled block, fenced."""
    inner = "".join(
        f"**{_cell(title)}**\n\n{_fenced(text, FOLD_CAP)}\n\n" for title, text in blocks
    )
    return f"<details><summary>{summary}</summary>\n\n{inner}</details>\n"


def _markdown_other(number: int, entry: Entry) -> str:
    """A request that did not fail: one fold, its figures in the summary line."""
    line = f"{number}. {verdict(entry)}: {entry['method']} {entry['id']}: {_figures(entry)}"
    return _markdown_fold(html.escape(" ".join(line.split())), exchange_blocks(entry))


def _markdown_failure(number: int, entry: Entry) -> str:
    name = _cell(entry["name"] or entry["id"])
    lines = [f"\n#### {number}. {verdict(entry)}: {name} ({_cell(entry['id'])})\n\n"]
    lines += [f"- {_cell(p)}\n" for p in problems(entry)]
    lines.append(f"- {_cell(_figures(entry))}\n")
    blocks = exchange_blocks(entry)
    tbs = tracebacks(entry)
    if tbs:
        blocks.append(("Traceback", "\n\n".join(tbs)))
    lines.append("\n" + _markdown_fold("Request and response", blocks))
    return "".join(lines)


# -- TAP ------------------------------------------------------------------------------------


def _description(text: str) -> str:
    r"""A test point's description: one line, ``\`` and ``#`` escaped as TAP 14 asks."""
    return " ".join(text.replace("\\", "\\\\").replace("#", "\\#").split())


def write_tap(head: Entry, entries: Iterable[Entry], out: TextIO) -> None:
    """TAP version 14: the plan first (the count is known from the totals), then one test
    point per request; a failure has a YAML diagnostic block, a skipped one ``# SKIP``."""
    total = head["totals"]["requests"]
    out.write(f"TAP version 14\n1..{total}\n")
    for number, entry in enumerate(entries, 1):
        result = verdict(entry)
        line = f"{'ok' if result in ('PASS', 'SKIP') else 'not ok'} {number} - "
        line += _description(f"{entry['method']} {entry['id']}")
        if result == "SKIP":
            line += " # SKIP post-response scripts not run (--no-scripts)"
        out.write(line + "\n")
        if result in ("FAIL", "ERROR"):
            out.write(_yaml_block(entry, result))
    if head["totals"]["interrupted"]:
        out.write("# interrupted\n")


def _yaml_block(entry: Entry, result: str) -> str:
    found = problems(entry)
    data: dict[str, Any] = {
        "message": found[0] if found else result.lower(),
        "severity": "fail" if result == "FAIL" else "error",
        "request": f"{entry['method']} {entry['url']}",
        "status": entry["status"],
        "time_ms": entry["time_ms"],
    }
    if len(found) > 1:
        data["problems"] = found
    tbs = tracebacks(entry)
    if tbs:
        data["traceback"] = "\n\n".join(tbs)
    if entry["log"]:
        data["log"] = entry["log"]
    text = yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=1000)
    body = "".join(f"  {line}\n" for line in text.splitlines())
    return f"  ---\n{body}  ...\n"
