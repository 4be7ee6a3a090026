"""Static checks of a collection (DESIGN §6, `pigeon check`): what would go wrong, found
without sending anything or running any script.

Every request is resolved against every environment asked for, through the same ``Renderer``
a send uses, so "resolves in no scope" means exactly what a send would leave unresolved.
Scripts are read as Python syntax trees (never run) for the names they set and read. Each
finding names its file, line and column; a ``# pigeon: ignore[rule]`` comment on that line or
the line above silences it.
"""

from __future__ import annotations

import ast
import difflib
import os
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from pigeon.auth_kinds import KINDS
from pigeon.expand import Renderer
from pigeon.model import Auth, Collection, Folder, Request
from pigeon.scopes import Layer, Scopes, build_scopes
from pigeon.store.seen import beside_of
from pigeon.template import ENV, PATH, Placeholder, parse

ERROR, WARNING, INFO = "error", "warning", "info"

# rule id -> (severity, what it finds); the guide's CI page lists the same.
RULES: dict[str, tuple[str, str]] = {
    "broken-file": (ERROR, "a file that does not load"),
    "conflict": (WARNING, "your version of a file saved beside it when it changed on disk"),
    "unknown-key": (WARNING, 'a key Pigeon does not read (a typo), with "did you mean"'),
    "unresolved": (ERROR, "a placeholder that resolves in no scope and no script sets"),
    "cycle": (ERROR, "variables that refer to each other in a loop"),
    "missing-file": (
        ERROR,
        "a multipart file field, file body or an auth's key file that does not exist",
    ),
    "file-outside": (
        WARNING,
        "a multipart file field, file body or key file that reads outside the collection",
    ),
    "auth-incomplete": (ERROR, "an auth without a field its kind needs (a key), or one misspelt"),
    "script-reads-unset": (WARNING, "a script reads a variable that nothing defines or sets"),
    "inline-query": (WARNING, "a query value written in the URL that needs percent-encoding"),
    "unused-variable": (WARNING, "a variable defined and never used"),
    "shadowed": (INFO, "a folder or request variable hides one of an outer scope"),
    "env-unset": (INFO, "a $env name set neither in this process's environment nor in .env"),
    "grpc-method": (ERROR, "a gRPC request's rpc that its descriptors do not have"),
    "grpc-field": (ERROR, "a field of a gRPC request's message that its message type lacks"),
}

_IGNORE = re.compile(r"#\s*pigeon:\s*ignore\[([^\]]*)\]")
# What may not stand unencoded in a URL's query (RFC 3986 plus what servers trip on).
_NEEDS_ENCODING = re.compile(r"[^\x21-\x7e]|[\"<>\\^`{|}]")
_SET_CALLS = frozenset({"setVar", "set_var"})
_GET_CALLS = frozenset({"getVar", "get_var"})


@dataclass(frozen=True, slots=True)
class Finding:
    rule: str
    path: Path
    line: int
    column: int
    message: str
    environments: tuple[str, ...] = ()  # where it holds; empty: whatever the environment

    @property
    def severity(self) -> str:
        return RULES[self.rule][0]

    def key(self) -> tuple[Any, ...]:
        return (self.rule, self.path, self.line, self.column, self.message)


@dataclass
class Report:
    findings: list[Finding] = field(default_factory=list)
    broken: bool = False  # a file did not load: exit 2
    environments: list[str | None] = field(default_factory=list)

    def count(self, severity: str) -> int:
        return sum(1 for f in self.findings if f.severity == severity)


# -- where things are in the files ----------------------------------------------------------


class _Texts:
    """Each file's lines, read once, to place a finding at its line and column."""

    def __init__(self) -> None:
        self._lines: dict[Path, list[str]] = {}

    def lines(self, path: Path) -> list[str]:
        lines = self._lines.get(path)
        if lines is None:
            try:
                lines = path.read_text("utf-8", errors="replace").splitlines()
            except OSError:
                lines = []
            self._lines[path] = lines
        return lines

    def find(self, path: Path, needle: str, after: str | None = None) -> tuple[int, int]:
        """1-based line and column of ``needle`` (after the first line holding ``after``,
        when given); the key's line, or 1:1, when it is not written as such."""
        lines = self.lines(path)
        start = 0
        if after is not None:
            for i, line in enumerate(lines):
                if after in line:
                    start = i
                    break
        for i in range(start, len(lines)):
            col = lines[i].find(needle)
            if col >= 0:
                return i + 1, col + 1
        for i, line in enumerate(lines):
            col = line.find(needle)
            if col >= 0:
                return i + 1, col + 1
        return (start + 1, 1) if after is not None and lines else (1, 1)

    def definition(self, path: Path, name: str) -> tuple[int, int]:
        """Where ``name = ...`` is written (bare or quoted key)."""
        pattern = re.compile(
            rf"""^\s*(?:{re.escape(name)}|"{re.escape(name)}"|'{re.escape(name)}')\s*="""
        )
        for i, line in enumerate(self.lines(path)):
            m = pattern.match(line)
            if m:
                return i + 1, len(line) - len(line.lstrip()) + 1
        return 1, 1

    def ignored(self, finding: Finding) -> bool:
        lines = self.lines(finding.path)
        for index in (finding.line - 1, finding.line - 2):
            if 0 <= index < len(lines):
                m = _IGNORE.search(lines[index])
                if m and finding.rule in {r.strip() for r in m.group(1).split(",")}:
                    return True
        return False


# -- what the collection holds --------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Place:
    """One template of the collection: where it is written and how it renders. A disabled
    one is not sent, but the variables it names are still in use."""

    path: Path
    key: str  # the TOML key it is written under, to find it when the text is escaped
    text: str
    json: bool = False
    url: bool = False
    enabled: bool = True


def _auth_places(auth: Auth | None, path: Path) -> Iterator[_Place]:
    if auth is None or auth.type not in KINDS:
        return
    for key, text in KINDS[auth.type].texts(auth):
        if isinstance(text, str) and "{{" in text:
            yield _Place(path, key, text)


def _pair_places(pairs: Iterable[Any], path: Path) -> Iterator[_Place]:
    """Headers, query parameters, form fields: their names and values."""
    for pair in pairs:
        for key, text in (("name", pair.name), ("value", pair.value)):
            if "{{" in text:
                yield _Place(path, key, text, enabled=pair.enabled)


def _request_places(request: Request, path: Path) -> Iterator[_Place]:
    if "{{" in request.url or "?" in request.url:
        yield _Place(path, "url", request.url, url=True)
    yield from _pair_places(request.headers, path)
    yield from _pair_places(request.query, path)
    body = request.body
    if body.type in ("json", "text") and "{{" in body.content:
        yield _Place(path, "content", body.content, json=body.type == "json")
    elif body.type in ("form", "multipart"):
        yield from _pair_places(body.fields, path)
    elif body.type == "graphql":
        for key, text in (("query", body.query), ("operation_name", body.operation_name)):
            if "{{" in text:
                yield _Place(path, key, text)
        if "{{" in body.variables:
            yield _Place(path, "variables", body.variables, json=True)
    elif body.type == "file":
        for key, text in (("path", body.path), ("content_type", body.content_type)):
            if "{{" in text:
                yield _Place(path, key, text)
    grpc = request.kind == "grpc"  # a gRPC stream's messages render as JSON bodies do
    for message in request.messages:  # each sent as a text frame or a message, rendered
        if "{{" in message.body:
            yield _Place(path, "body", message.body, json=grpc)
    yield from _auth_places(request.auth, path)


def _owner_places(owner: Collection | Folder, path: Path) -> list[_Place]:
    return [*_pair_places(owner.headers, path), *_auth_places(owner.auth, path)]


def _strings(value: Any) -> Iterator[str]:
    """Every string inside a variable's value."""
    todo = [value]
    while todo:
        item = todo.pop()
        if isinstance(item, str):
            yield item
        elif isinstance(item, dict):
            todo.extend(item.values())
        elif isinstance(item, list):
            todo.extend(item)


def _placeholders(text: str) -> list[Placeholder]:
    return parse(text).placeholders if "{{" in text else []


@dataclass
class _Scripts:
    """What the collection's scripts set and read, read from their syntax, never run."""

    sets: set[str] = field(default_factory=set)
    reads: list[tuple[str, Path, str]] = field(default_factory=list)  # name, file, call text
    templates: list[str] = field(default_factory=list)  # string constants holding {{

    def read(self, code: str, path: Path) -> None:
        if not code.strip():
            return
        try:
            tree = ast.parse(code)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return  # the send reports it; a check has nothing to read
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Constant)
                and isinstance(node.value, str)
                and "{{" in node.value
            ):
                self.templates.append(node.value)
            if not isinstance(node, ast.Call) or not node.args:
                continue
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
            first = node.args[0]
            if not (isinstance(first, ast.Constant) and isinstance(first.value, str)):
                continue
            if name in _SET_CALLS:
                self.sets.add(first.value)
            elif name in _GET_CALLS:
                self.reads.append((first.value, path, f"{name}("))


# -- the check ------------------------------------------------------------------------------


class _Checker:
    def __init__(self, collection: Collection, data: Mapping[str, Any] | None = None) -> None:
        self.col = collection
        self.data = dict(data or {})  # a data file's columns: defined, as in the run
        self.root = collection.root
        self.texts = _Texts()
        self.found: dict[tuple[Any, ...], Finding] = {}
        self.env_hits: dict[tuple[Any, ...], set[str]] = {}
        self.walk = collection.walk()
        self._descriptors: dict[Any, Any] = {}  # gRPC descriptors, built once per source
        self.scripts = _Scripts()
        self.collection_file = self.root / "collection.toml"
        self.scripts.read(collection.scripts.pre_request, self.collection_file)
        self.scripts.read(collection.scripts.post_response, self.collection_file)
        # Each request's templates, with the folders' and the collection's it inherits, and
        # the key of the scopes it renders in: built once, checked once per environment.
        self._auth(collection.auth, self.collection_file)
        common = _owner_places(collection, self.collection_file)
        self.used_texts = [p.text for p in common]  # every template, enabled or not
        self.common = [p for p in common if p.enabled]
        folder_places: dict[int, list[_Place]] = {}
        self.items: list[tuple[list[Folder], Request, tuple[Any, ...], list[_Place]]] = []
        for chain, request in self.walk:
            places = list(self.common)
            for folder in chain:
                own = folder_places.get(id(folder))
                if own is None:
                    folder_file = self._folder_file(folder)
                    own = folder_places[id(folder)] = _owner_places(folder, folder_file)
                    self._auth(folder.auth, folder_file)
                    self.used_texts += [p.text for p in own]
                    for code in (folder.scripts.pre_request, folder.scripts.post_response):
                        self.scripts.read(code, folder_file)
                places += [p for p in own if p.enabled]
            request_file = self._request_file(request)
            self._auth(request.auth, request_file)
            for place in _request_places(request, request_file):
                if place.url:
                    self._inline_query(place)
                if "{{" in place.text:
                    self.used_texts.append(place.text)
                    if place.enabled:
                        places.append(place)
            for code in (request.scripts.pre_request, request.scripts.post_response):
                self.scripts.read(code, request_file)
            key = (tuple(id(f) for f in chain), id(request) if request.variables else None)
            self.items.append((chain, request, key, places))

    def _auth(self, auth: Auth | None, path: Path) -> None:
        """An auth as written: the fields its kind cannot go without, and a key file named
        without placeholders (one with them is checked as it renders)."""
        kind = KINDS.get(auth.type) if auth is not None else None
        if auth is None or kind is None:
            return
        at = self.texts.find(path, "type", "[auth]")
        for problem in kind.problems(auth):
            self.add("auth-incomplete", path, at, problem, None)
        root = os.path.realpath(self.root)
        for f in kind.fields:
            value = f.get(auth) if f.path else ""
            if not value or "{{" in value:
                continue
            target = Path(value).expanduser()
            real = os.path.realpath(target if target.is_absolute() else self.root / target)
            where = self.texts.find(path, value, f.name)
            if not (real == root or real.startswith(root + os.sep)):
                self.add("file-outside", path, where, f"{f.name} reads {value}", None)
            elif not os.path.isfile(real):
                self.add("missing-file", path, where, f"{f.name}: no file {value}", None)

    def _folder_file(self, folder: Folder) -> Path:
        return (folder.path or self.root) / "folder.toml"

    def _request_file(self, request: Request) -> Path:
        return request.path or self.root / f"{request.id}.toml"

    def add(
        self, rule: str, path: Path, at: tuple[int, int], message: str, env: str | None
    ) -> None:
        finding = Finding(rule, path, at[0], at[1], message)
        key = finding.key()
        self.found.setdefault(key, finding)
        if env is not None:
            self.env_hits.setdefault(key, set()).add(env)

    # -- per environment --

    def check_environment(self, env: str | None) -> None:
        col = self.col
        shared: dict[tuple[Any, ...], Scopes] = {}
        for chain, request, key, places in self.items:
            scopes = shared.get(key)
            if scopes is None:
                scopes = shared[key] = build_scopes(
                    col, chain, request, env, cli_vars=self.data, cli_label="--data column"
                )
                self._shadowed(scopes.layers, chain, request)
            for place in places:
                self._place(place, scopes, env)
            self._files(request, scopes)
            if request.kind == "grpc" and request.grpc.rpc.strip():
                self._grpc(request, scopes, env)

    def _place(self, place: _Place, scopes: Scopes, env: str | None) -> None:
        r = Renderer(scopes)
        try:
            if place.json:
                r.render_json(place.text)
            else:
                r.render_text(place.text)
        except RecursionError:
            return
        for warning in r.warnings:
            if warning.startswith("cycle: "):
                at = self.texts.find(place.path, "{{", place.key)
                self.add("cycle", place.path, at, warning[len("cycle: ") :], env)
        for expr in r.unresolved:
            ph = next((p for p in _placeholders(place.text) if p.expr == expr), None)
            raw = ph.raw if ph is not None else "{{" + expr + "}}"
            at = self.texts.find(place.path, raw, place.key)
            if ph is not None and ph.kind == ENV:
                self.add("env-unset", place.path, at, f"{raw}: ${ph.name} is not set", env)
                continue
            name = ph.name if ph is not None else expr
            if name in self.scripts.sets or (ph and ph.flat in self.scripts.sets):
                continue  # a script sets it before it is needed (or fails the send if not)
            close = difflib.get_close_matches(name, scopes.names(), n=1)
            hint = f" (did you mean `{close[0]}`?)" if close else ""
            self.add("unresolved", place.path, at, f"{raw} resolves in no scope{hint}", env)

    def _inline_query(self, place: _Place) -> None:
        base = place.text.split("#", 1)[0]
        if "?" not in base:
            return
        query = base.split("?", 1)[1]
        literal = "".join(s for s in parse(query).segments if isinstance(s, str))
        m = _NEEDS_ENCODING.search(literal)
        if m is not None:
            at = self.texts.find(place.path, place.text, place.key)
            offset = place.text.find(m.group(), len(base) - len(query))
            if "\n" not in place.text and offset >= 0:
                at = (at[0], at[1] + offset)
            self.add(
                "inline-query",
                place.path,
                at,
                f"the URL's query holds {m.group()!r}, which must be percent-encoded; "
                "write the parameter in [[query]] and Pigeon encodes it",
                None,
            )

    def _files(self, request: Request, scopes: Scopes) -> None:
        body = request.body
        if body.type == "file":
            self._file(request, scopes, body.path, "path", "the file body")
        if body.type != "multipart":
            return
        for f in body.fields:
            if f.enabled and f.kind == "file" and f.name:
                self._file(request, scopes, f.value, "value", f"field {f.name!r}")

    def _file(self, request: Request, scopes: Scopes, text: str, key: str, what: str) -> None:
        """A file a send reads: outside the collection, or missing."""
        path = self._request_file(request)
        root = os.path.realpath(self.root)
        r = Renderer(scopes)
        value = r.render_text(text).strip() if key == "path" else r.render_text(text)
        if r.unresolved:
            return  # reported as unresolved
        target = Path(value).expanduser()
        if not target.is_absolute():
            target = self.root / target
        at = self.texts.find(path, text, key)
        real = os.path.realpath(target)
        if not (real == root or real.startswith(root + os.sep)):
            self.add("file-outside", path, at, f"{what} reads {value}", None)
        elif not os.path.isfile(real):
            self.add("missing-file", path, at, f"{what}: no file {value}", None)

    def _grpc(self, request: Request, scopes: Scopes, env: str | None) -> None:
        """The request's method and its message's fields, against its ``.proto`` files
        (inside the collection) or the descriptors reflection left in ``.pigeon/grpc/``
        (``pigeon grpc-describe``); nothing to check against, nothing said."""
        from pigeon.rpc import GrpcError
        from pigeon.rpc.grpc_check import method_and_fields

        r = Renderer(scopes)
        url = r.render_text(request.url)
        bodies = []
        if request.body.type == "json":
            bodies.append(("content", r.render_json(request.body.content)))
        bodies += [("body", r.render_json(m.body)) for m in request.messages]
        path = self._request_file(request)
        try:
            problems = method_and_fields(self.root, request, url, bodies, self._descriptors)
        except GrpcError as exc:  # a .proto that does not compile, descriptors that do not build
            at = self.texts.find(path, "protos")
            self.add("grpc-method", path, at, str(exc), env)
            return
        for rule, key, message in problems:
            at = self.texts.find(path, request.grpc.rpc if key == "rpc" else "{", key)
            self.add(rule, path, at, message, env)

    def _shadowed(self, layers: list[Layer], chain: list[Folder], request: Request) -> None:
        """A folder or request variable that hides an outer definition (an environment
        replacing a collection default is what environments are for: not reported)."""
        folder_files = [self._folder_file(f) for f in chain]
        defined: dict[str, str] = {}
        folder_index = 0
        for layer in layers:
            if layer.scope == "folder":
                where = folder_files[folder_index]
                folder_index += 1
            elif layer.scope == "request":
                where = self._request_file(request)
            else:
                where = None
            for name in layer.variables:
                outer = defined.get(name)
                if outer is not None and where is not None:
                    at = self.texts.definition(where, name)
                    self.add("shadowed", where, at, f"`{name}` hides the one in {outer}", None)
                defined[name] = layer.label

    # -- once --

    def unused_and_unset(self) -> None:
        used: set[str] = set()
        col = self.col
        # Who defines variables, and in which file: the collection, the environments, each
        # folder once, each request.
        owners: list[tuple[Any, Path]] = [(col, self.collection_file)]
        owners += [(e, e.path or self.root) for e in col.environments.values()]
        seen: set[int] = set()
        for chain, request in self.walk:
            for folder in chain:
                if id(folder) not in seen:
                    seen.add(id(folder))
                    owners.append((folder, self._folder_file(folder)))
            owners.append((request, self._request_file(request)))
        texts: list[str] = [*self.scripts.templates, *self.used_texts]
        for owner, _ in owners:
            for value in owner.variables.values():
                texts += _strings(value)
        for text in texts:
            for ph in _placeholders(text):
                if ph.kind == PATH:
                    used.add(ph.name)
                    if ph.flat:
                        used.add(ph.flat)
        used |= {name for name, _, _ in self.scripts.reads}

        defined: dict[str, None] = {}
        for owner, path in owners:
            for name in owner.variables:
                defined[name] = None
                if name not in used:
                    at = self.texts.definition(path, name)
                    self.add("unused-variable", path, at, f"`{name}` is never used", None)

        for name, path, call in self.scripts.reads:
            if name in defined or name in self.scripts.sets or name in self.data:
                continue
            close = difflib.get_close_matches(name, [*defined, *self.scripts.sets], n=1)
            hint = f" (did you mean `{close[0]}`?)" if close else ""
            at = self.texts.find(path, f'{call}"{name}"')
            if at == (1, 1):
                at = self.texts.find(path, f"{call}'{name}'")
            self.add(
                "script-reads-unset",
                path,
                at,
                f"a script reads `{name}`, which no scope defines and no script sets{hint}",
                None,
            )

    def report(self, environments: list[str | None]) -> Report:
        out = Report(environments=environments)
        for b in self.col.broken:
            if b.skipped:
                if beside_of(b.path.name) is not None:
                    self.add("conflict", b.path, (1, 1), b.message, None)
                continue
            out.broken = True
            self.add("broken-file", b.path, (b.line or 1, b.column or 1), b.message, None)
        for w in self.col.warnings:
            self.add("unknown-key", w.path, (w.line or 1, w.column or 1), w.message, None)
        every = {e for e in environments if e is not None}
        findings = []
        for key, finding in self.found.items():
            envs = self.env_hits.get(key, set())
            if envs and envs != every:
                finding = replace(finding, environments=tuple(sorted(envs)))
            if not self.texts.ignored(finding):
                findings.append(finding)
        findings.sort(key=lambda f: (str(f.path), f.line, f.column, f.rule))
        out.findings = findings
        return out


def check(
    collection: Collection,
    environments: Iterable[str | None],
    data: Mapping[str, Any] | None = None,
) -> Report:
    """Check ``collection`` against each environment (``None``: no environment). ``data``:
    the columns of the data file a run gets (``--data``), defined as the run defines them."""
    envs = list(environments)
    checker = _Checker(collection, data)
    for env in envs:
        checker.check_environment(env)
    checker.unused_and_unset()
    return checker.report(envs)
