"""Response bodies for display (DESIGN §9): pure, UI-free work a viewer runs in a worker thread.

* ``lines``: a text and its line starts (``LineIndex``, ``build_index``);
* ``json``: faithful JSON parsing, pretty-printing and per-line tokens;
* ``search``: every occurrence of a query (``find_all``, ``Matches``);
* ``filter``: jq, JMESPath and JSONPath filters (``apply_filter``, ``FilterError``);
* ``markup``: HTML and XML laid out one element a line (``pretty_markup``);
* ``kind``: which kind of body this is, image sizes, ``human_size``;
* ``hexdump``: a binary body as ``hexdump -C`` shows it (``hex_dump``);
* ``cancel``: how a long loop stops when the caller's check says so (``Stopped``).

This module is the face: every name below is importable from ``pigeon.bodies``. Nothing here imports a filter library until a filter runs.
"""

from __future__ import annotations

from pigeon.bodies.cancel import Cancelled, Stopped
from pigeon.bodies.filter import FilterError, apply_filter, filter_language, split_language
from pigeon.bodies.hexdump import HEX_LIMIT, hex_dump
from pigeon.bodies.json import (
    TokenKind,
    dumps_pretty,
    json_line_tokens,
    looks_like_json,
    parse_json,
    pretty_json,
)
from pigeon.bodies.kind import (
    JSON_LINES_TYPES,
    BodyKind,
    ImageInfo,
    claims_binary,
    classify_body,
    describe_binary,
    human_size,
    image_info,
    is_json_type,
    is_text_type,
    looks_binary,
    shows_as_json,
)
from pigeon.bodies.lines import EMPTY_INDEX, LineIndex, build_index
from pigeon.bodies.markup import MARKUP_LIMIT, MarkupKind, markup_kind, pretty_markup
from pigeon.bodies.search import Matches, find_all, search_pattern

__all__ = [
    "EMPTY_INDEX",
    "HEX_LIMIT",
    "JSON_LINES_TYPES",
    "MARKUP_LIMIT",
    "BodyKind",
    "Cancelled",
    "FilterError",
    "ImageInfo",
    "LineIndex",
    "MarkupKind",
    "Matches",
    "Stopped",
    "TokenKind",
    "apply_filter",
    "build_index",
    "claims_binary",
    "classify_body",
    "describe_binary",
    "dumps_pretty",
    "filter_language",
    "split_language",
    "find_all",
    "hex_dump",
    "human_size",
    "image_info",
    "is_json_type",
    "is_text_type",
    "json_line_tokens",
    "looks_binary",
    "looks_like_json",
    "markup_kind",
    "parse_json",
    "pretty_json",
    "pretty_markup",
    "search_pattern",
    "shows_as_json",
]
