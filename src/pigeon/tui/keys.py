"""Key bindings: the help screen's listing, the palette's actions, and remapping from the config
file's ``[keys]``.

Every Pigeon binding has an ``id`` (``send``, ``tree.rename``...). ``[keys]`` maps ids to keys
(``send = "ctrl+r,f9"``); the app applies it with ``App.set_keymap``. The help screen and the
command palette are both generated from the same ``BINDINGS``, so neither can drift.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from textual.actions import parse as parse_action
from textual.binding import Binding
from textual.keys import KEY_ALIASES, KEY_NAME_REPLACEMENTS, Keys, format_key, key_to_character
from textual.screen import Screen
from textual.widget import Widget

_PRETTY = {"enter": "enter"}  # Textual's ⏎ is easy to miss in a table of keys


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


def pretty_key(key: str) -> str:
    """``slash`` as ``/``, ``full_stop`` as ``.``, ``up`` as ``↑``, ``ctrl+slash`` as ``ctrl+/``."""
    *modifiers, name = key.strip().split("+")
    return "+".join([*modifiers, _PRETTY.get(name) or format_key(name)])


def pretty_keys(keys: str) -> str:
    return ", ".join(pretty_key(k) for k in keys.split(","))


def describe(binding: Binding) -> str:
    """What the help screen and the palette call an action: the tooltip when there is one (the
    footer's label is kept short), else the description."""
    return binding.tooltip or binding.description


def current_keys(binding: Binding, keymap: Mapping[str, str]) -> str:
    """The binding's keys as the user sees them, remaps included."""
    keys = keymap.get(binding.id, binding.key) if binding.id else binding.key
    return pretty_keys(keys)


def help_sections(
    groups: Iterable[tuple[str, type]], keymap: Mapping[str, str]
) -> list[tuple[str, list[tuple[str, str, str]]]]:
    """``[(pane title, [(keys, description, action id)])]`` with remapped keys shown as they
    now are; the id is what ``[keys]`` remaps."""
    out = []
    for title, cls in expand_groups(groups):
        rows = [
            (current_keys(b, keymap), describe(b), b.id or "")
            for b in bindings_of(cls)
            if b.description
        ]
        if rows:
            out.append((title, rows))
    return out


@dataclass(frozen=True)
class PaletteAction:
    """One command palette entry: run ``action`` on ``node``, as its key would."""

    title: str
    help: str
    node: Any  # the DOMNode that declares the binding
    action: str
    binding_id: str


def palette_actions(
    nodes: Iterable[Any], groups: Iterable[tuple[str, type]], keymap: Mapping[str, str]
) -> list[PaletteAction]:
    """Every described Pigeon binding of ``nodes`` (the focused widget, its ancestors, the
    screen and the app) whose action is enabled now. A widget's entries are prefixed with its
    help section's title (up to any parenthesis), so "Rename" reads "Collection tree: Rename"."""
    sections = [(title.split(" (")[0], cls) for title, cls in expand_groups(groups)]
    out: list[PaletteAction] = []
    seen: set[str] = set()
    for node in nodes:
        for title, cls in sections:
            if cls not in type(node).__mro__:
                continue
            widget = isinstance(node, Widget) and not isinstance(node, Screen)
            prefix = f"{title}: " if widget else ""
            for b in bindings_of(cls):
                if not b.description or not b.id or b.id in seen:
                    continue
                _, name, params = parse_action(b.action)
                if node.check_action(name, params) is False:
                    continue
                seen.add(b.id)
                help_text = f"{current_keys(b, keymap)} · {b.id}"
                out.append(PaletteAction(prefix + describe(b), help_text, node, b.action, b.id))
    return out


def keymap_from_config(table: Any, ids: set[str]) -> tuple[dict[str, str], list[str]]:
    """Validate a ``[keys]`` table: unknown ids, non-string keys and keys no terminal sends
    (``ctrl+banana``) are reported, not applied; two actions given one key are reported, naming
    both (where both apply, only one of them runs)."""
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
        elif bad := [k for k in keys.replace(" ", "").split(",") if not is_key(k)]:
            names = ", ".join(repr(k) for k in bad)
            problems.append(
                f"[keys] {binding_id}: {names} is not a key (keys read like "
                '"ctrl+r", "f5", "escape", "question_mark"); not applied'
            )
        else:
            keymap[binding_id] = keys.replace(" ", "")
    holders: dict[str, list[str]] = {}
    for binding_id, keys in keymap.items():
        for key in dict.fromkeys(keys.split(",")):
            holders.setdefault(key, []).append(binding_id)
    for key, actions in holders.items():
        if len(actions) > 1:
            both = " and ".join(actions) if len(actions) == 2 else ", ".join(actions)
            problems.append(
                f"[keys] {key} is given to {both}: where both apply, only one of them runs"
            )
    return keymap, problems


_MODIFIERS = frozenset({"ctrl", "shift", "alt", "meta", "super", "hyper"})
# Key names Textual gives keys that send no character, and its names for a few that do.
_NAMED = frozenset(
    {k.value for k in Keys if "+" not in k.value and not k.value.startswith("<")}
    | {alias.rpartition("+")[2] for aliases in KEY_ALIASES.values() for alias in aliases}
    | set(KEY_NAME_REPLACEMENTS.values())
)


def is_key(key: str) -> bool:
    """Whether ``key`` names a key a terminal can send: modifiers, then one character, a named
    key (``f5``, ``escape``) or a character's name as Textual writes it (``question_mark``)."""
    *modifiers, name = key.split("+")
    if (
        not name
        or any(m not in _MODIFIERS for m in modifiers)
        or len(set(modifiers)) < len(modifiers)
    ):
        return False
    if len(name) == 1 or name in _NAMED:
        return True
    character = key_to_character(name)
    return character is not None and len(character) == 1 and ord(character) < 0x3000
