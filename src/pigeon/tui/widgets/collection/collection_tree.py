"""The collection tree: folders and requests in collection order, broken files flagged.

The tree only shows and reports: it posts one message class per choice or command
(``RequestChosen``, ``BrokenChosen``, ``RenameRequested``...) and the collection pane that
holds it does the file work through the store.

A name too long for the pane is cut in the middle, not at the end: requests named alike
("Users operation: create user", "Users operation: delete user") read "Users o…ate user" and
"Users o…ete user", never the same "Users operation…" fifty times (``fit_name``).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from itertools import islice
from pathlib import Path
from typing import ClassVar

from rich.cells import cell_len, get_character_cell_size
from rich.style import Style
from rich.text import Text
from textual.binding import Binding
from textual.geometry import Region
from textual.message import Message
from textual.strip import Strip
from textual.widgets import Tree
from textual.widgets.tree import TreeNode

from pigeon.model import BrokenFile, Collection, Folder, Request
from pigeon.store.order import order_key, stem_of
from pigeon.terminal import printable
from pigeon.tui.css import beside
from pigeon.tui.painted import Painted
from pigeon.tui.themes import method_colour
from pigeon.tui.vim_keys import HalfPages, vim_bindings
from pigeon.tui.widgets.find_rows import FindInTree
from pigeon.tui.widgets.tree_style import StyleOncePerFrame

NodeData = Folder | Request | BrokenFile | None
Piece = tuple[int, int] | str  # a range of a name's characters kept, or "…"


def _chars_in(text: str, cells: int) -> int:
    """How many of ``text``'s first characters fit in ``cells`` cells."""
    used = 0
    for index, char in enumerate(text):
        used += get_character_cell_size(char)
        if used > cells:
            return index
    return len(text)


def fit_name(name: str, width: int, differs_at: int = 0) -> list[Piece]:
    """How ``name`` shows in ``width`` cells: the ranges of its characters kept, with ``…``
    between them. Whole when it fits; else its start, ``…`` and its end, the end the longer
    ("Users o…ete user"): names that share a start differ at their end. When that would hide
    where the name first differs from its closest sibling's (``differs_at``, an index), the
    part from there shows instead, cut short with a ``…`` of its own."""
    if cell_len(name) <= width:
        return [(0, len(name))]
    if width < 3:
        return [(0, _chars_in(name, width))]
    head = _chars_in(name, (width - 1) // 2)
    room = width - 1 - cell_len(name[:head])  # for what follows the "…"
    tail = len(name) - _chars_in(name[::-1], room)
    if differs_at < head or tail <= differs_at:
        if name[tail : tail + 1] == " " and tail != differs_at and cell_len(name[head]) == 1:
            head, tail = head + 1, tail + 1  # "Creat…user", not "Crea… user"
        elif name[head - 1] == " " and head > 1:  # "API key…the query", not "API key …he query"
            head -= 1
            if name[tail - 1] != " " and cell_len(name[tail - 1]) == 1:
                tail -= 1
        return [(0, head), "…", (tail, len(name))]
    start = max(head, differs_at - 1)  # a character before the difference, to read it by
    if name[start] == " " and start < differs_at:
        start += 1
    end = start + _chars_in(name[start:], room - 1)
    while end > start + 1 and name[end - 1] == " ":
        end -= 1
    return [(0, head), "…", (start, end), "…"]


def differs_at(names: list[str]) -> list[int]:
    """For each name, the index of its first character that differs from every other name's
    (the longest start it shares with another, a neighbour once they are sorted)."""
    order = sorted(range(len(names)), key=names.__getitem__)
    shared = [0] * len(names)
    for before, after in zip(order, order[1:], strict=False):
        a, b = names[before], names[after]
        common = next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), None)
        length = min(len(a), len(b)) if common is None else common
        shared[before], shared[after] = max(shared[before], length), max(shared[after], length)
    return shared


class CollectionTree(FindInTree, HalfPages, StyleOncePerFrame, Tree[NodeData]):
    """Folders and requests; ``•`` marks a request with unsaved edits, ``⚠`` a broken file.

    Its keys stay out of the footer (the app's own keys matter more on a narrow screen); the
    pane's subtitle and the help screen list them."""

    DEFAULT_CSS = beside(__file__)

    BINDINGS = [
        *vim_bindings(),
        Binding("n", "command('new_request')", "New request", id="tree.new_request", show=False),
        Binding("f", "command('new_folder')", "New folder", id="tree.new_folder", show=False),
        Binding("r", "command('rename')", "Rename", id="tree.rename", show=False),
        Binding("c", "command('duplicate')", "Duplicate", id="tree.duplicate", show=False),
        Binding("m", "command('move')", "Move", id="tree.move", show=False),
        Binding("d,delete", "command('delete')", "Delete", id="tree.delete", show=False),
    ]

    @dataclass
    class RequestChosen(Message):
        """A request was chosen (enter or a click): open it in the editor."""

        request: Request
        """The collection's own request object."""

    @dataclass
    class BrokenChosen(Message):
        """A file that does not load was chosen: say where and why."""

        broken: BrokenFile
        """The file, line, column and problem."""

    @dataclass
    class ItemCommand(Message):
        """A tree action on the highlighted item; one subclass per action, so a handler says
        which it takes (``on_collection_tree_rename_requested``)."""

        item: Folder | Request | None
        """The highlighted request or folder (``None``: the collection's top level)."""

    class NewRequestRequested(ItemCommand):
        """Make a new request in the highlighted folder (``n``)."""

    class NewFolderRequested(ItemCommand):
        """Make a new folder in the highlighted folder (``f``)."""

    class RenameRequested(ItemCommand):
        """Rename the highlighted request or folder (``r``)."""

    class DuplicateRequested(ItemCommand):
        """Copy the highlighted request or folder beside it (``c``)."""

    class MoveRequested(ItemCommand):
        """Move the highlighted request or folder to another folder (``m``)."""

    class DeleteRequested(ItemCommand):
        """Delete the highlighted request or folder (``d``)."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("collection", id=id)
        self.show_root = False
        self.guide_depth = 2
        self._dirty: set[Path] = set()
        self._methods: dict[Path, str] = {}  # the method of a request being edited, unsaved
        self._painted = Painted()
        self._differs: dict[int, int] = {}  # a node's id -> where its name differs (differs_at)

    async def painted(self, timeout: float = 1.0) -> None:
        """Return once the tree has been drawn as it is now (at most ``timeout`` seconds)."""
        await self._painted.wait(self, timeout)

    def render_lines(self, crop: Region) -> list[Strip]:
        lines = super().render_lines(crop)
        self._painted.resolve()  # the frame being drawn holds the tree as it is now
        return lines

    def render_label(self, node: TreeNode[NodeData], base_style: Style, style: Style) -> Text:
        """The node's label, its name cut in the middle when the line is too narrow."""
        label = super().render_label(node, base_style, style)
        item = node.data
        depth, parent = 0, node.parent
        while parent is not None and parent is not self.root:
            depth, parent = depth + 1, parent.parent
        width = self.scrollable_content_region.width - depth * self.guide_depth
        if label.cell_len <= width or not isinstance(item, (Folder, Request)) or width < 1:
            return label
        name = printable(item.name)
        end = len(label) - (2 if item.path is not None and item.path in self._dirty else 0)
        start = end - len(name)
        if label.plain[start:end] != name:  # not the label it was built from: leave it
            return label
        room = cell_len(name) - (label.cell_len - width)
        pieces = fit_name(name, room, self._differs_at(node))
        fitted = label[:start]
        for piece in pieces:
            if isinstance(piece, str):
                mark = label[start : start + 1]  # the name's style, the cursor's included
                mark.plain = piece
                fitted.append_text(mark)
            else:
                fitted.append_text(label[start + piece[0] : start + piece[1]])
        fitted.append_text(label[end:])
        return fitted

    def _differs_at(self, node: TreeNode[NodeData]) -> int:
        """Where ``node``'s name first differs from its siblings' (worked out per folder)."""
        if node.id not in self._differs and node.parent is not None:
            siblings = [n for n in node.parent.children if isinstance(n.data, (Folder, Request))]
            names = [printable(n.data.name) for n in siblings]  # type: ignore[union-attr]
            for sibling, at in zip(siblings, differs_at(names), strict=True):
                self._differs[sibling.id] = at
        return self._differs.get(node.id, 0)

    # -- building -----------------------------------------------------------------------------

    def show_collection(
        self, collection: Collection, select: Path | None = None, first_rows: int = 0
    ) -> None:
        """Rebuild from the model, keeping expanded folders, and highlight ``select`` (a
        request's file or a folder's directory; the folders holding it are opened).
        ``first_rows``: add about that many rows now and the rest on ``fill`` (start-up draws
        the rows on screen first: 500 requests added 66 ms before the first frame)."""
        expanded = {
            n.data.path for n in self._all_nodes() if isinstance(n.data, Folder) and n.is_expanded
        }
        if select is not None:
            expanded.update(select.parents)
        first_build = not self.root.children
        self.clear()
        self._differs.clear()
        self.root.label = Text(printable(collection.name))
        target: TreeNode[NodeData] | None = None
        # A broken file shows in its own folder, where its name falls (or its order entry).
        broken_in: dict[Path, list[BrokenFile]] = {}
        for broken in collection.broken:
            broken_in.setdefault(broken.path.parent, []).append(broken)

        def add(
            parent: TreeNode[NodeData],
            items: list[Folder | Request],
            directory: Path | None,
            order: list[str],
        ) -> Iterator[None]:
            """Add the rows of ``items`` under ``parent``, one at a time."""
            nonlocal target
            entries: list[Folder | Request | BrokenFile] = list(items)
            broken_here = broken_in.pop(directory, []) if directory is not None else []
            if broken_here:
                entries += broken_here
                key = order_key(order)
                entries.sort(
                    key=lambda e: (
                        key(e.path.name, e.path.stem, False)
                        if isinstance(e, BrokenFile)
                        else key(e.name, stem_of(e), isinstance(e, Folder))
                    )
                )
            for item in entries:
                if isinstance(item, BrokenFile):
                    parent.add_leaf(self._broken_label(item, item.path.parent), data=item)
                elif isinstance(item, Folder):
                    node = parent.add(
                        self._label(item), data=item, expand=first_build or item.path in expanded
                    )
                    if select is not None and item.path == select:
                        target = node
                    yield
                    yield from add(node, item.items, item.path, item.order)
                    continue
                else:
                    leaf = parent.add_leaf(self._label(item), data=item)
                    if select is not None and item.path == select:
                        target = leaf
                yield

        def rows() -> Iterator[None]:
            yield from add(self.root, collection.items, collection.root, collection.order)
            for left in broken_in.values():  # in no folder shown (an environment's file)
                for broken in left:
                    self.root.add_leaf(self._broken_label(broken, collection.root), data=broken)
                    yield

        self._rest = rows()
        if first_rows and select is None:
            for _ in islice(self._rest, first_rows):
                pass
            return
        self.fill()
        if target is not None:
            node = target
            self.call_after_refresh(self.move_cursor, node)

    _rest: Iterator[None] | None = None  # the rows ``show_collection`` left for ``fill``

    def fill(self) -> None:
        """Add the rows ``show_collection`` left for later, if any."""
        rest, self._rest = self._rest, None
        if rest is not None:
            for _ in rest:
                pass

    def _all_nodes(self) -> list[TreeNode[NodeData]]:
        self.fill()  # every row, even right after start-up
        out: list[TreeNode[NodeData]] = []
        todo = list(self.root.children)
        while todo:
            node = todo.pop()
            out.append(node)
            todo.extend(node.children)
        return out

    def _label(self, item: Folder | Request) -> Text:
        if isinstance(item, Folder):
            return Text(printable(item.name), style="bold")
        method = (self._methods.get(item.path, item.method) if item.path else item.method) or "GET"
        kind = item.kind
        method = "WS" if kind == "websocket" else "gRPC" if kind == "grpc" else method.upper()
        colour = method_colour(self.app.current_theme, method)
        badge = (method[:4] if method != "DELETE" else "DEL").ljust(4)
        text = Text.assemble((badge, f"bold {colour}"), " ", printable(item.name))
        if item.path is not None and item.path in self._dirty:
            text.append(" •", style="bold")
        return text

    @staticmethod
    def _broken_label(broken: BrokenFile, root: Path) -> Text:
        try:
            where = broken.path.relative_to(root).as_posix()
        except ValueError:
            where = str(broken.path)
        return Text.assemble(("⚠ ", "bold red"), (printable(where), "red"))

    # -- state --------------------------------------------------------------------------------

    def mark_dirty(self, path: Path | None, dirty: bool) -> None:
        """Show or clear the unsaved-changes dot of one request (cleared, it shows its saved
        method again)."""
        if path is not None and not dirty:
            self._methods.pop(path, None)
        if path is None or (path in self._dirty) == dirty:
            return
        if dirty:
            self._dirty.add(path)
        else:
            self._dirty.discard(path)
        self._relabel(path)

    def show_method(self, path: Path | None, method: str) -> None:
        """Show the method of the request at ``path`` as edited, before it is saved."""
        if path is None or self._methods.get(path) == method:
            return
        self._methods[path] = method
        self._relabel(path)

    def _relabel(self, path: Path) -> None:
        for node in self._all_nodes():
            if isinstance(node.data, Request) and node.data.path == path:
                node.set_label(self._label(node.data))

    def refresh_labels(self) -> None:
        """Repaint labels (after a theme change or a method edit)."""
        for node in self._all_nodes():
            if isinstance(node.data, (Folder, Request)):
                node.set_label(self._label(node.data))

    def update_request_label(self, request: Request) -> None:
        for node in self._all_nodes():
            if isinstance(node.data, Request) and node.data.path == request.path:
                node.data = request
                self._differs.clear()  # its name may have changed
                node.set_label(self._label(request))

    @property
    def highlighted_item(self) -> NodeData:
        node = self.cursor_node
        return node.data if node is not None else None

    def neighbour_of(self, item: Folder | Request) -> Path | None:
        """What to highlight once ``item`` is gone: the item after it, else the one before,
        else its folder (``None``: nothing left to highlight)."""
        node = next((n for n in self._all_nodes() if n.data is item), None)
        if node is None or node.parent is None:
            return None
        siblings = [n for n in node.parent.children if isinstance(n.data, (Folder, Request))]
        index = siblings.index(node)
        after, before = siblings[index + 1 :], siblings[:index]
        if after or before:
            nearest = after[0] if after else before[-1]
            return nearest.data.path  # type: ignore[union-attr]
        parent = node.parent.data
        return parent.path if isinstance(parent, Folder) else None

    def folder_for_new(self) -> Folder | None:
        """Where a new item goes: the highlighted folder, or the folder of the highlighted
        request, or the top level."""
        node = self.cursor_node
        while node is not None:
            if isinstance(node.data, Folder):
                return node.data
            node = node.parent
        return None

    # -- events -------------------------------------------------------------------------------

    def on_tree_node_selected(self, event: Tree.NodeSelected[NodeData]) -> None:
        event.stop()
        data = event.node.data
        if isinstance(data, Request):
            self.post_message(self.RequestChosen(data))
        elif isinstance(data, BrokenFile):
            self.post_message(self.BrokenChosen(data))

    _COMMANDS: ClassVar[dict[str, type[ItemCommand]]] = {
        "new_request": NewRequestRequested,
        "new_folder": NewFolderRequested,
        "rename": RenameRequested,
        "duplicate": DuplicateRequested,
        "move": MoveRequested,
        "delete": DeleteRequested,
    }

    def action_command(self, name: str) -> None:
        item = self.highlighted_item
        if isinstance(item, BrokenFile):
            item = None
        self.post_message(self._COMMANDS[name](item))
