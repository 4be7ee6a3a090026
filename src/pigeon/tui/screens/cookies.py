"""The Cookies view: the jar of the open collection and environment, to list, edit, delete and
clear (each change written to ``.pigeon/cookies/`` at once)."""

from __future__ import annotations

import asyncio
from datetime import datetime

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import DataTable, Label

from pigeon.cookies import CookieRow, make_cookie, rows
from pigeon.session import Session
from pigeon.terminal import printable
from pigeon.tui.css import beside
from pigeon.tui.vim_keys import HalfPages, vim_bindings
from pigeon.tui.widgets.find_rows import FindInTable


def _expires(row: CookieRow) -> str:
    if row.expires is None:
        return "session"
    return datetime.fromtimestamp(row.expires).strftime("%Y-%m-%d %H:%M")


def _cookie_text(value: str) -> str | None:
    try:
        make_cookie("n", value, "d")
    except ValueError:
        return "no control character or ; in a cookie's value"
    return None


class CookieTable(FindInTable, HalfPages, DataTable[str]):
    """The jar's rows, moved through as every list is: vim's moves, and home/end to the
    first and last row (a DataTable's own home/end scroll sideways)."""

    BINDINGS = [
        *vim_bindings(top="scroll_top", bottom="scroll_bottom"),
        Binding("home", "scroll_top", show=False),
        Binding("end", "scroll_bottom", show=False),
    ]


class CookiesScreen(ModalScreen[None]):
    DEFAULT_CSS = beside(__file__)
    BINDINGS = [
        Binding("escape,f7,q", "close", "Close", id="cookies.close"),
        Binding("e,enter", "edit", "Edit value", id="cookies.edit"),
        Binding("delete,d", "delete", "Delete", id="cookies.delete"),
        Binding("x", "clear", "Clear all", id="cookies.clear"),
    ]

    def __init__(self, session: Session) -> None:
        super().__init__()
        self.session = session
        self.rows: list[CookieRow] = []

    def compose(self) -> ComposeResult:
        with Vertical(id="cookies-box"):
            yield Label("Cookies", id="cookies-title")
            yield CookieTable(id="cookies-table", cursor_type="row", zebra_stripes=True)
            yield Label(
                "e: edit value   d: delete   x: clear all   escape: close", id="cookies-hint"
            )

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        table.add_columns("Domain", "Path", "Name", "Value", "Expires")
        env = self.session.environment or "no environment"
        self.query_one("#cookies-title", Label).update(f"Cookies — {printable(env)}")
        table.focus()
        self.load()

    @work(exclusive=True, group="cookies")
    async def load(self) -> None:
        jar = await asyncio.to_thread(self.session.cookie_jar)
        self.show(rows(jar))

    def show(self, found: list[CookieRow], cursor: int = 0) -> None:
        """List ``found`` with the cursor on row ``cursor`` (kept in the table)."""
        self.rows = found
        table = self.query_one(DataTable)
        table.clear()
        for row in found:
            value = row.value if len(row.value) <= 40 else row.value[:39] + "…"
            cells = (row.domain, row.path, row.name, value, _expires(row))
            table.add_row(*(printable(cell) for cell in cells))
        if not found:
            table.add_row("(no cookies)", "", "", "", "")
        table.move_cursor(row=max(0, min(cursor, table.row_count - 1)))

    def _current(self) -> CookieRow | None:
        table = self.query_one(DataTable)
        if not self.rows or table.cursor_row >= len(self.rows):
            return None
        return self.rows[table.cursor_row]

    async def _changed(self, keep: CookieRow | None = None) -> None:
        """Save the jar and list it again, the cursor on ``keep`` when it is still there (an
        edited cookie), else on the row where the cursor was (the one after a deletion)."""
        await self.session.save_cookies()
        cursor = self.query_one(DataTable).cursor_row
        found = rows(self.session.cookie_jar())
        if keep is not None:
            key = (keep.domain, keep.path, keep.name)
            cursor = next(
                (i for i, r in enumerate(found) if (r.domain, r.path, r.name) == key), cursor
            )
        self.show(found, cursor)

    async def action_delete(self) -> None:
        row = self._current()
        if row is not None:
            self.session.cookie_jar().clear(row.domain, row.path, row.name)
            await self._changed()

    def action_clear(self) -> None:
        from pigeon.tui.dialogs.confirm import ConfirmScreen

        async def answered(yes: bool | None) -> None:
            if yes:
                self.session.cookie_jar().clear()
                await self._changed()

        if self.rows:
            message = f"Forget all {len(self.rows)} cookies of this environment?"
            self.app.push_screen(ConfirmScreen("Clear cookies", message, yes="Clear"), answered)

    def action_edit(self) -> None:
        from pigeon.tui.dialogs.prompt import PromptScreen

        row = self._current()
        if row is None:
            return

        async def edited(value: str | None) -> None:
            if value is None:
                return
            cookie = make_cookie(
                row.name,
                value,
                row.domain,
                row.path,
                expires=row.expires,
                secure=row.secure,
                host_only=row.host_only,
            )
            self.session.cookie_jar().set_cookie(cookie)
            await self._changed(keep=row)

        title = f"Value of {printable(row.name)} for {printable(row.domain)}"
        self.app.push_screen(PromptScreen(title, row.value, check=_cookie_text), edited)

    def action_close(self) -> None:
        self.dismiss(None)
