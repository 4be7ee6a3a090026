"""The trust rule (DESIGN §8): an untrusted collection renders and sends only what it holds.

A collection is trusted by its user -- ``--trust`` once, or a "yes" in the app recorded in
``pigeon.config.TrustStore`` -- never by anything in its own directory. Until then it gets:

- no scripts (of any phase or level);
- ``{{$env.NAME}}`` only for a NAME in its own ``.env``, and then only the ``.env`` value,
  never the process environment's (else listing ``CI_DEPLOY_KEY=`` in ``.env`` would read the
  real one); a ``.env`` that links outside the directory counts as absent;
- no file read outside its directory, symlinks followed: multipart file fields, and the
  request, folder, environment and collection files it loads from;
- no secret read (DESIGN §11: no command run, no keychain read, no prompt), and nothing of
  ``globals.toml`` nor of a global environment, which lie outside it.

``needs`` says what a selection wants, statically (nothing sent, no script run, no file read),
for the app's prompt and the command line's refusal; ``Gate`` enforces the same rule while a
request renders, so what the static check cannot see (a placeholder inside a file path, a
value set at run time) is refused too, as a ``Refused`` render error that names the thing.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import date, time
from operator import attrgetter
from pathlib import Path, PurePath
from typing import Any

from pigeon.auth_kinds import FIELDS as AUTH_FIELDS
from pigeon.config import TrustStore
from pigeon.errors import RenderError
from pigeon.model import Auth, Collection, Folder, Request, SecretSource, Transport
from pigeon.render import effective_auth, render_request
from pigeon.scopes import build_scopes
from pigeon.scripts.sources import PHASES, script_sources
from pigeon.store.schema import COLLECTION_FILE, DOTENV_FILE, FOLDER_FILE

__all__ = ["KINDS", "Gate", "Need", "Refused", "TrustStore", "needs", "refusal", "summary"]

# What needs trust, in the order the prompt lists it.
KINDS = ("script", "env", "file", "secret", "global")
HOW = "pass --trust, or trust the collection in the app"


class Refused(RenderError):
    """A render that reads what only a trusted collection may: nothing is sent."""


@dataclass(frozen=True)
class Need:
    """One thing a request wants that needs trust: ``kind`` is one of ``KINDS``, ``what`` the
    script, environment variable name or path, ``thing`` the sentence that names it."""

    request: str
    kind: str
    what: str
    thing: str

    def __str__(self) -> str:
        return f"{self.request}: {self.thing}"


def _within(real: str, root: str) -> bool:
    """Whether a resolved path is ``root`` (resolved too) or under it."""
    return real == root or real.startswith(root.rstrip(os.sep) + os.sep)


@dataclass
class Gate:
    """The rule applied while a request renders (``pigeon.scopes.Gate``).

    Enforcing (the default), a refused read raises ``Refused``; recording, it is noted in
    ``found`` and rendering goes on without reading any file, which is how ``needs`` sees
    everything a request would read without reading it.
    """

    collection: Collection
    record: bool = False
    found: list[tuple[str, str, str]] = field(default_factory=list)  # kind, what, thing
    how: str = HOW  # how to trust it, named in a refusal: the command line's or the app's
    secrets: list[SecretSource] = field(default_factory=list)  # recorded: the secrets reached

    def __post_init__(self) -> None:
        self.root = os.path.realpath(self.collection.root)
        self.own_dotenv = _within(os.path.realpath(self.collection.root / DOTENV_FILE), self.root)
        self._outside: dict[str, str | None] = {}  # a run's files stay where they are
        self._folders: dict[str, str] = {}
        self._collection_file = os.path.join(self.collection.root, COLLECTION_FILE)

    def _loaded_from(self, path: str) -> str | None:
        """Where a collection file really is, when that is outside the collection."""
        try:
            return self._outside[path]
        except KeyError:
            real = self._real(path)
            out = self._outside[path] = None if _within(real, self.root) else real
            return out

    def _real(self, path: str) -> str:
        """``os.path.realpath``, resolving each folder once: a file that is no link is its
        resolved folder joined with its name (a thousand requests in ten folders cost a
        thousand ``lstat`` calls, not a walk of every path)."""
        if os.path.islink(path):
            return os.path.realpath(path)
        parent, name = os.path.split(path)
        folder = self._folders.get(parent)
        if folder is None:
            folder = self._folders[parent] = os.path.realpath(parent)
        return os.path.join(folder, name)

    def _refuse(self, kind: str, what: str, thing: str) -> None:
        if not self.record:
            raise Refused(f"needs trust: {thing} ({self.how})")
        if (kind, what, thing) not in self.found:
            self.found.append((kind, what, thing))

    def env(self, name: str, dotenv: Mapping[str, str]) -> str | None:
        if self.own_dotenv and name in dotenv:
            return dotenv[name]
        why = "not in the collection's .env" if self.own_dotenv else ".env links out of it"
        self._refuse("env", name, f"reads $env.{name} from the process environment ({why})")
        return None

    def file(self, path: Path, what: str) -> Path | None:
        real = os.path.realpath(path)
        if not _within(real, self.root):
            self._refuse("file", real, f"{what} reads {real}, outside the collection")
        return None if self.record else Path(real)

    def secret(self, source: SecretSource) -> bool:
        if self.record and source not in self.secrets:
            self.secrets.append(source)
        how = {"command": "runs", "keyring": "reads the keychain for", "prompt": "asks for"}
        self._refuse(
            "secret",
            source.describe(),
            f"{how[source.kind]} secret {source.name} ({source.describe()}, {source.origin})",
        )
        return False

    def global_variable(self, name: str) -> bool:
        path = self.collection.globals.path
        self._refuse("global", name, f"reads {name} from {path}, outside the collection")
        return False

    def sources(self, chain: Iterable[Folder], request: Request, environment: str | None) -> None:
        """The files a request's variables and settings were loaded from: a symlink in the
        collection that points out of it would read another file into the request."""
        col = self.collection
        files = [self._collection_file]
        env_name = col.default_environment if environment is None else environment
        env = col.environments.get(env_name or "")
        if env is not None and env.path is not None:
            files.append(os.fspath(env.path))
        shared = col.globals.environments.get(env_name or "")
        if shared is not None and shared is not env and shared.path is not None:
            files.append(os.fspath(shared.path))  # a global one under the collection's
        files += [
            os.path.join(f.path, FOLDER_FILE) for f in chain if f.path is not None and f.has_file
        ]
        if request.path is not None:
            files.append(os.fspath(request.path))
        for path in files:
            real = self._loaded_from(path)
            if real is not None:
                rel = os.path.relpath(path, col.root)
                self._refuse("file", real, f"{rel} is loaded from {real}, outside the collection")


_PATH_FIELDS = tuple(f for f in AUTH_FIELDS if f.path)
_NO_TRANSPORT = Transport()
_PLAIN = frozenset({bool, int, float, type(None)})
_CONTAINERS = frozenset({dict, list, tuple})
_FIELDS: dict[type, Callable[[Any], tuple[Any, ...]]] = {}  # a model class's fields, read at once


def _may_name_env(value: Any) -> bool:
    """Whether any text in ``value`` (a string, a table, a list, a model object and all it
    holds) could hold a ``{{$env.NAME}}`` or ``{{process.env.NAME}}`` placeholder: both have
    ``env.`` in them. What this walk does not know counts as a yes."""
    cls = value.__class__
    if cls is str:
        return "env." in value
    if cls is dict:
        return _any_env(value.keys()) or _any_env(value.values())
    if cls is list or cls is tuple:
        return _any_env(value)
    fields = _FIELDS.get(cls)
    if fields is None and hasattr(cls, "__dataclass_fields__"):
        fields = _FIELDS[cls] = _reader(tuple(cls.__dataclass_fields__))
    if fields is not None:
        return _any_env(fields(value))
    if cls in _PLAIN:
        return False
    if isinstance(value, str):
        return "env." in value
    return not isinstance(value, (int, float, PurePath, date, time))


def _reader(names: tuple[str, ...]) -> Callable[[Any], tuple[Any, ...]]:
    """What reads the fields ``names`` of an object, as a tuple."""
    if len(names) > 1:
        return attrgetter(*names)
    return lambda value: tuple(getattr(value, name) for name in names)


def _any_env(values: Iterable[Any]) -> bool:
    """``_may_name_env`` of any of ``values``; strings and numbers, the most of them, at once."""
    for value in values:
        cls = value.__class__
        if cls is str:
            if "env." in value:
                return True
        elif cls in _PLAIN or (cls in _CONTAINERS and not value):
            continue  # most tables a model object holds (``extra``) are empty
        elif _may_name_env(value):
            return True
    return False


def _reads_file(auth: Auth | None) -> bool:
    """Whether an auth names a file it reads (a signing key)."""
    return auth is not None and any(f.get(auth) for f in _PATH_FIELDS)


class _Quiet:
    """Which requests render without asking the gate anything, told without rendering them:
    before a run of thousands, rendering each one a second time costs more than sending it.

    A render asks the gate for a secret or a global variable (only when a scope holds one),
    for ``$env`` (only through a placeholder that names it, in some text the request or its
    scopes hold), or before it reads a file (a multipart or file body, an auth's key file,
    the certificates and CA bundle of the transport settings). A request clear of all of
    these is quiet; any doubt renders it."""

    def __init__(
        self, collection: Collection, environment: str | None, cli_vars: Mapping[str, Any] | None
    ) -> None:
        self.collection = collection
        self.scopes = self._scopes_quiet(collection, environment, cli_vars)
        self._folders: dict[int, tuple[Folder, bool]] = {}

    @staticmethod
    def _scopes_quiet(
        collection: Collection, environment: str | None, cli_vars: Mapping[str, Any] | None
    ) -> bool:
        glob = collection.globals
        if glob.variables or glob.secrets or collection.secrets:
            return False
        if collection.transport != _NO_TRANSPORT or _reads_file(collection.auth):
            return False
        held: list[Any] = [collection.variables, collection.headers, collection.auth, cli_vars]
        name = collection.default_environment if environment is None else environment
        if name:
            env = collection.environments.get(name)
            if env is None:
                return False  # the render says what is wrong with it
            for each in (env, glob.environments.get(name)):
                if each is not None:
                    if each.secrets or each.transport != _NO_TRANSPORT:
                        return False
                    held.append(each.variables)
        return not _may_name_env(held)

    def _folder(self, folder: Folder) -> bool:
        hit = self._folders.get(id(folder))
        if hit is None or hit[0] is not folder:
            quiet = not _reads_file(folder.auth) and not _may_name_env(
                (folder.variables, folder.headers, folder.auth)
            )
            hit = self._folders[id(folder)] = (folder, quiet)
        return hit[1]

    def __call__(self, chain: list[Folder], request: Request) -> bool:
        return (
            self.scopes
            and request.body.type not in ("multipart", "file")
            and all(map(self._folder, chain))
            and not _reads_file(effective_auth(self.collection, chain, request))
            and not _may_name_env(request)
        )


def needs(
    collection: Collection,
    selection: Iterable[tuple[list[Folder], Request]],
    environment: str | None = None,
    *,
    phases: Iterable[str] = PHASES,
    cli_vars: Mapping[str, Any] | None = None,
) -> list[Need]:
    """What the selected requests want that needs trust, in order, each once per request.

    Each request is rendered with a recording ``Gate`` (no file is read, nothing is sent), so
    a ``$env`` reached through any chain of variables is found exactly as a send would reach
    it. ``phases`` are the script phases that would run (none for ``--no-scripts``). A
    request that could not ask for anything while it renders (``_Quiet``) is not rendered.
    """
    out: list[Need] = []
    gate = Gate(collection, record=True)
    quiet = _Quiet(collection, environment, cli_vars)
    for chain, request in selection:
        rid = request.id or request.name
        for phase in phases:
            for source in script_sources(collection, chain, request, phase):
                out.append(Need(rid, "script", source.filename, f"runs {source.filename}"))
        gate.found = []
        gate.sources(chain, request, environment)
        # A request that cannot render (a bad header, an unknown environment) is never sent
        # either; what it reads up to there is listed.
        if not quiet(chain, request):
            with contextlib.suppress(Exception):
                scopes = build_scopes(
                    collection, chain, request, environment, cli_vars=cli_vars, gate=gate
                )
                render_request(collection, chain, request, scopes)
        if request.kind == "grpc":  # its .proto files and import folders are read too
            from pigeon.rpc import import_dirs, proto_files

            for path in proto_files(collection.root, request):
                gate.file(path, "protos")
            for path in import_dirs(collection.root, request):
                gate.file(path, "import_paths")
        out += [Need(rid, kind, what, thing) for kind, what, thing in gate.found]
    return out


def refusal(root: Path, found: Iterable[Need], *, no_scripts: bool = True) -> list[str]:
    """Why a selection is refused, as the command line says it: each need on its own line,
    then how to trust the collection (``no_scripts``: the command has ``--no-scripts``)."""
    found = list(found)
    scripts = no_scripts and any(need.kind == "script" for need in found)
    more = "; --no-scripts runs without the scripts" if scripts else ""
    return [
        *(f"needs trust: {need}" for need in found),
        f"{root} is not trusted and the requests above need it "
        f"(pass --trust, or trust it in the app{more})",
    ]


def summary(found: Iterable[Need]) -> list[str]:
    """The needs of a whole collection as the prompt lists them: one line per kind."""
    by_kind: dict[str, dict[str, None]] = {kind: {} for kind in KINDS}
    for need in found:
        by_kind[need.kind][need.what] = None
    labels = {
        "script": "Python scripts",
        "env": "environment variables",
        "file": "files outside the collection",
        "secret": "secrets",
        "global": "global variables",
    }
    return [f"{labels[kind]}: {', '.join(names)}" for kind, names in by_kind.items() if names]
