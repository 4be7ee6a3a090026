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


class PaneApp(App[None]):
    """The pane alone: nothing is unsaved, so the guard runs its continuation at once (and
    counts the calls)."""

    def __init__(self, session: Session) -> None:
        super().__init__()
        self.session = session
        self.messages: list[Message] = []
        self.guarded = 0
        self.pane = CollectionPane(session, self.guard, lambda path: [], id="tree-pane")

    def compose(self) -> ComposeResult:
        yield self.pane

    def guard(self, folder: Path, then: Callable[[], None]) -> None:
        self.guarded += 1
        then()

    @on(CollectionPane.RequestCreated)
    @on(CollectionPane.CollectionChanged)
    @on(CollectionPane.RequestRenamed)
    @on(CollectionPane.RequestMoved)
    @on(CollectionPane.RequestDeleted)
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
        assert app.kinds() == ["RequestDeleted", "CollectionChanged"]
        deleted = app.messages[0]
        assert isinstance(deleted, CollectionPane.RequestDeleted)
        assert deleted.item.id == "users/create-user"
        assert deleted.before == collection / "users" / "create-user.toml"
        ids = [r.id for r in app.session.collection.requests()]
        assert "users/create-user" not in ids and "users/list-users" in ids


async def test_a_rename_and_a_move_are_handed_up_with_the_file_they_left(
    collection: Path,
) -> None:
    app = PaneApp(Session.open(collection, "local"))
    async with app.run_test() as pilot:
        highlight(app, "users/list-users")
        await pilot.pause()
        await pilot.press("r", "ctrl+u", *"All users", "enter")
        await pilot.pause()
        [renamed] = app.messages
        assert isinstance(renamed, CollectionPane.RequestRenamed)
        assert renamed.before == collection / "users" / "list-users.toml"
        assert renamed.item.path == collection / "users" / "all-users.toml"
        assert renamed.item.name == "All users"

        app.messages.clear()
        highlight(app, "users/all-users")
        await pilot.pause()
        await pilot.press("m")
        await pilot.pause()
        await pilot.press("home", "enter")  # the top level
        await pilot.pause()
        [moved] = app.messages
        assert isinstance(moved, CollectionPane.RequestMoved)
        assert moved.before == collection / "users" / "all-users.toml"
        assert moved.item.path == collection / "all-users.toml"
        assert app.guarded == 0  # a request's own move asks nothing


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
