"""The bulk journal: every job, every input line and every request, in one SQLite file.

The file is ``data_dir() / "bulk-journal.db"`` in WAL mode, shared by the CLI and the TUI:
any process may read it while one process runs a job (a lock file per job keeps a second
runner out). Each change of state is one transaction, and the one announcing a request is
committed before the request is sent, so that a run cut short anywhere (an error, Ctrl-C,
``kill -9``, a lost connection) can be finished by running the job again:

- a batch whose POST was answered has its ``bulkRequestId`` recorded: it is only polled,
  never sent again;
- a batch still ``POSTING`` when a run starts was cut off mid-request: the service may or
  may not have received it, and the interface cannot tell (there is no lookup by
  clientRefId, and ids need only be unique within one request). It is sent again with the
  same clientRefIds and flagged ``uncertain``, so only such a batch can reach the service
  twice: the window between the service storing a request and this journal recording its
  answer. A repeated record writes the same profile again (an import creates or updates
  the profile of its ProfileKey with Ssn or Tin); failing those records instead would turn
  a rare lost answer into work for the user. A POST that failed with a timeout, a broken
  connection or a 5xx other than 503 is flagged the same way;
- lines are recorded as they are validated, with the scan position, so validation
  resumes where it stopped and a bare record keeps the GUID it was given.

Lines of the same profile (its identity: kind, ProfileKey and Ssn or Tin) are applied in
file order: a line waits (``WAITING``) until the line before it of the same profile has its
final outcome, so at most one of them is ever in flight, whatever the batches and the
concurrency. A retryable failure is retried before
the later line goes (imports merge sections, so skipping a line could lose a section the
later one lacks). Once the later line has gone, the earlier one is never sent again: a
``bulk retry`` or ``verify`` marks it ``SUPERSEDED``, so older data can never overwrite
newer.

A line whose request was cut off or whose answer was lost (an ``uncertain`` batch) and
that then failed only transiently may have been imported by the first delivery: it ends
``UNKNOWN``, never plain ``FAILED``, until ``producer-tui bulk verify`` reads the profile
back and settles it.

Every line ends ``INVALID``, ``COMPLETED``, ``FAILED``, ``SUPERSEDED`` or ``UNKNOWN``; until
then it is ``WAITING``, ``PENDING`` (to be sent, again if ``attempts`` > 0) or ``SENT`` (in a
batch awaiting its result).

Every query a running job makes reads a bounded number of rows through an index (see
``HOT_QUERIES`` and its test), and progress is read from counters kept by triggers, so a
job's millionth line costs what its first did.
"""

from __future__ import annotations

import json
import os
import secrets
import sqlite3
import sys
import time
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, TYPE_CHECKING

from tui_app.bulk.source import Fingerprint
from tui_app.config import data_dir
from tui_app.locked_sqlite import LockedConnection, unusable
from tui_app.private_files import open_private, private_folder

if TYPE_CHECKING:
    from tui_app.bulk.source import Checked

# Job states. A job is resumable in every state but DONE.
VALIDATING = "VALIDATING"  # the file is being validated; nothing has been sent yet
SENDING = "SENDING"  # lines are being sent (the file may still be being validated)
POLLING = "POLLING"  # everything is sent; results are awaited
DONE = "DONE"  # every line is INVALID, COMPLETED or FAILED
STOPPED = "STOPPED"  # the last run stopped early; ``message`` says why

# Line states.
INVALID, PENDING, SENT, COMPLETED, FAILED = "INVALID", "PENDING", "SENT", "COMPLETED", "FAILED"
WAITING = "WAITING"  # an earlier line of the same profile has no outcome yet
SUPERSEDED = "SUPERSEDED"  # a later line of the same profile was sent instead
UNKNOWN = "UNKNOWN"  # may have been imported by a request whose answer was lost
FINAL = (INVALID, COMPLETED, FAILED, SUPERSEDED, UNKNOWN)

# Batch states.
OPEN = "OPEN"  # formed, not (or no longer) being posted
POSTING = "POSTING"  # a POST may be in flight
ACCEPTED = "ACCEPTED"  # the service answered with a bulkRequestId
BATCH_DONE = "DONE"  # results recorded
REJECTED = "REJECTED"  # the service refused the request as a whole
RELEASED = "RELEASED"  # never reached the service; its lines went back to be sent


def _in(states: Sequence[str]) -> str:
    return "(" + ", ".join(f"'{state}'" for state in states) + ")"


OUTCOMES = (FAILED, INVALID, UNKNOWN, SUPERSEDED)
"""Final states other than COMPLETED: each can be listed on its own, through an index."""
TO_FIX = (FAILED, INVALID)
"""The lines a user fixes and submits again (the report's ``failed.ndjson``)."""
OUTCOME_SQL, TO_FIX_SQL = _in(OUTCOMES), _in(TO_FIX)


def _bucket(row: str) -> str:
    return f"CASE WHEN {row}.state = 'PENDING' AND {row}.attempts > 0 THEN 'RETRY' ELSE {row}.state END"


SCHEMA_VERSION = 3
TABLES = """
CREATE TABLE IF NOT EXISTS jobs (
    id TEXT PRIMARY KEY,
    env TEXT NOT NULL,
    path TEXT NOT NULL,
    size INTEGER NOT NULL,
    mtime_ns INTEGER NOT NULL,
    sha256 TEXT NOT NULL,
    batch_size INTEGER NOT NULL,
    state TEXT NOT NULL,
    message TEXT,                              -- why the last run stopped early
    scanned_line INTEGER NOT NULL DEFAULT 0,   -- last line recorded (0: none yet)
    scanned_offset INTEGER NOT NULL DEFAULT 0, -- its byte offset
    scan_done INTEGER NOT NULL DEFAULT 0,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS batches (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    job_id TEXT NOT NULL,
    state TEXT NOT NULL,
    bulk_request_id TEXT,
    posts INTEGER NOT NULL DEFAULT 0,          -- POST attempts
    uncertain INTEGER NOT NULL DEFAULT 0,      -- 1: a POST's outcome was never known
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS batches_by_job ON batches (job_id, state);
CREATE TABLE IF NOT EXISTS lines (
    job_id TEXT NOT NULL,
    line INTEGER NOT NULL,                     -- 1-based; blank lines are counted, not stored
    byte_offset INTEGER NOT NULL,
    crc INTEGER NOT NULL,
    client_ref_id TEXT,
    profile_key TEXT,
    kind TEXT,
    state TEXT NOT NULL,
    batch_id INTEGER,
    attempts INTEGER NOT NULL DEFAULT 0,       -- results received for this line
    retryable INTEGER NOT NULL DEFAULT 0,
    not_before REAL NOT NULL DEFAULT 0,        -- a retry waits until this Unix time
    errors TEXT NOT NULL DEFAULT '[]',         -- JSON list of "path: message"
    PRIMARY KEY (job_id, line)
) WITHOUT ROWID;
CREATE UNIQUE INDEX IF NOT EXISTS lines_by_ref ON lines (job_id, client_ref_id)
    WHERE state != 'INVALID';
CREATE INDEX IF NOT EXISTS lines_by_batch ON lines (batch_id) WHERE batch_id IS NOT NULL;
CREATE TABLE IF NOT EXISTS line_counts (
    job_id TEXT NOT NULL,
    bucket TEXT NOT NULL,
    n INTEGER NOT NULL,
    PRIMARY KEY (job_id, bucket)
) WITHOUT ROWID;
"""

# Version 2: profile order (identity, next_line, WAITING/SUPERSEDED), UNKNOWN outcomes,
# request sizes, stop requests, and indexes that the hot queries name.
VERSION_2 = [
    "ALTER TABLE jobs ADD COLUMN stop_requested INTEGER NOT NULL DEFAULT 0",
    "ALTER TABLE jobs ADD COLUMN worker_pid INTEGER",
    "ALTER TABLE jobs ADD COLUMN max_bytes INTEGER",  # request size the service accepts
    "ALTER TABLE lines ADD COLUMN identity INTEGER",  # hash of kind, ProfileKey, Ssn/Tin
    "ALTER TABLE lines ADD COLUMN next_line INTEGER",  # the next line of that identity
    "ALTER TABLE lines ADD COLUMN uncertain INTEGER NOT NULL DEFAULT 0",
    "ALTER TABLE lines ADD COLUMN length INTEGER NOT NULL DEFAULT 0",  # bytes of the line
    "ALTER TABLE lines ADD COLUMN send_as INTEGER NOT NULL DEFAULT 0",  # see SEND_AS
    """CREATE TABLE identities (
        job_id TEXT NOT NULL,
        identity INTEGER NOT NULL,
        last_line INTEGER NOT NULL,
        PRIMARY KEY (job_id, identity)
    ) WITHOUT ROWID""",
    "DROP INDEX IF EXISTS lines_to_send",
    "CREATE INDEX lines_to_send ON lines (job_id, line) WHERE state = 'PENDING'",
    "CREATE INDEX lines_due ON lines (job_id, not_before) WHERE state = 'PENDING'",
    f"CREATE INDEX lines_by_outcome ON lines (job_id, state, line) WHERE state IN {OUTCOME_SQL}",
    f"CREATE INDEX lines_to_fix ON lines (job_id, line) WHERE state IN {TO_FIX_SQL}",
    # Counts per job and bucket, kept by triggers so progress costs one small read. Lines
    # waiting to be sent again count as RETRY rather than PENDING; RETRYABLE counts the
    # FAILED lines that may be sent again (they are in FAILED too).
    "DROP TRIGGER IF EXISTS lines_counted",
    "DROP TRIGGER IF EXISTS lines_recounted",
    f"""CREATE TRIGGER lines_counted AFTER INSERT ON lines BEGIN
        INSERT INTO line_counts VALUES (NEW.job_id, {_bucket("NEW")}, 1)
            ON CONFLICT DO UPDATE SET n = n + 1;
    END""",
    # Each trigger's WHEN is tested before its body runs: an update that moves no line
    # between buckets (most do not touch RETRYABLE) costs no counter write.
    f"""CREATE TRIGGER lines_recounted AFTER UPDATE OF state, attempts ON lines
    WHEN {_bucket("OLD")} != {_bucket("NEW")} BEGIN
        UPDATE line_counts SET n = n - 1 WHERE job_id = OLD.job_id AND bucket = {_bucket("OLD")};
        INSERT INTO line_counts VALUES (NEW.job_id, {_bucket("NEW")}, 1)
            ON CONFLICT DO UPDATE SET n = n + 1;
    END""",
    """CREATE TRIGGER lines_retryable_out AFTER UPDATE OF state, retryable ON lines
    WHEN OLD.state = 'FAILED' AND OLD.retryable AND NOT (NEW.state = 'FAILED' AND NEW.retryable)
    BEGIN
        UPDATE line_counts SET n = n - 1 WHERE job_id = OLD.job_id AND bucket = 'RETRYABLE';
    END""",
    """CREATE TRIGGER lines_retryable_in AFTER UPDATE OF state, retryable ON lines
    WHEN NEW.state = 'FAILED' AND NEW.retryable AND NOT (OLD.state = 'FAILED' AND OLD.retryable)
    BEGIN
        INSERT INTO line_counts VALUES (NEW.job_id, 'RETRYABLE', 1)
            ON CONFLICT DO UPDATE SET n = n + 1;
    END""",
    "DELETE FROM line_counts",
    f"""INSERT INTO line_counts SELECT job_id, {_bucket("lines")}, COUNT(*) FROM lines
        GROUP BY 1, 2""",
    """INSERT INTO line_counts SELECT job_id, 'RETRYABLE', COUNT(*) FROM lines
        WHERE state = 'FAILED' AND retryable GROUP BY 1""",
]

# Version 3: clientRefIds in a plain index. Version 1's was partial on ``state != 'INVALID'``,
# and an index whose WHERE names ``state`` is rewritten by every change of a line's state:
# random GUID keys spread over many pages, a third of the cost of taking and settling a
# batch. add_lines refuses a repeated clientRefId itself, reading this index.
VERSION_3 = [
    "DROP INDEX lines_by_ref",
    "CREATE INDEX lines_by_ref ON lines (job_id, client_ref_id)",
]
MIGRATIONS = {2: VERSION_2, 3: VERSION_3}


class UnknownJob(LookupError):
    exit_code = 2


class JobBusy(RuntimeError):
    """Another process (or task) is running this job."""

    exit_code = 2


class JournalError(RuntimeError):
    """The journal cannot be used: not a database, damaged, or not writable. The message
    says which file and what to do; the CLI prints it and exits 2."""

    exit_code = 2


@dataclass(frozen=True)
class Counts:
    lines: int = 0
    """Non-blank lines validated so far."""
    invalid: int = 0
    waiting: int = 0
    """Valid lines waiting for an earlier line of the same profile."""
    pending: int = 0
    """Valid lines never sent yet."""
    retrying: int = 0
    """Lines whose last result was a retryable failure, waiting to be sent again."""
    sent: int = 0
    """Lines in a request whose result is not known yet."""
    completed: int = 0
    failed: int = 0
    retryable: int = 0
    """FAILED lines that may be sent again (``bulk retry``)."""
    superseded: int = 0
    unknown: int = 0

    @property
    def valid(self) -> int:
        return self.lines - self.invalid

    @property
    def settled(self) -> int:
        """Lines with their final outcome."""
        return self.completed + self.failed + self.invalid + self.superseded + self.unknown

    @property
    def sent_so_far(self) -> int:
        """Valid lines that have been sent at least once (or need not be)."""
        return self.valid - self.pending - self.waiting

    def others(self) -> list[str]:
        """The counts beyond completed, failed and invalid that are not zero, in words
        ("12 to retry"), for every progress line of the CLI and the TUI."""
        return [f"{n:,} {words}" for n, words in (
            (self.retrying, "to retry"), (self.waiting, "waiting for an earlier line"),
            (self.superseded, "superseded"), (self.unknown, "of unknown outcome")) if n]  # fmt: skip

    @property
    def all_succeeded(self) -> bool:
        """Every line's data is in the service: completed, or superseded by a later
        line of the same profile that completed."""
        return self.completed + self.superseded == self.lines and self.lines > 0


@dataclass(frozen=True)
class Job:
    id: str
    env: str
    path: Path
    fingerprint: Fingerprint
    batch_size: int
    state: str
    message: str | None
    scanned_line: int
    scanned_offset: int
    scan_done: bool
    created_at: str
    updated_at: str
    counts: Counts = field(default_factory=Counts)
    stop_requested: bool = False
    worker_pid: int | None = None
    max_bytes: int | None = None
    """The largest request the service accepted, learnt from a 413 (or configured)."""

    @property
    def finished(self) -> bool:
        return self.state == DONE

    @property
    def share_read(self) -> float:
        """How much of the file has been validated, 0 to 1."""
        if self.scan_done or not self.fingerprint.size:
            return 1.0
        return min(self.scanned_offset / self.fingerprint.size, 1.0)

    @property
    def share(self) -> float:
        """How much of the job is done, 0 to 1: the lines with their final outcome among
        those read, scaled by how much of the file has been read. The one measure of
        progress, for the CLI and the TUI alike."""
        if self.state == DONE:
            return 1.0
        c = self.counts
        return min((c.settled / c.lines if c.lines else 0.0) * self.share_read, 1.0)


@dataclass(frozen=True)
class LineOutcome:
    """One input line as a report or a job's detail view shows it."""

    line: int
    offset: int
    client_ref_id: str | None
    profile_key: str | None
    kind: str | None
    state: str
    attempts: int
    retryable: bool
    errors: list[str]


@dataclass(frozen=True)
class BatchLine:
    line: int
    offset: int
    crc: int
    client_ref_id: str
    attempts: int
    length: int = 0
    send_as: int = 0
    """How the line goes into a request: see :data:`~tui_app.bulk.source.SEND_AS`."""
    uncertain: bool = False
    """A request holding this line may have reached the service without an answer."""


@dataclass(frozen=True)
class Batch:
    id: int
    bulk_request_id: str | None
    lines: list[BatchLine]


@dataclass(frozen=True)
class LineUpdate:
    """A line's new state, as the pipeline decided it."""

    line: int
    state: str
    attempts: int
    retryable: bool = False
    errors: Sequence[str] = ()
    not_before: float = 0.0


def journal_path() -> Path:
    return data_dir() / "bulk-journal.db"


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


_BATCH_LINE = "line, byte_offset, crc, client_ref_id, attempts, length, send_as, uncertain"
ENVELOPE_BYTES = 80
"""What wrapping a bare record in its envelope adds to it, at most (clientRefId and
``data``), for keeping requests under a byte limit."""
LOCK_TRIES = 20
"""Tries to take a job's lock, 50 ms apart: another process may be looking at it."""


class Journal:
    """The journal database. Thread-safe (:class:`~tui_app.locked_sqlite.LockedConnection`).

    Raises :class:`JournalError` when the file cannot be used as a journal."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path or journal_path()
        try:  # see posting() for power cuts
            self._db = LockedConnection.open_private(
                self.path, ours=path is None, migrate=self._migrate
            )
        except (OSError, sqlite3.Error) as exc:
            raise self._unusable(exc) from None

    def _unusable(self, exc: BaseException) -> JournalError:
        return JournalError(unusable("the bulk journal", self.path, exc))

    @staticmethod
    def _migrate(db: LockedConnection) -> None:
        version = db.version()
        if version >= SCHEMA_VERSION:
            return
        with db.transaction() as conn:
            for statement in TABLES.split(";\n"):  # version 1, where there is nothing yet
                conn.execute(statement)
            for statements in (MIGRATIONS[v] for v in MIGRATIONS if v > version):
                for statement in statements:
                    conn.execute(statement)
            conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> Journal:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- jobs ---------------------------------------------------------------------------

    def create_job(
        self,
        env: str,
        path: Path,
        fingerprint: Fingerprint,
        batch_size: int,
        max_bytes: int | None = None,
    ) -> Job:
        now = _now()
        with self._db.transaction() as conn:
            while True:
                job_id = secrets.token_hex(4)
                try:
                    conn.execute(
                        "INSERT INTO jobs (id, env, path, size, mtime_ns, sha256, batch_size,"
                        " state, created_at, updated_at, max_bytes)"
                        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                        (job_id, env, str(path), fingerprint.size, fingerprint.mtime_ns,
                         fingerprint.sha256, batch_size, VALIDATING, now, now, max_bytes),
                    )  # fmt: skip
                    break
                except sqlite3.IntegrityError:  # an id already taken: draw another
                    continue
        return self.job(job_id)

    def job(self, job_id: str) -> Job:
        """The job with this id, or with this unique id prefix."""
        rows = self._db.query("SELECT * FROM jobs WHERE id = ?", (job_id,)) or self._db.query(
            "SELECT * FROM jobs WHERE id LIKE ? || '%' LIMIT 2", (job_id,)
        )
        if len(rows) != 1:
            what = "no" if not rows else "more than one"
            raise UnknownJob(f"{what} bulk job {job_id!r} (producer-tui bulk status lists them)")
        return self._job(rows[0])

    def jobs(self, env: str | None = None) -> list[Job]:
        """Every job (of environment ``env`` if given), newest first."""
        if env is None:
            rows = self._db.query("SELECT * FROM jobs ORDER BY created_at DESC, rowid DESC")
        else:
            rows = self._db.query(
                "SELECT * FROM jobs WHERE env = ? ORDER BY created_at DESC, rowid DESC", (env,)
            )
        return [self._job(r) for r in rows]

    def jobs_of_file(self, env: str, sha256: str) -> list[Job]:
        """The jobs of environment ``env`` whose file had this content, newest first."""
        rows = self._db.query(
            "SELECT * FROM jobs WHERE env = ? AND sha256 = ? ORDER BY created_at DESC, rowid DESC",
            (env, sha256),
        )
        return [self._job(r) for r in rows]

    def _job(self, row: sqlite3.Row) -> Job:
        return Job(
            id=row["id"],
            env=row["env"],
            path=Path(row["path"]),
            fingerprint=Fingerprint(row["size"], row["mtime_ns"], row["sha256"]),
            batch_size=row["batch_size"],
            state=row["state"],
            message=row["message"],
            scanned_line=row["scanned_line"],
            scanned_offset=row["scanned_offset"],
            scan_done=bool(row["scan_done"]),
            created_at=row["created_at"],
            updated_at=row["updated_at"],
            counts=self.counts(row["id"]),
            stop_requested=bool(row["stop_requested"]),
            worker_pid=row["worker_pid"],
            max_bytes=row["max_bytes"],
        )

    def counts(self, job_id: str) -> Counts:
        found = {
            r["bucket"]: r["n"]
            for r in self._db.query("SELECT bucket, n FROM line_counts WHERE job_id = ?", (job_id,))
        }
        retryable = found.pop("RETRYABLE", 0)
        return Counts(
            lines=sum(found.values()),
            invalid=found.get(INVALID, 0),
            waiting=found.get(WAITING, 0),
            pending=found.get(PENDING, 0),
            retrying=found.get("RETRY", 0),
            sent=found.get(SENT, 0),
            completed=found.get(COMPLETED, 0),
            failed=found.get(FAILED, 0),
            retryable=retryable,
            superseded=found.get(SUPERSEDED, 0),
            unknown=found.get(UNKNOWN, 0),
        )

    def set_state(self, job_id: str, state: str, message: str | None = None) -> None:
        with self._db.transaction() as conn:
            conn.execute(
                "UPDATE jobs SET state = ?, message = ?, updated_at = ? WHERE id = ?",
                (state, message, _now(), job_id),
            )

    def batch_states(self, job_id: str) -> dict[str, int]:
        """How many batches are in each state, plus ``uncertain``: how many were re-sent
        after a POST whose outcome was never known."""
        rows = self._db.query(
            "SELECT state, COUNT(*) AS n, SUM(uncertain) AS u FROM batches WHERE job_id = ?"
            " GROUP BY state",
            (job_id,),
        )
        found = {r["state"]: r["n"] for r in rows}
        found["uncertain"] = sum(r["u"] for r in rows)
        return found

    # --- the worker: who runs the job, and asking it to stop ----------------------------

    def started(self, job_id: str, pid: int) -> None:
        """A run starts in process ``pid``."""
        with self._db.transaction() as conn:
            conn.execute(
                "UPDATE jobs SET worker_pid = ?, updated_at = ? WHERE id = ?",
                (pid, _now(), job_id),
            )

    def request_stop(self, job_id: str, stop: bool = True) -> None:
        """Ask the process running the job to stop gracefully (it looks twice a second);
        with ``stop`` false, forget such a request (before a new run is started: a stop
        asked once the run is on its way is honoured however early it comes)."""
        with self._db.transaction() as conn:
            conn.execute("UPDATE jobs SET stop_requested = ? WHERE id = ?", (stop, job_id))

    def stop_requested(self, job_id: str) -> bool:
        rows = self._db.query("SELECT stop_requested FROM jobs WHERE id = ?", (job_id,))
        return bool(rows and rows[0][0])

    def limit_request_bytes(self, job_id: str, max_bytes: int) -> None:
        """The service refused a request as too large: later requests stay under this."""
        with self._db.transaction() as conn:
            conn.execute(
                "UPDATE jobs SET max_bytes = MIN(COALESCE(max_bytes, ?), ?) WHERE id = ?",
                (max_bytes, max_bytes, job_id),
            )

    # --- locking ------------------------------------------------------------------------

    @contextmanager
    def running(self, job_id: str) -> Iterator[None]:
        """Hold the job's lock while running it; :class:`JobBusy` if someone else does.
        The lock is the operating system's: it goes away with its process, even a killed
        one, so a crashed run never blocks a resume."""
        lock = self._take_lock(job_id, tries=LOCK_TRIES)
        if lock is None:
            raise JobBusy(f"bulk job {job_id} is already running in another process")
        try:
            yield
        finally:
            _release(*lock)

    def is_running(self, job_id: str) -> bool:
        lock = self._take_lock(job_id)
        if lock is None:
            return True
        _release(*lock)
        return False

    def _take_lock(self, job_id: str, tries: int = 1) -> tuple[IO[bytes], Path] | None:
        """A ``flock`` on ``bulk-locks/JOB.lock``, a 0600 file that exists only while held
        (:func:`_release` removes it). So a lock taken on a file its holder removed in the
        meantime is no lock at all: it is let go, and the file now at the path locked instead."""
        path = private_folder(self.path.parent / "bulk-locks") / f"{job_id}.lock"
        attempt = 0
        while True:
            handle = open_private(path, "a+b")
            if _lock(handle):
                if _still_at(handle, path):
                    return handle, path
                handle.close()
                continue
            handle.close()
            attempt += 1
            if attempt == tries:
                return None
            time.sleep(0.05)  # is_running() elsewhere holds it for an instant

    # --- validation ---------------------------------------------------------------------

    def add_lines(self, job_id: str, rows: Sequence[Checked], *, done: bool) -> None:
        """Record validated lines and the scan position, in one transaction. A valid line
        whose clientRefId repeats an earlier line's is recorded INVALID: results are
        matched by clientRefId, so the two could not be told apart. A valid line of a
        profile whose previous line has no outcome yet WAITs for it. What the chunk needs
        to know of earlier lines is read in three queries, not three per line."""
        with self._db.transaction() as conn:
            valid = [row for row in rows if row.valid]
            taken = dict(_select_in(
                conn, "SELECT client_ref_id, line FROM lines INDEXED BY lines_by_ref"
                " WHERE job_id = ? AND state != 'INVALID' AND client_ref_id IN", job_id,
                [row.client_ref_id for row in valid]))  # fmt: skip
            last = dict(_select_in(
                conn, "SELECT identity, last_line FROM identities WHERE job_id = ?"
                " AND identity IN", job_id,
                list({row.identity for row in valid if row.identity is not None})))  # fmt: skip
            states = dict(_select_in(
                conn, "SELECT line, state FROM lines WHERE job_id = ? AND line IN", job_id,
                list(last.values())))  # fmt: skip
            inserted, followers = [], []
            for row in rows:
                state, errors = INVALID, list(row.errors)
                if row.valid and row.client_ref_id in taken:
                    errors = [f"clientRefId: repeats line {taken[row.client_ref_id]}"]
                elif row.valid:
                    taken[row.client_ref_id] = row.number
                    previous = last.get(row.identity) if row.identity is not None else None
                    state = WAITING if previous and states[previous] not in FINAL else PENDING
                    if previous:
                        followers.append((row.number, job_id, previous))
                    if row.identity is not None:
                        last[row.identity], states[row.number] = row.number, state
                inserted.append(
                    (job_id, row.number, row.offset, row.crc, row.client_ref_id, row.profile_key,
                     row.kind, state, json.dumps(errors) if errors else "[]", row.identity,
                     row.length, row.send_as)
                )  # fmt: skip
            conn.executemany(
                "INSERT INTO lines (job_id, line, byte_offset, crc, client_ref_id, profile_key,"
                " kind, state, errors, identity, length, send_as)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                inserted,
            )
            conn.executemany(
                "UPDATE lines SET next_line = ? WHERE job_id = ? AND line = ?", followers
            )
            conn.executemany(
                "INSERT INTO identities VALUES (?, ?, ?)"
                " ON CONFLICT DO UPDATE SET last_line = excluded.last_line",
                [(job_id, identity, line) for identity, line in last.items()],
            )
            end = rows[-1] if rows else None
            conn.execute(
                "UPDATE jobs SET scanned_line = COALESCE(?, scanned_line),"
                " scanned_offset = COALESCE(?, scanned_offset), scan_done = ?, updated_at = ?"
                " WHERE id = ?",
                (end and end.number, end and end.offset, done, _now(), job_id),
            )

    # --- batches ------------------------------------------------------------------------

    def recover(self, job_id: str) -> list[Batch]:
        """Start of a run: batches that were mid-POST become OPEN and uncertain. Returns
        the batches to carry on with: OPEN ones (to send) and ACCEPTED ones (to poll)."""
        with self._db.transaction() as conn:
            cut_off = conn.execute(
                "SELECT id FROM batches WHERE job_id = ? AND state = ?", (job_id, POSTING)
            ).fetchall()
            for (batch_id,) in cut_off:
                self._mark_uncertain(conn, batch_id, OPEN)
            rows = conn.execute(
                "SELECT id, bulk_request_id FROM batches WHERE job_id = ? AND state IN (?, ?)"
                " ORDER BY id",
                (job_id, OPEN, ACCEPTED),
            ).fetchall()
            return [Batch(r["id"], r["bulk_request_id"], self._batch_lines(conn, r["id"]))
                    for r in rows]  # fmt: skip

    @staticmethod
    def _batch_lines(conn: sqlite3.Connection, batch_id: int) -> list[BatchLine]:
        return [
            BatchLine(*r)
            for r in conn.execute(
                f"SELECT {_BATCH_LINE} FROM lines WHERE batch_id = ? AND state = ? ORDER BY line",
                (batch_id, SENT),
            )
        ]

    def take_batch(
        self, job_id: str, size: int, *, min_size: int, now: float, max_bytes: int | None = None
    ) -> Batch | None:
        """Form a new OPEN batch of up to ``size`` lines that are due to be sent, oldest
        line first, together under ``max_bytes`` once enveloped (a line over it alone is
        taken alone); None when fewer than ``min_size`` are due. The first batch of a job
        ends its VALIDATING state: lines go out while the file is still read."""
        with self._db.transaction() as conn:
            rows = conn.execute(
                f"SELECT {_BATCH_LINE} FROM lines INDEXED BY lines_to_send"
                " WHERE job_id = ? AND state = 'PENDING' AND not_before <= ?"
                " ORDER BY line LIMIT ?",
                (job_id, now, size),
            ).fetchall()
            if max_bytes is not None:
                rows = _within(rows, max_bytes)
            if not rows or len(rows) < min_size:
                return None
            stamp = _now()
            batch_id: int = conn.execute(
                "INSERT INTO batches (job_id, state, created_at, updated_at) VALUES (?, ?, ?, ?)",
                (job_id, OPEN, stamp, stamp),
            ).lastrowid  # type: ignore[assignment]  # an INSERT's is never None
            conn.execute(
                f"UPDATE lines SET state = ?, batch_id = ? WHERE job_id = ?"
                f" AND line IN ({','.join('?' * len(rows))})",
                (SENT, batch_id, job_id, *(r["line"] for r in rows)),
            )
            # In the batch's own transaction, so that a job never shows as validating with
            # lines sent, and the run's loop waits on no extra write before it sends.
            conn.execute(
                "UPDATE jobs SET state = ?, updated_at = ? WHERE id = ? AND state = ?",
                (SENDING, stamp, job_id, VALIDATING),
            )
        return Batch(batch_id, None, [BatchLine(*r) for r in rows])

    def next_due(self, job_id: str) -> float | None:
        """When the next line waiting to be sent is due (Unix time); None if none waits."""
        row = self._db.query(
            "SELECT MIN(not_before) AS t FROM lines INDEXED BY lines_due"
            " WHERE job_id = ? AND state = 'PENDING'",
            (job_id,),
        )[0]
        return row["t"]

    def posting(self, batch_id: int) -> None:
        """Committed before each POST: a run cut short finds the batch POSTING. This commit
        is synced to disk (and with it every earlier one: the WAL is written in order), so
        even a power cut cannot hide a request that may have gone out; the others need
        not be, which saves a sync per step."""
        with self._db.lock:
            self._db.conn.execute("PRAGMA synchronous=FULL")
            try:
                self._set_batch(batch_id, "state = ?, posts = posts + 1", (POSTING,))
            finally:
                self._db.conn.execute("PRAGMA synchronous=NORMAL")

    def reopen(self, batch_id: int, *, uncertain: bool) -> None:
        """A POST failed; ``uncertain`` when the service may have received it anyway."""
        if not uncertain:
            self._set_batch(batch_id, "state = ?", (OPEN,))
            return
        with self._db.transaction() as conn:
            self._mark_uncertain(conn, batch_id, OPEN)

    def release_unsent(self, job_id: str) -> None:
        """End of a stopped run: the lines of batches that never reached the service (not
        posted yet, or every POST failed to connect) are not sent; they go back to be sent
        in the next run. A batch the service may have received keeps its lines, to be
        sent again as they were; so does a line an earlier request may have delivered
        (its batch was split after a lost answer, say)."""
        with self._db.transaction() as conn:
            unsent = conn.execute(
                "SELECT id FROM batches WHERE job_id = ? AND state = ? AND uncertain = 0",
                (job_id, OPEN),
            ).fetchall()
            for (batch_id,) in unsent:
                conn.execute(
                    "UPDATE lines SET state = ?, batch_id = NULL"
                    " WHERE batch_id = ? AND state = ? AND uncertain = 0",
                    (PENDING, batch_id, SENT),
                )
                kept = conn.execute(
                    "SELECT 1 FROM lines WHERE batch_id = ? AND state = ? LIMIT 1",
                    (batch_id, SENT),
                ).fetchone()
                if kept is None:
                    conn.execute(
                        "UPDATE batches SET state = ?, updated_at = ? WHERE id = ?",
                        (RELEASED, _now(), batch_id),
                    )

    @staticmethod
    def _mark_uncertain(conn: sqlite3.Connection, batch_id: int, state: str) -> None:
        conn.execute(
            "UPDATE batches SET state = ?, uncertain = 1, updated_at = ? WHERE id = ?",
            (state, _now(), batch_id),
        )
        conn.execute(
            "UPDATE lines SET uncertain = 1 WHERE batch_id = ? AND state = ?", (batch_id, SENT)
        )

    def accepted(self, batch_id: int, bulk_request_id: str) -> None:
        self._set_batch(batch_id, "state = ?, bulk_request_id = ?", (ACCEPTED, bulk_request_id))

    def _set_batch(self, batch_id: int, assignments: str, params: tuple) -> None:
        with self._db.transaction() as conn:
            conn.execute(
                f"UPDATE batches SET {assignments}, updated_at = ? WHERE id = ?",
                (*params, _now(), batch_id),
            )

    def settle(self, batch_id: int, batch_state: str | None, updates: Iterable[LineUpdate]) -> None:
        """Record lines' new states (and the batch's, if given) in one transaction. A line
        set PENDING leaves the batch, to be sent again in another one. A line with its
        final outcome lets the next line of its profile go."""
        updates = list(updates)
        with self._db.transaction() as conn:
            followed = dict(
                conn.execute(
                    "SELECT line, next_line FROM lines WHERE batch_id = ? AND state = ?"
                    " AND next_line IS NOT NULL",
                    (batch_id, SENT),
                ).fetchall()
            )
            # Plain successes, most lines, in one statement; the others one by one.
            plain = [u for u in updates if u.state == COMPLETED and not u.errors]
            for attempts in {u.attempts for u in plain}:
                lines = [u.line for u in plain if u.attempts == attempts]
                conn.execute(
                    f"UPDATE lines SET state = ?, attempts = ?, retryable = 0, errors = '[]'"
                    f" WHERE batch_id = ? AND line IN ({','.join('?' * len(lines))})",
                    (COMPLETED, attempts, batch_id, *lines),
                )
            conn.executemany(
                "UPDATE lines SET state = ?, attempts = ?, retryable = ?, errors = ?,"
                " not_before = ?, batch_id = CASE WHEN ? = 'PENDING' THEN NULL ELSE batch_id END"
                " WHERE batch_id = ? AND line = ?",
                [(u.state, u.attempts, u.retryable, json.dumps(list(u.errors)), u.not_before,
                  u.state, batch_id, u.line) for u in updates
                 if not (u.state == COMPLETED and not u.errors)],
            )  # fmt: skip
            released = [
                followed[u.line] for u in updates if u.state in FINAL and u.line in followed
            ]
            if released:
                job_id = conn.execute("SELECT job_id FROM batches WHERE id = ?", (batch_id,))
                self._release(conn, job_id.fetchone()[0], released)
            if batch_state is not None:
                conn.execute(
                    "UPDATE batches SET state = ?, updated_at = ? WHERE id = ?",
                    (batch_state, _now(), batch_id),
                )

    @staticmethod
    def _release(conn: sqlite3.Connection, job_id: str, lines: Iterable[int]) -> None:
        """The lines before these of their profiles are settled: they may go now."""
        conn.executemany(
            "UPDATE lines SET state = 'PENDING' WHERE job_id = ? AND line = ? AND state = ?",
            [(job_id, line, WAITING) for line in lines],
        )

    # --- results ------------------------------------------------------------------------

    def lines(
        self,
        job_id: str,
        *,
        states: Iterable[str] | None = None,
        retryable: bool | None = None,
        after: int = 0,
        limit: int | None = None,
    ) -> Iterator[LineOutcome]:
        """The job's lines in order, optionally only those in ``states`` and with the given
        ``retryable`` flag; ``after`` (a line number) and ``limit`` page through them. It
        reads in pages through an index, so a report of any size streams in constant
        memory and page 9,000 costs what page 1 does."""
        source, where, params = self._line_filter(states, retryable)
        remaining = limit
        while remaining is None or remaining > 0:
            page = 1000 if remaining is None else min(1000, remaining)
            rows = self._db.query(
                f"SELECT * FROM {source} WHERE job_id = ?{where} AND line > ?"
                " ORDER BY line LIMIT ?",
                (job_id, *params, after, page),
            )
            for r in rows:
                yield LineOutcome(
                    line=r["line"],
                    offset=r["byte_offset"],
                    client_ref_id=r["client_ref_id"],
                    profile_key=r["profile_key"],
                    kind=r["kind"],
                    state=r["state"],
                    attempts=r["attempts"],
                    retryable=bool(r["retryable"]),
                    errors=json.loads(r["errors"]),
                )
            if len(rows) < page:
                return
            after = rows[-1]["line"]
            if remaining is not None:
                remaining -= len(rows)

    def count_lines(
        self, job_id: str, *, states: Iterable[str] | None = None, retryable: bool | None = None
    ) -> int:
        """How many of the job's lines :meth:`lines` gives with the same filter (to show
        "page 2 of 7"), from the counters where they say it."""
        counts = self.counts(job_id)
        if states is None and retryable is None:
            return counts.lines
        states = tuple(states) if states is not None else None
        if states == (FAILED,) and retryable:
            return counts.retryable
        if states is not None and retryable is None:
            buckets = {INVALID: counts.invalid, COMPLETED: counts.completed, FAILED: counts.failed,
                       SUPERSEDED: counts.superseded, UNKNOWN: counts.unknown, SENT: counts.sent,
                       WAITING: counts.waiting}  # fmt: skip
            if all(state in buckets for state in states):
                return sum(buckets[state] for state in states)
        source, where, params = self._line_filter(states, retryable)
        rows = self._db.query(f"SELECT COUNT(*) FROM {source} WHERE job_id = ?{where}",
                           (job_id, *params))  # fmt: skip
        return rows[0][0]

    @staticmethod
    def _line_filter(states: Iterable[str] | None, retryable: bool | None) -> tuple[str, str, list]:
        """The table (with the index to read it by) and the conditions of a line filter.
        One outcome, or the lines to fix, are read through their partial indexes (their
        conditions spelt as the indexes' are, or SQLite would not use them)."""
        source, where, params = "lines", "", list[str | int]()
        states = tuple(states) if states is not None else None
        if states is not None and len(states) == 1 and states[0] in OUTCOMES:
            source = "lines INDEXED BY lines_by_outcome"
            where = f" AND state IN {OUTCOME_SQL} AND state = ?"
            params = [states[0]]
        elif states is not None and set(states) == set(TO_FIX):
            source, where = "lines INDEXED BY lines_to_fix", f" AND state IN {TO_FIX_SQL}"
        elif states is not None:
            where = f" AND state IN ({','.join('?' * len(states))})"
            params = list(states)
        if retryable is not None:
            where += " AND retryable = ?"
            params.append(int(retryable))
        return source, where, params

    def retry_retryable(self, job_id: str) -> int:
        """Put the job's retryable FAILED lines and its UNKNOWN ones back to be sent (same
        clientRefIds, a new round of attempts) and return how many; run the job again to
        send them. One that a later line of its profile follows is SUPERSEDED instead:
        sending it again would put older data over newer."""
        with self._db.transaction() as conn:
            again = conn.execute(
                "SELECT line, next_line FROM lines INDEXED BY lines_by_outcome"
                f" WHERE job_id = ? AND state IN {OUTCOME_SQL} AND state = ? AND retryable = 1"
                " UNION ALL SELECT line, next_line FROM lines INDEXED BY lines_by_outcome"
                f" WHERE job_id = ? AND state IN {OUTCOME_SQL} AND state = ?",
                (job_id, FAILED, job_id, UNKNOWN),
            ).fetchall()
            if not again:
                return 0
            stale = [(json.dumps([_superseded_text(n)]), job_id, line)
                     for line, n in again if n is not None]  # fmt: skip
            conn.executemany(
                "UPDATE lines SET state = 'SUPERSEDED', errors = ? WHERE job_id = ? AND line = ?",
                stale,
            )
            conn.executemany(
                "UPDATE lines SET state = ?, attempts = 0, not_before = 0, batch_id = NULL,"
                " uncertain = 0 WHERE job_id = ? AND line = ?",
                [(PENDING, job_id, line) for line, n in again if n is None],
            )
            conn.execute(
                "UPDATE jobs SET state = ?, message = NULL, updated_at = ? WHERE id = ?",
                (SENDING, _now(), job_id),
            )
        return len(again) - len(stale)

    def followed(self, job_id: str, line: int) -> bool:
        """Whether a later line of the same profile follows this one."""
        rows = self._db.query(
            "SELECT next_line FROM lines WHERE job_id = ? AND line = ?", (job_id, line)
        )
        return bool(rows and rows[0][0] is not None)

    def supersede(self, job_id: str, line: int) -> None:
        """Settle an UNKNOWN line that a later line of its profile follows."""
        with self._db.transaction() as conn:
            conn.execute(
                "UPDATE lines SET state = ?, retryable = 0, errors = ?"
                " WHERE job_id = ? AND line = ? AND state = ?",
                (SUPERSEDED, json.dumps(["verified: a later line of the same profile "
                 "carries newer data"]), job_id, line, UNKNOWN),
            )  # fmt: skip

    def settle_verified(self, job_id: str, outcomes: Iterable[tuple[int, bool, bool, str]]) -> None:
        """Settle UNKNOWN lines after reading their profiles back: (line, found as sent,
        whether sending it again is safe, what was found)."""
        with self._db.transaction() as conn:
            conn.executemany(
                "UPDATE lines SET state = ?, retryable = ?, errors = ?"
                " WHERE job_id = ? AND line = ? AND state = ?",
                [(COMPLETED if same else FAILED, int(retry), json.dumps([] if same else [why]),
                  job_id, line, UNKNOWN) for line, same, retry, why in outcomes],
            )  # fmt: skip


def _select_in(
    conn: sqlite3.Connection, sql: str, job_id: str, values: list, chunk: int = 500
) -> list[tuple]:
    """``sql`` ending in ``IN`` for ``values``, a chunk at a time (SQLite caps the number
    of parameters of one statement)."""
    found = []
    for start in range(0, len(values), chunk):
        part = values[start : start + chunk]
        found += conn.execute(f"{sql} ({','.join('?' * len(part))})", (job_id, *part)).fetchall()
    return [tuple(row) for row in found]


def request_bytes(length: int) -> int:
    """What a line of ``length`` bytes may take in a request: in an envelope, with its
    newline (an upper bound, so that a request never outgrows its limit)."""
    return length + ENVELOPE_BYTES + 1


def _within(rows: list[sqlite3.Row], max_bytes: int) -> list[sqlite3.Row]:
    """The first rows whose enveloped lines fit in ``max_bytes`` (at least one row)."""
    total = 0
    for count, row in enumerate(rows):
        total += request_bytes(row["length"])
        if total > max_bytes:
            return rows[: max(count, 1)]
    return rows


def _lock(handle: IO[bytes]) -> bool:
    try:
        if sys.platform == "win32":
            import msvcrt

            msvcrt.locking(handle.fileno(), msvcrt.LK_NBLCK, 1)
        else:
            import fcntl

            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return False
    return True


def _still_at(handle: IO[bytes], path: Path) -> bool:
    """Whether ``path`` still names the file ``handle`` has open."""
    try:
        return os.path.samestat(os.fstat(handle.fileno()), path.stat())
    except FileNotFoundError:
        return False


def _release(handle: IO[bytes], path: Path) -> None:
    """Let a job's lock go, removing its file first, while it is still held: no one else
    can be holding it then, and whoever opened it meanwhile finds it gone once they lock it
    (see :meth:`Journal._take_lock`). Windows cannot remove an open file: it stays there."""
    if sys.platform != "win32":
        path.unlink(missing_ok=True)
    handle.close()


def _superseded_text(line: int) -> str:
    return f"superseded by line {line} of the same profile, which carries newer data"
