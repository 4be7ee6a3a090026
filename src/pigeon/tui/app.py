"""The Pigeon app (DESIGN §9): themes, keys, config and quitting; the main screen
(``screens/main.py``) wires the panes (``widgets/``)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Sequence
from dataclasses import replace
from functools import partial
from pathlib import Path

from rich.terminal_theme import TerminalTheme
from textual import events, work
from textual.app import SystemCommand
from textual.binding import Binding
from textual.filter import LineFilter
from textual.notifications import SeverityLevel
from textual.screen import Screen
from textual.theme import Theme

from pigeon.config import AppConfig, ConfigError
from pigeon.errors import OpenError
from pigeon.model import SecretSource
from pigeon.session import Session, demo_collection_dir
from pigeon.tui import start_gc
from pigeon.tui.alt_keys import read_alt_as_alt
from pigeon.tui.control_filter import ControlCharacters
from pigeon.tui.key_order import KeysInOrder

# How a refusal of an untrusted collection says to trust it, in the app: the palette command
# that opens the trust prompt (``--trust`` is the command line's way).
HOW_IN_APP = "trust it in the app: ctrl+p, then “Trust this collection…”"


class PigeonApp(KeysInOrder):
    # Absolute paths (subclasses live elsewhere). The main screen's rules load with the app's:
    # a screen with its own CSS_PATH would re-parse every stylesheet when it is pushed.
    CSS_PATH = [
        Path(__file__).with_name("app.tcss"),
        Path(__file__).parent / "screens" / "main.tcss",
    ]
    TITLE = "Pigeon"
    BINDINGS = [
        Binding("ctrl+q", "quit", "Quit", id="quit", priority=True),
        Binding("f1,question_mark", "help", "Help", id="help"),
        # One footer entry stands for the four (after help: on a narrow line it goes first).
        # alt+digit reaches the app through tmux and screen as ESC then the digit
        # (``tui/alt_keys``); priority, since a text field would type the digit it carries.
        Binding(
            "alt+1",
            "focus_pane('tree')",
            "Panes",
            id="pane.tree",
            priority=True,
            key_display="alt+1…4",
            tooltip="Go to the tree (or the history)",
        ),
        Binding(
            "alt+2",
            "focus_pane('editor')",
            "Editor",
            id="pane.editor",
            priority=True,
            show=False,
            tooltip="Go to the request editor's open tab",
        ),
        Binding(
            "alt+3",
            "focus_pane('response')",
            "Response",
            id="pane.response",
            priority=True,
            show=False,
            tooltip="Go to the response's open tab",
        ),
        Binding(
            "alt+4",
            "focus_pane('variables')",
            "Variables",
            id="pane.variables",
            priority=True,
            show=False,
            tooltip="Go to the variables pane",
        ),
        Binding(
            "ctrl+e",
            "edit_externally",
            "$EDITOR",
            id="edit_externally",
            priority=True,  # before the text field's own ctrl+e (end of line: end does it too)
            show=False,
            tooltip="Edit the focused text in your editor ($VISUAL, $EDITOR or vi)",
        ),
        Binding(
            "ctrl+p",
            "command_palette",
            "Palette",
            id="palette",
            show=False,
            tooltip="Open the palette: change the theme, reload the collection, or run any "
            "action that works where you are",
        ),
    ]

    def __init__(
        self,
        session: Session,
        *,
        config: AppConfig | None = None,
        theme_dirs: list[Path] | None = None,
        remember_theme: bool = True,
    ) -> None:
        super().__init__()
        read_alt_as_alt()  # before the driver reads a key: alt+1…4 through tmux and screen
        self.session = session
        session.trust_how = HOW_IN_APP  # a refusal names the app's way to trust, not --trust
        session.ask_secret = self._ask_secret
        if config is not None:
            session.config = config
        self._theme_dirs = theme_dirs
        self._remember_theme = remember_theme
        self.startup_problems: list[str] = []
        if unknown := session.collection.warnings:  # a key its files hold that is not read
            more = f" (and {len(unknown) - 1} more: pigeon check lists them)"
            self.startup_problems.append(f"{unknown[0]}{more if len(unknown) > 1 else ''}")
        self.frames_written = asyncio.Event()
        """Set once frames reach the terminal: Textual draws the first screen during its
        start-up batch and writes none of what it draws then."""
        # Before the first stylesheet parse: a theme set later re-parses every stylesheet.
        self._register_themes()

    _controls = ControlCharacters()

    def get_line_filters(self) -> Sequence[LineFilter]:
        """Textual's filters, then one that no text can pass a control character through."""
        return [*super().get_line_filters(), self._controls]

    # -- start --------------------------------------------------------------------------------

    async def _ask_secret(self, source: SecretSource) -> str | None:
        """A prompt secret (DESIGN §11), asked in its masked dialog once a session."""
        from pigeon.tui.dialogs.secret_prompt import ask_in

        return await ask_in(self)(source)

    def on_mount(self) -> None:
        from pigeon.tui.screens.main import MainScreen

        self._apply_keymap()
        self.push_screen(MainScreen(self.session))
        self.set_timer(2.0, start_gc.resume)  # should a dialog come before the main screen
        self.theme_changed_signal.subscribe(self, self._remember)
        for problem in self.startup_problems:
            self.notify(problem, severity="warning", timeout=10)

    def on_ready(self) -> None:
        self.frames_written.set()

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = True,
    ) -> None:
        """Notify, and keep the message in the log (f2): a toast goes away, and a long one
        may not show whole."""
        self.session.add_log(title or severity, message)
        super().notify(message, title=title, severity=severity, timeout=timeout, markup=markup)

    @property
    def config(self) -> AppConfig:
        """The user's ``config.toml`` (defaults when it is missing or broken)."""
        return self.session.config

    def _register_themes(self) -> None:
        from pigeon.tui.themes import DEFAULT_THEME, bundled_theme_dirs, load_themes

        dirs = self._theme_dirs
        if dirs is None:
            dirs = bundled_theme_dirs()
            dirs.append(self.config.config_dir / "themes")
        loaded = load_themes(dirs)
        self.startup_problems.extend(loaded.problems)
        for theme in loaded.themes:
            self.register_theme(theme)
        wanted = self.config.theme or DEFAULT_THEME
        if wanted in self.available_themes:
            self.theme = wanted
        elif DEFAULT_THEME in self.available_themes:
            self.theme = DEFAULT_THEME
            self.startup_problems.append(f"theme {wanted!r} not found; using {DEFAULT_THEME}")

    _ansi_palette: tuple[Theme, TerminalTheme] | None = None

    @property
    def ansi_theme(self) -> TerminalTheme:
        """Text styled with a terminal colour's name (``red``) takes the theme's colours.
        Read on each repaint: built once a theme."""
        from pigeon.tui.themes import ansi_palette

        theme = self.current_theme
        if self._ansi_palette is None or self._ansi_palette[0] is not theme:
            self._ansi_palette = (theme, ansi_palette(theme))
        return self._ansi_palette[1]

    def _apply_keymap(self) -> None:
        table = self.config.keys
        if not table:
            return  # collecting the ids imports every widget module: only when needed
        from pigeon.tui.keys import keymap_from_config

        keymap, problems = keymap_from_config(table, self.binding_ids())
        self.startup_problems.extend(problems)
        if keymap:
            self.set_keymap(keymap)

    def _remember(self, theme: Theme) -> None:
        """The theme changed (the palette's theme picker): repaint the method badges and keep
        the choice for next time."""
        if isinstance(self.screen, Screen):
            for tree in self.screen.query("CollectionTree"):
                tree.refresh_labels()  # type: ignore[attr-defined]
        if not self._remember_theme:
            return
        try:
            self.config.theme = theme.name
            self.config.save()
        except Exception as exc:  # a read-only config folder must not break theming
            self.notify(f"Could not remember the theme: {exc}", severity="warning")

    # -- keys and help ------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "focus_pane":
            return hasattr(self.screen, "focus_pane")  # the main screen, not a dialog
        if action == "edit_externally":
            from pigeon.tui.external_edit import editable

            return editable(self.focused)
        return True

    def action_focus_pane(self, pane: str) -> None:
        self.screen.focus_pane(pane)  # type: ignore[attr-defined]

    def action_edit_externally(self) -> None:
        from pigeon.tui.external_edit import edit_focused

        edit_focused(self)

    def before_passing(self, event: events.Event) -> events.Event:
        """Several lines pasted into a one-line field arrive joined by spaces, with a word; a
        paste too large for one arrives empty, with a word."""
        if not isinstance(event, events.Paste):
            return event
        from pigeon.bodies import human_size
        from pigeon.tui.one_line_paste import PASTE_LIMIT, joined, too_large

        if too_large(self.focused, event.text):
            size = human_size(len(event.text.encode("utf-8", "surrogateescape")))
            self.notify(
                f"Not pasted: {size} is more than the {human_size(PASTE_LIMIT)} a one-line "
                "field takes in one paste.",
                severity="warning",
                timeout=8,
            )
            pasted = events.Paste("")
            pasted.set_sender(self)
            return pasted
        one = joined(self.focused, event.text)
        if one is None:
            return event
        text, lines = one
        self.notify(f"Pasted {lines} lines as one: this field holds one line.")
        pasted = events.Paste(text)
        pasted.set_sender(self)
        return pasted

    def get_key_display(self, binding: Binding) -> str:
        """The footer's one entry for alt+1…4 names its own key once a pane key is remapped."""
        if binding.id == "pane.tree" and any(i.startswith("pane.") for i in self._keymap):
            binding = replace(binding, key_display=None)
        return super().get_key_display(binding)

    @staticmethod
    def help_groups() -> list[tuple[str, type]]:
        from pigeon.tui.screens.main import MainScreen
        from pigeon.tui.vim_keys import VimMoves
        from pigeon.tui.widgets.collection.collection_tree import CollectionTree
        from pigeon.tui.widgets.editor.body_editor import BodyEditor
        from pigeon.tui.widgets.editor.examples_editor import ExampleTable
        from pigeon.tui.widgets.editor.graphql_editor import GraphQLEditor
        from pigeon.tui.widgets.editor.grpc_message_editor import GrpcMessageEditor
        from pigeon.tui.widgets.editor.grpc_rpc_picker import GrpcRpcPicker
        from pigeon.tui.widgets.editor.pair_table import PairTable
        from pigeon.tui.widgets.editor.request_variables import RequestVariables
        from pigeon.tui.widgets.editor.url_bar import UrlInput
        from pigeon.tui.widgets.response.body_panel import BodyPanel
        from pigeon.tui.widgets.response.body_view import BodyView
        from pigeon.tui.widgets.response.events_panel import EventsPanel
        from pigeon.tui.widgets.response.folding_view import FoldingBodyView
        from pigeon.tui.widgets.response.grpc_view import GrpcView
        from pigeon.tui.widgets.response.response_pane import ResponsePane
        from pigeon.tui.widgets.response.websocket_view import MessageComposer, WebSocketView
        from pigeon.tui.widgets.variables.variables_pane import VariablesPane

        return [
            ("Everywhere", PigeonApp),
            ("Main screen", MainScreen),
            ("Collection tree", CollectionTree),
            ("URL bar (up/down: method, right: accept completion)", UrlInput),
            ("Headers, query and form tables", PairTable),
            ("Body", BodyEditor),
            ("GraphQL body", GraphQLEditor),
            ("gRPC method (RPC tab)", GrpcRpcPicker),
            ("gRPC message and stream messages", GrpcMessageEditor),
            ("Request variables", RequestVariables),
            ("Examples (pigeon mock serves them)", ExampleTable),
            ("Variables pane", VariablesPane),
            ("Response", ResponsePane),
            ("Response body", BodyPanel),
            ("Response body view", BodyView),
            ("WebSocket (ctrl+r connects and closes)", WebSocketView),
            ("WebSocket message", MessageComposer),
            ("gRPC call (ctrl+r calls and stops, as does esc)", GrpcView),
            ("Response body tree (JSON, HTML, XML)", FoldingBodyView),
            ("Response events (text/event-stream)", EventsPanel),
            ("Lists: the tree, tables, history, variables, a body (vim-style)", VimMoves),
        ]

    def binding_ids(self) -> set[str]:
        from pigeon.tui.keys import known_ids

        return known_ids(cls for _, cls in self.help_groups())

    def action_help(self) -> None:
        from pigeon.tui.keys import help_sections
        from pigeon.tui.screens.help import HelpScreen

        if isinstance(self.screen, HelpScreen):
            return
        sections = help_sections(self.help_groups(), self._keymap)
        moving = [
            ("tab, shift+tab", "Go to the next or the previous part of the screen", ""),
            ("←, →", "On a strip of tabs: the previous or the next tab", ""),
        ]
        sections[:0] = [("Moving around", moving)]
        self.push_screen(HelpScreen(sections))

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        """The palette: the theme picker, then every described binding of the focused widget,
        its panes, the screen and the app (generated, so it cannot drift from the keys), then
        the commands that have no key."""
        from pigeon.tui.keys import palette_actions
        from pigeon.tui.screens.main import MainScreen

        yield SystemCommand(
            "Theme", "Change the colour theme (remembered for next time)", self.action_change_theme
        )
        focused = screen.focused
        nodes = focused.ancestors_with_self if focused is not None else [screen, self]
        offered = palette_actions(nodes, self.help_groups(), self._keymap)
        for entry in offered:
            yield SystemCommand(
                entry.title, entry.help, partial(self.run_action, entry.action, entry.node)
            )
        if isinstance(screen, MainScreen):
            yield SystemCommand(
                "Reload collection", "Read the collection from disk again", self.action_reload
            )
            yield from screen.collection_pane.environment_commands()
            yield SystemCommand(
                "New collection…",
                "Make a collection in a new directory (as pigeon new) and open it",
                self.action_new_collection,
            )
            if not self.session.is_trusted():
                yield SystemCommand(
                    "Trust this collection…",
                    "Let its scripts run and its requests read the environment and files",
                    self.action_trust,
                )
            if not any(entry.binding_id == "vars.clear_runtime" for entry in offered):
                yield SystemCommand(
                    "Clear runtime variables",
                    "Forget the variables scripts have set",
                    self.action_clear_runtime,
                )
        yield SystemCommand(
            "Screenshot",
            "Save an SVG picture of the screen",
            lambda: self.set_timer(0.1, self.deliver_screenshot),
        )

    @work(group="trust")
    async def action_trust(self) -> None:
        """The trust prompt, asked for: what the collection wants, then a yes recorded."""
        from pigeon.tui.dialogs.trust import TrustScreen

        session = self.session
        if session.is_trusted():
            self.notify("This collection is trusted already.")
            return
        wants = await asyncio.to_thread(session.trust_wants)  # renders every request
        if await self.push_screen_wait(TrustScreen(session.trust_key(), wants)):
            session.trust()
            self.notify("Trusted: its scripts run and it may read the environment and files.")

    def action_reload(self) -> None:
        from pigeon.tui.screens.main import MainScreen

        screen = self.screen
        if not isinstance(screen, MainScreen):
            return

        def reload() -> None:
            problems = self.session.reload()
            screen.reload_collection()
            self.notify(f"Reloaded; {len(problems)} broken file(s)." if problems else "Reloaded.")

        screen.guard_unsaved(reload)

    def action_new_collection(self) -> None:
        """Ask for a directory, make a collection there and open it in place of this one."""
        from pigeon.store.scaffold import new_collection
        from pigeon.tui.dialogs.prompt import PromptScreen

        def named(text: str | None) -> None:
            if not text:
                return
            directory = Path(text).expanduser()
            try:
                new_collection(directory)
            except Exception as exc:
                self.notify(f"No collection made: {exc}", severity="error", timeout=10)
                return
            self.open_collection(directory)

        prompt = PromptScreen("New collection in directory", placeholder="~/apis/my-api")
        self.push_screen(prompt, named)

    def open_collection(self, root: Path) -> None:
        """Open the collection at ``root`` in place of this one, once unsaved edits are saved
        or discarded; the old one's connections, script worker and echo server are closed."""
        from pigeon.store import LoadError
        from pigeon.terminal import printable
        from pigeon.tui.screens.main import MainScreen

        screen = self.screen
        if not isinstance(screen, MainScreen):
            return

        def switch() -> None:
            try:
                session = Session.open(root)
            except LoadError as exc:
                self.notify(f"Not opened: {exc}", severity="error", timeout=10)
                return
            session.config = self.session.config
            session.trust_how = HOW_IN_APP
            session.ask_secret = self._ask_secret
            old, self.session = self.session, session
            self.switch_screen(MainScreen(session))
            self.run_worker(old.close(), exit_on_error=False)
            self.notify(f"Opened {printable(session.collection.name)} ({root})", markup=False)

        screen.guard_unsaved(switch)

    def action_clear_runtime(self) -> None:
        from pigeon.tui.screens.main import MainScreen

        if isinstance(self.screen, MainScreen):
            self.screen.clear_runtime()

    # -- quit ---------------------------------------------------------------------------------

    async def action_quit(self) -> None:
        from pigeon.tui.screens.main import MainScreen

        main = next((s for s in self.screen_stack if isinstance(s, MainScreen)), None)
        if main is None:
            self.exit(0)
            return
        while self.screen is not main:  # close help, log or a dialog first
            await self.pop_screen()
        main.guard_unsaved(lambda: self.exit(0))

    async def on_unmount(self) -> None:
        await self.session.close()


def _load_config() -> tuple[AppConfig, list[str]]:
    """The user's config (theme, keys); a broken file is reported and the defaults used (as
    the command line does), so the app always has one."""
    try:
        config = AppConfig.load()
    except ConfigError as exc:  # a broken config.toml names its file, line and column
        return AppConfig(), [f"config not loaded: {exc}"]
    return config, list(config.problems)


def open_session(collection_dir: Path | None, env: str | None, echo_port: int = 0) -> Session:
    """Open a collection; with no directory, the demo with its own echo server on a free
    loopback port, whose URL overrides ``base_url`` at the highest scope."""
    from pigeon.store import LoadError

    echo = None
    if collection_dir is None:
        collection_dir = demo_collection_dir()
        if collection_dir is None:
            raise OpenError("the demo collection is not installed; pass a collection directory")
        from pigeon.session import DemoEcho

        try:
            echo = DemoEcho(echo_port)  # serves once the main screen is up
        except OSError as exc:
            raise OpenError(f"cannot start the demo's echo server: {exc}") from exc
    try:
        session = Session.open(collection_dir, env)
        if env and env not in session.collection.environments:
            known = ", ".join(session.environment_names()) or "none"
            raise OpenError(f"unknown environment {env!r} (known: {known})")
    except (LoadError, OpenError) as exc:
        if echo is not None:
            echo.stop()
        raise OpenError(str(exc)) from exc
    if echo is not None:
        session.echo = echo
        session.overrides["base_url"] = echo.url
        session.overrides_label = "the demo's echo server"
    return session


def run_app(collection_dir: Path | None, env: str | None) -> int:
    """``pigeon [DIR]``: open a collection (default: the demo) in the app; the exit code.
    ``OpenError`` when it does not open, which the command line reports (exit 2)."""
    config, problems = _load_config()
    session = open_session(collection_dir, env, config.echo_port)
    app = PigeonApp(session, config=config)
    app.startup_problems.extend(problems)
    try:
        result = app.run()
    finally:
        if session.echo is not None:
            session.echo.stop()
    return int(result or 0)
