"""What every importer shares: the result it returns, its one error, and small rules more than
one format needs (query strings, environment variable names, secrets set aside for ``.env``).

No importer imports another importer: what two of them need lives here.
"""

from __future__ import annotations

import io
import json
import os
import re
from dataclasses import dataclass, field
from fnmatch import fnmatch
from pathlib import Path
from typing import Any
from urllib.parse import unquote_plus

from dotenv.parser import parse_stream

from pigeon.auth_kinds import HAWK_ALGORITHMS, OAUTH1_METHODS
from pigeon.files import create_exclusive, read_capped
from pigeon.model import Auth, Body, Environment, Folder, Header, QueryParam, Request
from pigeon.store import (
    DOTENV_FILE,
    LoadError,
)


class ImportFailed(LoadError, ValueError):
    """The source cannot be read as the format asked for: which file, where and why.

    A ``LoadError`` so that the command line reports it like any unreadable file (exit 2),
    and a ``ValueError`` for callers that only know the source was bad.
    """

    def __init__(
        self,
        message: str,
        path: Path | None = None,
        line: int | None = None,
        column: int | None = None,
    ) -> None:
        super().__init__(path, line, column, message)

    def __str__(self) -> str:
        return str(self.as_broken()) if self.path is not None else self.message


@dataclass
class ImportResult:
    """What an importer found.

    ``requests`` pairs each request with its folder path: display names joined by ``/``
    (``""`` for the collection's top level). ``folders`` holds folder-level settings (auth,
    headers, variables) for the folder whose ``id`` is that same path; folders that only
    group requests need no entry. ``notes`` lists what could not be carried over, one line
    each.
    """

    requests: list[tuple[str, Request]] = field(default_factory=list)
    folders: list[Folder] = field(default_factory=list)
    variables: dict[str, Any] = field(default_factory=dict)
    environments: list[Environment] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    name: str = ""  # the source's own name for the collection, if it has one
    auth: Auth | None = None  # collection-level auth
    headers: list[Header] = field(default_factory=list)  # collection-level headers
    description: str = ""
    # Client certificates for collection.toml's [[certificates]] (host, cert, key, password).
    certificates: list[dict[str, str]] = field(default_factory=list)
    # Secret values set aside for the collection's .env (``write_dotenv``), never in TOML.
    secrets: list[Secret] = field(default_factory=list)

    def note(self, message: str) -> None:
        if message not in self.notes:
            self.notes.append(message)

    def extend(self, other: ImportResult) -> None:
        """Add another result's requests, folders, variables, secrets and notes to this one."""
        self.requests.extend(other.requests)
        self.folders.extend(other.folders)
        for key, value in other.variables.items():
            self.variables.setdefault(key, value)
        self.environments.extend(other.environments)
        self.secrets.extend(s for s in other.secrets if s not in self.secrets)
        for n in other.notes:
            self.note(n)


FILE_LIMIT = 10_000_000  # the largest local file an import reads (it is copied into a request)


@dataclass
class LocalFiles:
    """Which local files an import may read: only those inside ``root`` (the source's own
    directory, or the current directory for a command given as text), symlinks followed, unless
    ``allow_outside``. Devices, FIFOs and directories are never read (a FIFO would block)."""

    root: Path
    allow_outside: bool = False

    def __post_init__(self) -> None:
        self.root = Path(os.path.realpath(self.root))

    def allowed(self, path: Path | str, result: ImportResult) -> Path | None:
        """``path`` resolved (relative to ``root``, ``~`` expanded, symlinks followed) if the
        import may read or refer to it, else ``None`` and a note (one per file)."""
        try:
            real = Path(os.path.realpath(self.root / os.path.expanduser(path)))
        except (ValueError, OSError):  # a NUL in the name, a symlink loop
            result.note(f"file {str(path)!r} cannot be a file name; not read")
            return None
        if not self.allow_outside and not real.is_relative_to(self.root):
            result.note(f"file {real} is outside {self.root}; not read (use --allow-outside)")
            return None
        return real

    @staticmethod
    def read(path: Path) -> bytes:
        """The bytes of a regular file of at most ``FILE_LIMIT`` (it is copied into the
        collection); ``OSError`` for anything else (a FIFO, a device, a directory, a file
        over the limit), checked before opening and again on what was opened."""
        return read_capped(path, FILE_LIMIT)


def file_body(ref: str, files: LocalFiles, result: ImportResult, what: str) -> Body | None:
    """A file body (DESIGN §11) naming ``ref`` where it is, relative to the source's directory:
    the file is never read, only named. ``None``, noted, when the import may not refer to it
    (outside the source's directory) or it is a folder, FIFO or device; a missing file is
    kept, noted, since sending fails until there is one. A path with placeholders is kept as
    written."""
    if "{{" in ref:
        return Body(type="file", path=ref)
    real = files.allowed(ref, result)
    if real is None:
        return None
    path = Path(os.path.abspath(files.root / os.path.expanduser(ref)))
    if not real.exists():
        result.note(f"{what}: no file at {path}; sending fails until there is")
    elif not real.is_file():
        result.note(f"{what}: {path} is not a regular file; not carried over")
        return None
    return Body(type="file", path=str(path))


@dataclass
class Secret:
    """A secret-looking value of a Posting ``.env`` file, kept out of the TOML files."""

    name: str  # its name in the collection's .env: the environments hold {{$env.NAME}}
    value: str
    source: str  # the Posting file it came from
    note: str  # what the import says of it until the value is written to .env


def set_aside(result: ImportResult, hint: str, value: str, source: str, where: str) -> str:
    """A secret-looking value (a password, a token) kept out of the TOML files: it is set
    aside for the collection's ``.env`` and ``{{$env.NAME}}`` is written in its place. A
    value that is empty or holds a placeholder is already not a secret on disk: it is
    returned as it is. One value keeps one name; another value under that name gets
    ``NAME_2``."""
    if not value or "{{" in value:
        return value
    base = env_name(hint)
    n = 1
    while True:
        name = base if n == 1 else f"{base}_{n}"
        same = next((s for s in result.secrets if s.name == name), None)
        if same is None or same.value == value:
            break
        n += 1
    if same is None:
        note = (
            f"{where}: a secret written as {{{{$env.{name}}}}}: put {name}=... in the "
            "collection's .env"
        )
        result.secrets.append(Secret(name, value, source, note))
        result.note(note)
    return "{{$env." + name + "}}"


_HEADER_NAME = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")
_CONTROL = re.compile(r"[\x00-\x08\x0a-\x1f\x7f]")


def clean_header(
    name: str, value: str, enabled: bool, where: str, result: ImportResult
) -> Header | None:
    """A header Pigeon can send, or ``None`` and a note: a name that is not a token, or a
    value with a line break or another control character (a header smuggled in), is dropped."""
    name = name.strip()
    if not _HEADER_NAME.fullmatch(name) or _CONTROL.search(value):
        result.note(f"{where}: header {name!r} has characters a header cannot hold; dropped")
        return None
    return Header(name, value, enabled=enabled)


def safe_name(name: str, fallback: str, folder: bool = True) -> str:
    """A display name with no control characters and, for a ``folder`` name, no ``/`` (the
    separator of folder paths)."""
    cleaned = " ".join(_CONTROL.sub(" ", name.replace("\t", " ")).split())
    return (cleaned.replace("/", "-") if folder else cleaned).strip() or fallback


def folder_path(taken: set[str], parent: str, name: str, result: ImportResult) -> str:
    """The path of folder ``name`` under ``parent``, one no other folder has: two sibling
    folders of one name (another tool allows that) would otherwise merge, one's settings given
    to the other's requests. The new name is noted; the path is added to ``taken``."""
    path = f"{parent}/{name}" if parent else name
    n = 2
    while path in taken:
        path = f"{parent}/{name} ({n})" if parent else f"{name} ({n})"
        n += 1
    if n > 2:
        result.note(
            f"folder {path.rsplit('/', 1)[0] + '/' if parent else ''}{name}: another folder has "
            f"the same name; imported as {path.rsplit('/', 1)[-1]!r}"
        )
    taken.add(path)
    return path


# -- reading other tools' documents ----------------------------------------------------------
#
# An import reads JSON and YAML written by other tools (or by someone hostile): a value of the
# wrong type is skipped or stringified, never a crash.


def as_dict(value: Any) -> dict[str, Any]:
    """``value`` if it is an object, else an empty one: malformed input is skipped, not fatal."""
    return value if isinstance(value, dict) else {}


def as_list(value: Any) -> list[Any]:
    """``value`` if it is an array, else an empty one."""
    return value if isinstance(value, list) else []


def as_text(value: Any) -> str:
    """A value as text: strings as they are, ``None`` as "", anything else as compact JSON."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, default=str)


# -- small rules more than one format needs ------------------------------------------------------


def split_query(url: str) -> tuple[str, list[QueryParam]]:
    """Take the query string out of ``url`` as decoded parameters when that is lossless.

    A query with a part that is not ``name=value`` (``?flag``) stays in the URL, as does a
    part whose decoded text would read as a placeholder it was not before.
    """
    base, hash_, fragment = url.partition("#")
    path, q, query = base.partition("?")
    if not q or not query:
        return url, []
    params: list[QueryParam] = []
    for piece in query.split("&"):
        if not piece:
            continue
        name, eq, value = piece.partition("=")
        if not eq:
            return url, []
        dn, dv = unquote_plus(name), unquote_plus(value)
        if ("{{" in dn and "{{" not in name) or ("{{" in dv and "{{" not in value):
            return url, []
        params.append(QueryParam(name=dn, value=dv))
    return path + hash_ + fragment, params


def env_name(key: str) -> str:
    """A variable name as an environment variable name: ``api.key`` -> ``API_KEY``."""
    name = re.sub(r"[^A-Za-z0-9]+", "_", key).strip("_").upper()
    return name if name and not name[0].isdigit() else f"V_{name}"


# -- the collection's .env ----------------------------------------------------------------------

_PLAIN_VALUE = re.compile(r"[A-Za-z0-9_./:@+,-]*")


def _dotenv_line(name: str, value: str) -> str:
    """``NAME=value`` as python-dotenv reads it back literally (single quotes when needed)."""
    if _PLAIN_VALUE.fullmatch(value):
        return f"{name}={value}\n"
    return f"{name}='" + value.replace("\\", "\\\\").replace("'", "\\'") + "'\n"


def _ignores_dotenv(gitignore: str) -> bool:
    """Whether a ``.gitignore`` text ignores the ``.env`` beside it (its last match wins)."""
    ignored = False
    for line in gitignore.splitlines():
        pattern = line.strip()
        if not pattern or pattern.startswith("#"):
            continue
        negated = pattern.startswith("!")
        pattern = pattern.lstrip("!").rstrip("/").removeprefix("/").removeprefix("**/")
        if "/" not in pattern and fnmatch(DOTENV_FILE, pattern):
            ignored = not negated
    return ignored


def write_dotenv(result: ImportResult, into: Path) -> list[Path]:
    """Write the secrets an import set aside (``result.secrets``) into the collection's ``.env``,
    which its ``.gitignore`` ignores; return the files written.

    An import writes only new files: ``.env`` is created only when it does not exist
    (owner-only permissions), after a new ``.gitignore``, so the secrets are never in a file
    git would pick up. An existing ``.gitignore`` is never changed: when it does not ignore
    ``.env``, or ``.env`` exists, each secret not written keeps one note saying so. A secret
    that is written loses its note.
    """
    secrets: list[Secret] = list(getattr(result, "secrets", []))
    if not secrets:
        return []
    into = Path(into)
    into.mkdir(parents=True, exist_ok=True)
    dotenv = into / DOTENV_FILE
    for secret in secrets:
        if secret.note in result.notes:
            result.notes.remove(secret.note)
    ignore = into / ".gitignore"
    if ignore.is_symlink():
        for secret in secrets:
            result.note(
                f"{secret.name} (from {secret.source}) not written: {ignore} is a link, so "
                f"Pigeon cannot make sure git ignores {dotenv}; add {secret.name}=... yourself"
            )
        return []
    if os.path.lexists(dotenv):
        existing = _dotenv_values(dotenv)
        for secret in secrets:
            if existing.get(secret.name) == secret.value:
                continue
            have = "holds another value for it" if secret.name in existing else "lacks it"
            result.note(
                f"{secret.name} (from {secret.source}) not written: {dotenv} already exists and "
                f"{have}; add {secret.name}=... there yourself"
            )
        return []
    try:
        written = _ignore_dotenv(ignore)
    except _NotIgnored:
        for secret in secrets:
            result.note(
                f"{secret.name} (from {secret.source}) not written: {ignore} does not ignore "
                f"{DOTENV_FILE}; add {DOTENV_FILE} to it and {secret.name}=... to {dotenv} yourself"
            )
        return []
    fd = os.open(dotenv, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
        fh.write("# Secrets of the imported environments (git-ignored).\n")
        fh.writelines(_dotenv_line(s.name, s.value) for s in secrets)
    return [*written, dotenv]


def _dotenv_values(path: Path) -> dict[str, str]:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return {}
    return {
        b.key: b.value
        for b in parse_stream(io.StringIO(text))
        if not b.error and b.key is not None and b.value is not None
    }


class _NotIgnored(Exception):
    """The collection's own ``.gitignore`` does not ignore ``.env``, and an import never edits it."""


def _ignore_dotenv(ignore: Path) -> list[Path]:
    """A new ``.gitignore`` that ignores ``.env`` (an exclusive create), the file written; or
    none when the existing one (read, never followed) ignores it already; ``_NotIgnored``
    when it does not."""
    try:
        create_exclusive(
            ignore, "# Secrets and per-user state never go into git.\n.env\n.pigeon/\n"
        )
        return [ignore]
    except FileExistsError:
        pass
    fd = os.open(ignore, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    with os.fdopen(fd, encoding="utf-8", errors="replace", newline="") as fh:
        text = fh.read()
    if not _ignores_dotenv(text):
        raise _NotIgnored
    return []


def oauth1_signature(method: str, where: str, result: ImportResult) -> str:
    """The OAuth 1.0a signature Pigeon makes for another tool's ``method`` (HMAC-SHA1 when
    none): one it does not make falls back to its family's, with a note."""
    method = method or "HMAC-SHA1"
    if method in OAUTH1_METHODS:
        return method
    fallback = "RSA-SHA1" if method.startswith("RSA") else "HMAC-SHA1"
    result.note(f"{where}: OAuth 1.0a's {method} signature is not supported; {fallback} is used")
    return fallback


def hawk_algorithm(algorithm: str, where: str, result: ImportResult) -> str:
    """The Hawk algorithm Pigeon uses for another tool's: one it does not know is sha256,
    with a note."""
    if algorithm in HAWK_ALGORITHMS:
        return algorithm
    result.note(f"{where}: Hawk's {algorithm} is not supported; sha256 is used")
    return "sha256"
