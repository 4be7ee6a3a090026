"""README.md is what a newcomer reads first: its Keys section says each thing once, and says
what the keys do (the response's `f` takes the three filter languages the filter reads)."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

README = Path(__file__).parents[1] / "README.md"


def keys_section() -> str:
    text = README.read_text(encoding="utf-8")
    start = text.index("## Keys")
    return text[start : text.index("\n## ", start + 1)]


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
