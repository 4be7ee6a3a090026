"""Inline completion of ``{{`` placeholders from the variables in scope, and of variable names
in a script's ``pigeon.getVar("`` and ``pigeon.setVar("`` (scripts hold no placeholders).

``{{us`` suggests ``{{user.`` (an object: keep going), ``{{user.ad`` suggests
``{{user.address``, ``{{co`` suggests ``{{count}}``, ``{{$e`` suggests ``{{$env.``;
``pigeon.getVar("to`` suggests ``ken")`` and ``pigeon.setVar('to`` suggests ``ken', ``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from textual.suggester import Suggester

from pigeon.scopes import MISSING, Scopes

_DYNAMIC = ("uuid", "guid", "randomUUID", "timestamp", "isoTimestamp", "randomInt", "randomBoolean")
_PATH_STEP = re.compile(r"\.([A-Za-z0-9_-]*)|\[(-?\d+)\]")
_NAME_CHAR = r"[A-Za-z0-9_.\-]"  # what a name a placeholder or a script completes may hold
_PLAIN_NAME = re.compile(f"{_NAME_CHAR}+")
_SCRIPT_NAME = re.compile(rf"""\b(getVar|setVar)\(\s*(["'])({_NAME_CHAR}*)$""")


def _container_suffix(value: Any) -> str:
    if isinstance(value, dict):
        return "."
    if isinstance(value, list):
        return "["
    return "}}"


def complete(prefix: str, scopes: Scopes) -> str | None:
    """The completion of the inner text of an open placeholder, or ``None``."""
    if prefix.startswith("$"):
        if prefix.startswith(("$env.", "$env")) and len(prefix) >= 5:
            head = prefix[5:]
            names = sorted({*scopes.environ, *scopes.dotenv})
            plain = (n for n in names if n.startswith(head) and head and _PLAIN_NAME.fullmatch(n))
            return _first(f"$env.{n}}}}}" for n in plain)
        candidates = ["$env.", *(f"${d}}}}}" for d in _DYNAMIC)]
        return _first(c for c in candidates if c.startswith(prefix) and c != prefix)
    # A flat name (dotted names included) that the prefix starts.
    name = _first_name_after(prefix, scopes)
    if name is not None:
        return name + _container_suffix(scopes.get(name))
    # A path into an object or array: walk to the last step's container.
    match = re.match(
        r"([A-Za-z0-9_-]+)((?:\.[A-Za-z0-9_-]+|\[-?\d+\])*)(\.[A-Za-z0-9_-]*)$", prefix
    )
    if not match:
        return None
    value = scopes.get(match.group(1))
    for step in _PATH_STEP.finditer(match.group(2)):
        if value is MISSING:
            return None
        key, index = step.group(1), step.group(2)
        if key is not None and isinstance(value, dict):
            value = value.get(key, MISSING)
        elif (
            index is not None and isinstance(value, list) and -len(value) <= int(index) < len(value)
        ):
            value = value[int(index)]
        else:
            return None
    if not isinstance(value, dict):
        return None
    partial = match.group(3)[1:]
    head = prefix[: len(prefix) - len(partial)]
    for key in sorted(value):
        if key.startswith(partial) and key != partial and re.fullmatch(r"[A-Za-z0-9_-]+", key):
            return head + key + _container_suffix(value[key])
    return None


def _first(items: Any) -> str | None:
    return next(iter(items), None)


def suggest(value: str, scopes: Scopes | None) -> str | None:
    """``value`` completed, when it ends in an open placeholder that names something."""
    start = value.rfind("{{")
    if start < 0 or "}}" in value[start:] or scopes is None:
        return None
    prefix = value[start + 2 :].lstrip()
    if not prefix or not re.fullmatch(r"[A-Za-z0-9_.\-$\[\]]*", prefix):
        return None
    completion = complete(prefix, scopes)
    if completion is None:
        return None
    return value[: len(value) - len(prefix)] + completion


def complete_script_name(before: str, scopes: Scopes | None) -> str:
    """What completes a variable's name opened in ``getVar("`` or ``setVar("`` at the end of
    ``before`` (a script's line up to the cursor): the rest of the first name in scope it
    starts, and the quote with what follows it; "" when nothing fits."""
    match = _SCRIPT_NAME.search(before)
    if match is None or scopes is None:
        return ""
    call, quote, partial = match.groups()
    name = _first_name_after(partial, scopes)
    if name is None:
        return ""
    return name[len(partial) :] + quote + (")" if call == "getVar" else ", ")


def _first_name_after(prefix: str, scopes: Scopes) -> str | None:
    """The first name in scope, in sorted order, that ``prefix`` starts and does not end.
    Only a plain name: one from a hostile file must not insert a quote, braces or a new line."""
    for name in sorted(scopes.names()):
        if name.startswith(prefix) and name != prefix and _PLAIN_NAME.fullmatch(name):
            return name
    return None


class PlaceholderSuggester(Suggester):
    """Suggests for the text up to the end; the scopes come fresh from ``scopes()`` each time."""

    def __init__(self, scopes: Callable[[], Scopes | None]) -> None:
        super().__init__(use_cache=False, case_sensitive=True)
        self._scopes = scopes

    async def get_suggestion(self, value: str) -> str | None:
        return suggest(value, self._scopes() if "{{" in value else None)
