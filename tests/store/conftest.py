"""Fixtures for the store tests: a small collection on disk."""

from __future__ import annotations

from pathlib import Path

import pytest
from store_support import FULL_REQUEST  # noqa: F401

from collection_files import write


@pytest.fixture
def col(tmp_path: Path) -> Path:
    root = tmp_path / "col"
    write(root, "collection.toml", 'name = "Test"\n[variables]\nbase_url = "http://127.0.0.1:9"\n')
    write(root, "users/create.toml", FULL_REQUEST)
    write(root, "ping.toml", 'name = "Ping"\nurl = "{{base_url}}/ping"\n')
    return root
