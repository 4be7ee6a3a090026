"""Insomnia, HAR and Bruno sources with values of the wrong type, or text cut and scrambled,
are imported as far as they go or refused in one line: never a crash."""

from __future__ import annotations

import contextlib
import json
import random
from pathlib import Path

from test_import_postman import mutate

from pigeon.importers import ImportFailed, sanitize
from pigeon.importers.bru import BruError, parse_bru
from pigeon.importers.documents import load_yaml
from pigeon.importers.har import parse_har
from pigeon.importers.insomnia import parse_insomnia

DATA = Path(__file__).parents[1] / "data"


def test_insomnia_v4_and_v5_with_wrong_types_never_crash() -> None:
    v4 = json.loads((DATA / "insomnia" / "shop-v4.json").read_text())
    for variant in mutate(v4, seed=2, rounds=300):
        with contextlib.suppress(ImportFailed):
            sanitize(parse_insomnia(json.dumps(variant)))
    v5 = load_yaml((DATA / "insomnia" / "shop-v5.yaml").read_text())
    for variant in mutate(v5, seed=3, rounds=300):
        with contextlib.suppress(ImportFailed):
            sanitize(parse_insomnia(json.dumps(variant)))


def test_har_with_wrong_types_never_crashes() -> None:
    har = json.loads((DATA / "har" / "shop.har").read_text())
    for variant in mutate(har, seed=4, rounds=300):
        with contextlib.suppress(ImportFailed):
            sanitize(parse_har(json.dumps(variant)))


def test_bru_text_cut_or_scrambled_is_bru_or_a_bru_error() -> None:
    texts = [p.read_text() for p in sorted((DATA / "bruno" / "shop").rglob("*.bru"))]
    rnd = random.Random(5)
    for _ in range(400):
        text = rnd.choice(texts)
        cut = rnd.randrange(len(text) + 1)
        variant = rnd.choice([
            text[:cut],
            text[:cut] + text[cut + rnd.randint(1, 5):],
            text[:cut] + rnd.choice(["{", "}", "[", "]", "~", ":", "'''", "\n", "\x00"]) + text[cut:],
        ])  # fmt: skip
        with contextlib.suppress(BruError):
            for block in parse_bru(variant):
                assert block.name and (block.is_text or all(p.key for p in block.pairs))
