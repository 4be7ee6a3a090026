"""JSON filters on a response body: jq, JMESPath or JSONPath (DESIGN §9).

The language is named by a prefix (``jq:``, ``jmespath:``, ``jsonpath:``) or else chosen by
the expression's first character: ``.`` is jq, ``$`` is JSONPath, anything else JMESPath (no
JMESPath expression starts with either). jq runs in a child process over the body's text
(``bodies/jq_filter.py``); the other two work on parsed values here.

The Python libraries are imported on first use, not at start-up: most sessions never filter.
Their errors (several unrelated types, messages spread over lines with a caret) become one
``FilterError`` whose text fits one line.
"""

from __future__ import annotations

from typing import Any, Literal

from pigeon.errors import FilterError

__all__ = ["FilterError", "apply_filter", "filter_language", "split_language"]


Language = Literal["jq", "jsonpath", "jmespath"]
LANGUAGES: tuple[Language, ...] = ("jq", "jmespath", "jsonpath")


def split_language(expression: str) -> tuple[Language, str]:
    """The language an expression is written in, and the expression without its prefix."""
    text = expression.strip()
    for language in LANGUAGES:
        if text.startswith(language + ":"):
            return language, text[len(language) + 1 :].strip()
    if text.startswith("."):
        return "jq", text
    if text.startswith("$"):
        return "jsonpath", text
    return "jmespath", text


def filter_language(expression: str) -> Language:
    return split_language(expression)[0]


def apply_filter(obj: Any, expression: str) -> Any:
    """Evaluate a filter (see the module's rule) against ``obj`` (plain JSON values).
    JSONPath yields the list of matched values; jq the list of its results."""
    language, expression = split_language(expression)
    if not expression:
        raise FilterError("empty expression")
    if language == "jq":
        import json

        from pigeon.bodies.jq_filter import run_jq

        text = run_jq(expression, json.dumps(obj, ensure_ascii=False)).text
        return _jq_values(text)
    if language == "jsonpath":
        try:
            from jsonpath_ng.ext.parser import parse as jsonpath_parse
        except ImportError:
            raise FilterError("JSONPath needs the jsonpath-ng package") from None

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
        parsed = jmespath.compile(expression)
    except JMESPathError as exc:
        raise FilterError(f"JMESPath: {_jmespath_problem(exc, expression)}") from None
    try:
        return parsed.search(obj)
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


def _jq_values(text: str) -> list[Any]:
    """jq's results, written one after another, as values."""
    import json

    decoder = json.JSONDecoder()
    values, at = [], 0
    while at < len(text):
        value, at = decoder.raw_decode(text, at)
        values.append(value)
        while at < len(text) and text[at].isspace():
            at += 1
    return values
