"""The old home of the body-display helpers, kept as a face so ``from pigeon.bodyformat import
...`` and ``bodyformat.pretty_json(...)`` go on working. The code lives in ``pigeon.bodies``
(one module per job); new code imports from there.
"""

from __future__ import annotations

from pigeon.bodies.cancel import Cancelled, Stopped
from pigeon.bodies.filter import FilterError, apply_filter, filter_language
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
    classify_body,
    describe_binary,
    human_size,
    image_info,
    is_json_type,
    is_text_type,
    looks_binary,
)
from pigeon.bodies.lines import EMPTY_INDEX, LineIndex, build_index
from pigeon.bodies.search import Matches, find_all, search_pattern

__all__ = [
    "EMPTY_INDEX",
    "JSON_LINES_TYPES",
    "BodyKind",
    "Cancelled",
    "FilterError",
    "ImageInfo",
    "LineIndex",
    "Matches",
    "Stopped",
    "TokenKind",
    "apply_filter",
    "build_index",
    "classify_body",
    "describe_binary",
    "dumps_pretty",
    "filter_language",
    "find_all",
    "human_size",
    "image_info",
    "is_json_type",
    "is_text_type",
    "json_line_tokens",
    "looks_binary",
    "looks_like_json",
    "parse_json",
    "pretty_json",
    "search_pattern",
]
