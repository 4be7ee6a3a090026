"""Alt+digit as terminals send it: ESC then the digit.

tmux, GNU screen, xterm and most Linux terminals send Alt+2 as ``ESC 2``. Textual reads a few
of those pairs (``ESC 1``…``ESC 0``, ``ESC -``, ``ESC =``, ``ESC §``) as the characters macOS
types for Option+key (``¡ ™ £ ¢``…), a choice made for WezTerm on macOS. Pigeon's pane keys
are Alt+1…4, so in a URL bar those keys typed ``™`` and moved nothing. Dropping the pairs from
Textual's table lets its parser read them as it reads any other ESC-prefixed key: ``alt+2``.
A ``¡`` typed as a character (a Spanish keyboard, macOS Option without Meta) arrives without
the ESC and is still typed as it is.
"""

from __future__ import annotations

from typing import cast

from textual import _ansi_sequences  # Textual's key table: a module-level dict it reads per key

#: The ESC-prefixed pairs Textual turns into macOS Option characters.
OPTION_CHARACTERS = frozenset(
    f"\x1b{key}" for key in ("1", "2", "3", "4", "5", "6", "7", "8", "9", "0", "-", "=", "§")
)


def read_alt_as_alt() -> None:
    """Make ``ESC digit`` an Alt key for every parser made from now on (idempotent)."""
    table = cast("dict[str, object]", _ansi_sequences.ANSI_SEQUENCES_KEYS)  # typed a Mapping
    for sequence in OPTION_CHARACTERS:
        value = table.get(sequence)
        if isinstance(value, str) and len(value) == 1:  # a character, not a key or ignore
            del table[sequence]
