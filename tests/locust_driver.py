"""Runs Locust in this process (``locust.env.Environment``, a local runner) on a locustfile
and prints its stats as JSON: the tests start it as a child, so gevent's monkey-patching
never reaches the pytest process.

``python locust_driver.py LOCUSTFILE USERS REQUESTS [SECONDS]``: USERS users spawned at
once, stopped once REQUESTS requests are reported, a user fails with an error, or SECONDS
pass (a safety net).
"""

from __future__ import annotations

import importlib.util
import json
import sys

import gevent
import locust  # noqa: F401  (first: gevent patches the standard library)
from locust.env import Environment
from locust.stats import StatsError
from locust.user import User


def main() -> None:
    path, users, wanted = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    seconds = float(sys.argv[4]) if len(sys.argv) > 4 else 20.0
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
    print(json.dumps({"stats": stats, "errors": errors, "user_errors": user_errors}))


if __name__ == "__main__":
    main()
