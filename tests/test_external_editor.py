"""Editing a field in the user's editor: which editor runs, the private file it gets, and what
comes back, with real editor commands (small scripts)."""

from __future__ import annotations

import json
import shlex
import stat
import sys
from pathlib import Path

from pigeon.external_editor import edit_text, editor_command, suffix_for


def script_editor(tmp_path: Path, body: str) -> str:
    """An ``$EDITOR`` value that runs ``body`` (Python) with the file's path as ``path``."""
    script = tmp_path / "editor.py"
    script.write_text(f"import sys\nfrom pathlib import Path\npath = Path(sys.argv[1])\n{body}\n")
    return shlex.join([sys.executable, str(script)])


def test_visual_wins_then_editor_then_vi() -> None:
    assert editor_command({"VISUAL": "nano -w", "EDITOR": "vim"}) == ["nano", "-w"]
    assert editor_command({"VISUAL": " ", "EDITOR": "code --wait"}) == ["code", "--wait"]
    assert editor_command({}) == ["vi"]


def test_suffix_follows_the_language() -> None:
    assert suffix_for("json") == ".json"
    assert suffix_for("python") == ".py"
    assert suffix_for(None) == ".txt"


def test_the_editor_rewrites_a_private_file_that_is_then_removed(tmp_path: Path) -> None:
    seen = tmp_path / "seen.json"
    editor = script_editor(
        tmp_path,
        "import json, os\n"
        f"Path({str(seen)!r}).write_text(json.dumps([str(path), os.stat(path.parent).st_mode, "
        "path.read_text()]))\n"
        "path.write_text('{\"b\": 2}\\n')",
    )
    edited = edit_text('{"a": 1}', ".json", "pigeon-body", {"EDITOR": editor})
    assert edited.error is None
    assert edited.text == '{"b": 2}\n'
    path, mode, text = json.loads(seen.read_text())
    assert Path(path).name == "pigeon-body.json"
    assert stat.S_IMODE(mode) == 0o700
    assert text == '{"a": 1}'
    assert not Path(path).parent.exists()


def test_a_failing_editor_changes_nothing(tmp_path: Path) -> None:
    editor = script_editor(tmp_path, "path.write_text('half done')\nsys.exit(3)")
    edited = edit_text("kept", ".txt", "pigeon", {"EDITOR": editor})
    assert edited.text is None
    assert edited.error is not None and "exited with status 3: nothing changed" in edited.error


def test_a_missing_editor_is_one_line(tmp_path: Path) -> None:
    edited = edit_text("kept", environ={"EDITOR": str(tmp_path / "no-such-editor")})
    assert edited.text is None
    assert edited.error is not None
    assert "was not found; set $VISUAL or $EDITOR" in edited.error
    assert "\n" not in edited.error
