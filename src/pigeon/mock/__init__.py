"""``pigeon mock DIR``: a collection's saved examples served over HTTP (DESIGN §14).

``routes`` decides which example answers a call; ``server`` is the HTTP server; ``main`` is
the command line: the collection loaded, its routes built, the server run in the foreground
until Ctrl-C or SIGTERM.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from pigeon.echo.server import is_loopback, serve_until_stopped
from pigeon.mock.server import MockServer, stderr_log

__all__ = ["MockServer", "main", "parse_delay"]

MAX_DELAY = 60.0


def parse_delay(text: str) -> float:
    """``200ms``, ``1.5s`` or a number of milliseconds, as seconds."""
    found = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*(ms|s)?\s*", text)
    if found is None:
        raise ValueError(f"--delay: {text!r} is not a duration such as 200ms or 1.5s")
    value = float(found.group(1)) / (1 if found.group(2) == "s" else 1000)
    if value > MAX_DELAY:
        raise ValueError(f"--delay: at most {MAX_DELAY:.0f}s")
    return value


def main(args: argparse.Namespace) -> int:
    """Serve until Ctrl-C; exit 2 for a broken collection or bad option, 1 when the port is
    taken."""
    from pigeon.mock.routes import build_routes
    from pigeon.scopes import UnknownEnvironment
    from pigeon.store import load_collection

    try:
        delay = parse_delay(args.delay) if args.delay else 0.0
    except ValueError as exc:
        print(f"pigeon mock: {exc}", file=sys.stderr)
        return 2
    if not 0 <= args.port <= 65535:
        print(f"pigeon mock: port out of range: {args.port}", file=sys.stderr)
        return 2
    collection = load_collection(Path(args.collection))
    for broken in collection.broken:
        if not broken.skipped:
            print(f"pigeon mock: {broken}", file=sys.stderr)
            return 2
    try:
        routes, notes = build_routes(collection, args.env)
    except UnknownEnvironment as exc:
        print(f"pigeon mock: {exc}", file=sys.stderr)
        return 2
    for note in notes:
        print(f"pigeon mock: note: {note}", file=sys.stderr)
    server = MockServer(
        routes, args.host, args.port, log=None if args.quiet else stderr_log, delay=delay
    )
    try:
        server.start()
    except OSError as exc:
        print(
            f"pigeon mock: cannot listen on {args.host}:{args.port}: {exc.strerror or exc}",
            file=sys.stderr,
        )
        return 1
    if not is_loopback(args.host):
        print(
            f"pigeon mock: warning: {args.host} is reachable from other machines", file=sys.stderr
        )
    count = sum(len(r.examples) for r in routes)
    return serve_until_stopped(
        server,
        f"Pigeon mock on {server.url} ({len(routes)} requests, {count} examples; Ctrl-C to stop)",
    )
