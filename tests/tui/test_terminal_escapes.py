"""Text from a hostile collection never drives the terminal: the app runs in a real pty and
every byte it writes is read back.

The collection's name, a folder, a request's name and its file name carry an OSC sequence that
sets the window title, a clear-screen sequence and C1 controls. What reaches the terminal may
show them as text, never as the sequences themselves.
"""

from __future__ import annotations

import contextlib
import os
import pty
import select
import signal
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from tests.collection_files import write

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="needs a pty")

TITLE = "\x1b]2;PWNED\x07"
CLEAR = "\x1b[2J\x1b[H"
C1_TITLE = "\x9d0;PWNED\x9c"


def hostile_collection(root: Path) -> Path:
    write(root, "collection.toml", 'name = "shop\\u001b]2;PWNED\\u0007"\n')
    write(root, "users/folder.toml", 'name = "users\\u001b[2J\\u001b[H"\n')
    write(
        root,
        "users/list.toml",
        'name = "list\\u009d0;PWNED\\u009c"\nmethod = "GET"\nurl = "http://127.0.0.1:9/\\u001b]2;PWNED\\u0007"\n',
    )
    write(root, f"users/x{TITLE}.toml", 'method = "GET"\nurl = "http://127.0.0.1:9/"\n')
    return root


def read_until(fd: int, out: bytearray, done, deadline: float) -> None:
    while time.monotonic() < deadline and not done(out):
        ready, _, _ = select.select([fd], [], [], 0.1)
        if ready:
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                return
            if not chunk:
                return
            out.extend(chunk)


def pigeon_on_a_pty(args: list[str], env: dict[str, str], drawn: Callable[[bytes], bool]) -> bytes:
    """Run ``pigeon ARGS`` in a pty until what it wrote is ``drawn``, quit it with ctrl+q and
    return every byte it wrote."""
    pid, fd = pty.fork()
    if pid == 0:  # the child: the app, in the pty
        os.execve(sys.executable, [sys.executable, "-m", "pigeon", *args], env)
    out = bytearray()
    try:
        read_until(fd, out, drawn, time.monotonic() + 30)
        os.write(fd, b"\x11")  # ctrl+q
        read_until(fd, out, lambda b: False, time.monotonic() + 10)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        os.close(fd)
    return bytes(out)


def test_hostile_names_reach_the_terminal_as_text_only(tmp_path: Path) -> None:
    root = hostile_collection(tmp_path / "evil")
    env = {
        **os.environ,
        "TERM": "xterm-256color",
        "COLUMNS": "100",
        "LINES": "30",
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
        "XDG_DATA_HOME": str(tmp_path / "data"),
    }
    # The tree shows the request whose file name holds the sequence: everything is drawn.
    out = pigeon_on_a_pty([str(root)], env, lambda b: b"list" in b and b"PWNED" in b)
    assert b"list" in out, out[-2000:]
    assert TITLE.encode() not in out
    assert b"\x1b[2J\x1b[H" not in out
    assert C1_TITLE.encode() not in out
    assert b"\xc2\x9d" not in out  # no C1 control at all, in any form
    # The names are shown, their escapes visible.
    assert b"\\x1b]2;PWNED" in out


def test_the_apps_last_filter_drops_every_control_character_and_keeps_the_rest() -> None:
    from rich.segment import Segment
    from rich.style import Style
    from textual.color import Color

    from pigeon.tui.control_filter import ControlCharacters

    bold = Style(bold=True)
    segments = [Segment("plain ", None), Segment(f"a{TITLE}b{C1_TITLE}\x7f\tc", bold)]
    out = ControlCharacters().apply(segments, Color(0, 0, 0))
    assert [s.text for s in out] == ["plain ", "a]2;PWNEDb0;PWNED\tc"]
    assert out[1].style == bold
    assert ControlCharacters().apply(segments[:1], Color(0, 0, 0)) == segments[:1]
