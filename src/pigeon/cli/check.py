"""`pigeon check` (DESIGN §6): the collection checked against its environments, nothing sent.

Exit 0 when nothing is found (``info`` findings are shown and do not count), 1 for errors or
warnings, 2 when a file does not load. Text is one finding a line,
``path:line:column: severity [rule] message``; ``--format json`` is for tools.
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path
from typing import Any

from pigeon.check import ERROR, INFO, RULES, WARNING, Finding, Report, check
from pigeon.cli.collection import load
from pigeon.errors import EXIT_FAILED, EXIT_OK, EXIT_USAGE, UsageError
from pigeon.rows import read_rows
from pigeon.scopes import UnknownEnvironment
from pigeon.terminal import printable


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
    else:
        for finding in report.findings:
            print(_text(finding, collection.root, args.collection))
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
