"""The latency profile of the open request (alt+p, or "Profile request…" in the palette): how
many sends and how many at once are asked (50 and 1), then the sends go out through the
session (``Session.profile``) in a worker, with a live line (k of N, the p50 so far), and the
result is drawn (``widgets/profile_report.py``). escape stops a running profile, keeping what
finished, and closes the screen once none runs.

Each send runs the pre-request scripts and auth, as a send from the editor does, within the
request's timeout; the post-response scripts do not run, what scripts set is not kept, and
nothing goes to the history: a profile measures the request, it does not test it.
"""

from __future__ import annotations

import copy
import time
from typing import TYPE_CHECKING

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label

from pigeon.exchange import duration
from pigeon.profile import DEFAULT_AT_ONCE, DEFAULT_SENDS, MAX_AT_ONCE, MAX_SENDS, check_counts
from pigeon.terminal import printable
from pigeon.tui.css import beside
from pigeon.tui.widgets.profile_report import ProfileReport

if TYPE_CHECKING:
    from textual.screen import Screen

    from pigeon.model import Request
    from pigeon.profile import Profile, ProfileStats
    from pigeon.session import Session

PROGRESS_EVERY = 0.1  # seconds between two redraws of the live line
NOTE = (
    "Pre-request scripts and auth run per send, within the request's timeout; post-response "
    "scripts do not run; variables scripts set are dropped after; no history is kept."
)


class ProfileScreen(ModalScreen[None]):
    """The profile of one request; ``shown``: a result to show at once (nothing is sent)."""

    DEFAULT_CSS = beside(__file__)
    BINDINGS = [
        Binding("escape", "stop_or_close", "Stop / close", id="profile.close"),
    ]

    def __init__(
        self, session: Session, request: Request, shown: ProfileStats | None = None
    ) -> None:
        super().__init__()
        self.session = session
        self.request = request
        self.shown = shown
        self.running: Profile | None = None
        self._drawn_at = 0.0

    def compose(self) -> ComposeResult:
        request = self.request
        url = self.session.preview(request).url or request.url
        box = Vertical(id="profile-box")
        box.border_title = printable(f"Profile: {request.name}")
        box.border_subtitle = "enter: run · escape: stop, or close"
        with box:
            yield Label(printable(f"{request.method} {url}"), id="profile-url")
            with Horizontal(id="profile-form"):
                yield Label("Sends", classes="profile-label")
                yield Input(
                    str(DEFAULT_SENDS),
                    type="integer",
                    id="profile-sends",
                    compact=True,
                    tooltip=f"How many sends, 1 to {MAX_SENDS:,}",
                )
                yield Label("At once", classes="profile-label")
                yield Input(
                    str(DEFAULT_AT_ONCE),
                    type="integer",
                    id="profile-at-once",
                    compact=True,
                    tooltip=f"How many sends in flight at any moment, 1 to {MAX_AT_ONCE}",
                )
                yield Button("Run", id="profile-run", compact=True, variant="primary")
            yield Label(NOTE, id="profile-note")
            yield Label("", id="profile-progress")
            with VerticalScroll(id="profile-scroll"):
                yield ProfileReport(id="profile-report")

    def on_mount(self) -> None:
        self._progress("")
        sends = self.query_one("#profile-sends", Input)
        sends.focus()
        if self.shown is not None:
            self._show(self.shown)
            self.query_one("#profile-scroll").focus()

    # -- starting -----------------------------------------------------------------------------

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if event.input.id == "profile-sends":
            self.query_one("#profile-at-once", Input).focus()
        else:
            self.start()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.start()

    def _counts(self) -> tuple[int, int] | None:
        """The sends and at-once asked for, or ``None`` (the line says what is wrong)."""
        try:
            sends = int(self.query_one("#profile-sends", Input).value.strip())
            at_once = int(self.query_one("#profile-at-once", Input).value.strip())
        except ValueError:
            sends = at_once = 0
        problem = check_counts(sends, at_once)
        if problem:
            self._progress(problem.capitalize(), error=True)
            return None
        return sends, at_once

    def start(self) -> None:
        """Run a profile with the counts asked for (one at a time)."""
        if self.running is not None:
            return
        counts = self._counts()
        if counts is not None:
            self._run(*counts)

    @work(group="profile", exclusive=True, exit_on_error=False)
    async def _run(self, sends: int, at_once: int) -> None:
        from pigeon.tui.dialogs.trust import ensure_trust

        self._progress(f"Starting {sends:,} sends, {at_once} at once…")
        try:
            trusted = await ensure_trust(self.app, self.session, self.request)
            profile = await self.session.profile(self.request, trusted, sends, at_once)
        except Exception as exc:  # a secret that could not be read, a trust store unwritable
            self._progress(f"Not started: {exc}", error=True)
            return
        self.running = profile
        self._show(None)
        try:
            stats = await profile.run(self._heard)
        finally:
            self.running = None
        self._progress("")  # the result says it all, "Stopped" included
        self._show(stats)

    # -- while it runs ------------------------------------------------------------------------

    def _heard(self, profile: Profile) -> None:
        """A send finished: the live line, redrawn at most every ``PROGRESS_EVERY``."""
        now = time.monotonic()
        done = profile.samples.done
        if done < profile.sends and now - self._drawn_at < PROGRESS_EVERY:
            return
        self._drawn_at = now
        stats = profile.stats()
        line = f"{done:,} of {profile.sends:,} sent · p50 so far {duration(stats.percentile(50))}"
        if stats.failed:
            line += f" · {stats.failed:,} failed"
        self._progress(f"{line} · escape stops")

    def _progress(self, text: str, error: bool = False) -> None:
        label = self.query_one("#profile-progress", Label)
        label.update(printable(text))
        label.set_class(error, "-error")
        label.display = bool(text)  # no empty line above the result

    def _show(self, stats: ProfileStats | None) -> None:
        self.query_one(ProfileReport).show(stats)

    # -- stopping -----------------------------------------------------------------------------

    def action_stop_or_close(self) -> None:
        if self.running is not None:
            self.running.stop()
        else:
            self.workers.cancel_group(self, "profile")  # still asking trust or reading secrets
            self.dismiss(None)


def profile_request(screen: Screen[None], session: Session, request: Request | None) -> None:
    """Open the profile of ``request`` (a copy: edits made meanwhile do not change it); an
    HTTP request only."""
    if request is None:
        screen.notify("Choose a request to profile.", severity="warning")
        return
    url = session.preview(request).url.lower()
    if request.kind != "http" or url.startswith(("ws://", "wss://", "grpc://", "grpcs://")):
        screen.notify("A profile times HTTP requests only.", severity="warning")
        return
    screen.app.push_screen(ProfileScreen(session, copy.deepcopy(request)))
