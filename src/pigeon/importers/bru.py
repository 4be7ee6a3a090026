"""A small, strict reader of Bruno's ``.bru`` files (the Bru markup language).

A file is a list of blocks at the left margin, blank lines between::

    meta {
      name: Get user
      seq: 1
    }

    body:json {
      {"name": "ada"}
    }

    vars:secret [
      token,
      ~old_token
    ]

A dictionary block holds ``key: value`` lines indented by two spaces (``~key`` is switched
off; a value of ``'''`` opens a multi-line value closed by an indented ``'''``). A text block
(bodies, scripts, tests, docs) holds text indented by two spaces, ended by a ``}`` at the
margin. A list block (``[``) holds names, one a line, commas between. Anything else is an
error naming the line, never a guess: the importer skips that file with a note.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

# Blocks whose content is text, not key: value lines.
TEXT_BLOCKS = frozenset({
    "body", "body:json", "body:text", "body:xml", "body:sparql", "body:graphql",
    "body:graphql:vars", "script:pre-request", "script:post-response", "tests", "docs",
})  # fmt: skip
DICT_BLOCKS = re.compile(
    r"^(meta|get|post|put|patch|delete|options|head|connect|trace|http|query|params:query"
    r"|params:path"
    r"|headers|auth|auth:[\w-]+|body:form-urlencoded|body:multipart-form|body:file|vars"
    r"|vars:pre-request|vars:post-response|assert|settings)$"
)
_OPEN = re.compile(r"^([A-Za-z][\w:.-]*)\s*([{\[])\s*(.*?)\s*$")
_PAIR = re.compile(r"^(~?)([^\s:]+)[ \t]*:[ \t]*(.*)$")
_ASSERT_PAIR = re.compile(r"^(~?)([^:]+?)[ \t]*:[ \t]*(.*)$")  # an assertion's key may hold spaces
MAX_BLOCKS = 200


class BruError(ValueError):
    """A ``.bru`` text that is not Bru: what is wrong and on which line."""

    def __init__(self, message: str, line: int) -> None:
        super().__init__(f"line {line}: {message}")
        self.line = line
        self.reason = message


@dataclass
class Pair:
    key: str
    value: str
    enabled: bool = True


@dataclass
class Block:
    name: str
    line: int
    pairs: list[Pair] = field(default_factory=list)  # dictionary and list blocks
    text: str = ""  # text blocks, and blocks of a name this reader does not know
    is_text: bool = False

    def get(self, key: str, default: str = "") -> str:
        """The value of the last enabled ``key`` ("" when none)."""
        for pair in reversed(self.pairs):
            if pair.key == key and pair.enabled:
                return pair.value
        return default


def parse_bru(text: str) -> list[Block]:
    """The blocks of a ``.bru`` text, in order; ``BruError`` for anything that is not Bru."""
    lines = text.replace("\r\n", "\n").split("\n")
    blocks: list[Block] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if not line.strip():
            i += 1
            continue
        m = _OPEN.match(line)
        if m is None:
            raise BruError(
                f"expected a block (name {{ or name [), found {line.strip()[:40]!r}", i + 1
            )
        if len(blocks) >= MAX_BLOCKS:
            raise BruError(f"more than {MAX_BLOCKS} blocks", i + 1)
        name, bracket, rest = m.group(1), m.group(2), m.group(3)
        block = Block(name, i + 1)
        if bracket == "[":  # a list: names up to a "]", on the same line or a later one
            end = i
            while end < len(lines) and not (rest if end == i else lines[end]).rstrip().endswith(
                "]"
            ):
                end += 1
            if end == len(lines):
                raise BruError(f"list {name} is not closed (no ])", i + 1)
            items = [rest, *lines[i + 1 : end + 1]] if end > i else [rest]
            items[-1] = items[-1].rstrip()[:-1]
            block.pairs = _list(items, i + 1)
            blocks.append(block)
            i = end + 1
            continue
        if rest:
            raise BruError(f"text after {name} {{ on its line", i + 1)
        end = i + 1
        while end < len(lines) and lines[end].rstrip() != "}":
            end += 1
        if end == len(lines):
            raise BruError(f"block {name} is not closed (no }} at the start of a line)", i + 1)
        body = lines[i + 1 : end]
        if name in TEXT_BLOCKS or not DICT_BLOCKS.match(name):
            block.is_text = True
            block.text = "\n".join(_dedent(ln) for ln in body).strip("\n")
        else:
            block.pairs = _pairs(body, i + 2, _ASSERT_PAIR if name == "assert" else _PAIR)
        blocks.append(block)
        i = end + 1
    return blocks


def _dedent(line: str) -> str:
    return line[2:] if line.startswith("  ") else line.lstrip(" ")


def _pairs(body: list[str], first: int, pattern: re.Pattern[str]) -> list[Pair]:
    out: list[Pair] = []
    j = 0
    while j < len(body):
        raw = body[j]
        if not raw.strip():
            j += 1
            continue
        m = pattern.match(raw.strip())
        if m is None:
            raise BruError(f"expected key: value, found {raw.strip()[:40]!r}", first + j)
        off, key, value = m.group(1), m.group(2).strip(), (m.group(3) or "").strip()
        if value == "'''":  # a multi-line value, up to a line holding ''' alone
            start = j
            j += 1
            parts = []
            while j < len(body) and body[j].strip() != "'''":
                parts.append(body[j][4:] if body[j].startswith("    ") else body[j].strip())
                j += 1
            if j == len(body):
                raise BruError(f"the value of {key} is not closed by '''", first + start)
            value = "\n".join(parts)
        out.append(Pair(key, value, enabled=not off))
        j += 1
    return out


def _list(body: list[str], first: int) -> list[Pair]:
    out = []
    for j, raw in enumerate(body):
        for item in re.split(r"[,\s]+", raw):  # Bruno separates names by commas or spaces
            item = item.strip()
            if not item:
                continue
            off = item.startswith("~")
            name = item.lstrip("~").strip()
            if not re.fullmatch(r"[\w.-]+", name):
                raise BruError(f"expected a name, found {item[:40]!r}", first + j)
            out.append(Pair(name, "", enabled=not off))
    return out
