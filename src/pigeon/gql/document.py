"""A GraphQL query checked and completed against a schema (DESIGN §7, §9).

Pure functions over text and a ``GraphQLSchema``: the app calls them off its loop, debounced.
Every problem is one line that starts with ``line:column``; a query nested past the parser's
reach, or longer than ``MAX_TOKENS`` tokens, is one line too, never a traceback.
"""

from __future__ import annotations

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
    if re.search(r"\.\.\.\s*on\s+$", head):
        found = _types(schema)
    elif stack[-1] == "{":
        found = _at(head + f" {_CURSOR} " + _closers(stack), schema, field=True)
    elif stack[-1] == "(" and ":" not in re.split(r"[(,]", head)[-1]:
        found = _at(head + f" {_CURSOR}: null " + _closers(stack), schema, field=False)
    else:
        return None
    if not found:
        return None
    chosen = [c for c in found if c.name.startswith(partial) and c.name != partial][:limit]
    return Completion(partial, chosen) if chosen else None


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


def _at(document: str, schema: GraphQLSchema, *, field: bool) -> list[Candidate]:
    from graphql import GraphQLError, TypeInfo, TypeInfoVisitor, Visitor, parse, visit

    try:
        ast = parse(document, max_tokens=MAX_TOKENS)
    except (GraphQLError, RecursionError):
        return []
    info = TypeInfo(schema)
    found: list[Candidate] = []

    class Cursor(Visitor):
        def enter_field(self, node: Any, *_: Any) -> None:
            if field and node.name.value == _CURSOR:
                found.extend(_fields(info.get_parent_type()))

        def enter_argument(self, node: Any, _key: Any, siblings: Any, *_: Any) -> None:
            if field or node.name.value != _CURSOR:
                return
            owner = info.get_directive() or info.get_field_def()
            given = {a.name.value for a in siblings or ()}
            if owner is not None:
                found.extend(
                    Candidate(name, f": {arg.type}", f"{name}: ")
                    for name, arg in owner.args.items()
                    if name not in given
                )

    try:
        visit(ast, TypeInfoVisitor(info, Cursor()))
    except RecursionError:
        return []
    return found


def _fields(parent: Any) -> list[Candidate]:
    from graphql import is_interface_type, is_object_type

    out = []
    if is_object_type(parent) or is_interface_type(parent):
        for name, definition in parent.fields.items():
            args = ", ".join(f"{a}: {d.type}" for a, d in definition.args.items())
            detail = f"({args}): {definition.type}" if args else f": {definition.type}"
            out.append(Candidate(name, _clip(detail, 120), name))
    if parent is not None:
        out.append(Candidate("__typename", ": String!", "__typename"))
    return out


def _types(schema: GraphQLSchema) -> list[Candidate]:
    from graphql import is_composite_type

    return [
        Candidate(name, "type", name)
        for name, kind in sorted(schema.type_map.items())
        if is_composite_type(kind) and not name.startswith("__")
    ]
