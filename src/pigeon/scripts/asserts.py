"""Assertions that explain themselves (DESIGN §8): a failing ``assert`` in a script says what
its values were, as pytest does: ``assert pigeon.response.status == 200`` fails with
``assert 401 == 200 (pigeon.response.status == 200)``; with a message of its own,
``wanted 200 (assert 401 == 200)``.

The script's syntax tree is rewritten before it is compiled: a comparison keeps each side's
value as it is evaluated (same order, evaluated once), anything else keeps the value of the
whole test, and only a failure formats them. Nothing else in the script changes, and its
line numbers stay those the user wrote.
"""

from __future__ import annotations

import ast
import reprlib
from typing import Any

EXPLAIN = "__pigeon_explain__"  # the name the rewritten asserts call, put in the namespace

_OPS: dict[type[ast.cmpop], str] = {
    ast.Eq: "==",
    ast.NotEq: "!=",
    ast.Lt: "<",
    ast.LtE: "<=",
    ast.Gt: ">",
    ast.GtE: ">=",
    ast.Is: "is",
    ast.IsNot: "is not",
    ast.In: "in",
    ast.NotIn: "not in",
}

# A value from a response may be megabytes: show its start, never build its whole repr.
_REPR = reprlib.Repr()
_REPR.maxstring = 80
_REPR.maxother = 80
_REPR.maxlist = _REPR.maxtuple = _REPR.maxset = _REPR.maxdict = 8
_REPR.maxlevel = 3


def explain(op: str | None, left: Any, right: Any, source: str, message: Any = None) -> str:
    """The message of a failed assert: its values, its source, and the user's own message."""
    if op is None:
        shown = f"assert {_REPR.repr(left)}"
    else:
        shown = f"assert {_REPR.repr(left)} {op} {_REPR.repr(right)}"
    if message is not None:
        return f"{message} ({shown})"
    if source and source != shown.removeprefix("assert "):
        shown += f" ({source})"
    return shown


class _Rewriter(ast.NodeTransformer):
    def __init__(self, code: str) -> None:
        self.code = code
        self.count = 0

    def visit_Assert(self, node: ast.Assert) -> ast.stmt:
        if isinstance(node.test, ast.Constant):
            return node  # `assert False, "why"`: its message says it all
        self.count += 1
        n = self.count
        source = ast.get_source_segment(self.code, node.test) or ""
        source = " ".join(source.split())  # one line, however it was written
        msg = node.msg if node.msg is not None else ast.Constant(None)
        test = node.test
        if isinstance(test, ast.Compare) and len(test.ops) == 1 and type(test.ops[0]) in _OPS:
            left = ast.Name(f"__pigeon_left_{n}", ast.Store())
            right = ast.Name(f"__pigeon_right_{n}", ast.Store())
            checked: ast.expr = ast.Compare(
                ast.NamedExpr(left, test.left),
                test.ops,
                [ast.NamedExpr(right, test.comparators[0])],
            )
            args = [
                ast.Constant(_OPS[type(test.ops[0])]),
                ast.Name(left.id, ast.Load()),
                ast.Name(right.id, ast.Load()),
            ]
        else:
            value = ast.Name(f"__pigeon_value_{n}", ast.Store())
            checked = ast.NamedExpr(value, test)
            args = [ast.Constant(None), ast.Name(value.id, ast.Load()), ast.Constant(None)]
        failure = ast.Raise(
            exc=ast.Call(
                ast.Name("AssertionError", ast.Load()),
                [ast.Call(ast.Name(EXPLAIN, ast.Load()), [*args, ast.Constant(source), msg], [])],
                [],
            ),
            cause=None,
        )
        rewritten = ast.If(ast.UnaryOp(ast.Not(), checked), [failure], [])
        for child in ast.walk(rewritten):
            ast.copy_location(child, node)
        return rewritten


def rewrite(code: str, filename: str) -> ast.Module:
    """The script's tree with its asserts rewritten (``SyntaxError`` as ``compile`` gives)."""
    tree = ast.parse(code, filename, "exec")
    _Rewriter(code).visit(tree)
    return ast.fix_missing_locations(tree)
