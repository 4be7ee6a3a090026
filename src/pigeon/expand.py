"""Template expansion: a template + scopes -> text or a value (DESIGN §4.2-4.3).

``Renderer`` looks a placeholder's path up in the scopes (§4.2), renders the placeholders
inside the values it finds, recursively (§4.3), reports a cycle where it closes instead of
looping, and keeps every result that depends only on the variables in the scopes' shared
cache. What a value looks like in each place comes from ``values.py``; where a request's parts
go, and the rules per place (§5), live in ``render.py``, which drives this module.

Why one module: the quick lookup most placeholders take, the general one, the cycle checks,
the pure-result cache and the masked twin of each result are one walk over a value; split,
each part would have to know the others' state (the stack, purity, the twin being built).
"""

from __future__ import annotations

import json
import random
import re
import time
import uuid
from collections.abc import Callable
from datetime import datetime, timezone
from functools import lru_cache
from json.encoder import encode_basestring
from typing import Any, TypeVar

from pigeon.scopes import MISSING, Scopes
from pigeon.template import DYNAMIC, ENV, LITERAL, PATH, Placeholder, Template, parse, parse_json
from pigeon.values import (
    MASK,
    compact_json,
    may_name_secret,
    secret_name,
    to_json_string_content,
    to_json_value,
    to_text,
)

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


class _Cycle:
    __slots__ = ()


_CYCLE: Any = _Cycle()
_SLOW: Any = _Cycle()  # a lookup the quick way cannot answer


class Renderer:
    """Renders templates against one set of scopes, collecting unresolved names and warnings.

    Lookup walks a path through the raw value and renders only what it passes through and
    what it returns, so an unused broken key elsewhere in an object is not reported. Every
    string expansion is tracked by its concrete path (``cfg.url``, ``items[2]``): a cycle is
    a path met again while it is being expanded, so ``{{cfg.host}}`` inside ``cfg.url`` is
    fine and ``a -> b -> a`` is caught where it closes.

    Every result has a twin, the same with each value that came from a secret source (``$env``
    and so the collection's ``.env``, a variable or key whose name says secret) as ``MASK``:
    what history, reports and ``pigeon render`` show. It is built along with the result, so
    a secret is masked where it went whatever its length, and nowhere else. ``None`` is the
    twin of a result without secrets; ``_HIDDEN`` that of a value secret as a whole.

    Results that depend only on the variables ("pure": no dynamic value, no ``$env``,
    nothing unresolved, no cycle) are kept, with their twins, in the scopes' shared cache, so
    re-rendering a request -- every keystroke in the app -- costs little more than joining
    strings. Impure results are recomputed on each use: dynamic values stay fresh per
    occurrence and problems are reported by every render.
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
        "secrets",
        "_got",
        "_secret_sources",
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
        # The ``$env`` values rendered: writers also look for their copies (a server's echo).
        self.secrets: list[str] = []
        self._got: dict[str, Any] = {}  # each name's winning raw value, for this render
        # The names whose winning definition is a secret source (``Scopes.secret``), at hand.
        self._secret_sources = scopes.secret_names()

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
        return self._variable(name)[0]

    def _variable(self, name: str) -> tuple[Any, Any]:
        raw = self.scopes.get(name)
        if raw is MISSING:
            return MISSING, None
        return self._expand_at(raw, (name,), _secret(name) or name in self._secret_sources)

    def expand_at(self, value: Any, path: tuple[str | int, ...]) -> Any:
        """Render the placeholders inside a value found at ``path`` (nested strings too)."""
        return self._expand_at(value, path, False)[0]

    def _expand_at(self, value: Any, path: tuple[str | int, ...], hidden: bool) -> tuple[Any, Any]:
        """``expand_at`` and the result's twin; ``hidden``: the value is secret as a whole."""
        cls = value.__class__
        if cls is str:
            if "{{" not in value:
                return value, _HIDDEN if hidden else None
        elif cls is int or cls is float or cls is bool or value is None:
            return value, _HIDDEN if hidden else None
        elif isinstance(value, (dict, list)):
            key = ("v", path)
            hit = self._shared.get(key, MISSING)
            if hit is not MISSING:
                return hit[0], _HIDDEN if hidden else hit[1]
            found = _scan(value)
            if not found & _TEMPLATE:
                twin = _plain_twin(value) if found & _SECRET_KEY else None
                self._shared[key] = (value, twin)
                return value, _HIDDEN if hidden else twin
        else:
            return value, _HIDDEN if hidden else None  # dates
        if path in self._stack:
            chain = self._stack[self._stack.index(path) :] + [path]
            self.warn("cycle: " + " -> ".join(_path_text(p) for p in chain))
            self._impure = True
            return _CYCLE, None
        key = ("v", path)
        hit = self._shared.get(key, MISSING)
        if hit is not MISSING:
            return hit[0], _HIDDEN if hidden else hit[1]
        if self._depth >= MAX_DEPTH:
            self.warn(
                f"nesting deeper than {MAX_DEPTH} levels at {_path_text(path)}; left as written"
            )
            self._impure = True
            return _CYCLE, None
        outer_impure, self._impure = self._impure, False
        self._stack.append(path)
        self._depth += 1
        try:
            if value.__class__ is str:
                tpl = parse(value)
                if tpl.single is not None:
                    result, twin = self._value_of(tpl.single)
                else:
                    result, twin = self._text(tpl)
            else:
                result, twin = self._expand_items(value, path)
        finally:
            self._stack.pop()
            self._depth -= 1
        if not self._impure:
            self._shared[key] = (result, twin)
        self._impure = self._impure or outer_impure
        return result, _HIDDEN if hidden else twin

    def _expand_items(self, value: Any, path: tuple[str | int, ...]) -> tuple[Any, Any]:
        """An object's or an array's items expanded, and its twin."""
        twins: dict[Any, Any] | None = None
        if isinstance(value, dict):
            result: Any = {}
            for k, v in value.items():
                item, twin = self._expand_at(v, (*path, k), _secret(k))
                if item is _CYCLE:
                    item, twin = v, None
                result[k] = item
                if twin is not None:
                    twins = twins or {}
                    twins[k] = MASK if twin is _HIDDEN else twin
            if twins is None:
                return result, None
            return result, {k: twins.get(k, v) for k, v in result.items()}
        result = []
        for i, v in enumerate(value):
            item, twin = self._expand_at(v, (*path, i), False)
            if item is _CYCLE:
                item, twin = v, None
            result.append(item)
            if twin is not None:
                twins = twins or {}
                twins[i] = MASK if twin is _HIDDEN else twin
        if twins is None:
            return result, None
        return result, [twins.get(i, v) for i, v in enumerate(result)]

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
        return self._value_of(ph)[0]

    def _value_of(self, ph: Placeholder) -> tuple[Any, Any]:
        value, twin = self._lookup(ph)
        if value is MISSING:
            self._missing(ph)
            return ph.raw, None
        if value is _CYCLE:
            return ph.raw, None
        return value, twin

    def lookup(self, ph: Placeholder) -> Any:
        return self._lookup(ph)[0]

    def _lookup(self, ph: Placeholder) -> tuple[Any, Any]:
        kind = ph.kind
        if kind == PATH:  # the common case first
            if not ph.steps:  # a whole variable
                return self._variable(ph.name)
        elif kind == LITERAL:
            return ph.name, None
        elif kind == ENV:
            self._impure = True
            value = self.scopes.env(ph.name)
            if value is None:
                return MISSING, None
            self.secrets.append(value)
            return value, _HIDDEN
        elif kind == DYNAMIC:
            self._impure = True
            return _dynamic(ph.name), None
        value, path = self._walk(ph)
        if value is MISSING or value is _CYCLE:
            return value, None
        hidden = _secret_path(path) or str(path[0]) in self._secret_sources
        return self._expand_at(value, path, hidden)

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

    def piece(self, ph: Placeholder, place: int = 0) -> tuple[str, str | None]:
        """A placeholder rendered for a place (0 text, 1 JSON string literal, 2 JSON value),
        and its twin (``None``: no secret in it)."""
        key = (ph.raw, place)
        shared = self._shared
        pair: tuple[str, str | None] | None = shared.get(key)
        if pair is not None:
            return pair
        if ph.kind != PATH:
            return self._piece(ph, place, key)
        # The common case, the quick way: a value that needs no rendering, with no template on
        # its way nor in it. Anything else (aliases, templates, cycles, what is missing) takes
        # the general lookup. A name is looked up once a render (``_got``).
        got = self._got
        flat = ph.flat
        if flat is not None:  # rule 4.2.1: a variable named like the whole path wins
            value = got.get(flat, _SLOW)
            if value is _SLOW:
                value = got[flat] = self.scopes.get(flat)
            if value is not MISSING:
                return self._piece(ph, place, key)
        name = ph.name
        value = got.get(name, _SLOW)
        if value is _SLOW:
            value = got[name] = self.scopes.get(name)
        if ph.steps:
            for step in ph.steps:
                cls = value.__class__
                if cls is dict:
                    value = value.get(step, MISSING)
                    if value is MISSING:
                        return self._piece(ph, place, key)
                elif cls is list and step.__class__ is int and -len(value) <= step < len(value):
                    value = value[step]
                else:
                    return self._piece(ph, place, key)
            if value.__class__ is str and "{{" in value:
                return self._piece(ph, place, key)
        elif value is MISSING or (value.__class__ is str and "{{" in value):
            return self._piece(ph, place, key, value)  # what it holds is handed on
        cls = value.__class__
        twin: str | None = None
        if cls is dict or cls is list:
            # Its JSON holds "{{" if any string in it does: then it is rendered.
            text = compact_json(value)
            if "{{" in text:
                return self._piece(ph, place, key, _SLOW if ph.steps else value)
            piece: str = encode_basestring(text)[1:-1] if place == 1 else text
            if not ph.secret and _may_name_secrets(text):
                shown = _plain_twin(value)  # None: no key in it is named as a secret
                twin = None if shown is None else _IN_PLACE[place](shown)
        elif cls is str and place != 1:
            piece = value
        else:
            piece = _IN_PLACE[place](value)
        if ph.secret or name in self._secret_sources:  # by name, or a secret source
            twin = _HIDDEN_PIECE[place]
        pair = (piece, twin if piece else None)
        shared[key] = pair
        return pair

    def _piece(
        self, ph: Placeholder, place: int, key: tuple[str, int], raw: Any = _SLOW
    ) -> tuple[str, str | None]:
        """``piece`` through the general lookup; ``raw``: the whole variable ``ph`` names, when
        it was already looked up."""
        outer_impure, self._impure = self._impure, False
        try:
            if raw is _SLOW:
                value, twin = self._lookup(ph)
            elif raw is MISSING:
                value, twin = MISSING, None
            else:
                hidden = ph.secret or ph.name in self._secret_sources
                value, twin = self._expand_at(raw, (ph.name,), hidden)
        except RecursionError:  # an object nested too deeply for Python to walk
            self.warn(f"{ph.raw}: value nested too deeply to render; left as written")
            self._impure = True
            value, twin = _CYCLE, None
        pair: tuple[str, str | None]
        if value is MISSING or value is _CYCLE:
            if value is MISSING:
                self._missing(ph)
            pair = (ph.raw, None)
        else:
            piece = _IN_PLACE[place](value)
            if twin is None or not piece:
                pair = (piece, None)
            elif twin is _HIDDEN:
                pair = (piece, _HIDDEN_PIECE[place])
            else:
                pair = (piece, _IN_PLACE[place](twin))
        if not self._impure:
            self._shared[key] = pair
        self._impure = self._impure or outer_impure
        return pair

    def text(self, tpl: Template) -> str:
        """A text place: values as ``to_text`` writes them, no escaping."""
        return self._text(tpl)[0]

    def json(self, tpl: Template) -> str:
        """A JSON body: string-literal places are escaped, value places take JSON text."""
        return self._json(tpl)[0]

    def _text(self, tpl: Template) -> tuple[str, str | None]:
        return self._join(tpl, False)

    def _json(self, tpl: Template) -> tuple[str, str | None]:
        return self._join(tpl, True)

    def _join(self, tpl: Template, json_place: bool) -> tuple[str, str | None]:
        """The segments joined, and the twin when a piece has one."""
        piece = self.piece
        out: list[str] = []
        twins: dict[int, str] | None = None
        for seg in tpl.segments:
            if seg.__class__ is str:
                out.append(seg)
                continue
            ph: Placeholder = seg  # type: ignore[assignment]
            text, twin = piece(ph, (1 if ph.in_string else 2) if json_place else 0)
            if twin is not None:
                if twins is None:
                    twins = {}
                twins[len(out)] = twin
            out.append(text)
        clear = "".join(out)
        if twins is None:
            return clear, None
        for index, twin in twins.items():
            out[index] = twin
        return clear, "".join(out)

    def render_text(self, text: str) -> str:
        if "{{" not in text:
            return text
        return self._whole(text, False)[0]

    def render_json(self, text: str) -> str:
        if "{{" not in text:
            return text
        return self._whole(text, True)[0]

    def render_text_pair(self, text: str) -> tuple[str, str | None]:
        """``render_text`` and its twin (``None``: nothing secret in it)."""
        if "{{" not in text:
            return text, None
        return self._whole(text, False)

    def render_json_pair(self, text: str) -> tuple[str, str | None]:
        """``render_json`` and its twin (``None``: nothing secret in it)."""
        if "{{" not in text:
            return text, None
        return self._whole(text, True)

    def _whole(self, text: str, json_place: bool) -> tuple[str, str | None]:
        """Render a whole template (a JSON body's, or a text place's), reusing the result
        while it stays pure."""
        key = ("j" if json_place else "t", text)
        out: tuple[str, str | None] | None = self._shared.get(key)
        if out is not None:
            return out
        outer_impure, self._impure = self._impure, False
        out = self._join(parse_json(text) if json_place else parse(text), json_place)
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


class _Hidden:
    __slots__ = ()


_HIDDEN: Any = _Hidden()  # the twin of a value secret as a whole
# A whole secret in each place: text, inside a JSON string, a JSON value (a string, so the
# twin of a JSON body stays JSON).
_HIDDEN_PIECE = (MASK, MASK, f'"{MASK}"')


# How a value is written in each place: text, inside a JSON string, a JSON value. Indexed by
# the place, so a piece costs one call.
_IN_PLACE: tuple[Callable[[Any], str], ...] = (to_text, to_json_string_content, to_json_value)


@lru_cache(maxsize=4096)
def _secret(key: str | int) -> bool:
    """Whether a variable or an object's key of this name holds a secret (memoized)."""
    return isinstance(key, str) and secret_name(key)


def _secret_path(path: tuple[str | int, ...]) -> bool:
    return any(_secret(step) for step in path)


def _plain_twin(value: Any) -> Any:
    """The twin of an object or array without placeholders: its secret-named keys' values
    masked, ``None`` when it has none."""
    if isinstance(value, dict):
        out: Any = None
        for key, item in value.items():
            twin = MASK if _secret(key) else _plain_twin(item)
            if twin is not None:
                out = dict(value) if out is None else out
                out[key] = twin
        return out
    if isinstance(value, list):
        out = None
        for index, item in enumerate(value):
            twin = _plain_twin(item)
            if twin is not None:
                out = list(value) if out is None else out
                out[index] = twin
        return out
    return None


_TEMPLATE, _SECRET_KEY = 1, 2  # what ``_scan`` finds


def _may_name_secrets(text: str) -> bool:
    """Whether a value's JSON may have a key named as a secret."""
    return _may_name_secrets_kept(text) if len(text) <= 4096 else may_name_secret(text)


# Memoized, for texts up to 4 KB (so the cache holds at most 1,024 x 4 KB): a variable's
# JSON is the same text on every render.
_may_name_secrets_kept = lru_cache(maxsize=1024)(may_name_secret)


def _scan(value: Any) -> int:
    """What an object or array holds: ``_TEMPLATE`` when a string in it has ``{{`` (then
    nothing else is said), else ``_SECRET_KEY`` when a key in it is named as a secret."""
    found = 0
    todo = [value]
    while todo:
        item = todo.pop()
        if item.__class__ is str:
            if "{{" in item:
                return _TEMPLATE
        elif isinstance(item, dict):
            if not found:
                for key in item:
                    if _secret(key):
                        found = _SECRET_KEY
                        break
            todo.extend(item.values())
        elif isinstance(item, list):
            todo.extend(item)
    return found


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
