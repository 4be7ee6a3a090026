"""The collection pane alone in a host app that records the messages it posts up: what the
screen is told after each of the tree's commands and the environment chooser."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from textual import on
from textual.app import App, ComposeResult
from textual.message import Message

from pigeon.model import Request
from pigeon.session import Session
from pigeon.tui.widgets.collection.collection_pane import CollectionPane
from pigeon.tui.widgets.collection.collection_tree import CollectionTree
from pigeon.tui.widgets.collection.environment_label import EnvironmentLabel
from pigeon.tui.widgets.editor.request_editor import Preview, RequestEditor


class PaneApp(App[None]):
    """The pane beside an editor, as on the main screen; nothing is unsaved, so the guard
    runs its continuation at once (and counts the calls)."""

    def __init__(self, session: Session) -> None:
        super().__init__()
        self.session = session
        self.messages: list[Message] = []
        self.guarded = 0
        editor = RequestEditor(lambda r: None, lambda r: Preview(r.url, [], []), id="editor")
        self.editor = editor
        self.pane = CollectionPane(session, editor, self.guard, id="tree-pane")

    def compose(self) -> ComposeResult:
        yield self.pane
        yield self.editor

    def guard(self, then: Callable[[], None]) -> None:
        self.guarded += 1
        then()

    @on(CollectionPane.RequestCreated)
    @on(CollectionPane.CollectionChanged)
    @on(CollectionPane.EnvironmentChanged)
    @on(CollectionTree.RenameRequested)
    def record(self, message: Message) -> None:
        self.messages.append(message)

    def kinds(self) -> list[str]:
        return [type(m).__name__ for m in self.messages]


def highlight(app: PaneApp, request_id: str) -> None:
    tree = app.pane.collection_tree
    tree.focus()
    node = next(
        n for n in tree._all_nodes() if isinstance(n.data, Request) and n.data.id == request_id
    )
    tree.move_cursor(node)


async def test_a_new_request_is_made_on_disk_and_handed_up_to_be_opened(collection: Path) -> None:
    app = PaneApp(Session.open(collection, "local"))
    async with app.run_test() as pilot:
        highlight(app, "users/list-users")
        await pilot.press("n")
        await pilot.pause()
        await pilot.press(*"Ping it", "enter")
        await pilot.pause()
        assert app.kinds() == ["RequestCreated"]
        [created] = app.messages
        assert isinstance(created, CollectionPane.RequestCreated)
        assert created.request.path == collection / "users" / "ping-it.toml"
        assert created.request.path.is_file()
        assert any(r is created.request for r in app.session.collection.requests())


async def test_a_delete_tells_the_screen_the_collection_changed(collection: Path) -> None:
    app = PaneApp(Session.open(collection, "local"))
    async with app.run_test() as pilot:
        highlight(app, "users/create-user")
        await pilot.pause()
        await pilot.press("d", "y")
        await pilot.pause()
        assert not (collection / "users" / "create-user.toml").exists()
        assert app.kinds() == ["CollectionChanged"]
        ids = [r.id for r in app.session.collection.requests()]
        assert "users/create-user" not in ids and "users/list-users" in ids


async def test_the_tree_commands_stop_at_the_pane(collection: Path) -> None:
    """The pane handles the tree's commands itself: the screen never sees them."""
    app = PaneApp(Session.open(collection, "local"))
    async with app.run_test() as pilot:
        highlight(app, "users/list-users")
        await pilot.pause()
        await pilot.press("r")
        await pilot.pause()
        assert app.screen.query_one("#prompt-input")  # the pane asked for the new name
        await pilot.press("escape")
        await pilot.pause()
        assert app.messages == []


async def test_choosing_an_environment_sets_the_session_and_is_handed_up(collection: Path) -> None:
    app = PaneApp(Session.open(collection, "local"))
    async with app.run_test() as pilot:
        await pilot.click(EnvironmentLabel)
        await pilot.pause()
        await pilot.press("down", "enter")  # local is highlighted: staging is next
        await pilot.pause()
        assert app.session.environment == "staging"
        assert app.kinds() == ["EnvironmentChanged"]
        assert "staging" in str(app.pane.environment_label.render())
