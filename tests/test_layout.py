"""The core (everything in ``pigeon`` outside ``pigeon.tui``) never imports Textual.

The one door to the UI is ``pigeon.cli`` (``cli/__init__.py``), which imports the app inside the
function that starts it, so ``pigeon run`` and ``pigeon render`` never load it."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pigeon

PACKAGE = Path(pigeon.__file__).parent


def core_modules() -> list[Path]:
    return sorted(p for p in PACKAGE.rglob("*.py") if "tui" not in p.relative_to(PACKAGE).parts)


def imported_names(path: Path) -> set[str]:
    """Every module ``path`` imports; in pigeon.cli, the app launcher's own import is left out."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    launchers = {"cmd_app"} if path == PACKAGE / "cli" / "__init__.py" else set()
    skip = {
        id(inner)
        for fn in ast.walk(tree)
        if isinstance(fn, ast.FunctionDef) and fn.name in launchers
        for inner in ast.walk(fn)
    }
    names: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module)
    return names


def test_no_core_module_imports_textual_or_the_ui() -> None:
    modules = core_modules()
    assert len(modules) > 15  # the walk found the core
    offenders = {
        str(path.relative_to(PACKAGE)): sorted(
            n
            for n in imported_names(path)
            if n.split(".")[0] == "textual" or n.startswith("pigeon.tui")
        )
        for path in modules
    }
    assert {k: v for k, v in offenders.items() if v} == {}


def test_the_headless_commands_load_without_textual(tmp_path: Path) -> None:
    """Import every core module, as `pigeon run` / `render` / `import` would, and look."""
    names = [
        "pigeon." + ".".join(p.relative_to(PACKAGE).with_suffix("").parts)
        for p in core_modules()
        if p.name not in ("__main__.py",)
    ]
    names = [n.removesuffix(".__init__") for n in names]
    code = (
        "import importlib, sys\n"
        f"for name in {names!r}:\n"
        "    importlib.import_module(name)\n"
        "print(sorted(m for m in sys.modules if m == 'textual' or m.startswith(('textual.', 'pigeon.tui'))))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    ).stdout
    assert out.strip() == "[]"
