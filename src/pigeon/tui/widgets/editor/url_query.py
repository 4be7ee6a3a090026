"""The query written in a URL, as name/value pairs the Query tab lists and edits.

A URL's inline query stays in the URL (DESIGN §5: inserted raw, placeholders and
percent-escapes as typed); these helpers only split it into pairs and write pairs back, so
the Query tab and the URL bar show one query. ``&``, ``?``, ``#`` and ``=`` inside a
placeholder (a quoted literal may hold them) do not split anything.
"""

from __future__ import annotations

import re

_PLACEHOLDER = re.compile(r"\{\{.*?\}\}")

Pair = tuple[str, str | None]  # (name, value); None: the name alone, without "="


def _masked(text: str) -> str:
    """``text`` with every placeholder blanked out (same length), to find separators in."""
    return _PLACEHOLDER.sub(lambda m: "\0" * len(m.group()), text)


def split_url(url: str) -> tuple[str, list[Pair], str]:
    """``(before the query, its pairs, "#fragment" or "")``."""
    masked = _masked(url)
    hash_at = masked.find("#")
    end = hash_at if hash_at >= 0 else len(url)
    fragment = url[end:]
    query_at = masked.find("?", 0, end)
    if query_at < 0:
        return url[:end], [], fragment
    pairs: list[Pair] = []
    start = query_at + 1
    while start <= end:
        amp = masked.find("&", start, end)
        stop = amp if amp >= 0 else end
        piece, mpiece = url[start:stop], masked[start:stop]
        if piece:
            eq = mpiece.find("=")
            pairs.append((piece, None) if eq < 0 else (piece[:eq], piece[eq + 1 :]))
        start = stop + 1
    return url[:query_at], pairs, fragment


def url_params(url: str) -> list[Pair]:
    return split_url(url)[1]


def with_params(url: str, pairs: list[Pair]) -> str:
    """``url`` with its query replaced by ``pairs`` (none: no ``?``)."""
    base, _, fragment = split_url(url)
    query = "&".join(name if value is None else f"{name}={value}" for name, value in pairs)
    return base + (f"?{query}" if query else "") + fragment
