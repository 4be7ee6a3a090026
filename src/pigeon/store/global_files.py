"""What every collection sees from ``$XDG_CONFIG_HOME/pigeon`` (DESIGN §11): ``globals.toml``
(``[variables]``, ``[secrets]``) and the global environments in ``environments/``, loaded with
each collection. A global environment is offered in every collection; one of the same name
as a collection's lies under it (``scopes.build_scopes``). All of it is outside the
collection: an untrusted one may not read it (``trust.Gate``)."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from functools import partial
from pathlib import Path
from typing import Any

from pigeon.errors import LoadError
from pigeon.model import Collection, Environment, Globals
from pigeon.store.read import fill_environment, load_file, variables_of
from pigeon.store.read import load_collection as load_own
from pigeon.store.schema import ENVIRONMENTS_DIR
from pigeon.store.secrets import secrets_of
from pigeon.store.unknown import ENVIRONMENT, GLOBALS

GLOBALS_FILE = "globals.toml"


def load_collection(root: Path | str) -> Collection:
    """A collection directory (``store.read.load_collection``), with the global files."""
    col = load_own(root)
    col.globals = load_globals(col)
    for name, env in col.globals.environments.items():
        col.environments.setdefault(name, env)
    return col


def load_globals(col: Collection, environ: Mapping[str, str] | None = None) -> Globals:
    """The global files; a broken one is listed in ``col.broken`` as the collection's own."""
    from pigeon.config import config_dir

    home = config_dir(environ)
    out = Globals()
    path = home / GLOBALS_FILE
    if path.is_file():

        def fill(data: dict[str, Any]) -> None:
            out.variables = variables_of(data)
            out.secrets = secrets_of(data, "globals")

        try:
            load_file(col, path, GLOBALS, fill)
            out.path = path
        except LoadError as exc:
            col.broken.append(exc.as_broken())
    env_dir = home / ENVIRONMENTS_DIR
    if env_dir.is_dir():
        for file in sorted(env_dir.glob("*.toml"), key=lambda p: (p.stem.casefold(), p.stem)):
            if file.name.startswith(".") or not file.is_file():
                continue
            env = Environment(name=file.stem, path=file, is_global=True)
            try:
                load_file(col, file, ENVIRONMENT, partial(fill_environment, env=env))
            except LoadError as exc:
                col.broken.append(exc.as_broken())
                continue
            env.secrets = {
                n: dataclasses.replace(s, origin=f"global environment {env.name}")
                for n, s in env.secrets.items()
            }
            out.environments[env.name] = env
    return out
