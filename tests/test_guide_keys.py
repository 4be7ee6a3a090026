"""The guide's Keys page lists every key the help screen lists, says each thing once, and says
what the keys do (the response's `f` takes the three filter languages the filter reads)."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

KEYS = Path(__file__).parents[1] / "docs" / "guide" / "keys.md"


def keys_section() -> str:
    return KEYS.read_text(encoding="utf-8")


def test_the_keys_section_says_each_sentence_once() -> None:
    prose = re.sub(r"\s+", " ", keys_section())
    clauses = [c.strip() for c in re.split(r"[.;:]\s|\n", prose) if len(c.split()) >= 5]
    repeated = [c for c, n in Counter(clauses).items() if n > 1]
    assert repeated == []


def test_the_keys_section_names_every_filter_language_for_f() -> None:
    from pigeon.bodies.filter import filter_language

    names = {"jq": "jq", "jmespath": "JMESPath", "jsonpath": "JSONPath"}
    languages = {names[filter_language(e)] for e in (".a", "a.b", "$.a")}
    assert languages == set(names.values())
    mentions = re.findall(r"`f` filter with ([^(]*)", keys_section())
    assert mentions, "the response's f is described"
    for mention in mentions:
        for language in languages:
            assert language in mention, (language, mention)


def test_the_keys_page_has_every_key_of_the_help_screen() -> None:
    """Each help-screen row is a table row of the page, under its pane's heading: the page
    cannot miss a key or give one the app does not have."""
    from pigeon.tui.app import PigeonApp
    from pigeon.tui.keys import help_sections

    page = keys_section()
    for title, rows in help_sections(PigeonApp.help_groups(), {}):
        start = page.index(f"\n### {title}\n")
        section = page[start : page.index("\n#", start + 1)]
        for keys, description, action_id in rows:
            cells = ", ".join(f"`{k}`" for k in keys.split(", "))
            ident = f"`{action_id}`" if action_id else ""
            assert f"| {cells} | {description} | {ident} |" in section, (title, keys)
    headings = re.findall(r"^### (.*)$", page.split("## What they do")[0], re.M)
    assert headings == [title for title, _ in help_sections(PigeonApp.help_groups(), {})]
