"""Creating, renaming, duplicating, moving and deleting requests, folders and environments
(DESIGN §2).

Each operation keeps the ``order`` lists of the folders involved right (``store.order``) and
edits those files in place, comments and layout kept; a file that does not load is never
touched, and nothing existing is ever replaced.

Why one module: every operation here is the same three steps on a request or a folder (check
every file it will touch, move or write without replacing, fix the ``order`` lists), and they
share those steps' helpers.
"""

from __future__ import annotations

import copy
import os
import re
import shutil
import tempfile
import unicodedata
import uuid
from collections.abc import Callable, Mapping
from contextlib import suppress
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from pigeon.errors import LoadError, SaveError
from pigeon.files import (
    atomic_write,
    create_exclusive,
    fsync_dir,
    move_exclusive,
    rename_dir_exclusive,
)
from pigeon.model import (
    Collection,
    Environment,
    Folder,
    Request,
)
from pigeon.store.order import order_refers, reordered, sort_items
from pigeon.store.read import load_folder, rel_id, request_from_toml, title_from_stem
from pigeon.store.renames import note_renamed
from pigeon.store.schema import COLLECTION_FILE, ENVIRONMENTS_DIR, FOLDER_FILE, RESERVED_STEMS
from pigeon.store.seen import record_move, record_write
from pigeon.store.write import (
    check_collection,
    check_folder,
    collection_data,
    environment_to_toml,
    folder_data,
    folder_to_toml,
    on_disk,
    request_data,
    request_to_toml,
    safe_write,
    save_request,
)
from pigeon.tomltext import read_text
from pigeon.tomlwrite import dumps, update
from pigeon.values import check_name

# -- creating, renaming, moving, deleting ----------------------------------------------------
#
# Renaming, duplicating, moving or deleting a request or a folder keeps the ``order`` lists of
# the folders involved right: an entry is renamed where it stands, a copy is listed after its
# original, a moved item leaves the old list and ends a non-empty new one. Those files are
# edited in place, comments and layout kept (see ``_write_head``).


def slugify(name: str) -> str:
    """A file-name stem for a display name: ASCII, lower case, words joined by ``-``.

    At most 80 characters (well under the 255-byte file-name limit, with room for a ``-2``
    suffix), cut after a whole word where one ends late enough, so that a long name (a URL
    path, an API summary) still makes a file name.
    """
    limit = 80
    ascii_name = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode()
    slug = re.sub(r"[^A-Za-z0-9]+", "-", ascii_name).strip("-").lower()
    if len(slug) <= limit:
        return slug
    cut = slug.rfind("-", 0, limit + 1)
    return (slug[:cut] if cut >= limit // 2 else slug[:limit]).rstrip("-")


def _free_stem(col: Collection, directory: Path, base: str, keep: Path | None = None) -> str:
    """A stem in ``directory`` that names no file or folder yet, nor a reserved name."""
    reserved = set(RESERVED_STEMS)
    if directory == col.root:
        reserved.add(ENVIRONMENTS_DIR)
    for n in range(1, 10_000):
        stem = base if n == 1 else f"{base}-{n}"
        if stem in reserved:
            continue
        file, folder = directory / f"{stem}.toml", directory / stem
        if keep is not None and file == keep:
            return stem
        if not file.exists() and not folder.exists():
            return stem
    raise SaveError(f"no free file name for {base!r} in {directory}")


def _container(
    col: Collection, folder: Folder | None
) -> tuple[list[Folder | Request], list[str], Path]:
    if folder is None:
        return col.items, col.order, col.root
    if folder.path is None:
        raise SaveError(f"folder {folder.name!r} has no directory")
    return folder.items, folder.order, folder.path


def _parent_of(col: Collection, item: Folder | Request) -> Folder | None:
    """The folder holding ``item`` (``None`` for the collection's top level)."""

    def visit(items: list[Folder | Request], parent: Folder | None) -> Folder | None | bool:
        for it in items:
            if it is item:
                return parent if parent is not None else True
            if isinstance(it, Folder):
                found = visit(it.items, it)
                if found is not None:
                    return found
        return None

    found = visit(col.items, None)
    if found is None:
        raise SaveError(f"{item.name!r} is not part of collection {col.name!r}")
    return None if found is True else found  # type: ignore[return-value]


def _resort(col: Collection, folder: Folder | None) -> None:
    if folder is None:
        col.items[:] = sort_items(col.items, col.order)
    else:
        folder.items[:] = sort_items(folder.items, folder.order)


def create_request(
    col: Collection, folder: Folder | None, name: str, method: str = "GET"
) -> Request:
    """Create a new request file named after ``name``; an existing file is never touched."""
    return add_request(col, folder, Request(name=name, method=method))


def add_request(col: Collection, folder: Folder | None, req: Request) -> Request:
    """Give ``req`` (a request with no file yet: a scratch request, a copy from history) a new
    file in ``folder`` named after it, written in one exclusive create, and add it to the
    collection; an existing file is never touched."""
    items, _, directory = _container(col, folder)
    base = slugify(req.name) or "request"
    for _ in range(100):  # another process may take a name between the check and the write
        stem = _free_stem(col, directory, base)
        path = directory / f"{stem}.toml"
        new = copy.deepcopy(req)  # the caller keeps editing its own
        new.name, new.path = req.name.strip() or title_from_stem(stem), path
        new.id = rel_id(col.root, path)
        text = request_to_toml(new)
        try:
            create_exclusive(path, text)
        except FileExistsError:
            continue
        record_write(col.seen, path, None, text)
        items.append(new)
        _resort(col, folder)
        return new
    raise SaveError(f"could not create a file for {req.name!r} in {directory}")


def create_folder(col: Collection, parent: Folder | None, name: str) -> Folder:
    """Create a folder (with a ``folder.toml`` holding its name); nothing is overwritten."""
    items, _, directory = _container(col, parent)
    base = slugify(name) or "folder"
    for _ in range(100):
        stem = _free_stem(col, directory, base)
        path = directory / stem
        try:
            path.mkdir()
        except FileExistsError:
            continue
        folder = Folder(
            name=name.strip() or title_from_stem(stem),
            path=path,
            id=rel_id(col.root, path),
            has_file=True,
        )
        create_exclusive(path / FOLDER_FILE, folder_to_toml(folder))
        items.append(folder)
        _resort(col, parent)
        return folder
    raise SaveError(f"could not create a folder for {name!r} in {directory}")


def delete_request(col: Collection, req: Request) -> None:
    """Delete a request's file and remove it from the collection; an ``order`` listing it
    forgets it (when the file holding that list does not load, nothing is deleted)."""
    parent = _parent_of(col, req)
    items, order, directory = _container(col, parent)
    forget = None
    if req.path is not None:
        forget = reordered(order, directory, req.path.stem, None, folder=False)
        if forget is not None:
            _on_disk_text(col, parent, "deleted")
        try:
            req.path.unlink(missing_ok=True)
        except OSError as exc:
            raise SaveError(f"not deleted: {exc}") from exc
        fsync_dir(req.path.parent)
    items[:] = [it for it in items if it is not req]
    if forget is not None:
        _set_order(col, parent, forget)


def _named_text(path: Path, name: str, doing: str) -> str:
    """A request file's text with ``name`` set and every other byte kept; a file that does
    not load is refused."""
    text, on_disk_request = on_disk(path, request_from_toml, doing)
    old = request_data(on_disk_request)
    return update(text, old, {**old, "name": name})


def rename_request(col: Collection, req: Request, new_name: str) -> Request:
    """Give a request a new name and a file named after it.

    Only the name changes in the file on disk (its comments stay; unsaved edits in ``req``
    stay unsaved); another file is never replaced, and an ``order`` entry is renamed in place.
    """
    new_name = new_name.strip()
    if not new_name:
        raise SaveError("a request needs a name")
    parent = _parent_of(col, req)
    _, order, directory = _container(col, parent)
    old = req.path
    if old is None:
        req.name = new_name
        return req
    stem = _free_stem(col, directory, slugify(new_name) or "request", keep=old)
    new = directory / f"{stem}.toml"
    new_order = reordered(order, directory, old.stem, stem, folder=False) if new != old else None
    if new_order is not None:
        _on_disk_text(col, parent, "renamed")
    if not old.exists():  # never saved: nothing on disk to carry over
        req.name, req.id = new_name, rel_id(col.root, new)
        save_request(req, new)
    else:
        before = read_text(old)
        text = _named_text(old, new_name, "renamed")
        if new == old:
            safe_write(old, text, request_from_toml)
        else:
            try:
                create_exclusive(new, text)
            except OSError as exc:
                raise SaveError(f"not renamed: cannot write {new}: {exc}") from exc
            old.unlink()
            fsync_dir(directory)
            record_move(col.seen, old, new)
        record_write(col.seen, new, before, text)
    old_id = req.id
    req.name, req.path, req.id = new_name, new, rel_id(col.root, new)
    note_renamed(col.root, [(old_id, req.id)])
    if new_order is not None:
        _set_order(col, parent, new_order)
    _resort(col, parent)
    return req


def duplicate_request(col: Collection, req: Request) -> Request:
    """Copy a request to a new file beside it, named "<name> copy" (unique among its
    siblings). Its file is copied as it is on disk, comments included; nothing is overwritten,
    and where an ``order`` lists the original the copy is listed right after it."""
    parent = _parent_of(col, req)
    items, order, directory = _container(col, parent)
    taken = {it.name.casefold() for it in items if isinstance(it, Request)}
    name = f"{req.name} copy"
    for n in range(2, 10_000):
        if name.casefold() not in taken:
            break
        name = f"{req.name} copy {n}"
    source = req.path
    if source is not None and source.exists():
        text = _named_text(source, name, "duplicated")
    else:  # never saved: the copy is written from the model
        text = request_to_toml(replace(req, name=name))
    listed = source is not None and any(order_refers(e, source.stem, False) for e in order)
    if listed:
        _on_disk_text(col, parent, "duplicated")
    base = slugify(name) or "request"
    for _ in range(100):  # another process may take a name between the check and the write
        stem = _free_stem(col, directory, base)
        path = directory / f"{stem}.toml"
        try:
            create_exclusive(path, text)
        except FileExistsError:
            continue
        except OSError as exc:
            raise SaveError(f"not duplicated: cannot write {path}: {exc}") from exc
        break
    else:
        raise SaveError(f"not duplicated: no free file name for {name!r} in {directory}")
    record_write(col.seen, path, None, text)  # the app's own file: no news to the watcher
    copied = request_from_toml(text, path)
    copied.id = rel_id(col.root, path)
    items.append(copied)
    if listed and source is not None:
        new_order = reordered(order, directory, source.stem, stem, after=True, folder=False)
        if new_order is not None:
            _set_order(col, parent, new_order)
    _resort(col, parent)
    return copied


def move_request(col: Collection, req: Request, folder: Folder | None) -> Request:
    """Move a request's file into ``folder`` (``None``: the top level), keeping its stem when
    it is free there; nothing is overwritten. Both ``order`` lists follow: the old one forgets
    it, a non-empty new one lists it last."""
    old_parent = _parent_of(col, req)
    old_items, old_order, old_directory = _container(col, old_parent)
    new_items, new_order, directory = _container(col, folder)
    old = req.path
    if old is None:
        raise SaveError(f"request {req.name!r} has no file")
    if old.parent == directory:
        return req
    stem = _free_stem(col, directory, old.stem)
    new = directory / f"{stem}.toml"
    forget = reordered(old_order, old_directory, old.stem, None, folder=False)
    if forget is not None:
        _on_disk_text(col, old_parent, "moved")
    if new_order:
        _on_disk_text(col, folder, "moved")
    try:
        move_exclusive(old, new)
    except OSError as exc:
        raise SaveError(f"not moved: cannot move {old} to {new}: {exc}") from exc
    record_move(col.seen, old, new)
    old_items[:] = [it for it in old_items if it is not req]
    old_id = req.id
    req.path, req.id = new, rel_id(col.root, new)
    note_renamed(col.root, [(old_id, req.id)])
    new_items.append(req)
    if forget is not None:
        _set_order(col, old_parent, forget)
    if new_order:  # an entry left over for a file no longer there would place it first
        kept = [e for e in new_order if not order_refers(e, stem, False)]
        _set_order(col, folder, [*kept, stem])
    _resort(col, folder)
    return req


# -- folders: rename, duplicate, move, delete ------------------------------------------------
#
# A folder is a directory, so each of these changes a directory in one step (a rename, never
# a copy-then-delete of the original) and refuses rather than replace anything. The ``order``
# lists of the parents involved follow, as for requests; those files are edited in place
# (comments and layout kept) when that can be checked to change nothing else.


@dataclass(frozen=True)
class FolderContents:
    """What a folder holds on disk (not as loaded): what deleting it would remove."""

    requests: int = 0
    folders: int = 0
    broken: tuple[Path, ...] = ()  # .toml files that do not load: requests or folder.toml
    other: tuple[Path, ...] = ()  # anything else: notes, upload files, hidden files, links


def folder_contents(folder: Folder) -> FolderContents:
    """Count a folder's requests and subfolders, and list its broken and other files.

    Symbolic links are listed as other files and not followed: deleting removes the link only.
    """
    if folder.path is None:
        raise SaveError(f"folder {folder.name!r} has no directory")
    requests = folders = 0
    broken: list[Path] = []
    other: list[Path] = []

    def scan(directory: Path, hidden: bool) -> None:
        nonlocal requests, folders
        try:
            with os.scandir(directory) as listing:
                entries = sorted(listing, key=lambda e: e.name)
        except OSError as exc:
            raise SaveError(f"cannot read {directory}: {exc.strerror or exc}") from exc
        for entry in entries:
            path = Path(entry.path)
            inside_hidden = hidden or entry.name.startswith(".")
            if entry.is_symlink():
                other.append(path)
            elif entry.is_dir():
                if not inside_hidden:
                    folders += 1
                scan(path, inside_hidden)
            elif inside_hidden or not entry.name.endswith(".toml") or entry.name == COLLECTION_FILE:
                other.append(path)
            else:
                parse = check_folder if entry.name == FOLDER_FILE else request_from_toml
                try:
                    parse(read_text(path), path)
                except LoadError:
                    broken.append(path)
                else:
                    if entry.name != FOLDER_FILE:
                        requests += 1

    scan(folder.path, False)
    return FolderContents(requests, folders, tuple(broken), tuple(other))


def _is_within(path: Path, directory: Path) -> bool:
    return path == directory or directory in path.parents


def _repath(col: Collection, folder: Folder, new: Path) -> None:
    """Point ``folder``, everything in it and its broken files at ``new`` (after a rename)."""
    old = folder.path
    assert old is not None

    def moved(path: Path) -> Path:
        return new / path.relative_to(old)

    renamed: list[tuple[str, str]] = []

    def visit(item: Folder | Request) -> None:
        if item.path is not None and _is_within(item.path, old):
            item.path = moved(item.path)
            before, item.id = item.id, rel_id(col.root, item.path)
            if isinstance(item, Request):
                renamed.append((before, item.id))
        if isinstance(item, Folder):
            for child in item.items:
                visit(child)

    visit(folder)
    note_renamed(col.root, renamed)
    record_move(col.seen, old, new)
    for broken in col.broken:
        if _is_within(broken.path, old):
            broken.path = moved(broken.path)


def _container_file(
    col: Collection, folder: Folder | None
) -> tuple[Path, Callable[[str, Path], Any], Callable[[Any], dict[str, Any]]]:
    """The collection's or a folder's file, how to read it, and how it is written."""
    if folder is None:
        return col.root / COLLECTION_FILE, check_collection, collection_data
    if folder.path is None:
        raise SaveError(f"folder {folder.name!r} has no directory")
    return folder.path / FOLDER_FILE, check_folder, folder_data


def _on_disk_text(col: Collection, folder: Folder | None, doing: str) -> str | None:
    """The text of a collection's or folder's file (``None``: there is none), or a refusal
    naming it when it does not load: it is never overwritten."""
    path, parse, _ = _container_file(col, folder)
    if not path.exists():
        return None
    text, _ = on_disk(path, parse, doing)
    return text


def _write_head(col: Collection, folder: Folder | None, updates: Mapping[str, Any]) -> None:
    """Set top-level keys (``None``: remove) of the collection's or a folder's file as it is on
    disk (never from unsaved state), every other byte kept."""
    path, parse, data_of = _container_file(col, folder)
    if path.exists():
        text, current = on_disk(path, parse)
        old = data_of(current)
    else:
        node = Collection(name=col.name, root=col.root) if folder is None else Folder(folder.name)
        text, old = None, data_of(node)
    new = {k: v for k, v in {**old, **updates}.items() if v is not None}
    if "name" not in new:
        new = {"name": old.get("name", ""), **new}
    edited = update(text, old, new) if text is not None else dumps(new)
    safe_write(path, edited, parse, current=text)
    record_write(col.seen, path, text, edited)
    if folder is not None:
        folder.has_file = True


def _set_order(col: Collection, folder: Folder | None, order: list[str]) -> None:
    _write_head(col, folder, {"order": order or None})
    if folder is None:
        col.order[:] = order
    else:
        folder.order[:] = order


def _take_out(col: Collection, folder: Folder, parent: Folder | None) -> None:
    items, _, _ = _container(col, parent)
    items[:] = [it for it in items if it is not folder]


def rename_folder(col: Collection, folder: Folder, new_name: str) -> Folder:
    """Give a folder a new name (``name`` in its ``folder.toml``).

    A directory named after the old name (or a folder without ``folder.toml``, named after its
    directory) is renamed after the new one, to a name that is free; the parent's ``order``
    follows. A ``folder.toml`` that does not load is never touched: the rename is refused.
    """
    new_name = new_name.strip()
    if not new_name:
        raise SaveError("a folder needs a name")
    parent = _parent_of(col, folder)
    _, order, directory = _container(col, parent)
    _, _, old = _container(col, folder)
    text = _on_disk_text(col, folder, "renamed")
    base = slugify(new_name) or "folder"
    stem = old.name
    named_after_it = text is None or _named_after(old.name, folder.name)
    if named_after_it and not _already_named(col, directory, stem, base):
        stem = _free_stem(col, directory, base)
    new = directory / stem
    new_order = reordered(order, directory, old.name, stem) if new != old else None
    if new_order is not None:
        _on_disk_text(col, parent, "renamed")
    if text is not None or title_from_stem(stem) != new_name:
        _write_head(col, folder, {"name": new_name})
    if new != old:
        try:
            rename_dir_exclusive(old, new)
        except OSError as exc:
            _restore_head(old / FOLDER_FILE, text)
            folder.has_file = text is not None
            raise SaveError(f"not renamed: cannot rename {old} to {new.name}: {exc}") from exc
        _repath(col, folder, new)
    folder.name = new_name
    if new_order is not None:
        _set_order(col, parent, new_order)
    _resort(col, parent)
    return folder


def _named_after(stem: str, name: str) -> bool:
    """Whether a directory name is what ``name`` would give (``base`` or ``base-N``)."""
    base = slugify(name) or "folder"
    return re.fullmatch(rf"{re.escape(base)}(-\d+)?", stem) is not None


def _already_named(col: Collection, directory: Path, stem: str, base: str) -> bool:
    """Whether a directory ``stem`` is what a new name of slug ``base`` would get anyway:
    ``base`` itself, or ``base-N`` while ``base`` is taken."""
    if stem == base:
        return True
    taken = (
        base in RESERVED_STEMS
        or (directory == col.root and base == ENVIRONMENTS_DIR)
        or (directory / base).exists()
        or (directory / f"{base}.toml").exists()
    )
    return taken and re.fullmatch(rf"{re.escape(base)}-\d+", stem) is not None


def _restore_head(path: Path, text: str | None) -> None:
    """Put a folder file back as it was (``None``: there was none) after a failed rename."""
    with suppress(OSError):
        if text is None:
            path.unlink(missing_ok=True)
        else:
            atomic_write(path, text)


def duplicate_folder(col: Collection, folder: Folder) -> Folder:
    """Copy a folder, everything in it included, to a new sibling named "<name> copy".

    The copy is made in a hidden directory and renamed into place in one step, so the
    collection never shows half a copy; no existing file or folder is ever replaced.
    """
    parent = _parent_of(col, folder)
    items, order, directory = _container(col, parent)
    _, _, source = _container(col, folder)
    text = _on_disk_text(col, folder, "duplicated")
    taken = {it.name.casefold() for it in items if isinstance(it, Folder)}
    name = f"{folder.name} copy"
    for n in range(2, 10_000):
        if name.casefold() not in taken:
            break
        name = f"{folder.name} copy {n}"
    stem = _free_stem(col, directory, slugify(name) or "folder")
    new_order = reordered(order, directory, source.name, stem, after=True)
    if new_order is not None:
        _on_disk_text(col, parent, "duplicated")
    work = Path(tempfile.mkdtemp(prefix=f".{stem}.", suffix=".copy", dir=directory))
    try:
        shutil.copytree(source, work, symlinks=True, dirs_exist_ok=True)  # mode included
        if text is not None:
            _write_head(col, Folder(name=name, path=work), {"name": name})
        elif title_from_stem(stem) != name:
            create_exclusive(work / FOLDER_FILE, folder_to_toml(Folder(name=name)))
        new = directory / stem
        rename_dir_exclusive(work, new)
    except OSError as exc:
        shutil.rmtree(work, ignore_errors=True)
        raise SaveError(f"not duplicated: {exc}") from exc
    except BaseException:
        shutil.rmtree(work, ignore_errors=True)
        raise
    seen = {os.path.realpath(p) for p in (new, *new.parents) if _is_within(p, col.root)}
    copied = load_folder(col, new, seen)
    items.append(copied)
    if new_order is not None:
        _set_order(col, parent, new_order)
    _resort(col, parent)
    return copied


def move_folder(col: Collection, folder: Folder, target: Folder | None) -> Folder:
    """Move a folder into ``target`` (``None``: the top level), keeping its directory name
    when it is free there; never into itself or a folder inside it, and nothing is replaced.
    Both ``order`` lists follow: the old one forgets it, a non-empty new one lists it last."""
    parent = _parent_of(col, folder)
    _, old_order, old_directory = _container(col, parent)
    _, _, old = _container(col, folder)
    if target is not None:
        _parent_of(col, target)
        _, _, inside = _container(col, target)
        if target is folder or _parent_chain_has(col, target, folder) or _is_within(inside, old):
            raise SaveError(f"cannot move {folder.name!r} into itself or a folder inside it")
    if target is parent:
        return folder
    new_items, new_order, directory = _container(col, target)
    stem = _free_stem(col, directory, old.name)
    new = directory / stem
    forget = reordered(old_order, old_directory, old.name, None)
    if forget is not None:
        _on_disk_text(col, parent, "moved")
    if new_order:
        _on_disk_text(col, target, "moved")
    keep_name = not (old / FOLDER_FILE).exists() and title_from_stem(stem) != folder.name
    try:
        rename_dir_exclusive(old, new)
    except OSError as exc:
        raise SaveError(f"not moved: cannot move {old} to {new}: {exc}") from exc
    _repath(col, folder, new)
    _take_out(col, folder, parent)
    new_items.append(folder)
    if keep_name:  # its directory got a -N suffix: the name it showed is kept in folder.toml
        create_exclusive(new / FOLDER_FILE, folder_to_toml(Folder(name=folder.name)))
        folder.has_file = True
    if forget is not None:
        _set_order(col, parent, forget)
    if new_order:  # an entry left over for a folder no longer there would place it first
        kept = [e for e in new_order if not order_refers(e, stem, True)]
        _set_order(col, target, [*kept, stem])
    _resort(col, target)
    return folder


def _parent_chain_has(col: Collection, item: Folder, ancestor: Folder) -> bool:
    """Whether ``ancestor`` holds ``item``, directly or further up."""
    parent = _parent_of(col, item)
    while parent is not None:
        if parent is ancestor:
            return True
        parent = _parent_of(col, parent)
    return False


def delete_folder(col: Collection, folder: Folder, expected: FolderContents | None = None) -> None:
    """Delete a folder and everything in it.

    With ``expected`` (what the user was shown, from ``folder_contents``), a folder whose
    contents changed since is not deleted. The directory is first renamed to a hidden name,
    so it leaves the collection in one step; if removing it then fails, what is left is put
    back under its own name.
    """
    parent = _parent_of(col, folder)
    _, order, directory = _container(col, parent)
    _, _, path = _container(col, folder)
    if expected is not None and folder_contents(folder) != expected:
        raise SaveError(f"not deleted: {path.name} changed on disk since; look again")
    forget = reordered(order, directory, path.name, None)
    if forget is not None:
        _on_disk_text(col, parent, "deleted")
    doomed = directory / f".{path.name}.deleting-{uuid.uuid4().hex[:8]}"
    try:
        rename_dir_exclusive(path, doomed)
    except OSError as exc:
        raise SaveError(f"not deleted: {exc}") from exc
    try:
        shutil.rmtree(doomed)
    except OSError as exc:
        try:
            rename_dir_exclusive(doomed, path)
        except OSError:
            where = f"what is left is in {doomed}"
        else:
            where = f"what is left is still in {path}"
        raise SaveError(f"not deleted completely: {exc}; {where}") from exc
    fsync_dir(directory)
    _take_out(col, folder, parent)
    col.broken[:] = [b for b in col.broken if not _is_within(b.path, path)]
    if forget is not None:
        _set_order(col, parent, forget)


def create_environment(col: Collection, name: str) -> Environment:
    """Create ``environments/NAME.toml`` with no variables; an existing one is kept."""
    try:
        check_name(name)
    except ValueError as exc:
        raise SaveError(f"invalid environment name {name!r}: use letters, digits, _ . -") from exc
    path = col.root / ENVIRONMENTS_DIR / f"{name}.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    env = Environment(name=name, path=path)
    text = environment_to_toml(env)
    try:
        create_exclusive(path, text)
    except FileExistsError:
        raise SaveError(f"environment {name!r} already exists: {path}") from None
    record_write(col.seen, path, None, text)  # the app's own file: no news to the watcher
    col.environments[name] = env
    return env


def _environment(col: Collection, name: str) -> Environment:
    env = col.environments.get(name)
    if env is None or env.path is None:
        raise SaveError(f"no environment {name!r} in this collection")
    return env


def rename_environment(col: Collection, name: str, new_name: str) -> Environment:
    """Rename ``environments/NAME.toml`` (never over another file); a ``default_environment``
    naming it follows, edited in place in ``collection.toml``."""
    env = _environment(col, name)
    try:
        check_name(new_name)
    except ValueError as exc:
        raise SaveError(
            f"invalid environment name {new_name!r}: use letters, digits, _ . -"
        ) from exc
    default = col.default_environment == name
    if default:
        _on_disk_text(col, None, "renamed")  # a collection.toml that does not load: stop here
    assert env.path is not None
    path = env.path.with_name(f"{new_name}.toml")
    try:
        move_exclusive(env.path, path)
    except FileExistsError:
        raise SaveError(f"environment {new_name!r} already exists: {path}") from None
    except OSError as exc:
        raise SaveError(f"not renamed: {exc}") from exc
    record_move(col.seen, env.path, path)
    del col.environments[name]
    env.name, env.path = new_name, path
    col.environments[new_name] = env
    if default:
        _write_head(col, None, {"default_environment": new_name})
        col.default_environment = new_name
    return env


def delete_environment(col: Collection, name: str) -> None:
    """Delete ``environments/NAME.toml``; a ``default_environment`` naming it is removed from
    ``collection.toml`` (when that file does not load, nothing is deleted)."""
    env = _environment(col, name)
    default = col.default_environment == name
    if default:
        _on_disk_text(col, None, "deleted")
    assert env.path is not None
    try:
        env.path.unlink(missing_ok=True)
    except OSError as exc:
        raise SaveError(f"not deleted: {exc}") from exc
    fsync_dir(env.path.parent)
    col.seen.pop(env.path, None)  # gone by the app's hand: no news either
    del col.environments[name]
    if default:
        _write_head(col, None, {"default_environment": None})
        col.default_environment = None
