"""JSON filters on a response body: JMESPath, or JSONPath when the expression starts with ``$``.

Both libraries are imported on first use, not at start-up: most sessions never filter. Their
errors (several unrelated types, messages spread over lines with a caret) become one
``FilterError`` whose text fits one line.
"""

from __future__ import annotations

from typing import Any, Literal

from pigeon.errors import PigeonError


class FilterError(PigeonError, ValueError):
    """The filter expression is invalid or failed on this document; ``str()`` says why.

    Still a ``ValueError``, as it always was, for callers that catch that."""


def filter_language(expression: str) -> Literal["jsonpath", "jmespath"]:
    return "jsonpath" if expression.lstrip().startswith("$") else "jmespath"


def apply_filter(obj: Any, expression: str) -> Any:
    """Evaluate a JMESPath expression, or JSONPath when it starts with ``$``, against ``obj``
    (plain JSON values). JSONPath yields the list of matched values."""
    expression = expression.strip()
    if not expression:
        raise FilterError("empty expression")
    if filter_language(expression) == "jsonpath":
        try:
            from jsonpath_ng.ext import parse as jsonpath_parse
        except ImportError:
            raise FilterError(
                "JSONPath needs the jsonpath-ng package; JMESPath (no leading $) works as is"
            ) from None

        try:
            compiled = jsonpath_parse(expression)
        except Exception as exc:  # its lexer and parser raise several unrelated types
            raise FilterError(f"JSONPath: {_one_line(exc)}") from None
        try:
            return [match.value for match in compiled.find(obj)]
        except Exception as exc:
            raise FilterError(f"JSONPath: {_one_line(exc)}") from None

    import jmespath
    from jmespath.exceptions import JMESPathError

    try:
        compiled = jmespath.compile(expression)
    except JMESPathError as exc:
        raise FilterError(f"JMESPath: {_jmespath_problem(exc, expression)}") from None
    try:
        return compiled.search(obj)
    except JMESPathError as exc:
        raise FilterError(f"JMESPath: {_one_line(exc)}") from None
    except Exception as exc:  # a function applied to the wrong shape of data
        raise FilterError(f"JMESPath: {_one_line(exc)}") from None


def _jmespath_problem(exc: Exception, expression: str) -> str:
    """jmespath's messages span lines with a caret; say the same on one line."""
    from jmespath.exceptions import IncompleteExpressionError, LexerError, ParseError

    if isinstance(exc, IncompleteExpressionError):
        return f"incomplete expression (column {len(expression)})"
    if isinstance(exc, LexerError):
        return f"{exc.message} at column {exc.lexer_position}"
    if isinstance(exc, ParseError) and getattr(exc, "token_value", None) is not None:
        return f"unexpected {exc.token_value!r} at column {exc.lex_position}"
    return _one_line(exc)


def _one_line(exc: BaseException) -> str:
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    text = lines[0] if lines else type(exc).__name__
    # jmespath puts the expression and a caret on later lines; keep the useful first one.
    return text[:300]
