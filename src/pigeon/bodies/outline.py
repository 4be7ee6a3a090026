"""The nesting of a pretty-printed body, for folding it (DESIGN §9): which lines open a node,
the line that closes each, how deep it sits, and the JSON path of any line.

Built once per document from the text the viewer shows (``dumps_pretty`` output, or HTML/XML
laid out one element a line), so folding never parses the body again. Only lines that open a
node are stored, in three parallel arrays sorted by line, so a 5 MB document with 300,000
lines costs a few hundred kilobytes; a line's enclosing node is a bisection plus a climb of
at most its depth, and a node's children are listed once, when first asked for.
"""

from __future__ import annotations

import json
import re
from array import array
from bisect import bisect_left, bisect_right
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from itertools import repeat
from operator import methodcaller
from typing import Literal

from pigeon.bodies.cancel import Cancelled, Stopped, never
from pigeon.bodies.json import Nesting
from pigeon.bodies.lines import LineIndex

OutlineKind = Literal["json", "markup"]
Segment = str | int  # an object key or an array index

# In dumps_pretty's output a line opens a node when it ends with [ or { (a string ends with its
# quote) and closes one when its first character after the indent is ] or }.
_JSON_OPENER = re.compile(r"[\[{]$", re.MULTILINE)
_JSON_CLOSER = re.compile(r"\n *[\]}]")  # from the line break before the closing line
_start = methodcaller("start")
_JSON_KEY = re.compile(r' *("(?:[^"\\]|\\.)*"): ')
_SHOWN_ESCAPE = re.compile(r"(?<!\\)((?:\\\\)*)\\x([0-9a-f]{2})")
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_MAX_DEPTH = 255  # depths are kept in bytes; deeper nodes fold with the 255th level


@dataclass
class Outline:
    """The nodes of ``doc``: node ``i`` spans lines ``opens[i]`` to ``closes[i]`` (its
    closing line included when ``closed[i]``), ``depths[i]`` levels down (0 for the root),
    inside node ``parents[i]`` (-1 for none); ``after[i]`` is the first node past it (nodes
    ``i + 1`` to ``after[i] - 1`` lie inside it)."""

    doc: LineIndex
    kind: OutlineKind
    opens: array[int] = field(default_factory=lambda: array("q"))
    closes: array[int] = field(default_factory=lambda: array("q"))
    parents: array[int] = field(default_factory=lambda: array("q"))
    after: array[int] = field(default_factory=lambda: array("q"))
    depths: bytearray = field(default_factory=bytearray)
    closed: bytearray = field(default_factory=bytearray)

    def __post_init__(self) -> None:
        self._children: dict[int, array[int]] = {}

    def __len__(self) -> int:
        return len(self.opens)

    def node_at(self, line: int) -> int:
        """The node opened on ``line``, or -1."""
        i = bisect_left(self.opens, line)
        return i if i < len(self.opens) and self.opens[i] == line else -1

    def node_closed_at(self, line: int) -> int:
        """The node whose closing line is ``line``, or -1."""
        node = self.enclosing(line)
        return node if node >= 0 and self.closed[node] and self.closes[node] == line else -1

    def enclosing(self, line: int) -> int:
        """The innermost node holding ``line`` below its opening line, or -1."""
        i = bisect_left(self.opens, line) - 1
        while i >= 0 and self.closes[i] < line:
            i = self.parents[i]
        return i

    def children(self, node: int) -> array[int]:
        """The first line of each child of ``node`` (its closing line is no child). Runs of
        one-line children are added a range at a time: a million numbers take milliseconds."""
        found = self._children.get(node)
        if found is None:
            opens, closes, after = self.opens, self.closes, self.after
            found = array("q")
            line = opens[node] + 1
            end = closes[node] + (0 if self.closed[node] else 1)
            child, last = node + 1, after[node]
            while line < end:
                start = opens[child] if child < last else end
                found.extend(range(line, start))
                if start >= end:
                    break
                found.append(start)
                line, child = closes[child] + 1, after[child]
            self._children[node] = found
        return found

    def summary(self, node: int) -> str:
        """What a folded node shows after its first line: ``… 3 keys },``."""
        count = len(self.children(node))
        if self.kind == "markup":
            tail = self.doc.line(self.closes[node]).strip() if self.closed[node] else ""
            noun = "line" if count == 1 else "lines"
            hidden = self.closes[node] - self.opens[node] - (1 if self.closed[node] else 0)
            return f" … {hidden:,} {noun} {tail}".rstrip()
        array_node = self.doc.line(self.opens[node]).endswith("[")
        noun = ("item" if array_node else "key") + ("" if count == 1 else "s")
        closing = self.doc.line(self.closes[node]).strip()
        return f" … {count:,} {noun} {closing}"

    # -- JSON paths -------------------------------------------------------------------------

    def path_at(self, line: int) -> list[Segment]:
        """The keys and indexes leading from the root to the value on ``line`` (JSON only;
        a closing line belongs to its node)."""
        if self.kind != "json" or not len(self.doc):
            return []
        closer = self.node_closed_at(line)
        if closer >= 0:
            line = self.opens[closer]
        path: list[Segment] = []
        parent = self.enclosing(line)
        while parent >= 0:
            if self.doc.line(self.opens[parent]).endswith("["):
                path.append(bisect_left(self.children(parent), line))
            else:
                path.append(self._key(line))
            line = self.opens[parent]
            parent = self.parents[parent]
        path.reverse()
        return path

    def _key(self, line: int) -> str:
        match = _JSON_KEY.match(self.doc.line(line))
        if match is None:
            return ""
        # The view shows a control character JSON leaves raw (DEL, C1) as \xNN.
        key: str = json.loads(_SHOWN_ESCAPE.sub(r"\1\\u00\2", match.group(1)))
        return key

    def line_of_path(self, path: Sequence[Segment]) -> int:
        """The line where the value at ``path`` starts; ``KeyError`` naming the first step
        that leads nowhere."""
        if self.kind != "json" or not len(self.doc):
            raise KeyError(format_path(path[:1]))
        line = 0
        for depth, step in enumerate(path):
            node = self.node_at(line)
            if node < 0:
                raise KeyError(format_path(path[: depth + 1]))
            children = self.children(node)
            is_array = self.doc.line(line).endswith("[")
            if isinstance(step, int) and is_array and -len(children) <= step < len(children):
                line = children[step]
            elif isinstance(step, str) and not is_array:
                line = next((c for c in children if self._key(c) == step), -1)
                if line < 0:
                    raise KeyError(format_path(path[: depth + 1]))
            else:
                raise KeyError(format_path(path[: depth + 1]))
        return line


def format_path(path: Sequence[Segment]) -> str:
    """``items[3].id`` (JMESPath, so the filter takes it as is); ``@`` for the root."""
    out = []
    for step in path:
        if isinstance(step, int):
            out.append(f"[{step}]")
        elif _IDENTIFIER.fullmatch(step):
            out.append(f".{step}" if out else step)
        else:
            out.append(("." if out else "") + json.dumps(step, ensure_ascii=False))
    return "".join(out) or "@"


_PATH_STEP = re.compile(
    r"""\s*(?:
        \[\s*(?P<index>-?\d+)\s*\]
      | \[\s*(?P<quoted>"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')\s*\]
      | \.?\s*(?P<key>"(?:[^"\\]|\\.)*"|[^.\[\]"\s]+)
    )""",
    re.VERBOSE,
)


def parse_path(text: str) -> list[Segment]:
    """Steps of a path as a user types it: ``items[3].id``, ``$.items[3]["id"]``,
    ``.a."b c"``, ``['a b']``. ``ValueError`` naming where it stops making sense."""
    text = text.strip()
    if text in ("", "@", "$", "."):
        return []
    if text.startswith(("$", "@")):
        text = text[1:]
    steps: list[Segment] = []
    position = 0
    while position < len(text):
        match = _PATH_STEP.match(text, position)
        if match is None or match.end() == position:
            raise ValueError(f"cannot read the path from {text[position:][:40]!r}")
        if match.group("index") is not None:
            steps.append(int(match.group("index")))
        else:
            raw = match.group("quoted") or match.group("key")
            if raw[0] == "'":
                raw = '"' + raw[1:-1].replace('"', '\\"').replace("\\'", "'") + '"'
            try:
                steps.append(json.loads(raw) if raw[0] == '"' else raw)
            except ValueError:
                raise ValueError(f"cannot read the key {raw[:40]!r}") from None
        position = match.end()
    return steps


def script_expression(path: Sequence[Segment]) -> str:
    """A post-response script line keeping the value at ``path`` for the next request:
    ``pigeon.setVar("id", pigeon.response.json()["items"][3]["id"])``."""
    name = next((s for s in reversed(path) if isinstance(s, str) and _IDENTIFIER.fullmatch(s)), "")
    access = "".join(f"[{json.dumps(step, ensure_ascii=False)}]" for step in path)
    return f'pigeon.setVar("{name or "value"}", pigeon.response.json(){access})'


# -- building ---------------------------------------------------------------------------------


def build_outline(doc: LineIndex, kind: OutlineKind, cancelled: Cancelled = never) -> Outline:
    """The outline of ``doc``: pretty JSON by its brackets, markup by its indentation."""
    if kind == "json":
        return _json_outline(doc, cancelled)
    return _markup_outline(doc, cancelled)


def outline_of(doc: LineIndex, nesting: Nesting) -> Outline:
    """The outline of ``doc``, pretty JSON whose nesting ``dumps_pretty`` recorded as it wrote
    it: what :func:`build_outline` finds, without scanning the text again."""
    n = nesting
    return Outline(doc, "json", n.opens, n.closes, n.parents, n.after, n.depths, n.closed)


def _json_outline(doc: LineIndex, cancelled: Cancelled) -> Outline:
    outline = Outline(doc, "json")
    opens, closes, parents, after = outline.opens, outline.closes, outline.parents, outline.after
    depths, closed = outline.depths, outline.closed
    text, starts = doc.text, doc.starts
    # Two plain scans and C-level bisections: twice as fast as one scan with alternatives.
    after_opens = array("q", map(bisect_right, repeat(starts), _opener_offsets(text)))
    if cancelled():
        raise Stopped
    close_lines = array("q", map(bisect_right, repeat(starts), _closer_offsets(text)))
    if cancelled():
        raise Stopped
    stack: list[int] = []
    c, close_count = 0, len(close_lines)
    for count, next_line in enumerate(after_opens):
        if count & 4095 == 0 and cancelled():
            raise Stopped
        line = next_line - 1
        while c < close_count and close_lines[c] < line:
            if stack:
                node = stack.pop()
                closes[node] = close_lines[c]
                closed[node] = 1
                after[node] = count
            c += 1
        parents.append(stack[-1] if stack else -1)
        depths.append(min(len(stack), _MAX_DEPTH))
        stack.append(count)
        opens.append(line)
        closes.append(line)
        closed.append(0)
        after.append(0)
    while c < close_count and stack:
        node = stack.pop()
        closes[node] = close_lines[c]
        closed[node] = 1
        after[node] = len(opens)
        c += 1
    last = max(len(doc) - 1, 0)
    for node in stack:  # text cut short: an open node runs to the end
        closes[node] = last
        after[node] = len(opens)
    return outline


def _opener_offsets(text: str) -> Iterator[int]:
    return map(_start, _JSON_OPENER.finditer(text))


def _closer_offsets(text: str) -> Iterator[int]:
    return map(_start, _JSON_CLOSER.finditer(text))


def _markup_outline(doc: LineIndex, cancelled: Cancelled) -> Outline:
    """A line opens a node when the next one is indented deeper; the node ends before the
    next line indented no deeper, taking it along when it is the closing tag."""
    outline = Outline(doc, "markup")
    opens, closes, parents, after = outline.opens, outline.closes, outline.parents, outline.after
    depths, closed = outline.depths, outline.closed
    lines = doc.text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    indents = [len(line) - len(line.lstrip(" ")) for line in lines]
    stack: list[tuple[int, int]] = []  # (indent, node)

    def close_until(indent: int, line: int) -> bool:
        """Close the nodes ``line`` is not inside; True when it is one's closing tag."""
        while stack and stack[-1][0] >= indent:
            node_indent, node = stack.pop()
            after[node] = len(opens)
            if node_indent == indent and lines[line].lstrip(" ").startswith("</"):
                closes[node], closed[node] = line, 1
                return True
            closes[node] = line - 1
        return False

    for line, indent in enumerate(indents):
        if line & 4095 == 0 and cancelled():
            raise Stopped
        if stack and close_until(indent, line):
            continue
        if line + 1 < len(indents) and indents[line + 1] > indent:
            parents.append(stack[-1][1] if stack else -1)
            depths.append(min(len(stack), _MAX_DEPTH))
            stack.append((indent, len(opens)))
            opens.append(line)
            closes.append(line)
            closed.append(0)
            after.append(0)
    for _, node in stack:
        closes[node] = len(lines) - 1
        after[node] = len(opens)
    return outline
