"""Run reports (DESIGN §6, §12): a JSON document and JUnit XML that CI systems read, and the
HTML, Markdown and TAP reports of ``pigeon.report_formats``, all from the same masked entries.
A report to a file is written atomically (a reader never sees half a report); ``-`` as its
path writes it to stdout.

JSON (``schema`` 1)::

    {"schema": 1, "collection": NAME, "started_at": ISO-8601 UTC, "finished_at": ISO-8601 UTC,
     "totals": {"requests", "passed", "failed", "skipped", "assertion_failures", "time_ms",
                "bailed", "interrupted", "exit_code"},
     "requests": [{"id": "users/create-user", "name", "method", "url" (as sent, or null when
                   it could not be built), "status" (or null when nothing came back),
                   "status_class" ("Successful", ...), "time_ms", "size" (bytes),
                   "passed", "skipped" (sent, its post-response scripts not run),
                   "scripts_skipped": [phases], "error" (could not be built or sent, or null),
                   "script_errors": [str], "assertion_failures": [str],
                   "unresolved": [names], "warnings": [str], "log": [script output lines],
                   "frames": {"sent", "received"} (a WebSocket's messages, or a gRPC call's
                   messages and replies, else null),
                   "exchange": the request as sent and the response, masked, bodies cut at
                   4 KB (``pigeon.excerpts``), or null when it was never built}]}

New keys may be added; existing ones keep their meaning.

JUnit mapping: one ``<testcase>`` per request (``classname`` is its folder's path, or the
collection name at the top level); a failed post-response assertion is a ``<failure>``;
a request that could not be built or sent, or a script error, is an ``<error>``;
unresolved placeholders under ``--strict`` are a ``<failure>``; a request whose post-response
scripts did not run (``--no-scripts``) is ``<skipped>``, never a pass. A 4xx or 5xx response is not
a failure by itself: assert on the status in a script to make it one. Script output goes to
``<system-out>``.
"""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TextIO

from pigeon.errors import UsageError
from pigeon.files import atomic_writer
from pigeon.masking import Masker
from pigeon.report_formats import write_html, write_markdown, write_tap

if TYPE_CHECKING:  # ElementTree is imported when a JUnit report is written
    import xml.etree.ElementTree as ET

    from pigeon.model import Collection
    from pigeon.pipeline import ResultRecord

KINDS = ("json", "junit", "html", "markdown", "tap")
# The reports that show each request's headers and bodies: a run keeps them (masked, on disk)
# only when one of these is asked for. The JSON report carries them so that a sharded run's
# merged HTML and Markdown reports have them too.
WITH_EXCHANGES = ("json", "html", "markdown")
STDOUT = Path("-")  # a report's path that means stdout
SKIPPED = "post-response scripts not run (--no-scripts): no assertion checked"


class ReportOptionError(UsageError, ValueError):
    """A ``--report`` that cannot be honoured: bad usage (exit 2), refused before anything is
    sent. Still a ``ValueError``, as these checks raised before the error tree."""


class Summary(Protocol):
    """What a report reads from a run: ``pigeon.run.RunSummary`` is one. Described here so
    that the reports need not import the runner."""

    collection: Collection
    results: list[ResultRecord]
    duration_ms: float
    bailed: bool
    interrupted: bool
    started_at: datetime  # when the run started (UTC)

    @property
    def passed(self) -> int: ...

    @property
    def failed(self) -> int: ...

    @property
    def skipped(self) -> int: ...

    @property
    def exit_code(self) -> int: ...


# Characters XML 1.0 cannot hold at all, even escaped: C0 controls other than tab, LF and CR,
# lone surrogates, U+FFFE and U+FFFF. Script output and response text can carry any of them.
_NOT_XML = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def xml_text(text: str) -> str:
    """Text a JUnit reader can parse: forbidden characters become ``\\xNN`` escapes.

    ElementTree writes them as they are, which makes the whole report unreadable; an
    escape keeps what the script printed visible without breaking the file.
    """
    return _NOT_XML.sub(_escape, text)


def _escape(m: re.Match[str]) -> str:
    code = ord(m.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def parse_report_specs(specs: list[str]) -> list[tuple[str, Path]]:
    """``KIND:PATH`` -> (kind, path), ``-`` as the path for stdout; a bad spec, or two reports
    to stdout (they would run into each other), raises ``ReportOptionError``."""
    out = []
    for spec in specs:
        kind, sep, path = spec.partition(":")
        if not sep or kind not in KINDS or not path:
            raise ReportOptionError(
                f"--report {spec!r}: expected KIND:PATH, KIND one of {', '.join(KINDS)} "
                "('-' as PATH is stdout)"
            )
        out.append((kind, Path(path)))
    if sum(path == STDOUT for _, path in out) > 1:
        raise ReportOptionError("--report: only one report can go to stdout ('-')")
    return out


def shows_exchanges(specs: list[tuple[str, Path]]) -> bool:
    """Whether a report asked for shows each request's headers and bodies."""
    return any(kind in WITH_EXCHANGES for kind, _ in specs)


def to_stdout(specs: list[tuple[str, Path]]) -> bool:
    """Whether a report goes to stdout: the command's own lines then go to stderr."""
    return any(path == STDOUT for _, path in specs)


def check_report_paths(specs: list[tuple[str, Path]]) -> None:
    """Fail before anything is sent when a report could not be written afterwards.

    Creates missing parent directories; raises ``ReportOptionError`` naming the path otherwise.
    """
    for kind, path in specs:
        if path == STDOUT:
            continue
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise ReportOptionError(
                f"--report {kind}:{path}: cannot create {path.parent}: {exc.strerror or exc}"
            ) from exc
        if path.is_dir():
            raise ReportOptionError(f"--report {kind}:{path}: is a directory")
        if not os.access(path.parent, os.W_OK):
            raise ReportOptionError(f"--report {kind}:{path}: {path.parent} is not writable")


def write_reports(summary: Summary, specs: list[tuple[str, Path]]) -> None:
    for kind, path in specs:
        if path != STDOUT:
            path.parent.mkdir(parents=True, exist_ok=True)
        if kind == "json":
            write_json_report(summary, path)
        elif kind == "junit":
            write_junit_report(summary, path)
        else:
            with _output(path) as fh:
                _FORMATS[kind](_json_head(summary), _Entries(summary), fh)


@contextmanager
def _output(path: Path) -> Iterator[TextIO]:
    """Where a report goes: stdout for ``-`` (flushed at the end), else the file, atomically."""
    if path == STDOUT:
        yield sys.stdout
        sys.stdout.flush()
        return
    with atomic_writer(path) as fh:
        yield fh


class _Entries:
    """The JSON report's request entries, masked, made afresh on each pass: a writer that reads
    them twice never holds them all."""

    def __init__(self, summary: Summary) -> None:
        self.summary = summary

    def __iter__(self) -> Iterator[dict[str, Any]]:
        mask = _masker(self.summary)
        return (_result_json(r, mask) for r in self.summary.results)


_FORMATS = {"html": write_html, "markdown": write_markdown, "tap": write_tap}


def _masker(summary: Summary) -> Masker:
    """Reports are CI artifacts, often public: secret-looking query parameters, URL
    passwords and the collection's ``.env`` values are masked as in the send history."""
    return Masker(summary.collection.dotenv.values())


def _result_json(r: ResultRecord, mask: Masker) -> dict[str, Any]:
    sent = r.status is not None
    return {
        "id": r.id,
        "name": r.name,
        "method": r.method,
        "url": mask.url(r.url) if r.url is not None else None,
        "status": r.status,
        "status_class": r.status_class if sent else None,
        "time_ms": round(r.elapsed_ms, 3) if r.elapsed_ms is not None else None,
        "size": r.size,
        "passed": r.passed,
        "skipped": r.skipped,
        "scripts_skipped": list(r.scripts_skipped),
        "error": mask.text(r.error) if r.error else None,
        "script_errors": [mask.text(e.summary()) for e in r.script_errors],
        "assertion_failures": [mask.text(a.summary()) for a in r.assertion_failures],
        "unresolved": list(r.unresolved),
        "warnings": [mask.text(w) for w in r.warnings],
        "log": [mask.text(line) for line in r.log],
        "frames": dict(zip(("sent", "received"), r.frames, strict=True)) if r.frames else None,
        "exchange": r.excerpt.read() if r.excerpt is not None else None,
        # What `pigeon report merge` needs to rebuild this result, the JUnit report included.
        "seq": r.seq,
        "folder": r.folder,
        "reason": r.reason,
        "error_kind": r.error_kind,
        "strict_failure": r.strict_failure,
        "duration_ms": round(r.duration_ms, 3),
        "script_error_details": [
            {"type": e.type, "traceback": mask.text(e.traceback)} for e in r.script_errors
        ],
        "assertion_tracebacks": [mask.text(a.traceback) for a in r.assertion_failures],
    }


def json_report(summary: Summary) -> dict[str, Any]:
    """The JSON report as a dict (schema version 1)."""
    mask = _masker(summary)
    return {**_json_head(summary), "requests": [_result_json(r, mask) for r in summary.results]}


def _json_head(summary: Summary) -> dict[str, Any]:
    """The JSON report but its requests."""
    return {
        "schema": 1,
        "collection": summary.collection.name,
        "started_at": summary.started_at.isoformat(timespec="seconds"),
        "finished_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "totals": {
            "requests": len(summary.results),
            "passed": summary.passed,
            "failed": summary.failed,
            "skipped": summary.skipped,
            "assertion_failures": sum(len(r.assertion_failures) for r in summary.results),
            "time_ms": round(summary.duration_ms, 3),
            "bailed": summary.bailed,
            "interrupted": summary.interrupted,
            "exit_code": summary.exit_code,
        },
    }


def _json_text(value: Any, indent: str) -> str:
    """``value`` as indented JSON; all escaped when a lone surrogate from a script would not
    encode as UTF-8."""
    text = json.dumps(value, indent=2, ensure_ascii=False)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = json.dumps(value, indent=2)
    return text.replace("\n", "\n" + indent)


def write_json_report(summary: Summary, path: Path) -> None:
    """The JSON report, written one request at a time: a run of any length never holds the
    whole report in memory."""
    mask = _masker(summary)
    with _output(path) as fh:
        fh.write(_json_text(_json_head(summary), "")[:-2] + ',\n  "requests": [')
        for number, r in enumerate(summary.results):
            fh.write(("," if number else "") + "\n    " + _json_text(_result_json(r, mask), "    "))
        fh.write("\n  ]\n}\n" if summary.results else "]\n}\n")


def _counts(summary: Summary) -> dict[str, str]:
    """The attributes a JUnit suite counts its cases with."""
    results = summary.results
    failures = sum(
        1 for r in results if not r.error and not r.script_errors and not r.passed and not r.skipped
    )
    errors = sum(1 for r in results if r.error or r.script_errors)
    return {
        "tests": str(len(results)),
        "failures": str(failures),
        "errors": str(errors),
        "time": f"{summary.duration_ms / 1000:.3f}",
    }


def _testcase(r: ResultRecord, mask: Masker, suite_name: str) -> ET.Element:
    import xml.etree.ElementTree as ET

    case = ET.Element(
        "testcase",
        classname=r.folder or suite_name,
        name=r.name or r.id,
        time=f"{r.duration_ms / 1000:.3f}",
    )
    message = mask.text("; ".join(r.problems()))
    if r.error or r.script_errors:
        detail = "\n\n".join([*(e.traceback for e in r.script_errors)]) or message
        el = ET.SubElement(case, "error", message=message, type=_error_type(r))
        el.text = mask.text(detail)
    elif r.assertion_failures or r.strict_failure:
        kind = "AssertionError" if r.assertion_failures else "UnresolvedPlaceholders"
        el = ET.SubElement(case, "failure", message=message, type=kind)
        el.text = mask.text("\n\n".join(a.traceback for a in r.assertion_failures) or message)
    elif r.skipped:
        ET.SubElement(case, "skipped", message=SKIPPED)
    out = [mask.text(line) for line in r.log]
    if r.status is not None and r.url is not None:
        out.insert(0, f"{r.method} {mask.url(r.url)} -> {r.status} {r.reason}")
    if out:
        ET.SubElement(case, "system-out").text = "\n".join(out)
    for el in case.iter():
        if el.text:
            el.text = xml_text(el.text)
        for key, value in el.attrib.items():
            el.attrib[key] = xml_text(value)
    return case


def _suites(summary: Summary) -> tuple[ET.Element, ET.Element]:
    import xml.etree.ElementTree as ET

    counts = _counts(summary)
    root = ET.Element("testsuites", {"name": "pigeon run", **counts})
    suite = ET.SubElement(
        root,
        "testsuite",
        name=xml_text(summary.collection.name),
        tests=counts["tests"],
        failures=counts["failures"],
        errors=counts["errors"],
        skipped=str(summary.skipped),
        time=counts["time"],
        timestamp=summary.started_at.strftime("%Y-%m-%dT%H:%M:%S"),  # JUnit: the start
    )
    return root, suite


def junit_tree(summary: Summary) -> ET.Element:
    """JUnit XML in the widely read Surefire/Jenkins shape."""
    mask = _masker(summary)
    root, suite = _suites(summary)
    suite.extend(_testcase(r, mask, summary.collection.name) for r in summary.results)
    return root


def _error_type(r: ResultRecord) -> str:
    """What kind of error a JUnit reader shows: the script's exception class, the transport
    failure (``connect``, ``timeout``, ``tls``...), or a request that could not be built."""
    if r.script_errors:
        return r.script_errors[0].type
    if r.error_kind:
        return f"SendError.{r.error_kind}"
    return "RenderError"


def write_junit_report(summary: Summary, path: Path) -> None:
    """The JUnit report, written one test case at a time, as ``junit_tree`` lays it out."""
    import xml.etree.ElementTree as ET

    mask = _masker(summary)
    root, suite = _suites(summary)
    ET.indent(root)
    # The two opening tags as ElementTree writes them, then each case in its place.
    head, _, tail = ET.tostring(root, encoding="unicode").partition("<testsuite ")
    suite_tag = ET.tostring(suite, encoding="unicode").strip().removesuffix(" />")
    with _output(path) as fh:
        fh.write('<?xml version="1.0" encoding="UTF-8"?>\n' + head + suite_tag + ">\n")
        for r in summary.results:
            case = _testcase(r, mask, summary.collection.name)
            ET.indent(case, level=2)
            fh.write("    " + ET.tostring(case, encoding="unicode").rstrip() + "\n")
        fh.write("  </testsuite>\n</testsuites>\n")
