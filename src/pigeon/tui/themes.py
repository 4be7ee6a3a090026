"""Themes as TOML files: the bundled ones and any in the user's config folder.

A theme file holds the fields of Textual's ``Theme`` (``name``, ``primary``, ``background``...)
and an optional ``[variables]`` table. Pigeon's own variables (``method-get`` and friends)
colour the method badges; a theme that leaves them out gets the defaults below. Text styled
with a terminal colour's name (``red``) takes the theme's colours (``ansi_palette``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rich.terminal_theme import TerminalTheme
from textual.color import Color, ColorParseError
from textual.theme import Theme

import pigeon
from pigeon.errors import LoadError
from pigeon.tomltext import parse, read_text

_COLOUR_FIELDS = (
    "primary", "secondary", "warning", "error", "success", "accent", "foreground",
    "background", "surface", "panel", "boost",
)  # fmt: skip

METHOD_DEFAULTS = {
    "method-get": "#6cc287",
    "method-post": "#e6c05c",
    "method-put": "#5fa8d3",
    "method-patch": "#8f7ad8",
    "method-delete": "#e0645f",
    "method-other": "#9aa5b1",
}

DEFAULT_THEME = "pigeon-dark"


@dataclass
class LoadedThemes:
    themes: list[Theme] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)  # one line per file that did not load


def bundled_theme_dirs() -> list[Path]:
    """Where the bundled themes live: beside the package when installed, at the repo root in a
    checkout. Both are read; the first definition of a name wins."""
    package = Path(pigeon.__file__).resolve().parent
    return [package / "themes", package.parents[1] / "themes"]


def theme_from_toml(text: str, source: str = "<theme>") -> Theme:
    """Build a ``Theme`` from TOML text; ``ValueError`` says what is wrong and where."""
    try:
        data = parse(text, Path(source))
    except LoadError as exc:  # located as every user file is: path, line, column
        raise ValueError(str(exc)) from exc
    name = data.get("name")
    if not isinstance(name, str) or not name.strip():
        raise ValueError(f"{source}: a theme needs a string `name`")
    if not isinstance(data.get("primary"), str):
        raise ValueError(f"{source}: a theme needs a `primary` colour")
    kwargs: dict[str, Any] = {}
    for key in _COLOUR_FIELDS:
        value = data.get(key)
        if value is not None:
            if not isinstance(value, str):
                raise ValueError(f"{source}: `{key}` must be a colour string")
            kwargs[key] = value
    dark = data.get("dark", True)
    if not isinstance(dark, bool):
        raise ValueError(f"{source}: `dark` must be true or false")
    variables = data.get("variables", {})
    if not isinstance(variables, dict) or not all(isinstance(v, str) for v in variables.values()):
        raise ValueError(f"{source}: [variables] must map names to strings")
    known = set(_COLOUR_FIELDS) | {"name", "dark", "variables"}
    unknown = sorted(set(data) - known)
    if unknown:
        raise ValueError(f"{source}: unknown keys {', '.join(unknown)}")
    merged = {**METHOD_DEFAULTS, **muted_default(kwargs), **variables}
    theme = Theme(name=name.strip(), dark=dark, variables=merged, **kwargs)
    try:
        theme.to_color_system()  # surfaces a bad colour now, not at the first repaint
    except Exception as exc:  # Textual raises ColorParseError and friends
        raise ValueError(f"{source}: {exc}") from exc
    return theme


def muted_default(colours: dict[str, str]) -> dict[str, str]:
    """A theme's muted text as one colour, 70% of the way from its background to its
    foreground. Textual's own (``auto 60%``) is worked out against whatever is behind, and a
    widget's parts (the status line's details, a JSON body's punctuation) have nothing
    behind: on a light theme they came out white on white."""
    if "foreground" not in colours or "background" not in colours:
        return {}
    try:
        background = Color.parse(colours["background"])
        muted = background.blend(Color.parse(colours["foreground"]), 0.7)
    except ColorParseError:  # reported by the check of the whole theme
        return {}
    return {"text-muted": muted.hex}


def load_themes(dirs: list[Path]) -> LoadedThemes:
    """Every ``*.toml`` theme in ``dirs`` (missing folders are skipped); bad files are reported.
    A folder named twice (the package's ``themes`` links to the checkout's) is read once."""
    out = LoadedThemes()
    seen: set[str] = set()
    read: set[Path] = set()
    for directory in dirs:
        if not directory.is_dir() or directory.resolve() in read:
            continue
        read.add(directory.resolve())
        for path in sorted(directory.glob("*.toml")):
            try:
                theme = theme_from_toml(read_text(path), str(path))
            except (LoadError, ValueError) as exc:
                out.problems.append(str(exc))
                continue
            if theme.name in seen:
                continue
            seen.add(theme.name)
            out.themes.append(theme)
    return out


def method_colour(theme: Theme | None, method: str) -> str:
    """The badge colour of a method in a theme."""
    key = f"method-{method.lower()}"
    variables = theme.variables if theme is not None else {}
    return (
        variables.get(key)
        or METHOD_DEFAULTS.get(key)
        or variables.get("method-other", METHOD_DEFAULTS["method-other"])
    )


def ansi_palette(theme: Theme) -> TerminalTheme:
    """The colours the theme gives text styled with a terminal colour's name (``red``,
    ``cyan``...): its own error, success, warning, primary and secondary, so such text is as
    readable as the rest of the theme instead of Textual's fixed palette."""
    background = Color.parse(theme.background or ("#000000" if theme.dark else "#ffffff"))
    foreground = Color.parse(theme.foreground or background.inverse.hex)
    primary = Color.parse(theme.primary)
    secondary = Color.parse(theme.secondary or theme.primary)
    success = Color.parse(theme.success or secondary.hex)
    colours = [
        background,
        Color.parse(theme.error or secondary.hex),
        success,
        Color.parse(theme.warning or primary.hex),
        primary,
        secondary,
        primary.blend(success, 0.5),  # cyan: between blue and green
        foreground,
    ]
    triplets = [colour.rgb for colour in colours]
    return TerminalTheme(background.rgb, foreground.rgb, triplets, triplets)
