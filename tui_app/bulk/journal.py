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

Every line ends ``INVALID``, ``COMPLETED`` or ``FAILED``; until then it is ``PENDING``
(waiting to be sent, again if ``attempts`` > 0) or ``SENT`` (in a batch awaiting its result).
"""

from __future__ import annotations

import json
import os
import secrets
import sqlite3
import threading
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, TYPE_CHECKING

from tui_app.bulk.source import Fingerprint
from tui_app.config import data_dir

if TYPE_CHECKING:
    from tui_app.bulk.source import Checked

# Job states. A job is resumable in every state but DONE.
VALIDATING = "VALIDATING"  # lines are being validated (requests may already be going out)
SENDING = "SENDING"  # every line is validated; some still wait to be sent
POLLING = "POLLING"  # everything is sent; results are awaited
DONE = "DONE"  # every line is INVALID, COMPLETED or FAILED
STOPPED = "STOPPED"  # the last run stopped early; ``message`` says why

# Line states.
INVALID, PENDING, SENT, COMPLETED, FAILED = "INVALID", "PENDING", "SENT", "COMPLETED", "FAILED"

# Batch states.
OPEN = "OPEN"  # formed, not (or no longer) being posted
POSTING = "POSTING"  # a POST may be in flight
ACCEPTED = "ACCEPTED"  # the service answered with a bulkRequestId
BATCH_DONE = "DONE"  # results recorded
REJECTED = "REJECTED"  # the service refused the request as a whole

SCHEMA = """
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
CREATE INDEX IF NOT EXISTS lines_to_send ON lines (job_id, line) WHERE state = 'PENDING';
CREATE INDEX IF NOT EXISTS lines_by_batch ON lines (batch_id) WHERE batch_id IS NOT NULL;

-- Counts per job and state, kept by triggers so progress costs one small read. Lines
-- waiting to be sent again count as RETRY rather than PENDING.
CREATE TABLE IF NOT EXISTS line_counts (
    job_id TEXT NOT NULL,
    bucket TEXT NOT NULL,
    n INTEGER NOT NULL,
    PRIMARY KEY (job_id, bucket)
) WITHOUT ROWID;
CREATE TRIGGER IF NOT EXISTS lines_counted AFTER INSERT ON lines BEGIN
    INSERT INTO line_counts VALUES (NEW.job_id,
        CASE WHEN NEW.state = 'PENDING' AND NEW.attempts > 0 THEN 'RETRY' ELSE NEW.state END, 1)
    ON CONFLICT DO UPDATE SET n = n + 1;
END;
CREATE TRIGGER IF NOT EXISTS lines_recounted AFTER UPDATE OF state, attempts ON lines BEGIN
    UPDATE line_counts SET n = n - 1 WHERE job_id = OLD.job_id AND bucket =
        CASE WHEN OLD.state = 'PENDING' AND OLD.attempts > 0 THEN 'RETRY' ELSE OLD.state END;
    INSERT INTO line_counts VALUES (NEW.job_id,
        CASE WHEN NEW.state = 'PENDING' AND NEW.attempts > 0 THEN 'RETRY' ELSE NEW.state END, 1)
    ON CONFLICT DO UPDATE SET n = n + 1;
END;
"""


class UnknownJob(LookupError):
    exit_code = 2


class JobBusy(RuntimeError):
    """Another process (or task) is running this job."""

    exit_code = 2


@dataclass(frozen=True)
class Counts:
    lines: int = 0
    """Non-blank lines validated so far."""
    invalid: int = 0
    pending: int = 0
    """Valid lines never sent yet."""
    retrying: int = 0
    """Lines whose last result was a retryable failure, waiting to be sent again."""
    sent: int = 0
    """Lines in a request whose result is not known yet."""
    completed: int = 0
    failed: int = 0

    @property
    def valid(self) -> int:
        return self.lines - self.invalid

    @property
    def sent_so_far(self) -> int:
        """Valid lines that have been sent at least once."""
        return self.valid - self.pending

    @property
    def all_succeeded(self) -> bool:
        return self.completed == self.lines


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

    @property
    def finished(self) -> bool:
        return self.state == DONE


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


class Journal:
    """The journal database. Thread-safe: one connection behind a lock (SQLite serialises
    writers anyway, and every transaction is short)."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path or journal_path()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._conn = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        self._conn.row_factory = sqlite3.Row
        self._lock = threading.RLock()
        with self._lock:
            self._conn.execute("PRAGMA journal_mode=WAL")
            # NORMAL: a commit survives a killed process; see posting() for power cuts.
            self._conn.execute("PRAGMA synchronous=NORMAL")
            self._conn.execute("PRAGMA busy_timeout=10000")
            self._conn.executescript(SCHEMA)

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    def __enter__(self) -> Journal:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def _tx(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                yield self._conn
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise
            self._conn.execute("COMMIT")

    def _query(self, sql: str, params: Sequence = ()) -> list[sqlite3.Row]:
        with self._lock:
            return self._conn.execute(sql, params).fetchall()

    # --- jobs ---------------------------------------------------------------------------

    def create_job(self, env: str, path: Path, fingerprint: Fingerprint, batch_size: int) -> Job:
        now = _now()
        with self._tx() as conn:
            while True:
                job_id = secrets.token_hex(4)
                try:
                    conn.execute(
                        "INSERT INTO jobs (id, env, path, size, mtime_ns, sha256, batch_size,"
                        " state, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                        (job_id, env, str(path), fingerprint.size, fingerprint.mtime_ns,
                         fingerprint.sha256, batch_size, VALIDATING, now, now),
                    )  # fmt: skip
                    break
                except sqlite3.IntegrityError:  # an id already taken: draw another
                    continue
        return self.job(job_id)

    def job(self, job_id: str) -> Job:
        """The job with this id, or with this unique id prefix."""
        rows = self._query("SELECT * FROM jobs WHERE id = ?", (job_id,)) or self._query(
            "SELECT * FROM jobs WHERE id LIKE ? || '%' LIMIT 2", (job_id,)
        )
        if len(rows) != 1:
            what = "no" if not rows else "more than one"
            raise UnknownJob(f"{what} bulk job {job_id!r} (producer-tui bulk status lists them)")
        return self._job(rows[0])

    def jobs(self) -> list[Job]:
        """Every job, newest first."""
        return [self._job(r) for r in self._query("SELECT * FROM jobs ORDER BY created_at DESC")]

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
        )

    def counts(self, job_id: str) -> Counts:
        found = {
            r["bucket"]: r["n"]
            for r in self._query("SELECT bucket, n FROM line_counts WHERE job_id = ?", (job_id,))
        }
        return Counts(
            lines=sum(found.values()),
            invalid=found.get(INVALID, 0),
            pending=found.get(PENDING, 0),
            retrying=found.get("RETRY", 0),
            sent=found.get(SENT, 0),
            completed=found.get(COMPLETED, 0),
            failed=found.get(FAILED, 0),
        )

    def set_state(self, job_id: str, state: str, message: str | None = None) -> None:
        with self._tx() as conn:
            conn.execute(
                "UPDATE jobs SET state = ?, message = ?, updated_at = ? WHERE id = ?",
                (state, message, _now(), job_id),
            )

    def batch_states(self, job_id: str) -> dict[str, int]:
        """How many batches are in each state, plus ``uncertain``: how many were re-sent
        after a POST whose outcome was never known."""
        rows = self._query(
            "SELECT state, COUNT(*) AS n, SUM(uncertain) AS u FROM batches WHERE job_id = ?"
            " GROUP BY state",
            (job_id,),
        )
        found = {r["state"]: r["n"] for r in rows}
        found["uncertain"] = sum(r["u"] for r in rows)
        return found

    # --- locking ------------------------------------------------------------------------

    @contextmanager
    def running(self, job_id: str) -> Iterator[None]:
        """Hold the job's lock while running it; :class:`JobBusy` if someone else does.
        The lock is the operating system's: it goes away with its process, even a killed
        one, so a crashed run never blocks a resume."""
        handle = self._take_lock(job_id)
        if handle is None:
            raise JobBusy(f"bulk job {job_id} is already running in another process")
        try:
            yield
        finally:
            handle.close()

    def is_running(self, job_id: str) -> bool:
        handle = self._take_lock(job_id)
        if handle is None:
            return True
        handle.close()
        return False

    def _take_lock(self, job_id: str) -> IO[bytes] | None:
        folder = self.path.parent / "bulk-locks"
        folder.mkdir(exist_ok=True)
        handle = open(folder / f"{job_id}.lock", "a+b")  # noqa: SIM115 - returned open
        try:
            if os.name == "nt":
                import msvcrt

                msvcrt.locking(handle.fileno(), msvcrt.LK_NBLCK, 1)
            else:
                import fcntl

                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            handle.close()
            return None
        return handle

    # --- validation ---------------------------------------------------------------------

    def add_lines(self, job_id: str, rows: Sequence[Checked], *, done: bool) -> None:
        """Record validated lines and the scan position, in one transaction. A valid line
        whose clientRefId repeats an earlier line's is recorded INVALID: results are
        matched by clientRefId, so the two could not be told apart."""
        with self._tx() as conn:
            for row in rows:
                state = PENDING if row.valid else INVALID
                errors = list(row.errors)
                try:
                    self._insert_line(conn, job_id, row, state, errors)
                except sqlite3.IntegrityError:
                    first = conn.execute(
                        "SELECT line FROM lines WHERE job_id = ? AND client_ref_id = ?"
                        " AND state != 'INVALID'",
                        (job_id, row.client_ref_id),
                    ).fetchone()
                    errors = [f"clientRefId: repeats line {first['line']}"]
                    self._insert_line(conn, job_id, row, INVALID, errors)
            last = rows[-1] if rows else None
            conn.execute(
                "UPDATE jobs SET scanned_line = COALESCE(?, scanned_line),"
                " scanned_offset = COALESCE(?, scanned_offset), scan_done = ?, updated_at = ?"
                " WHERE id = ?",
                (last and last.number, last and last.offset, done, _now(), job_id),
            )

    @staticmethod
    def _insert_line(conn, job_id: str, row: Checked, state: str, errors: list[str]) -> None:
        conn.execute(
            "INSERT INTO lines (job_id, line, byte_offset, crc, client_ref_id, profile_key,"
            " kind, state, errors) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (job_id, row.number, row.offset, row.crc, row.client_ref_id, row.profile_key,
             row.kind, state, json.dumps(errors)),
        )  # fmt: skip

    # --- batches ------------------------------------------------------------------------

    def recover(self, job_id: str) -> list[Batch]:
        """Start of a run: batches that were mid-POST become OPEN and uncertain. Returns
        the batches to carry on with: OPEN ones (to send) and ACCEPTED ones (to poll)."""
        with self._tx() as conn:
            conn.execute(
                "UPDATE batches SET state = ?, uncertain = 1, updated_at = ?"
                " WHERE job_id = ? AND state = ?",
                (OPEN, _now(), job_id, POSTING),
            )
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
                "SELECT line, byte_offset, crc, client_ref_id, attempts FROM lines"
                " WHERE batch_id = ? AND state = ? ORDER BY line",
                (batch_id, SENT),
            )
        ]

    def take_batch(self, job_id: str, size: int, *, min_size: int, now: float) -> Batch | None:
        """Form a new OPEN batch of up to ``size`` lines that are due to be sent, oldest
        line first; None when fewer than ``min_size`` are."""
        with self._tx() as conn:
            rows = conn.execute(
                "SELECT line, byte_offset, crc, client_ref_id, attempts FROM lines"
                " WHERE job_id = ? AND state = ? AND not_before <= ? ORDER BY line LIMIT ?",
                (job_id, PENDING, now, size),
            ).fetchall()
            if not rows or len(rows) < min_size:
                return None
            stamp = _now()
            batch_id = conn.execute(
                "INSERT INTO batches (job_id, state, created_at, updated_at) VALUES (?, ?, ?, ?)",
                (job_id, OPEN, stamp, stamp),
            ).lastrowid
            conn.executemany(
                "UPDATE lines SET state = ?, batch_id = ? WHERE job_id = ? AND line = ?",
                [(SENT, batch_id, job_id, r["line"]) for r in rows],
            )
        return Batch(batch_id, None, [BatchLine(*r) for r in rows])

    def next_due(self, job_id: str) -> float | None:
        """When the next line waiting to be sent is due (Unix time); None if none waits."""
        row = self._query(
            "SELECT MIN(not_before) AS t FROM lines WHERE job_id = ? AND state = ?",
            (job_id, PENDING),
        )[0]
        return row["t"]

    def posting(self, batch_id: int) -> None:
        """Committed before each POST: a run cut short finds the batch POSTING. This commit
        is synced to disk (and with it every earlier one: the WAL is written in order), so
        even a power cut cannot hide a request that may have gone out; the others need
        not be, which saves a sync per step."""
        with self._lock:
            self._conn.execute("PRAGMA synchronous=FULL")
            try:
                self._set_batch(batch_id, "state = ?, posts = posts + 1", (POSTING,))
            finally:
                self._conn.execute("PRAGMA synchronous=NORMAL")

    def reopen(self, batch_id: int, *, uncertain: bool) -> None:
        """A POST failed; ``uncertain`` when the service may have received it anyway."""
        self._set_batch(batch_id, "state = ?, uncertain = MAX(uncertain, ?)", (OPEN, uncertain))

    def accepted(self, batch_id: int, bulk_request_id: str) -> None:
        self._set_batch(batch_id, "state = ?, bulk_request_id = ?", (ACCEPTED, bulk_request_id))

    def _set_batch(self, batch_id: int, assignments: str, params: tuple) -> None:
        with self._tx() as conn:
            conn.execute(
                f"UPDATE batches SET {assignments}, updated_at = ? WHERE id = ?",
                (*params, _now(), batch_id),
            )

    def settle(self, batch_id: int, batch_state: str | None, updates: Iterable[LineUpdate]) -> None:
        """Record lines' new states (and the batch's, if given) in one transaction. A line
        set PENDING leaves the batch, to be sent again in another one."""
        with self._tx() as conn:
            conn.executemany(
                "UPDATE lines SET state = ?, attempts = ?, retryable = ?, errors = ?,"
                " not_before = ?, batch_id = CASE WHEN ? = 'PENDING' THEN NULL ELSE batch_id END"
                " WHERE batch_id = ? AND line = ?",
                [(u.state, u.attempts, u.retryable, json.dumps(list(u.errors)), u.not_before,
                  u.state, batch_id, u.line) for u in updates],
            )  # fmt: skip
            if batch_state is not None:
                conn.execute(
                    "UPDATE batches SET state = ?, updated_at = ? WHERE id = ?",
                    (batch_state, _now(), batch_id),
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
        reads in pages, so a report of any size streams in constant memory."""
        where, params = self._line_filter(states, retryable)
        remaining = limit
        while remaining is None or remaining > 0:
            page = 1000 if remaining is None else min(1000, remaining)
            rows = self._query(
                f"SELECT * FROM lines WHERE job_id = ? AND line > ?{where} ORDER BY line LIMIT ?",
                (job_id, after, *params, page),
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
        "page 2 of 7")."""
        where, params = self._line_filter(states, retryable)
        rows = self._query(f"SELECT COUNT(*) FROM lines WHERE job_id = ?{where}", (job_id, *params))
        return rows[0][0]

    @staticmethod
    def _line_filter(states: Iterable[str] | None, retryable: bool | None) -> tuple[str, list]:
        where, params = "", []
        if states is not None:
            states = list(states)
            where += f" AND state IN ({','.join('?' * len(states))})"
            params += states
        if retryable is not None:
            where += " AND retryable = ?"
            params.append(int(retryable))
        return where, params

    def retry_retryable(self, job_id: str) -> int:
        """Put the job's retryable FAILED lines back to be sent (same clientRefIds, a new
        round of attempts) and return how many; run the job again to send them."""
        with self._tx() as conn:
            count = conn.execute(
                "UPDATE lines SET state = ?, attempts = 0, not_before = 0, batch_id = NULL"
                " WHERE job_id = ? AND state = ? AND retryable = 1",
                (PENDING, job_id, FAILED),
            ).rowcount
            if count:
                conn.execute(
                    "UPDATE jobs SET state = ?, message = NULL, updated_at = ? WHERE id = ?",
                    (SENDING, _now(), job_id),
                )
        return count
