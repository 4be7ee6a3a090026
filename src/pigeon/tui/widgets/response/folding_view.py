"""A body view whose JSON, HTML and XML fold like a tree, with a cursor line.

``FoldingBodyView`` is the ``BodyView`` the response pane shows. Once a pretty JSON body, a
filter result or laid-out markup is on show, its outline (:mod:`pigeon.bodies.outline`) is
built in a thread; the fold keys then hide and show nodes through :class:`Folds`, which maps
screen rows to document lines, so a fold costs a few list edits and only visible lines are
drawn. The cursor line's JSON path is posted up (``CursorMoved``) and can be copied as a path
or as the script line that keeps its value for the next request.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import ClassVar

from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.binding import Binding, BindingType
from textual.geometry import Size
from textual.message import Message
from textual.strip import Strip
from textual.worker import get_current_worker

from pigeon.bodies import LineIndex, MarkupKind, Stopped
from pigeon.bodies.folds import Folds
from pigeon.bodies.json import Nesting
from pigeon.bodies.outline import (
    Outline,
    OutlineKind,
    build_outline,
    format_path,
    outline_of,
    parse_path,
    script_expression,
)
from pigeon.terminal import printable
from pigeon.tui.css import beside
from pigeon.tui.vim_keys import vim_bindings
from pigeon.tui.widgets.response.body_view import SYNC_LIMIT, BodyView, Phase

# Room for a folded node's summary (``… 27,000 items ],``) past the widest line.
_SUMMARY_ROOM = 24


class FoldingBodyView(BodyView):
    """A ``BodyView`` with a cursor line and folding of JSON, HTML and XML."""

    DEFAULT_CSS = beside(__file__)

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        *BodyView.COMPONENT_CLASSES,
        "body-view--cursor",
        "body-view--fold",
    }

    BINDINGS: ClassVar[list[BindingType]] = [
        *vim_bindings("cursor_down", "cursor_up", "jump_home", "jump_end", find=""),
        Binding("down", "cursor_down", "Down", show=False),
        Binding("up", "cursor_up", "Up", show=False),
        Binding("enter,z", "toggle_fold", "Fold", id="body.fold", tooltip="Fold or unfold"),
        Binding("minus", "fold_all", "Fold all", id="body.fold_all", show=False),
        Binding("0", "unfold_all", "Unfold all", id="body.unfold_all", show=False),
        *(
            Binding(
                str(level),
                f"fold_level({level})",
                f"Fold to level {level}",
                id=f"body.level{level}",
                show=False,
            )
            for level in range(1, 10)
        ),
        Binding("y", "copy_path", "Copy path", id="body.copy_path", show=False),
        Binding(
            "Y", "copy_script", "Copy path as a script line", id="body.copy_script", show=False
        ),
    ]

    class CursorMoved(Message):
        """The cursor moved, or what it is on changed: ``path`` is its JSON path ("" when
        the body has none)."""

        def __init__(self, view: FoldingBodyView, path: str) -> None:
            super().__init__()
            self.view, self.path = view, path

    def __init__(
        self, *, name: str | None = None, id: str | None = None, classes: str | None = None
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self._folds: Folds | None = None
        self._kept: Folds | None = None
        self._next_markup: MarkupKind | None = None
        self._markup: MarkupKind | None = None
        self.cursor_line = 0
        self._posted_path: str | None = None
        self._path_key: tuple[Folds, int] | None = None
        self._path = ""

    # -- what is on show --------------------------------------------------------------------

    @property
    def folds(self) -> Folds | None:
        """The fold state of the document on show, once its outline is built."""
        return self._folds

    @property
    def row_count(self) -> int:
        return self._folds.rows if self._folds is not None else len(self.document)

    def show_text(
        self,
        text: str,
        *,
        is_json: bool = False,
        json_lines: bool = False,
        markup: MarkupKind | None = None,
    ) -> None:
        self._next_markup = None if is_json else markup
        super().show_text(text, is_json=is_json, json_lines=json_lines, markup=markup)

    def _start(self, text: str, *, is_json: bool) -> int:
        self._markup, self._next_markup = self._next_markup, None
        self._kept = None
        self.workers.cancel_group(self, "body-outline")
        return super()._start(text, is_json=is_json)

    def _show_doc(self, doc: LineIndex, phase: Phase, nesting: Nesting | None = None) -> None:
        # The folds of the document going away are kept: clearing a filter brings them back.
        kept, self._kept = self._kept, self._folds
        self._folds = None
        self.workers.cancel_group(self, "body-outline")
        super()._show_doc(doc, phase, nesting)
        self.cursor_line = min(self._line_at(self.scroll_offset.y), max(len(doc) - 1, 0))
        if kept is not None and kept.outline.doc is doc:
            self._folds = kept
            self._folds_changed()
            return
        self._post_cursor()
        kind = self._outline_kind(phase)
        if kind is None or not len(doc):
            return
        if kind == "json" and nesting is not None:  # written with the text
            self._outline_ready(outline_of(doc, nesting), doc)
            return
        if len(doc.text) <= SYNC_LIMIT:
            self._outline_ready(build_outline(doc, kind), doc)
            return
        self.run_worker(
            partial(self._outline_in_thread, doc, kind),
            name="outline body",
            group="body-outline",
            thread=True,
            exclusive=True,
            exit_on_error=False,
        )

    def _outline_kind(self, phase: Phase) -> OutlineKind | None:
        if phase in ("pretty", "filtered"):
            return "json"
        if phase == "text" and self._markup is not None:
            return "markup"
        return None

    def _outline_in_thread(self, doc: LineIndex, kind: OutlineKind) -> None:
        worker = get_current_worker()
        cancelled: Callable[[], bool] = lambda: worker.is_cancelled  # noqa: E731
        try:
            outline = build_outline(doc, kind, cancelled)
        except Stopped:
            return
        self._from_thread(self._outline_ready, outline, doc)

    def _outline_ready(self, outline: Outline, doc: LineIndex) -> None:
        if doc is not self.document:
            return
        self._folds = Folds(outline)
        self._post_cursor(force=True)

    # -- rows and lines ---------------------------------------------------------------------

    def _line_at(self, row: int) -> int:
        return self._folds.line_at(row) if self._folds is not None else row

    def _row_of(self, line: int) -> int:
        return self._folds.row_of(line) if self._folds is not None else line

    def _folds_changed(self) -> None:
        """Rows came or went: resize, keep the cursor on a shown line and in view."""
        folds = self._folds
        assert folds is not None
        room = _SUMMARY_ROOM if folds.hidden else 0
        self.virtual_size = Size(self.document.width + room, folds.rows)
        self._cache.clear()
        self.cursor_line = folds.line_at(folds.row_of(self.cursor_line))
        self._scroll_to_cursor()
        self.refresh()
        self._post_cursor()

    # -- rendering --------------------------------------------------------------------------

    def render_line(self, y: int) -> Strip:
        strip = super().render_line(y)
        if self.has_focus and self._line_at(self.scroll_offset.y + y) == self.cursor_line:
            # Under a search match or a selection, their own background stays.
            plain, cursor = self.rich_style.bgcolor, self._cursor_style()
            strip = Strip(
                [
                    Segment(seg.text, seg.style + cursor)
                    if seg.style is not None and seg.style.bgcolor == plain
                    else seg
                    for seg in strip
                ],
                strip.cell_length,
            )
        return strip

    def _cursor_style(self) -> Style:
        """The cursor's background, blended over the view's (the highlight colours stay)."""
        style = self._styles.get("cursor-line")
        if style is None:
            background = self.get_component_rich_style("body-view--cursor").bgcolor
            style = self._styles["cursor-line"] = Style(bgcolor=background)
        return style

    def _build_strip(self, number: int, begin: int, end: int | None, base: Style) -> Strip:
        strip = super()._build_strip(number, begin, end, base)
        folds = self._folds
        if folds is None or end is not None:
            return strip
        node = folds.folded_at(number)
        if node < 0:
            return strip
        summary = folds.outline.summary(node)
        tail = Strip([Segment(summary, base + self._style("fold"))], len(summary))
        return Strip.join([strip, tail])

    def on_resize(self) -> None:
        self._scroll_to_cursor()

    def on_focus(self) -> None:
        self.refresh()

    def on_blur(self) -> None:
        self.refresh()

    # -- the cursor ---------------------------------------------------------------------------

    def move_cursor(self, line: int) -> None:
        """Put the cursor on ``line`` (unfolding what hides it) and bring it into view."""
        doc = self.document
        if not len(doc):
            return
        line = max(0, min(line, len(doc) - 1))
        if self._folds is not None and self._folds.is_hidden(line):
            self._folds.reveal(line)
            self.cursor_line = line
            self._folds_changed()
            return
        self.cursor_line = line
        self._scroll_to_cursor()
        self.refresh()
        self._post_cursor()

    def _move_rows(self, delta: int) -> None:
        rows = self.row_count
        if rows:
            row = max(0, min(self._row_of(self.cursor_line) + delta, rows - 1))
            self.move_cursor(self._line_at(row))

    def _scroll_to_cursor(self) -> None:
        row = self._row_of(self.cursor_line)
        height = self.scrollable_content_region.height
        top = self.scroll_offset.y
        if row < top:
            self.scroll_to(y=row, animate=False, immediate=True)
        elif height and row >= top + height:
            self.scroll_to(y=row - height + 1, animate=False, immediate=True)

    def action_cursor_down(self) -> None:
        self._move_rows(1)

    def action_cursor_up(self) -> None:
        self._move_rows(-1)

    def action_jump_home(self) -> None:
        self.move_cursor(0)
        super().action_jump_home()

    def action_jump_end(self) -> None:
        self.move_cursor(self._line_at(self.row_count - 1))
        super().action_jump_end()

    def action_page_down(self) -> None:
        super().action_page_down()
        self._move_rows(max(1, self.scrollable_content_region.height))

    def action_page_up(self) -> None:
        super().action_page_up()
        self._move_rows(-max(1, self.scrollable_content_region.height))

    def action_half_page(self, move: str) -> None:
        """``ctrl+d``/``ctrl+u`` as in vim: the view and the cursor move half a page together."""
        rows = max(1, self.scrollable_content_region.height // 2)
        rows = rows if move == "cursor_down" else -rows
        self.scroll_to(y=self.scroll_offset.y + rows, animate=False, immediate=True)
        self._move_rows(rows)

    def on_click(self, event: events.Click) -> None:
        row = self.scroll_offset.y + event.y
        if 0 <= row < self.row_count:
            self.move_cursor(self._line_at(row))

    # -- folding ------------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("toggle_fold", "fold_all", "unfold_all", "fold_level"):
            return self._folds is not None and len(self._folds.outline) > 0
        if action in ("copy_path", "copy_script"):
            return bool(self.cursor_path)
        return super().check_action(action, parameters)

    def action_toggle_fold(self) -> None:
        """Fold or unfold the node on the cursor line; on a value, fold the node holding it."""
        folds = self._folds
        if folds is None:
            return
        outline = folds.outline
        line = self.cursor_line
        node = outline.node_at(line)
        if node < 0:
            node = outline.node_closed_at(line)
        if node < 0:
            node = outline.enclosing(line)
            if node < 0:
                return
            folds.fold(node)
        else:
            folds.toggle(node)
        self.cursor_line = outline.opens[node] if folds.is_folded(node) else line
        self._folds_changed()

    def action_fold_all(self) -> None:
        if self._folds is not None:
            self._folds.fold_all()
            self._folds_changed()

    def action_unfold_all(self) -> None:
        if self._folds is not None:
            self._folds.unfold_all()
            self._folds_changed()

    def action_fold_level(self, level: int) -> None:
        if self._folds is not None:
            self._folds.fold_level(level)
            self._folds_changed()

    def unfold_to_path(self, text: str) -> str | None:
        """Open the way to the value at ``text`` (``items[3].id``) and put the cursor on it;
        the reason when there is no such value."""
        folds = self._folds
        if folds is None or folds.outline.kind != "json":
            return "paths work in a JSON body"
        try:
            line = folds.outline.line_of_path(parse_path(text))
        except ValueError as exc:
            return str(exc)
        except KeyError as exc:
            return f"nothing at {exc.args[0]}"
        self.move_cursor(line)
        self.scroll_to(y=max(0, self._row_of(line) - self.size.height // 3), animate=False)
        return None

    # -- the path at the cursor ---------------------------------------------------------------

    @property
    def cursor_path(self) -> str:
        """The JSON path of the cursor line (``items[3].id``), "" outside a JSON body."""
        folds = self._folds
        if folds is None or folds.outline.kind != "json":
            return ""
        key = (folds, self.cursor_line)
        if self._path_key != key:  # the footer asks at every refresh of the bindings
            self._path_key = key
            self._path = format_path(folds.outline.path_at(self.cursor_line))
        return self._path

    def _post_cursor(self, force: bool = False) -> None:
        path = self.cursor_path
        if force or path != self._posted_path:
            self._posted_path = path
            self.post_message(self.CursorMoved(self, path))
            self.refresh_bindings()

    def action_copy_path(self) -> None:
        path = self.cursor_path
        if path:
            self.app.copy_to_clipboard(path)
            self.notify(printable(f"Copied the path {path}"), markup=False)

    def action_copy_script(self) -> None:
        folds = self._folds
        if folds is None or folds.outline.kind != "json":
            return
        line = script_expression(folds.outline.path_at(self.cursor_line))
        self.app.copy_to_clipboard(line)
        self.notify(printable(f"Copied {line}"), markup=False)

    # -- search -------------------------------------------------------------------------------

    def _reveal_current(self) -> None:
        """A match inside a folded node unfolds the way to it; the cursor goes to its line."""
        line = self.document.line_of(self._matches.starts[self._current])
        if self._folds is not None and self._folds.is_hidden(line):
            self._folds.reveal(line)
            self.cursor_line = line
            self._folds_changed()
        self.cursor_line = line
        super()._reveal_current()
        self._post_cursor()
