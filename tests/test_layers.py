"""The package's layers, as DESIGN §1 draws them: files → model → scopes → render → send →
exchange → UI/CLI. Every import, deferred and ``TYPE_CHECKING`` ones included, goes down (or
sideways within a layer), and no set of modules imports each other in a circle.

``docs/architecture.md`` names the same layers; a module that fits none of them fails here
until it is placed.
"""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

import pigeon

PACKAGE = Path(pigeon.__file__).parent

# Highest first. A module belongs to the first layer one of whose prefixes names it or its
# package.
LAYERS: list[tuple[str, tuple[str, ...]]] = [
    ("entry points", ("pigeon.__main__", "pigeon.cli", "pigeon.mcp_server")),
    ("the app", ("pigeon.tui.app",)),
    ("screens", ("pigeon.tui.screens",)),
    ("panes and widgets", ("pigeon.tui.widgets",)),
    ("dialogs", ("pigeon.tui.dialogs",)),
    ("the app's services", ("pigeon.tui",)),
    (
        "commands",
        (
            "pigeon.run",
            "pigeon.reports",
            "pigeon.report_formats",
            "pigeon.report_merge",
            "pigeon.shards",
            "pigeon.check",
            "pigeon.importers",
            "pigeon.exporters",
            "pigeon.locust",
            "pigeon.mock",
        ),
    ),
    (
        "one request",
        (
            "pigeon.session",
            "pigeon.pipeline",
            "pigeon.trust",
            "pigeon.event_scripts",
            "pigeon.gql.introspect",
        ),
    ),
    (
        "services",
        (
            "pigeon.history",
            "pigeon.excerpts",
            "pigeon.scripts",
            "pigeon.send",
            "pigeon.send_thread",
            "pigeon.redirects",
            "pigeon.echo",
            "pigeon.oauth2",
            "pigeon.auth_flows",
            "pigeon.tls",
            "pigeon.proxies",
            "pigeon.cookies",
            "pigeon.watch",
            "pigeon.external_editor",
            "pigeon.websocket",
            "pigeon.websocket_exchange",
            "pigeon.rpc",
            "pigeon.profile",
        ),
    ),
    (
        "the exchange",
        ("pigeon.exchange", "pigeon.masking", "pigeon.stream", "pigeon.response_diff"),
    ),
    (
        "rendering",
        ("pigeon.render", "pigeon.expand", "pigeon.scopes", "pigeon.secrets", "pigeon.transport"),
    ),
    (
        "files",
        (
            "pigeon.store",
            "pigeon.config",
            "pigeon.tomltext",
            "pigeon.tomlwrite",
            "pigeon.files",
            "pigeon.file_body",
            "pigeon.rows",
            "pigeon.gql.cache",
        ),
    ),
    (
        "values",
        (
            "pigeon.model",
            "pigeon.auth_kinds",
            "pigeon.values",
            "pigeon.template",
            "pigeon.bodies",
            "pigeon.errors",
            "pigeon.terminal",
            "pigeon.gql",
        ),
    ),
    ("the package", ("pigeon",)),
]


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules() -> dict[str, Path]:
    return {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def imports_of(name: str, source: str, is_package: bool, known: set[str]) -> set[str]:
    """Pigeon modules that module ``name`` imports anywhere in ``source`` (deferred ones too)."""
    package = name if is_package else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join(parts + ([node.module] if node.module else []))
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)
    return {m for m in found if m in known and m != name}


@cache  # three checks walk the same graph: the package is parsed once a process
def graph() -> dict[str, set[str]]:
    mods = modules()
    known = set(mods)
    return {
        name: imports_of(name, path.read_text(encoding="utf-8"), path.name == "__init__.py", known)
        for name, path in mods.items()
    }


def layer_of(name: str) -> int:
    for rank, (_, prefixes) in enumerate(LAYERS):
        if any(name == p or name.startswith(p + ".") for p in prefixes):
            return rank
    raise LookupError(name)


def test_every_module_has_a_layer() -> None:
    unplaced = []
    for name in modules():
        try:
            layer_of(name)
        except LookupError:
            unplaced.append(name)
    assert unplaced == []


def test_imports_never_go_up_a_layer() -> None:
    upward = sorted(
        f"{a} ({LAYERS[layer_of(a)][0]}) imports {b} ({LAYERS[layer_of(b)][0]})"
        for a, deps in graph().items()
        for b in deps
        if layer_of(b) < layer_of(a)
    )
    assert upward == []


def cycles(g: dict[str, set[str]]) -> list[tuple[str, ...]]:
    """Every set of modules that import each other in a circle."""

    def reach(start: str) -> set[str]:
        seen: set[str] = set()
        todo = [start]
        while todo:
            for nxt in g.get(todo.pop(), ()):
                if nxt not in seen:
                    seen.add(nxt)
                    todo.append(nxt)
        return seen

    reachable = {name: reach(name) for name in g}
    return sorted(
        {
            tuple(sorted(m for m in g if m in reachable[a] and a in reachable[m]))
            for a in g
            if a in reachable[a]
        }
    )


def test_no_modules_import_each_other_in_a_circle() -> None:
    assert cycles(graph()) == []


def test_the_walk_sees_deferred_relative_and_package_imports() -> None:
    """The checks above can fail: the walk finds what a module imports, however it is written."""
    known = {"pigeon.store", "pigeon.store.read", "pigeon.model", "pigeon.tui.app", "pigeon.run"}
    source = (
        "from . import read\n"
        "from ..model import Request\n"
        "def later():\n"
        "    from pigeon.tui.app import PigeonApp\n"
        "    import pigeon.run\n"
    )
    found = imports_of("pigeon.store", source, True, known)
    assert found == {"pigeon.store.read", "pigeon.model", "pigeon.tui.app", "pigeon.run"}
    assert layer_of("pigeon.tui.app") < layer_of("pigeon.store")  # so this would be upward
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [("a", "b", "c")]


# How a request goes out is ``Session``'s alone: the app reaches it only through the session
# (``pigeon.session``), and the types its views need live in ``model``, ``exchange`` or there.
NOT_FOR_THE_APP = (
    "pigeon.render",
    "pigeon.pipeline",
    "pigeon.send",
    "pigeon.send_thread",
    "pigeon.scripts",
    "pigeon.trust",
    "pigeon.websocket",
    "pigeon.websocket_exchange",
    "pigeon.rpc.call",
    "pigeon.rpc.channels",
    "pigeon.rpc.descriptors",
    "pigeon.rpc.exchange",
)


def reaches_past_the_session(g: dict[str, set[str]]) -> list[str]:
    """Every import by the app (``pigeon.tui``) of a module of how a request goes out."""
    return sorted(
        f"{a} imports {b}"
        for a, deps in g.items()
        if a == "pigeon.tui" or a.startswith("pigeon.tui.")
        for b in deps
        if any(b == m or b.startswith(m + ".") for m in NOT_FOR_THE_APP)
    )


def test_the_app_goes_out_only_through_its_session() -> None:
    assert reaches_past_the_session(graph()) == []


def test_the_session_rule_sees_every_way_of_importing() -> None:
    """The rule can fail: a deferred or ``TYPE_CHECKING`` import of a submodule counts."""
    known = {"pigeon.tui.widgets.x", "pigeon.scripts", "pigeon.scripts.process", "pigeon.render"}
    source = (
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n"
        "    from pigeon.scripts.process import ScriptWorker\n"
        "def later():\n"
        "    from pigeon.render import render_request\n"
    )
    found = {"pigeon.tui.widgets.x": imports_of("pigeon.tui.widgets.x", source, False, known)}
    assert reaches_past_the_session(found) == [
        "pigeon.tui.widgets.x imports pigeon.render",
        "pigeon.tui.widgets.x imports pigeon.scripts.process",
    ]
