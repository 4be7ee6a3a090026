"""Export rendered requests to other tools' formats (`pigeon export`, DESIGN §6, §12).

:data:`KINDS` is the one table of them: each kind names the module and function that turns a
:class:`~pigeon.render.RenderedRequest` into the program (or command) that sends the same
request. ``grpcurl`` takes a gRPC call instead, ``postman`` and ``har`` a whole collection
(:data:`COLLECTION_KINDS`), and ``locust`` a selection of requests (:data:`SELECTION_KINDS`,
DESIGN §13); the command line reads its choices from here.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

KINDS: dict[str, str] = {
    "curl": "pigeon.exporters.curl:to_curl",
    "httpie": "pigeon.exporters.httpie:to_httpie",
    "wget": "pigeon.exporters.wget:to_wget",
    "python": "pigeon.exporters.python:to_httpx",
    "python-requests": "pigeon.exporters.python:to_requests",
    "javascript": "pigeon.exporters.javascript:to_fetch",
    "go": "pigeon.exporters.go:to_go",
    "powershell": "pigeon.exporters.powershell:to_powershell",
    "grpcurl": "pigeon.exporters.grpcurl:to_grpcurl",
    "locust": "pigeon.exporters.locust:to_locustfile",
}
"""Every kind ``pigeon export`` takes for one request, in the order the app offers them.
Nothing is imported to read it, so the command line starts as fast."""

GRPC_KINDS = ("grpcurl",)
"""The kinds that export a gRPC call (``to_grpcurl(rendered, request, messages, root)``)."""

COLLECTION_KINDS = ("postman", "har")
"""The kinds that export a whole collection rather than one request."""

SELECTION_KINDS = ("locust",)
"""The kinds that export the requests and folders named (none: the whole collection)."""

REQUEST_KINDS = tuple(k for k in KINDS if k not in (*GRPC_KINDS, *SELECTION_KINDS))
"""The kinds that export one HTTP request: ``exporter(kind)(rendered) -> str``."""


def exporter(kind: str) -> Callable[..., str]:
    """The function behind ``kind`` (``KeyError`` for a kind not in :data:`KINDS`)."""
    module, _, name = KINDS[kind].partition(":")
    function: Any = getattr(importlib.import_module(module), name)
    return function  # type: ignore[no-any-return]
