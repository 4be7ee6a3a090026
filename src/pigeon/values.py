"""Variable values: the kinds of DESIGN §3.1, their validation, how a user writes a typed value
(a dialog's literal, the command line's ``name:=json``), and how each renders in each place.

Every rule about what a value *looks like* once rendered (DESIGN §5's table) lives here, and so
does the one RFC 9110 token rule that method and header names obey.
"""

from __future__ import annotations

import json
import math
import re
import tomllib
from datetime import date, datetime, timezone
from functools import lru_cache
from json.encoder import c_make_encoder, encode_basestring  # type: ignore[attr-defined]
from typing import Any

NAME_RULE = r"^[A-Za-z0-9_.-]+$"
_NAME_RE = re.compile(r"[A-Za-z0-9_.-]+")

KINDS = ("string", "integer", "float", "boolean", "null", "object", "array", "date")

# Objects and arrays nest at most this deep: every walker of a value (rendering, masking,
# saving) can then recurse safely, and a hostile file or script cannot exhaust the stack.
MAX_DEPTH = 64

# What a secret looks like wherever it is shown or written (DESIGN §7; ``pigeon.masking``).
MASK = "•••"

# One list of secret names: a header, a query parameter, a variable or an environment variable
# whose name matches holds a credential. Here, below rendering, so that a render knows which
# of its values came from a secret (``expand``) and masking uses the same rule.
_SECRET_NAME = re.compile(
    r"token|secret|passw(?:or)?d|pwd|passphrase|api[-_.]?key|(?:^|[-_.\s])key(?:$|[-_.\s])"
    r"|access[-_.]?key|auth|session|cookie|credential|private|signature|^sig$|jwt",
    re.I,
)


# Every name ``_SECRET_NAME`` matches has one of these words in it, in any case.
_SECRET_HINT = re.compile(
    "token|secret|pass|pwd|key|auth|session|cookie|credential|private|sig|jwt"
)


def may_name_secret(text: str) -> bool:
    """Whether ``text`` has one of the words every secret name has in it: a quick first look
    (most names and texts have none), never false where ``secret_name`` would be true."""
    low = text.lower() if text.isascii() else text.casefold().replace("ı", "i")
    return _SECRET_HINT.search(low) is not None


def secret_name(name: str) -> bool:
    """Whether a header, query parameter or variable of this name holds a secret."""
    return may_name_secret(name) and _SECRET_NAME.search(name) is not None


# RFC 9110 §5.6.2: a method or a header field name is a token.
_TOKEN_RE = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")


def is_token(text: str) -> bool:
    """Whether ``text`` is an RFC 9110 token (what a method or a header name must be)."""
    return bool(_TOKEN_RE.fullmatch(text))


def check_name(name: object) -> None:
    """Refuse a variable name that Bruno's ``setVar`` would also refuse."""
    if not isinstance(name, str) or not name.isascii() or not _NAME_RE.fullmatch(name):
        raise ValueError(f"invalid variable name {name!r}: a name must match {NAME_RULE}")


def kind_of(value: Any) -> str:
    """The kind of a (valid) value; ``bool`` is checked before ``int``."""
    if isinstance(value, str):
        return "string"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "float"
    if value is None:
        return "null"
    if isinstance(value, dict):
        return "object"
    if isinstance(value, (list, tuple)):
        return "array"
    if isinstance(value, (datetime, date)):
        return "date"
    raise TypeError(f"not a variable value: {type(value).__name__}")


def check_value(value: Any, name: str) -> Any:
    """Validate a value set by a script or the command line; return it normalized.

    Tuples become lists. Anything else outside DESIGN §3.1 raises ``ValueError`` naming the
    variable and the path to the bad part, so a script author can find it.
    """
    return _check(value, name, 0)


def too_deep(value: Any, depth: int = 0) -> bool:
    """Whether objects and arrays in ``value`` nest deeper than ``MAX_DEPTH``: exactly the
    values ``check_value`` refuses for their depth (a scalar below the deepest array is fine)."""
    if depth > MAX_DEPTH and isinstance(value, (dict, list, tuple)):
        return True
    if isinstance(value, dict):
        return any(too_deep(item, depth + 1) for item in value.values())
    if isinstance(value, (list, tuple)):
        return any(too_deep(item, depth + 1) for item in value)
    return False


def _check(value: Any, path: str, depth: int) -> Any:
    if depth > MAX_DEPTH and isinstance(value, (dict, list, tuple)):
        raise ValueError(f"variable {path}: objects and arrays nest more than {MAX_DEPTH} deep")
    if value is None or isinstance(value, (str, bool, int)):
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"variable {path}: {value!r} is not a finite number")
        return value
    if isinstance(value, (datetime, date)):
        return value
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            if not isinstance(key, str):
                raise ValueError(
                    f"variable {path}: object keys must be strings, got {type(key).__name__} {key!r}"
                )
            out[key] = _check(item, f"{path}{_key_step(key)}", depth + 1)
        return out
    if isinstance(value, (list, tuple)):
        return [_check(item, f"{path}[{i}]", depth + 1) for i, item in enumerate(value)]
    raise ValueError(
        f"variable {path}: a value of type {type(value).__name__} cannot be stored "
        f"(use a string, number, boolean, None, dict, list, datetime or date)"
    )


def _key_step(key: str) -> str:
    return f".{key}" if _NAME_RE.fullmatch(key) and "." not in key else f"[{json.dumps(key)}]"


# -- dates ----------------------------------------------------------------------------------


def format_date(value: date) -> str:
    """ISO 8601 in UTC with milliseconds and ``Z``; naive means local time; a date is midnight UTC."""
    if isinstance(value, datetime) and value.tzinfo is None:
        return _iso(value.astimezone(timezone.utc))  # naive: local time, which may change
    return _fixed_date(value)


@lru_cache(maxsize=256)
def _fixed_date(value: date) -> str:
    """``format_date`` of a date or an aware datetime (memoized: a variable's date is
    rendered again on every render)."""
    if isinstance(value, datetime):
        return _iso(value.astimezone(timezone.utc))
    return _iso(datetime(value.year, value.month, value.day, tzinfo=timezone.utc))


def _iso(dt: datetime) -> str:
    return (
        f"{dt.year:04d}-{dt.month:02d}-{dt.day:02d}T{dt.hour:02d}:{dt.minute:02d}:"
        f"{dt.second:02d}.{dt.microsecond // 1000:03d}Z"
    )


# -- rendering ------------------------------------------------------------------------------


def _json_default(value: Any) -> Any:
    if isinstance(value, (datetime, date)):
        return format_date(value)
    raise TypeError(f"not a variable value: {type(value).__name__}")


# Encoders are immutable once built; building one per call would dominate small renders.
_COMPACT = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False, default=_json_default)
# What ``_COMPACT.encode`` builds on each call, built once (C's, when Python has it). Without
# its check for cycles: a value never has one (``check_value``; TOML cannot write one).
_COMPACT_C = (
    c_make_encoder(None, _json_default, encode_basestring, None, ":", ",", False, False, True)
    if c_make_encoder is not None
    else None
)


def compact_json(value: Any) -> str:
    """Compact JSON with non-ASCII kept and dates as ISO strings."""
    if _COMPACT_C is not None:
        return "".join(_COMPACT_C(value, 0))
    return _COMPACT.encode(value)


def to_text(value: Any) -> str:
    """A value in a text place: URL, header, form field, text body, auth field."""
    if isinstance(value, str):
        return value
    if value.__class__ is int:
        return str(value)
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return repr(value)  # the shortest round-trip form, as json.dumps writes it
    if value is None:
        return "null"
    if isinstance(value, (datetime, date)):
        return format_date(value)
    return compact_json(value)


def to_json_string_content(value: Any) -> str:
    """A value between the double quotes of a JSON string literal: its text, JSON-escaped."""
    if value is None:
        return "null"
    return encode_basestring(to_text(value))[1:-1]


def to_json_value(value: Any) -> str:
    """A value in a JSON value place; strings go in as is so a string may carry JSON text."""
    if isinstance(value, str):
        return value
    if value.__class__ is int:
        return str(value)
    if isinstance(value, (datetime, date)):
        return '"' + format_date(value) + '"'
    return to_text(value)


def preview(value: Any, limit: int = 80) -> str:
    """A one-line preview for the variables pane and the CLI."""
    text = json.dumps(value, ensure_ascii=False) if isinstance(value, str) else to_text(value)
    text = text.replace("\n", "\\n")
    return text if len(text) <= limit else text[: limit - 1] + "…"


# -- how a user writes a typed value --------------------------------------------------------


def parse_literal(text: str) -> Any:
    """``42`` -> 42, ``true`` -> True, ``[1, 2]``, ``{a = 1}``, ``{"a": 1}``, a TOML date;
    anything that is not a literal is the string itself (``"quoted"`` strips the quotes)."""
    stripped = text.strip()
    if not stripped:
        return text
    try:
        return tomllib.loads(f"v = {stripped}")["v"]
    except (tomllib.TOMLDecodeError, RecursionError):
        pass
    try:
        return json.loads(stripped)
    except (json.JSONDecodeError, RecursionError):
        return text


def to_literal(value: Any) -> str:
    """The text ``parse_literal`` turns back into ``value``."""
    if isinstance(value, str):
        return value if parse_literal(value) == value else json.dumps(value, ensure_ascii=False)
    if isinstance(value, date):  # datetime is a date too
        return value.isoformat()
    return compact_json(value)


def parse_assignment(text: str) -> tuple[str, Any]:
    """``name=text`` sets a string; ``name:=json`` sets any JSON value (HTTPie's convention).

    Raises ``ValueError`` with a message that quotes what was wrong.
    """
    eq = text.find("=")
    if eq <= 0:
        raise ValueError(f"{text!r}: expected NAME=TEXT or NAME:=JSON")
    if text[eq - 1] == ":" and eq > 1:
        name, raw = text[: eq - 1], text[eq + 1 :]
        try:
            value: Any = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise ValueError(f"{name}:= is not valid JSON: {exc.msg} (column {exc.colno})") from exc
        except RecursionError:
            raise ValueError(f"{name}:= nests more than {MAX_DEPTH} levels deep") from None
    else:
        name, value = text[:eq], text[eq + 1 :]
    check_name(name)
    return name, check_value(value, name)
