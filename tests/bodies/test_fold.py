"""The fold model: a pretty-printed body's outline (nodes, paths) and the rows its folds leave.

Checked against a reference walk of the parsed value and against a brute-force fold: every
line's path, every row's line, unfold-all giving back the text, fold then unfold as identity.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pigeon.bodies import build_index, dumps_pretty, pretty_markup
from pigeon.bodies.folds import Folds
from pigeon.bodies.json import Nesting
from pigeon.bodies.outline import (
    Outline,
    build_outline,
    format_path,
    parse_path,
    script_expression,
)
from pigeon.bodies.outline import outline_of as outline_of_nesting

KEYS = st.text(st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=6)
SCALARS = st.none() | st.booleans() | st.integers(-1000, 1000) | st.text(max_size=5)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(KEYS, inner, max_size=5),
    max_leaves=40,
)


def reference_paths(value: Any, path: list[Any] | None = None) -> list[list[Any]]:
    """The path of each line of ``dumps_pretty(value)``, by walking the value."""
    path = path or []
    if isinstance(value, dict) and value:
        inner = [p for key, item in value.items() for p in reference_paths(item, [*path, key])]
        return [path, *inner, path]
    if isinstance(value, list) and value:
        inner = [p for i, item in enumerate(value) for p in reference_paths(item, [*path, i])]
        return [path, *inner, path]
    return [path]


def outline_of(value: Any) -> Outline:
    return build_outline(build_index(dumps_pretty(value)), "json")


def assert_well_nested(outline: Outline) -> None:
    """Nodes in line order, each inside its parent, ``after`` past exactly the nodes inside."""
    lines = len(outline.doc)
    for node in range(len(outline)):
        start, end = outline.opens[node], outline.closes[node]
        assert 0 <= start < end < lines
        parent = outline.parents[node]
        if parent >= 0:
            assert outline.opens[parent] < start and end <= outline.closes[parent]
        after = outline.after[node]
        assert all(outline.opens[i] <= end for i in range(node + 1, after))
        assert after == len(outline) or outline.opens[after] > end


def brute_visible(outline: Outline, folds: Folds) -> list[int]:
    hidden = set()
    for node in range(len(outline)):
        if folds.is_folded(node):
            hidden.update(range(outline.opens[node] + 1, outline.closes[node] + 1))
    return [line for line in range(len(outline.doc)) if line not in hidden]


def shown_text(folds: Folds) -> str:
    doc = folds.outline.doc
    return "".join(doc.line(line) + "\n" for line in folds.visible_lines())


# -- the outline ---------------------------------------------------------------------------------


@settings(max_examples=150, deadline=None)
@given(VALUES)
def test_every_line_has_the_path_of_the_value_it_shows(value: Any) -> None:
    outline = outline_of(value)
    assert_well_nested(outline)
    expected = reference_paths(value)
    assert len(outline.doc) == len(expected)
    for line, path in enumerate(expected):
        assert outline.path_at(line) == path
        # The way back: a path leads to the line its value starts on.
        closer = outline.node_closed_at(line)
        assert outline.line_of_path(path) == (outline.opens[closer] if closer >= 0 else line)
        assert parse_path(format_path(path)) == path


@settings(max_examples=150, deadline=None)
@given(VALUES)
def test_the_nesting_written_with_the_text_is_the_outline_found_in_it(value: Any) -> None:
    nesting = Nesting()
    text = dumps_pretty(value, nesting=nesting)
    assert text == dumps_pretty(value)
    doc = build_index(text)
    written, found = outline_of_nesting(doc, nesting), build_outline(doc, "json")
    for name in ("opens", "closes", "parents", "after", "depths", "closed"):
        assert list(getattr(written, name)) == list(getattr(found, name)), name


def test_a_deep_nesting_keeps_its_depth_in_a_byte() -> None:
    value: Any = []
    for _ in range(300):
        value = [value, 1]
    nesting = Nesting()
    doc = build_index(dumps_pretty(value, nesting=nesting))
    written, found = outline_of_nesting(doc, nesting), build_outline(doc, "json")
    assert written.depths == found.depths and max(written.depths) == 255
    assert written.closes == found.closes and written.after == found.after


def test_nodes_depths_and_summaries() -> None:
    outline = outline_of({"items": [{"id": 1}, {"id": 2}, {"id": 3}], "total": 3, "e": []})
    doc = outline.doc
    assert [doc.line(line) for line in outline.opens] == [
        "{",
        '  "items": [',
        "    {",
        "    {",
        "    {",
    ]
    assert list(outline.depths) == [0, 1, 2, 2, 2]
    assert list(outline.parents) == [-1, 0, 1, 1, 1]
    assert outline.summary(1) == " … 3 items ],"
    assert outline.summary(0) == " … 3 keys }"
    assert outline.summary(2) == " … 1 key },"
    assert format_path(outline.path_at(doc.line_of(doc.text.index('"id": 2')))) == "items[1].id"


def test_paths_as_typed_and_as_copied() -> None:
    assert parse_path("items[3].id") == ["items", 3, "id"]
    assert parse_path("$.items[-1]['a b'].\"c.d\"") == ["items", -1, "a b", "c.d"]
    assert parse_path(" @ ") == parse_path("$") == parse_path("") == []
    assert format_path(["items", 3, "a b", "", "x"]) == 'items[3]."a b"."".x'
    assert format_path([]) == "@"
    with pytest.raises(ValueError, match="cannot read"):
        parse_path("items[")
    outline = outline_of({"items": [{"id": 7}]})
    with pytest.raises(KeyError) as missing:
        outline.line_of_path(["items", 5, "id"])
    assert missing.value.args[0] == "items[5]"
    assert (
        script_expression(["items", 3, "id"])
        == 'pigeon.setVar("id", pigeon.response.json()["items"][3]["id"])'
    )
    assert (
        script_expression([0, "a b"]) == 'pigeon.setVar("value", pigeon.response.json()[0]["a b"])'
    )


def test_markup_folds_by_element_with_its_closing_tag() -> None:
    html = "<html><body><ul><li>one</li><li>two</li></ul><p>end</p></body></html>"
    doc = build_index(pretty_markup(html, "html") or "")
    outline = build_outline(doc, "markup")
    ul = outline.node_at(next(n for n in range(len(doc)) if doc.line(n).strip() == "<ul>"))
    assert doc.line(outline.closes[ul]).strip() == "</ul>"
    assert outline.summary(ul) == " … 6 lines </ul>"
    folds = Folds(outline)
    folds.fold(ul)
    assert "<li>" not in shown_text(folds)
    assert outline.path_at(0) == []  # paths are JSON's


@settings(max_examples=100, deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, 6), st.sampled_from(["x", "</x>", ""])), max_size=30).map(
        lambda rows: ["  " * depth + text for depth, text in rows]
    )
)
def test_any_indented_text_makes_a_well_nested_outline(lines: list[str]) -> None:
    """Markup comes from outside: whatever its indentation, nodes nest and stay in bounds."""
    outline = build_outline(build_index("\n".join(lines)), "markup")
    assert_well_nested(outline)


# -- folds ---------------------------------------------------------------------------------------


OPS = st.lists(
    st.tuples(
        st.sampled_from(["fold", "unfold", "toggle", "level", "all", "none", "reveal"]),
        st.integers(0, 10_000),
    ),
    max_size=12,
)


@settings(max_examples=150, deadline=None)
@given(VALUES, OPS)
def test_rows_match_a_brute_force_fold(value: Any, ops: list[tuple[str, int]]) -> None:
    outline = outline_of(value)
    folds = Folds(outline)
    count = len(outline)
    for op, n in ops:
        if op == "level":
            folds.fold_level(n % 5)
        elif op == "all":
            folds.fold_all()
        elif op == "none":
            folds.unfold_all()
        elif op == "reveal":
            line = n % len(outline.doc)
            folds.reveal(line)
            assert not folds.is_hidden(line)
        elif count:
            getattr(folds, op)(n % count)
        visible = brute_visible(outline, folds)
        assert list(folds.visible_lines()) == visible
        assert folds.rows == len(visible)
        for row, line in enumerate(visible):
            assert folds.row_of(line) == row
    # Unfolding everything gives the text back.
    folds.unfold_all()
    assert shown_text(folds) == outline.doc.text + ("" if outline.doc.text.endswith("\n") else "\n")


@settings(max_examples=100, deadline=None)
@given(VALUES, st.integers(0, 10_000), st.integers(0, 4))
def test_fold_then_unfold_changes_nothing(value: Any, pick: int, level: int) -> None:
    outline = outline_of(value)
    if not len(outline):
        return
    folds = Folds(outline)
    folds.fold_level(level)
    node = pick % len(outline)
    before = (list(folds.visible_lines()), folds.is_folded(node))
    folds.toggle(node)
    folds.toggle(node)
    assert (list(folds.visible_lines()), folds.is_folded(node)) == before


def test_a_hidden_line_maps_to_its_folded_node() -> None:
    outline = outline_of({"a": {"b": [1, 2]}, "c": 1})
    folds = Folds(outline)
    folds.fold_level(1)
    assert shown_text(folds) == '{\n  "a": {\n  "c": 1\n}\n'
    inner = outline.line_of_path(["a", "b", 1])
    assert folds.is_hidden(inner) and folds.row_of(inner) == 1
    assert folds.folded_at(1) == outline.node_at(1)
    folds.reveal(inner)
    assert shown_text(folds).count("\n") == len(outline.doc)
