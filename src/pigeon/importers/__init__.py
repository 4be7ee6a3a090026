"""Bring requests from other tools into a Pigeon collection (`pigeon import`, DESIGN §6).

Every importer turns its source into an :class:`ImportResult` (plain model objects plus notes
on what could not be carried over); :func:`write_import` then writes the result as collection
files and never replaces a file that is already there, so importing twice, or into a
collection in use, loses nothing.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pigeon.importers.common import ImportFailed, ImportResult, Secret, write_dotenv
    from pigeon.importers.write import sanitize, write_import

KINDS = ("curl", "postman", "openapi", "http", "posting", "insomnia", "har", "bruno", "grpcurl")
"""Every kind ``pigeon import`` takes, the one list of them: the command line's choices read it.
Nothing heavy is imported to reach it, so the command line starts as fast without it."""

_LAZY = {
    "ImportFailed": "pigeon.importers.common",
    "ImportResult": "pigeon.importers.common",
    "Secret": "pigeon.importers.common",
    "write_dotenv": "pigeon.importers.common",
    "sanitize": "pigeon.importers.write",
    "write_import": "pigeon.importers.write",
}


def __getattr__(name: str) -> Any:
    """The importers' names, loaded on first use (PEP 562) so that reading ``KINDS`` is cheap."""
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# -- dispatch ---------------------------------------------------------------------------------


def _read_source(source: str, kind: str) -> tuple[str, Path | None]:
    """The text to import and the file it came from (``None`` for inline text or stdin)."""
    from pigeon.importers.common import ImportFailed
    from pigeon.importers.documents import read_document, read_stream

    if source == "-":
        return read_stream(sys.stdin), None
    if "\n" not in source and len(source) < 4096:
        path = Path(source).expanduser()
        if path.is_file():
            return read_document(path), path
        if path.is_dir() and kind in ("posting", "bruno"):
            return "", path
        if kind not in ("curl", "grpcurl") and not source.lstrip().startswith(("{", "[")):
            raise ImportFailed(f"{source}: no such file")
    return source, None


def parse(kind: str, source: str, allow_outside: bool = False) -> ImportResult:
    """Parse ``source`` (a path, ``-`` for stdin, or the text itself) as ``kind``.

    The import reads no local file outside the source's directory (the current directory for
    text), symlinks followed, unless ``allow_outside``; each file it leaves is noted."""
    from pigeon.importers.common import ImportFailed

    if kind not in KINDS:
        raise ImportFailed(f"unknown import kind {kind!r} (one of: {', '.join(KINDS)})")
    text, path = _read_source(source, kind)
    if kind == "curl":
        from pigeon.importers.curl import parse_curl

        return parse_curl(text, path.parent if path else None, allow_outside)
    if kind == "postman":
        from pigeon.importers.postman import parse_postman

        return parse_postman(text, path, allow_outside)
    if kind == "http":
        from pigeon.importers.http_file import parse_http_file

        return parse_http_file(text, path, allow_outside)
    if kind == "grpcurl":
        from pigeon.importers.grpcurl import parse_grpcurl

        return parse_grpcurl(text)
    if kind == "openapi":
        from pigeon.importers.openapi import parse_openapi

        return parse_openapi(text, path)
    if kind == "insomnia":
        from pigeon.importers.insomnia import parse_insomnia

        return parse_insomnia(text, path, allow_outside)
    if kind == "har":
        from pigeon.importers.har import parse_har

        return parse_har(text, path)
    if kind == "bruno":
        from pigeon.importers.bruno import parse_bruno

        if path is None:
            raise ImportFailed("bruno: give a collection directory (the one with bruno.json)")
        return parse_bruno(path, allow_outside)
    from pigeon.importers.posting import parse_posting

    if path is None:
        raise ImportFailed("posting: give a collection directory or a .posting.yaml file")
    return parse_posting(path, allow_outside)


def run_import(
    kind: str, source: str, into: Path | None, allow_outside: bool = False
) -> tuple[list[Path], list[str]]:
    """Parse and write; returns (files written, notes on what was not carried over).
    ``allow_outside``: see :func:`parse`.

    ``into`` defaults to the current directory. Raises :class:`ImportFailed` (a
    ``ValueError``) with a one-line message when the source cannot be imported.
    """
    from pigeon.errors import SaveError
    from pigeon.importers.common import ImportFailed, write_dotenv
    from pigeon.importers.write import write_import

    try:
        result = parse(kind, source, allow_outside)
    except RecursionError:  # every reader bounds nesting; this is the net under them
        raise ImportFailed(f"{kind}: the source nests too deeply to import") from None
    if not result.requests and not result.environments:
        raise ImportFailed(
            f"{kind}: no requests found in {source if len(source) < 80 else 'the input'}"
        )
    target = Path.cwd() if into is None else into
    try:
        written = write_import(result, target)
        written += write_dotenv(result, target)
    except SaveError as exc:
        raise ImportFailed(
            f"import stopped, nothing more was written: {exc}", Path(target)
        ) from exc
    except OSError as exc:
        raise ImportFailed(
            f"cannot write into {target}: {exc.strerror or exc}", Path(target)
        ) from exc
    return written, list(result.notes)


__all__ = [
    "KINDS",
    "ImportFailed",
    "ImportResult",
    "Secret",
    "parse",
    "run_import",
    "sanitize",
    "write_dotenv",
    "write_import",
]
