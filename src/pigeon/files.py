"""Writing files so that nothing is lost (DESIGN §2): atomic replaces, exclusive creates, moves;
and reading a file someone else named without being made to read forever.

A reader sees the old file or the new one, never half of one; a create or a move never
replaces what is there; a rename is made durable by syncing its directory.
"""

from __future__ import annotations

import errno
import os
import stat
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import TextIO


def _default_mode() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


_NEW_FILE_MODE = _default_mode()


def fsync_dir(directory: Path) -> None:
    """Make a rename durable; not every platform can open a directory, which is fine."""
    with suppress(OSError):
        fd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


@contextmanager
def _temp_beside(path: Path, durable: bool = True) -> Iterator[tuple[TextIO, str]]:
    """A text file open for writing beside ``path`` (synced when ``durable``), and its name;
    removed again if the block fails."""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
            yield fh, tmp
            if durable:
                fh.flush()
                os.fsync(fh.fileno())
        try:
            mode = stat.S_IMODE(os.stat(path).st_mode)
        except OSError:
            mode = _NEW_FILE_MODE
        os.chmod(tmp, mode)
    except BaseException:
        with suppress(OSError):
            os.unlink(tmp)
        raise


def _write_temp(path: Path, text: str, durable: bool = True) -> str:
    """Write ``text`` to a temporary file beside ``path``; return its name."""
    with _temp_beside(path, durable) as (fh, tmp):
        fh.write(text)
    return tmp


@contextmanager
def atomic_writer(path: Path | str, *, durable: bool = True) -> Iterator[TextIO]:
    """Write ``path`` piece by piece and replace it all at once when the block ends, as
    ``atomic_write`` does: for a file too large to build in memory first (a long run's
    report). On any failure the old file is left as it was."""
    path = Path(path)
    with _temp_beside(path, durable) as (fh, tmp):
        yield fh
    try:
        os.replace(tmp, path)
    except BaseException:
        with suppress(OSError):
            os.unlink(tmp)
        raise
    if durable:
        fsync_dir(path.parent)


def atomic_write(path: Path | str, text: str, *, durable: bool = True) -> None:
    """Replace ``path`` with ``text`` all at once: readers see the old file or the new one.

    On any failure the temporary file is removed and the old file is left as it was.
    ``durable=False`` skips the fsyncs, for files that may be lost in a crash (history) but
    are written often enough that the syncs would cost.
    """
    with atomic_writer(path, durable=durable) as fh:
        fh.write(text)


def create_exclusive(path: Path, text: str) -> None:
    """Write a new file; ``FileExistsError`` if ``path`` exists (it is never overwritten)."""
    tmp = _write_temp(path, text)
    try:
        try:
            os.link(tmp, path)
        except FileExistsError:
            raise
        except OSError:  # no hard links here: exclusive create instead
            with open(path, "x", encoding="utf-8", newline="\n") as fh:
                fh.write(text)
                fh.flush()
                os.fsync(fh.fileno())
    finally:
        with suppress(OSError):
            os.unlink(tmp)
    fsync_dir(path.parent)


def move_exclusive(src: Path, dst: Path) -> None:
    """Move a file without ever replacing ``dst`` (``FileExistsError`` if it exists)."""
    try:
        os.link(src, dst)
    except FileExistsError:
        raise
    except OSError:
        if dst.exists():
            raise FileExistsError(str(dst)) from None
        os.rename(src, dst)
    else:
        os.unlink(src)
    fsync_dir(dst.parent)
    fsync_dir(src.parent)


def rename_dir_exclusive(src: Path, dst: Path) -> None:
    """Rename a directory in one step without ever replacing ``dst`` (``FileExistsError``).

    POSIX ``rename`` would replace an empty directory, so ``dst`` is first made here (which
    fails if anything is there) and the rename replaces only that empty directory.
    """
    if os.name == "nt":  # Windows never replaces a directory by renaming onto it
        os.rename(src, dst)
    else:
        os.mkdir(dst)
        try:
            os.rename(src, dst)
        except BaseException:
            with suppress(OSError):
                os.rmdir(dst)
            raise
    fsync_dir(dst.parent)
    fsync_dir(src.parent)


# -- reading a file someone else named ------------------------------------------------------


def size_text(size: int) -> str:
    """``1.2 GB``, ``100 MB``, ``512 bytes``: a size as a message shows it."""
    if size < 1000:
        return f"{size} bytes"
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("KB", 1e3)):
        if size >= scale:
            return f"{size / scale:.1f}".removesuffix(".0") + f" {unit}"
    raise AssertionError("unreachable")


class TooLarge(OSError):
    """A file over the limit of what may be read into memory; the message names both sizes."""

    def __init__(self, path: Path | str, size: int | None, limit: int) -> None:
        over = f"over the {size_text(limit)} limit"
        text = over if size is None else f"{size_text(size)}, {over}"
        super().__init__(errno.EFBIG, text, str(path))

    def __str__(self) -> str:
        return f"file {self.filename} is {self.strerror}"


def _regular(mode: int) -> None:
    if not stat.S_ISREG(mode):
        raise OSError(errno.EINVAL, "not a regular file (a device, FIFO or directory)")


def read_capped(path: Path | str, limit: int) -> bytes:
    """The bytes of a regular file of at most ``limit`` bytes, else ``OSError``.

    A FIFO, a device or a directory is refused before it is opened (a FIFO would block,
    ``/dev/zero`` never ends); a file over ``limit`` is ``TooLarge``, checked by its size
    before reading and again by reading at most one byte more (it may grow meanwhile).
    """
    _regular(os.stat(path).st_mode)
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    with os.fdopen(fd, "rb") as fh:
        info = os.fstat(fh.fileno())
        _regular(info.st_mode)  # the name may have been swapped since
        if info.st_size > limit:
            raise TooLarge(path, info.st_size, limit)
        data = fh.read(limit + 1)
    if len(data) > limit:
        raise TooLarge(path, None, limit)  # it grew while read
    return data


# -- the collection's own folder ------------------------------------------------------------

PRIVATE_DIR = ".pigeon"


class LinkedOut(OSError):
    """A folder Pigeon writes in is a link: it may lead anywhere, so nothing is written there."""


def private_dir(root: Path | str, *parts: str, create: bool = True) -> Path:
    """``root/.pigeon/<parts>``: the collection's git-ignored folder for history and what
    Pigeon remembers. Made on the way (with a ``.gitignore`` of ``*``) when ``create``;
    ``LinkedOut`` when any part of it is a symlink, so a hostile repository cannot point
    Pigeon's writes, or the pruning of old history, at files elsewhere."""
    path = Path(root)
    for name in (PRIVATE_DIR, *parts):
        path = path / name
        if path.is_symlink():
            raise LinkedOut(
                f"{path} is a link (to {os.path.realpath(path)}); Pigeon writes nothing there"
            )
        if create and not path.is_dir():
            path.mkdir(exist_ok=True)
            if name == PRIVATE_DIR:
                with suppress(FileExistsError):
                    create_exclusive(path / ".gitignore", "*\n")
    return path


def file_sha256(path: Path | str) -> str | None:
    """A file's SHA-256, read in pieces (a body spooled to disk may be gigabytes); ``None``
    when it cannot be read."""
    import hashlib

    try:
        with open(path, "rb") as f:
            return hashlib.file_digest(f, "sha256").hexdigest()
    except OSError:
        return None
