"""Whether a process the tests started has ended: one helper for every test that kills one."""

from __future__ import annotations

import os


def gone(pid: int) -> bool:
    """True once no process has ``pid`` (signal 0 checks without sending anything)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False
