"""A new collection to start from (DESIGN §2): ``pigeon new DIR`` and the app's "New
collection…".

The files are written as text, not through the model, so they can carry the commented
examples a new user reads first; each is an exclusive create, so nothing that exists is ever
replaced. A directory that already holds anything but a ``.git`` is refused before anything is
written.
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

from pigeon.auth_kinds import AUTH_TYPES
from pigeon.errors import UsageError
from pigeon.files import create_exclusive
from pigeon.store.read import title_from_stem
from pigeon.store.schema import COLLECTION_FILE, ENVIRONMENTS_DIR

ENVIRONMENT = "local"
EXAMPLE = "example.toml"

GITIGNORE = """\
# Secrets and what Pigeon remembers (history, the chosen environment) stay out of git.
.env
.pigeon/
# Your version of a file that changed on disk, saved beside it: merge it, then delete it.
*.toml.mine
*.toml.mine-*
"""

COLLECTION = """\
name = {name}
# The environment chosen when none is given (f4 in the app, --env on the command line).
default_environment = "{env}"

# Variables every request sees ({{{{name}}}} in a URL, header or body). An environment's,
# a folder's and a request's own variables win over these.
[variables]
# api_version = "v1"
# page_size = 20

# Headers sent with every request:
# [[headers]]
# name = "Accept"
# value = "application/json"

# Auth for every request, of one of these types (the guide's Auth page has an example of each):
{auth_types}
# Keep secrets in .env, which git ignores, and read them with {{{{$env.NAME}}}}:
# [auth]
# type = "bearer"
# token = "{{{{$env.API_TOKEN}}}}"
"""

LOCAL = """\
# The "{env}" environment: its variables win over the collection's.
[variables]
base_url = "http://127.0.0.1:8787"  # where `pigeon echo` listens
"""

REQUEST = """\
name = "Example"
method = "GET"
url = "{{base_url}}/get"

# Query parameters, each value percent-encoded:
[[query]]
name = "from"
value = "pigeon"

# Per-request settings (these are the defaults):
# [settings]
# timeout = 30.0
# follow_redirects = true
# verify_tls = true
"""


def new_collection(directory: Path) -> list[Path]:
    """Make a collection in ``directory`` (created if missing): ``collection.toml`` named
    after the directory, a ``.gitignore`` for ``.env`` and ``.pigeon/``, the ``local``
    environment and one example request. Returns the files written; ``UsageError`` when the
    directory holds something already."""
    directory = Path(directory)
    if directory.exists() and not directory.is_dir():
        raise UsageError(f"{directory} exists and is not a directory")
    if directory.is_dir():
        taken = sorted(p.name for p in directory.iterdir() if p.name != ".git")
        if taken:
            what = "a collection" if COLLECTION_FILE in taken else f"{len(taken)} entries"
            raise UsageError(f"{directory} is not empty (it holds {what}); nothing written")
    name = title_from_stem(directory.resolve().name) or "My API"
    environments = directory / ENVIRONMENTS_DIR
    environments.mkdir(parents=True, exist_ok=True)
    # Every kind the auth table has, never a hand list, in comment lines of at most 100.
    auth_types = "\n".join(
        textwrap.wrap(" | ".join(AUTH_TYPES), 96, initial_indent="#   ", subsequent_indent="#   ")
    )
    collection_text = COLLECTION.format(
        name=json.dumps(name), env=ENVIRONMENT, auth_types=auth_types
    )
    files = [
        (directory / COLLECTION_FILE, collection_text),
        (directory / ".gitignore", GITIGNORE),
        (environments / f"{ENVIRONMENT}.toml", LOCAL.format(env=ENVIRONMENT)),
        (directory / EXAMPLE, REQUEST),
    ]
    for path, text in files:
        create_exclusive(path, text)
    return [path for path, _ in files]
