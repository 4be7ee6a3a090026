"""Key bindings: the help screen's listing and remapping from the config file's ``[keys]``.

Every Pigeon binding has an ``id`` (``send``, ``tree.rename``...). ``[keys]`` maps ids to keys
(``send = "ctrl+r,f9"``); the app applies it with ``App.set_keymap``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from textual.binding import Binding

_PRETTY = {
    "question_mark": "?",
    "escape": "esc",
    "delete": "del",
    "space": "space",
}


def bindings_of(cls: type) -> list[Binding]:
    """The ``Binding`` objects a class declares itself (not inherited)."""
    return [b for b in cls.__dict__.get("BINDINGS", []) if isinstance(b, Binding)]


def expand_groups(groups: Iterable[tuple[str, type]]) -> Iterable[tuple[str, type]]:
    """Each group followed by the groups its class lists in ``help_subgroups()`` (a screen
    naming the widgets it mounts later, which are not imported until needed)."""
    for title, cls in groups:
        yield title, cls
        subgroups = getattr(cls, "help_subgroups", None)
        if callable(subgroups):
            yield from expand_groups(subgroups())


def known_ids(classes: Iterable[type]) -> set[str]:
    every = [c for _, c in expand_groups(("", cls) for cls in classes)]
    return {b.id for cls in every for b in bindings_of(cls) if b.id}


def pretty_keys(keys: str) -> str:
    return ", ".join(_PRETTY.get(k.strip(), k.strip()) for k in keys.split(","))


def help_sections(
    groups: Iterable[tuple[str, type]], keymap: Mapping[str, str]
) -> list[tuple[str, list[tuple[str, str]]]]:
    """``[(pane title, [(keys, description)])]`` with remapped keys shown as they now are."""
    out = []
    for title, cls in expand_groups(groups):
        rows = []
        for b in bindings_of(cls):
            if not b.description:
                continue
            keys = keymap.get(b.id, b.key) if b.id else b.key
            rows.append((pretty_keys(keys), b.description))
        if rows:
            out.append((title, rows))
    return out


def keymap_from_config(table: Any, ids: set[str]) -> tuple[dict[str, str], list[str]]:
    """Validate a ``[keys]`` table: unknown ids and non-string keys are reported, not applied."""
    keymap: dict[str, str] = {}
    problems: list[str] = []
    if not table:
        return keymap, problems
    if not isinstance(table, Mapping):
        return keymap, ['[keys] must be a table of action = "key"']
    for binding_id, keys in table.items():
        if binding_id not in ids:
            problems.append(f"[keys] {binding_id}: no such action (see the help screen, f1)")
        elif not isinstance(keys, str) or not keys.strip():
            problems.append(f'[keys] {binding_id}: the key must be a string such as "ctrl+r"')
        else:
            keymap[binding_id] = keys.replace(" ", "")
    return keymap, problems
