"""Two responses compared: status, headers, body; side by side and unified; JSON in the
document's key order or sorted; and the caps that keep difflib's time bounded."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from pigeon import response_diff
from pigeon.bodies.cancel import Stopped
from pigeon.exchange import Exchange
from pigeon.render import RenderedRequest
from pigeon.response_diff import DiffSide, Row, compare, side_of


def side(body: object, *, status: str = "HTTP/1.1 200 OK", headers=(), label="old") -> DiffSide:
    text = body if isinstance(body, str) else json.dumps(body)
    return DiffSide(label, status, list(headers), text, not isinstance(body, str))


def texts(rows: list[Row]) -> list[tuple[str, str | None, str | None]]:
    return [(r.kind, r.left, r.right) for r in rows]


def test_status_headers_and_a_text_body_side_by_side_and_unified() -> None:
    old = side("a\nb\nc\n", headers=[("X-B", "1"), ("Content-Type", "text/plain")])
    new = side(
        "a\nB\nc\nd\n",
        status="HTTP/1.1 404 Not Found",
        headers=[("content-type", "text/plain"), ("x-b", "2")],
        label="new",
    )
    diff = compare(old, new)
    assert texts(diff.split) == [
        ("section", "Status: 1 change", None),
        ("change", "HTTP/1.1 200 OK", "HTTP/1.1 404 Not Found"),
        ("section", "Headers: 1 change", None),  # sorted by name: their order is no change
        ("same", "content-type: text/plain", "content-type: text/plain"),
        ("change", "x-b: 1", "x-b: 2"),
        ("section", "Body (text): 2 changes", None),
        ("hunk", "@@ -1,3 +1,4 @@", None),
        ("same", "a", "a"),
        ("change", "b", "B"),
        ("same", "c", "c"),
        ("change", None, "d"),
    ]
    body = diff.unified[diff.unified.index(Row("hunk", "@@ -1,3 +1,4 @@")) :]
    assert [(r.left, r.right, r.left_no, r.right_no) for r in body[1:]] == [
        ("a", "a", 1, 1),
        ("b", None, 2, None),
        (None, "B", None, 2),
        ("c", "c", 3, 3),
        (None, "d", None, 4),
    ]
    assert diff.changes == 4 and diff.notes == []


def test_json_is_compared_pretty_in_the_documents_order_or_sorted() -> None:
    old = side({"b": 1, "a": [1, 2]})
    new = side({"a": [1, 2], "b": 1})
    in_order = compare(old, new)
    assert in_order.changes > 0
    assert in_order.split[-1].kind != "section"
    assert any(r.left == '  "b": 1,' for r in in_order.split)  # pretty, two spaces
    headings = [r.left for r in in_order.split if r.kind == "section"]
    assert headings[-1].startswith("Body (JSON, keys in the document's order): ")
    by_name = compare(old, new, sort_keys=True)
    assert [r.left for r in by_name.split if r.kind == "section"][-1] == (
        "Body (JSON, keys sorted): same"
    )
    assert by_name.changes == 0


def test_only_changes_and_three_lines_around_them_are_shown() -> None:
    old = "\n".join(f"line {n}" for n in range(100))
    new = old.replace("line 50", "line fifty")
    rows = compare(side(old), side(new)).split
    body = rows[rows.index(Row("section", "Body (text): 1 change")) + 1 :]
    assert body[0] == Row("hunk", "@@ -48,7 +48,7 @@")
    assert [r.left for r in body[1:]] == [f"line {n}" for n in range(47, 54)]
    assert body[4] == Row("change", "line 50", "line fifty", 51, 51)


def test_a_body_that_is_not_valid_json_is_compared_as_text() -> None:
    diff = compare(side("{not json", label="a"), side({"a": 1}))
    assert [r.left for r in diff.split if r.kind == "section"][-1].startswith(
        "Body (text and JSON, keys in the document's order)"
    )
    deep = "[" * 100_000 + "]" * 100_000
    assert compare(side(deep), side(deep)).changes == 0  # too deep for json: text


def test_long_bodies_are_compared_up_to_the_cap_and_the_view_says_so(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    old = "\n".join(str(n) for n in range(500))
    new = old.replace("450", "changed")
    diff = compare(side(old), side(new), max_lines=400)
    assert diff.changes == 0  # the change is past the lines compared
    assert diff.notes == [
        "Bodies compared up to line 400 (of 500 and 500): "
        "the time to compare grows with the square of the lines."
    ]
    monkeypatch.setattr(response_diff, "LINE_LIMIT", 10)
    long = compare(side("x" * 50 + "a"), side("x" * 50 + "b"))
    assert long.changes == 0
    assert long.notes == ["Lines longer than 10 characters compared up to there."]


def test_a_cancelled_comparison_stops() -> None:
    with pytest.raises(Stopped):
        compare(side("a"), side("b"), cancelled=lambda: True)


def test_an_exchange_as_the_diff_reads_it() -> None:
    request = RenderedRequest(method="GET", url="http://127.0.0.1/")
    exchange = Exchange(
        request=request,
        method="GET",
        url=request.url,
        status=200,
        reason="OK",
        http_version="HTTP/1.1",
        headers=[("Content-Type", "application/json")],
        body=b'{"ok": true}',
    )
    assert side_of(exchange, "now") == DiffSide(
        "now",
        "HTTP/1.1 200 OK",
        [("Content-Type", "application/json")],
        '{"ok": true}',
        True,
        size=12,
        whole=b'{"ok": true}',
    )
    failed = Exchange(request=request, method="GET", url=request.url, error="refused")
    assert side_of(failed, "x").status == "no response: refused"


def sections(diff: response_diff.ResponseDiff) -> list[str | None]:
    return [r.left for r in diff.split if r.kind == "section"]


def test_a_body_kept_only_in_part_is_said_so_and_not_compared_line_by_line() -> None:
    cut = DiffSide("old", "HTTP/1.1 200 OK", (), '{"items": [1, 2', True, cut=True)
    diff = compare(cut, side({"items": [1, 2, 3]}))
    assert diff.notes == [
        "Only the start of the left body was kept: the bodies are not compared line by line."
    ]
    assert sections(diff)[-1] == "Body: not compared (only a part of it was kept)"
    assert diff.body_unknown and diff.changes == 0  # no verdict: not "one big change"
    assert not [r for r in diff.split if r.kind == "change"]


def test_identical_large_bodies_kept_in_part_compare_the_same_by_their_digests(
    tmp_path: Path,
) -> None:
    whole = b"x" * 5_000_000
    digest = hashlib.sha256(whole).hexdigest()
    kept = whole[:1000].decode()
    old = DiffSide("old", "HTTP/1.1 200 OK", (), kept, cut=True, size=len(whole), digest=digest)
    new = DiffSide("new", "HTTP/1.1 200 OK", (), whole.decode(), size=len(whole), whole=whole)
    diff = compare(old, new)
    assert sections(diff)[-1] == "Body: same (by the whole bodies' SHA-256)"
    assert diff.changes == 0 and not diff.body_unknown
    changed = whole[:-1] + b"y"  # a change past what was kept is still seen
    new = DiffSide("new", "HTTP/1.1 200 OK", (), changed.decode(), size=len(whole), whole=changed)
    diff = compare(old, new)
    assert sections(diff)[-1] == "Body: different (by the whole bodies' SHA-256)"
    assert diff.changes == 1
    bigger = DiffSide("new", "HTTP/1.1 200 OK", (), "", cut=True, size=len(whole) + 1)
    diff = compare(old, bigger)
    assert sections(diff)[-1] == "Body: different (by 5,000,000 and 5,000,001 bytes)"
    on_disk = tmp_path / "body"  # a body too big for memory is hashed from its file
    on_disk.write_bytes(whole)
    spooled = DiffSide("new", "HTTP/1.1 200 OK", (), kept, cut=True, size=len(whole), path=on_disk)
    assert sections(compare(old, spooled))[-1] == "Body: same (by the whole bodies' SHA-256)"
    status = DiffSide("new", "HTTP/1.1 404 Not Found", (), "", cut=True, size=len(whole))
    diff = compare(old, status)  # statuses and headers are still compared
    assert sections(diff)[0] == "Status: 1 change" and diff.body_unknown
