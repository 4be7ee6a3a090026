"""docs/architecture.md is the map of the code, and this keeps it true: every module it names
exists and cites its DESIGN section in its docstring, every test file it names exists, and no
module of the core is missing from it."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pigeon

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = Path(pigeon.__file__).parent
MAP = ROOT / "docs" / "architecture.md"

_CODE = re.compile(r"`([^`]+)`")
_SECTION = re.compile(r"§(\d+(?:\.\d+)?)")


def rows() -> list[tuple[str, list[str], list[str]]]:
    """(DESIGN cell, modules, test paths) for every table row of the map."""
    out = []
    for line in MAP.read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 3 or not line.startswith("|") or set(cells[0]) <= {"-"}:
            continue
        if cells[0] in ("DESIGN", "module"):
            continue
        modules = _CODE.findall(cells[1]) if cells[0].startswith("§") else _CODE.findall(cells[0])
        out.append((cells[0], modules, _CODE.findall(cells[2])))
    return out


def module_files(name: str) -> list[Path]:
    """The files a map entry names: a module, a package (``echo/``) or a glob (``bodies/*.py``)."""
    if name.endswith("/"):
        return sorted((PACKAGE / name).rglob("*.py"))
    return sorted(PACKAGE.glob(name))


def docstring(path: Path) -> str:
    return ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""


def test_the_map_has_rows() -> None:
    assert len(rows()) > 25


def test_every_module_on_the_map_exists_and_cites_its_section() -> None:
    problems = []
    for design, modules, _ in rows():
        sections = _SECTION.findall(design)
        for name in modules:
            files = module_files(name)
            if not files:
                problems.append(f"{name}: no such module")
                continue
            for path in files if sections else []:
                cited = _SECTION.findall(docstring(path))
                if not any(s in cited for s in sections):
                    problems.append(f"{name}: its docstring cites none of §{', §'.join(sections)}")
    assert problems == []


def test_every_test_file_on_the_map_exists() -> None:
    missing = [t for _, _, tests in rows() for t in tests if not (ROOT / t).exists()]
    assert missing == []


def test_every_core_module_is_on_the_map() -> None:
    named = {p for _, modules, _ in rows() for m in modules for p in module_files(m)}
    core = {
        p
        for p in PACKAGE.rglob("*.py")
        if "tui" not in p.relative_to(PACKAGE).parts
        and p.name not in ("__main__.py",)
        and p != PACKAGE / "__init__.py"
    }
    assert sorted(str(p.relative_to(PACKAGE)) for p in core - named) == []


def test_the_checks_read_what_they_should() -> None:
    """A section is read from a docstring as the map writes it."""
    assert _SECTION.findall("Placeholders (DESIGN §4.2, §4.3) and §5.") == ["4.2", "4.3", "5"]
    assert module_files("store/") and module_files("store/read.py") == [PACKAGE / "store/read.py"]


def test_a_core_module_over_600_lines_says_why_it_is_one_thing() -> None:
    """Small modules named for what they hold; a big one says in its docstring why it is one."""
    silent = [
        str(p.relative_to(PACKAGE))
        for p in PACKAGE.rglob("*.py")
        if "tui" not in p.relative_to(PACKAGE).parts
        and len(p.read_text(encoding="utf-8").splitlines()) > 600
        and "Why one module:" not in docstring(p)
    ]
    assert silent == []
