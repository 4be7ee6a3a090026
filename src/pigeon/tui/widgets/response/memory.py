"""Giving memory back to the system once a large response is gone.

Freeing a 5 MB body and its pretty view leaves the memory with the C allocator: glibc keeps
freed heap pages (its mmap threshold rises after the first large free, so later large
strings come from the heap too) until ``malloc_trim`` hands them back. Called from a worker
thread when a large response has been replaced; a no-op where there is no glibc.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import gc
from functools import cache
from typing import Any

LARGE_BODY = 1024 * 1024  # bytes: a response this big is worth giving back after


@cache
def _libc() -> Any:
    name = ctypes.util.find_library("c")
    try:
        libc = ctypes.CDLL(name) if name else None
    except OSError:
        return None
    return libc if libc is not None and hasattr(libc, "malloc_trim") else None


def give_back() -> None:
    """Collect cycles (a body's views may be in one), then return free heap pages."""
    gc.collect()
    libc = _libc()
    if libc is not None:
        libc.malloc_trim(0)  # ctypes lets go of the GIL meanwhile
