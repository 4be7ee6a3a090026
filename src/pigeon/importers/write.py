"""Writing an import as collection files: names made safe, settings carried to the right level,
and never a file replaced (an existing ``collection.toml`` only gains what it lacks), so
importing twice, or into a collection in use, loses nothing.

Every file is made by an exclusive create (``files.create_exclusive``), never by a check and a
write: two imports into one directory at once each keep their own files (the second takes
``name-2.toml``), and only the one that created ``collection.toml`` or a ``folder.toml`` fills
in its order afterwards. Nothing is written through a link that leads out of the target
directory: such a folder is passed over for a new one, with a note.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pigeon.errors import LoadError, SaveError
from pigeon.files import create_exclusive
from pigeon.importers.common import ImportFailed, ImportResult
from pigeon.model import (
    Auth,
    Collection,
    Environment,
    Folder,
    FormField,
    Header,
    QueryParam,
    Request,
)
from pigeon.store import (
    COLLECTION_FILE,
    ENVIRONMENTS_DIR,
    FOLDER_FILE,
    RESERVED_STEMS,
    ChangedOnDisk,
    collection_to_toml,
    environment_to_toml,
    folder_to_toml,
    load_collection,
    request_from_toml,
    request_to_toml,
    save_collection_file,
    save_folder_file,
    slugify,
)
from pigeon.store.seen import digest
from pigeon.store.write import check_collection, check_environment, check_folder
from pigeon.tomltext import read_text
from pigeon.tomlwrite import value_text
from pigeon.values import MAX_DEPTH, check_value, too_deep

# -- names and values TOML can hold ---------------------------------------------------------

_BAD_NAME_CHARS = re.compile(r"[^A-Za-z0-9_.-]+")


def _writable(value: Any) -> Any:
    """A variable value as TOML can store it: null becomes "", anything odd becomes JSON text
    (objects and arrays nested past ``values.MAX_DEPTH`` are refused by the caller)."""
    if value is None:
        return ""
    try:
        return check_value(value, "value")
    except ValueError:
        return json.dumps(value, ensure_ascii=False, default=str)


def sanitize(result: ImportResult) -> None:
    """Rename variables whose names Pigeon refuses (``base url`` -> ``base_url``), rewriting
    their placeholders, and make every value storable; each rename is noted."""
    renames: dict[str, str] = {}

    def fix(variables: dict[str, Any]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for name, value in variables.items():
            new = name
            if not re.fullmatch(r"[A-Za-z0-9_.-]+", name):
                new = renames.get(name) or _BAD_NAME_CHARS.sub("_", name).strip("_") or "var"
                if name not in renames:
                    renames[name] = new
                    result.note(
                        f"variable {name!r} renamed to {new!r} (names are letters, digits, _ . -)"
                    )
            if too_deep(value):
                result.note(
                    f"variable {new}: objects and arrays nest more than {MAX_DEPTH} levels deep; "
                    'its value is dropped (imported as "")'
                )
                value = ""
            out[new] = _writable(value)
        return out

    result.variables = fix(result.variables)
    for env in result.environments:
        env.variables = fix(env.variables)
    for folder in result.folders:
        folder.variables = fix(folder.variables)
    for _, req in result.requests:
        req.variables = fix(req.variables)
    if not renames:
        return
    patterns = [
        (re.compile(r"\{\{\s*" + re.escape(old) + r"\s*\}\}"), "{{" + new + "}}")
        for old, new in renames.items()
    ]

    def rewrite(text: str) -> str:
        for pattern, replacement in patterns:
            text = pattern.sub(replacement, text)
        return text

    def rewrite_auth(auth: Auth | None) -> None:
        if auth is not None:
            for attr in ("username", "password", "token", "key", "value"):
                setattr(auth, attr, rewrite(getattr(auth, attr)))

    rewrite_auth(result.auth)
    for h in result.headers:
        h.value = rewrite(h.value)
    for folder in result.folders:
        rewrite_auth(folder.auth)
        for h in folder.headers:
            h.value = rewrite(h.value)
    for env in result.environments:
        env.variables = {
            k: rewrite(v) if isinstance(v, str) else v for k, v in env.variables.items()
        }
    result.variables = {
        k: rewrite(v) if isinstance(v, str) else v for k, v in result.variables.items()
    }
    for _, req in result.requests:
        req.url = rewrite(req.url)
        req.body.content = rewrite(req.body.content)
        items: list[Header | QueryParam | FormField] = [*req.headers, *req.query, *req.body.fields]
        for item in items:
            item.name, item.value = rewrite(item.name), rewrite(item.value)
        rewrite_auth(req.auth)


# -- writing ----------------------------------------------------------------------------------


def _segment(name: str, fallback: str) -> str:
    stem = slugify(name) or fallback
    return f"{stem}-1" if stem in RESERVED_STEMS else stem


def _create(path: Path, text: str, parse: Callable[[str, Path], object]) -> None:
    """Create ``path`` holding ``text`` (``FileExistsError`` if anything, a link included, has
    that name); text that would not load back is refused."""
    try:
        parse(text, path)
    except LoadError as exc:
        raise SaveError(f"not saved, the result would not load back: {exc}") from exc
    create_exclusive(path, text)


def _create_free(
    directory: Path, stem: str, text: str, parse: Callable[[str, Path], object], taken: set[Path]
) -> Path:
    """Create ``stem.toml``, else ``stem-2.toml``, ``stem-3.toml``... : the first name free at
    the moment of the exclusive create, so a name taken meanwhile is passed over."""
    n = 0
    while True:
        n += 1
        candidate = directory / (f"{stem}.toml" if n == 1 else f"{stem}-{n}.toml")
        if candidate in taken or os.path.lexists(candidate):
            continue
        try:
            _create(candidate, text, parse)
        except FileExistsError:
            continue
        taken.add(candidate)
        return candidate


def _inside(path: Path, root: Path) -> bool:
    return Path(os.path.realpath(path)).is_relative_to(root)


def _directory(parent: Path, name: str, root: Path, result: ImportResult) -> tuple[Path, bool]:
    """The directory ``parent/name`` (``name-2``... when that name is a file or a link out of
    ``root``) and whether this import made it."""
    n = 0
    while True:
        n += 1
        d = parent / (name if n == 1 else f"{name}-{n}")
        try:
            d.mkdir()
            return d, True
        except FileExistsError:
            pass
        if not _inside(d, root):
            result.note(
                f"{d} is a link to {os.path.realpath(d)}, outside {root}; "
                "nothing is written through it"
            )
        elif d.is_dir():
            return d, False


def _toml_key(key: str) -> str:
    return key if re.fullmatch(r"[A-Za-z0-9_-]+", key) else json.dumps(key)


def _toml_inline(value: Any) -> str:
    """A value as it would be typed on one line of a TOML file."""
    if isinstance(value, dict):
        inner = ", ".join(f"{_toml_key(str(k))} = {_toml_inline(v)}" for k, v in value.items())
        return "{ " + inner + " }" if inner else "{}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml_inline(v) for v in value) + "]"
    return value_text(value)


def _variable_notes(
    result: ImportResult, variables: dict[str, Any], have: dict[str, Any], file: str
) -> None:
    """One note per variable that ``file`` (which exists, so is left alone) does not take."""
    for key, value in variables.items():
        if key not in have:
            result.note(
                f"variable {key} not written: {file} exists; "
                f"add {_toml_key(key)} = {_toml_inline(value)} by hand"
            )
        elif have[key] != value:
            result.note(
                f"variable {key} not written: {file} exists and keeps "
                f"{_toml_key(key)} = {_toml_inline(have[key])} (imported: {_toml_inline(value)})"
            )


def _merge_collection(path: Path, result: ImportResult, existing: Collection) -> None:
    """Give the existing ``collection.toml`` the import's variables it lacks, and its auth when
    it has none: added, never overwriting (what differs is noted by the caller). The file is
    edited where it stands (its comments and layout kept) and re-read when another writer
    changed it meanwhile, so a concurrent import's edit is never undone."""
    for _ in range(20):
        text = read_text(path)
        col = check_collection(text, path)
        col.seen[path] = digest(text)
        added = [k for k in result.variables if k not in col.variables]
        col.variables.update((k, result.variables[k]) for k in added)
        auth = result.auth is not None and result.auth.type != "none" and col.auth is None
        if auth:
            col.auth = result.auth
        if added or auth:
            try:
                save_collection_file(col, seen=col.seen)
            except ChangedOnDisk:
                continue
            what = [f"variable{'s' if len(added) > 1 else ''} {', '.join(added)}"] if added else []
            what += [f"auth ({col.auth.type})"] if auth and col.auth else []
            result.note(f"{COLLECTION_FILE} exists: {' and '.join(what)} added to it")
        existing.variables, existing.auth = col.variables, col.auth
        return
    result.note(f"{COLLECTION_FILE} kept changing while importing: nothing added to it")


@dataclass
class _Level:
    """Settings of one level above the imported requests (a folder or the collection) and
    whether its file carries them; those it cannot carry are copied onto each request."""

    label: str  # "collection.toml", "users/folder.toml"
    auth: Auth | None
    headers: list[Header]
    written: bool  # its file is written by this import, or already says the same
    existing_auth: Auth | None = None
    existing_headers: list[Header] = field(default_factory=list)


def _carry(req: Request, levels: list[_Level], result: ImportResult) -> None:
    """Give ``req`` the auth and headers it would inherit from levels whose files are not
    written (innermost level first): the nearest auth wins, inner headers shadow outer ones."""
    names = {h.name.lower() for h in req.headers}
    added: list[Header] = []
    auth_settled = req.auth is not None
    for level in levels:
        if not auth_settled and level.auth is not None:
            auth_settled = True
            if not level.written and level.auth != level.existing_auth:
                req.auth = level.auth
                result.note(
                    f"auth ({level.auth.type}) not written: {level.label} exists; "
                    "set on each imported request under it instead"
                )
        for h in level.headers:
            if h.name.lower() in names:
                continue
            names.add(h.name.lower())
            same = any(
                e.name.lower() == h.name.lower() and e.value == h.value and e.enabled == h.enabled
                for e in level.existing_headers
            )
            if not level.written and not same:
                added.append(h)
                result.note(
                    f"header {h.name} not written: {level.label} exists; "
                    "set on each imported request under it instead"
                )
    if added:
        req.headers = [Header(h.name, h.value, h.enabled, dict(h.extra)) for h in added] + list(
            req.headers
        )


def write_import(result: ImportResult, into: Path) -> list[Path]:
    """Write ``result`` as collection files under ``into``; return the paths written.

    Only new files are written, but for what an existing ``collection.toml`` lacks. A missing
    ``collection.toml`` is created with the result's variables, auth and headers; when one
    exists, the variables it lacks are added to it, and the auth when it has none (never
    overwriting: each variable it sets otherwise is named in ``result.notes``), and an auth
    it sets otherwise and the headers are copied onto the imported requests so that they are
    still sent. Folder and environment files that exist are left alone, what they do not take
    named in the notes. Request files never collide: a new name (``name-2.toml``) is chosen.
    """
    into = Path(into)
    into.mkdir(parents=True, exist_ok=True)
    root = Path(os.path.realpath(into))
    sanitize(result)
    written: list[Path] = []
    taken: set[Path] = set()
    col_path = into / COLLECTION_FILE
    col = Collection(
        name=result.name or root.name,
        root=into,
        variables=dict(result.variables),
        headers=list(result.headers),
        auth=result.auth,
    )
    if result.description:
        col.extra["description"] = result.description
    if result.certificates:
        col.extra["certificates"] = list(result.certificates)
    try:  # claimed now, its order filled in at the end: the collection is this import's
        _create(col_path, collection_to_toml(col), check_collection)
        new_collection = True
    except FileExistsError:
        new_collection = False
    # What is on disk already: only read when it is a collection (``into`` may be any folder).
    existing = Collection(name="", root=into) if new_collection else load_collection(into)
    if any(b.path == col_path for b in existing.broken) or (
        not new_collection and not col_path.is_file()
    ):
        raise ImportFailed(f"{col_path} does not load; fix it before importing into it")
    folder_settings = {f.id.strip("/"): f for f in result.folders}

    if not new_collection:
        _merge_collection(col_path, result, existing)
        _variable_notes(result, result.variables, existing.variables, COLLECTION_FILE)
        if result.certificates:
            result.note(f"{COLLECTION_FILE} exists: its client certificates are not changed")
    top = _Level(
        COLLECTION_FILE,
        result.auth,
        list(result.headers),
        written=new_collection,
        existing_auth=existing.auth,
        existing_headers=existing.headers,
    )

    # Folders: one directory per path segment. folder.toml is written where none exists: in
    # new directories always (it keeps the imported order), in existing ones only to hold
    # imported settings.
    top_order: list[str] = []
    orders: dict[Path, list[str]] = {}
    created_dirs: dict[str, Path] = {"": into}
    new_dirs: set[Path] = set()
    claimed: set[Path] = set()  # directories whose folder.toml this import created
    levels: dict[str, _Level] = {}

    def directory_for(folder_path: str) -> Path:
        folder_path = folder_path.strip("/")
        if folder_path in created_dirs:
            return created_dirs[folder_path]
        parent_path, _, name = folder_path.rpartition("/")
        parent = directory_for(parent_path)
        segment = _segment(name, "folder")
        if segment == ENVIRONMENTS_DIR and parent == into:
            segment = f"{ENVIRONMENTS_DIR}-1"
        d, made = _directory(parent, segment, root, result)
        if made:
            new_dirs.add(d)
        created_dirs[folder_path] = d
        (orders.setdefault(parent, top_order if parent == into else [])).append(d.name)
        orders.setdefault(d, [])
        return d

    def level_for(key: str) -> _Level | None:
        """The settings the import has for folder ``key``, and whether folder.toml takes them."""
        settings = folder_settings.get(key)
        if settings is None:
            return None
        if key in levels:
            return levels[key]
        directory = directory_for(key)
        rel = directory.relative_to(into).as_posix()
        label = f"{rel}/{FOLDER_FILE}"
        folder = _folder(key, directory, settings)
        try:  # claimed now: the requests under it rely on it holding these settings
            _create(directory / FOLDER_FILE, folder_to_toml(folder), check_folder)
            writable = True
            written.append(directory / FOLDER_FILE)
            claimed.add(directory)
        except FileExistsError:
            writable = False
        on_disk = existing.find_folder(rel)
        level = _Level(
            label,
            settings.auth,
            list(settings.headers),
            written=writable,
            existing_auth=on_disk.auth if on_disk else None,
            existing_headers=on_disk.headers if on_disk else [],
        )
        if not writable:
            have = on_disk.variables if on_disk else {}
            _variable_notes(result, settings.variables, have, label)
            scripts = settings.scripts
            if scripts.pre_request or scripts.post_response:
                result.note(
                    f"scripts of folder {key} not written: {label} exists; copy them by hand"
                )
        levels[key] = level
        return level

    for folder_path, req in result.requests:
        directory = directory_for(folder_path)
        segments = folder_path.strip("/").split("/") if folder_path.strip("/") else []
        chain = [level_for("/".join(segments[:depth])) for depth in range(len(segments), 0, -1)]
        _carry(req, [lv for lv in chain if lv is not None] + [top], result)
        req.path = None
        stem = _segment(req.name, "request")
        target = _create_free(directory, stem, request_to_toml(req), request_from_toml, taken)
        req.path = target
        written.append(target)
        bucket = orders.setdefault(directory, top_order if directory == into else [])
        if directory == into:
            bucket = top_order
        bucket.append(target.stem)
    for key in folder_settings:
        if key:
            level_for(key)

    for key, directory in created_dirs.items():
        if not key or directory not in new_dirs:
            continue  # the top, or an existing folder: its folder.toml was claimed, or not
        folder = _folder(key, directory, folder_settings.get(key))
        folder.order = _dedupe(orders.get(directory, []))
        if directory in claimed:  # this import's own file, holding its settings already
            save_folder_file(folder)
            continue
        try:
            _create(directory / FOLDER_FILE, folder_to_toml(folder), check_folder)
            written.append(directory / FOLDER_FILE)
        except FileExistsError:
            result.note(f"{directory / FOLDER_FILE} was made meanwhile; its order is not written")

    if new_collection:
        col.order = _dedupe(top_order)
        written.insert(0, save_collection_file(col))

    env_dir = into / ENVIRONMENTS_DIR
    if result.environments and not _inside(env_dir, root):
        result.note(
            f"environments not written: {env_dir} is a link to {os.path.realpath(env_dir)}, "
            f"outside {root}"
        )
        return written
    for env in result.environments:
        stem = _segment(env.name, "environment")
        target = env_dir / f"{stem}.toml"
        if os.path.lexists(target) and target not in taken:
            on_disk = existing.environments.get(stem)
            label = f"{ENVIRONMENTS_DIR}/{target.name}"
            _variable_notes(result, env.variables, on_disk.variables if on_disk else {}, label)
            continue
        env_dir.mkdir(exist_ok=True)
        text = environment_to_toml(Environment(env.name, dict(env.variables)))
        written.append(_create_free(env_dir, stem, text, check_environment, taken))
    return written


def _folder(key: str, directory: Path, settings: Folder | None) -> Folder:
    """The folder file's content: its name and the import's settings for it, if any."""
    folder = Folder(name=key.rsplit("/", 1)[-1], path=directory)
    if settings is not None:
        folder.auth = settings.auth
        folder.headers = list(settings.headers)
        folder.variables = dict(settings.variables)
        folder.scripts = settings.scripts
        folder.extra = dict(settings.extra)
    return folder


def _dedupe(items: list[str]) -> list[str]:
    seen: set[str] = set()
    out = []
    for item in items:
        if item not in seen:
            seen.add(item)
            out.append(item)
    return out
