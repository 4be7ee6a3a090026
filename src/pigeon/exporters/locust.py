"""`pigeon export locust DIR [REQUEST_OR_FOLDER ...]` (DESIGN §6, §13): a short locustfile
whose ``pigeon.locust.PigeonUser`` subclass sends the selection, for a person to read and edit.

The selection goes in ``requests`` as a list (each iteration sends it in order, runtime
variables carried along, as ``pigeon run`` does); the same requests are written beneath as a
``{path: weight}`` dict, commented out, for a mix where each iteration sends one request
picked by weight. Nothing here imports Locust: the file is written whether it is installed
or not (``locust_installed`` says which).
"""

from __future__ import annotations

import importlib.util
import json
import re
from collections.abc import Mapping
from typing import Any

from pigeon.model import Folder, Request

INSTALL = "pip install 'pigeon-http[load]'"


def locust_installed() -> bool:
    """Whether Locust can be imported here (it is not imported to find out)."""
    return importlib.util.find_spec("locust") is not None


def _q(text: str) -> str:
    """A Python string literal, double-quoted (JSON's escapes are Python's too)."""
    return json.dumps(text, ensure_ascii=False)


def class_name(name: str) -> str:
    """A Python class name from a collection's name: ``my shop-api`` gives ``MyShopApiUser``."""
    words = re.findall(r"[A-Za-z0-9]+", name)
    base = "".join(w[:1].upper() + w[1:] for w in words) or "Collection"
    if base[0].isdigit():
        base = "C" + base
    return base + "User"


def to_locustfile(
    collection: str,
    name: str,
    selection: list[str],
    chosen: list[tuple[list[Folder], Request]],
    *,
    environment: str | None = None,
    data: str | None = None,
    trust: bool = False,
    scripts: bool = True,
    variables: Mapping[str, Any] | None = None,
) -> str:
    """The locustfile: ``collection`` as the command line named it, ``selection`` the names
    given (none: the whole collection), ``chosen`` the requests they select (for the weighted
    alternative, one line per request); ``variables`` are the ``--var``s, ``scripts`` false
    ``--no-scripts``."""
    lines = [
        f'"""Load test of {_q(name)} with Locust, written by `pigeon export locust`.',
        "",
        "Run it headless:  locust -f locustfile.py --headless -u 10 -r 2 -t 1m",
        "or with the web UI:  locust -f locustfile.py",
        '"""',
        "",
        "from locust import between",
        "",
        "from pigeon.locust import PigeonUser",
        "",
        "",
        f"class {class_name(name)}(PigeonUser):",
        f"    collection = {_q(collection)}",
    ]
    if environment is not None:
        lines.append(f"    environment = {_q(environment)}  # Pigeon's environment")
    if data is not None:
        lines += [
            f"    data = {_q(data)}",
            '    data_per = "user"  # each user keeps one row; "iteration": the next row each time',
        ]
    if variables:
        lines.append(f"    variables = {dict(variables)!r}  # as --var")
    if trust:
        lines.append("    trust = True  # the collection's scripts run, as with --trust")
    if not scripts:
        lines.append("    scripts = False  # no script runs, as with --no-scripts")
    lines += [
        "    # Each iteration sends these in order, runtime variables carried along (a login's",
        "    # token is the one this user's next requests send), each a Locust entry by path.",
    ]
    if selection:
        lines += ["    requests = [", *(f"        {_q(n)}," for n in selection), "    ]"]
    else:
        lines.append("    requests = []  # the whole collection, in collection order")
    lines += [
        "    # For a mix instead, each iteration sending one request picked by weight:",
        "    # requests = {",
        *(f"    #     {_q(request.id)}: 1," for _, request in chosen),
        "    # }",
        "    # setup = []  # requests each user sends once, before its first iteration",
        "    wait_time = between(1, 3)",
        "",
    ]
    return "\n".join(lines)
