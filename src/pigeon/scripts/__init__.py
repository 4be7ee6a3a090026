"""A collection's Python scripts, run with the ``pigeon`` object (DESIGN §8).

Scripts run only in a collection the user has trusted (``pigeon.config.TrustStore``; asked
once in the app, ``--trust`` on the command line). Each phase (``pre_request`` before
rendering, ``post_response`` after the response) runs the collection's script, then each
folder's (outer -> inner), then the request's. Whether the request is still sent after a
failed pre-request script is the caller's choice: ``pigeon run`` and ``pigeon render`` count it
as a failed request; the app may send anyway.

The package, one module per question:

* ``sources``: which scripts run, in what order (``script_sources``, ``has_scripts``);
* ``api``: the ``pigeon`` object a script programs against, the documented contract;
* ``runner``: ``run_scripts``, the namespace and the log writer, in the calling process;
* ``outcome``: what a phase did (``ScriptOutcome``) and how a failure is told;
* ``process``: ``ScriptWorker``, the parent's handle on the worker process that runs a
  collection's scripts so that a time limit, escape and ctrl+c can kill them;
* ``worker``: that process's loop; ``channel``: the pipe between the two.

This module is the face: ``from pigeon.scripts import run_scripts`` and every other name
below stay importable from here. What runs scripts (``api``, ``runner``, ``ScriptWorker``)
is imported on first use: the worker process, which imports this package, does not load
asyncio, and a run whose scripts do not run (none, or not trusted) loads only which scripts
there are and what they did.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from pigeon.scripts.outcome import AssertionFailure, LogLine, ScriptError, ScriptOutcome
from pigeon.scripts.sources import PHASES, Phase, ScriptSource, has_scripts, script_sources

if TYPE_CHECKING:
    from pigeon.scripts.api import EnvView, PigeonAPI, ResponseHeaders, ScriptResponse
    from pigeon.scripts.process import ScriptWorker
    from pigeon.scripts.runner import run_scripts

# The names imported on first use, and the module each comes from.
_LATER = {
    "EnvView": "api",
    "PigeonAPI": "api",
    "ResponseHeaders": "api",
    "ScriptResponse": "api",
    "run_scripts": "runner",
    "ScriptWorker": "process",
}


def __getattr__(name: str) -> object:
    module = _LATER.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"pigeon.scripts.{module}"), name)


__all__ = [
    "PHASES",
    "AssertionFailure",
    "EnvView",
    "LogLine",
    "Phase",
    "PigeonAPI",
    "ResponseHeaders",
    "ScriptError",
    "ScriptOutcome",
    "ScriptResponse",
    "ScriptSource",
    "ScriptWorker",
    "has_scripts",
    "run_scripts",
    "script_sources",
]
