"""Writing TOML as users write it (DESIGN §2): new files in a readable layout, and edits of a
user's document that keep everything else (see ``tomltext``, whose reading half loads without
``tomlkit``: the app reads its config, themes and collection before its first frame, and
writes nothing then)."""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Mapping
from typing import Any

import tomlkit
from tomlkit.container import Container
from tomlkit.items import AoT, Array, InlineTable, Item, String, StringType, Table, Trivia

from pigeon.tomltext import Block, same

# -- new items ---------------------------------------------------------------------------------

_CONTROL = frozenset(chr(i) for i in range(32)) - {"\t", "\n"} | {"\x7f"}


def text_block(value: str) -> Item:
    """A body or script as a TOML string that reads as written.

    Multi-line text becomes ``'''`` + newline + text + ``'''`` (TOML drops that first newline),
    so editing one line of a body is a one-line diff. Text without a final newline ends its
    last line with the closing quotes: never with a backslash that trims the line break, which
    would join a line added by hand after it to the last one. Text a literal string cannot hold
    falls back to a basic block that escapes only what it must (``_escaped_block``).
    """
    literal_ok = not (_CONTROL & set(value))
    if "\n" not in value:
        if literal_ok and "'" not in value:
            return String(StringType.SLL, value, value, Trivia())
        if literal_ok and "'''" not in value and not value.endswith("'"):
            return String(StringType.MLL, value, value, Trivia())  # one line, no escapes
        return tomlkit.string(value)
    if literal_ok and "'''" not in value and not value.endswith("'"):
        return String(StringType.MLL, value, "\n" + value, Trivia())
    return _escaped_block(value)


# What a basic string must escape besides ``"""`` (a control character without a short form
# becomes ``\uXXXX``); ``\t`` and ``\n`` are written as they are.
_BASIC_ESCAPES = {"\\": "\\\\", "\r": "\\r", "\b": "\\b", "\f": "\\f"}


def _escaped_block(value: str) -> Item:
    """Multi-line text no literal block holds (a control character, three single quotes, a
    final single quote): a basic block escaping only what it must, a line of text a line of
    TOML. Without a final newline the closing quotes end the last line (a double quote just
    before them escaped), so no line ends in a backslash that would trim its break.

    Literal text with a backslash stays a literal block: code reads as written (a regex's
    ``\\d`` is not doubled)."""
    out = []
    for c in value:
        escape = _BASIC_ESCAPES.get(c)
        if escape is None and c in _CONTROL:
            escape = f"\\u{ord(c):04x}"
        out.append(escape or c)
    if value.endswith('"'):
        out[-1] = '\\"'  # a quote touching the closing ones would be read as one of them
    escaped = "".join(out).replace('"""', '""\\"')
    return String(StringType.MLB, value, "\n" + escaped, Trivia())


def _string_like(value: str, old: Item | None) -> Item:
    """A string in the style the user chose for the value it replaces, where it can hold it;
    a new ``Block`` as a text block."""
    if not isinstance(old, String):
        return text_block(value) if isinstance(value, Block) else tomlkit.string(value)
    literal_ok = not (_CONTROL & set(value))
    if old.type is StringType.SLL and literal_ok and "'" not in value and "\n" not in value:
        return String(StringType.SLL, value, value, Trivia())
    triple = "\x27" * 3
    mll_ok = literal_ok and triple not in value and not value.endswith("\x27")
    if old.type is StringType.MLL and mll_ok:
        # TOML drops a newline right after the opening quotes: keep the user's, and add one
        # when the text itself starts with a newline, so that newline is not the one dropped.
        lead = "\n" if old.as_string().startswith(triple + "\n") or value[:1] == "\n" else ""
        return String(StringType.MLL, value, lead + value, Trivia())
    if old.type is StringType.MLB and "\n" in value:
        return _escaped_block(value)
    if isinstance(value, Block):
        return text_block(value)
    return tomlkit.string(value)


def _inline(value: Any) -> Item:
    """A value for a place that must stay on one line (inside an inline table or array)."""
    if isinstance(value, Mapping):
        table = tomlkit.inline_table()
        for k, v in value.items():
            table.append(k, _inline(v))
        return table
    if isinstance(value, (list, tuple)):
        array = tomlkit.array()
        array.extend(_inline(v) for v in value)
        return array
    if isinstance(value, str):
        return tomlkit.string(str(value))
    item: Item = tomlkit.item(value)
    return item


def _new_item(value: Any, old: Any = None) -> Any:
    """An item for ``value``, shaped like ``old`` (the item it replaces) where that fits."""
    if isinstance(value, str):
        return _string_like(value, old if isinstance(old, Item) else None)
    if isinstance(value, Mapping):
        if isinstance(old, InlineTable):
            return _inline(value)
        return _table(value)
    if isinstance(value, (list, tuple)):
        if value and all(isinstance(v, Mapping) for v in value) and not isinstance(old, Array):
            return _aot(value)
        if isinstance(old, Array) and "\n" in old.as_string():
            return _multiline_array(value, old)
        return _inline(value)
    return tomlkit.item(value)


def _multiline_array(value: list[Any] | tuple[Any, ...], old: Array) -> Array:
    """One element a line, indented as the array it replaces was."""
    match = re.search(r"\n([ \t]*)\S", old.as_string())
    indent = match[1] if match and match[1] else "  "
    lines = "".join(f"{indent}{_inline(v).as_string()},\n" for v in value)
    array: Array = tomlkit.parse(f"v = [\n{lines}]\n")["v"]
    return array


def _table(data: Mapping[str, Any]) -> Table:
    """A ``[table]``; one that holds only tables is written as their headers alone."""
    only_tables = bool(data) and all(isinstance(v, Mapping) for v in data.values())
    table = tomlkit.table(is_super_table=only_tables)
    _fill(table, data)
    return table


def _aot(entries: list[Mapping[str, Any]] | tuple[Mapping[str, Any], ...]) -> AoT:
    aot = tomlkit.aot()
    for entry in entries:
        aot.append(_aot_table(entry))
    return aot


def _aot_table(entry: Mapping[str, Any]) -> Table:
    """One ``[[name]]`` entry: nested tables stay inline, so an entry is one block of lines;
    but an array of tables in it (an example's headers) follows as ``[[name.key]]`` entries,
    one pair a block, as a person writes them."""
    table = tomlkit.table()
    nested = []
    for k, v in entry.items():
        if isinstance(v, (list, tuple)) and v and all(isinstance(e, Mapping) for e in v):
            nested.append((k, v))
            continue
        table.append(k, _string_like(v, None) if isinstance(v, str) else _inline(v))
    for k, v in nested:
        table.append(k, _aot(v))
    return table


def _fill(container: Container | Table, data: Mapping[str, Any]) -> None:
    """Plain keys first, then tables and arrays of tables, in the order given."""
    later = []
    for k, v in data.items():
        if isinstance(v, Mapping) or (
            isinstance(v, (list, tuple)) and v and all(isinstance(e, Mapping) for e in v)
        ):
            later.append((k, v))
        else:
            container.append(k, _new_item(v))
    for k, v in later:
        container.append(k, _new_item(v))


def dumps(data: Mapping[str, Any]) -> str:
    """A new file in the readable layout: plain keys, then ``[tables]``, ``[[entries]]`` and
    ``'''`` blocks for ``Block`` text."""
    doc = tomlkit.document()
    _fill(doc, data)
    return doc.as_string()


def value_text(value: Any) -> str:
    """One TOML value on one line, as it is written after ``key = ``."""
    return _inline(value).as_string()


# -- editing a user's document -----------------------------------------------------------------


def update(text: str, old: Mapping[str, Any], new: Mapping[str, Any]) -> str:
    """``text`` with what differs between ``old`` (the data ``text`` stands for) and ``new``
    written into it, everything else -- comments, blank lines, order, styles -- as it was."""
    if same(old, new):
        return text  # nothing to write: skip tomlkit's parse, the slow part of a save
    doc = tomlkit.parse(text)
    _merge(doc, old, new)
    edited = doc.as_string()
    if text.endswith("\n") and not text.endswith("\n\n"):
        edited = edited.rstrip("\n") + "\n"  # a removed last table leaves no blank tail
    return edited


def _merge(container: Any, old: Mapping[str, Any], new: Mapping[str, Any]) -> None:
    for key in [k for k in old if k not in new]:
        if key in container:
            del container[key]
    order = list(new)
    for key, value in new.items():
        before = old.get(key)
        if key in old and same(before, value):
            continue
        current = container.get(key) if key in container else None
        if (
            isinstance(value, Mapping)
            and isinstance(before, Mapping)
            and isinstance(current, (Table, InlineTable))
        ):
            _merge(current, before, value)
        elif isinstance(current, AoT) and isinstance(before, (list, tuple)) and _entries(value):
            _merge_aot(current, list(before), list(value))
        elif current is not None:
            container[key] = _new_item(value, current)
        else:
            _add(container, key, value, order)


def _entries(value: Any) -> bool:
    return isinstance(value, (list, tuple)) and all(isinstance(v, Mapping) for v in value)


def _is_table(item: Any) -> bool:
    return isinstance(item, (Table, AoT)) and not isinstance(item, InlineTable)


def _body(container: Any) -> list[tuple[Any, Any]]:
    return container.value.body if isinstance(container, Table) else container.body


def _add(container: Any, key: str, value: Any, order: list[str]) -> None:
    """A key the file did not have, placed before the next key of ``order`` that the file has
    (so a new ``name`` goes first, a new ``[auth]`` before ``[scripts]``), else at the end."""
    item = _new_item(value)
    is_table = isinstance(item, (Table, AoT))
    body = _body(container)
    for later in order[order.index(key) + 1 :]:
        at = next((i for i, (k, _) in enumerate(body) if k is not None and k.key == later), None)
        if at is None:
            continue
        if is_table:
            (item.body[-1] if isinstance(item, AoT) else item).add(tomlkit.nl())
        # tomlkit has no public insert-before; _insert_at is its stable way to place a key
        container_of = container.value if isinstance(container, Table) else container
        container_of._insert_at(at, key, item)
        return
    if not is_table:  # after the last plain key, before the comments that open a table
        plain = [i for i, (k, v) in enumerate(body) if k is not None and not _is_table(v)]
        if plain and plain[-1] + 1 < len(body):
            container_of = container.value if isinstance(container, Table) else container
            container_of._insert_at(plain[-1] + 1, key, item)
            return
    if is_table and body and not container.as_string().endswith("\n\n"):
        if not isinstance(body[-1][1], (Table, AoT)):
            container.add(tomlkit.nl())
        else:
            last = body[-1][1]
            (last.body[-1] if isinstance(last, AoT) else last).add(tomlkit.nl())
    container[key] = item


def _merge_aot(aot: AoT, old: list[Mapping[str, Any]], new: list[Mapping[str, Any]]) -> None:
    """Entries matched in order: unchanged ones (and their comments) stay as they are."""
    key = [json.dumps(e, sort_keys=True, default=repr) for e in old]
    key_new = [json.dumps(e, sort_keys=True, default=repr) for e in new]
    tables = list(aot.body)
    out: list[Table] = []
    matcher = difflib.SequenceMatcher(a=key, b=key_new, autojunk=False)
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            out += tables[i1:i2]
            continue
        pairs = min(i2 - i1, j2 - j1) if op == "replace" else 0
        for n in range(pairs):
            table = tables[i1 + n]
            _merge(table, old[i1 + n], new[j1 + n])
            out.append(table)
        for entry in new[j1 + pairs : j2]:
            table = _aot_table(entry)
            spaced = bool(tables) and tables[min(i1, len(tables) - 1)].as_string().endswith("\n\n")
            if spaced:
                table.add(tomlkit.nl())
            out.append(table)
    last_text = tables[-1].as_string() if tables else ""
    while len(aot):
        del aot[0]
    for table in out:
        aot.append(table)
    if out and last_text.endswith("\n\n") and not out[-1].as_string().endswith("\n\n"):
        out[-1].add(tomlkit.nl())


__all__ = ["dumps", "text_block", "update", "value_text"]
