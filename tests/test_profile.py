"""A latency profile of one request: N sends, C at once, through the session's pipeline
(``Session.profile``), against loopback servers that count what reaches them; the
percentiles, the histogram and the text drawn from a fixed set of results."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

import pytest

from collection_files import write
from pigeon.profile import (
    MAX_AT_ONCE,
    MAX_SENDS,
    Profile,
    ProfileStats,
    Sample,
    Samples,
    bar,
    check_counts,
    histogram,
    percentile,
    report_lines,
)
from pigeon.session import Session
from servers import counting_server, silent_server


def open_collection(root: Path, request: str) -> Session:
    write(root, "collection.toml", 'name = "c"\n')
    write(root, "r.toml", request)
    return Session.open(root)


def only_request(session: Session):
    (request,) = session.collection.requests()
    return request


# -- the figures ------------------------------------------------------------------------------


def test_percentiles_are_nearest_rank_values_that_were_measured() -> None:
    ordered = [float(n) for n in range(1, 101)]  # 1..100 ms
    assert percentile(ordered, 50) == 50.0
    assert percentile(ordered, 90) == 90.0
    assert percentile(ordered, 99) == 99.0
    assert percentile(ordered, 100) == 100.0
    assert percentile([7.0], 99) == 7.0
    assert percentile([], 50) is None
    few = [1.0, 2.0, 3.0, 10.0]
    assert (percentile(few, 50), percentile(few, 90), percentile(few, 99)) == (2.0, 10.0, 10.0)


def test_samples_group_errors_by_kind_and_sum_the_bytes() -> None:
    samples = Samples()
    for sample in [
        Sample(5.0, 100),
        Sample(9.0, 120, "status 5xx", "500 Internal Server Error"),
        Sample(3.0, 80, "status 4xx", "404 Not Found"),
        Sample(None, 0, "timeout", "Timed out waiting for the response headers"),
        Sample(7.0, 120, "status 5xx", "503 Service Unavailable"),
        Sample(None, 0, "connect", "Connection refused"),
    ]:
        samples.add(sample)
    stats = samples.stats(sends=10, at_once=2, seconds=2.0, stopped=False)
    assert stats.latencies == (3.0, 5.0, 7.0, 9.0)  # every response timed, errors or not
    assert [(e.kind, e.count, e.example) for e in stats.errors] == [
        ("status 5xx", 2, "500 Internal Server Error"),  # most first, its first message
        ("connect", 1, "Connection refused"),
        ("status 4xx", 1, "404 Not Found"),
        ("timeout", 1, "Timed out waiting for the response headers"),
    ]
    assert stats.received == 420 and stats.done == 6 and stats.failed == 5
    assert stats.partial and stats.per_second == 3.0 and stats.mean == 6.0


def test_counts_are_bounded() -> None:
    assert check_counts(50, 1) is None and check_counts(MAX_SENDS, MAX_AT_ONCE) is None
    for sends, at_once in [(0, 1), (MAX_SENDS + 1, 1), (5, 0), (5, MAX_AT_ONCE + 1)]:
        assert check_counts(sends, at_once) is not None
        with pytest.raises(ValueError):
            Profile(lambda: asyncio.sleep(0), sends, at_once)  # type: ignore[arg-type, return-value]


def test_the_histogram_buckets_every_latency_once() -> None:
    latencies = (1.0, 1.5, 2.0, 9.0, 10.0)
    buckets = histogram(latencies, 3)
    assert [b.count for b in buckets] == [3, 0, 2]
    assert buckets[0].low == 1.0 and buckets[-1].high == 10.0
    widths = [b.high - b.low for b in buckets]
    assert widths[0] < widths[1] < widths[2]  # each wider than the last: the tail is spread
    assert [b.count for b in histogram((0.0, 1.0, 2.0), 2)] == [1, 2]  # from 0: equal widths
    assert [b.count for b in histogram((4.0, 4.0, 4.0), 10)] == [3]  # all equal: one bar
    assert histogram((), 10) == []
    assert bar(10, 10, 8) == "█" * 8 and bar(1, 10, 8) == "▊"  # 6.4 eighths
    assert bar(1, 1000, 8) == "▏"  # a bucket with any latency shows
    assert bar(0, 10, 8) == ""


STATS = ProfileStats(
    sends=50,
    at_once=4,
    done=50,
    latencies=tuple(sorted([12.0] * 20 + [15.5] * 15 + [22.0] * 10 + [80.0] * 4 + [420.0])),
    received=51_200,
    seconds=1.25,
)


@pytest.mark.parametrize("width", [40, 76, 116])
def test_the_report_fits_its_width(width: int) -> None:
    lines = report_lines(STATS, width, rows=8)
    assert all(len(line) <= width for line in lines)
    text = " · ".join(lines[: lines.index("")])  # the summary, on as many lines as it needs
    assert text == "50 of 50 sent in 1.25 s · 40.0/s · none failed · 51.2 KB received"
    assert len(lines[: lines.index("")]) == (1 if width > 70 else 2)
    text = " ".join(lines)
    for figure in ("p50 16 ms", "p90 22 ms", "p99 420 ms", "max 420 ms", "min 12 ms"):
        assert figure in text
    bars = [line for line in lines if "│" in line]
    assert len(bars) == 8
    counts = [int(line.rsplit(" ", 1)[1]) for line in bars]
    assert sum(counts) == 50
    longest = max(bars, key=lambda line: line.count("█"))
    assert longest.rstrip().endswith(" 35")  # 12 and 15.5 ms: 22 ms has a bar of its own


def test_a_stopped_profile_says_so_and_names_its_errors() -> None:
    stats = Samples()
    stats.add(Sample(4.0, 10))
    stats.add(Sample(None, 0, "timeout", "Timed out after 0.2 s " + "waiting " * 30))
    lines = report_lines(stats.stats(50, 2, 0.5, stopped=True), 80)
    assert lines[0].startswith("Stopped: 2 of 50 sent")
    errors = lines[lines.index("Errors") + 1 :]
    assert errors[0].startswith("  timeout  1  Timed out after 0.2 s")
    assert errors[0].endswith("…") and len(errors[0]) == 80


# -- sends through the session ----------------------------------------------------------------


async def test_sends_really_go_c_at_once(tmp_path: Path) -> None:
    """Each request waits at the server until four are in: with fewer at once the barrier
    breaks (a 500); with more, the server counts them."""
    barrier = threading.Barrier(4, timeout=10)

    def answer(number: int) -> tuple[int, bytes]:
        barrier.wait()
        return 200, b"ok"

    with counting_server(answer) as server:
        session = open_collection(tmp_path / "c", f'url = "{server.url}/x"\n')
        profile = await session.profile(only_request(session), True, sends=12, at_once=4)
        stats = await profile.run()
        await session.close()
    assert server.seen == 12 and server.most_in_flight == 4
    assert stats.done == 12 and len(stats.latencies) == 12 and stats.errors == ()


async def test_sends_at_once_keep_their_connections(tmp_path: Path) -> None:
    """32 at once, three rounds: each lane's connection is kept for its next send, so a
    latency is the request's, not a new connection's (httpx keeps 20 idle by default)."""
    barrier = threading.Barrier(32, timeout=10)

    def answer(number: int) -> tuple[int, bytes]:
        barrier.wait()
        return 200, b"ok"

    with counting_server(answer) as server:
        session = open_collection(tmp_path / "c", f'url = "{server.url}/x"\n')
        profile = await session.profile(only_request(session), True, sends=96, at_once=32)
        stats = await profile.run()
        await session.close()
    assert stats.errors == () and server.most_in_flight == 32
    assert len(server.clients) == 32


async def test_errors_are_grouped_and_the_bytes_summed(tmp_path: Path) -> None:
    statuses = [200, 500, 404, 200, 503, 200, 200, 500]

    def answer(number: int) -> tuple[int, bytes]:
        return statuses[number % len(statuses)], b"x" * 100

    with counting_server(answer) as server:
        session = open_collection(tmp_path / "c", f'url = "{server.url}/x"\n')
        request = only_request(session)
        profile = await session.profile(request, True, sends=len(statuses), at_once=3)
        stats = await profile.run()
        await session.close()
    assert server.seen == len(statuses)
    assert {(e.kind, e.count) for e in stats.errors} == {("status 5xx", 3), ("status 4xx", 1)}
    assert len(stats.latencies) == len(statuses)  # an error status is a response, timed
    assert stats.received == server.bytes_sent  # status lines, headers and bodies


async def test_the_slow_ones_are_the_tail(tmp_path: Path) -> None:
    """Two of twenty answer after 300 ms: they are the maximum and p99, never the median
    (latencies are bounded below by the server's wait)."""
    waits = {7: 0.3, 13: 0.3}

    def answer(number: int) -> tuple[int, bytes]:
        threading.Event().wait(waits.get(number, 0.0))
        return 200, b"ok"

    with counting_server(answer) as server:
        session = open_collection(tmp_path / "c", f'url = "{server.url}/x"\n')
        profile = await session.profile(only_request(session), True, sends=20, at_once=1)
        stats = await profile.run()
        await session.close()
    assert len(stats.latencies) == 20 and list(stats.latencies) == sorted(stats.latencies)
    assert stats.latencies[-2] >= 300 and stats.percentile(99) >= 300
    assert stats.percentile(50) == stats.latencies[9]


async def test_each_send_keeps_the_requests_deadline(tmp_path: Path) -> None:
    with silent_server() as url:
        request = f'url = "{url}/x"\n[settings]\ntimeout = 0.2\n'
        session = open_collection(tmp_path / "c", request)
        profile = await session.profile(only_request(session), True, sends=4, at_once=2)
        stats = await profile.run()
        await session.close()
    assert stats.done == 4 and stats.latencies == ()
    assert [(e.kind, e.count) for e in stats.errors] == [("timeout", 4)]


async def test_stop_cancels_the_sends_in_flight_and_keeps_what_finished(tmp_path: Path) -> None:
    """Five answer at once, the rest would wait for ever: stop after the fifth returns the
    five, marked stopped, and no more than the two in flight reached the server after them."""
    release = threading.Event()

    def answer(number: int) -> tuple[int, bytes]:
        if number >= 5:
            release.wait(30)
        return 200, b"ok"

    def heard(profile: Profile) -> None:
        if profile.samples.done == 5:
            profile.stop()

    with counting_server(answer) as server:
        session = open_collection(tmp_path / "c", f'url = "{server.url}/x"\n')
        profile = await session.profile(only_request(session), True, sends=1000, at_once=2)
        stats = await profile.run(heard)
        release.set()
        await session.close()
    assert stats.stopped and stats.partial and stats.done == 5 and len(stats.latencies) == 5
    assert server.seen <= 5 + 2


async def test_pre_request_scripts_run_per_send_and_nothing_stays_in_the_session(
    tmp_path: Path,
) -> None:
    request_text = """\
url = "{url}/{{{{n}}}}"

[scripts]
pre_request = '''
pigeon.setVar("n", pigeon.getVar("n") + 1 + 100 * (pigeon.getVar("after") or 0))
'''
post_response = '''
pigeon.setVar("after", 1)
'''
"""
    with counting_server(lambda number: (200, b"ok")) as server:
        session = open_collection(tmp_path / "c", request_text.format(url=server.url))
        session.runtime.set("n", 10)
        profile = await session.profile(only_request(session), True, sends=3, at_once=1)
        stats = await profile.run()
        await session.close()
    assert stats.errors == ()
    assert server.paths == ["/11", "/12", "/13"]  # the copy carried on; "after" never set
    assert session.runtime.as_dict() == {"n": 10}  # no post-response "after", n as it was


async def test_a_request_that_cannot_go_out_is_counted_as_not_sent(tmp_path: Path) -> None:
    """Untrusted, a read of the environment is refused at each send: no latency, one kind."""
    with counting_server(lambda number: (200, b"ok")) as server:
        url = f'url = "{server.url}/{{{{$env.HOME}}}}"\n'
        session = open_collection(tmp_path / "c", url)
        profile = await session.profile(only_request(session), False, sends=3, at_once=2)
        stats = await profile.run()
        await session.close()
    assert server.seen == 0 and stats.done == 3 and stats.latencies == ()
    [error] = stats.errors
    assert (error.kind, error.count) == ("not sent", 3) and "needs trust" in error.example
