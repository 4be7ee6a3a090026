"""The app's trust prompt with Pilot (DESIGN §8): asked once, it lists what the collection
wants and shows the path the trust store records; after "not now", a request that reads the
environment is refused with the reason in the status line and nothing reaches the server."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from textual.widgets import Label
from tui_support import main_screen, make_app, open_request, press_and_settle, running

from collection_files import write
from pigeon.config import TrustStore
from pigeon.echo import EchoServer
from pigeon.tui.dialogs.trust import TrustScreen
from pigeon.tui.widgets.editor.url_preview import UrlPreview
from servers import RecordingServer, recording_server

SECRET = "s3cret-from-the-environment"


@pytest.fixture
def server() -> Iterator[RecordingServer]:
    with recording_server() as s:
        yield s


@pytest.fixture
def linked(tmp_path: Path, server: RecordingServer, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A collection that reads the environment and runs a script, opened through a symlink
    (the path the user typed is not the path the trust store records)."""
    monkeypatch.setenv("PIGEON_SECRET", SECRET)
    root = tmp_path / "real"
    write(root, "collection.toml", 'name = "wants"\n')
    write(root, "leak.toml", f'name = "Leak"\nurl = "{server.url}/{{{{$env.PIGEON_SECRET}}}}"\n')
    write(
        root,
        "scripted.toml",
        f"name = \"Scripted\"\nurl = \"{server.url}/s\"\n[scripts]\npost_response = '''\nx = 1\n'''\n",
    )
    (tmp_path / "link").symlink_to(root)
    return tmp_path / "link"


def status(app) -> str:
    return str(main_screen(app).query_one("#status").render())


async def test_prompt_lists_the_needs_and_not_now_refuses_the_send(
    linked: Path, echo: EchoServer, server: RecordingServer
) -> None:
    app = make_app(linked, echo)
    async with running(app, "leak") as pilot:
        preview = main_screen(app).query_one(UrlPreview)  # what a send would send: no $env
        assert preview.url.endswith("/{{$env.PIGEON_SECRET}}") and SECRET not in preview.url
        assert preview.unresolved == ["$env.PIGEON_SECRET"]
        assert any("needs trust: reads $env.PIGEON_SECRET" in w for w in preview.warnings)
        await pilot.press("ctrl+r")
        await pilot.pause()
        assert isinstance(app.screen, TrustScreen)
        shown = str(app.screen.query_one("#trust-path", Label).render())
        assert shown == TrustStore.key(linked) == str(linked.resolve())
        wants = str(app.screen.query_one("#trust-wants", Label).render())
        assert "Python scripts: scripted.toml [scripts.post_response]" in wants
        assert "environment variables: PIGEON_SECRET" in wants
        await press_and_settle(pilot, "n")
        assert "needs trust: reads $env.PIGEON_SECRET from the process environment" in status(app)
        assert main_screen(app).last_exchange is None
        assert server.connections == 0
        assert not TrustStore().is_trusted(linked)

        copied: list[str] = []
        app.copy_to_clipboard = copied.append  # type: ignore[method-assign]
        await press_and_settle(pilot, "f3")  # a copied curl command leaves the app too
        assert copied == []
        messages = [n.message for n in app._notifications]
        assert any(m.startswith("Cannot export: needs trust: reads $env") for m in messages)

        await open_request(pilot, "scripted")  # sent without its script, and the app says so
        await press_and_settle(pilot, "ctrl+r")
        assert not isinstance(app.screen, TrustScreen)  # asked once
        assert main_screen(app).last_exchange.status == 204
        assert "post-response scripts skipped: the collection is not trusted" in status(app)


async def test_trust_records_the_shown_path_and_sends(
    linked: Path, echo: EchoServer, server: RecordingServer
) -> None:
    app = make_app(linked, echo)
    async with running(app, "leak") as pilot:
        await pilot.press("ctrl+r")
        await pilot.pause()
        assert isinstance(app.screen, TrustScreen)
        await press_and_settle(pilot, "t")
        assert TrustStore().trusted() == [linked.resolve()]
        assert main_screen(app).last_exchange.status == 204
        assert f"/{SECRET} ".encode() in server.requests[0]
        preview = main_screen(app).query_one(UrlPreview)  # trusted: as sent
        assert preview.url.endswith(f"/{SECRET}") and not preview.unresolved


async def test_a_refusal_in_the_app_names_the_palette_command_that_trusts(
    linked: Path, echo: EchoServer, server: RecordingServer
) -> None:
    from tui_support import wait_for

    app = make_app(linked, echo)
    async with running(app, "leak", size=(200, 40)) as pilot:
        await pilot.press("ctrl+r")
        await pilot.pause()
        await press_and_settle(pilot, "n")  # not now: refused
        shown = status(app)
        assert "ctrl+p, then “Trust this collection…”" in shown, shown
        assert "--trust" not in shown
        titles = [c.title for c in app.get_system_commands(main_screen(app))]
        assert "Trust this collection…" in titles
        await pilot.press("ctrl+p")
        await pilot.pause()
        await pilot.press(*"Trust this collection")
        await pilot.pause(0.3)
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, TrustScreen))
        await pilot.press("t")
        await wait_for(pilot, lambda: TrustStore().is_trusted(linked))
        assert "Trust this collection…" not in [
            c.title for c in app.get_system_commands(main_screen(app))
        ]
        await press_and_settle(pilot, "ctrl+r")  # sent now
        assert main_screen(app).last_exchange.status == 204
