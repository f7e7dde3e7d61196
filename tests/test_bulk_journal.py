"""The bulk journal on its own: counts, batches, recovery after a crash, paging, locks."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
import uuid
from contextlib import closing
from pathlib import Path

import pytest

from tui_app.bulk import journal as journal_module
from tui_app.bulk.journal import (
    ACCEPTED,
    COMPLETED,
    FAILED,
    INVALID,
    OPEN,
    PENDING,
    SENT,
    JobBusy,
    Journal,
    LineUpdate,
    UnknownJob,
    journal_path,
)
from tui_app.bulk.source import Checked, Fingerprint
from tui_app.config import data_dir

FINGERPRINT = Fingerprint(10, 1, "0" * 64)


def line(n: int, ref: str | None = None, errors: tuple[str, ...] = ()) -> Checked:
    ref = ref or (None if errors else str(uuid.UUID(int=n)))
    return Checked(n, n * 10, n, "agent", f"K{n}", ref, errors)


@pytest.fixture
def journal(tmp_path: Path):
    with Journal(tmp_path / "journal.db") as j:
        yield j


def new_job(journal: Journal, lines: int = 0, batch_size: int = 100) -> str:
    job = journal.create_job("sandbox", Path("/data/in.ndjson"), FINGERPRINT, batch_size)
    if lines:
        journal.add_lines(job.id, [line(n) for n in range(1, lines + 1)], done=True)
    return job.id


def test_it_lives_in_the_data_dir_in_wal_mode():
    assert journal_path() == data_dir() / "bulk-journal.db"
    with Journal() as journal:
        assert journal.path == journal_path()
    # WAL is a property of the file: any connection to it says so.
    with closing(sqlite3.connect(journal_path())) as other:
        assert other.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_a_new_job_validates_first_and_is_found_by_a_unique_prefix(journal: Journal):
    job_id = new_job(journal)
    job = journal.job(job_id[:3])
    assert (job.id, job.env, job.state, job.batch_size) == (job_id, "sandbox", "VALIDATING", 100)
    assert job.fingerprint == FINGERPRINT and job.path == Path("/data/in.ndjson")
    assert [j.id for j in journal.jobs()] == [job_id]
    with pytest.raises(UnknownJob, match="no bulk job 'zz'"):
        journal.job("zz")


def test_lines_are_recorded_with_the_scan_position_and_duplicate_ids_are_invalid(journal):
    job_id = new_job(journal)
    same = str(uuid.uuid4())
    journal.add_lines(job_id, [line(1, same), line(2, errors=("ssn: is required",))], done=False)
    job = journal.job(job_id)
    assert (job.scanned_line, job.scanned_offset, job.scan_done) == (2, 20, False)
    journal.add_lines(job_id, [line(4, same), line(5)], done=True)
    job = journal.job(job_id)
    assert (job.scanned_line, job.scan_done) == (5, True)
    outcomes = {o.line: (o.state, o.errors) for o in journal.lines(job_id)}
    assert outcomes == {
        1: (PENDING, []),
        2: (INVALID, ["ssn: is required"]),
        4: (INVALID, ["clientRefId: repeats line 1"]),
        5: (PENDING, []),
    }
    c = job.counts
    assert (c.lines, c.valid, c.invalid, c.pending, c.sent_so_far) == (4, 2, 2, 2, 0)


def test_batches_take_due_lines_in_order_up_to_their_size(journal: Journal):
    job_id = new_job(journal, lines=5)
    now = time.time()
    assert journal.take_batch(job_id, 3, min_size=6, now=now) is None  # too few for a full one
    first = journal.take_batch(job_id, 3, min_size=3, now=now)
    assert [entry.line for entry in first.lines] == [1, 2, 3]
    assert journal.job(job_id).counts.sent == 3
    # Line 4 fails retryably and waits; line 5 is due now.
    second = journal.take_batch(job_id, 3, min_size=1, now=now)
    journal.settle(second.id, "DONE", [
        LineUpdate(4, PENDING, 1, True, ["busy"], not_before=now + 60),
        LineUpdate(5, COMPLETED, 1),
    ])  # fmt: skip
    assert journal.take_batch(job_id, 3, min_size=1, now=now) is None
    assert journal.next_due(job_id) == pytest.approx(now + 60)
    c = journal.counts(job_id)
    assert (c.retrying, c.pending, c.completed, c.sent) == (1, 0, 1, 3)
    again = journal.take_batch(job_id, 3, min_size=1, now=now + 61)
    assert [(e.line, e.attempts) for e in again.lines] == [(4, 1)]


def test_recovery_turns_a_batch_cut_off_mid_post_into_an_uncertain_open_one(journal: Journal):
    job_id = new_job(journal, lines=4)
    posted = journal.take_batch(job_id, 2, min_size=1, now=time.time())
    accepted = journal.take_batch(job_id, 2, min_size=1, now=time.time())
    journal.posting(posted.id)
    journal.posting(accepted.id)
    journal.accepted(accepted.id, "req-1")
    # ... and here the process was killed.
    with Journal(journal.path) as after:
        recovered = after.recover(job_id)
        assert [(b.id, b.bulk_request_id, [e.line for e in b.lines]) for b in recovered] == [
            (posted.id, None, [1, 2]),
            (accepted.id, "req-1", [3, 4]),
        ]
        assert after.batch_states(job_id) == {OPEN: 1, ACCEPTED: 1, "uncertain": 1}
        after.reopen(posted.id, uncertain=False)  # a later certain failure keeps the flag
        assert after.batch_states(job_id)["uncertain"] == 1


def test_lines_filter_by_state_and_retryable_and_page_past_a_thousand(journal: Journal):
    job_id = new_job(journal, lines=2500)
    batch = journal.take_batch(job_id, 100, min_size=1, now=time.time())
    journal.settle(batch.id, "DONE", [
        LineUpdate(e.line, FAILED, 1, retryable=e.line % 2 == 0, errors=["x"])
        for e in batch.lines
    ])  # fmt: skip
    assert sum(1 for _ in journal.lines(job_id)) == 2500
    assert [o.line for o in journal.lines(job_id, after=2497)] == [2498, 2499, 2500]
    assert len(list(journal.lines(job_id, states=[PENDING], limit=1500))) == 1500
    retryable = [o.line for o in journal.lines(job_id, states=[FAILED], retryable=True)]
    assert retryable == list(range(2, 101, 2))
    assert journal.retry_retryable(job_id) == 50
    c = journal.counts(job_id)
    assert (c.failed, c.pending, c.sent) == (50, 2450, 0)
    assert journal.job(job_id).state == "SENDING"


def test_a_line_set_pending_leaves_its_batch(journal: Journal):
    job_id = new_job(journal, lines=2)
    batch = journal.take_batch(job_id, 2, min_size=1, now=time.time())
    journal.settle(batch.id, "REJECTED", [LineUpdate(1, PENDING, 0), LineUpdate(2, FAILED, 1)])
    rows = journal._db.query("SELECT line, state, batch_id FROM lines ORDER BY line")
    assert [tuple(r) for r in rows] == [(1, PENDING, None), (2, FAILED, batch.id)]
    assert journal.counts(job_id).sent == 0
    assert journal.batch_states(job_id) == {"REJECTED": 1, "uncertain": 0}


def test_one_runner_per_job_and_a_killed_runner_leaves_no_lock(journal: Journal, tmp_path):
    job_id = new_job(journal)
    with journal.running(job_id):
        assert journal.is_running(job_id)
        with pytest.raises(JobBusy, match="already running"), journal.running(job_id):
            pass
    assert not journal.is_running(job_id)
    holder = subprocess.Popen(
        [sys.executable, "-c",
         "import sys, time; from pathlib import Path; from tui_app.bulk.journal import Journal; "
         f"j = Journal(Path({str(journal.path)!r})); cm = j.running({job_id!r}); "
         "cm.__enter__(); print('locked', flush=True); time.sleep(60)"],
        stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert holder.stdout.readline().strip() == "locked"
        assert journal.is_running(job_id)
    finally:
        os.kill(holder.pid, signal.SIGKILL)
        holder.wait()
    assert lock_file(journal, job_id).exists()  # the killed holder could not remove it
    assert not journal.is_running(job_id)
    assert not lock_file(journal, job_id).exists()  # whoever takes it next does


def lock_file(journal: Journal, job_id: str) -> Path:
    return journal.path.parent / "bulk-locks" / f"{job_id}.lock"


def test_a_lock_file_is_private_and_exists_only_while_held(journal: Journal):
    job_id = new_job(journal)
    with journal.running(job_id):
        assert lock_file(journal, job_id).stat().st_mode & 0o777 == 0o600
    assert not lock_file(journal, job_id).exists()
    assert not journal.is_running(job_id)
    assert list(lock_file(journal, job_id).parent.iterdir()) == []


def test_a_lock_file_its_holder_removes_while_another_opens_it_is_not_taken(
    journal: Journal, monkeypatch
):
    """The race that removing lock files opens: B opens the file, A (holding it) removes
    it and lets go, B locks the removed file. B must take the new one instead, or C, which
    finds no file and creates one, would hold the job's lock too."""
    job_id = new_job(journal)
    a = journal.running(job_id)
    a.__enter__()
    opened = journal_module.open_private

    def open_then_a_lets_go(path, mode):
        handle = opened(path, mode)
        monkeypatch.setattr(journal_module, "open_private", opened)  # once
        a.__exit__(None, None, None)
        return handle

    monkeypatch.setattr(journal_module, "open_private", open_then_a_lets_go)
    with journal.running(job_id):  # B
        assert journal.is_running(job_id)  # C finds it held


def test_another_process_reads_while_a_run_writes(journal: Journal):
    job_id = new_job(journal, lines=3)
    with sqlite3.connect(journal.path) as reader:
        journal.take_batch(job_id, 3, min_size=1, now=time.time())
        states = reader.execute("SELECT state, COUNT(*) FROM lines GROUP BY state").fetchall()
    assert states == [(SENT, 3)]


def test_jobs_made_in_the_same_second_are_listed_newest_first(tmp_path, monkeypatch):
    """Seen in a Bulk test: a file submitted again within the second of its first job was
    listed below it (created_at has whole seconds), so the jobs table and "newest first"
    answers named the older job."""
    monkeypatch.setattr(journal_module, "_now", lambda: "2026-11-24T05:00:00+00:00")
    with Journal(tmp_path / "j.db") as journal:
        made = [journal.create_job("sandbox", tmp_path / f"{n}.ndjson", FINGERPRINT, 100)
                for n in range(5)]  # fmt: skip
        newest_first = [job.id for job in reversed(made)]
        assert [job.id for job in journal.jobs()] == newest_first
        assert [job.id for job in journal.jobs("sandbox")] == newest_first
        assert [job.id for job in journal.jobs_of_file("sandbox", "0" * 64)] == newest_first
