"""A small HTTP echo server for trying requests out and for tests (`pigeon echo`).

Every request gets a JSON description of itself. A few routes exercise a client:
``POST /login`` + ``GET /me`` (bearer tokens), ``/status/{code}``, ``/redirect/{n}``,
``/delay/{s}``, ``/bytes/{n}``, ``/json/large?mb=N``, ``/close-mid-body``, ``/image.png``,
``/cookies``, ``/cookies/set``, ``/cookies/delete``, ``/response-headers``, ``/gzip`` and
``/text?charset=NAME``. HTTP/1.1 with keep-alive, loopback by default, standard library only.

``data`` makes the fake data, ``handler`` answers requests, ``server`` starts and stops it
and runs ``pigeon echo`` (also ``python -m pigeon.echo``). This module is the face: every name
below is importable from ``pigeon.echo``.
"""

from __future__ import annotations

from pigeon.echo.data import CHUNK, PNG, SAMPLE_TEXT, large_json_chunks, large_user
from pigeon.echo.handler import (
    MAX_DELAY,
    MAX_LARGE_JSON_MB,
    MAX_REDIRECTS,
    MAX_REQUEST_BODY,
    EchoHandler,
)
from pigeon.echo.server import EchoServer, main

__all__ = [
    "CHUNK",
    "MAX_DELAY",
    "MAX_LARGE_JSON_MB",
    "MAX_REDIRECTS",
    "MAX_REQUEST_BODY",
    "PNG",
    "SAMPLE_TEXT",
    "EchoHandler",
    "EchoServer",
    "large_json_chunks",
    "large_user",
    "main",
]
