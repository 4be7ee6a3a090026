"""The user's own files: where they live, which collections are trusted (DESIGN §8), and
``config.toml``.

Folders follow the XDG base directory spec on every platform (terminal users expect
``~/.config`` on macOS too): ``$XDG_CONFIG_HOME/pigeon`` (default ``~/.config/pigeon``) for
settings, themes and trust; ``$XDG_DATA_HOME/pigeon`` (default ``~/.local/share/pigeon``) for
history. A relative ``XDG_*`` value is ignored, as the spec says.

Nothing here ever overwrites a file it could not read: a broken ``trusted.toml`` or
``config.toml`` is reported and left for the user to fix. Both are written by editing the
user's own text (``pigeon.tomltext``), so comments and layout survive every save.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from pigeon.errors import ConfigError, LoadError
from pigeon.files import atomic_write
from pigeon.tomltext import parse, read_text

APP_NAME = "pigeon"
TRUST_FILE = "trusted.toml"
CONFIG_FILE = "config.toml"
DEFAULT_MAX_BODY_IN_MEMORY_MB = 32  # pigeon.send.DEFAULT_MAX_BODY_IN_MEMORY, in MiB
DEFAULT_SCRIPT_MEMORY_MB = 1024.0  # the script worker's address-space limit
IMAGE_SETTINGS = (
    "auto",
    "off",
    "kitty",
    "sixel",
    "blocks",
)  # pigeon.tui.widgets.response.graphics reads them


def _xdg(variable: str, fallback: tuple[str, ...], environ: Mapping[str, str] | None) -> Path:
    env = os.environ if environ is None else environ
    value = env.get(variable, "")
    base = Path(value) if value and os.path.isabs(value) else Path.home().joinpath(*fallback)
    return base / APP_NAME


def config_dir(environ: Mapping[str, str] | None = None) -> Path:
    """``$XDG_CONFIG_HOME/pigeon``, default ``~/.config/pigeon`` (not created here)."""
    return _xdg("XDG_CONFIG_HOME", (".config",), environ)


def data_dir(environ: Mapping[str, str] | None = None) -> Path:
    """``$XDG_DATA_HOME/pigeon``, default ``~/.local/share/pigeon`` (not created here)."""
    return _xdg("XDG_DATA_HOME", (".local", "share"), environ)


def _atomic_write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(path, text)


def _read(path: Path) -> tuple[str, dict[str, Any]] | None:
    """The file's text and data, ``None`` if it does not exist; ``ConfigError`` (path, line,
    column) if it cannot be read."""
    try:
        text = read_text(path)
        return text, parse(text, path)
    except LoadError as exc:
        if not path.exists():
            return None
        raise ConfigError(path, exc.message, exc.line, exc.column) from exc


def _read_toml(path: Path) -> dict[str, Any] | None:
    """The parsed file, ``None`` if it does not exist; ``ConfigError`` if it cannot be read."""
    found = _read(path)
    return found[1] if found else None


# -- trust ----------------------------------------------------------------------------------

_TRUST_HEADER = """\
# Collections you trust: Pigeon runs their Python scripts (ordinary Python with your
# permissions) and lets them read your environment and files outside their directory.
# Remove an entry to take that back.
"""


class TrustStore:
    """Which collection directories the user trusted (``pigeon.trust``), kept in ``trusted.toml``.

    Trust is recorded per directory (its resolved absolute path) and nothing else: once a
    collection is trusted, later changes to its scripts -- a ``git pull`` included -- run
    without asking again, as in an editor's trusted workspace. Subdirectories are not covered.

    The file is read on every question, so a trust given in the app is seen by a ``pigeon run``
    in another terminal. A file that cannot be read means "nothing is trusted": ``error`` says
    why, and ``trust``/``revoke`` raise ``ConfigError`` rather than overwrite it.
    """

    def __init__(self, path: Path | str | None = None) -> None:
        self.path = Path(path) if path is not None else config_dir() / TRUST_FILE
        self.error: str | None = None

    @staticmethod
    def key(root: Path | str) -> str:
        """The form a collection directory is recorded in."""
        return str(Path(root).expanduser().resolve())

    def _load(self) -> dict[str, Any]:
        """The file's data, checked; ``ConfigError`` if broken."""
        data = _read_toml(self.path) or {}
        entries = data.get("collections", [])
        if not isinstance(entries, list) or not all(
            isinstance(e, dict) and isinstance(e.get("path"), str) for e in entries
        ):
            raise ConfigError(
                self.path, 'expected [[collections]] tables, each with a path = "..." string'
            )
        return data

    def _read(self) -> list[dict[str, Any]] | None:
        try:
            data = self._load()
        except ConfigError as exc:
            self.error = str(exc)
            return None
        self.error = None
        collections: list[dict[str, Any]] = data.get("collections", [])
        return collections

    def trusted(self) -> list[Path]:
        """Every trusted collection directory (empty when the file is broken; see ``error``)."""
        return [Path(e["path"]) for e in self._read() or []]

    def is_trusted(self, root: Path | str) -> bool:
        key = self.key(root)
        return any(e["path"] == key for e in self._read() or [])

    def trust(self, root: Path | str) -> None:
        """Record a collection as trusted (idempotent)."""
        data = self._load()
        key = self.key(root)
        entries = data.setdefault("collections", [])
        if any(e["path"] == key for e in entries):
            return
        entries.append(
            {"path": key, "trusted_at": datetime.now(timezone.utc).replace(microsecond=0)}
        )
        self._write(data)

    def revoke(self, root: Path | str) -> bool:
        """Forget a collection's trust; whether it was trusted."""
        data = self._load()
        key = self.key(root)
        entries = data.get("collections", [])
        kept = [e for e in entries if e["path"] != key]
        if len(kept) == len(entries):
            return False
        data["collections"] = kept
        self._write(data)
        return True

    def _write(self, data: dict[str, Any]) -> None:
        from pigeon.tomlwrite import dumps, update  # tomlkit: only when something is written

        found = _read(self.path)
        text = _TRUST_HEADER + dumps(data) if found is None else update(*found, data)
        try:
            _atomic_write(self.path, text)
        except OSError as exc:
            raise ConfigError(self.path, f"cannot write: {exc.strerror or exc}") from exc
        self.error = None


# -- config.toml ----------------------------------------------------------------------------


@dataclass
class AppConfig:
    """``config.toml``: the user's settings for the app.

    ``keys`` maps an action id (as listed on the help screen) to a key such as ``"ctrl+r"``.
    ``echo_port`` is the demo echo server's port (0: any free port). ``history_keep`` is how
    many exchanges the history keeps per collection, ``history_max_age_days`` how old they may
    grow (0: any age). ``max_body_in_memory_mb`` is how much of a response body is kept in
    memory (and shown); the rest goes to a temporary file. ``script_memory_mb`` is the
    address-space limit of the process that runs a collection's scripts. ``images`` is how
    an image body is drawn (``IMAGE_SETTINGS``: judged from the terminal, off, or a protocol).

    Loading is lenient: a value of the wrong type is reported in ``problems`` (with file and
    line) and its default used, so one typo does not lose the other settings. Saving writes
    only the settings changed since loading, onto the file as it is now: other keys, comments
    on untouched lines, invalid values the user has not fixed yet and edits made meanwhile by
    hand are all kept.
    """

    theme: str | None = None
    keys: dict[str, str] = field(default_factory=dict)
    echo_port: int = 0
    history_keep: int = 100
    history_max_age_days: float = 0
    max_body_in_memory_mb: float = DEFAULT_MAX_BODY_IN_MEMORY_MB
    script_memory_mb: float = DEFAULT_SCRIPT_MEMORY_MB
    images: str = "auto"
    export_kind: str = "curl"  # the kind f3 offers first: the one last copied
    extra: dict[str, Any] = field(default_factory=dict)  # unknown keys, kept on save
    path: Path | None = field(default=None, compare=False)
    problems: list[str] = field(default_factory=list, compare=False)
    _loaded: dict[str, Any] | None = field(default=None, repr=False, compare=False)

    @property
    def file(self) -> Path:
        return self.path if self.path is not None else config_dir() / CONFIG_FILE

    @property
    def max_body_in_memory(self) -> int:
        """``max_body_in_memory_mb`` in bytes, as ``HttpSession`` takes it."""
        return max(1, int(self.max_body_in_memory_mb * 1024 * 1024))

    @property
    def config_dir(self) -> Path:
        """The folder holding ``config.toml`` (and the user's ``themes/``)."""
        return self.file.parent

    @classmethod
    def load(cls, path: Path | str | None = None) -> AppConfig:
        """Read ``config.toml`` (defaults when it does not exist); ``ConfigError`` if broken."""
        file = Path(path) if path is not None else config_dir() / CONFIG_FILE
        text, data = _read(file) or ("", {})
        cfg = cls(path=file)
        if data:
            _apply(cfg, data, text, file)
        cfg._loaded = _settings(cfg)
        return cfg

    def save(self) -> Path:
        """Write the changed settings (atomically); ``ConfigError`` if the file is broken."""
        file = self.file
        found = _read(file)
        current = found[1] if found else None
        baseline = self._loaded
        if baseline is None:
            baseline = _settings(_parsed(current or {}, file))
        edits = _edits(baseline, _settings(self))
        data = _apply_edits(current or {}, edits)
        if data == (current or {}):
            self._loaded = _settings(self)
            return file
        from pigeon.tomlwrite import dumps, update  # tomlkit: only when something is written

        text = dumps(data) if found is None else update(found[0], found[1], data)
        try:
            _atomic_write(file, text)
        except OSError as exc:
            raise ConfigError(file, f"cannot write: {exc.strerror or exc}") from exc
        self._loaded = _settings(self)
        return file


_FIELDS = (
    "theme",
    "keys",
    "echo_port",
    "history_keep",
    "history_max_age_days",
    "max_body_in_memory_mb",
    "script_memory_mb",
    "images",
    "export_kind",
)
_SCALARS = tuple(name for name in _FIELDS if name != "keys")


def load_config(path: Path | str | None = None) -> AppConfig:
    return AppConfig.load(path)


def save_config(cfg: AppConfig) -> Path:
    return cfg.save()


def _settings(cfg: AppConfig) -> dict[str, Any]:
    return {
        "theme": cfg.theme,
        "keys": dict(cfg.keys),
        "echo_port": cfg.echo_port,
        "history_keep": cfg.history_keep,
        "history_max_age_days": cfg.history_max_age_days,
        "max_body_in_memory_mb": cfg.max_body_in_memory_mb,
        "script_memory_mb": cfg.script_memory_mb,
        "images": cfg.images,
        "export_kind": cfg.export_kind,
        "extra": dict(cfg.extra),
    }


def _parsed(data: dict[str, Any], file: Path) -> AppConfig:
    cfg = AppConfig(path=file)
    _apply(cfg, data, "", file)
    return cfg


def _line_of(text: str, key: str) -> int | None:
    pattern = re.compile(rf"^\s*(?:{re.escape(key)}|\"{re.escape(key)}\"|'{re.escape(key)}')\s*=")
    for number, line in enumerate(text.splitlines(), 1):
        if pattern.match(line):
            return number
    return None


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


# The numeric settings of config.toml: key, what a valid value is, and that rule in words.
_NUMBERS: tuple[tuple[str, Callable[[Any], bool], str], ...] = (
    ("echo_port", lambda v: _whole(v) and 0 <= v <= 65535, "a port number 0-65535"),
    ("history_keep", lambda v: _whole(v) and v >= 0, "a whole number >= 0"),
    (
        "history_max_age_days",
        lambda v: _is_number(v) and v >= 0,
        "a number of days >= 0 (0: any age)",
    ),
    ("max_body_in_memory_mb", lambda v: _is_number(v) and v > 0, "a number of megabytes > 0"),
    ("script_memory_mb", lambda v: _is_number(v) and v >= 64, "a number of megabytes >= 64"),
)


def _apply(cfg: AppConfig, data: Mapping[str, Any], text: str, file: Path) -> None:
    """Fill ``cfg`` from parsed TOML; report wrong types in ``cfg.problems``."""

    def problem(key: str, message: str) -> None:
        line = _line_of(text, key)
        where = f"{file}:{line}" if line else f"{file}"
        cfg.problems.append(f"{where}: {message}; using the default")

    theme = data.get("theme")
    if theme is not None:
        if isinstance(theme, str) and theme.strip():
            cfg.theme = theme.strip()
        else:
            problem("theme", 'theme must be a theme name such as "pigeon-dark"')
    for key, valid, rule in _NUMBERS:
        value = data.get(key)
        if value is None:
            continue
        if valid(value):
            setattr(cfg, key, value)
        else:
            problem(key, f"{key} must be {rule}, not {value!r}")
    images = data.get("images")
    if images is not None:
        if images in IMAGE_SETTINGS:
            cfg.images = images
        else:
            choices = ", ".join(f'"{name}"' for name in IMAGE_SETTINGS)
            problem("images", f"images must be one of {choices}, not {images!r}")
    export_kind = data.get("export_kind")
    if export_kind is not None:
        if isinstance(export_kind, str) and export_kind.strip():
            cfg.export_kind = export_kind.strip()
        else:
            problem("export_kind", 'export_kind must be an export kind such as "curl"')
    keys = data.get("keys")
    if keys is not None:
        if isinstance(keys, dict):
            for action, key in keys.items():
                if isinstance(key, str) and key.strip():
                    cfg.keys[action] = key
                else:
                    problem(action, f'[keys] {action}: the key must be a string such as "ctrl+r"')
        else:
            problem("keys", '[keys] must be a table of action = "key"')
    cfg.extra = {k: v for k, v in data.items() if k not in _FIELDS}


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


_REMOVE: Any = object()

# One change to the file: (table or None for the top level, key, new value or _REMOVE).
Edit = tuple[str | None, str, Any]


def _edits(before: dict[str, Any], after: dict[str, Any]) -> list[Edit]:
    """What changed between two snapshots of the settings, key by key."""
    out: list[Edit] = []
    for name in _SCALARS:
        if before[name] != after[name]:
            out.append((None, name, _REMOVE if after[name] is None else after[name]))
    for table, name in ((None, "extra"), ("keys", "keys")):
        old, new = before[name], after[name]
        for key in old:
            if key not in new:
                out.append((table, key, _REMOVE))
        for key, value in new.items():
            if key not in old or old[key] != value:
                out.append((table, key, value))
    return out


def _apply_edits(data: Mapping[str, Any], edits: list[Edit]) -> dict[str, Any]:
    """The file's data with the edits made; keys nobody changed stay exactly as they are."""
    out = dict(data)
    for table, key, value in edits:
        if table is None:
            target = out
        else:
            existing = out.get(table)
            target = dict(existing) if isinstance(existing, dict) else {}
            out[table] = target
        if value is _REMOVE:
            target.pop(key, None)
        else:
            target[key] = value
    return out


__all__ = [
    "APP_NAME",
    "AppConfig",
    "ConfigError",
    "TrustStore",
    "config_dir",
    "data_dir",
    "load_config",
    "save_config",
]
