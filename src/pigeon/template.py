"""Placeholder syntax (DESIGN §4.1): parse a template once, reuse the parsed form.

A template is a tuple of segments: literal strings and ``Placeholder`` objects. Text that looks
like a placeholder but is not a valid ``{{ expr }}`` stays literal and is never reported.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache

from pigeon.values import may_name_secret, secret_name

# A candidate: ``{{`` + inner text without braces (quoted literals may hold anything but their
# own quote) + ``}}``. The alternatives start with different characters and each takes all it
# can at once (a brace or quote ends a run of plain text), so matching is linear; splitting on
# the whole candidate gives literal text and candidates in turn.
_CANDIDATE = re.compile(r"""(\{\{(?:[^{}'"]++|'[^']*+'|"[^"]*+")*?\}\})""")

_NAME = r"[A-Za-z0-9_-]+"
_STEP = r"""\.[A-Za-z0-9_-]+|\[\s*-?\d+\s*\]|\[\s*"[^"]*"\s*\]|\[\s*'[^']*'\s*\]"""
_PATH = re.compile(rf"({_NAME})((?:{_STEP})*)")
_STEPS = re.compile(
    r"""\.(?P<key>[A-Za-z0-9_-]+)|\[\s*(?:(?P<index>-?\d+)|"(?P<dq>[^"]*)"|'(?P<sq>[^']*)')\s*\]"""
)
_FLAT = re.compile(r"[A-Za-z0-9_.-]+")
_DOTTED = re.compile(r"[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)*")  # the common case, parsed by split
_ENV = re.compile(r"(?:\$env|process\.env)\.([A-Za-z0-9_.-]+)")
_DYNAMIC = re.compile(r"\$([A-Za-z][A-Za-z0-9_]*)")
_LITERAL = re.compile(r"""'([^']*)'|"([^"]*)\"""")

PATH, DYNAMIC, ENV, LITERAL = "path", "dynamic", "env", "literal"

# Dynamic values (DESIGN §4.1), each fresh per occurrence; rendered in render.py.
DYNAMIC_NAMES = frozenset(
    {"uuid", "guid", "randomUUID", "timestamp", "isoTimestamp", "randomInt", "randomBoolean"}
)


@dataclass(frozen=True, slots=True)
class Placeholder:
    """One ``{{ expr }}``. ``raw`` is exactly as written; ``expr`` is the stripped inner text."""

    raw: str
    expr: str
    kind: str  # PATH | DYNAMIC | ENV | LITERAL
    name: str  # variable (first segment), dynamic name, env name, or literal text
    steps: tuple[str | int, ...] = ()
    flat: str | None = None  # the whole path text, when it could itself be a variable name
    in_string: bool = False  # JSON templates only: between the quotes of a JSON string
    # A path whose variable or key names say it holds a secret (``values.secret_name``): its
    # value is masked wherever it is shown. Decided once, when the placeholder is parsed.
    secret: bool = field(default=False, compare=False)


@dataclass(frozen=True, slots=True)
class Template:
    segments: tuple[str | Placeholder, ...]
    single: Placeholder | None  # the template is exactly one placeholder

    @property
    def placeholders(self) -> list[Placeholder]:
        return [s for s in self.segments if isinstance(s, Placeholder)]


def parse_expr(raw: str, inner: str) -> Placeholder | None:
    """The placeholder for ``inner`` text, or ``None`` if it is not a valid expression."""
    return _parse_inner(inner.strip(), raw)


@lru_cache(maxsize=16384)
def _parse_inner(expr: str, raw: str) -> Placeholder | None:
    if not expr:
        return None
    first = expr[0]
    if first == "'" or first == '"':
        m = _LITERAL.fullmatch(expr)
        if not m:
            return None
        text = m.group(1) if m.group(1) is not None else m.group(2)
        return Placeholder(raw, expr, LITERAL, text)
    if first == "$" or expr.startswith("process.env."):
        m = _ENV.fullmatch(expr)
        if m:
            return Placeholder(raw, expr, ENV, m.group(1))
        m = _DYNAMIC.fullmatch(expr)
        if m and m.group(1) in DYNAMIC_NAMES:
            return Placeholder(raw, expr, DYNAMIC, m.group(1))
        return None  # `$foo` is no expression: plain text
    if _DOTTED.fullmatch(expr):
        if "." not in expr:
            return Placeholder(raw, expr, PATH, expr, secret=_secret_step(expr))
        name, *keys = expr.split(".")
        return Placeholder(
            raw, expr, PATH, name, tuple(keys), expr, secret=_secret_path(expr, [name, *keys])
        )
    m = _PATH.fullmatch(expr)
    if not m:
        return None
    if not m.group(2):
        return Placeholder(raw, expr, PATH, expr, secret=_secret_step(expr))
    steps: list[str | int] = []
    for s in _STEPS.finditer(m.group(2)):
        if s.group("key") is not None:
            steps.append(s.group("key"))
        elif s.group("index") is not None:
            steps.append(int(s.group("index")))
        else:
            steps.append(s.group("dq") if s.group("dq") is not None else s.group("sq"))
    flat = expr if _FLAT.fullmatch(expr) else None
    secret = _secret_path(expr, [m.group(1), *steps])
    return Placeholder(raw, expr, PATH, m.group(1), tuple(steps), flat, secret=secret)


def _secret_path(expr: str, steps: list[str] | list[str | int]) -> bool:
    """Whether the variable or a key on a path says it holds a secret. (A variable named like
    the whole path is judged by its name when it is met: ``expand``.)"""
    return may_name_secret(expr) and any(isinstance(s, str) and _secret_step(s) for s in steps)


# Memoized: the same few names and keys (``id``, ``name``, ``token``) come back and back.
_secret_step = lru_cache(maxsize=4096)(secret_name)


@lru_cache(maxsize=16384)
def _placeholder(raw: str) -> Placeholder | None:
    """The placeholder a candidate ``{{ ... }}`` is, or ``None``."""
    return _parse_inner(raw[2:-2].strip(), raw)


def _segments(text: str) -> list[str | Placeholder]:
    parts = _CANDIDATE.split(text)  # literal, candidate, literal, ..., literal
    out: list[str | Placeholder] = []
    literal = parts[0]
    for i in range(1, len(parts), 2):
        ph = _placeholder(parts[i])
        if ph is None:  # not a placeholder: stays part of the surrounding literal text
            literal += parts[i] + parts[i + 1]
            continue
        if literal:
            out.append(literal)
        out.append(ph)
        literal = parts[i + 1]
    if literal:
        out.append(literal)
    return out


def _template(segments: list[str | Placeholder]) -> Template:
    single = segments[0] if len(segments) == 1 and isinstance(segments[0], Placeholder) else None
    return Template(tuple(segments), single)


@lru_cache(maxsize=8192)
def parse(text: str) -> Template:
    """Parse a template for a text place (URL, header, form field, text body, auth field)."""
    if "{{" not in text:
        return Template((text,) if text else (), None)
    return _template(_segments(text))


@lru_cache(maxsize=1024)
def parse_json(text: str) -> Template:
    """Parse a JSON body template, marking placeholders that sit inside a JSON string literal.

    Whether a place is inside a string is decided from the literal text around placeholders
    only (DESIGN §5, note 2): placeholders never open or close a string.
    """
    if "{{" not in text:
        return Template((text,) if text else (), None)
    marked: list[str | Placeholder] = []
    in_string = False
    escaped = False
    for seg in _segments(text):
        if isinstance(seg, Placeholder):
            marked.append(_with_place(seg, in_string) if in_string else seg)
            escaped = False
            continue
        for ch in seg:
            if in_string:
                if escaped:
                    escaped = False
                elif ch == "\\":
                    escaped = True
                elif ch == '"':
                    in_string = False
            elif ch == '"':
                in_string = True
        marked.append(seg)
    return _template(marked)


def _with_place(ph: Placeholder, in_string: bool) -> Placeholder:
    return Placeholder(ph.raw, ph.expr, ph.kind, ph.name, ph.steps, ph.flat, in_string, ph.secret)


def has_placeholder(text: str) -> bool:
    """Whether ``text`` holds at least one valid placeholder."""
    return "{{" in text and bool(parse(text).placeholders)
