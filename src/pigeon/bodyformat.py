"""The old home of the body-display helpers, kept as a face so ``from pigeon.bodyformat import
...`` and ``bodyformat.pretty_json(...)`` go on working. The code lives in ``pigeon.bodies``
(one module per job) and its names are listed once, there; new code imports from there.
"""

from __future__ import annotations

from pigeon.bodies import *  # noqa: F403  (the face's names are pigeon.bodies')
from pigeon.bodies import __all__  # noqa: F401
