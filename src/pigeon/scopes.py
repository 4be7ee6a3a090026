"""Variable scopes and their precedence (DESIGN §3.3), and the runtime variables scripts set.

Lowest to highest: collection < environment < folder (outer -> inner) < request < runtime <
command line. ``$env`` is a separate namespace: the process environment, then the
collection's ``.env`` for names the environment lacks -- unless a ``Gate`` (``pigeon.trust``,
DESIGN §8) stands in front of it for a collection its user has not trusted.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from pigeon.errors import UsageError
from pigeon.model import Collection, Environment, Folder, Request, SecretSource
from pigeon.values import MASK, check_name, check_value

if TYPE_CHECKING:
    from pigeon.secrets import Vault

SCOPES = ("collection", "environment", "folder", "request", "runtime", "cli")


class _Missing:
    __slots__ = ()

    def __repr__(self) -> str:
        return "MISSING"


MISSING: Any = _Missing()


class UnknownEnvironment(UsageError, KeyError):
    """The environment asked for does not exist in the collection: bad usage (exit 2).

    Still a ``KeyError``, as it always was, for callers that catch that."""

    def __init__(self, name: str, known: list[str]) -> None:
        super().__init__(name)
        self.name = name
        self.known = known

    def __str__(self) -> str:
        known = ", ".join(self.known) or "none"
        return f"unknown environment {self.name!r} (known: {known})"


class RuntimeVars:
    """Variables set by scripts; they live for one app session or one ``pigeon run``.

    Every value is validated on the way in, so the renderer never meets a kind it cannot render.
    """

    def __init__(self, initial: Mapping[str, Any] | None = None) -> None:
        self._vars: dict[str, Any] = {}
        self.version = 0  # bumped on every change, so render caches know they are stale
        for name, value in (initial or {}).items():
            self.set(name, value)

    def set(self, name: str, value: Any) -> None:
        check_name(name)
        self._vars[name] = check_value(value, name)
        self.version += 1

    def get(self, name: str, default: Any = None) -> Any:
        return self._vars.get(name, default)

    def delete(self, name: str) -> None:
        self._vars.pop(name, None)
        self.version += 1

    def clear(self) -> None:
        self._vars.clear()
        self.version += 1

    def items(self) -> Iterator[tuple[str, Any]]:
        return iter(list(self._vars.items()))

    def as_dict(self) -> dict[str, Any]:
        return dict(self._vars)

    def __contains__(self, name: object) -> bool:
        return name in self._vars

    def __len__(self) -> int:
        return len(self._vars)

    @property
    def mapping(self) -> Mapping[str, Any]:
        """The live mapping (read it, don't write it): scopes see later ``set`` calls."""
        return self._vars


class Gate(Protocol):
    """What an untrusted collection may read while it renders (``pigeon.trust.Gate``)."""

    def env(self, name: str, dotenv: Mapping[str, str]) -> str | None:
        """``$env.NAME``'s value, or ``None``; raises ``RenderError`` when refused."""
        ...

    def file(self, path: Path, what: str) -> Path | None:
        """The path to read for ``what`` (symlinks followed), ``None`` to read nothing;
        raises ``RenderError`` when refused."""
        ...

    def secret(self, source: SecretSource) -> bool:
        """Whether a secret may be read now; ``False``: noted, not read; raises
        ``RenderError`` when refused."""
        ...

    def global_variable(self, name: str) -> bool:
        """Whether a variable of ``globals.toml`` may be read, as ``secret``."""
        ...


class SecretVars(Mapping[str, Any]):
    """A scope's ``[secrets]`` as variables: each read from its source when a render first
    asks for it (through the ``Vault``), never before. A peeking vault (a render only shown)
    gives what was already read and ``MASK`` for the rest, as no vault (``pigeon check``)
    does for all: defined, read nowhere. Behind a gate, reading is asked of it first."""

    def __init__(
        self, sources: Mapping[str, SecretSource], vault: Vault | None, gate: Gate | None
    ) -> None:
        self.sources = sources
        self.vault = vault
        self.gate = gate

    def __contains__(self, name: object) -> bool:
        return name in self.sources

    def __getitem__(self, name: str) -> Any:
        source = self.sources[name]
        if self.gate is not None and not self.gate.secret(source):
            return ""  # noted by a recording gate; nothing is read
        if self.vault is None:
            return MASK
        if self.vault.peeking:
            value = self.vault.cached(source)
            return MASK if value is None else value
        return self.vault.resolve(source)

    def __iter__(self) -> Iterator[str]:
        return iter(self.sources)

    def __len__(self) -> int:
        return len(self.sources)

    def __reduce__(self) -> Any:
        """What a script's process gets: the values already read, nothing read for it."""
        return (dict, (self.known(),))

    def known(self) -> dict[str, str]:
        if self.vault is None:
            return {}
        out = {}
        for name, source in self.sources.items():
            value = self.vault.cached(source)
            if value is not None:
                out[name] = value
        return out


class GlobalVars(Mapping[str, Any]):
    """``globals.toml``'s variables behind the trust gate: an untrusted collection may not
    read what lies outside it."""

    def __init__(self, variables: Mapping[str, Any], gate: Gate) -> None:
        self.variables = variables
        self.gate = gate

    def __contains__(self, name: object) -> bool:
        return name in self.variables

    def __getitem__(self, name: str) -> Any:
        value = self.variables[name]
        return value if self.gate.global_variable(name) else ""

    def __iter__(self) -> Iterator[str]:
        return iter(self.variables)

    def __len__(self) -> int:
        return len(self.variables)

    def __reduce__(self) -> Any:
        return (dict, ({},))


@dataclass(frozen=True)
class Definition:
    """One definition of a name: its scope, its value, and a label such as ``folder users``."""

    scope: str
    value: Any
    label: str


@dataclass(frozen=True)
class Layer:
    scope: str
    label: str
    variables: Mapping[str, Any]


class Scopes:
    """The variables visible to one request, looked up highest scope first.

    Layers are read live, so a variable a pre-request script sets is seen by the render that
    follows without rebuilding anything.
    """

    def __init__(
        self,
        layers: list[Layer],
        environ: Mapping[str, str] | None = None,
        dotenv: Mapping[str, str] | None = None,
        runtime: RuntimeVars | None = None,
        gate: Gate | None = None,
    ) -> None:
        self.layers = layers  # lowest -> highest
        self._lookup_order = [layer.variables for layer in reversed(layers)]
        self.environ = os.environ if environ is None else environ
        self.dotenv = dotenv or {}
        self.runtime = runtime
        self.gate = gate  # None: a trusted collection, or a render that is only shown
        self.environment: Environment | None = None  # whose transport settings apply
        self._cache: dict[Any, Any] = {}
        self._secret_names: set[str] | None = None
        self._cache_version = runtime.version if runtime is not None else 0

    def shared_cache(self) -> dict[Any, Any]:
        """Render results that depend only on variables; emptied when runtime variables change.

        The other layers are the model's dicts: whoever edits them builds new ``Scopes``.
        """
        if self.runtime is not None and self.runtime.version != self._cache_version:
            self._cache = {}
            self._cache_version = self.runtime.version
        return self._cache

    def secret(self, name: str) -> bool:
        """Whether ``name``'s winning definition is a secret source: masked where it goes."""
        return name in self.secret_names()

    def secret_names(self) -> set[str]:
        """The names whose winning definition is a secret source, found once. (A class test,
        not ``isinstance``: ``SecretVars`` is a ``Mapping``, whose check is slow, and no class
        derives from it.)"""
        names = self._secret_names
        if names is None:
            names = self._secret_names = set()
            for layer in self.layers:
                variables = layer.variables
                if variables.__class__ is SecretVars:
                    names.update(variables.sources)
                elif layer.scope != "runtime":
                    names.difference_update(variables)
        return names

    def secret_values(self) -> list[str]:
        """The secret values read so far that this request can see."""
        return [
            value
            for layer in self.layers
            if layer.variables.__class__ is SecretVars
            for value in layer.variables.known().values()
        ]

    def get(self, name: str) -> Any:
        """The winning value of ``name``, or ``MISSING``."""
        for variables in self._lookup_order:
            if name in variables:
                return variables[name]
        return MISSING

    def env(self, name: str) -> str | None:
        """``$env.NAME``: the process environment first (so CI secrets win), then ``.env``;
        behind a gate, what the gate allows."""
        if self.gate is not None:
            return self.gate.env(name, self.dotenv)
        value = self.environ.get(name)
        if value is None:
            value = self.dotenv.get(name)
        return value

    def names(self) -> list[str]:
        seen: dict[str, None] = {}
        for layer in self.layers:
            for name in layer.variables:
                seen.setdefault(name, None)
        return list(seen)

    def closest(self, expr: str) -> str | None:
        """The name in scope an unresolved ``expr`` was most likely meant to be (a typo:
        ``tokn`` -> ``token``), with the rest of its path; ``None`` when nothing is close or
        its first name exists (then a key is missing, not mistyped)."""
        import difflib  # only when something is unresolved

        if expr.startswith("$") or self.get(expr) is not MISSING:
            return None
        head = re.match(r"[A-Za-z0-9_-]+", expr)
        if head is None or self.get(head.group()) is not MISSING:
            return None
        names = self.names()
        whole = difflib.get_close_matches(expr, names, n=1)
        if whole or head.group() == expr:
            return whole[0] if whole else None
        close = difflib.get_close_matches(head.group(), names, n=1)
        return close[0] + expr[head.end() :] if close else None

    def explain(self) -> dict[str, list[Definition]]:
        """Every name with all its definitions, the winner first, then those it shadows."""
        out: dict[str, list[Definition]] = {}
        for layer in reversed(self.layers):
            variables = layer.variables
            if isinstance(variables, SecretVars):  # the source, never the value
                for name, source in variables.sources.items():
                    out.setdefault(name, []).append(Definition(layer.scope, source, layer.label))
                continue
            if isinstance(variables, GlobalVars):
                variables = variables.variables
            for name, value in variables.items():
                out.setdefault(name, []).append(Definition(layer.scope, value, layer.label))
        return dict(sorted(out.items(), key=lambda item: item[0].lower()))


def build_scopes(
    collection: Collection,
    chain: list[Folder] | tuple[Folder, ...] = (),
    request: Request | None = None,
    environment: str | None = None,
    runtime: RuntimeVars | None = None,
    cli_vars: Mapping[str, Any] | None = None,
    environ: Mapping[str, str] | None = None,
    cli_label: str = "command line --var",
    gate: Gate | None = None,
    vault: Vault | None = None,
) -> Scopes:
    """Assemble the scopes for a request. ``environment=None`` picks the collection's default;
    ``""`` means no environment. ``cli_vars`` sit above everything; ``cli_label`` says where
    they come from (the app's demo puts its echo server's URL there). ``vault`` reads the
    secrets a render needs (``None``: only those read before are seen). Global variables lie
    under the collection's, a global environment under the collection's of its name."""
    glob = collection.globals
    layers: list[Layer] = []
    if glob.variables:
        variables = glob.variables if gate is None else GlobalVars(glob.variables, gate)
        layers.append(Layer("collection", "globals", variables))
    if glob.secrets:
        layers.append(Layer("collection", "globals", SecretVars(glob.secrets, vault, gate)))
    layers.append(Layer("collection", "collection", collection.variables))
    if collection.secrets:
        layers.append(
            Layer("collection", "collection", SecretVars(collection.secrets, vault, gate))
        )
    env_name = collection.default_environment if environment is None else environment
    env = None
    if env_name:
        env = collection.environments.get(env_name)
        if env is None:
            if environment is not None:
                raise UnknownEnvironment(env_name, sorted(collection.environments))
        else:
            shared = glob.environments.get(env.name)
            for each in (shared, env) if shared is not None and shared is not env else (env,):
                label = f"{'global ' if each.is_global else ''}environment {each.name}"
                layers.append(Layer("environment", label, each.variables))
                if each.secrets:
                    layers.append(
                        Layer("environment", label, SecretVars(each.secrets, vault, gate))
                    )
    for folder in chain:
        layers.append(Layer("folder", f"folder {folder.id or folder.name}", folder.variables))
    if request is not None:
        layers.append(Layer("request", f"request {request.id or request.name}", request.variables))
    if runtime is not None:
        layers.append(Layer("runtime", "runtime (scripts)", runtime.mapping))
    if cli_vars:
        layers.append(Layer("cli", cli_label, dict(cli_vars)))
    scopes = Scopes(layers, environ, collection.dotenv, runtime, gate)
    scopes.environment = env
    return scopes
