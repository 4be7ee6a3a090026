"""Which saved example answers a call (DESIGN §14): routes from a collection, matched by method
and path, and the closest requests named when nothing matches.

A request's URL template gives its route: the origin (``{{base_url}}``, ``https://host``) is
dropped, keeping the base URL's own path, and each path segment is a literal, a placeholder
that matches any one segment (its value named for ``{{request.path.NAME}}``), or a mix
(``user-{{id}}.json``). A literal segment beats a mix, which beats a placeholder, from the
first segment on; among equals the first request in collection order wins.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from pigeon.model import MAX_EXAMPLE_BODY, Collection, Example, Request
from pigeon.scopes import MISSING, build_scopes
from pigeon.store.read import example_file_problem
from pigeon.template import PATH, Placeholder, parse

LITERAL, MIXED, ANY = 2, 1, 0  # how specific a segment is: more beats less
_MARK = "\x00{}\x00"  # a placeholder's stand-in while the URL template is split


@dataclass(frozen=True)
class Segment:
    """One path segment of a route: its text as written, how specific, and how to match."""

    text: str
    rank: int
    names: tuple[str, ...] = ()
    pattern: re.Pattern[str] | None = None

    def match(self, value: str) -> dict[str, str] | None:
        """The placeholder values this segment takes from ``value``, or None."""
        if self.rank == LITERAL:
            return {} if value == self.text else None
        if self.rank == ANY:
            return {self.names[0]: value} if value else None
        assert self.pattern is not None
        found = self.pattern.fullmatch(value)
        return dict(zip(self.names, found.groups(), strict=True)) if found else None


@dataclass
class Route:
    """A request served: its method, path segments and examples (bodies read from files)."""

    request: Request
    method: str
    path: str  # as written, for the log and the 404 hints: /users/{{id}}
    segments: tuple[Segment, ...]
    examples: list[Example]
    files: dict[str, bytes] = field(default_factory=dict)  # example name -> body_file's bytes

    def match(self, parts: list[str]) -> dict[str, str] | None:
        if len(parts) != len(self.segments):
            return None
        values: dict[str, str] = {}
        for segment, part in zip(self.segments, parts, strict=True):
            got = segment.match(part)
            if got is None:
                return None
            values.update(got)
        return values

    @property
    def rank(self) -> tuple[int, ...]:
        return tuple(s.rank for s in self.segments)

    def example(self, name: str | None) -> Example | None:
        """The example named, or without a name the first 2xx one (else the first)."""
        if name is not None:
            return next((e for e in self.examples if e.name == name), None)
        return next((e for e in self.examples if 200 <= e.status < 300), self.examples[0])


@dataclass
class Found:
    """What a call matched: the route and its path values; or, when only the method differs,
    the methods the path allows (a 405)."""

    route: Route | None
    values: dict[str, str] = field(default_factory=dict)
    allowed: tuple[str, ...] = ()


def _segment(text: str, marks: dict[str, Placeholder]) -> Segment:
    pieces = re.split(r"\x00(\d+)\x00", text)
    if len(pieces) == 1:
        return Segment(unquote(text), LITERAL)
    names = tuple(_name(marks[p]) for p in pieces[1::2])
    shown = "".join(p if i % 2 == 0 else marks[p].raw for i, p in enumerate(pieces))
    if pieces[0] == pieces[-1] == "" and len(pieces) == 3:
        return Segment(shown, ANY, names)
    regex = "".join(re.escape(unquote(p)) if i % 2 == 0 else "(.+?)" for i, p in enumerate(pieces))
    return Segment(shown, MIXED, names, re.compile(regex, re.DOTALL))


def _name(ph: Placeholder) -> str:
    return ph.expr if ph.kind == PATH else f"_{ph.expr}"


def route_path(request: Request, base: str | None = None) -> str:
    """The path part of a request's URL template (``{{base_url}}/users/{{id}}?x=1`` ->
    ``/users/{{id}}``); ``base``: what a leading placeholder stands for, when known."""
    template = parse(request.url.strip())
    marks: dict[str, Placeholder] = {}
    text = ""
    for i, piece in enumerate(template.segments):
        if isinstance(piece, str):
            text += piece
        elif i == 0 and base is not None:
            text += base
        elif i == 0 and not request.url.strip().startswith("/"):
            text += "http://origin"  # an unknown base URL: its origin is dropped
        else:
            key = str(len(marks))
            marks[key] = piece
            text += _MARK.format(key)
    text = text.split("#", 1)[0].split("?", 1)[0]
    if "://" in text:
        text = urlsplit(text.replace("\x00", "%00")).path.replace("%00", "\x00")
    elif not text.startswith("/"):
        text = "/" + text.split("/", 1)[1] if "/" in text else "/"
    text = "/" + text.strip("/")
    return re.sub(r"\x00(\d+)\x00", lambda m: marks[m.group(1)].raw, text)


def _split(path: str) -> list[str]:
    return [p for p in path.split("/") if p != ""]


def build_routes(
    collection: Collection, environment: str | None = None
) -> tuple[list[Route], list[str]]:
    """Every request with examples as a route, and notes on what could not be served (an
    example's file missing, too big or outside the collection)."""
    routes: list[Route] = []
    notes: list[str] = []
    for chain, request in collection.walk():
        if not request.examples or request.kind != "http":
            continue
        # the base URL's own path (https://host/api) is part of the route; nothing here reads
        # the process environment or a secret
        scopes = build_scopes(collection, chain, request, environment, environ={})
        base = _base(request, scopes)
        path = route_path(request, base)
        template = parse(path)
        marks: dict[str, Placeholder] = {}
        text = ""
        for piece in template.segments:
            if isinstance(piece, str):
                text += piece
            else:
                marks[str(len(marks))] = piece
                text += _MARK.format(len(marks) - 1)
        segments = tuple(_segment(s, marks) for s in _split(text))
        route = Route(request, request.method, path, segments, list(request.examples))
        for example in request.examples:
            if example.body_file:
                data, problem = _read_file(collection.root, example.body_file)
                if problem:
                    notes.append(f"{request.id}: example {example.name!r}: {problem}")
                else:
                    route.files[example.name] = data
        routes.append(route)
    return routes, notes


def _base(request: Request, scopes: Any) -> str | None:
    """What the URL's leading placeholder renders to (a base URL), when it is a variable."""
    first = parse(request.url.strip()).segments[:1]
    if not first or isinstance(first[0], str) or first[0].kind != PATH:
        return None
    value = scopes.get(first[0].expr)
    if value is MISSING or not isinstance(value, str) or "{{" in value:
        return None
    return value


def _read_file(root: Path, name: str) -> tuple[bytes, str | None]:
    problem = example_file_problem(name)
    if problem:
        return b"", problem
    base = root.resolve()
    target = (base / name).resolve()
    if not target.is_relative_to(base):
        return b"", f"{name!r} leads outside the collection"
    try:
        if target.stat().st_size > MAX_EXAMPLE_BODY:
            return b"", f"{name!r} is over {MAX_EXAMPLE_BODY // 2**20} MB"
        return target.read_bytes(), None
    except OSError as exc:
        return b"", f"{name!r} cannot be read: {exc.strerror or exc}"


def match(routes: list[Route], method: str, path: str) -> Found | None:
    """The route for ``method`` and the decoded ``path``: the most specific whose method is
    the call's (HEAD also takes GET's); a 405's allowed methods when only the method differs;
    None when no path matches."""
    parts = _split(path)
    hits = [(r, v) for r in routes if (v := r.match(parts)) is not None]
    if not hits:
        return None
    wanted = (method, "GET") if method == "HEAD" else (method,)
    for want in wanted:
        same = [(r, v) for r, v in hits if r.method == want]
        if same:
            route, values = max(same, key=lambda hit: hit[0].rank)  # max keeps the first
            return Found(route, values)
    allowed = sorted(
        {r.method for r, _ in hits}
        | ({"HEAD"} if any(r.method == "GET" for r, _ in hits) else set())
    )
    return Found(None, allowed=tuple(allowed))


def closest(routes: list[Route], method: str, path: str, count: int = 3) -> list[str]:
    """Up to ``count`` routes nearest the call, by edit distance on the path (the method
    breaks ties): ``GET /users/{{id}}``."""
    path = path[:512]
    parts = _split(path)
    scored = sorted(
        (distance(path, _filled(r, parts)[:512]), r.method != method, r.rank.count(ANY), i)
        for i, r in enumerate(routes)
    )
    out: list[str] = []
    for *_, i in scored:
        line = f"{routes[i].method} {routes[i].path}"
        if line not in out:
            out.append(line)
        if len(out) == count:
            break
    return out


def _filled(route: Route, parts: list[str]) -> str:
    """The route's path with each placeholder segment taking the call's segment there, so
    ``/user/7`` is one edit from ``/users/{{id}}``."""
    out = [
        parts[i] if s.rank == ANY and i < len(parts) else s.text
        for i, s in enumerate(route.segments)
    ]
    return "/" + "/".join(out)


def distance(a: str, b: str) -> int:
    """Levenshtein's edit distance."""
    if len(a) < len(b):
        a, b = b, a
    row = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        prev, row[0] = row[0], i
        for j, cb in enumerate(b, 1):
            prev, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, prev + (ca != cb))
    return row[-1]
