"""Alt+1…4 move between panes however the terminal sends Alt: tmux, screen and most Linux
terminals send ESC then the digit, which Textual read as the macOS Option characters
(``¡ ™ £ ¢``) and typed into the focused field."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from textual._xterm_parser import XTermParser

from pigeon.session import demo_collection_dir
from pigeon.tui.alt_keys import read_alt_as_alt


def keys_read(data: str) -> list[tuple[str, str | None]]:
    """The keys Textual's parser reads from ``data`` arriving alone, as one keypress does."""
    parser = XTermParser()
    events = list(parser.feed(data))
    events += list(parser.feed(""))  # the pause after it: a lone ESC sequence ends there
    return [(e.key, e.character) for e in events]  # type: ignore[attr-defined]


def test_esc_then_a_digit_is_read_as_alt_and_a_typed_character_stays_a_character() -> None:
    read_alt_as_alt()
    for digit in "1234":
        assert keys_read(f"\x1b{digit}") == [(f"alt+{digit}", digit)]
    assert keys_read("¡")[0][1] == "¡"  # a Spanish keyboard's key, sent without ESC


def capture(server: list[str], target: str) -> str:
    return subprocess.run(
        [*server, "capture-pane", "-p", "-t", target], capture_output=True, text=True, timeout=10
    ).stdout


def wait_screen(server: list[str], target: str, holds, timeout: float = 30.0) -> str:
    deadline = time.monotonic() + timeout
    while True:
        screen = capture(server, target)
        if holds(screen) or time.monotonic() > deadline:
            return screen
        time.sleep(0.1)


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
def test_alt_digits_move_between_panes_under_tmux(tmp_path: Path) -> None:
    """A real pty under tmux: a request is opened (the focus lands in its URL), then tmux's
    M-1 goes to the tree, `j` and enter open the next request. Before, M-1 typed ``¡`` into
    the URL, and `j` and enter followed it there."""
    demo = demo_collection_dir()
    assert demo is not None
    root = tmp_path / "demo"
    shutil.copytree(demo, root, ignore=shutil.ignore_patterns(".pigeon"))
    server = ["tmux", "-L", f"pigeon-test-{os.getpid()}", "-f", os.devnull]
    env = {
        "HOME": str(tmp_path),
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
        "XDG_DATA_HOME": str(tmp_path / "data"),
        "TERM": "xterm-256color",
    }
    command = " ".join(
        ["env", *(f"{k}={v}" for k, v in env.items()), sys.executable, "-m", "pigeon", str(root)]
    )
    subprocess.run(
        [*server, "new-session", "-d", "-s", "t", "-x", "120", "-y", "40", command],
        check=True,
        timeout=10,
    )
    try:
        wait_screen(server, "t", lambda s: "Log in" in s and "Request" in s)
        send = [*server, "send-keys", "-t", "t"]
        subprocess.run([*send, "Down", "Down", "Enter"], check=True, timeout=10)
        opened = wait_screen(server, "t", lambda s: "Request: Log in" in s)
        assert "Request: Log in" in opened, opened
        for keys in (["M-1"], ["j"], ["Enter"]):
            subprocess.run([*send, *keys], check=True, timeout=10)
            time.sleep(0.3)  # each key on its own, as typed
        screen = wait_screen(server, "t", lambda s: "Request: Who am I" in s)
        assert "Request: Who am I" in screen, screen
        assert not set("¡™£¢") & set(screen), screen
    finally:
        subprocess.run([*server, "kill-server"], capture_output=True, timeout=10)
