"""The body filters used on each request, remembered per collection (DESIGN §9) in
``.pigeon/filters.json`` (git-ignored, never written through a link: ``files.private_dir``).

Newest first, at most ``PER_REQUEST`` a request and ``REQUESTS`` requests (the longest unused
go first). The file sits in a folder a repository could ship, so it is read as hostile input:
capped, and anything but a list of strings under a request id is dropped. A broken file is
set aside with a note (the next write starts afresh), never a crash.
"""

from __future__ import annotations

import json
from pathlib import Path

from pigeon.files import LinkedOut, atomic_write, private_dir, read_capped

FILTERS_FILE = "filters.json"
PER_REQUEST = 50
REQUESTS = 500
EXPRESSION_LIMIT = 2000
_LIMIT = 4 * 1024 * 1024

History = dict[str, list[str]]


def load_filter_history(root: Path) -> tuple[History, str | None]:
    """Every request's filters, newest first, and why the file was not usable (or ``None``)."""
    try:
        path = private_dir(root, create=False) / FILTERS_FILE
        if path.is_symlink():
            return {}, f"{path} is a link: filter history not read"
        if not path.exists():
            return {}, None
        data = json.loads(read_capped(path, _LIMIT).decode("utf-8"))
    except (OSError, LinkedOut, UnicodeDecodeError, ValueError, RecursionError) as exc:
        reason = (str(exc).splitlines() or [type(exc).__name__])[0][:200]
        return {}, f"filter history not read: {reason}"
    if not isinstance(data, dict) or not isinstance(data.get("requests"), dict):
        return {}, "filter history not read: not the shape Pigeon writes"
    history: History = {}
    for request_id, filters in list(data["requests"].items())[:REQUESTS]:
        if isinstance(request_id, str) and isinstance(filters, list):
            kept = [f for f in filters if isinstance(f, str) and 0 < len(f) <= EXPRESSION_LIMIT]
            history[request_id] = kept[:PER_REQUEST]
    return history, None


def remember_filter(root: Path, request_id: str, expression: str) -> str | None:
    """Put ``expression`` first in the request's filters (once); why it could not be written,
    or ``None``. A request with no id (a scratch request) keeps none."""
    expression = expression.strip()
    if not request_id or not expression or len(expression) > EXPRESSION_LIMIT:
        return None
    history, _ = load_filter_history(root)  # a broken file is replaced
    filters = [expression, *(f for f in history.pop(request_id, []) if f != expression)]
    history = {request_id: filters[:PER_REQUEST], **history}  # the most recently used first
    text = json.dumps({"requests": dict(list(history.items())[:REQUESTS])}, ensure_ascii=False)
    try:
        atomic_write(private_dir(root) / FILTERS_FILE, text, durable=False)
    except (OSError, LinkedOut) as exc:
        return str(exc)
    return None
