"""ctrl+c during a script in `pigeon run` (DESIGN §6, §8): the script worker is killed at once
and the run exits 130 with one clear line, whatever the script is stuck in.

The signal goes to the whole process group, as a terminal's ctrl+c does, so the worker sees it
too. Deadline: the worker is gone within ``STOP_BOUND`` (the promised 0.5 s plus a 1.0 s
margin for a loaded 2-core CI box); the run itself exits within a generous 10 s.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from collection_files import write
from processes import gone
from servers import body_a_byte_at_a_time, slow_server

STOP_BOUND = 1.5

RUNAWAYS = {
    "busy loop": "while True:\n    pass\n",
    "sleep": "import time\ntime.sleep(3600)\n",
    "catastrophic regex": "import re\nre.match(r'(a+)+$', 'a' * 40 + 'b')\n",
    "C call": "import hashlib\nhashlib.pbkdf2_hmac('sha256', b'x', b'y', 10**9)\n",
}


@pytest.mark.parametrize("kind", RUNAWAYS)
def test_ctrl_c_kills_the_script_and_ends_the_run(tmp_path: Path, kind: str) -> None:
    root = tmp_path / "c"
    script = "import os\nopen('worker.pid', 'w').write(str(os.getpid()))\n" + RUNAWAYS[kind]
    write(root, "collection.toml", 'name = "x"\n')
    write(
        root,
        "stuck.toml",
        f"name = \"stuck\"\nurl = \"http://127.0.0.1:9/\"\n[scripts]\npre_request = '''\n{script}'''\n",
    )
    pid_file = root / "worker.pid"
    proc = subprocess.Popen(
        [sys.executable, "-m", "pigeon", "run", str(root), "--trust", "--no-color"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its own process group, to signal as a terminal would
    )
    try:
        deadline = time.monotonic() + 30
        while not (pid_file.exists() and pid_file.read_text()):
            assert time.monotonic() < deadline and proc.poll() is None, "the script never ran"
            time.sleep(0.02)
        worker = int(pid_file.read_text())
        time.sleep(0.1)  # into the runaway part
        triggered = time.monotonic()
        os.killpg(proc.pid, signal.SIGINT)
        while not gone(worker):
            assert time.monotonic() - triggered < STOP_BOUND, "the worker outlived ctrl+c"
            time.sleep(0.01)
        out, err = proc.communicate(timeout=10)
    finally:
        proc.kill()
        proc.wait()
    assert proc.returncode == 130, out + err
    assert err == "pigeon: interrupted\n"
    assert "0 requests" in out and "interrupted" in out


def test_ctrl_c_during_a_send_lets_go_of_the_connection_and_ends_the_run(tmp_path: Path) -> None:
    """A send blocked on a server that trickles its body for ever (timeout 60 s): ctrl+c ends
    the run at once with exit 130, and the client hangs up on the server."""
    root = tmp_path / "c"
    write(root, "collection.toml", 'name = "x"\n')
    with slow_server(body_a_byte_at_a_time, interval=0.05) as server:
        write(
            root, "slow.toml", f'name = "slow"\nurl = "{server.url}/"\n[settings]\ntimeout = 60\n'
        )
        proc = subprocess.Popen(
            [sys.executable, "-m", "pigeon", "run", str(root), "--no-color"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
        )
        try:
            deadline = time.monotonic() + 30
            while server.connections == 0:
                assert time.monotonic() < deadline and proc.poll() is None, "nothing was sent"
                time.sleep(0.02)
            time.sleep(0.3)  # into the body
            os.killpg(proc.pid, signal.SIGINT)
            out, err = proc.communicate(timeout=10)
        finally:
            proc.kill()
            proc.wait()
        for _ in range(100):  # bounded wait for the server to see the hang-up
            if server.hung_up:
                break
            time.sleep(0.02)
        assert server.hung_up == 1
    assert proc.returncode == 130, out + err
    assert err == "pigeon: interrupted\n"
    assert "0 requests" in out and "interrupted" in out
