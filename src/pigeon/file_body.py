"""A file body (DESIGN §11): a file sent as it is, streamed from disk, memory flat at any size.

``[body] type = "file"`` names the file by ``path`` (a template, relative to the collection)
and, optionally, its ``content_type`` (else guessed from the name). Rendering looks at the
file without reading it (``inspect``: a regular file, and its size); the description
``<file PATH, N bytes, TYPE>`` stands for the body wherever a body is shown or recorded
(``pigeon render``, the history, scripts); only the send reads it, a chunk at a time.

The request says its length (``Content-Length``, from the size when rendered) rather than
going chunked, so servers that refuse chunked uploads take it. Each pass over the body opens
the file again from its start, so a 307 or 308 redirect (or an auth challenge) sends it whole
again. A file whose size is not the one rendered, or that grows or shrinks while it is read,
ends the send with ``FileChanged``: never a short or padded body sent as if whole.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import io
import mimetypes
import os
import re
import stat
from collections.abc import AsyncIterator, Callable, Generator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pigeon.errors import RenderError

CHUNK = 256 * 1024  # bytes read and handed to the connection at a time
DEFAULT_TYPE = "application/octet-stream"


class FileChanged(OSError):
    """The file changed while (or before) it was sent: the send fails with this line.

    An ``OSError``, so the send reports it as it does a file or socket failure: one line."""


def resolve(path: str, root: Path | None) -> Path:
    """Where a file body's path points: ``~`` expanded, relative to the collection's root."""
    found = Path(path).expanduser()
    if not found.is_absolute() and root is not None:
        found = root / found
    return found


def guess_type(path: str) -> str:
    """The content type a file's name suggests, else ``application/octet-stream``."""
    return mimetypes.guess_type(Path(path).name)[0] or DEFAULT_TYPE


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "not a regular file"


@dataclass
class FileBody:
    """A file body as rendered: ``shown`` is the path as written (placeholders rendered),
    ``path`` where it is on disk, ``size`` its size when rendered (``None``: a render that
    looks at no file, the trust check's). ``sha256`` is the digest of the bytes last sent
    whole (``None`` until a pass over the file ends), for the history."""

    path: Path
    shown: str
    size: int | None
    content_type: str
    sha256: str | None = None

    def describe(self) -> str:
        """What stands for the body where it is shown: ``<file PATH, N bytes, TYPE>``."""
        size = "" if self.size is None else f", {self.size} byte{'' if self.size == 1 else 's'}"
        return f"<file {self.shown}{size}, {self.content_type}>"

    def record(self) -> dict[str, Any]:
        """What the history keeps of it: where, how big, what type, and the digest of what was
        sent (``None``: the send did not get through it); never the content."""
        return {
            "path": self.shown,
            "size": self.size,
            "content_type": self.content_type,
            "sha256": self.sha256,
        }

    @classmethod
    def recorded(cls, stored: Any) -> FileBody | None:
        """The file body a history entry recorded (``record``), or ``None``."""
        if not isinstance(stored, dict) or not isinstance(stored.get("path"), str):
            return None
        size = stored.get("size")
        digest = str(stored.get("sha256") or "").lower()
        return cls(
            Path(stored["path"]),
            stored["path"],
            size if isinstance(size, int) and not isinstance(size, bool) else None,
            str(stored.get("content_type") or ""),
            digest if re.fullmatch(r"[0-9a-f]{64}", digest) else None,
        )

    def stream(
        self, on_sent: Callable[[int], None] | None = None, *, sync: bool
    ) -> _Stream | _AsyncStream:
        """The body for httpx: re-iterable (each pass reads the file from its start), sync
        or async as the client is; ``on_sent`` hears the bytes sent so far in each pass."""
        return _Stream(self, on_sent) if sync else _AsyncStream(self, on_sent)

    def chunks(self, on_sent: Callable[[int], None] | None = None) -> Generator[bytes]:
        """One pass over the file: exactly ``size`` bytes, else ``FileChanged``."""
        expected = self.size
        if expected is None:
            raise FileChanged(f"{self.shown}: the file was never looked at; nothing was sent")
        self.sha256 = None
        digest = hashlib.sha256()
        sent = 0
        if on_sent is not None:
            on_sent(0)
        with _open(self.path, self.shown) as fh:
            now = os.fstat(fh.fileno()).st_size
            if now != expected:
                raise FileChanged(
                    f"{self.shown} changed size since the request was rendered ({expected} "
                    f"bytes, now {now}): its body was not sent"
                )
            if expected == 0 and fh.read(1):
                raise FileChanged(f"{self.shown} grew while it was sent (past its 0 bytes)")
            while sent < expected:
                chunk = fh.read(min(CHUNK, expected - sent))
                if not chunk:
                    raise FileChanged(
                        f"{self.shown} shrank while it was sent ({sent} of {expected} bytes "
                        "read): the request was cut off"
                    )
                digest.update(chunk)
                sent += len(chunk)
                if sent == expected and fh.read(1):
                    raise FileChanged(
                        f"{self.shown} grew while it was sent (past its {expected} bytes): "
                        "the request was cut off"
                    )
                yield chunk
                if on_sent is not None:
                    on_sent(sent)
        self.sha256 = digest.hexdigest()


class _Stream:
    """A sync body: a new pass on every iteration (not a generator: httpx re-sends it)."""

    def __init__(self, body: FileBody, on_sent: Callable[[int], None] | None) -> None:
        self.body, self.on_sent = body, on_sent

    def __iter__(self) -> Iterator[bytes]:
        return self.body.chunks(self.on_sent)


class _AsyncStream:
    """An async body: the same passes, each chunk read and hashed in a worker thread, so the
    event loop (the app's) answers keys while a large file goes out."""

    def __init__(self, body: FileBody, on_sent: Callable[[int], None] | None) -> None:
        self.body, self.on_sent = body, on_sent

    async def __aiter__(self) -> AsyncIterator[bytes]:
        chunks = self.body.chunks(self.on_sent)
        try:
            while (chunk := await asyncio.to_thread(next, chunks, None)) is not None:
                yield chunk
        finally:
            # Cancelled while the thread reads: the pass is closed when the thread lets go
            # of it (its file with it), not here.
            with contextlib.suppress(ValueError):
                chunks.close()


def _open(path: Path, shown: str) -> io.FileIO:
    """The file opened for reading, refused unless it is a regular file: a FIFO swapped in
    since the render never blocks the send (opened without waiting, checked once open)."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError:
        raise FileChanged(f"file not found: {shown}") from None
    fh = io.FileIO(fd, "rb")
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        fh.close()
        raise FileChanged(f"{shown} is {_kind(mode)}, not a file: not sent")
    return fh


def inspect(path: Path, shown: str, content_type: str) -> FileBody:
    """The file body at ``path``, looked at but not read: a ``RenderError`` that says why
    when it cannot be sent (missing, a folder, a FIFO or device, unreadable)."""
    try:
        info = os.stat(path)
    except FileNotFoundError:
        raise RenderError(f"file not found: {shown}") from None
    except OSError as exc:
        raise RenderError(f"cannot read the file {shown}: {exc.strerror or exc}") from None
    if not stat.S_ISREG(info.st_mode):
        raise RenderError(f"{shown} is {_kind(info.st_mode)}, not a file")
    if not os.access(path, os.R_OK):
        raise RenderError(f"cannot read the file {shown}: permission denied")
    return FileBody(path, shown, info.st_size, content_type or guess_type(shown))
