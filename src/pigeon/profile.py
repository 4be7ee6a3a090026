"""A latency profile of one request (the app, DESIGN §9; the measure of §13's load, on one
machine): sent N times, C at once, each send timed to its full response, then the
percentiles, a histogram, the errors by kind and the bytes received.

What a send is comes from outside (``Session.profile`` hands a ``send`` that goes through
the pipeline), so this module only runs lanes, keeps samples and writes the result as text.
It keeps one float per answered send and counters, never a body: 10,000 sends cost a list of
floats. The text (``report_lines``) takes a ``ProfileStats``, not live sends, so a fixed set of
results draws the same picture every time.
"""

from __future__ import annotations

import asyncio
import bisect
import math
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from pigeon.exchange import Exchange, duration
from pigeon.files import size_text

MAX_SENDS = 10_000
MAX_AT_ONCE = 64
DEFAULT_SENDS = 50
DEFAULT_AT_ONCE = 1

NOT_SENT = "not sent"  # the request did not render, a pre-request script failed, trust refused


@dataclass(frozen=True, slots=True)
class Sample:
    """One send: its latency when a response came (any status), the bytes received, and what
    went wrong, by kind (``status 5xx``, ``timeout``, ``connect``, ``not sent``...)."""

    latency_ms: float | None
    received: int = 0
    error: str | None = None
    message: str = ""  # the error as the send said it


def sample_of(exchange: Exchange | None, error: str | None = None) -> Sample:
    """The sample one send's outcome makes: a status of 400 or more is an error of its class,
    a failed transfer one of its kind; no exchange at all means the request was not sent."""
    if exchange is None:
        return Sample(None, error=NOT_SENT, message=error or "")
    received = exchange.size
    if exchange.status is None:
        kind = exchange.error_kind or "other"
        return Sample(None, received, kind, exchange.error or "")
    latency = exchange.elapsed_ms
    if exchange.error:  # a response whose body was cut off: timed, and counted as its kind
        return Sample(latency, received, exchange.error_kind or "other", exchange.error)
    if exchange.status >= 400:
        status = f"status {exchange.status // 100}xx"
        return Sample(latency, received, status, f"{exchange.status} {exchange.reason}".strip())
    return Sample(latency, received)


def check_counts(sends: int, at_once: int) -> str | None:
    """Why ``sends`` and ``at_once`` cannot be profiled, or ``None``."""
    if not 1 <= sends <= MAX_SENDS:
        return f"sends: a whole number from 1 to {MAX_SENDS:,}"
    if not 1 <= at_once <= MAX_AT_ONCE:
        return f"at once: a whole number from 1 to {MAX_AT_ONCE}"
    return None


def percentile(ordered: list[float] | tuple[float, ...], p: float) -> float | None:
    """The nearest-rank percentile of ``ordered`` (sorted): a value that was measured, the
    smallest with at least ``p`` % of the values at or below it; ``None`` for no values."""
    if not ordered:
        return None
    rank = max(1, math.ceil(p / 100 * len(ordered)))
    return ordered[min(rank, len(ordered)) - 1]


@dataclass(frozen=True)
class ErrorCount:
    kind: str
    count: int
    example: str  # the first one's message


@dataclass(frozen=True)
class ProfileStats:
    """What a profile came to (so far, while it runs)."""

    sends: int  # asked for
    at_once: int
    done: int  # sends that finished (answered or failed)
    latencies: tuple[float, ...]  # ms of the answered sends, sorted
    errors: tuple[ErrorCount, ...] = ()  # most frequent first
    received: int = 0  # bytes: headers and bodies
    seconds: float = 0.0  # wall clock from the first send
    stopped: bool = False  # escape stopped it: the figures are of the sends that finished

    @property
    def partial(self) -> bool:
        return self.done < self.sends

    def percentile(self, p: float) -> float | None:
        return percentile(self.latencies, p)

    @property
    def mean(self) -> float | None:
        return sum(self.latencies) / len(self.latencies) if self.latencies else None

    @property
    def per_second(self) -> float | None:
        return self.done / self.seconds if self.seconds > 0 else None

    @property
    def failed(self) -> int:
        return sum(e.count for e in self.errors)


@dataclass
class Samples:
    """The store: latencies and counters, no bodies."""

    latencies: list[float] = field(default_factory=list)
    errors: dict[str, int] = field(default_factory=dict)  # kind: count
    examples: dict[str, str] = field(default_factory=dict)  # kind: the first one's message
    received: int = 0
    done: int = 0

    def add(self, sample: Sample) -> None:
        self.done += 1
        self.received += sample.received
        if sample.latency_ms is not None:
            self.latencies.append(sample.latency_ms)
        if sample.error is not None:
            self.errors[sample.error] = self.errors.get(sample.error, 0) + 1
            self.examples.setdefault(sample.error, sample.message)

    def stats(self, sends: int, at_once: int, seconds: float, stopped: bool) -> ProfileStats:
        errors = sorted(
            (ErrorCount(kind, n, self.examples[kind]) for kind, n in self.errors.items()),
            key=lambda e: (-e.count, e.kind),
        )
        return ProfileStats(
            sends,
            at_once,
            self.done,
            tuple(sorted(self.latencies)),
            tuple(errors),
            self.received,
            seconds,
            stopped,
        )


class Profile:
    """``sends`` sends of ``send()``, ``at_once`` in flight at any moment (fewer only at the
    end): ``at_once`` lanes, each starting the next send as its last one finishes.

    ``stop()`` cancels the sends in flight and starts no more; ``run()`` then returns what the
    finished sends came to, marked stopped. A send that raises is counted as an ``other``
    error, never ends the profile. ``finished`` runs once the sends are over.
    """

    def __init__(
        self,
        send: Callable[[], Awaitable[Sample]],
        sends: int = DEFAULT_SENDS,
        at_once: int = DEFAULT_AT_ONCE,
        clock: Callable[[], float] = time.perf_counter,
        finished: Callable[[], Awaitable[None]] | None = None,
    ) -> None:
        problem = check_counts(sends, at_once)
        if problem:
            raise ValueError(problem)
        self.sends, self.at_once = sends, at_once
        self.samples = Samples()
        self.started = 0  # sends begun
        self.stopped = False
        self._send, self._clock, self._finished = send, clock, finished
        self._lanes: list[asyncio.Task[None]] = []
        self._began: float | None = None
        self._ended: float | None = None

    def stats(self) -> ProfileStats:
        """The figures so far (a running profile's live line, or its end)."""
        if self._began is None:
            return self.samples.stats(self.sends, self.at_once, 0.0, self.stopped)
        seconds = (self._ended if self._ended is not None else self._clock()) - self._began
        return self.samples.stats(self.sends, self.at_once, seconds, self.stopped)

    async def _lane(self, on_sample: Callable[[Profile], None] | None) -> None:
        while not self.stopped and self.started < self.sends:
            self.started += 1
            try:
                sample = await self._send()
            except Exception as exc:  # a defect in one send fails that send only
                sample = Sample(None, error="other", message=f"{type(exc).__name__}: {exc}")
            self.samples.add(sample)
            if on_sample is not None:
                on_sample(self)

    async def run(self, on_sample: Callable[[Profile], None] | None = None) -> ProfileStats:
        """Send them all (or until ``stop()``); ``on_sample`` hears each send finish."""
        self._began = self._clock()
        lanes = [asyncio.ensure_future(self._lane(on_sample)) for _ in range(self.at_once)]
        self._lanes = lanes
        try:
            await asyncio.wait(lanes)
        finally:  # cancelled from outside too: no send is left running
            for lane in lanes:
                lane.cancel()
            await asyncio.gather(*lanes, return_exceptions=True)
            self._ended = self._clock()
        if self._finished is not None:  # what the sends changed is kept (the cookie jar)
            await self._finished()
        return self.stats()

    def stop(self) -> None:
        """Cancel the sends in flight; start no more."""
        self.stopped = True
        for lane in self._lanes:
            lane.cancel()


# -- the text ---------------------------------------------------------------------------------

BAR = "█"
EIGHTHS = " ▏▎▍▌▋▊▉"


@dataclass(frozen=True)
class Bucket:
    low: float
    high: float
    count: int


def histogram(ordered: tuple[float, ...] | list[float], buckets: int) -> list[Bucket]:
    """``ordered`` (sorted) in at most ``buckets`` buckets from the least to the greatest value,
    each as many times wider than the last (latencies have long tails: a few slow sends must
    not squeeze all the others into one bar); of equal width when the least is 0, one bucket
    when they are all equal."""
    if not ordered:
        return []
    low, high = ordered[0], ordered[-1]
    if high <= low or buckets <= 1:
        return [Bucket(low, high, len(ordered))]
    if low > 0:
        ratio = high / low
        edges = [low * ratio ** (i / buckets) for i in range(buckets + 1)]
    else:
        edges = [low + (high - low) * i / buckets for i in range(buckets + 1)]
    edges[-1] = high
    counts = [0] * buckets
    for value in ordered:
        counts[min(buckets - 1, bisect.bisect_right(edges, value) - 1)] += 1
    return [Bucket(edges[i], edges[i + 1], n) for i, n in enumerate(counts)]


def bar(count: int, most: int, width: int) -> str:
    """A bar of ``count`` out of ``most`` in ``width`` cells, in eighths of a cell; a count above
    zero always shows."""
    if most <= 0 or width <= 0 or count <= 0:
        return ""
    eighths = max(1, round(count / most * width * 8))
    whole, part = divmod(eighths, 8)
    return BAR * whole + (EIGHTHS[part] if part else "")


def _joined(parts: list[str], sep: str, width: int) -> list[str]:
    """``parts`` joined by ``sep`` on as few lines of ``width`` cells as they fit."""
    lines: list[str] = []
    for part in parts:
        if lines and len(lines[-1]) + len(sep) + len(part) <= width:
            lines[-1] += sep + part
        else:
            lines.append(part)
    return lines


def summary_parts(stats: ProfileStats) -> list[str]:
    """``50 of 50 sent in 1.23 s``, ``40.6/s``, ``2 failed``, ``12.3 KB received``."""
    rate = stats.per_second
    parts = [
        f"{stats.done:,} of {stats.sends:,} sent in {duration(stats.seconds * 1000)}",
        f"{rate:,.1f}/s" if rate is not None else "",
        f"{stats.failed:,} failed" if stats.failed else "none failed",
        f"{size_text(stats.received)} received",
    ]
    if stats.stopped and stats.partial:
        parts[0] = f"Stopped: {parts[0]}"
    return [p for p in parts if p]


def percentile_parts(stats: ProfileStats) -> list[str]:
    """``p50 12 ms``, ``p90 …``, ``p99``, ``max``, ``min``, ``mean``."""
    values = [
        ("p50", stats.percentile(50)),
        ("p90", stats.percentile(90)),
        ("p99", stats.percentile(99)),
        ("max", stats.latencies[-1] if stats.latencies else None),
        ("min", stats.latencies[0] if stats.latencies else None),
        ("mean", stats.mean),
    ]
    return [f"{name} {duration(value)}" for name, value in values]


def histogram_lines(stats: ProfileStats, width: int, rows: int) -> list[str]:
    """The latencies as ``rows`` bars at most, each line ``width`` cells at most:
    ``  12 ms – 15 ms │█████▌   7``."""
    found = histogram(stats.latencies, rows)
    if not found:
        return []
    labels = [f"{duration(b.low)} – {duration(b.high)}" for b in found]
    label_width = max(len(label) for label in labels)
    count_width = max(len(f"{b.count:,}") for b in found)
    room = max(1, width - label_width - count_width - 4)
    most = max(b.count for b in found)
    lines = []
    for label, b in zip(labels, found, strict=True):
        drawn = bar(b.count, most, room)
        lines.append(f"{label:>{label_width}} │{drawn:<{room}} {b.count:>{count_width},}")
    return lines


def report_lines(stats: ProfileStats, width: int, rows: int = 10) -> list[str]:
    """The whole result as text ``width`` cells wide: the summary, the percentiles, the
    histogram (``rows`` bars at most) and the errors by kind, each with its first message."""
    lines = _joined(summary_parts(stats), " · ", width)
    lines.append("")
    if stats.latencies:
        lines.extend(_joined(percentile_parts(stats), "   ", width))
        lines.append("")
        lines.extend(histogram_lines(stats, width, rows))
    else:
        lines.append("No response came: no latency to show.")
    if stats.errors:
        lines.append("")
        lines.append("Errors")
        kind_width = max(len(e.kind) for e in stats.errors)
        count_width = max(len(f"{e.count:,}") for e in stats.errors)
        for error in stats.errors:
            head = f"  {error.kind:<{kind_width}}  {error.count:>{count_width},}  "
            example = " ".join(error.example.split())
            room = max(0, width - len(head))
            if len(example) > room:
                example = example[: max(0, room - 1)] + "…" if room else ""
            lines.append((head + example).rstrip())
    return [line[:width] if len(line) > width else line for line in lines]
