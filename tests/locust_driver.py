"""Runs Locust in this process (``locust.env.Environment``, a local runner) on locustfiles and
prints their stats as JSON: the tests start it as a child, so gevent's monkey-patching never
reaches the pytest process.

``python locust_driver.py`` serves one run a line on stdin, a JSON object: ``path`` (the
locustfile), ``users`` spawned at once, stopped once ``requests`` requests are reported, a
user fails with an error, or ``seconds`` pass (a safety net); ``environ``, variables set
before the run (each test's own config home). Each run's result is one line on stdout,
after ``RESULT``. One child serves a module's runs: importing Locust and gevent costs a
second of CPU, more than most runs.
"""

from __future__ import annotations

import importlib.util
import json
import os
import sys

import gevent
import locust  # noqa: F401  (first: gevent patches the standard library)
from gevent.fileobject import FileObjectPosix
from locust.env import Environment
from locust.stats import StatsError
from locust.user import User

RESULT = "RESULT "


def drive(path: str, users: int, wanted: int, seconds: float) -> dict[str, object]:
    """One run of the users ``path`` defines, each in a new ``Environment`` and runner."""
    spec = importlib.util.spec_from_file_location("locustfile", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    classes = [
        c
        for c in vars(module).values()
        if isinstance(c, type) and issubclass(c, User) and not c.__dict__.get("abstract", False)
    ]
    env = Environment(user_classes=classes)
    runner = env.create_local_runner()
    seen = [0]
    done = gevent.event.Event()

    def on_request(**kwargs: object) -> None:
        seen[0] += 1
        if seen[0] >= wanted:
            done.set()

    env.events.request.add_listener(on_request)
    env.events.user_error.add_listener(lambda **kwargs: done.set())  # a user could not start
    runner.start(users, spawn_rate=users)
    done.wait(seconds)
    runner.quit()
    stats = {
        f"{e.method} {e.name}": {"requests": e.num_requests, "failures": e.num_failures}
        for e in env.stats.entries.values()
    }
    errors = {  # as Locust shows them: the failure's repr
        f"{e.method} {e.name}": [StatsError.parse_error(e.error), e.occurrences]
        for e in env.stats.errors.values()
    }
    user_errors = [str(x["msg"]) for x in runner.exceptions.values()]
    return {"stats": stats, "errors": errors, "user_errors": user_errors}


def main() -> None:
    # Read without blocking the process: between runs, the greenlets a run leaves (the one
    # event loop, a connection closing) go on, as they would have with no next run.
    for line in FileObjectPosix(sys.stdin.fileno(), "r", close=False):
        run = json.loads(line)
        os.environ.update(run.get("environ", {}))
        out = drive(run["path"], run["users"], run["requests"], run.get("seconds", 20.0))
        print(RESULT + json.dumps(out), flush=True)


if __name__ == "__main__":
    main()
