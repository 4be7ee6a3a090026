"""A Request + scopes -> RenderedRequest (the exact request to send), plus what went wrong.

Lookup (DESIGN §4.2), recursion and cycles (§4.3) and the rules per place (§5) live here;
what a value looks like in each place lives in ``values.py``.
"""

from __future__ import annotations

import base64
import json
import mimetypes
import random
import re
import time
import uuid
from dataclasses import dataclass, field
from datetime import datetime, timezone
from functools import lru_cache
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlencode

from pigeon.model import Auth, Collection, Folder, Header, Request, Settings
from pigeon.scopes import MISSING, Scopes
from pigeon.template import DYNAMIC, ENV, LITERAL, PATH, Placeholder, Template, parse, parse_json
from pigeon.values import to_json_string_content, to_json_value, to_text


class RenderError(Exception):
    """The request cannot be built (e.g. a header with CR/LF); nothing is sent."""


@dataclass
class RenderResult:
    text: str
    unresolved: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


@dataclass
class RenderedRequest:
    method: str
    url: str
    headers: list[tuple[str, str]] = field(default_factory=list)
    body: bytes | None = None  # exactly what goes on the wire
    body_text: str | None = None  # the same, as text, for display and `pigeon render`
    unresolved: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    settings: Settings = field(default_factory=Settings)
    name: str = ""
    request_id: str = ""

    def header(self, name: str) -> str | None:
        """The last value of a header, case-insensitively."""
        lname = name.lower()
        for key, value in reversed(self.headers):
            if key.lower() == lname:
                return value
        return None

    def to_json(self) -> dict[str, Any]:
        """The object `pigeon render --format json` prints (DESIGN §6)."""
        return {
            "method": self.method,
            "url": self.url,
            "headers": [[k, v] for k, v in self.headers],
            "body": self.body_text,
            "unresolved": list(self.unresolved),
            "warnings": list(self.warnings),
        }


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
        if value.__class__ is str:
            if "{{" not in value:
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
        """Render the placeholders inside a value that belongs to no variable."""
        return self.expand_at(value, ("<value>",))

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
            value, path = self._follow(value, path)
            if value is MISSING or value is _CYCLE:
                break
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
        piece = self._shared.get(key)
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
        return "".join([seg if seg.__class__ is str else piece(seg, 0) for seg in tpl.segments])

    def json(self, tpl: Template) -> str:
        """A JSON body: string-literal places are escaped, value places take JSON text."""
        piece = self._piece
        return "".join(
            [
                seg if seg.__class__ is str else piece(seg, 1 if seg.in_string else 2)
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

    def _whole(self, text: str, place: str, render: Any, parser: Any) -> str:
        """Render a whole template, reusing the result while it stays pure."""
        key = (place, text)
        out = self._shared.get(key)
        if out is not None:
            return out
        outer_impure, self._impure = self._impure, False
        out = render(parser(text))
        if not self._impure:
            self._shared[key] = out
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


# -- public helpers -------------------------------------------------------------------------


def render_text(text: str, scopes: Scopes) -> RenderResult:
    """Render ``text`` in a text place."""
    r = Renderer(scopes)
    out = r.render_text(text)
    return RenderResult(out, r.unresolved, r.warnings)


def render_json(text: str, scopes: Scopes) -> RenderResult:
    """Render a JSON body and warn (with line and column) if the result is not valid JSON."""
    r = Renderer(scopes)
    out = r.render_json(text)
    _check_json(out, r)
    return RenderResult(out, r.unresolved, r.warnings)


def render_value(text: str, scopes: Scopes) -> Any:
    """The value of a template: a single placeholder keeps its kind; anything else is text."""
    r = Renderer(scopes)
    return r.expand(text)


def _check_json(text: str, r: Renderer) -> None:
    problem = _json_problem(text)
    if problem:
        r.warn(problem)


@lru_cache(maxsize=256)
def _json_problem(text: str) -> str | None:
    """Why a rendered JSON body is not valid JSON (memoized: bodies repeat across renders)."""
    if not text.strip():
        return None
    try:
        json.loads(text)
    except json.JSONDecodeError as exc:
        return (
            f"JSON body is not valid JSON after rendering: {exc.msg} "
            f"(line {exc.lineno}, column {exc.colno}); it is sent as rendered"
        )
    return None


# -- requests -------------------------------------------------------------------------------

_TOKEN = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")
_SCHEME_AUTHORITY = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://[^/?#]*")
_BAD_HEADER_CHARS = ("\r", "\n", "\0")


def effective_auth(
    collection: Collection, chain: list[Folder] | tuple[Folder, ...], request: Request
) -> Auth | None:
    """The innermost auth that is set: request, then folders inner -> outer, then collection."""
    if request.auth is not None:
        return request.auth
    for folder in reversed(chain):
        if folder.auth is not None:
            return folder.auth
    return collection.auth


def _merge_headers(levels: list[list[Header]], r: Renderer) -> list[tuple[str, str]]:
    """Headers of every level in order; a name set at an inner level replaces outer ones."""
    out: list[tuple[str, str]] = []
    for headers in levels:
        rendered = []
        for h in headers:
            if not h.enabled or not h.name.strip():
                continue
            rendered.append(_header(r.render_text(h.name).strip(" \t"), r.render_text(h.value)))
        names = {name.lower() for name, _ in rendered}
        out = [(n, v) for n, v in out if n.lower() not in names]
        out.extend(rendered)
    return out


def _header(name: str, value: str) -> tuple[str, str]:
    """Refuse header names and values that would split or smuggle headers (DESIGN §5)."""
    for ch in _BAD_HEADER_CHARS:
        if ch in name or ch in value:
            what = {"\r": "CR", "\n": "LF", "\0": "NUL"}[ch]
            part = "name" if ch in name else "value"
            raise RenderError(
                f"header {name!r}: the rendered {part} contains {what}; refusing to send"
            )
    if not _TOKEN.fullmatch(name):
        raise RenderError(f"header {name!r}: not a valid header name")
    return name, value


def _set_header(headers: list[tuple[str, str]], name: str, value: str) -> None:
    lname = name.lower()
    headers[:] = [(n, v) for n, v in headers if n.lower() != lname]
    headers.append(_header(name, value))


def _render_url(text: str, r: Renderer) -> str:
    """Insert values raw; warn when one changes the URL's structure (DESIGN §5, URL)."""
    if "{{" not in text:
        return text
    key = ("u", text)
    hit = r._shared.get(key)
    if hit is not None:
        for warning in hit[1]:
            r.warn(warning)
        return hit[0]
    outer_impure, r._impure = r._impure, False
    before = len(r.warnings)
    url = _render_url_pieces(text, r)
    if not r._impure:
        r._shared[key] = (url, r.warnings[before:])
    r._impure = r._impure or outer_impure
    return url


def _render_url_pieces(text: str, r: Renderer) -> str:
    out: list[str] = []
    so_far = ""
    for seg in parse(text).segments:
        if seg.__class__ is str:
            out.append(seg)
            so_far += seg
            continue
        value = r.value_of(seg)
        piece = value if isinstance(value, str) else to_text(value)
        if piece != seg.raw:
            _url_warning(so_far, seg, piece, r)
        out.append(piece)
        so_far += piece
    return "".join(out)


def _url_warning(so_far: str, ph: Placeholder, piece: str, r: Renderer) -> None:
    if "#" in so_far:
        return
    if "?" in so_far:
        where, bad = "query", [c for c in "#&?=" if c in piece]
    else:
        m = _SCHEME_AUTHORITY.match(so_far)
        if not so_far or (m and m.end() == len(so_far)):
            return  # the start of the URL (a base URL) or the host part
        where, bad = "path", [c for c in "/?#" if c in piece]
    if bad:
        chars = " ".join(repr(c) for c in bad)
        r.warn(
            f"URL: {ph.raw} inserts {piece!r} into the {where}; its {chars} changes the URL's "
            f"structure (use [[query]] or percent-encode the value)"
        )


def _add_query(url: str, pairs: list[tuple[str, str]]) -> str:
    if not pairs:
        return url
    base, hash_, fragment = url.partition("#")
    encoded = "&".join(f"{quote(k, safe='')}={quote(v, safe='')}" for k, v in pairs)
    if "?" not in base:
        sep = "?"
    elif base.endswith(("?", "&")):
        sep = ""
    else:
        sep = "&"
    return base + sep + encoded + hash_ + fragment


def _auth_parts(
    auth: Auth | None, r: Renderer
) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """Headers and query params an auth adds."""
    if auth is None or auth.type == "none":
        return [], []
    if auth.type == "basic":
        pair = f"{r.render_text(auth.username)}:{r.render_text(auth.password)}"
        token = base64.b64encode(pair.encode("utf-8")).decode("ascii")
        return [("Authorization", f"Basic {token}")], []
    if auth.type == "bearer":
        return [("Authorization", f"Bearer {r.render_text(auth.token)}")], []
    if auth.type == "api_key":
        key, value = r.render_text(auth.key), r.render_text(auth.value)
        if not key:
            raise RenderError("api_key auth: the key name is empty")
        if auth.location == "query":
            return [], [(key, value)]
        return [(key, value)], []
    raise RenderError(f"unknown auth type {auth.type!r}")


def _multipart(fields: list[tuple[str, str, str, str]], root: Path | None) -> tuple[bytes, str]:
    """Encode multipart/form-data ourselves so the body is known before sending."""
    boundary = "pigeon-" + uuid.uuid4().hex
    parts: list[bytes] = []
    for name, value, kind, content_type in fields:
        qname = name.replace('"', "%22")
        if kind == "file":
            path = Path(value).expanduser()
            if not path.is_absolute() and root is not None:
                path = root / path
            try:
                data = path.read_bytes()
            except OSError as exc:
                raise RenderError(
                    f"multipart field {name!r}: cannot read {path}: {exc.strerror}"
                ) from exc
            ctype = content_type or mimetypes.guess_type(path.name)[0] or "application/octet-stream"
            fname = path.name.replace('"', "%22")
            head = (
                f'--{boundary}\r\nContent-Disposition: form-data; name="{qname}"; '
                f'filename="{fname}"\r\nContent-Type: {ctype}\r\n\r\n'
            )
        else:
            data = value.encode("utf-8")
            ctype_line = f"Content-Type: {content_type}\r\n" if content_type else ""
            head = f'--{boundary}\r\nContent-Disposition: form-data; name="{qname}"\r\n{ctype_line}\r\n'
        parts.append(head.encode("utf-8") + data + b"\r\n")
    parts.append(f"--{boundary}--\r\n".encode())
    return b"".join(parts), f"multipart/form-data; boundary={boundary}"


def render_request(
    collection: Collection,
    chain: list[Folder] | tuple[Folder, ...],
    request: Request,
    scopes: Scopes,
) -> RenderedRequest:
    """Build the exact request to send. Raises ``RenderError`` when it cannot be sent safely."""
    r = Renderer(scopes)
    method = request.method.strip() or "GET"
    if not _TOKEN.fullmatch(method):
        raise RenderError(f"method {method!r} is not a valid HTTP method token")

    url = _render_url(request.url.strip(), r)

    headers = _merge_headers([collection.headers, *(f.headers for f in chain), request.headers], r)
    auth_headers, auth_query = _auth_parts(effective_auth(collection, chain, request), r)
    for name, value in auth_headers:
        _set_header(headers, name, value)

    query = [
        (r.render_text(q.name), r.render_text(q.value))
        for q in request.query
        if q.enabled and q.name
    ]
    url = _add_query(url, query + auth_query)

    body: bytes | None = None
    body_text: str | None = None
    content_type: str | None = None
    btype = request.body.type
    if btype == "json":
        body_text = r.render_json(request.body.content)
        _check_json(body_text, r)
        content_type = "application/json"
    elif btype == "text":
        body_text = r.render_text(request.body.content)
        content_type = "text/plain; charset=utf-8"
    elif btype == "form":
        pairs = [
            (r.render_text(f.name), r.render_text(f.value))
            for f in request.body.fields
            if f.enabled and f.name
        ]
        body_text = urlencode(pairs)
        content_type = "application/x-www-form-urlencoded"
    elif btype == "multipart":
        fields = [
            (r.render_text(f.name), r.render_text(f.value), f.kind, f.content_type)
            for f in request.body.fields
            if f.enabled and f.name
        ]
        body, content_type = _multipart(fields, collection.root)
        body_text = body.decode("utf-8", errors="replace")
    elif btype != "none":
        raise RenderError(f"unknown body type {btype!r}")
    if body_text is not None and body is None:
        body = body_text.encode("utf-8")
    if content_type and not any(n.lower() == "content-type" for n, _ in headers):
        headers.append(("Content-Type", content_type))

    return RenderedRequest(
        method=method,
        url=url,
        headers=headers,
        body=body,
        body_text=body_text,
        unresolved=r.unresolved,
        warnings=r.warnings,
        settings=request.settings,
        name=request.name,
        request_id=request.id,
    )
