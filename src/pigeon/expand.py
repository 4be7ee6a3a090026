"""Template expansion: a template + scopes -> text or a value (DESIGN §4.2-4.3).

``Renderer`` looks a placeholder's path up in the scopes (§4.2), renders the placeholders
inside the values it finds, recursively (§4.3), reports a cycle where it closes instead of
looping, and keeps every result that depends only on the variables in the scopes' shared
cache. What a value looks like in each place comes from ``values.py``; where a request's parts
go, and the rules per place (§5), live in ``render.py``, which drives this module.
"""

from __future__ import annotations

import json
import random
import re
import time
import uuid
from collections.abc import Callable
from datetime import datetime, timezone
from typing import Any, TypeVar

from pigeon.scopes import MISSING, Scopes
from pigeon.template import DYNAMIC, ENV, LITERAL, PATH, Placeholder, Template, parse, parse_json
from pigeon.values import to_json_string_content, to_json_value, to_text

T = TypeVar("T")


# -- dynamic values -------------------------------------------------------------------------


def _dynamic(name: str) -> Any:
    """A fresh value per occurrence; ``MISSING`` for an unknown name."""
    if name in ("uuid", "guid", "randomUUID"):
        return str(uuid.uuid4())
    if name == "timestamp":
        return int(time.time())
    if name == "isoTimestamp":
        return datetime.now(timezone.utc)
    if name == "randomInt":
        return random.randint(0, 1000)
    if name == "randomBoolean":
        return random.random() < 0.5
    return MISSING


# -- the renderer ---------------------------------------------------------------------------


class Renderer:
    """Renders templates against one set of scopes, collecting unresolved names and warnings.

    Lookup walks a path through the raw value and renders only what it passes through and
    what it returns, so an unused broken key elsewhere in an object is not reported. Every
    string expansion is tracked by its concrete path (``cfg.url``, ``items[2]``): a cycle is
    a path met again while it is being expanded, so ``{{cfg.host}}`` inside ``cfg.url`` is
    fine and ``a -> b -> a`` is caught where it closes.

    Results that depend only on the variables ("pure": no dynamic value, no ``$env``,
    nothing unresolved, no cycle) are kept in the scopes' shared cache, so re-rendering a
    request -- every keystroke in the app -- costs little more than joining strings. Impure
    results are recomputed on each use: dynamic values stay fresh per occurrence and problems
    are reported by every render.
    """

    __slots__ = (
        "scopes",
        "_shared",
        "_stack",
        "_depth",
        "_impure",
        "unresolved",
        "_unresolved_set",
        "warnings",
    )

    def __init__(self, scopes: Scopes) -> None:
        self.scopes = scopes
        self._shared = scopes.shared_cache()
        self._stack: list[tuple[str | int, ...]] = []
        self._depth = 0
        self._impure = False
        self.unresolved: list[str] = []
        self._unresolved_set: set[str] = set()
        self.warnings: list[str] = []

    # -- reporting --

    def _missing(self, ph: Placeholder) -> None:
        self._impure = True
        if ph.expr not in self._unresolved_set:
            self._unresolved_set.add(ph.expr)
            self.unresolved.append(ph.expr)

    def warn(self, message: str) -> None:
        if message not in self.warnings:
            self.warnings.append(message)

    # -- lookup --

    def variable(self, name: str) -> Any:
        """The rendered value of a whole variable, or ``MISSING`` / ``_CYCLE``."""
        raw = self.scopes.get(name)
        if raw is MISSING:
            return MISSING
        return self.expand_at(raw, (name,))

    def expand_at(self, value: Any, path: tuple[str | int, ...]) -> Any:
        """Render the placeholders inside a value found at ``path`` (nested strings too)."""
        cls = value.__class__
        if cls is str:
            if "{{" not in value:
                return value
        elif cls is int or cls is float or cls is bool or value is None:
            return value
        elif isinstance(value, (dict, list)):
            key = ("v", path)
            hit = self._shared.get(key, MISSING)
            if hit is not MISSING:
                return hit
            if not _has_template(value):
                self._shared[key] = value
                return value
        else:
            return value  # numbers, booleans, null, dates
        if path in self._stack:
            chain = self._stack[self._stack.index(path) :] + [path]
            self.warn("cycle: " + " -> ".join(_path_text(p) for p in chain))
            self._impure = True
            return _CYCLE
        key = ("v", path)
        hit = self._shared.get(key, MISSING)
        if hit is not MISSING:
            return hit
        if self._depth >= MAX_DEPTH:
            self.warn(
                f"nesting deeper than {MAX_DEPTH} levels at {_path_text(path)}; left as written"
            )
            self._impure = True
            return _CYCLE
        outer_impure, self._impure = self._impure, False
        self._stack.append(path)
        self._depth += 1
        try:
            if value.__class__ is str:
                tpl = parse(value)
                result = self.value_of(tpl.single) if tpl.single is not None else self.text(tpl)
            elif isinstance(value, dict):
                result = {}
                for k, v in value.items():
                    item = self.expand_at(v, (*path, k))
                    result[k] = v if item is _CYCLE else item
            else:
                result = []
                for i, v in enumerate(value):
                    item = self.expand_at(v, (*path, i))
                    result.append(v if item is _CYCLE else item)
        finally:
            self._stack.pop()
            self._depth -= 1
        if not self._impure:
            self._shared[key] = result
        self._impure = self._impure or outer_impure
        return result

    def expand(self, value: Any) -> Any:
        """Render the placeholders inside a value that belongs to no variable. A string is its
        own path, so what the cache keeps for one value never answers for another."""
        if isinstance(value, str):
            return self.expand_at(value, ("<value>", value))
        if isinstance(value, dict):
            return {key: self.expand(item) for key, item in value.items()}
        if isinstance(value, list):
            return [self.expand(item) for item in value]
        return value

    def value_of(self, ph: Placeholder) -> Any:
        """A placeholder's value; when it cannot be resolved, its text exactly as written."""
        value = self.lookup(ph)
        if value is MISSING:
            self._missing(ph)
            return ph.raw
        if value is _CYCLE:
            return ph.raw
        return value

    def lookup(self, ph: Placeholder) -> Any:
        kind = ph.kind
        if kind == PATH:  # the common case first
            if not ph.steps:  # a whole variable
                return self.variable(ph.name)
            value, path = self._walk(ph)
            if value is MISSING or value is _CYCLE:
                return value
            return self.expand_at(value, path)
        if kind == LITERAL:
            return ph.name
        if kind == ENV:
            self._impure = True
            value = self.scopes.env(ph.name)
            return MISSING if value is None else value
        if kind == DYNAMIC:
            self._impure = True
            return _dynamic(ph.name)
        value, path = self._walk(ph)
        if value is MISSING or value is _CYCLE:
            return value
        return self.expand_at(value, path)

    def _walk(self, ph: Placeholder) -> tuple[Any, tuple[str | int, ...]]:
        """Follow a path placeholder to the raw value it names, and that value's own path.

        Aliases and templates met on the way are resolved only as far as the path needs, so
        nothing the lookup does not use is rendered or reported.
        """
        if ph.flat is not None:  # rule 4.2.1: a variable named like the whole path wins
            raw = self.scopes.get(ph.flat)
            if raw is not MISSING:
                return raw, (ph.flat,)
        value = self.scopes.get(ph.name)
        path: tuple[str | int, ...] = (ph.name,)
        for step in ph.steps:
            if value is MISSING:
                break
            if value.__class__ is str:
                value, path = self._follow(value, path)
                if value is MISSING or value is _CYCLE:
                    break
            if value.__class__ is dict and step.__class__ is str:  # the common step, inline
                value = value.get(step, MISSING)
                path = (*path, step)
                continue
            value, concrete = _step(value, step)
            path = (*path, concrete)
        return value, path

    def _follow(self, value: Any, path: tuple[str | int, ...]) -> tuple[Any, tuple[str | int, ...]]:
        """A string met mid-path: an alias (``"{{other}}"``) is followed to its target,
        lazily; any other template is rendered to see what to step into."""
        if value.__class__ is not str or "{{" not in value:
            return value, path
        ph = parse(value).single
        if ph is None or ph.kind != PATH:
            return self.expand_at(value, path), path
        if path in self._stack:
            return self.expand_at(value, path), path  # reports the cycle
        self._stack.append(path)
        try:
            target, target_path = self._walk(ph)
            if target is MISSING or target is _CYCLE:
                return target, path
            return self._follow(target, target_path)
        finally:
            self._stack.pop()

    # -- places --

    def _piece(self, ph: Placeholder, place: int) -> str:
        """A placeholder rendered for a place: 0 text, 1 JSON string literal, 2 JSON value."""
        key = (ph.raw, place)
        piece: str | None = self._shared.get(key)
        if piece is not None:
            return piece
        outer_impure, self._impure = self._impure, False
        try:
            value = self.lookup(ph)
        except RecursionError:  # an object nested too deeply for Python to walk
            self.warn(f"{ph.raw}: value nested too deeply to render; left as written")
            self._impure = True
            value = _CYCLE
        if value is MISSING or value is _CYCLE:
            if value is MISSING:
                self._missing(ph)
            piece = ph.raw
        elif place == 0:
            piece = value if value.__class__ is str else to_text(value)
        elif place == 1:
            piece = to_json_string_content(value)
        else:
            piece = to_json_value(value)
        if not self._impure:
            self._shared[key] = piece
        self._impure = self._impure or outer_impure
        return piece

    def text(self, tpl: Template) -> str:
        """A text place: values as ``to_text`` writes them, no escaping."""
        piece = self._piece
        return "".join([seg if isinstance(seg, str) else piece(seg, 0) for seg in tpl.segments])

    def json(self, tpl: Template) -> str:
        """A JSON body: string-literal places are escaped, value places take JSON text."""
        piece = self._piece
        return "".join(
            [
                seg if isinstance(seg, str) else piece(seg, 1 if seg.in_string else 2)
                for seg in tpl.segments
            ]
        )

    def render_text(self, text: str) -> str:
        if "{{" not in text:
            return text
        return self._whole(text, "t", self.text, parse)

    def render_json(self, text: str) -> str:
        if "{{" not in text:
            return text
        return self._whole(text, "j", self.json, parse_json)

    def _whole(
        self,
        text: str,
        place: str,
        render: Callable[[Template], str],
        parser: Callable[[str], Template],
    ) -> str:
        """Render a whole template, reusing the result while it stays pure."""
        key = (place, text)
        out: str | None = self._shared.get(key)
        if out is not None:
            return out
        outer_impure, self._impure = self._impure, False
        out = render(parser(text))
        if not self._impure:
            self._shared[key] = out
        self._impure = self._impure or outer_impure
        return out

    def cached(self, key: tuple[Any, ...], compute: Callable[[], T]) -> T:
        """``compute()`` through the pure-result cache, for a place's own rendering.

        The result is kept when nothing ``compute`` did was impure, together with the warnings
        it added; a later hit adds those warnings again, so every render still reports them.
        ``key`` must not collide with the renderer's own keys: start it with a place name
        other than ``"t"``, ``"j"`` and ``"v"`` (the URL uses ``"u"``).
        """
        hit: tuple[T, list[str]] | None = self._shared.get(key)
        if hit is not None:
            for warning in hit[1]:
                self.warn(warning)
            return hit[0]
        outer_impure, self._impure = self._impure, False
        before = len(self.warnings)
        out = compute()
        if not self._impure:
            self._shared[key] = (out, self.warnings[before:])
        self._impure = self._impure or outer_impure
        return out


def _has_template(value: Any) -> bool:
    """Whether a value holds a string with ``{{`` anywhere inside it."""
    todo = [value]
    while todo:
        item = todo.pop()
        if item.__class__ is str:
            if "{{" in item:
                return True
        elif isinstance(item, dict):
            todo.extend(item.values())
        elif isinstance(item, list):
            todo.extend(item)
    return False


class _Cycle:
    __slots__ = ()


_CYCLE: Any = _Cycle()


def _step(value: Any, step: str | int) -> tuple[Any, str | int]:
    """One path step: a dict key or a list index (negative counts from the end); nothing
    else. Returns the value (or ``MISSING``) and the concrete key or index it reached."""
    if isinstance(value, dict):
        if isinstance(step, str) and step in value:
            return value[step], step
        return MISSING, step
    if isinstance(value, list):
        if isinstance(step, str):
            if not step.lstrip("-").isdigit():
                return MISSING, step
            step = int(step)  # `items.0` reads like `items[0]`
        n = len(value)
        if -n <= step < n:
            index = step % n
            return value[index], index
    return MISSING, step


def _path_text(path: tuple[str | int, ...]) -> str:
    """``("user", "tags", 1)`` -> ``user.tags[1]``, as a placeholder would name it."""
    out = str(path[0])
    for step in path[1:]:
        if isinstance(step, int):
            out += f"[{step}]"
        elif re.fullmatch(r"[A-Za-z0-9_-]+", step):
            out += f".{step}"
        else:
            out += "[" + json.dumps(step, ensure_ascii=False) + "]"
    return out


MAX_DEPTH = 64  # nested string expansions; deeper is reported instead of recursing on
