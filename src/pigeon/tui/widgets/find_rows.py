"""``/`` in a list (the tree, a table, the history, the variables): the next row holding the
text asked for, after the cursor and round to the top (in a tree, inside closed folders too); ``/`` then ``enter`` again finds the
next one (the last text is offered)."""

from __future__ import annotations

from typing import Any

from pigeon.terminal import printable


def next_match(texts: list[str], current: int, wanted: str) -> int | None:
    """The first row after ``current`` (wrapping) whose text holds ``wanted``, any case."""
    needle = wanted.casefold()
    count = len(texts)
    for step in range(1, count + 1):
        index = (current + step) % count
        if needle in texts[index].casefold():
            return index
    return None


class FindRows:
    """Mixed into a list widget, which says what its rows read and how to go to one."""

    _find_text = ""

    def row_texts(self) -> list[str]:
        raise NotImplementedError

    def current_row(self) -> int:
        raise NotImplementedError

    def go_to_row(self, index: int) -> None:
        raise NotImplementedError

    def action_find_row(self) -> None:
        from pigeon.tui.dialogs.prompt import PromptScreen

        widget: Any = self

        def found(value: str | None) -> None:
            if not value:
                return
            self._find_text = value
            index = next_match(self.row_texts(), self.current_row(), value)
            if index is None:
                widget.notify(f"Nothing here holds “{printable(value)}”", severity="warning")
            else:
                self.go_to_row(index)

        widget.app.push_screen(
            PromptScreen(
                "Find the next row holding",
                self._find_text,
                check=lambda v: None if v else "type the text to find",
            ),
            found,
        )


class FindInTree(FindRows):
    """Finds among every node, folded ones too: a hit inside a closed folder opens the way."""

    def _rows_in_order(self) -> list[Any]:
        tree: Any = self
        nodes: list[Any] = []
        stack = list(reversed(tree.root.children))
        while stack:
            node = stack.pop()
            nodes.append(node)
            stack.extend(reversed(node.children))
        return nodes

    def row_texts(self) -> list[str]:
        return [node.label.plain for node in self._rows_in_order()]

    def current_row(self) -> int:
        cursor = self.cursor_node  # type: ignore[attr-defined]
        nodes = self._rows_in_order()
        return nodes.index(cursor) if cursor in nodes else -1

    def go_to_row(self, index: int) -> None:
        tree: Any = self
        node = self._rows_in_order()[index]
        parent = node.parent
        while parent is not None and parent is not tree.root:
            parent.expand()
            parent = parent.parent
        tree.call_after_refresh(tree.move_cursor, node)


class FindInOptions(FindRows):
    def row_texts(self) -> list[str]:
        options: Any = self
        return [str(option.prompt) for option in options.options]

    def current_row(self) -> int:
        highlighted = self.highlighted  # type: ignore[attr-defined]
        return -1 if highlighted is None else highlighted

    def go_to_row(self, index: int) -> None:
        self.highlighted = index  # type: ignore[attr-defined]


class FindInTable(FindRows):
    def row_texts(self) -> list[str]:
        table: Any = self
        return [
            " ".join(str(cell) for cell in table.get_row_at(row)) for row in range(table.row_count)
        ]

    def current_row(self) -> int:
        return self.cursor_row  # type: ignore[attr-defined]

    def go_to_row(self, index: int) -> None:
        self.move_cursor(row=index)  # type: ignore[attr-defined]
