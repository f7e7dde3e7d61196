"""Bulk profile import in the sandbox: a batch is accepted at once and processed later.

:meth:`BulkJobs.accept` checks only the envelope of each NDJSON line (a JSON object with a
GUID ``clientRefId``, unique in the request) and refuses the whole request if any line is
bad, naming every bad line. The worker then validates and imports each record; a record's
own errors fail that record only. Records are processed a chunk per transaction, their
results committed together with the profiles they wrote, so a job cut short (a killed
process) resumes at its first unprocessed record and nothing is done twice.

Several processes may open the same database (the TUI's embedded sandbox and a detached
bulk worker, say). Only the one holding an exclusive lock on ``<db>.bulk-worker.lock``
processes jobs; the others try to take it at each poll, so when the holder dies (even by
``kill -9``, which releases the lock) another one takes over and finishes its request.
"""

from __future__ import annotations

import fcntl
import json
import logging
import os
import random
import re
import sqlite3
import threading
import uuid
from collections.abc import Iterator
from contextlib import contextmanager

from pydantic import TypeAdapter, ValidationError

from tui_app.contract.base import lower_first
from tui_app.contract.bulk import BulkItem, BulkStatus, Guid, overall_status
from tui_app.contract.errors import ContractError, FieldError, field_errors
from tui_app.sandbox.db import Database, to_json
from tui_app.sandbox.profiles import Clock, Profiles, utc_now
from tui_app.wire.json import too_many_values
from tui_app.wire.ndjson import read_lines
from tui_app.wire.xml import may_have_xml_problems, xml_problems

SCHEMA = """
CREATE TABLE IF NOT EXISTS bulk_jobs (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,   -- arrival order: oldest jobs run first
    id TEXT NOT NULL UNIQUE,                 -- bulkRequestId: a lowercase uuid4
    status TEXT NOT NULL,                    -- PENDING, PROCESSING, COMPLETE
    created_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS bulk_jobs_by_status ON bulk_jobs (status);
CREATE TABLE IF NOT EXISTS bulk_items (
    job_seq INTEGER NOT NULL REFERENCES bulk_jobs (seq),
    position INTEGER NOT NULL,               -- 0-based place in the request
    client_ref_id TEXT NOT NULL,             -- lowercase
    raw TEXT NOT NULL,                       -- the line as sent
    status TEXT NOT NULL DEFAULT 'PENDING',  -- PENDING, COMPLETED, FAILED
    retryable INTEGER NOT NULL DEFAULT 0,
    errors TEXT NOT NULL DEFAULT '[]',       -- JSON list of "path: message"
    PRIMARY KEY (job_seq, position)
);
"""

CHUNK = 250
"""Records per transaction: large enough for throughput, small enough that requests
waiting for the database are not held up for long."""
TRANSIENT = "transient failure: service busy, retry later"

log = logging.getLogger(__name__)
_guid = TypeAdapter(Guid)
Outcome = tuple[str, int, str]
"""An item's result as stored: status, retryable (0 or 1), errors as JSON."""


# A line as our client writes it: the envelope's clientRefId first, then the data object.
# Such a line is accepted without parsing it whole; the worker parses and validates it (a
# broken record fails that record). Any other line takes the slow path, which parses it.
_FAST_LINE = re.compile(
    rb'\s*\{\s*"clientRefId"\s*:\s*"([0-9A-Fa-f-]{36})"\s*,\s*"data"\s*:\s*\{.*\}\s*\}\s*',
    re.DOTALL,
)
_REQUEST_ID = re.compile(
    r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
)


def is_request_id(text: str) -> bool:
    """Whether ``text`` can be a bulkRequestId (a UUID in its 36-character form)."""
    return _REQUEST_ID.fullmatch(text) is not None


class TooManyRecords(Exception):
    """A bulk request of more records than the sandbox takes in one request."""

    def __init__(self, limit: int) -> None:
        super().__init__(
            f"the bulk request holds more than {limit:,} records, the most this sandbox "
            f"takes in one request (the interface recommends 100 or fewer): split it"
        )
        self.limit = limit


class WorkerLock:
    """An exclusive, non-blocking ``flock`` on ``<db>.bulk-worker.lock``: the one process
    (or object) holding it processes the database's bulk jobs. The OS releases it when
    its holder dies, however it dies."""

    def __init__(self, db_path: str) -> None:
        self.path = None if db_path == ":memory:" else f"{db_path}.bulk-worker.lock"
        self._fd: int | None = None

    @property
    def held(self) -> bool:
        return self.path is None or self._fd is not None

    def acquire(self) -> bool:
        """Take the lock if it is free; True while this object holds it."""
        if self.held or self.path is None:
            return True
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            return False
        self._fd = fd
        return True

    def release(self) -> None:
        if self._fd is not None:
            fd, self._fd = self._fd, None
            os.close(fd)  # closing the only descriptor releases the flock


class BulkRejected(Exception):
    """A bulk request refused as a whole; ``lines`` holds (line number, message) for every
    bad line (numbers count blank lines too)."""

    def __init__(self, lines: list[tuple[int, str]]) -> None:
        super().__init__("; ".join(f"line {n}: {message}" for n, message in lines))
        self.lines = lines


def _bulk_path(error: FieldError, prefix: str = "") -> str:
    """``data.agent.BusinessAddress.City`` in the bulk spelling: ``data.agent.businessAddress.city``."""
    path = f"{prefix}.{error.path}" if prefix else error.path
    return f"{'.'.join(map(lower_first, path.split('.')))}: {error.message}"


def _failed(errors: list[FieldError], prefix: str = "") -> Outcome:
    return "FAILED", 0, to_json([_bulk_path(e, prefix) for e in errors])


class BulkJobs:
    """Bulk jobs over the shared database, written through :class:`Profiles`.

    ``fail_rate`` is the share of well-formed records failed as transient (retryable)
    instead of imported; which ones follows ``seed`` and the order records are processed
    in, from the start of this object's life. One object should process a database's jobs:
    calls from several threads are serialised, several processes are not coordinated.
    """

    def __init__(
        self,
        db: Database,
        profiles: Profiles,
        *,
        fail_rate: float = 0.0,
        seed: int = 0,
        clock: Clock = utc_now,
    ) -> None:
        self._db = db
        self._profiles = profiles
        self._fail_rate = fail_rate
        # Transient failures follow the seed and the order records are processed in.
        self._rng = random.Random(seed)
        self._clock = clock
        self._busy = threading.Lock()
        self._wake = threading.Event()
        self._lock = WorkerLock(db.path)
        self._keep_lock = False

    def accept(self, body: bytes, max_records: int | None = None) -> str:
        """Store a request's records as a new PENDING job and return its bulkRequestId.
        Raises :class:`TooManyRecords` when it holds more than ``max_records`` records,
        :class:`BulkRejected` naming every bad line, or when there is no record."""
        if max_records is not None and body.count(b"\n") >= max_records:
            lines = sum(1 for line in body.splitlines() if line.strip())
            if lines > max_records:
                raise TooManyRecords(max_records)
        items: list[tuple[str, str]] = []
        bad: list[tuple[int, str]] = []
        seen: dict[str, int] = {}
        for number, raw in self._lines(body):
            if problem := too_many_values(raw):
                bad.append((number, problem))
                continue
            fast = _FAST_LINE.fullmatch(raw)
            if fast and _REQUEST_ID.fullmatch(ref := fast.group(1).decode("ascii")):
                problem = None
            else:
                ref, problem = self._slow_envelope(raw)
            if problem is not None:
                bad.append((number, problem))
                continue
            key = ref.lower()
            if key in seen:
                bad.append((number, f"clientRefId {ref} repeats line {seen[key]}"))
                continue
            seen[key] = number
            try:
                items.append((key, raw.decode("utf-8")))
            except UnicodeDecodeError as exc:
                bad.append((number, f"line is not valid UTF-8 (byte {exc.start + 1})"))
        if not items and not bad:
            bad.append((1, "the request holds no records: send one JSON object per line"))
        if bad:
            raise BulkRejected(bad)
        job_id = str(uuid.uuid4())
        with self._db.transaction() as conn:
            seq = conn.execute(
                "INSERT INTO bulk_jobs (id, status, created_at) VALUES (?, 'PENDING', ?)",
                (job_id, self._clock().isoformat()),
            ).lastrowid
            conn.executemany(
                "INSERT INTO bulk_items (job_seq, position, client_ref_id, raw) VALUES (?, ?, ?, ?)",
                ((seq, i, ref, raw) for i, (ref, raw) in enumerate(items)),
            )
        self.wake()
        return job_id

    @staticmethod
    def _lines(body: bytes) -> Iterator[tuple[int, bytes]]:
        """(1-based line number, line without its ending) of every non-blank line."""
        for number, raw in enumerate(body.split(b"\n"), 1):
            raw = raw.removesuffix(b"\r")
            if number == 1:
                raw = raw.removeprefix(b"\xef\xbb\xbf")
            if raw.strip():
                yield number, raw

    @staticmethod
    def _slow_envelope(raw: bytes) -> tuple[str, str | None]:
        """The clientRefId of a line not in the fast form, or why the line is refused."""
        line = next(read_lines([raw]))
        if line.value is None:
            return "", str(line.error)
        ref = line.value.get("clientRefId")
        if ref in (None, ""):
            return "", "clientRefId is missing"
        try:
            _guid.validate_python(ref)
        except ValidationError as exc:
            return "", f"clientRefId {field_errors(exc)[0].message}"
        if not isinstance(line.value.get("data"), dict):
            return "", "data must be an object holding agent or agency"
        return ref, None

    def process_pending(self, limit: int | None = None) -> int:
        """Process up to ``limit`` records (all when None) of the open jobs, oldest job
        first, and return how many were processed. A job left part-done stays PROCESSING
        and is resumed by the next call."""
        with self._busy, self._exclusive() as ours:
            if not ours:
                return 0  # another process holds the worker lock: it does the work
            done = 0
            for job in self._db.query(
                "SELECT seq FROM bulk_jobs WHERE status != 'COMPLETE' ORDER BY seq"
            ):
                if limit is not None and done >= limit:
                    break
                done += self._run_job(job["seq"], None if limit is None else limit - done)
            return done

    @contextmanager
    def _exclusive(self) -> Iterator[bool]:
        """Hold the worker lock for the block (True), or say another holder has it (False).
        Inside :meth:`run_worker` the lock stays held between chunks."""
        mine = not self._lock.held
        ours = self._lock.acquire()
        try:
            yield ours
        finally:
            if mine and ours and not self._keep_lock:
                self._lock.release()

    def _run_job(self, seq: int, budget: int | None) -> int:
        with self._db.transaction() as conn:
            conn.execute(
                "UPDATE bulk_jobs SET status = 'PROCESSING' WHERE seq = ? AND status = 'PENDING'",
                (seq,),
            )
        done, after = 0, -1
        while budget is None or done < budget:
            size = CHUNK if budget is None else min(CHUNK, budget - done)
            rows = self._db.query(  # one row more than needed says whether this is the last
                "SELECT position, raw FROM bulk_items WHERE job_seq = ? AND position > ?"
                " AND status = 'PENDING' ORDER BY position LIMIT ?",
                (seq, after, size + 1),
            )
            last, rows = len(rows) <= size, rows[:size]
            # Validate before taking the write lock, so requests are not queued behind it.
            checked = [(r["position"], self._check(r["raw"])) for r in rows]
            with self._db.transaction() as conn:
                conn.executemany(
                    "UPDATE bulk_items SET status = ?, retryable = ?, errors = ?"
                    " WHERE job_seq = ? AND position = ?",
                    [(*self._store(conn, found), seq, position) for position, found in checked],
                )
                if last:
                    conn.execute("UPDATE bulk_jobs SET status = 'COMPLETE' WHERE seq = ?", (seq,))
            done += len(rows)
            if last:
                break
            after = rows[-1]["position"]
        return done

    def _check(self, raw: str) -> BulkItem | Outcome:
        """The item ready to store, or the outcome that stops it (invalid, or a transient
        failure drawn for it)."""
        try:
            item = BulkItem.model_validate_json(raw)
        except ValidationError as exc:
            return _failed(field_errors(exc))
        if may_have_xml_problems(raw):  # what is stored is read back as XML later
            record = item.data.record
            found = xml_problems(record.model_dump(mode="json", exclude_none=True))
            if found:
                return _failed([FieldError(p, m) for p, m in found], f"data.{record.kind}")
        if self._fail_rate and self._rng.random() < self._fail_rate:
            return "FAILED", 1, to_json([TRANSIENT])
        return item

    def _store(self, conn: sqlite3.Connection, found: BulkItem | Outcome) -> Outcome:
        if not isinstance(found, BulkItem):
            return found
        record = found.data.record
        try:
            self._profiles.save(conn, record)
        except ContractError as exc:
            return _failed(exc.errors, prefix=f"data.{record.kind}")
        return "COMPLETED", 0, "[]"

    def status(self, bulk_request_id: str) -> BulkStatus | None:
        """Where a job stands, one entry per record; None for an unknown id."""
        found = self.status_json(bulk_request_id)
        return None if found is None else BulkStatus.model_validate_json(found)

    def status_json(self, bulk_request_id: str) -> bytes | None:
        """The status body of a job, written straight from its rows (no model per record:
        a poll of a large job stays cheap); None for an unknown id. It is what
        :class:`BulkStatus` reads, counting rules included once the job is COMPLETE."""
        job = self._db.query_one(
            "SELECT seq, id, status FROM bulk_jobs WHERE id = ?", (bulk_request_id.lower(),)
        )
        if job is None:
            return None
        rows = self._db.query(
            "SELECT client_ref_id, status, retryable, errors FROM bulk_items"
            " WHERE job_seq = ? ORDER BY position",
            (job["seq"],),
        )
        success = failures = 0
        items = []
        for ref, status, retryable, errors in rows:
            if status == "COMPLETED":
                success += 1
            elif status == "FAILED":
                failures += 1
            items.append(
                f'{{"clientRefId":"{ref}","status":"{status}",'
                f'"retryable":{"true" if retryable else "false"},"errorMessage":{errors}}}'
            )
        complete = job["status"] == "COMPLETE"
        overall = json.dumps(overall_status(success, failures)) if complete else "null"
        return (
            f'{{"bulkRequestId":"{job["id"]}","processingStatus":"{job["status"]}",'
            f'"operationDetails":{{"status":{overall},"totalItems":{len(rows)},'
            f'"success":{success},"failures":{failures},'
            f'"requestItems":[{",".join(items)}]}}}}'
        ).encode()

    def wake(self) -> None:
        """Have the worker look for work now rather than at its next poll."""
        self._wake.set()

    def run_worker(self, stop: threading.Event, poll: float = 0.05) -> None:
        """Process jobs until ``stop`` is set (run it in a daemon thread). Works a chunk at
        a time, so a stop is honoured within one chunk or one ``poll``. Only while it holds
        the database's worker lock: otherwise it tries again at each poll, and takes over
        (finishing a half-done request) once the holder is gone."""
        self._keep_lock = True
        try:
            while not stop.is_set():
                try:
                    busy = self.process_pending(limit=CHUNK)
                except Exception:  # keep serving; the job is retried at the next poll
                    log.exception("bulk worker step failed")
                    busy = 0
                if not busy:
                    self._wake.wait(poll)
                    self._wake.clear()
        finally:
            self._keep_lock = False
            with self._busy:
                self._lock.release()
