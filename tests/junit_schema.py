"""The JUnit XML schema CI systems read reports with: Jenkins' ``junit-10.xsd`` (MIT, its
header kept in ``tests/data/junit-10.xsd``), as the xunit plugin and pytest's own tests use it.
A report that validates here reads in Jenkins, GitLab and the other JUnit consumers."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import xmlschema

XSD = Path(__file__).parent / "data" / "junit-10.xsd"


@cache
def _schema() -> xmlschema.XMLSchema:
    return xmlschema.XMLSchema(XSD)


def junit_problems(source: Path | str) -> list[str]:
    """What in a JUnit document (a path, or the XML text) the schema refuses: none when valid."""
    doc = str(source) if isinstance(source, Path) else source
    return [f"{error.path}: {error.reason}" for error in _schema().iter_errors(doc)]
