"""A headless run (DESIGN §6's `pigeon run`): the selected requests in collection order, one
after another through the pipeline, runtime variables carried from one request to the next.

Which requests a selection names, which broken files block it, and what the run adds up to
(``RunSummary`` and its exit code) live here; the one-request pipeline is ``pigeon.pipeline``,
and the console, reports and options are the command line's (``pigeon.cli.run``).
"""

from __future__ import annotations

import asyncio
import difflib
import heapq
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

from pigeon.errors import (
    EXIT_FAILED,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_UNRESOLVED,
    EXIT_USAGE,
    UsageError,
)
from pigeon.model import BrokenFile, Collection, Folder, Request, normalize_ref
from pigeon.pipeline import RequestResult, ResultRecord, RunContext, RunHistory, build, execute
from pigeon.scopes import RuntimeVars, UnknownEnvironment

if TYPE_CHECKING:
    from pigeon.excerpts import Excerpts

__all__ = [
    "EXIT_FAILED",
    "EXIT_INTERRUPTED",
    "EXIT_OK",
    "EXIT_UNRESOLVED",
    "EXIT_USAGE",
    "RequestResult",
    "ResultRecord",
    "RunContext",
    "RunHistory",
    "RunSummary",
    "RunUsageError",
    "build",
    "check_broken",
    "execute",
    "run_collection",
    "folders",
    "select",
    "shard",
]

RunUsageError = UsageError  # the name this module raised before the error tree


@dataclass(repr=False)
class RunSummary:
    """What a run adds up to: its results in order, and the exit code they make.

    Its repr is one short line, never the dataclass repr of every result: asyncio keeps the
    run's task in its SIGINT handler, and ``signal.getsignal`` formats that handler (the task
    and its result) into an error message it discards. A full repr of 3,000 results took 20 s.
    """

    collection: Collection
    results: list[ResultRecord] = field(default_factory=list)
    duration_ms: float = 0.0
    bailed: bool = False
    interrupted: bool = False
    started_at: datetime = field(default_factory=lambda: datetime.now(timezone.utc))

    def __repr__(self) -> str:
        return f"<RunSummary {len(self.results)} results, {self.duration_ms:.0f} ms>"

    @property
    def passed(self) -> int:
        return sum(r.passed for r in self.results)

    @property
    def skipped(self) -> int:
        """Sent, but their assertions did not run (``--no-scripts``): neither passed nor failed."""
        return sum(r.skipped for r in self.results)

    @property
    def failed(self) -> int:
        return len(self.results) - self.passed - self.skipped

    @property
    def exit_code(self) -> int:
        if self.interrupted:
            return EXIT_INTERRUPTED
        if any(r.failed for r in self.results):
            return EXIT_FAILED
        if any(r.strict_failure for r in self.results):
            return EXIT_UNRESOLVED
        return EXIT_OK


def select(
    collection: Collection, selection: list[str] | None
) -> list[tuple[list[Folder], Request]]:
    """The requests a run sends; names are requests or folders. With no names, the whole
    collection in collection order; with names, in the order they are given (a folder's
    requests in collection order), a request named twice (or inside a folder named too)
    sent once, at its first place.

    Only the folders on the way to a selected name are visited, so sending one folder of a
    big collection does not walk all of it.
    """
    if not selection:
        return collection.walk()
    wanted = {normalize_ref(name): name for name in selection}
    rank = {key: n for n, key in enumerate(wanted)}  # the place each name was first given
    found: set[str] = set()
    out: list[tuple[int, list[Folder], Request]] = []

    def first(*places: int | None) -> int | None:
        return min((p for p in places if p is not None), default=None)

    def visit(items: list[Folder | Request], chain: list[Folder], within: int | None) -> None:
        for item in items:
            here = rank.get(item.id)
            if here is not None:
                found.add(item.id)
            place = first(within, here)
            if isinstance(item, Folder):
                if place is not None or any(k.startswith(item.id + "/") for k in wanted):
                    visit(item.items, [*chain, item], place)
            elif place is not None:
                out.append((place, chain, item))

    visit(collection.items, [], None)
    out.sort(key=lambda entry: entry[0])  # stable: collection order under each name
    for key, name in wanted.items():
        if key not in found:
            everything = collection.walk()
            ids = {r.id for _, r in everything} | {f.id for chain, _ in everything for f in chain}
            close = difflib.get_close_matches(key, sorted(ids), n=3)
            hint = f" (did you mean: {', '.join(close)}?)" if close else ""
            raise UsageError(f"no request or folder {name!r} in {collection.root}{hint}")
    return [(chain, request) for _, chain, request in out]


def check_broken(
    collection: Collection, env: str | None, selection: list[str] | None = None
) -> None:
    """Refuse to run when a file the run depends on did not load (exit 2, naming file and line).

    With no selection every broken request and folder file counts; with one, only the
    selected requests and folders and the folder files above them do. An environment file
    counts when it is the environment in use. One bad file elsewhere does not block a run
    that never touches it, and an entry the loader skipped (a link out, a loop) never does.
    """
    relevant = [b for b in collection.broken if _broken_matters(collection, b, env, selection)]
    if relevant:
        first = relevant[0]
        more = f" (and {len(relevant) - 1} more)" if len(relevant) > 1 else ""
        raise UsageError(f"broken collection: {first}{more}")
    if env is not None and env not in collection.environments:
        raise UsageError(str(UnknownEnvironment(env, sorted(collection.environments))))


def _broken_matters(
    collection: Collection, broken: BrokenFile, env: str | None, selection: list[str] | None
) -> bool:
    if broken.skipped:
        return False
    try:
        rel = broken.path.resolve().relative_to(collection.root.resolve()).as_posix()
    except ValueError:
        return True  # outside the root: nothing to scope it by
    parts = rel.split("/")
    if parts[0] == "environments" and len(parts) == 2:
        wanted = collection.default_environment if env is None else env
        return normalize_ref(parts[1]) == wanted
    if not selection:
        return True
    if parts[-1] == "collection.toml" and len(parts) == 1:
        return True
    if parts[-1] == "folder.toml":
        folder = "/".join(parts[:-1])
        keys = [normalize_ref(name) for name in selection]
        return any(k == folder or k.startswith(folder + "/") for k in keys)
    key = normalize_ref(rel)
    return any(key == k or key.startswith(k + "/") for k in map(normalize_ref, selection))


def shard(
    selected: list[tuple[list[Folder], Request]],
    index: int,
    count: int,
    weight: Callable[[Request], float] | None = None,
) -> list[tuple[list[Folder], Request]]:
    """Shard ``index`` (1-based) of ``count``: whole top-level folders (requests chain within
    a folder, so one is never split; the top-level requests together count as one), dealt
    out heaviest first to the least loaded shard so far, ties to the lower shard. A unit
    weighs its requests' count, or with ``weight`` (``--shard-by durations``: an earlier
    run's times) their sum. Deterministic: the same collection, selection and weights always
    give the same slices, and the shards together hold every selected request exactly once,
    in collection order."""
    if not 1 <= index <= count:
        raise UsageError(f"--shard {index}/{count}: expected K/N with 1 <= K <= N")
    # The work is the units', whatever ``count`` is: a shard no unit has reached yet has the
    # least load, so the next unit goes to the lowest of them while any is left (unless a
    # lower shard's units weigh nothing); after that, the least loaded comes off a heap.
    loads: list[tuple[float, int]] = []  # (load, shard) of the shards that hold a unit
    fresh = 0  # the shards from here on hold nothing yet
    mine: list[int] = []
    units = folders(selected)
    sizes = [sum(map(weight, (r for _, r in u))) if weight else len(u) for u in units]
    for n in sorted(range(len(units)), key=lambda n: -sizes[n]):  # stable: ties in order
        if fresh < count and not (loads and loads[0][0] <= 0):
            load, target, fresh = 0.0, fresh, fresh + 1
        else:
            load, target = heapq.heappop(loads)
        heapq.heappush(loads, (load + sizes[n], target))
        if target == index - 1:
            mine.append(n)
    return [item for n in sorted(mine) for item in units[n]]


def folders(
    selected: list[tuple[list[Folder], Request]],
) -> list[list[tuple[list[Folder], Request]]]:
    """The selection by top-level folder, in collection order (the top-level requests
    together are one): the units a shard or a parallel lane takes whole."""
    units: dict[str, list[tuple[list[Folder], Request]]] = {}
    for chain, request in selected:
        units.setdefault(chain[0].id if chain else "", []).append((chain, request))
    return list(units.values())


async def run_collection(
    ctx: RunContext,
    selection: list[str] | None = None,
    *,
    strict: bool | None = None,
    bail: bool = False,
    on_result: Callable[[ResultRecord], None] | None = None,
    requests: list[tuple[list[Folder], Request]] | None = None,
    iterations: Iterable[tuple[str, Mapping[str, Any]]] | None = None,
    positions: Mapping[int, int] | None = None,
    lanes: Sequence[RunContext] = (),
    excerpts: Excerpts | None = None,
) -> RunSummary:
    """Send the selected requests one after another, sharing runtime variables.

    ``strict`` (when given) overrides ``ctx.strict``; an unknown name in ``selection``
    raises ``UsageError`` before anything is sent. ``requests`` (already selected, e.g. one
    shard) replaces ``selection``. ``iterations`` runs them once per ``(label, variables)``:
    the variables sit at ``--var`` precedence (an explicit ``--var`` still wins), each
    result's id says which iteration it was (``create-user [row 3]``), and runtime variables
    carry over from one iteration to the next as from one request to the next.
    ``positions`` maps a request (by ``id()``) to its place in the whole selection, so the
    results of shards can be merged back in order (``ResultRecord.seq``).

    ``lanes`` (more contexts like ``ctx``, each with its own HTTP session and script
    worker) run top-level folders at the same time (`--parallel`): each folder's requests
    in order, with runtime variables of its own; the results come back in collection order.
    ``excerpts``: where each request's masked request and response go, for the reports.
    """
    contexts = [ctx, *lanes]
    for c in contexts:
        if strict is not None:
            c.strict = strict
    chosen = requests if requests is not None else select(ctx.collection, selection)
    # Iterated once, as the run goes: a data file's rows are read as they are reached.
    rounds: Iterable[tuple[str, Mapping[str, Any]]] = iterations or [("", {})]
    base_vars = dict(ctx.cli_vars)
    total = len(positions) if positions is not None else len(chosen)
    order = positions if positions is not None else {id(r): n for n, (_, r) in enumerate(chosen)}
    summary = RunSummary(ctx.collection)  # its started_at: now, as the run starts
    started = time.perf_counter()

    async def one(
        c: RunContext, chain: list[Folder], request: Request, number: int, label: str
    ) -> bool:
        """Send one request and keep its record; False once the run must stop (--bail)."""
        result = await execute(c, chain, request)
        seq = number * total + order[id(request)]
        record = result.record(seq=seq, label=label, excerpts=excerpts)
        summary.results.append(record)
        if on_result is not None:
            on_result(record)
        if bail and not record.passed:
            summary.bailed = True
        return not summary.bailed

    async def lane(
        c: RunContext, units: list[list[tuple[list[Folder], Request]]], number: int, label: str
    ) -> None:
        while units and not summary.bailed:
            unit = units.pop(0)
            c.runtime = RuntimeVars()  # each folder's own, as if it ran alone
            c._scopes.clear()
            for chain, request in unit:
                if not await one(c, chain, request, number, label):
                    return

    try:
        for number, (label, variables) in enumerate(rounds):
            for c in contexts:
                if variables:
                    c.cli_vars = {**variables, **base_vars}
                    c._scopes.clear()  # they hold the last iteration's variables
            if lanes:
                units = folders(chosen)
                await asyncio.gather(*(lane(c, units, number, label) for c in contexts))
            else:
                for chain, request in chosen:
                    if not await one(ctx, chain, request, number, label):
                        break
            if summary.bailed:
                break
    finally:
        summary.duration_ms = (time.perf_counter() - started) * 1000
        for c in contexts:
            c.cli_vars = base_vars
        if lanes:
            summary.results.sort(key=lambda r: r.seq)
    return summary
