"""The error tree twice: as ``pigeon.errors``' docstring draws it, and as the classes make it
once every module of the package is imported (an error class defined in a module nobody has
imported yet is not among ``__subclasses__()``)."""

from __future__ import annotations

import importlib
import pkgutil
import re
from dataclasses import dataclass
from pathlib import Path

import pigeon
import pigeon.errors
from pigeon.errors import PigeonError

_ROW = re.compile(
    r"(?P<indent>(?:[│ ]   )*)(?P<branch>[├└]── )?(?P<name>\w+) +(?P<code>\d+)  (?P<what>.+)"
)
_MODULE = re.compile(r"\((pigeon(?:\.\w+)+)")
MESSAGE = "cannot go on\nForged: line"  # a newline that must not reach the terminal as one


@dataclass(frozen=True)
class Row:
    """One error: its name, its parent in the tree, its exit code and the module defining it."""

    name: str
    parent: str | None
    exit_code: int
    module: str


def drawn() -> list[Row]:
    """The rows of the drawing in ``pigeon.errors``' docstring, in its order."""
    doc = pigeon.errors.__doc__ or ""
    block = doc.split("```")[1].strip("\n")
    rows: list[Row] = []
    parents: list[str] = []  # the names on the path to the row being read
    modules = {"": "pigeon.errors"}  # a row naming no module: where its parent is defined
    for line in block.splitlines():
        match = _ROW.fullmatch(line)
        assert match, f"not a row of the tree: {line!r}"
        depth = len(match["indent"]) // 4 + (1 if match["branch"] else 0)
        del parents[depth:]
        module = _MODULE.search(match["what"])
        rows.append(
            Row(
                match["name"],
                parents[-1] if parents else None,
                int(match["code"]),
                module.group(1) if module else modules.get(parents[-1] if parents else "", ""),
            )
        )
        parents.append(match["name"])
        modules[match["name"]] = rows[-1].module
    return rows


def import_everything() -> None:
    """Import every module of the package (but ``__main__``, which runs the command line, and
    ``pigeon.locust``, which imports Locust: its gevent patches the standard library of the
    process importing it, so the tests run it in child processes only)."""
    for module in pkgutil.walk_packages(pigeon.__path__, "pigeon."):
        if not module.name.endswith("__main__") and module.name != "pigeon.locust":
            importlib.import_module(module.name)


def classes() -> list[type[PigeonError]]:
    """``PigeonError`` and every subclass the package defines, parents first."""
    import_everything()
    found: list[type[PigeonError]] = [PigeonError]
    for cls in found:
        for sub in cls.__subclasses__():
            if sub.__module__.startswith("pigeon.") and sub not in found:
                found.append(sub)
    return found


def walked() -> list[Row]:
    """The rows the classes themselves make; a class under two parents makes two rows."""
    return [
        Row(cls.__name__, base.__name__, cls.exit_code, cls.__module__)
        for cls in classes()[1:]
        for base in cls.__bases__
        if issubclass(base, PigeonError)
    ] + [Row("PigeonError", None, PigeonError.exit_code, "pigeon.errors")]


def example(cls: type[PigeonError]) -> PigeonError:
    """An instance of ``cls`` whose message holds ``MESSAGE``, built as its raisers build it."""
    from pigeon.errors import ConfigError, LoadError
    from pigeon.importers.common import ImportFailed
    from pigeon.scopes import UnknownEnvironment
    from pigeon.store.seen import ChangedOnDisk

    where = Path("c/r.toml")
    special = {
        LoadError: lambda: LoadError(where, 2, 5, MESSAGE),
        ConfigError: lambda: ConfigError(where, MESSAGE, 3),
        ImportFailed: lambda: ImportFailed(MESSAGE, where, 4),
        UnknownEnvironment: lambda: UnknownEnvironment(MESSAGE, ["local"]),
        ChangedOnDisk: lambda: ChangedOnDisk(Path("c/\nForged.toml")),
    }
    if cls in special:
        return special[cls]()
    # A class that takes other arguments than a message must be built above.
    assert cls.__init__ is PigeonError.__init__, f"{cls.__name__}: say how to build one"
    return cls(MESSAGE)
