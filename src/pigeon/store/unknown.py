"""Keys Pigeon does not read, found so they are reported, never silently dropped (DESIGN §2).

An unknown key is still kept (``extra``) and written back on save; but a typo such as
``urll``, ``timeot`` or ``[body] text`` (for ``content``) would otherwise send a request
without it and say nothing. Each file's tables are walked with the keys the store knows for
them (``store.schema``), and each key outside them is named with a "did you mean".
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, TypeVar

from pigeon.auth_kinds import FIELDS as AUTH_FIELDS
from pigeon.model import FileWarning
from pigeon.store.schema import (
    AUTH_KEYS,
    BODY_KEYS,
    CERTIFICATE_KEYS,
    COLLECTION_KEYS,
    ENVIRONMENT_KEYS,
    EXAMPLE_KEYS,
    FIELD_KEYS,
    FOLDER_KEYS,
    GRPC_KEYS,
    MESSAGE_KEYS,
    OAUTH2_KEYS,
    PAIR_KEYS,
    REQUEST_KEYS,
    SCRIPT_KEYS,
    SETTINGS_KEYS,
    STREAM_KEYS,
    TRANSPORT_SETTINGS,
    WEBSOCKET_KEYS,
)
from pigeon.tomltext import key_path, locate

T = TypeVar("T")

FREE = None  # a table whose keys are the user's own: variables, OAuth 2.0 params


@dataclass(frozen=True)
class Table:
    """The keys one table knows; ``tables``/``arrays``: the tables (``[name]``) and arrays of
    tables (``[[name]]``) under it, each with its own; ``FREE``: keys of the user's own."""

    keys: tuple[str, ...]
    tables: Mapping[str, Table | None] = field(default_factory=dict)
    arrays: Mapping[str, Table] = field(default_factory=dict)

    def known(self) -> tuple[str, ...]:
        return (*self.keys, *self.tables, *self.arrays)

    @cached_property
    def known_set(self) -> frozenset[str]:
        """``known`` as a set, made once: every file's keys are looked up in it."""
        return frozenset(self.known())


_PAIR = Table(PAIR_KEYS)
_AUTH = Table(AUTH_KEYS + OAUTH2_KEYS, {"params": FREE})
_SCRIPTS = Table(SCRIPT_KEYS)
# How servers are reached, in collection.toml and environment files.
_TRANSPORT = {"settings": Table(TRANSPORT_SETTINGS)}
_CERTIFICATES = {"certificates": Table(CERTIFICATE_KEYS)}

REQUEST = Table(
    REQUEST_KEYS + WEBSOCKET_KEYS + GRPC_KEYS,
    {
        "variables": FREE,
        "body": Table(BODY_KEYS, arrays={"fields": Table(FIELD_KEYS)}),
        "auth": _AUTH,
        "scripts": _SCRIPTS,
        # connect_timeout: kept from an imported curl command, written back by the export
        "settings": Table((*SETTINGS_KEYS, "connect_timeout")),
        "stream": Table(STREAM_KEYS),
    },
    {
        "headers": _PAIR,
        "query": _PAIR,
        "messages": Table(MESSAGE_KEYS),
        "examples": Table(
            tuple(k for k in EXAMPLE_KEYS if k != "headers"), arrays={"headers": _PAIR}
        ),
    },
)
# Kept as written, not read: the notes an import carries over for a collection or a folder.
_NOTES = ("description",)

COLLECTION = Table(
    (*COLLECTION_KEYS, *_NOTES),
    {"variables": FREE, "secrets": FREE, "auth": _AUTH, "scripts": _SCRIPTS, **_TRANSPORT},
    {"headers": _PAIR, **_CERTIFICATES},
)
FOLDER = Table(
    (*FOLDER_KEYS, *_NOTES),
    {"variables": FREE, "auth": _AUTH, "scripts": _SCRIPTS},
    {"headers": _PAIR},
)
ENVIRONMENT = Table(
    ENVIRONMENT_KEYS, {"variables": FREE, "secrets": FREE, **_TRANSPORT}, _CERTIFICATES
)
# $XDG_CONFIG_HOME/pigeon/globals.toml (DESIGN §11)
GLOBALS = Table((), {"variables": FREE, "secrets": FREE})

# Names other tools give a key, for the "did you mean" that spelling alone would not find.
_OTHER_NAMES = {
    "text": "content", "raw": "content", "data": "content", "json": "content",
    "script": "pre_request", "test": "post_response", "tests": "post_response",
    "header": "headers", "params": "query",
    "pre-request": "pre_request", "post-response": "post_response",
    **{other: field.name for field in AUTH_FIELDS for other in field.other_names},
}  # fmt: skip


@dataclass(frozen=True)
class Unknown:
    at: tuple[str | int, ...]  # the key path, for ``tomltext.locate``
    suggestion: str | None  # the known key it was likely meant to be

    @property
    def message(self) -> str:
        hint = f" (did you mean `{self.suggestion}`?)" if self.suggestion else ""
        return f"unknown key `{key_path(self.at)}` is not read{hint}"


def unknown_keys(data: Mapping[str, Any], table: Table) -> list[Unknown]:
    """Every key of ``data`` (a file as ``tomllib`` read it) outside ``table``'s schema."""
    return list(_walk(data, table, (), table))


def _walk(
    data: Mapping[str, Any], table: Table, at: tuple[str | int, ...], root: Table
) -> Iterator[Unknown]:
    known_set = table.known_set
    for key, value in data.items():
        if key in table.tables:
            inner = table.tables[key]
            if inner is not FREE and isinstance(value, Mapping):
                yield from _walk(value, inner, (*at, key), root)
        elif key in table.arrays:
            if isinstance(value, list):
                for i, entry in enumerate(value):
                    if isinstance(entry, Mapping):
                        yield from _walk(entry, table.arrays[key], (*at, key, i), root)
        elif key not in known_set:
            known = table.known()
            yield Unknown((*at, key), _suggest(key, known) or _elsewhere(key, root, at))


def _suggest(key: str, known: tuple[str, ...]) -> str | None:
    other = _OTHER_NAMES.get(key.lower())
    if other in known:
        return other
    close = difflib.get_close_matches(key.lower(), known, n=1, cutoff=0.6)
    return close[0] if close else None


def _elsewhere(key: str, root: Table, at: tuple[str | int, ...]) -> str | None:
    """A key of another table of the file it is close to (``timeout`` at the top of a request
    is ``settings.timeout``), with its table named."""
    places = {"": root.keys} if at else {}
    places.update({name: t.keys for name, t in root.tables.items() if t is not FREE})
    for name, keys in places.items():
        if at[:1] == (name,):
            continue
        found = _suggest(key, keys)
        if found is not None:
            return f"{name}.{found}" if name else found
    return None


def noting_unknown(
    warnings: list[FileWarning],
    path: Path,
    text: str,
    schema: Table,
    build: Callable[[dict[str, Any]], T],
) -> Callable[[dict[str, Any]], T]:
    """``build``, then each unknown key of the data it built from appended to ``warnings``,
    located in ``text`` (a file that does not build has its error, not these)."""

    def checked(data: dict[str, Any]) -> T:
        built = build(data)
        for unknown in unknown_keys(data, schema):
            line, column = locate(text, unknown.at)
            warnings.append(FileWarning(path, unknown.message, line, column))
        return built

    return checked


__all__ = [
    "COLLECTION",
    "ENVIRONMENT",
    "FOLDER",
    "GLOBALS",
    "REQUEST",
    "Table",
    "Unknown",
    "noting_unknown",
    "unknown_keys",
]
