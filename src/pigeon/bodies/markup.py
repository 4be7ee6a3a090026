"""HTML and XML bodies laid out one element a line, so a page sent as one long line reads.

XML goes through the standard library's ``xml.dom.minidom``, unless it declares a DTD (whose
entities would be expanded: the indenter shows them as written instead); HTML, and XML that
does not parse, through a tolerant indenter on ``html.parser``
that keeps every tag as written and never fails. Both are bounded: a body over
``MARKUP_LIMIT`` characters is left as it came, nesting deeper than ``MAX_INDENT`` is not
indented further, and the caller's ``cancelled`` check stops the HTML pass between chunks.
The output is display text only; nothing in it is interpreted.
"""

from __future__ import annotations

from collections.abc import Callable
from html.parser import HTMLParser
from typing import Literal

from pigeon.bodies.cancel import Stopped

MarkupKind = Literal["html", "xml"]

MARKUP_LIMIT = 2_000_000  # characters; a bigger body is shown as it came
MAX_INDENT = 32  # levels: deeper nesting stays at this indent
_CHUNK = 64 * 1024  # characters fed to the parser between two cancel checks

# Elements with no end tag, and those whose content is kept line for line.
_VOID = frozenset(
    [
        "area",
        "base",
        "br",
        "col",
        "embed",
        "hr",
        "img",
        "input",
        "link",
        "meta",
        "param",
        "source",
        "track",
        "wbr",
    ]
)
_VERBATIM = frozenset({"pre", "textarea", "script", "style"})


def markup_kind(content_type: str, head: str) -> MarkupKind | None:
    """``html``, ``xml`` or ``None`` from the media type (then the first characters)."""
    ctype = content_type.lower()
    if ctype in ("text/html", "application/xhtml+xml"):
        return "html"
    if ctype in ("text/xml", "application/xml") or ctype.endswith("+xml"):
        return "xml"
    if ctype in ("", "text/plain"):
        start = head.lstrip()[:64].lower()
        if start.startswith(("<!doctype html", "<html")):
            return "html"
        if start.startswith("<?xml"):
            return "xml"
    return None


def pretty_markup(
    text: str, kind: MarkupKind, cancelled: Callable[[], bool] | None = None
) -> str | None:
    """``text`` one element a line, or ``None`` when it is too big to lay out."""
    if len(text) > MARKUP_LIMIT:
        return None
    if kind == "xml":
        pretty = _pretty_xml(text)
        if pretty is not None:
            return pretty
    return _pretty_html(text, cancelled)


def _pretty_xml(text: str) -> str | None:
    if "<!DOCTYPE" in text or "<!ENTITY" in text:
        return None
    from xml.dom import minidom
    from xml.parsers.expat import ExpatError

    try:
        document = minidom.parseString(text.encode("utf-8"))
    except (ExpatError, ValueError, RecursionError):
        return None
    try:
        pretty = document.toprettyxml(indent="  ")
    except RecursionError:
        return None
    finally:
        document.unlink()
    return "\n".join(line for line in pretty.splitlines() if line.strip()) + "\n"


class _Indenter(HTMLParser):
    """Writes each tag, comment and run of text on a line of its own, indented by nesting."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=False)
        self.lines: list[str] = []
        self.open: list[str] = []
        self._verbatim = 0
        self._text: list[str] = []  # the run of text (and entities) since the last tag

    def _emit(self, text: str) -> None:
        self.flush()
        self.lines.append("  " * min(len(self.open), MAX_INDENT) + text)

    def flush(self) -> None:
        """Write the pending text: line for line inside ``pre`` and the like, else each
        line trimmed and indented."""
        text, self._text = "".join(self._text), []
        if self._verbatim:
            self.lines.extend(text.strip("\n").splitlines())
            return
        indent = "  " * min(len(self.open), MAX_INDENT)
        self.lines.extend(indent + line.strip() for line in text.splitlines() if line.strip())

    def handle_starttag(self, tag: str, attrs: object) -> None:
        self._emit(self.get_starttag_text() or f"<{tag}>")
        if tag not in _VOID:
            self.open.append(tag)
            if tag in _VERBATIM:
                self._verbatim += 1

    def handle_startendtag(self, tag: str, attrs: object) -> None:
        self._emit(self.get_starttag_text() or f"<{tag}/>")

    def handle_endtag(self, tag: str) -> None:
        self.flush()  # the text inside, at the indent inside
        if tag in self.open:  # close what it closes, and what was left open inside it
            while self.open:
                closed = self.open.pop()
                if closed in _VERBATIM:
                    self._verbatim -= 1
                if closed == tag:
                    break
        self._emit(f"</{tag}>")

    def handle_data(self, data: str) -> None:
        self._text.append(data)

    def handle_entityref(self, name: str) -> None:
        self._text.append(f"&{name};")

    def handle_charref(self, name: str) -> None:
        self._text.append(f"&#{name};")

    def handle_comment(self, data: str) -> None:
        self._emit(f"<!--{data}-->")

    def handle_decl(self, decl: str) -> None:
        self._emit(f"<!{decl}>")

    def handle_pi(self, data: str) -> None:
        self._emit(f"<?{data}>")

    def unknown_decl(self, data: str) -> None:
        self._emit(f"<![{data}]>")


def _pretty_html(text: str, cancelled: Callable[[], bool] | None) -> str:
    indenter = _Indenter()
    for start in range(0, len(text), _CHUNK):
        if cancelled is not None and cancelled():
            raise Stopped
        indenter.feed(text[start : start + _CHUNK])
    indenter.close()
    indenter.flush()
    return "\n".join(indenter.lines) + "\n"
