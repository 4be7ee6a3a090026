"""`pigeon run` of Server-Sent Events: a stream ends at ``[stream] max_events``, at
``max_seconds``, when a per-event script calls ``pigeon.stopStream()``, or at the request's
deadline; the scripts see the events."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from collection_files import write
from pigeon.cli import main
from pigeon.store.read import request_from_toml
from pigeon.store.write import request_data
from pigeon.stream import KEEP_EVENTS
from stream_servers import StreamServer, stream_server


@pytest.fixture(scope="module")
def server() -> Iterator[StreamServer]:
    with stream_server() as s:
        yield s


def collection(root: Path, url: str, stream: str, scripts: str = "", timeout: float = 30) -> Path:
    write(root, "collection.toml", 'name = "Streams"\n')
    text = f'name = "Ticks"\nurl = "{url}"\n\n[settings]\ntimeout = {timeout}\n\n{stream}\n'
    if scripts:
        text += f"\n[scripts]\npost_response = '''\n{scripts}\n'''\n"
    write(root, "ticks.toml", text)
    return root


def run(capsys: pytest.CaptureFixture[str], root: Path, *argv: str) -> tuple[int, str]:
    code = main(["run", str(root), "--no-color", *argv])
    out, _ = capsys.readouterr()
    return code, out


def test_max_events_ends_the_stream(tmp_path: Path, server: StreamServer, capsys) -> None:
    root = collection(
        tmp_path, f"{server.url}/sse?count=0&interval=0.02", "[stream]\nmax_events = 3"
    )
    code, out = run(capsys, root)
    assert code == 0, out
    assert "stream: 3 events received, stopped at max_events" in out


def test_a_stream_longer_than_the_kept_events_says_how_many_were_dropped(
    tmp_path: Path, server: StreamServer, capsys
) -> None:
    """The newest 10,000 events are kept; the count is of every event received."""
    total = KEEP_EVENTS + 50
    url = f"{server.url}/sse?count={total}&interval=0&batch=150"
    root = collection(tmp_path, url, f"[stream]\nmax_events = {2 * total}")
    code, out = run(capsys, root)
    assert code == 0, out
    said = f"stream: {total} events received (the newest {KEEP_EVENTS} kept, 50 dropped)"
    assert said in out, out


def test_max_seconds_ends_the_stream(tmp_path: Path, server: StreamServer, capsys) -> None:
    root = collection(
        tmp_path, f"{server.url}/sse?count=0&interval=0.1", "[stream]\nmax_seconds = 0.7"
    )
    started = time.monotonic()
    code, out = run(capsys, root)
    assert code == 0, out
    assert "stopped at max_seconds" in out
    assert time.monotonic() - started < 20  # not the 30 s deadline


def test_without_a_limit_the_deadline_ends_the_stream(
    tmp_path: Path, server: StreamServer, capsys
) -> None:
    root = collection(tmp_path, f"{server.url}/sse?count=0&interval=0.1", "[stream]", timeout=0.8)
    code, out = run(capsys, root)
    assert code == 1
    assert "Timed out after 0.8 s while reading the body" in out


def test_a_script_stops_the_stream_and_sees_each_event(
    tmp_path: Path, server: StreamServer, capsys
) -> None:
    script = """\
event = pigeon.response.event
n = pigeon.response.json()["n"]
assert event["event"] == "tick" and event["id"] == str(n)
assert [e["id"] for e in pigeon.response.events][-1] == str(n)
print("heard", n)
if n == 4:
    pigeon.stopStream()"""
    root = collection(tmp_path, f"{server.url}/sse?count=0&interval=0.05", "[stream]", script)
    code, out = run(capsys, root, "--trust")
    assert code == 0, out
    assert [line.strip() for line in out.splitlines() if "heard" in line] == [
        f"[ticks post_response] heard {n}" for n in range(1, 5)
    ]
    assert "stopped by a script" in out


def test_an_assertion_failing_on_an_event_fails_the_run(
    tmp_path: Path, server: StreamServer, capsys
) -> None:
    script = 'assert pigeon.response.json()["n"] < 2, "too many"'
    root = collection(
        tmp_path, f"{server.url}/sse?count=3&interval=0", "[stream]\nmax_events = 3", script
    )
    code, out = run(capsys, root, "--trust")
    assert code == 1
    assert out.count("too many") == 2  # events 2 and 3


def test_a_script_without_stream_reads_every_event_once(
    tmp_path: Path, server: StreamServer, capsys
) -> None:
    script = """\
ids = [e["id"] for e in pigeon.response.events]
assert ids == ["1", "2", "3"], ids
assert pigeon.response.event is None
pigeon.stopStream()  # nothing to stop: the stream is over"""
    root = collection(tmp_path, f"{server.url}/sse?count=3&interval=0", "", script)
    code, out = run(capsys, root, "--trust")
    assert code == 0, out


def test_stream_keys_round_trip_and_bad_ones_are_refused(tmp_path: Path) -> None:
    text = 'name = "x"\nurl = "http://h"\n\n[stream]\nmax_events = 5\nmax_seconds = 2.5\nnext = 1\n'
    request = request_from_toml(text)
    assert (request.stream.max_events, request.stream.max_seconds) == (5, 2.5)
    assert request_data(request)["stream"] == {"max_events": 5, "max_seconds": 2.5, "next": 1}
    with pytest.raises(Exception, match="stream.max_seconds: expected a positive number"):
        request_from_toml('name = "x"\n[stream]\nmax_seconds = "soon"\n')
