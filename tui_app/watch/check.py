"""Run a check: read every producer on an environment's roster and record what it finds.

Full records are read with bounded concurrency and paced to a number of requests per second.
The client already retries reads (backoff, ``Retry-After``); a 429 seen by any request also
pauses every other one for as long as the service asked, and a record still refused after
the client's retries goes back in the queue. A check cut short (Ctrl-C, a closed app, a
service that went away) is resumed by the next run with only the records it had not read.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any

from tui_app.client.errors import (
    AuthError,
    BadResponse,
    ClientError,
    NotFound,
    Rejected,
    Unavailable,
)
from tui_app.client.registry import RegistryClient, retry_after
from tui_app.watch.findings import (
    DEFAULT_DAYS,
    not_in_registry,
    record_findings,
    snapshot,
)
from tui_app.watch.store import DONE, STOPPED, Check, RosterEntry, WatchDb, WatchStore
from tui_app.words import counted

DEFAULT_RATE = 10.0
"""Requests per second a check sends by default: polite to a shared service."""
DEFAULT_CONCURRENCY = 4
BUSY_PAUSE = 5.0
"""Seconds every request waits after a 429 that named no ``Retry-After``."""
BUSY_GIVE_UP = 5
"""Producers in a row still refused as busy (429) after the client's own retries, at
which a check stops for a later run (QA: a service answering 429 to everything kept a
check going for ever)."""
PROFILE_SET = "Demographic"
"""The export data set holding a profile's Demographic section (agent and agency alike)."""


@dataclass(frozen=True)
class CheckSettings:
    days: int = DEFAULT_DAYS
    rate: float = DEFAULT_RATE
    """Requests per second (0: as fast as the concurrency allows)."""
    concurrency: int = DEFAULT_CONCURRENCY


@dataclass(frozen=True)
class Progress:
    check_id: int
    total: int
    read: int
    failed: int
    findings: int
    per_second: float


@dataclass(frozen=True)
class Outcome:
    check: Check
    findings: int
    """Findings of the whole check (resumed parts included)."""
    unreachable: str | None = None
    """Why the check stopped early because the service could not be reached, if it did."""


def shortfall(check: Check, failures: Sequence[tuple[int, str]]) -> str | None:
    """Why ``check`` does not speak for its whole roster, in a sentence: how many producers
    could not be read and why (the first of ``failures`` stands for the others), how many
    are not read yet and why. None when every producer was read."""
    said = []
    if check.failed:
        npn, error = failures[0]
        said.append(
            f"{check.failed:,} of {counted(check.total, 'producer')} could not be read "
            f"(NPN {npn}: {error})"
        )
    if check.pending:
        # A check still running (or cut short by its process ending) has no reason given.
        why = f" ({check.message})" if check.message else ""
        said.append(f"{check.pending:,} of {counted(check.total, 'producer')} not read yet{why}")
    return "; ".join(said) or None


class Pacer:
    """At most ``rate`` starts per second across all workers, and a shared pause after a
    429. ``clock`` and ``sleep`` are injectable so tests need not wait."""

    def __init__(
        self,
        rate: float,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Awaitable[Any]] = asyncio.sleep,
    ) -> None:
        self._gap = 1.0 / rate if rate > 0 else 0.0
        self._clock = clock
        self._sleep = sleep
        self._next = 0.0
        self._paused_until = 0.0

    def pause(self, seconds: float) -> None:
        self._paused_until = max(self._paused_until, self._clock() + seconds)

    async def wait(self) -> None:
        while True:
            now = self._clock()
            start = max(now, self._next, self._paused_until)
            if start <= now:
                self._next = now + self._gap
                return
            self._next = start + self._gap  # reserve the slot before sleeping
            await self._sleep(start - now)
            if self._clock() >= self._paused_until:
                return


def _settle(
    store: WatchStore,
    check: Check,
    entry: RosterEntry,
    kind: str | None,
    info,
    profile,
    today: date,
) -> int:
    """On the store's thread: compare with the last snapshot, record findings and the new
    snapshot together. Returns the number of findings."""
    if info is None:
        found = [not_in_registry(entry.npn)]
        store.record_read(check.id, check.env, entry.npn, found)
        return len(found)
    previous = store.previous_snapshot(check.env, entry.npn)
    found = record_findings(
        info,
        today,
        days=check.days,
        previous=previous,
        kind=kind or "agent",
        profile_key=entry.profile_key,
        profile=profile,
    )
    store.record_read(
        check.id, check.env, entry.npn, found, kind=kind, snapshot=snapshot(info, previous)
    )
    return len(found)


@dataclass
class _Tally:
    """What one run of a check has counted so far."""

    read: int
    failed: int
    findings: int
    transient: str = ""
    """The last error of a record left for the next run: why the check stopped short."""
    unreachable: str | None = None


async def _read(client: RegistryClient, entry: RosterEntry):
    """(kind, record or None when the registry has no such NPN). An NPN of unknown kind is
    tried as an individual, then as a firm."""
    for kind in (entry.kind,) if entry.kind else ("agent", "agency"):
        read = client.get_agent if kind == "agent" else client.get_agency
        try:
            info = (await read(entry.npn)).NiprFullInfo
        except NotFound:
            continue
        if info.Producer.Npn is None:  # the record asked for by the roster's NPN
            info = info.model_copy(
                update={"Producer": info.Producer.model_copy(update={"Npn": entry.npn})}
            )
        return kind, info
    return entry.kind, None


async def _profile(client: RegistryClient, kind: str, key: str) -> dict[str, Any] | None:
    """The profile's Demographic section as its export gives it, or None if it has none."""
    export = client.export_agent if kind == "agent" else client.export_agency
    try:
        answer = await export({"profileKey": key, "dataSets": [PROFILE_SET]})
    except NotFound:
        return None
    for data_set in answer.dataSets or []:
        if data_set.name == PROFILE_SET and data_set.records:
            return data_set.records[0]
    return None


async def run_check(
    db: WatchDb,
    client: RegistryClient,
    env: str,
    *,
    today: date,
    settings: CheckSettings = CheckSettings(),
    on_progress: Callable[[Progress], None] | None = None,
    stop: asyncio.Event | None = None,
    pacer: Pacer | None = None,
) -> Outcome:
    """Check ``env``'s roster, or carry on with its unfinished check (judged by the date and
    days it started with). Returns when every record is read, ``stop`` is set, or the
    service cannot be reached."""
    check = await db.call(WatchStore.unfinished, env)
    if check is None:
        check = await db.call(WatchStore.start_check, env, today.isoformat(), settings.days)
    else:
        await db.call(WatchStore.set_state, check.id, "RUNNING")
    judged_by = date.fromisoformat(check.today)
    pending = await db.call(WatchStore.pending, check.id, env)
    found = await db.call(WatchStore.count_findings, check.id)
    queue: asyncio.Queue[RosterEntry] = asyncio.Queue()
    for entry in pending:
        queue.put_nowait(entry)
    pacer = pacer or Pacer(settings.rate)
    stop = stop or asyncio.Event()
    state = _Tally(check.read, check.failed, found)
    started = time.monotonic()
    done_here = 0

    async def on_response(response) -> None:
        if response.status_code == 429:
            pacer.pause(retry_after(response) or BUSY_PAUSE)

    def report() -> None:
        if on_progress is not None:
            elapsed = max(time.monotonic() - started, 1e-6)
            on_progress(
                Progress(
                    check.id,
                    check.total,
                    state.read,
                    state.failed,
                    state.findings,
                    done_here / elapsed,
                )
            )

    busy_in_a_row = 0

    async def work() -> None:
        nonlocal done_here, busy_in_a_row
        while not stop.is_set():
            try:
                entry = queue.get_nowait()
            except asyncio.QueueEmpty:
                return
            await pacer.wait()
            if stop.is_set():
                return
            try:
                kind, info = await _read(client, entry)
                profile = None
                if info is not None and entry.profile_key:
                    profile = await _profile(client, kind, entry.profile_key)
            except (Unavailable, AuthError) as exc:
                state.unreachable = exc.message
                stop.set()
                return
            except Rejected as exc:
                if exc.status == 429:  # still busy after the client's own retries
                    queue.put_nowait(entry)
                    busy_in_a_row += 1
                    if busy_in_a_row >= BUSY_GIVE_UP:
                        state.transient = (
                            f"the service kept answering that it is busy: {exc.message}"
                        )
                        stop.set()
                    continue
                await db.call(WatchStore.record_failed, check.id, entry.npn, exc.message)
                state.failed += 1
            except BadResponse as exc:
                await db.call(WatchStore.record_failed, check.id, entry.npn, exc.message)
                state.failed += 1
            except ClientError as exc:  # a 5xx after the client's retries: left for the next run
                state.transient = exc.message
            else:
                # Awaited first: ``state.x += await ...`` would read the count before
                # the await and lose the other workers' additions.
                found_here = await db.call(_settle, check, entry, kind, info, profile, judged_by)
                state.findings += found_here
                state.read += 1
                done_here += 1
                busy_in_a_row = 0
            report()

    remove = client.on_response(on_response)
    try:
        workers = max(1, min(settings.concurrency, len(pending)))
        await asyncio.gather(*(work() for _ in range(workers)))
    finally:
        remove()
        left = await db.call(WatchStore.check, check.id)
        if left.pending == 0:
            await db.call(WatchStore.set_state, check.id, DONE)
        else:
            # Why the records left were not read (how many is the check's pending count).
            why = (
                state.unreachable and f"the service could not be reached: {state.unreachable}"
            ) or (state.transient or "stopped")
            await db.call(WatchStore.set_state, check.id, STOPPED, why)
    report()
    return Outcome(await db.call(WatchStore.check, check.id), state.findings, state.unreachable)
