"""Writing a collection's files for a test: one helper, so every test builds collections alike."""

from __future__ import annotations

from pathlib import Path


def write(root: Path, rel: str, text: str) -> Path:
    """Write ``text`` to ``root/rel`` (UTF-8), making the folders on the way; the path."""
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path
