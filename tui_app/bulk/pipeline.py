"""Run a bulk job: validate the file into the journal, send batches, poll, retry, resume.

One run does everything that is left of a job, so starting, resuming and retrying are the
same call (:func:`run_job`)::

    job = create_job(journal, path, env_name)            # checks and fingerprints the file
    job = await run_job(journal, job.id, client)         # returns when DONE or STOPPED

Inside a run, validation streams the file in a worker thread, recording lines as it goes,
while the event loop sends full batches as soon as they exist: memory stays constant
whatever the file's size. Each batch is one task: POST it, then poll its bulkRequestId
with a growing delay until it is COMPLETE, then record each record's result. At most
``concurrency`` requests (POSTs and polls together) are in flight, and at most
``4 × concurrency`` batches are between formation and result.

Failures:

- a record FAILED with ``retryable`` true goes back to be sent again in a later batch with
  the same clientRefId, after a growing delay, until ``max_attempts`` results; a
  non-retryable failure is final;
- a request that fails as a whole (5xx, 429, a timeout, a lost connection, after the
  client's own retries) is tried again with a growing delay; after ``request_attempts``
  tries in a row the run stops, and the job is resumed later. A POST whose answer never
  came is marked uncertain (see :mod:`tui_app.bulk.journal`);
- a 400 that names bad lines fails those lines and sends the rest again; any other 4xx,
  or refused credentials, stops the run with the service's message: it is not about the
  records, and nothing is lost by stopping.

Setting ``stop`` ends a run gracefully: no new POST starts, POSTs in flight finish and
are recorded, polling stops (accepted batches are polled by the next run). The job's
message then says :data:`INTERRUPTED` (its runner was, by Ctrl-C or SIGTERM), and
"stopped on request" after a stop asked through the journal (``bulk stop``, the TUI's F7).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import itertools
import json
import os
import threading
import time
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tui_app.bulk.checker import checked_chunks
from tui_app.bulk.journal import (
    BATCH_DONE,
    COMPLETED,
    DONE,
    FAILED,
    INVALID,
    PENDING,
    POLLING,
    REJECTED,
    SENDING,
    STOPPED,
    UNKNOWN,
    VALIDATING,
    Batch,
    BatchLine,
    Job,
    Journal,
    LineUpdate,
)
from tui_app.bulk.source import (
    Fingerprint,
    SourceError,
    SourceFile,
    check,
    inspect_file,
    same_ref,
    verify_unchanged,
)
from tui_app.bulk.worker import Attached, look
from tui_app.client.errors import (
    AuthError,
    BadResponse,
    NotFound,
    Rejected,
    ServerError,
    Unavailable,
    Unreachable,
)
from tui_app.client.registry import RegistryClient
from tui_app.contract.bulk import MAX_RECOMMENDED_BATCH, BulkItem, RequestItem
from tui_app.own_thread import OwnThread

SCAN_CHUNK = 500
"""Lines validated per journal transaction."""
AHEAD = 40
"""Batches' worth of lines validated ahead of sending, at most (plenty to keep every
request slot busy)."""
PROGRESS_EVERY = 0.2
"""Seconds between two progress reports (each reads the journal)."""
STOP_CHECK_EVERY = 0.5
"""Seconds between two looks at the journal for a stop asked by another process."""
INTERRUPTED = "interrupted"
"""The message of a job whose run was stopped by its runner, not asked to stop."""


@dataclass(frozen=True)
class Backoff:
    """Delays that grow by ``factor`` from ``first`` up to ``cap`` seconds."""

    first: float
    cap: float
    factor: float = 2.0

    def delay(self, attempt: int) -> float:
        """The delay after the ``attempt``-th try (1-based)."""
        return min(self.cap, self.first * self.factor ** (attempt - 1))

    def delays(self) -> Iterator[float]:
        return (self.delay(n) for n in itertools.count(1))


@dataclass(frozen=True)
class Settings:
    concurrency: int = 4
    """Requests in flight at once, POSTs and status polls together."""
    max_attempts: int = 3
    """Results a record may have while its failures are retryable."""
    request_attempts: int = 5
    """Tries of a request that keeps failing before the run stops (each try includes the
    client's own retries of 429, 503 and connection failures)."""
    retry: Backoff = Backoff(0.5, 5.0)
    """Delays before a failed request or a retryable record is sent again."""
    poll: Backoff = Backoff(0.05, 5.0, 1.5)
    """Delays between status polls of one request (the first one after the POST's
    answer: a request of 100 records is often processed by then), until requests have
    been seen to complete: then polls follow how long they took (:meth:`_Run._poll_delays`)."""

    def __post_init__(self) -> None:
        if self.concurrency < 1 or self.max_attempts < 1 or self.request_attempts < 1:
            raise ValueError("concurrency and attempts must be at least 1")


DELAYS_VARIABLE = "PRODUCER_TUI_BULK_DELAYS"
"""Scales every retry and poll delay of a worker (``0.05``: twenty times quicker), for
tests and demonstrations that want a retried job to end in seconds."""


def settings_for(concurrency: int) -> Settings:
    """The settings a worker runs with: the defaults, delays scaled by ``DELAYS_VARIABLE``."""
    settings = Settings(concurrency=concurrency)
    try:
        scale = float(os.environ.get(DELAYS_VARIABLE, "1"))
    except ValueError:
        scale = 1.0
    if scale <= 0 or scale == 1:
        return settings
    retry, poll = settings.retry, settings.poll
    return dataclasses.replace(
        settings,
        retry=Backoff(retry.first * scale, retry.cap * scale, retry.factor),
        poll=Backoff(poll.first * scale, poll.cap * scale, poll.factor),
    )


ProgressCallback = Callable[[Job], None]


class AlreadySubmitted(SourceError):
    """The file, byte for byte, is already a job of the environment: submitting it again
    would send every record again, and its data may be older than what the service has
    been given since."""

    def __init__(self, path: Path, earlier: Attached, fingerprint: Fingerprint) -> None:
        super().__init__(f"{path} was already submitted as job {earlier.job.id} "
                         f"({earlier.words()}, on {earlier.job.created_at[:10]})")  # fmt: skip
        self.earlier = earlier
        self.fingerprint = fingerprint
        """The file as it was read: a submission the user confirms need not read it again
        (if it changes meanwhile, the job's run refuses it)."""


def create_job(
    journal: Journal,
    path: Path,
    env: str,
    batch_size: int = MAX_RECOMMENDED_BATCH,
    max_bytes: int | None = None,
    *,
    once: bool = False,
    fingerprint: Fingerprint | None = None,
) -> Job:
    """Record a new job for ``path`` on environment ``env``; run it with :func:`run_job`.
    ``max_bytes`` caps a request's body (the environment's ``bulk_max_request_bytes``).
    Raises :class:`~tui_app.bulk.source.SourceError` for a file that cannot be imported,
    and, if ``once``, :class:`AlreadySubmitted` for a file with the same content as an
    earlier job of ``env`` (the newest one). ``fingerprint``: the file's, if the caller
    has it already (from that refusal)."""
    if not 1 <= batch_size <= MAX_RECOMMENDED_BATCH:
        raise ValueError(f"the batch size must be between 1 and {MAX_RECOMMENDED_BATCH}")
    path = path.resolve()
    fingerprint = fingerprint or inspect_file(path)
    if once and (earlier := journal.jobs_of_file(env, fingerprint.sha256)):
        raise AlreadySubmitted(path, look(journal, earlier[0].id), fingerprint)
    return journal.create_job(env, path, fingerprint, batch_size, max_bytes)


async def run_job(
    journal: Journal,
    job_id: str,
    client: RegistryClient,
    settings: Settings = Settings(),
    *,
    on_progress: ProgressCallback | None = None,
    stop: asyncio.Event | None = None,
    locked: bool = False,
) -> Job:
    """Do all that is left of a job with ``client`` (which must talk to the job's
    environment) and return the job as it ends: DONE, or STOPPED with a message.
    ``on_progress`` is called on the event loop after each step. ``locked``: the caller
    holds the job's lock already (a worker takes it before it connects, so two workers
    never both connect). Raises :class:`~tui_app.bulk.journal.JobBusy` if another
    process runs the job and :class:`~tui_app.bulk.source.SourceChanged` if its file
    changed."""
    with contextlib.nullcontext() if locked else journal.running(job_id):
        return await _run_locked(journal, job_id, client, settings, on_progress, stop)


async def _run_locked(
    journal: Journal,
    job_id: str,
    client: RegistryClient,
    settings: Settings,
    on_progress: ProgressCallback | None,
    stop: asyncio.Event | None,
) -> Job:
    writer: OwnThread[Journal] = OwnThread("journal")  # the journal is the caller's
    db = writer.run
    try:
        await db(journal.started, job_id, os.getpid())
        job = await db(journal.job, job_id)
        try:
            await db(verify_unchanged, job.path, job.fingerprint)  # may hash the whole file
        except SourceError as exc:  # said in the journal: attached interfaces show why
            await db(journal.set_state, job.id, STOPPED, str(exc))
            raise
        with SourceFile(job.path) as source:
            run = _Run(journal, job, client, settings, source, on_progress, stop, db)
            try:
                await run.run()
            except BaseException as exc:
                why = INTERRUPTED if isinstance(exc, asyncio.CancelledError) else repr(exc)
                # Written at once, on this thread: the loop may be shutting down, and the
                # state must be said whatever happens next.
                journal.set_state(job.id, STOPPED, why)
                raise
        return await db(journal.job, job.id)
    finally:
        writer.close()


class _Run:
    """One run of one job: the state shared by the feeder, the scan and the batch tasks.

    Journal calls go to one thread of their own (``_db``), in order, so a commit (the one
    before each POST is synced to disk) never holds up the requests in flight."""

    def __init__(
        self,
        journal: Journal,
        job: Job,
        client: RegistryClient,
        settings: Settings,
        source: SourceFile,
        on_progress: ProgressCallback | None,
        stop: asyncio.Event | None,
        db: Callable[..., Awaitable[Any]],
    ) -> None:
        self.journal = journal
        self.job = job
        self.client = client
        self.settings = settings
        self.source = source
        self.on_progress = on_progress
        self.stop = stop or asyncio.Event()
        self.stop_reason: str | None = None
        self.in_flight = asyncio.Semaphore(settings.concurrency)
        self.window = asyncio.Semaphore(4 * settings.concurrency)
        self.changed = asyncio.Event()  # a batch finished or more lines were validated
        self.scanning = not job.scan_done
        self.sending = job.counts.sent_so_far > 0  # lines went out, in this run or before
        self.active = 0  # batch tasks running
        self.state: str | None = None
        self.max_bytes = job.max_bytes
        self.took: float | None = None  # seconds a request takes to complete, smoothed
        self._db = db
        self._reported = 0.0
        self._report_due = False  # a report is on its way
        self._reports: set[asyncio.Task] = set()

    # --- the run --------------------------------------------------------------------

    async def run(self) -> None:
        await self._db(self.journal.set_state, self.job.id, self._phase(due=True))
        watcher = asyncio.create_task(self._watch_for_stop())
        try:
            async with asyncio.TaskGroup() as tasks:
                if self.scanning:
                    tasks.create_task(self._scan())
                for batch in await self._db(self.journal.recover, self.job.id):
                    await self.window.acquire()
                    self._start(tasks, batch)
                await self._feed(tasks)
        finally:
            watcher.cancel()
            for report in self._reports:
                report.cancel()  # none may come after the run: the last report says all
        await asyncio.gather(*self._reports, return_exceptions=True)
        if self.stop.is_set():
            await self._db(self.journal.release_unsent, self.job.id)
            await self._db(self.journal.set_state, self.job.id, STOPPED,
                           self.stop_reason or INTERRUPTED)  # fmt: skip
        else:
            await self._db(self.journal.set_state, self.job.id, DONE)
        await self._report()

    async def _watch_for_stop(self) -> None:
        """Honour a stop asked through the journal (``bulk stop``, another app's F7)."""
        while not self.stop.is_set():
            if await self._pause(STOP_CHECK_EVERY):
                return
            if await self._db(self.journal.stop_requested, self.job.id):
                self._halt("stopped on request")

    async def _feed(self, tasks: asyncio.TaskGroup) -> None:
        """Form batches from lines due to be sent until every line is settled."""
        size = self.job.batch_size
        while not self.stop.is_set():
            self.changed.clear()
            await self.window.acquire()
            if self.stop.is_set():
                self.window.release()
                return
            # While the file is still being read, only full batches go out.
            batch = await self._db(
                self.journal.take_batch, self.job.id, size,
                min_size=size if self.scanning else 1, now=time.time(), max_bytes=self.max_bytes,
            )  # fmt: skip
            if batch is not None:
                self._start(tasks, batch)
                continue
            self.window.release()
            due = await self._db(self.journal.next_due, self.job.id)
            if due is None and not self.scanning and not self.active:
                return
            await self._set_state(self._phase(due=due is not None))
            wait = None if due is None else due - time.time()
            if wait is not None and wait <= 0:
                if not self.scanning:
                    continue  # it became due just now
                wait = None  # due, but too few for a batch: wait for the file's next lines
            await self._wait_for_change(wait)

    def _phase(self, *, due: bool) -> str:
        """The job's state: VALIDATING only while its file is read and nothing has gone out
        yet (the scan is kept just ahead of sending, so the file is read for most of a
        run; the journal makes the job SENDING with its first batch); then SENDING while
        lines are due or the file holds more, else POLLING."""
        if self.scanning and not self.sending:
            return VALIDATING
        return SENDING if due or self.scanning else POLLING

    async def _wait_for_change(self, timeout: float | None) -> None:
        waits = [
            asyncio.ensure_future(self.changed.wait()),
            asyncio.ensure_future(self.stop.wait()),
        ]
        try:
            await asyncio.wait(waits, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for waiting in waits:
                waiting.cancel()

    def _start(self, tasks: asyncio.TaskGroup, batch: Batch) -> None:
        self.active += 1
        self.sending = True
        tasks.create_task(self._follow(batch))

    async def _follow(self, batch: Batch) -> None:
        try:
            accepted = await self._post(batch) if batch.bulk_request_id is None else batch
            if accepted is not None:
                await self._poll(accepted)
        finally:
            self.active -= 1
            self.window.release()
            self.changed.set()
            self._progress()

    def _halt(self, reason: str) -> None:
        """Stop the run gracefully (the first reason is kept)."""
        if not self.stop.is_set():
            self.stop_reason = reason
            self.stop.set()

    async def _pause(self, seconds: float) -> bool:
        """Sleep; True if the run was stopped meanwhile."""
        try:
            await asyncio.wait_for(self.stop.wait(), seconds)
        except TimeoutError:
            return False
        return True

    async def _set_state(self, state: str) -> None:
        if state != self.state:
            self.state = state
            await self._db(self.journal.set_state, self.job.id, state)
            await self._report()

    def _progress(self) -> None:
        """Report the job to ``on_progress``, at most every ``PROGRESS_EVERY`` seconds. A
        change within that time is reported at its end: dropped, the last change before a
        quiet spell (requests accepted, their results slow to come) went unreported."""
        if self.on_progress is None or self._report_due:
            return
        self._report_due = True
        task = asyncio.ensure_future(self._report_soon())
        self._reports.add(task)
        task.add_done_callback(self._reports.discard)

    async def _report_soon(self) -> None:
        """A report at the end of the interval since the last one (at once if it is over)."""
        await asyncio.sleep(max(0.0, self._reported + PROGRESS_EVERY - time.monotonic()))
        self._report_due = False
        await self._report()

    async def _report(self) -> None:
        """The job as the journal has it, read on the journal's thread, to ``on_progress``."""
        if self.on_progress is not None:
            self._reported = time.monotonic()
            self.on_progress(await self._db(self.journal.job, self.job.id))

    # --- validation -----------------------------------------------------------------

    async def _scan(self) -> None:
        cancelled = threading.Event()
        loop = asyncio.get_running_loop()

        def notify() -> None:
            self.changed.set()
            self._progress()

        def notify_from_thread() -> None:
            loop.call_soon_threadsafe(notify)

        try:
            await asyncio.to_thread(self._scan_file, cancelled, notify_from_thread)
        except asyncio.CancelledError:
            cancelled.set()  # the thread stops at its next chunk
            raise
        finally:
            self.scanning = False
            self.changed.set()

    def _scan_file(self, cancelled: threading.Event, notify: Callable[[], None]) -> None:
        """Validate the rest of the file into the journal (in a worker thread)."""
        job = self.job
        chunks = checked_chunks(job.path, SCAN_CHUNK, start_offset=job.scanned_offset,
                                start_line=max(job.scanned_line, 1), after=job.scanned_line)  # fmt: skip
        with contextlib.closing(chunks):
            for chunk in chunks:
                self.journal.add_lines(job.id, chunk, done=False)
                notify()
                if self._wait_for_sending(cancelled):
                    return
        self.journal.add_lines(job.id, [], done=True)
        notify()

    def _wait_for_sending(self, cancelled: threading.Event) -> bool:
        """Keep validation at most ``AHEAD`` batches ahead of sending: the scanning thread
        and the event loop share one interpreter lock, and a scan racing through a large
        file starves the requests (a million-line job sent 240 records/s while its file
        was read). True if the run was stopped meanwhile."""
        limit = AHEAD * self.job.batch_size
        while not (cancelled.is_set() or self.stop.is_set()):
            if self.journal.counts(self.job.id).pending <= limit:
                return False
            time.sleep(0.02)
        return True

    # --- sending --------------------------------------------------------------------

    def _body(self, batch: Batch) -> tuple[Batch, list[bytes], list[LineUpdate]]:
        """The request's lines: each read back from the file, checked unchanged by its
        CRC, sent as written (wrapped in an envelope if bare) or rebuilt from the model
        (see :data:`~tui_app.bulk.source.SEND_AS`). A line that no longer is what was
        validated fails, and leaves the batch."""
        keep: list[BatchLine] = []
        body: list[bytes] = []
        changed: list[LineUpdate] = []
        for entry in batch.lines:
            encoded = self._encode(entry)
            if encoded is None:
                changed.append(LineUpdate(entry.line, FAILED, entry.attempts, errors=[
                    "the line changed in the file after it was validated; fix the file "
                    "and submit it again"]))  # fmt: skip
                continue
            keep.append(entry)
            body.append(encoded)
        return Batch(batch.id, None, keep), body, changed

    def _encode(self, entry: BatchLine) -> bytes | None:
        if entry.send_as:
            raw = self.source.raw_at(entry.offset, entry.length, entry.crc)
            if raw is None:
                return None
            if entry.send_as == 1:
                return raw
            kind = b"agent" if entry.send_as == 2 else b"agency"
            ref = json.dumps(entry.client_ref_id).encode()
            return b'{"clientRefId":' + ref + b',"data":{"' + kind + b'":' + raw + b"}}"
        line = self.source.line_at(entry.offset, entry.line)
        if line is None:
            return None
        checked, record = check(line)
        if record is None or (checked.number, checked.crc) != (entry.line, entry.crc):
            return None
        item = BulkItem.wrap(record, entry.client_ref_id).to_line()
        return json.dumps(item, separators=(",", ":")).encode()

    async def _post(self, batch: Batch) -> Batch | None:
        """POST the batch until the service accepts it; the accepted batch, or None if it
        ended (refused) or the run stopped (the batch then stays OPEN for the next run)."""
        batch, body, changed = self._body(batch)
        if changed:
            await self._db(self.journal.settle, batch.id, None if body else BATCH_DONE, changed)
        if not body:
            return None
        attempt = 0
        while True:
            attempt += 1
            async with self.in_flight:
                if self.stop.is_set():
                    return None
                outcome = await self._send(batch, body)
            if not isinstance(outcome, Exception):
                return outcome
            if attempt >= self.settings.request_attempts:
                self._halt(f"the service keeps failing to accept bulk requests: {outcome}")
                return None
            if await self._pause(self.settings.retry.delay(attempt)):
                return None

    async def _send(self, batch: Batch, body: list[bytes]) -> Batch | Exception | None:
        """One POST: the accepted batch, the error to try again after, or None if the
        batch ended or the run must stop."""
        await self._db(self.journal.posting, batch.id)
        try:
            accepted = await self.client.bulk_submit_lines(body)
        except AuthError as exc:
            await self._db(self.journal.reopen, batch.id, uncertain=False)
            self._halt(str(exc))
            return None
        except Rejected as exc:
            if exc.status in (400, 422):
                await self._refused(batch, exc)
                return None
            if exc.status == 413:
                await self._too_large(batch, body)
                return None
            await self._db(self.journal.reopen, batch.id, uncertain=False)  # not processed
            if exc.status == 429:
                return exc
            self._halt(f"the service refused the bulk request ({exc.status}): {exc}")
            return None
        except ServerError as exc:  # a 503 is refused before processing; others may not be
            await self._db(self.journal.reopen, batch.id, uncertain=exc.status != 503)
            return exc
        except Unreachable as exc:  # no connection was made: the service has nothing
            await self._db(self.journal.reopen, batch.id, uncertain=False)
            return exc
        except (Unavailable, BadResponse) as exc:  # maybe received: cut off, or answer lost
            await self._db(self.journal.reopen, batch.id, uncertain=True)
            return exc
        await self._db(self.journal.accepted, batch.id, accepted.bulkRequestId)
        self._progress()
        return Batch(batch.id, accepted.bulkRequestId, batch.lines)

    async def _too_large(self, batch: Batch, body: list[bytes]) -> None:
        """A 413: the service takes smaller requests. Later requests of the job stay under
        half this one (learnt once, kept by the journal, so a resume does not hit it
        again) and its lines go back to be sent so; a single line too large is invalid."""
        if len(batch.lines) == 1:
            entry = batch.lines[0]
            why = (f"too large for the service (413): {len(body[0]):,} bytes in a request of "
                   "its own; make the record smaller")  # fmt: skip
            update = LineUpdate(entry.line, INVALID, entry.attempts, errors=[why])
            await self._db(self.journal.settle, batch.id, REJECTED, [update])
            return
        self.max_bytes = max(1, (sum(map(len, body)) + len(body)) // 2)
        await self._db(self.journal.limit_request_bytes, self.job.id, self.max_bytes)
        updates = [LineUpdate(e.line, PENDING, e.attempts) for e in batch.lines]
        await self._db(self.journal.settle, batch.id, REJECTED, updates)

    async def _refused(self, batch: Batch, exc: Rejected) -> None:
        """A 400: the lines it names (``line N`` of the request) fail; the others are sent
        again in another batch."""
        named: dict[int, list[str]] = {}
        for error in exc.errors:
            where = error.path.removeprefix("line ").strip()
            if where.isdigit() and 1 <= int(where) <= len(batch.lines):
                named.setdefault(int(where), []).append(error.message)
        updates = []
        for position, entry in enumerate(batch.lines, start=1):
            if not named:
                errors = [str(exc), *(str(e) for e in exc.errors)]
                updates.append(LineUpdate(entry.line, FAILED, entry.attempts + 1, errors=errors))
            elif position in named:
                errors = [f"refused by the service: {m}" for m in named[position]]
                updates.append(LineUpdate(entry.line, FAILED, entry.attempts + 1, errors=errors))
            else:
                updates.append(LineUpdate(entry.line, PENDING, entry.attempts))
        await self._db(self.journal.settle, batch.id, REJECTED, updates)

    # --- results --------------------------------------------------------------------

    async def _poll(self, batch: Batch) -> None:
        """Poll the accepted batch until it is COMPLETE and record its results."""
        assert batch.bulk_request_id is not None
        failures = 0
        accepted = asked = time.monotonic()
        for delay in self._poll_delays():
            if await self._pause(delay):
                return  # still ACCEPTED: the next run polls it
            try:
                before, asked = asked, time.monotonic()
                async with self.in_flight:
                    status = await self.client.bulk_status(batch.bulk_request_id)
            except AuthError as exc:
                self._halt(str(exc))
                return
            except NotFound:
                lost = f"the service no longer knows bulk request {batch.bulk_request_id}"
                await self._settle(batch, [], missing=lost)
                return
            except (Rejected, ServerError, Unavailable, BadResponse) as exc:
                failures += 1
                if failures >= self.settings.request_attempts:
                    self._halt(f"cannot read the status of bulk request "
                               f"{batch.bulk_request_id}: {exc}")  # fmt: skip
                    return
                continue
            failures = 0
            if status.complete:
                self._took((before + asked) / 2 - accepted)  # it completed in between
                missing = "the service's result does not mention this record"
                await self._settle(batch, status.operationDetails.requestItems, missing=missing)
                return

    def _poll_delays(self) -> Iterator[float]:
        """Delays before each status poll of a request. Once requests have been seen to
        complete, the first poll waits most of the time they took and the next ones step
        from a tenth of it: a service that takes seconds a request is asked about three
        times a request instead of ten (a real one may count them against a rate limit)."""
        poll = self.settings.poll
        if self.took is None or self.took <= poll.first:
            return poll.delays()
        step = Backoff(max(poll.first, self.took / 10), poll.cap, poll.factor)
        return itertools.chain([min(0.8 * self.took, poll.cap)], step.delays())

    def _took(self, seconds: float) -> None:
        self.took = seconds if self.took is None else 0.7 * self.took + 0.3 * seconds

    async def _settle(self, batch: Batch, items: list[RequestItem], *, missing: str) -> None:
        by_ref = {same_ref(item.clientRefId): item for item in items if item.clientRefId}
        updates = [self._outcome(entry, by_ref.get(entry.client_ref_id), missing)
                   for entry in batch.lines]  # fmt: skip
        await self._db(self.journal.settle, batch.id, BATCH_DONE, updates)

    def _outcome(self, entry: BatchLine, item: RequestItem | None, missing: str) -> LineUpdate:
        attempts = entry.attempts + 1
        if item is not None and item.status == "COMPLETED":
            return LineUpdate(entry.line, COMPLETED, attempts)
        if item is None:
            retryable, errors = True, [missing]
        elif item.status == "FAILED":
            retryable = item.retryable
            errors = [m for m in item.errorMessage if m] or ["failed; the service gave no reason"]
        else:  # a COMPLETE request should not hold an unfinished record: ask again
            retryable, errors = True, [f"the service left this record {item.status}"]
        if retryable and attempts < self.settings.max_attempts:
            due = time.time() + self.settings.retry.delay(attempts)
            return LineUpdate(entry.line, PENDING, attempts, True, errors, not_before=due)
        if retryable and (entry.uncertain or item is None):
            # An earlier delivery may have been imported though its answer was lost.
            errors = [*errors, UNKNOWN_TEXT]
            return LineUpdate(entry.line, UNKNOWN, attempts, True, errors)
        return LineUpdate(entry.line, FAILED, attempts, retryable, errors)


UNKNOWN_TEXT = (
    "outcome unknown: a request holding this line may have been imported though its answer "
    "was lost; producer-tui bulk verify reads the profile back and settles it"
)
