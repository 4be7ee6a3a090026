"""Editing a long field in the user's own editor (DESIGN §9: every action has a key): which
editor, a private temporary file with a fitting suffix, and what came back.

The app hands the terminal over (``App.suspend``) around :func:`edit_text`; nothing here
knows about Textual, so it is tested with a real editor command.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

# A body's or script's language (TextArea's names) -> the suffix an editor recognises it by.
SUFFIXES = {
    "json": ".json",
    "python": ".py",
    "javascript": ".js",
    "xml": ".xml",
    "html": ".html",
    "yaml": ".yaml",
    "toml": ".toml",
    "markdown": ".md",
    "css": ".css",
    "bash": ".sh",
}


def suffix_for(language: str | None) -> str:
    return SUFFIXES.get(language or "", ".txt")


def editor_command(environ: Mapping[str, str] | None = None) -> list[str]:
    """``$VISUAL``, then ``$EDITOR``, then ``vi``, split as a shell would (``code --wait``)."""
    env = os.environ if environ is None else environ
    for name in ("VISUAL", "EDITOR"):
        value = env.get(name, "").strip()
        if value:
            try:
                words = shlex.split(value)
            except ValueError:
                words = [value]
            if words:
                return words
    return ["vi"]


@dataclass(frozen=True)
class Edited:
    """What the editor left: ``text`` (``None`` when nothing is to change) or ``error``, one
    line saying why nothing changed."""

    text: str | None = None
    error: str | None = None


def edit_text(
    text: str, suffix: str = ".txt", name: str = "pigeon", environ: Mapping[str, str] | None = None
) -> Edited:
    """Write ``text`` to a file in a private temporary folder, run the editor on it (this
    blocks until it exits) and read the file back. The folder is removed in every case."""
    command = editor_command(environ)
    shown = shlex.join(command)
    folder = Path(tempfile.mkdtemp(prefix="pigeon-edit-"))  # 0700: only this user reads it
    try:
        path = folder / f"{name}{suffix}"
        path.write_text(text, encoding="utf-8")
        if shutil.which(command[0]) is None:
            return Edited(error=f"no editor: {shown} was not found; set $VISUAL or $EDITOR")
        try:
            status = subprocess.run([*command, str(path)], check=False).returncode
        except OSError as exc:
            return Edited(error=f"the editor {shown} could not start: {exc.strerror or exc}")
        if status != 0:
            return Edited(error=f"the editor {shown} exited with status {status}: nothing changed")
        try:
            edited = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return Edited(error="the editor removed the file: nothing changed")
        except (OSError, UnicodeDecodeError) as exc:
            return Edited(error=f"the edited file could not be read ({exc}): nothing changed")
        return Edited(text=edited)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
