"""Secrets in the app (DESIGN §11) with Pilot: a prompt secret asked once a session in a masked
dialog, and the variables pane showing a secret's source, its value only when ``v`` asks."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from textual.widgets import Input
from tui_support import main_screen, make_app, press_and_settle, running, wait_for

from collection_files import write
from pigeon.config import TrustStore
from pigeon.echo import EchoServer
from pigeon.tui.dialogs.secret_prompt import SecretPromptScreen
from pigeon.tui.widgets.variables.variables_pane import VariablesPane

VALUE = "cmd-value-0123456789abcdef0123456789"


def secret_collection(root: Path) -> Path:
    half = len(VALUE) // 2  # the command's text does not hold the value it prints
    code = f"print({VALUE[:half]!r} + {VALUE[half:]!r})"
    argv = json.dumps([sys.executable, "-c", code])
    write(
        root,
        "collection.toml",
        f'[secrets]\notp = {{ prompt = "One-time code" }}\ntok = {{ command = {argv} }}\n',
    )
    write(
        root,
        "r.toml",
        'url = "{{base_url}}/x/{{otp}}"\n\n[[headers]]\nname = "X-T"\nvalue = "{{tok}}"\n',
    )
    TrustStore().trust(root)
    return root


async def test_a_prompt_secret_is_asked_once_in_a_masked_dialog(
    tmp_path: Path, echo: EchoServer
) -> None:
    root = secret_collection(tmp_path / "c")
    app = make_app(root, echo)
    async with running(app, "r") as pilot:
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: isinstance(app.screen, SecretPromptScreen))
        field = app.screen.query_one("#secret-input", Input)
        assert field.password
        assert "One-time code" in str(app.screen.query("Label")[1].render())
        await pilot.press(*"a1", "enter")
        await wait_for(pilot, lambda: main_screen(app).last_exchange is not None)
        await press_and_settle(pilot)
        exchange = main_screen(app).last_exchange
        assert exchange is not None and exchange.status == 200
        assert exchange.json()["path"] == "/x/a1"
        assert VALUE in json.dumps(exchange.json()["headers"])
        await press_and_settle(pilot, "ctrl+r")  # asked once a session
        assert not isinstance(app.screen, SecretPromptScreen)
        again = main_screen(app).last_exchange
        assert again is not None and again is not exchange
        assert again.json()["path"] == "/x/a1"
    stored = [p.read_bytes() for p in (root / ".pigeon").rglob("*") if p.is_file()]
    assert stored and not any(VALUE.encode() in data for data in stored)
    # A short answer is masked where it went; a server's echo of it is out of reach of any
    # search (DESIGN §7), so the request as recorded is what is checked.
    entries = [json.loads(p.read_text()) for p in (root / ".pigeon").rglob("*.json")]
    requests = [e["request"] for e in entries if isinstance(e, dict) and "request" in e]
    assert requests and all(r["url"].endswith("/x/•••") for r in requests)


async def test_the_variables_pane_shows_a_secrets_source_not_its_value(
    tmp_path: Path, echo: EchoServer
) -> None:
    root = secret_collection(tmp_path / "c")
    app = make_app(root, echo)
    async with running(app, "r") as pilot:
        pane = main_screen(app).query_one(VariablesPane)

        def label(name: str) -> str:
            node = next(n for n in pane.root.children if n.data is not None and n.data.name == name)
            return str(node.label)

        assert f"tok = command: {sys.executable} -c" in label("tok")
        assert "secret" in label("tok") and VALUE not in label("tok")
        assert "otp = prompt" in label("otp")
        pane.focus()
        await pilot.press("v")
        await pilot.pause()
        assert VALUE in label("tok")  # read when asked, the collection being trusted
        assert "prompt  (not read yet)" in label("otp")
        await pilot.press("v")
        await pilot.pause()
        assert VALUE not in label("tok")


async def test_f4_offers_global_environments_marked_as_global(
    tmp_path: Path, echo: EchoServer
) -> None:
    import os

    from textual.widgets import OptionList

    from pigeon.tui.dialogs.environments import EnvironmentScreen

    home = Path(os.environ["XDG_CONFIG_HOME"]) / "pigeon"
    write(home, "environments/shared.toml", '[variables]\nstage = "global"\n')
    write(home, "environments/dev.toml", '[variables]\nstage = "global-dev"\n')
    root = secret_collection(tmp_path / "c")
    write(root, "environments/dev.toml", '[variables]\nstage = "dev"\n')
    app = make_app(root, echo)
    async with running(app, "r") as pilot:
        await pilot.press("f4")
        await wait_for(pilot, lambda: isinstance(app.screen, EnvironmentScreen))
        options = app.screen.query_one(OptionList)
        shown = [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]
        assert shown == ["(no environment)", "dev  + global", "shared  global"]


async def test_the_preview_shows_a_secret_not_yet_read_as_a_mask_and_reads_nothing(
    tmp_path: Path, echo: EchoServer
) -> None:
    from pigeon.tui.widgets.editor.url_preview import UrlPreview

    root = secret_collection(tmp_path / "c")
    write(root, "r.toml", 'url = "{{base_url}}/x/{{tok}}"\n')
    app = make_app(root, echo)
    async with running(app, "r") as pilot:
        await pilot.pause()
        assert main_screen(app).query_one(UrlPreview).url == f"{echo.url}/x/•••"
        assert app.session.vault.values() == []
