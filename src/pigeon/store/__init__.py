"""Collections on disk: TOML files <-> the model (DESIGN §2).

The package's parts, each one thing:

* ``schema``: the files of a collection and the keys each kind knows;
* ``read``: a file's text -> the model, and loading a whole collection (a bad file becomes a
  ``BrokenFile`` naming path, line and column; the rest still loads);
* ``write``: the model -> TOML, and saves that edit the user's own document (comments, layout
  and key order kept; an unchanged save is byte for byte the file);
* ``order``: the ``order`` lists of DESIGN §2;
* ``seen``: what the app last read or wrote of each file, so an outside edit is never
  overwritten unknowingly;
* ``tree``: create, rename, duplicate, move and delete requests, folders and environments.

This module is the face: everything callers reach is importable from ``pigeon.store``.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from pigeon.errors import LoadError, SaveError
from pigeon.files import atomic_write
from pigeon.store.dotenv import read_dotenv
from pigeon.store.global_files import load_collection
from pigeon.store.order import sort_items
from pigeon.store.read import request_from_toml, title_from_stem
from pigeon.store.schema import (
    COLLECTION_FILE,
    DOTENV_FILE,
    ENVIRONMENTS_DIR,
    FOLDER_FILE,
    RESERVED_STEMS,
)
from pigeon.store.seen import ChangedOnDisk, write_beside

# Creating, moving and saving files load when first asked for (``tomlkit`` with them): the app
# reads its collection before its first frame and writes nothing then.
_LATER = {
    "tree": (
        "FolderContents",
        "add_request",
        "create_environment",
        "create_folder",
        "create_request",
        "delete_environment",
        "delete_folder",
        "delete_request",
        "duplicate_folder",
        "duplicate_request",
        "folder_contents",
        "move_folder",
        "move_request",
        "rename_environment",
        "rename_folder",
        "rename_request",
        "slugify",
    ),
    "write": (
        "collection_to_toml",
        "environment_to_toml",
        "folder_to_toml",
        "request_to_toml",
        "save_collection_file",
        "save_environment",
        "save_folder_file",
        "save_request",
    ),
}
_WHERE = {name: module for module, names in _LATER.items() for name in names}


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


if TYPE_CHECKING:
    from pigeon.store.tree import (
        FolderContents,
        add_request,
        create_environment,
        create_folder,
        create_request,
        delete_environment,
        delete_folder,
        delete_request,
        duplicate_folder,
        duplicate_request,
        folder_contents,
        move_folder,
        move_request,
        rename_environment,
        rename_folder,
        rename_request,
        slugify,
    )
    from pigeon.store.write import (
        collection_to_toml,
        environment_to_toml,
        folder_to_toml,
        request_to_toml,
        save_collection_file,
        save_environment,
        save_folder_file,
        save_request,
    )

__all__ = [
    "COLLECTION_FILE",
    "DOTENV_FILE",
    "ENVIRONMENTS_DIR",
    "FOLDER_FILE",
    "RESERVED_STEMS",
    "ChangedOnDisk",
    "FolderContents",
    "LoadError",
    "SaveError",
    "add_request",
    "atomic_write",
    "collection_to_toml",
    "create_environment",
    "create_folder",
    "create_request",
    "delete_environment",
    "delete_folder",
    "delete_request",
    "duplicate_folder",
    "duplicate_request",
    "environment_to_toml",
    "folder_contents",
    "folder_to_toml",
    "load_collection",
    "move_folder",
    "move_request",
    "read_dotenv",
    "rename_environment",
    "rename_folder",
    "rename_request",
    "request_from_toml",
    "request_to_toml",
    "save_collection_file",
    "save_environment",
    "save_folder_file",
    "save_request",
    "slugify",
    "sort_items",
    "title_from_stem",
    "write_beside",
]
