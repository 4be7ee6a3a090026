"""A GraphQL query checked and completed against a schema (DESIGN §7, §9).

Pure functions over text and a ``GraphQLSchema``: the app calls them off its loop, debounced.
Every problem is one line that starts with ``line:column``; a query nested past the parser's
reach, or longer than ``MAX_TOKENS`` tokens, is one line too, never a traceback.
"""

from __future__ import annotations

import contextlib
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from graphql import GraphQLSchema

MAX_TOKENS = 50_000  # a query is a few hundred; a hostile file may hold millions
_CURSOR = "__pigeon_cursor"
_NAME_END = re.compile(r"[_A-Za-z][_0-9A-Za-z]*$")
_OPENERS = {"{": "}", "(": ")", "[": "]"}


def check(query: str, schema: GraphQLSchema | None) -> str | None:
    """Why ``query`` cannot be sent, as ``line:column message``, or ``None``: syntax always,
    the schema's rules (unknown fields, missing arguments, wrong types...) when there is one."""
    from graphql import GraphQLError, parse, validate

    try:
        document = parse(query, max_tokens=MAX_TOKENS)
    except GraphQLError as exc:
        return _one_line(exc)
    except RecursionError:
        return "1:1 the query nests too deeply to read"
    if schema is None:
        return None
    try:
        errors = validate(schema, document, max_errors=1)
    except (TypeError, RecursionError) as exc:  # a schema that is not valid itself
        return f"1:1 the schema cannot check queries: {_clip(str(exc))}"
    return _one_line(errors[0]) if errors else None


def _one_line(error: Any) -> str:
    message = _clip(error.message.removeprefix("Syntax Error: "))
    where = error.locations[0] if error.locations else None
    return f"{where.line}:{where.column} {message}" if where else f"1:1 {message}"


def _clip(text: str, limit: int = 300) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


@dataclass(frozen=True, slots=True)
class Candidate:
    """One completion: ``insert`` replaces the name being typed; ``detail`` says what it is."""

    name: str
    detail: str
    insert: str


@dataclass(frozen=True, slots=True)
class Completion:
    partial: str  # the name before the cursor that the candidates start with
    candidates: list[Candidate]


def complete(before: str, schema: GraphQLSchema, limit: int = 50) -> Completion | None:
    """The fields (in a selection set) or arguments (in a field's parentheses) valid at the
    end of ``before``, the query's text up to the cursor, or ``None`` when nothing fits.

    The text is made a whole document (the name being typed replaced by a stand-in field or
    argument, open brackets closed) and walked with graphql-core's ``TypeInfo``.
    """
    match = _NAME_END.search(before)
    partial = match.group() if match else ""
    head = before[: len(before) - len(partial)]
    if head.rstrip().endswith(("$", "@", ":", "=")) or head.endswith("."):
        return None  # a variable, a directive, a value, a default
    stack = open_brackets(head)
    if not stack:
        return None
    wanted = _Wanted(partial, limit)
    if re.search(r"\.\.\.\s*on\s+$", head):
        _types(schema, wanted)
    elif stack[-1] == "{":
        _at(head + f" {_CURSOR} " + _closers(stack), schema, wanted, field=True)
    elif stack[-1] == "(" and ":" not in re.split(r"[(,]", head)[-1]:
        _at(head + f" {_CURSOR}: null " + _closers(stack), schema, wanted, field=False)
    return Completion(partial, wanted.found) if wanted.found else None


class _Wanted:
    """The candidates kept: names that start with ``partial`` (not equal to it), at most
    ``limit``; a type of many thousand fields is filtered before any is described."""

    def __init__(self, partial: str, limit: int) -> None:
        self.partial, self.limit = partial, limit
        self.found: list[Candidate] = []

    def takes(self, name: str) -> bool:
        return (
            len(self.found) < self.limit and name.startswith(self.partial) and name != self.partial
        )


def open_brackets(text: str) -> list[str] | None:
    """The brackets still open at the end of ``text``; ``None`` inside a string or a comment
    (nothing to complete there)."""
    stack: list[str] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch == "#":
            end = text.find("\n", i)
            if end < 0:
                return None
            i = end
        elif text.startswith('"""', i):
            end = text.find('"""', i + 3)
            if end < 0:
                return None
            i = end + 2
        elif ch == '"':
            j = i + 1
            while j < n and text[j] not in '"\n':
                j += 2 if text[j] == "\\" else 1
            if j >= n or text[j] == "\n":
                return None
            i = j
        elif ch in _OPENERS:
            stack.append(ch)
        elif ch in "})]":
            if not stack or _OPENERS[stack[-1]] != ch:
                return []  # unbalanced: no guess
            stack.pop()
        i += 1
    return stack


def _closers(stack: list[str]) -> str:
    return " ".join(_OPENERS[ch] for ch in reversed(stack))


def _at(document: str, schema: GraphQLSchema, wanted: _Wanted, *, field: bool) -> None:
    from graphql import GraphQLError, TypeInfo, TypeInfoVisitor, Visitor, parse, visit

    try:
        ast = parse(document, max_tokens=MAX_TOKENS)
    except (GraphQLError, RecursionError):
        return
    info = TypeInfo(schema)

    class Cursor(Visitor):
        def enter_field(self, node: Any, *_: Any) -> None:
            if field and node.name.value == _CURSOR:
                _fields(info.get_parent_type(), wanted)

        def enter_argument(self, node: Any, _key: Any, siblings: Any, *_: Any) -> None:
            if field or node.name.value != _CURSOR:
                return
            owner = info.get_directive() or info.get_field_def()
            given = {a.name.value for a in siblings or ()}
            for name, arg in owner.args.items() if owner is not None else ():
                if name not in given and wanted.takes(name):
                    wanted.found.append(Candidate(name, f": {arg.type}", f"{name}: "))

    with contextlib.suppress(RecursionError):
        visit(ast, TypeInfoVisitor(info, Cursor()))


def _fields(parent: Any, wanted: _Wanted) -> None:
    from graphql import is_interface_type, is_object_type

    if is_object_type(parent) or is_interface_type(parent):
        for name, definition in parent.fields.items():
            if not wanted.takes(name):
                continue
            args = ", ".join(f"{a}: {d.type}" for a, d in list(definition.args.items())[:20])
            detail = f"({args}): {definition.type}" if args else f": {definition.type}"
            wanted.found.append(Candidate(name, _clip(detail, 120), name))
    if parent is not None and wanted.takes("__typename"):
        wanted.found.append(Candidate("__typename", ": String!", "__typename"))


def _types(schema: GraphQLSchema, wanted: _Wanted) -> None:
    from graphql import is_composite_type

    for name in sorted(n for n in schema.type_map if wanted.takes(n) and not n.startswith("__")):
        if is_composite_type(schema.type_map[name]) and wanted.takes(name):
            wanted.found.append(Candidate(name, "type", name))
