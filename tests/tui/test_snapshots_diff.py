"""Snapshots of the diff of two responses, side by side and unified, at 80x24 and 120x40."""

from __future__ import annotations

import json

import pytest
from textual.app import App, ComposeResult
from textual.widgets import Static

from pigeon.response_diff import DiffSide
from pigeon.tui.dialogs.diff import DiffScreen

OLD = {
    "users": [
        {"id": 1, "name": "Ada Lovelace", "admin": True, "tags": ["math", "engines"]},
        {"id": 2, "name": "Grace Hopper", "admin": False, "tags": ["cobol"]},
    ],
    "total": 2,
    "next": None,
}
NEW = {
    "users": [
        {"id": 1, "name": "Ada Lovelace", "admin": True, "tags": ["math", "engines"]},
        {"id": 2, "name": "Grace Brewster Hopper", "admin": True, "tags": ["cobol"]},
        {"id": 3, "name": "Alan \x1b[31mTuring", "admin": False, "tags": []},
    ],
    "total": 3,
    "next": "/users?page=2",
}


def sides() -> tuple[DiffSide, DiffSide]:
    headers = [("Content-Type", "application/json"), ("ETag", '"v1"')]
    old = DiffSide(
        "2026-11-25 10:00:00 · 200 OK · GET /users",
        "HTTP/1.1 200 OK",
        headers,
        json.dumps(OLD),
        True,
    )
    new = DiffSide(
        "this response",
        "HTTP/1.1 200 OK",
        [("content-type", "application/json"), ("ETag", '"v2"'), ("X-Total", "3")],
        json.dumps(NEW),
        True,
    )
    return old, new


class DiffApp(App[None]):
    """An empty app with the diff screen over it."""

    def compose(self) -> ComposeResult:
        yield Static("")

    def on_mount(self) -> None:
        self.push_screen(DiffScreen(*sides()))


async def shown(pilot) -> None:
    screen = pilot.app.screen
    for _ in range(200):
        if isinstance(screen, DiffScreen) and screen.diff is not None:
            break
        await pilot.pause(0.05)
        screen = pilot.app.screen
    await pilot.pause()


async def unified(pilot) -> None:
    await shown(pilot)
    await pilot.press("u")
    await pilot.pause()


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
def test_diff_side_by_side(snap_compare, size) -> None:
    assert snap_compare(DiffApp(), terminal_size=size, run_before=shown)


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
def test_diff_unified(snap_compare, size) -> None:
    assert snap_compare(DiffApp(), terminal_size=size, run_before=unified)
