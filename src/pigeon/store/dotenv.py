"""The collection's ``.env``: secrets read literally for ``{{$env.NAME}}`` (DESIGN §3.3).

A line that does not parse and a file that is not text are named (path, line) among the
collection's broken files; the other lines are still read.
"""

from __future__ import annotations

import io
import re
from pathlib import Path

from pigeon.errors import LoadError
from pigeon.model import BrokenFile
from pigeon.tomltext import read_text

# Control characters no text file holds (tab, line breaks and form feed are text).
_BINARY_RE = re.compile("[\x00-\x08\x0e-\x1f\x7f]")


def read_dotenv(path: Path, broken: list[BrokenFile]) -> dict[str, str]:
    """Read ``.env`` literally (no ``${VAR}`` expansion: a secret is used exactly as written).

    python-dotenv's parser is used directly, rather than ``dotenv_values``, so that a line it
    cannot parse is reported here with its number instead of logged to stderr.
    """
    try:
        text = read_text(path)
    except LoadError as exc:
        broken.append(exc.as_broken())
        return {}
    control = _BINARY_RE.search(text)
    if control:  # a NUL or another control character: not a text file, so not read at all
        line = text.count("\n", 0, control.start()) + 1
        column = control.start() - (text.rfind("\n", 0, control.start()) + 1) + 1
        broken.append(
            BrokenFile(path, "not a text file (a control character); not read", line, column)
        )
        return {}
    from dotenv.parser import parse_stream  # only for a collection that has a .env

    values: dict[str, str] = {}
    bad: list[int] = []
    for binding in parse_stream(io.StringIO(text)):
        if binding.error:
            bad.append(binding.original.line)
        elif binding.key is not None and binding.value is not None:
            values[binding.key] = binding.value
    if bad:
        lines = ", ".join(str(n) for n in bad)
        broken.append(
            BrokenFile(
                path,
                f"cannot parse line {lines} (expected NAME=value); the other lines were read",
                bad[0],
                1,
            )
        )
    return values
