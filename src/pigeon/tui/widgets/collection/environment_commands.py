"""Making, renaming and deleting environments from the app: the chooser's ``n``, ``r`` and
``d`` and the palette's commands. Each change goes through ``pigeon.store``; a refusal is a
message. The collection pane owns one of these and is told which environment is in use."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

from pigeon.values import check_name

if TYPE_CHECKING:
    from textual.app import SystemCommand
    from textual.widget import Widget

    from pigeon.session import Session


class EnvironmentCommands:
    """``widget`` shows the dialogs and messages; ``use`` makes an environment the one in
    use ("": none), as choosing it would."""

    def __init__(self, session: Session, widget: Widget, use: Callable[[str], None]) -> None:
        self.session, self.widget, self.use = session, widget, use

    def commands(self) -> Iterator[SystemCommand]:
        """The palette's commands; rename and delete act on the environment in use."""
        from textual.app import SystemCommand

        current = self.session.environment
        yield SystemCommand("New environment…", "Make an environment and use it", self.new)
        if current:
            yield SystemCommand(
                "Rename environment…",
                f"Rename {current}, the environment in use",
                lambda: self.rename(current),
            )
            yield SystemCommand(
                "Delete environment…",
                f"Delete {current}, the environment in use, and its file",
                lambda: self.delete(current),
            )

    def _check(self, keep: str = "") -> Callable[[str], str | None]:
        """The prompt's check: a valid name no other environment has."""

        def check(value: str) -> str | None:
            try:
                check_name(value)
            except ValueError:
                return "letters, digits, _ . - only"
            if value != keep and value in self.session.collection.environments:
                return f"{value} exists already"
            return None

        return check

    def _store(self, what: str, call: Callable[[], object]) -> bool:
        try:
            call()
        except Exception as exc:
            self.widget.notify(f"{what} failed: {exc}", severity="error", timeout=8)
            return False
        return True

    def new(self) -> None:
        """Ask for a name, make ``environments/NAME.toml`` and use it."""
        from pigeon import store
        from pigeon.tui.dialogs.prompt import PromptScreen

        def named(name: str | None) -> None:
            col = self.session.collection
            if name and self._store("New environment", lambda: store.create_environment(col, name)):
                self.use(name)

        prompt = PromptScreen("New environment", placeholder="staging", check=self._check())
        self.widget.app.push_screen(prompt, named)

    def rename(self, name: str) -> None:
        """Ask for a new name for environment ``name``; the one in use follows."""
        from pigeon import store
        from pigeon.tui.dialogs.prompt import PromptScreen

        if not self._exists(name, "rename"):
            return

        def named(new: str | None) -> None:
            col = self.session.collection
            if not new or new == name:
                return
            if self._store("Rename", lambda: store.rename_environment(col, name, new)):
                if self.session.environment == name:
                    self.use(new)
                self.widget.notify(f"Renamed environment {name} to {new}.")

        prompt = PromptScreen(f"Rename environment {name}", name, check=self._check(name))
        self.widget.app.push_screen(prompt, named)

    def delete(self, name: str) -> None:
        """Delete environment ``name`` and its file, once confirmed."""
        from pigeon import store
        from pigeon.tui.dialogs.confirm import ConfirmScreen

        if not self._exists(name, "delete"):
            return
        env = self.session.collection.environments[name]
        where = env.path.relative_to(self.session.root).as_posix() if env.path else name

        def answered(yes: bool | None) -> None:
            col = self.session.collection
            if yes and self._store("Delete", lambda: store.delete_environment(col, name)):
                if self.session.environment == name:
                    self.use("")
                self.widget.notify(f"Deleted environment {name}.")

        message = f"Delete environment {name} and {where}? Its variables are lost."
        self.widget.app.push_screen(
            ConfirmScreen("Delete environment", message, yes="Delete"), answered
        )

    def _exists(self, name: str, doing: str) -> bool:
        if name in self.session.collection.environments:
            return True
        self.widget.notify(f"Choose an environment to {doing} (f4 lists them).", severity="warning")
        return False
