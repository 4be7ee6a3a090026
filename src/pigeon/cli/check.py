"""`pigeon check` (DESIGN §6): the collection checked against its environments, nothing sent.

Exit 0 when nothing is found (``info`` findings are shown and do not count), 1 for errors or
warnings, 2 when a file does not load. Text is one finding a line,
``path:line:column: severity [rule] message``; ``--format json`` is for tools, ``github`` for
GitHub Actions (workflow annotations on the files, DESIGN §12) and ``junit`` for CI test tabs
(one test case per rule).
"""

from __future__ import annotations

import argparse
import json
import os
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

from pigeon.check import ERROR, INFO, RULES, WARNING, Finding, Report, check
from pigeon.cli.collection import load
from pigeon.errors import EXIT_FAILED, EXIT_OK, EXIT_USAGE, UsageError
from pigeon.reports import xml_text
from pigeon.rows import read_rows
from pigeon.scopes import UnknownEnvironment
from pigeon.terminal import printable, printable_lines


def _shown(path: Path, root: Path, given: str) -> str:
    """A finding's file as the user named the collection (``DIR/users/x.toml``)."""
    try:
        return os.path.join(given, path.relative_to(root).as_posix())
    except ValueError:
        return str(path)


def _text(f: Finding, root: Path, given: str) -> str:
    where = f"{_shown(f.path, root, given)}:{f.line}:{f.column}"
    envs = f" [env: {', '.join(f.environments)}]" if f.environments else ""
    return printable(f"{where}: {f.severity} [{f.rule}] {f.message}{envs}")


def _json(report: Report, root: Path, given: str) -> str:
    return json.dumps(
        {
            "environments": report.environments,
            "findings": [
                {
                    "path": _shown(f.path, root, given),
                    "line": f.line,
                    "column": f.column,
                    "rule": f.rule,
                    "severity": f.severity,
                    "message": f.message,
                    "environments": list(f.environments),
                }
                for f in report.findings
            ],
            "counts": {s: report.count(s) for s in (ERROR, WARNING, INFO)},
            "broken": report.broken,
        },
        indent=2,
        ensure_ascii=False,
    )


_COMMAND = {ERROR: "error", WARNING: "warning", INFO: "notice"}


def _data(text: str) -> str:
    """A workflow command's message, as GitHub's toolkit escapes it."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _property(text: str) -> str:
    """A workflow command's property value: its message escapes, and ``:`` and ``,``."""
    return _data(text).replace(":", "%3A").replace(",", "%2C")


def _github(f: Finding, root: Path, given: str) -> str:
    """One workflow annotation: GitHub marks the finding on the file's line in the diff."""
    envs = f" [env: {', '.join(f.environments)}]" if f.environments else ""
    props = ",".join(
        f"{k}={_property(v)}"
        for k, v in (
            ("file", printable(_shown(f.path, root, given))),
            ("line", str(f.line)),
            ("col", str(f.column)),
            ("title", f"pigeon check: {f.rule}"),
        )
    )
    return f"::{_COMMAND[f.severity]} {props}::{_data(printable_lines(f.message + envs))}"


def _junit(report: Report, root: Path, given: str) -> str:
    """One test case per rule: a rule with errors or warnings fails (a file that does not load
    is an error), one with only info findings passes with them in its output."""
    cases = []
    for rule, (severity, about) in RULES.items():
        found = [f for f in report.findings if f.rule == rule]
        case = ET.Element("testcase", classname="pigeon check", name=f"{rule}: {about}", time="0")
        lines = "\n".join(_text(f, root, given) for f in found)
        if found and severity != INFO:
            kind = "error" if rule == "broken-file" else "failure"
            el = ET.SubElement(case, kind, message=f"{len(found)} finding(s)", type=rule)
            el.text = xml_text(lines)
        elif found:
            ET.SubElement(case, "system-out").text = xml_text(lines)
        cases.append(case)
    failures = sum(1 for c in cases if c.find("failure") is not None)
    errors = sum(1 for c in cases if c.find("error") is not None)
    counts = {"tests": str(len(cases)), "failures": str(failures), "errors": str(errors)}
    root_el = ET.Element("testsuites", {"name": "pigeon check", **counts, "time": "0"})
    suite = ET.SubElement(
        root_el, "testsuite", {"name": xml_text(given), **counts, "skipped": "0", "time": "0"}
    )
    suite.extend(cases)
    ET.indent(root_el)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root_el, encoding="unicode")


def _columns(data: str) -> dict[str, Any]:
    """The columns of a data file (``--data``), each with its first row's value: what a run
    with that file defines."""
    columns: dict[str, Any] = {}
    for row in read_rows(Path(data)):
        for name, value in row.items():
            columns.setdefault(name, value)
    return columns


def cli_check(args: argparse.Namespace) -> int:
    root = Path(args.collection)
    collection = load(root, warnings=False)  # an unknown key is a finding here
    if args.all_envs:
        envs: list[str | None] = list(collection.environments) or [None]
    elif args.env is not None:
        if args.env not in collection.environments:
            raise UsageError(str(UnknownEnvironment(args.env, sorted(collection.environments))))
        envs = [args.env]
    else:
        envs = [collection.default_environment]
    report = check(collection, envs, _columns(args.data) if args.data else None)
    if args.format == "json":
        print(_json(report, collection.root, args.collection))
    elif args.format == "junit":
        print(_junit(report, collection.root, args.collection))
    else:
        line = _github if args.format == "github" else _text
        for finding in report.findings:
            print(line(finding, collection.root, args.collection))
        counts = ", ".join(f"{report.count(s)} {s}" for s in (ERROR, WARNING, INFO))
        where = ", ".join(e or "(no environment)" for e in envs)
        print(f"{len(report.findings)} finding(s): {counts} (environments: {where})")
    if report.broken:
        return EXIT_USAGE
    if report.count(ERROR) or report.count(WARNING):
        return EXIT_FAILED
    return EXIT_OK


def rules_help() -> str:
    return "rules: " + "; ".join(f"{rule} ({sev})" for rule, (sev, _) in RULES.items())
