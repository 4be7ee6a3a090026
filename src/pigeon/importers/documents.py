"""Reading the JSON and YAML an import is given within bounds (DESIGN §6 import): a document
written to hurt never exhausts memory, time or the stack, and is refused in one line naming
the file (and the line, where there is one).

A document is at most ``DOCUMENT_LIMIT`` bytes; its objects and arrays nest at most
``MAX_NESTING`` levels; YAML aliases may add at most ``ALIAS_BUDGET`` nodes to what the text
itself holds. The aliases are counted on the composed node graph, before anything is built: a
"billion laughs" document of a few hundred bytes names each of its nodes once, and would
expand to billions once walked.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import IO, Any, NoReturn

import yaml

from pigeon.files import TooLarge, read_capped, size_text
from pigeon.importers.common import ImportFailed

DOCUMENT_LIMIT = 20_000_000
MAX_NESTING = 200  # deep enough for any real document, shallow enough for the stack
ALIAS_BUDGET = 100_000  # nodes aliases may add; a long scalar counts one per 64 characters

_Loader: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def read_document(path: Path) -> str:
    """The text of a source file, refused past ``DOCUMENT_LIMIT`` or when not a regular file."""
    try:
        data = read_capped(path, DOCUMENT_LIMIT)
    except TooLarge as exc:
        raise ImportFailed(f"{exc}; not imported", path) from None
    except OSError as exc:
        raise ImportFailed(f"cannot read: {exc.strerror or exc}", path) from None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ImportFailed(f"not UTF-8 text ({exc.reason})", path) from None


def read_stream(stream: IO[str]) -> str:
    """Standard input as a source: at most ``DOCUMENT_LIMIT`` characters."""
    text = stream.read(DOCUMENT_LIMIT + 1)
    if len(text) > DOCUMENT_LIMIT:
        raise ImportFailed(
            f"standard input is over the {size_text(DOCUMENT_LIMIT)} limit; not imported"
        )
    return text


def _too_deep(path: Path | None, line: int | None = None, column: int | None = None) -> NoReturn:
    raise ImportFailed(
        f"objects and arrays nest more than {MAX_NESTING} levels deep",
        path,
        line,
        column,
    )


_JSON_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]')


def _json_depth_at(text: str) -> tuple[int, int] | tuple[None, None]:
    """Line and column where brackets first open deeper than ``MAX_NESTING`` (strings skipped)."""
    depth = 0
    for m in _JSON_TOKEN.finditer(text):
        token = m.group()
        if token in "[{":
            depth += 1
            if depth > MAX_NESTING:
                line = text.count("\n", 0, m.start()) + 1
                return line, m.start() - text.rfind("\n", 0, m.start())
        elif token in "]}":
            depth -= 1
    return None, None


def _nesting(value: Any) -> int:
    """How deep objects and arrays nest in ``value`` (walked without recursion)."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            item = item.values()
        elif not isinstance(item, list):
            continue
        deepest = max(deepest, depth)
        if depth <= MAX_NESTING:
            stack.extend((child, depth + 1) for child in item)
    return deepest


def load_json(text: str, path: Path | None = None) -> Any:
    """``text`` as JSON; ``ImportFailed`` (file, line, column) when it is not JSON or nests
    past ``MAX_NESTING``."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ImportFailed(f"not JSON: {exc.msg}", path, exc.lineno, exc.colno) from None
    except RecursionError:
        _too_deep(path, *_json_depth_at(text))
    except ValueError as exc:  # a number of more digits than Python converts
        raise ImportFailed(f"not JSON: {exc}", path) from None
    if _nesting(data) > MAX_NESTING:
        _too_deep(path, *_json_depth_at(text))
    return data


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    return []


def _weight(node: yaml.Node) -> int:
    return 1 + len(node.value) // 64 if isinstance(node, yaml.ScalarNode) else 1


def _check_graph(root: yaml.Node, path: Path | None) -> None:
    """Refuse a composed document whose aliases would add more than ``ALIAS_BUDGET`` nodes, that
    holds itself, or that nests past ``MAX_NESTING``: one walk, each node once (sizes kept)."""
    size: dict[int, int] = {}
    height: dict[int, int] = {}
    open_: set[int] = set()  # the nodes on the path being walked: one met again is a loop
    added = 0
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    while stack:
        node, finished = stack.pop()
        key = id(node)
        if finished:
            kids = _children(node)
            size[key] = _weight(node) + sum(size[id(k)] for k in kids)
            own = 0 if isinstance(node, yaml.ScalarNode) else 1
            height[key] = own + max((height[id(k)] for k in kids), default=0)
            open_.discard(key)
            continue
        if key in size:  # an alias: everything under it is built again where it is used
            added += size[key]
            if added > ALIAS_BUDGET:
                mark = node.start_mark
                raise ImportFailed(
                    f"YAML aliases expand past {ALIAS_BUDGET:,} nodes",
                    path,
                    mark.line + 1,
                    mark.column + 1,
                )
            continue
        if key in open_:
            mark = node.start_mark
            raise ImportFailed(
                "a YAML alias refers to a node holding it",
                path,
                mark.line + 1,
                mark.column + 1,
            )
        open_.add(key)
        stack.append((node, True))
        stack.extend((kid, False) for kid in reversed(_children(node)))
    if height[id(root)] > MAX_NESTING:
        node = root
        for _ in range(MAX_NESTING):
            node = max(_children(node), key=lambda k: height[id(k)])
        _too_deep(path, node.start_mark.line + 1, node.start_mark.column + 1)


def load_yaml(text: str, path: Path | None = None) -> Any:
    """``text`` as YAML (safe types only); ``ImportFailed`` (file, line) when it is not YAML,
    its aliases expand past ``ALIAS_BUDGET`` or it nests past ``MAX_NESTING``."""
    loader = _Loader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        _check_graph(node, path)
        return loader.construct_document(node)
    except ImportFailed:
        raise
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 1 if mark is not None else None
        column = mark.column + 1 if mark is not None else None
        raise ImportFailed(
            f"not YAML: {getattr(exc, 'problem', None) or exc}", path, line, column
        ) from None
    except RecursionError:
        _too_deep(path)
    except ValueError as exc:  # a number of more digits than Python converts
        raise ImportFailed(f"not YAML: {exc}", path) from None
    finally:
        loader.dispose()
