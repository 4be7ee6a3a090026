"""The echo server's made-up data: a PNG, random bytes and a large JSON document of users.

Everything is deterministic (fixed seeds and formulas), so a test or a benchmark gets the same
bytes on every run, and nothing needs a dependency or a file on disk.
"""

from __future__ import annotations

import json
import random
import struct
import zlib
from collections.abc import Iterator
from typing import Any

CHUNK = 64 * 1024  # the size of the pieces a generated body is written in
SAMPLE_TEXT = "Grüße aus Köln: café, crème brûlée, naïve façade."


def _png(width: int = 8, height: int = 8) -> bytes:
    """A small valid RGB PNG (a colour gradient), built by hand to avoid a dependency."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return (
            struct.pack(">I", len(data))
            + kind
            + data
            + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
        )

    rows = b"".join(
        b"\x00" + b"".join(bytes((x * 32, y * 32, 160)) for x in range(width))
        for y in range(height)
    )
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(rows, 9))
        + chunk(b"IEND", b"")
    )


PNG = _png()
BYTES_BLOCK = random.Random(1234).randbytes(CHUNK)

_FIRST = [
    "Ada",
    "Alan",
    "Grace",
    "Edsger",
    "Barbara",
    "Donald",
    "Margaret",
    "Dennis",
    "Frances",
    "Ken",
    "Radia",
    "John",
    "Sophie",
    "Tim",
    "Hedy",
    "Linus",
    "Katherine",
    "Niklaus",
]
_LAST = [
    "Lovelace",
    "Turing",
    "Hopper",
    "Dijkstra",
    "Liskov",
    "Knuth",
    "Hamilton",
    "Ritchie",
    "Allen",
    "Thompson",
    "Perlman",
    "McCarthy",
    "Wilson",
    "Berners-Lee",
    "Lamarr",
    "Wirth",
]
_CITIES = [
    ("Berlin", "DE", 52.52, 13.405),
    ("Lyon", "FR", 45.764, 4.8357),
    ("Osaka", "JP", 34.6937, 135.5023),
    ("Austin", "US", 30.2672, -97.7431),
    ("Porto", "PT", 41.1579, -8.6291),
    ("Nairobi", "KE", -1.2921, 36.8219),
    ("Quito", "EC", -0.1807, -78.4678),
    ("Perth", "AU", -31.9523, 115.8613),
]
_STREETS = ["Main St", "Rue de la Paix", "Hauptstraße", "Elm Road", "Harbour Way", "Via Roma"]
_ROLES = ["admin", "editor", "viewer", "billing", "support", "developer"]
_TAGS = ["beta", "vip", "newsletter", "trial", "partner", "internal", "legacy", "mobile"]


def large_user(i: int) -> dict[str, Any]:
    """User number ``i`` of the large JSON document: deterministic, varied, nested."""
    first, last = _FIRST[i % len(_FIRST)], _LAST[(i * 7) % len(_LAST)]
    city, country, lat, lng = _CITIES[(i * 3) % len(_CITIES)]
    return {
        "id": i + 1,
        "username": f"{first.lower()}.{last.lower()}{i}",
        "name": f"{first} {last}",
        "email": f"{first.lower()}.{last.lower()}.{i}@example.com",
        "active": i % 5 != 0,
        "score": round((i * 37 % 1000) / 10, 1),
        "roles": [_ROLES[(i + k) % len(_ROLES)] for k in range(1 + i % 3)],
        "address": {
            "street": f"{1 + i % 250} {_STREETS[i % len(_STREETS)]}",
            "city": city,
            "country": country,
            "postcode": f"{10000 + (i * 7919) % 89999}",
            "geo": {
                "lat": round(lat + (i % 100) / 1000, 4),
                "lng": round(lng - (i % 100) / 1000, 4),
            },
        },
        "tags": [_TAGS[(i * k) % len(_TAGS)] for k in range(1, 1 + i % 4)],
        "created_at": f"20{10 + i % 15:02d}-{1 + i % 12:02d}-{1 + i % 28:02d}T{i % 24:02d}:{i % 60:02d}:00Z",
        "last_login": None if i % 7 == 0 else f"2026-{1 + i % 12:02d}-{1 + i % 28:02d}",
        "bio": f"{first} works on {_TAGS[i % len(_TAGS)]} projects in {city}.",
    }


def large_json_chunks(size: int) -> Iterator[bytes]:
    """A JSON array of users of about ``size`` bytes, in ~64 KiB pieces."""
    produced = 0
    i = 0
    parts: list[bytes] = [b"["]
    pending = 1
    while produced + pending < size or i == 0:
        item = json.dumps(large_user(i), ensure_ascii=False).encode("utf-8")
        if i:
            item = b",\n" + item
        parts.append(item)
        pending += len(item)
        i += 1
        if pending >= CHUNK:
            yield b"".join(parts)
            produced += pending
            parts, pending = [], 0
    parts.append(b"]\n")
    yield b"".join(parts)
