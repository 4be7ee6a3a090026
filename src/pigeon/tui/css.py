"""Where a widget's stylesheet lives: beside its module, read when the module is imported.

Each widget keeps its CSS in a ``.tcss`` file of the same name (``url_bar.py`` beside
``url_bar.tcss``), loaded as its ``DEFAULT_CSS``: a widget that is built lazily costs no CSS
parsing at start-up, which matters more here than live-editing the app's stylesheets.
"""

from __future__ import annotations

from pathlib import Path


def beside(module_file: str, name: str | None = None) -> str:
    """The text of the ``.tcss`` file beside ``module_file`` (``name``: another file there)."""
    path = Path(module_file)
    css = path.with_name(name) if name else path.with_suffix(".tcss")
    return css.read_text(encoding="utf-8")
