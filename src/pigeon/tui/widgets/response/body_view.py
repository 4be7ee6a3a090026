"""A response body viewer built for huge bodies.

``BodyView`` is a Line API widget: it keeps one string and an array of line starts
(:class:`pigeon.bodies.LineIndex`) and builds only the lines on screen, highlighting JSON
one line at a time. Pretty-printing, searching and filtering run in thread workers, so a
5 MB body shows its raw lines at once and swaps to the pretty view when it is ready while
the app keeps answering keys.

``BodyPanel`` wraps a ``BodyView`` with the search / filter bar (``/``, ``f``).
"""

from __future__ import annotations

import contextlib
import gc
import json
import threading
from collections.abc import Callable, Iterator
from functools import partial
from typing import Any, ClassVar, Literal

from rich.cells import cell_len
from rich.style import Style
from rich.text import Text
from textual.binding import Binding, BindingType
from textual.cache import LRUCache
from textual.geometry import Offset, Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.selection import Selection
from textual.strip import Strip
from textual.worker import get_current_worker

from pigeon import bodies
from pigeon.bodies import EMPTY_INDEX, LineIndex, Matches, Stopped
from pigeon.bodies.json import Nesting
from pigeon.bodies.lines import extend_index
from pigeon.tui.css import beside
from pigeon.tui.vim_keys import HalfPages, vim_bindings

_CSS = beside(__file__)

Phase = Literal["empty", "message", "text", "raw", "pretty", "filtered"]

# Bodies up to this many characters are prepared on the spot: it takes a few milliseconds and
# the first frame is already the final one.
SYNC_LIMIT = 256 * 1024
# Lines longer than this are rendered only around the visible columns, never whole.
LONG_LINE = 4096
# Highlighting a long line needs its tokens from the start; past this column it is skipped.
LONG_LINE_HIGHLIGHT = 50_000
MATCH_LIMIT = 100_000
# Bodies up to this size are filtered as the expression is typed, after this pause.
LIVE_FILTER_LIMIT = 1_000_000
LIVE_FILTER_DELAY = 0.3
FILTER_HELP = (
    "enter: apply   ↑/↓: earlier filters   escape: clear   "
    "jq .a[0] · JSONPath $.a[*] · JMESPath a[0] · or prefix jq: jmespath: jsonpath:"
)

_gc_lock = threading.Lock()
_gc_holders = 0
_gc_was_enabled = True


@contextlib.contextmanager
def _gc_paused() -> Iterator[None]:
    """Hold off the cyclic garbage collector while a worker builds millions of JSON objects.

    Those objects hold no cycles, yet each full collection walks all of them with the GIL
    held, stalling the UI loop for a tenth of a second at a time.
    """
    global _gc_holders, _gc_was_enabled
    with _gc_lock:
        if _gc_holders == 0:
            _gc_was_enabled = gc.isenabled()
        _gc_holders += 1
        gc.disable()
    try:
        yield
    finally:
        with _gc_lock:
            _gc_holders -= 1
            if _gc_holders == 0 and _gc_was_enabled:
                gc.enable()


class BodyView(HalfPages, ScrollView, can_focus=True):
    """Shows a body (JSON pretty and highlighted, or text) a screenful of lines at a time."""

    DEFAULT_CSS = _CSS

    @property
    def matches_capped(self) -> bool:
        """Whether the search stopped counting at ``MATCH_LIMIT`` (the count shows a ``+``)."""
        return self._matches.capped

    ALLOW_MAXIMIZE = True

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "body-view--key",
        "body-view--string",
        "body-view--number",
        "body-view--literal",
        "body-view--punct",
        "body-view--match",
        "body-view--match-current",
        "body-view--notice",
    }

    BINDINGS: ClassVar[list[BindingType]] = [
        *vim_bindings("scroll_down", "scroll_up", "jump_home", "jump_end", find=""),
        Binding("home", "jump_home", "Top", id="body.top", show=False),
        Binding("end", "jump_end", "Bottom", id="body.bottom", show=False),
        Binding("pageup", "page_up", "Page up", show=False),
        Binding("pagedown,space", "page_down", "Page down", show=False),
    ]

    phase: reactive[Phase] = reactive("empty", init=False)
    """What is on show: nothing, a one-line message, text, raw JSON, pretty JSON, a filter."""

    class Loaded(Message):
        """New content is on show (``phase`` says which)."""

        def __init__(self, view: BodyView, phase: Phase, lines: int) -> None:
            super().__init__()
            self.view, self.phase, self.lines = view, phase, lines

    class SearchUpdated(Message):
        """The matches of the search changed, or the current one moved."""

        def __init__(self, view: BodyView, current: int, total: int, capped: bool) -> None:
            super().__init__()
            self.view, self.current, self.total, self.capped = view, current, total, capped

    class FilterApplied(Message):
        """A filter finished: ``error`` is ``None`` when its result is on show; ``note`` says
        what to know about it (its output was cut)."""

        def __init__(
            self, view: BodyView, expression: str, error: str | None, note: str = ""
        ) -> None:
            super().__init__()
            self.view, self.expression, self.error, self.note = view, expression, error, note

    def __init__(
        self, *, name: str | None = None, id: str | None = None, classes: str | None = None
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self._doc: LineIndex = EMPTY_INDEX
        self._source = ""  # the body as text, for filters
        self._is_json = False
        self._json_lines = False
        # What a filter replaced (raw or pretty), restored by clear_filter.
        self._unfiltered: tuple[LineIndex, Phase] | None = None
        self._filter_seq = 0  # bumps on every filter: only the latest result is shown
        self._generation = 0  # bumps on every new body: stale worker results are dropped
        self._cache: LRUCache[int, Strip] = LRUCache(1024)
        self._styles: dict[str, Style] = {}
        self._query = ""
        self._matches = Matches()
        self._current = -1
        self._search_generation = 0
        self._search_origin = Offset(0, 0)
        self._end_on_load = False  # the next body opens at its end (a stream followed there)
        self.filter_expression = ""

    # -- content ------------------------------------------------------------------------------

    @property
    def document(self) -> LineIndex:
        """The text on show and its line index."""
        return self._doc

    @property
    def text(self) -> str:
        return self._doc.text

    @property
    def line_count(self) -> int:
        return len(self._doc)

    @property
    def is_json(self) -> bool:
        return self._is_json

    @property
    def source_length(self) -> int:
        """Characters in the body as received (what a filter has to parse)."""
        return len(self._source)

    @property
    def is_filtered(self) -> bool:
        return self.phase == "filtered"

    def line_text(self, number: int) -> str:
        """Line ``number`` of the content, as text (for tests and copy)."""
        return self._doc.line(number)

    def clear(self) -> None:
        self._start("", is_json=False)
        self._set_doc(EMPTY_INDEX, "empty", self._generation)

    def show_message(self, message: str) -> None:
        """One line in place of a body (binary content, an error, nothing yet)."""
        self._start("", is_json=False)
        self._set_doc(bodies.build_index(message, cell_len), "message", self._generation)

    def show_text(
        self,
        text: str,
        *,
        is_json: bool = False,
        json_lines: bool = False,
        markup: bodies.MarkupKind | None = None,
    ) -> None:
        """Show ``text``; when ``is_json``, pretty-printed once that is done (in a thread for
        a big body, showing the raw lines meanwhile). Text that is not valid JSON stays raw.
        ``json_lines`` (NDJSON) keeps the lines as they are, highlighted as JSON. ``markup``
        (HTML, XML) is laid out one element a line, always in a thread."""
        generation = self._start(text, is_json=is_json)
        self._json_lines = json_lines and not is_json
        if markup is not None and not is_json:
            self._format_in_thread(partial(self._markup_in_thread, text, markup, generation))
            return
        if len(text) <= SYNC_LIMIT:
            doc, phase = self._prepare_now(text, is_json)
            self._set_doc(doc, phase, generation)
            return
        self._format_in_thread(partial(self._prepare_in_thread, text, is_json, generation))

    def show_live(self) -> None:
        """A body still arriving: empty until ``append_lines`` adds to it."""
        self._start("", is_json=False)
        self._set_doc(EMPTY_INDEX, "text", self._generation)

    @property
    def following(self) -> bool:
        """Whether the view is at the end of the body (and so follows what arrives)."""
        return self.scroll_offset.y >= self.max_scroll_y

    def append_lines(self, lines: str) -> None:
        """Complete lines of a body still arriving, indexed alone. The view follows the end
        as ``tail -f`` does unless the reader scrolled up; back at the end, it follows again."""
        following = self.following
        doc = self._doc = extend_index(self._doc, lines, cell_len)
        self.virtual_size = Size(doc.width, len(doc))
        if following:
            self.scroll_to(y=self.max_scroll_y, animate=False, immediate=True, force=True)
        self.refresh()

    def open_at_end(self) -> None:
        """Show the next body from its end (a stream the reader followed to its end)."""
        self._end_on_load = True

    def _format_in_thread(self, work: Callable[[], object]) -> None:
        """Format off the UI loop; a newer body's formatting replaces this one's."""
        self.run_worker(
            work,
            name="format body",
            group="body-format",
            thread=True,
            exclusive=True,
            exit_on_error=False,
        )

    def _start(self, text: str, *, is_json: bool) -> int:
        self._generation += 1
        self.workers.cancel_group(self, "body-format")
        self.workers.cancel_group(self, "body-filter")
        self.workers.cancel_group(self, "body-search")
        self._source, self._is_json, self._unfiltered = text, is_json, None
        self._json_lines = False
        self.filter_expression = ""
        return self._generation

    @staticmethod
    def _prepare_now(text: str, is_json: bool) -> tuple[LineIndex, Phase]:
        if is_json:
            try:
                return bodies.build_index(bodies.pretty_json(text), cell_len), "pretty"
            except (ValueError, RecursionError):
                pass
        return bodies.build_index(text, cell_len), "text"

    def _prepare_in_thread(self, text: str, is_json: bool, generation: int) -> None:
        worker = get_current_worker()
        cancelled: Callable[[], bool] = lambda: worker.is_cancelled  # noqa: E731
        try:
            raw = bodies.build_index(text, cell_len, cancelled)
            self._from_thread(self._set_doc, raw, "raw" if is_json else "text", generation)
            if not is_json or cancelled():
                return
            nesting = Nesting()  # the outline, written with the text: no second scan
            try:
                with _gc_paused():
                    pretty = bodies.pretty_json(text, cancelled, nesting)
            except (ValueError, RecursionError):
                self._from_thread(self._set_doc, raw, "text", generation)
                return
            if cancelled():
                return
            doc = bodies.build_index(pretty, cell_len, cancelled)
            self._from_thread(self._set_doc, doc, "pretty", generation, nesting)
        except Stopped:
            return

    def _markup_in_thread(self, text: str, kind: bodies.MarkupKind, generation: int) -> None:
        """The raw lines at once, then the laid-out ones (unless too big to lay out)."""
        worker = get_current_worker()
        cancelled: Callable[[], bool] = lambda: worker.is_cancelled  # noqa: E731
        try:
            raw = bodies.build_index(text, cell_len, cancelled)
            self._from_thread(self._set_doc, raw, "text", generation)
            pretty = bodies.pretty_markup(text, kind, cancelled)
            if pretty is None or cancelled():
                return
            doc = bodies.build_index(pretty, cell_len, cancelled)
            self._from_thread(self._set_doc, doc, "text", generation)
        except Stopped:
            return

    def _from_thread(self, callback: Callable[..., Any], *args: Any) -> None:
        """Run ``callback`` on the UI loop unless the app is already gone."""
        with contextlib.suppress(RuntimeError):
            self.app.call_from_thread(callback, *args)

    def _set_doc(
        self, doc: LineIndex, phase: Phase, generation: int, nesting: Nesting | None = None
    ) -> None:
        if generation != self._generation:
            return
        if self.phase == "filtered" and self._unfiltered is not None:
            # This body's formatting finished under a filter: clearing the filter shows it.
            self._unfiltered = (doc, phase)
            if phase == "text":
                self._is_json = False
            return
        self._show_doc(doc, phase, nesting)

    def _show_doc(self, doc: LineIndex, phase: Phase, nesting: Nesting | None = None) -> None:
        """Show ``doc`` (``nesting``: pretty JSON's, as written; a view that folds takes it as
        its outline)."""
        # Raw JSON turning pretty keeps the reader's place, unless the raw body was one long
        # line (minified), whose place means nothing in the pretty view.
        swapping = self.phase == "raw" and phase in ("pretty", "text") and len(self._doc) > 1
        self._doc = doc
        if phase == "text":
            self._is_json = False  # declared JSON that does not parse is shown as text
        self._cache.clear()
        self._matches, self._current = Matches(), -1
        self.virtual_size = Size(doc.width, len(doc))
        if not swapping:
            y = self.max_scroll_y if self._end_on_load and phase != "message" else 0
            # Forced: until a layout gives it a scroll bar (it held one line a moment ago),
            # a view scrolls only so, and a body followed to its end as it arrived stayed there.
            self.scroll_to(0, y, animate=False, immediate=True, force=True)
        if phase != "message":
            self._end_on_load = False
        self.phase = phase
        self.refresh()
        self.post_message(self.Loaded(self, phase, len(doc)))
        if self._query:
            self.search(self._query)

    def action_jump_home(self) -> None:
        """Straight to the top: animating across 400,000 lines only costs frames."""
        self.scroll_to(0, 0, animate=False, immediate=True)

    def action_jump_end(self) -> None:
        self.scroll_to(0, self.max_scroll_y, animate=False, immediate=True)

    def action_page_up(self) -> None:
        self.scroll_page_up(animate=False)

    def action_page_down(self) -> None:
        self.scroll_page_down(animate=False)

    # -- rendering ----------------------------------------------------------------------------

    def _line_at(self, row: int) -> int:
        """The line drawn on ``row`` (a view that folds lines maps them)."""
        return row

    def _row_of(self, line: int) -> int:
        return line

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._styles.clear()
        self._cache.clear()

    def _style(self, name: str) -> Style:
        style = self._styles.get(name)
        if style is None:
            style = self._styles[name] = self.get_component_rich_style(
                f"body-view--{name}", partial=True
            )
        return style

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        number = self._line_at(scroll_y + y)
        width = self.scrollable_content_region.width
        base = self._styles.get("")
        if base is None:
            base = self._styles[""] = self.rich_style
        doc = self._doc
        if number >= len(doc):
            return Strip.blank(width, base)
        if doc.line_length(number) <= LONG_LINE:
            strip = self._cache.get(number)
            if strip is None:
                strip = self._cache[number] = self._build_strip(number, 0, None, base)
            strip = strip.crop_extend(scroll_x, scroll_x + width, base)
        else:
            # Columns are taken as characters here: exact unless the line holds wide ones.
            strip = self._build_strip(number, scroll_x, scroll_x + width, base)
            strip = strip.extend_cell_length(width, base).crop(0, width)
        return strip.apply_offsets(scroll_x, number)

    def _build_strip(self, number: int, begin: int, end: int | None, base: Style) -> Strip:
        doc = self._doc
        full = doc.line(number)
        if end is None:
            line = full
            if "\t" in line:
                return self._build_tab_strip(number, full, base)
        else:
            # A window on a long line: a tab becomes one space so columns stay characters.
            line = full[begin:end].replace("\t", " ")
        text = Text(line, style=base, no_wrap=True, end="")
        size = len(line)

        def paint(style: Style, start: int, stop: int) -> None:
            start, stop = max(0, start - begin), min(size, stop - begin)
            if stop > start:
                text.stylize(style, start, stop)

        if self.phase == "message":
            text.stylize(self._style("notice"))
        elif (
            self.phase in ("raw", "pretty", "filtered")
            or (self._json_lines and self.phase == "text")
        ) and begin <= LONG_LINE_HIGHLIGHT:
            for start, stop, kind in bodies.json_line_tokens(full, end):
                paint(self._style(kind), start, stop)
        if self._matches:
            line_start = doc.starts[number]
            for index in self._matches.between(line_start, line_start + len(full)):
                style = self._style("match-current" if index == self._current else "match")
                paint(
                    style,
                    self._matches.starts[index] - line_start,
                    self._matches.ends[index] - line_start,
                )
        selection = self.text_selection
        if selection is not None and (span := selection.get_span(number)) is not None:
            start, stop = span
            paint(self._selection_style(), start, len(full) if stop == -1 else stop)
        return Strip(text.render(self.app.console), text.cell_len)

    # -- mouse selection ----------------------------------------------------------------------

    def _selection_style(self) -> Style:
        style = self._styles.get("selection")
        if style is None:
            style = self._styles["selection"] = self.screen.get_component_rich_style(
                "screen--selection"
            )
        return style

    def get_selection(self, selection: Selection) -> tuple[str, str] | None:
        """The selected text, cut straight from the document (no copy of every line)."""
        doc = self._doc
        if not len(doc):
            return None

        def offset(point: Offset | None, default: int) -> int:
            if point is None:
                return default
            line = min(point.y, len(doc) - 1)
            return doc.starts[line] + min(point.x, doc.line_length(line))

        start = offset(selection.start, 0)
        end = offset(selection.end, len(doc.text))
        return doc.text[start:end], "\n"

    def selection_updated(self, selection: Selection | None) -> None:
        self._cache.clear()
        self.refresh()

    def _build_tab_strip(self, number: int, full: str, base: Style) -> Strip:
        """A line with tabs: expanded to 8-column stops, matches moved to their columns."""

        def column(index: int) -> int:
            return len(full[:index].expandtabs())

        text = Text(full.expandtabs(), style=base, no_wrap=True, end="")
        if self._matches:
            line_start = self._doc.starts[number]
            for index in self._matches.between(line_start, line_start + len(full)):
                style = self._style("match-current" if index == self._current else "match")
                start = self._matches.starts[index] - line_start
                end = self._matches.ends[index] - line_start
                text.stylize(style, column(start), column(end))
        return Strip(text.render(self.app.console), text.cell_len)

    # -- search -------------------------------------------------------------------------------

    @property
    def search_text(self) -> str:
        """What the body was last searched for ("" for none). Not ``query``: that is
        Textual's DOM query, which a double-click's select-all calls."""
        return self._query

    @property
    def match_count(self) -> int:
        return len(self._matches)

    @property
    def current_match(self) -> int:
        """0-based index of the current match, -1 when there is none."""
        return self._current

    def search(self, query: str) -> None:
        """Find ``query`` in the content (literal; case-insensitive unless it has capitals).
        A new query cancels a search still running."""
        if not self._query:
            self._search_origin = self.scroll_offset
        self._query = query
        self._search_generation += 1
        self.workers.cancel_group(self, "body-search")
        if not query:
            self._show_matches(Matches(), self._search_generation, self._doc)
            return
        doc, generation = self._doc, self._search_generation
        if len(doc.text) <= SYNC_LIMIT:
            self._show_matches(bodies.find_all(doc.text, query, MATCH_LIMIT), generation, doc)
            return
        self.run_worker(
            partial(self._search_in_thread, doc, query, generation),
            name="search body",
            description="search body",
            group="body-search",
            thread=True,
            exclusive=True,
            exit_on_error=False,
        )

    def _search_in_thread(self, doc: LineIndex, query: str, generation: int) -> None:
        worker = get_current_worker()
        try:
            found = bodies.find_all(doc.text, query, MATCH_LIMIT, lambda: worker.is_cancelled)
        except Stopped:
            return
        if not worker.is_cancelled:
            self._from_thread(self._show_matches, found, generation, doc)

    def _show_matches(self, found: Matches, generation: int, doc: LineIndex) -> None:
        if generation != self._search_generation or doc is not self._doc:
            return
        self._matches = found
        self._current = -1
        if found:
            # The first match at or below the top of the view, so searching never jumps back.
            top = doc.starts[min(self._line_at(self.scroll_offset.y), len(doc) - 1)]
            first = found.between(top, len(doc.text) + 1)
            self._current = first.start if len(first) else 0
            self._reveal_current()
        elif self._query and doc is self._doc:
            # Nothing found (yet): back to where the search started, not the last partial hit.
            self.scroll_to(*self._search_origin, animate=False, immediate=True)
        self._cache.clear()
        self.refresh()
        self._post_search()

    def _post_search(self) -> None:
        self.post_message(
            self.SearchUpdated(self, self._current, len(self._matches), self._matches.capped)
        )

    def next_match(self) -> None:
        self._step(1)

    def previous_match(self) -> None:
        self._step(-1)

    def _step(self, delta: int) -> None:
        if not self._matches:
            return
        self._current = (self._current + delta) % len(self._matches)
        self._cache.clear()
        self._reveal_current()
        self.refresh()
        self._post_search()

    def _reveal_current(self) -> None:
        """Bring the current match into view: its line in the middle, the columns moved only
        when the match is off screen."""
        doc = self._doc
        start = self._matches.starts[self._current]
        end = self._matches.ends[self._current]
        number = doc.line_of(start)
        column = start - doc.starts[number]
        region = self.scrollable_content_region
        x = self.scroll_offset.x
        if column < x or column + (end - start) > x + region.width:
            x = max(0, column - region.width // 3)
        y = max(0, self._row_of(number) - region.height // 2)
        self.scroll_to(x, y, animate=False, immediate=True)

    def clear_search(self) -> None:
        self.search("")

    # -- filter -------------------------------------------------------------------------------

    def apply_filter(self, expression: str) -> None:
        """Show the result of a jq, JMESPath or JSONPath expression over the JSON body.
        A bad expression leaves the view as it is and says why in ``FilterApplied``."""
        expression = expression.strip()
        if not expression:
            self.clear_filter()
            return
        self._filter_seq += 1
        if not self._is_json:
            self.post_message(self.FilterApplied(self, expression, "the body is not JSON"))
            return
        self.run_worker(
            partial(
                self._filter_in_thread,
                self._source,
                expression,
                (self._generation, self._filter_seq),
            ),
            name="filter body",
            description="filter body",
            group="body-filter",
            thread=True,
            exclusive=True,
            exit_on_error=False,
        )

    def _filter_in_thread(self, source: str, expression: str, ticket: tuple[int, int]) -> None:
        worker = get_current_worker()

        def cancelled() -> bool:
            return worker.is_cancelled

        note = ""
        try:
            language, program = bodies.split_language(expression)
            if language == "jq":  # jq reads the text itself, in a child process
                from pigeon.bodies.jq_filter import OUTPUT_LIMIT, run_jq

                result = run_jq(program, source, cancelled=cancelled)
                text = result.text
                if result.cut:
                    note = f"jq's output cut at {bodies.human_size(OUTPUT_LIMIT)}"
            else:
                with _gc_paused():
                    try:
                        data = json.loads(source)
                    except ValueError as exc:
                        raise bodies.FilterError(f"the body is not valid JSON: {exc}") from None
                    found = bodies.apply_filter(data, expression)
                    del data
                    if cancelled():
                        return
                    text = bodies.dumps_pretty(found, cancelled=cancelled)
            doc = bodies.build_index(text, cell_len, cancelled)
        except Stopped:
            return
        except (bodies.FilterError, RecursionError, ValueError, TypeError) as exc:
            self._from_thread(self._filter_failed, expression, str(exc), ticket)
            return
        self._from_thread(self._filter_done, expression, doc, ticket, note)

    def _current_ticket(self, ticket: tuple[int, int]) -> bool:
        return ticket == (self._generation, self._filter_seq)

    def _filter_failed(self, expression: str, error: str, ticket: tuple[int, int]) -> None:
        if self._current_ticket(ticket):
            self.post_message(self.FilterApplied(self, expression, error))

    def _filter_done(
        self, expression: str, doc: LineIndex, ticket: tuple[int, int], note: str = ""
    ) -> None:
        if not self._current_ticket(ticket):
            return
        if self.phase != "filtered":
            self._unfiltered = (self._doc, self.phase)
        self._show_doc(doc, "filtered")
        self.filter_expression = expression
        self.post_message(self.FilterApplied(self, expression, None, note))

    def clear_filter(self) -> None:
        """Back to the whole body."""
        self._filter_seq += 1
        self.workers.cancel_group(self, "body-filter")
        if self.phase == "filtered" and self._unfiltered is not None:
            self.filter_expression = ""
            doc, phase = self._unfiltered
            self._unfiltered = None
            self._show_doc(doc, phase)
