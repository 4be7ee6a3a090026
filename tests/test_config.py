"""The user's folders, the trust store and config.toml."""

from __future__ import annotations

import os
import tomllib
from pathlib import Path

import pytest

from pigeon.config import (
    AppConfig,
    ConfigError,
    TrustStore,
    config_dir,
    data_dir,
    load_config,
    save_config,
)


@pytest.fixture
def home(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """XDG homes under tmp_path (the conftest already isolates; here we know the paths)."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "cfg"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    return tmp_path


def config_file(home: Path) -> Path:
    path = home / "cfg" / "pigeon" / "config.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    return path


# -- folders --------------------------------------------------------------------------------


def test_folders_follow_xdg(home: Path) -> None:
    assert config_dir() == home / "cfg" / "pigeon"
    assert data_dir() == home / "data" / "pigeon"


def test_folders_default_under_home_and_ignore_relative_xdg(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("XDG_CONFIG_HOME")
    monkeypatch.setenv("XDG_DATA_HOME", "relative/path")
    assert config_dir() == tmp_path / ".config" / "pigeon"
    assert data_dir() == tmp_path / ".local" / "share" / "pigeon"
    assert config_dir({"XDG_CONFIG_HOME": "/x"}) == Path("/x/pigeon")


# -- trust ----------------------------------------------------------------------------------


def test_trust_is_recorded_per_resolved_directory(home: Path, tmp_path: Path) -> None:
    col = tmp_path / "api"
    (col / "users").mkdir(parents=True)
    store = TrustStore()
    assert store.path == home / "cfg" / "pigeon" / "trusted.toml"
    assert not store.is_trusted(col) and not store.path.exists()

    store.trust(col / "users" / "..")
    store.trust(str(col) + "/")  # the same directory: recorded once
    assert store.is_trusted(col) and store.error is None
    assert TrustStore().is_trusted(str(col))  # a fresh store (another process) sees it
    assert not store.is_trusted(col / "users")  # subdirectories are not covered
    assert not store.is_trusted(tmp_path)
    data = tomllib.loads(store.path.read_text(encoding="utf-8"))
    assert [e["path"] for e in data["collections"]] == [str(col.resolve())]
    assert store.trusted() == [col.resolve()]


def test_trust_follows_symlinks(home: Path, tmp_path: Path) -> None:
    real = tmp_path / "real"
    real.mkdir()
    link = tmp_path / "link"
    link.symlink_to(real, target_is_directory=True)
    store = TrustStore()
    store.trust(link)
    assert store.is_trusted(real)


def test_revoke(home: Path, tmp_path: Path) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    store = TrustStore()
    store.trust(a)
    store.trust(b)
    assert store.revoke(a) is True
    assert store.revoke(a) is False
    assert not store.is_trusted(a) and store.is_trusted(b)
    assert [p.name for p in os.scandir(store.path.parent)] == ["trusted.toml"]  # no temp files


def test_trust_file_keeps_what_it_does_not_know(home: Path, tmp_path: Path) -> None:
    store = TrustStore()
    store.path.parent.mkdir(parents=True)
    store.path.write_text(
        'note = "mine"\n[[collections]]\npath = "/somewhere"\nlabel = "work"\n', encoding="utf-8"
    )
    store.trust(tmp_path)
    data = tomllib.loads(store.path.read_text(encoding="utf-8"))
    assert data["note"] == "mine"
    assert data["collections"][0] == {"path": "/somewhere", "label": "work"}
    assert data["collections"][1]["path"] == str(tmp_path.resolve())


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ('[[collections]]\npath = "/a"\npath = "/b"\n', ":3:12: TOML syntax error"),
        ('collections = "everything"\n', "expected [[collections]]"),
        ("[[collections]]\npath = 3\n", "expected [[collections]]"),
        (b"\xff\xfe".decode("latin-1"), "not UTF-8"),
    ],
)
def test_broken_trust_file_trusts_nothing_and_is_never_overwritten(
    home: Path, tmp_path: Path, text: str, fragment: str
) -> None:
    store = TrustStore()
    store.path.parent.mkdir(parents=True)
    raw = text.encode("latin-1") if fragment == "not UTF-8" else text.encode("utf-8")
    store.path.write_bytes(raw)
    assert store.is_trusted("/a") is False
    assert store.error is not None and fragment in store.error
    assert str(store.path) in store.error
    with pytest.raises(ConfigError) as info:
        store.trust(tmp_path)
    assert fragment in str(info.value)
    with pytest.raises(ConfigError):
        store.revoke("/a")
    assert store.path.read_bytes() == raw


# -- config.toml ----------------------------------------------------------------------------


def test_defaults_when_there_is_no_file(home: Path) -> None:
    cfg = load_config()
    assert (cfg.theme, cfg.keys, cfg.echo_port, cfg.history_keep) == (None, {}, 0, 100)
    assert cfg.problems == [] and cfg.config_dir == home / "cfg" / "pigeon"
    cfg.save()  # nothing to save: no file appears
    assert not (home / "cfg" / "pigeon" / "config.toml").exists()


def test_load_values(home: Path) -> None:
    config_file(home).write_text(
        'theme = "nord"\necho_port = 8123\nhistory_keep = 5\n[keys]\nsend = "ctrl+r"\n',
        encoding="utf-8",
    )
    cfg = AppConfig.load()
    assert cfg.theme == "nord" and cfg.echo_port == 8123 and cfg.history_keep == 5
    assert cfg.keys == {"send": "ctrl+r"} and cfg.extra == {} and cfg.problems == []


def test_wrong_types_are_reported_with_line_and_defaults_used(home: Path) -> None:
    path = config_file(home)
    path.write_text(
        'theme = "nord"\necho_port = 70000\nhistory_keep = true\n[keys]\nsend = 5\nquit = "q"\n',
        encoding="utf-8",
    )
    cfg = load_config()
    assert cfg.theme == "nord" and cfg.echo_port == 0 and cfg.history_keep == 100
    assert cfg.keys == {"quit": "q"}
    assert len(cfg.problems) == 3
    assert cfg.problems[0].startswith(f"{path}:2: echo_port must be a port number")
    assert cfg.problems[1].startswith(f"{path}:3: history_keep")
    assert cfg.problems[2].startswith(f"{path}:5: [keys] send")


def test_broken_config_is_an_error_and_is_not_overwritten(home: Path) -> None:
    path = config_file(home)
    path.write_text('theme = "a"\ntheme = "b"\n', encoding="utf-8")
    with pytest.raises(ConfigError) as info:
        load_config()
    assert info.value.line == 2 and str(info.value).startswith(f"{path}:2:")
    assert "TOML syntax error" in str(info.value)
    cfg = AppConfig(theme="c")
    with pytest.raises(ConfigError):
        save_config(cfg)
    assert path.read_text(encoding="utf-8") == 'theme = "a"\ntheme = "b"\n'


def test_save_round_trip_keeps_unknown_keys(home: Path) -> None:
    path = config_file(home)
    path.write_text('future = {a = 1}\n[plugins]\nx = "y"\n', encoding="utf-8")
    cfg = load_config()
    assert cfg.extra == {"future": {"a": 1}, "plugins": {"x": "y"}}
    cfg.theme = "nord"
    cfg.keys["send"] = "f5"
    cfg.echo_port = 9000
    cfg.history_keep = 0
    cfg.save()
    again = load_config()
    assert again == cfg
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    assert data["future"] == {"a": 1} and data["plugins"] == {"x": "y"}


def test_changing_a_setting_rewrites_only_its_line(home: Path) -> None:
    path = config_file(home)
    original = (
        "# Pigeon settings\n"
        'theme = "nord"  # the dark one\n'
        "\n"
        "# keys I like\n"
        "[keys]\n"
        'send = "ctrl+r"  # muscle memory\n'
        "broken = 1\n"
    )
    path.write_text(original, encoding="utf-8")
    cfg = load_config()
    cfg.theme = "light"
    cfg.echo_port = 8080
    cfg.save()
    assert path.read_text(encoding="utf-8") == (
        "# Pigeon settings\n"
        'theme = "light"  # the dark one\n'
        "echo_port = 8080\n"
        "\n"
        "# keys I like\n"
        "[keys]\n"
        'send = "ctrl+r"  # muscle memory\n'
        "broken = 1\n"
    )
    cfg.keys["send"] = "f5"
    cfg.keys["quit"] = "ctrl+q"
    cfg.save()
    text = path.read_text(encoding="utf-8")
    assert 'send = "f5"  # muscle memory\n' in text
    assert "broken = 1\n" in text  # a value the user has not fixed yet is not dropped
    assert 'quit = "ctrl+q"\n' in text and "# keys I like\n" in text
    cfg.theme = None
    cfg.save()
    assert "theme" not in tomllib.loads(path.read_text(encoding="utf-8"))


def test_save_keeps_edits_made_by_hand_meanwhile(home: Path) -> None:
    path = config_file(home)
    path.write_text('theme = "a"\n', encoding="utf-8")
    cfg = load_config()
    path.write_text('theme = "a"\nhistory_keep = 7\n[keys]\nquit = "q"\n', encoding="utf-8")
    cfg.theme = "b"
    cfg.save()
    assert tomllib.loads(path.read_text(encoding="utf-8")) == {
        "theme": "b",
        "history_keep": 7,
        "keys": {"quit": "q"},
    }


def test_a_config_never_loaded_writes_a_new_file(home: Path) -> None:
    path = home / "cfg" / "pigeon" / "config.toml"
    cfg = AppConfig(theme="nord", keys={"send": "f5"})
    assert cfg.save() == path
    assert tomllib.loads(path.read_text(encoding="utf-8")) == {
        "theme": "nord",
        "keys": {"send": "f5"},
    }


def test_explicit_path(tmp_path: Path) -> None:
    path = tmp_path / "elsewhere" / "my.toml"
    cfg = AppConfig.load(path)
    cfg.history_keep = 3
    cfg.save()
    assert load_config(path).history_keep == 3 and cfg.config_dir == tmp_path / "elsewhere"


# -- history and body limits ------------------------------------------------------------------


def test_history_age_and_body_memory_keys(home: Path) -> None:
    from pigeon.send import DEFAULT_MAX_BODY_IN_MEMORY

    cfg = load_config()
    assert cfg.history_max_age_days == 0  # any age
    assert cfg.max_body_in_memory == DEFAULT_MAX_BODY_IN_MEMORY  # the same default as a session
    config_file(home).write_text(
        "history_max_age_days = 30\nmax_body_in_memory_mb = 0.5\n", encoding="utf-8"
    )
    cfg = load_config()
    assert cfg.problems == [] and cfg.extra == {}
    assert cfg.history_max_age_days == 30 and cfg.max_body_in_memory_mb == 0.5
    assert cfg.max_body_in_memory == 512 * 1024


def test_script_memory_limit_defaults_to_a_gigabyte_and_may_be_set(home: Path) -> None:
    from pigeon.scripts.process import DEFAULT_MEMORY_MB

    assert load_config().script_memory_mb == DEFAULT_MEMORY_MB == 1024
    config_file(home).write_text("script_memory_mb = 512\n", encoding="utf-8")
    cfg = load_config()
    assert cfg.problems == [] and cfg.extra == {} and cfg.script_memory_mb == 512
    config_file(home).write_text("script_memory_mb = 8\n", encoding="utf-8")
    cfg = load_config()
    assert cfg.script_memory_mb == 1024
    assert "script_memory_mb must be a number of megabytes >= 64, not 8" in cfg.problems[0]


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("history_max_age_days = -1", "history_max_age_days must be a number of days >= 0"),
        ("history_max_age_days = true", "history_max_age_days must be a number of days >= 0"),
        ('history_max_age_days = "week"', "history_max_age_days must be a number of days >= 0"),
        ("max_body_in_memory_mb = 0", "max_body_in_memory_mb must be a number of megabytes > 0"),
        ("max_body_in_memory_mb = -2.5", "max_body_in_memory_mb must be a number of megabytes"),
        ("max_body_in_memory_mb = nan", "max_body_in_memory_mb must be a number of megabytes"),
        ("max_body_in_memory_mb = inf", "max_body_in_memory_mb must be a number of megabytes"),
        ('max_body_in_memory_mb = "64MB"', "max_body_in_memory_mb must be a number of megabytes"),
    ],
)
def test_bad_limits_are_reported_and_defaults_used(home: Path, line: str, message: str) -> None:
    path = config_file(home)
    path.write_text(f'theme = "nord"\n{line}\n', encoding="utf-8")
    cfg = load_config()
    assert cfg.theme == "nord"
    assert (cfg.history_max_age_days, cfg.max_body_in_memory_mb) == (0, 32)
    [problem] = cfg.problems
    assert problem.startswith(f"{path}:2: {message}") and problem.endswith("; using the default")


def test_limits_are_saved_on_their_own_lines(home: Path) -> None:
    path = config_file(home)
    path.write_text("# mine\nhistory_keep = 5  # enough\n", encoding="utf-8")
    cfg = load_config()
    cfg.history_max_age_days = 14
    cfg.max_body_in_memory_mb = 8
    cfg.save()
    assert path.read_text(encoding="utf-8") == (
        "# mine\nhistory_keep = 5  # enough\nhistory_max_age_days = 14\nmax_body_in_memory_mb = 8\n"
    )
    assert load_config() == cfg


def test_images_setting(home: Path) -> None:
    assert load_config().images == "auto"
    path = config_file(home)
    path.write_text('images = "off"\n', encoding="utf-8")
    cfg = load_config()
    assert cfg.images == "off" and cfg.problems == [] and cfg.extra == {}
    cfg.images = "sixel"
    cfg.save()
    assert path.read_text(encoding="utf-8") == 'images = "sixel"\n'
    path.write_text('images = "iterm"\n', encoding="utf-8")
    cfg = load_config()
    assert cfg.images == "auto"
    assert cfg.problems == [
        f'{path}:1: images must be one of "auto", "off", "kitty", "sixel", "blocks", '
        "not 'iterm'; using the default"
    ]
