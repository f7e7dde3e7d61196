"""Bulk profile import in the sandbox: a batch is accepted at once and processed later.

:meth:`BulkJobs.accept` checks only the envelope of each NDJSON line (a JSON object with a
GUID ``clientRefId``, unique in the request) and refuses the whole request if any line is
bad, naming every bad line. The worker then validates and imports each record; a record's
own errors fail that record only. Records are processed a chunk per transaction, their
results committed together with the profiles they wrote, so a job cut short (a killed
process) resumes at its first unprocessed record and nothing is done twice.
"""

from __future__ import annotations

import io
import logging
import random
import sqlite3
import threading
import uuid

from pydantic import TypeAdapter, ValidationError

from tui_app.contract.base import lower_first
from tui_app.contract.bulk import (
    BulkItem,
    BulkStatus,
    Guid,
    OperationDetails,
    RequestItem,
    overall_status,
)
from tui_app.contract.errors import ContractError, FieldError, field_errors
from tui_app.sandbox.db import Database, from_json, to_json
from tui_app.sandbox.profiles import Clock, Profiles, utc_now
from tui_app.wire.ndjson import read_lines

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

    def accept(self, body: bytes) -> str:
        """Store a request's records as a new PENDING job and return its bulkRequestId.
        Raises :class:`BulkRejected` naming every bad line, or when there is no record."""
        items: list[tuple[str, str]] = []
        bad: list[tuple[int, str]] = []
        seen: dict[str, int] = {}
        for line in read_lines(io.BytesIO(body)):
            if line.value is None:
                bad.append((line.number, str(line.error)))
                continue
            ref = line.value.get("clientRefId")
            if ref in (None, ""):
                bad.append((line.number, "clientRefId is missing"))
                continue
            try:
                _guid.validate_python(ref)
            except ValidationError as exc:
                bad.append((line.number, f"clientRefId {field_errors(exc)[0].message}"))
                continue
            key = ref.lower()
            if key in seen:
                bad.append((line.number, f"clientRefId {ref} repeats line {seen[key]}"))
                continue
            seen[key] = line.number
            items.append((key, line.raw.decode("utf-8")))
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

    def process_pending(self, limit: int | None = None) -> int:
        """Process up to ``limit`` records (all when None) of the open jobs, oldest job
        first, and return how many were processed. A job left part-done stays PROCESSING
        and is resumed by the next call."""
        with self._busy:
            done = 0
            for job in self._db.query(
                "SELECT seq FROM bulk_jobs WHERE status != 'COMPLETE' ORDER BY seq"
            ):
                if limit is not None and done >= limit:
                    break
                done += self._run_job(job["seq"], None if limit is None else limit - done)
            return done

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
        job = self._db.query_one(
            "SELECT seq, id, status FROM bulk_jobs WHERE id = ?", (bulk_request_id.lower(),)
        )
        if job is None:
            return None
        items = [
            RequestItem(
                clientRefId=row["client_ref_id"],
                status=row["status"],
                retryable=bool(row["retryable"]),
                errorMessage=from_json(row["errors"]),
            )
            for row in self._db.query(
                "SELECT client_ref_id, status, retryable, errors FROM bulk_items"
                " WHERE job_seq = ? ORDER BY position",
                (job["seq"],),
            )
        ]
        success = sum(i.status == "COMPLETED" for i in items)
        failures = sum(i.status == "FAILED" for i in items)
        complete = job["status"] == "COMPLETE"
        # BulkStatus checks the spec's counting rules once the job is COMPLETE.
        return BulkStatus(
            bulkRequestId=job["id"],
            processingStatus=job["status"],
            operationDetails=OperationDetails(
                status=overall_status(success, failures) if complete else None,
                totalItems=len(items),
                success=success,
                failures=failures,
                requestItems=items,
            ),
        )

    def wake(self) -> None:
        """Have the worker look for work now rather than at its next poll."""
        self._wake.set()

    def run_worker(self, stop: threading.Event, poll: float = 0.05) -> None:
        """Process jobs until ``stop`` is set (run it in a daemon thread). Works a chunk at
        a time, so a stop is honoured within one chunk or one ``poll``."""
        while not stop.is_set():
            try:
                busy = self.process_pending(limit=CHUNK)
            except Exception:  # keep serving; the job is retried at the next poll
                log.exception("bulk worker step failed")
                busy = 0
            if not busy:
                self._wake.wait(poll)
                self._wake.clear()
