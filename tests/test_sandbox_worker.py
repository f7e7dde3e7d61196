"""Several processes embedding the sandbox over one database file (issue 12): only the
holder of the worker lock processes bulk jobs; when it dies another takes over and
finishes the half-done request. And the database is private from its first byte."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

from tui_app.contract.bulk import BulkItem
from tui_app.contract.profile import AgentRecord
from tui_app.sandbox import bulk, profiles
from tui_app.sandbox.app import Sandbox, SandboxSettings
from tui_app.sandbox.bulk import BulkJobs
from tui_app.sandbox.db import Database
from tui_app.sandbox.profiles import Profiles, load_import_rules

ADDRESS = {"City": "Sacramento", "State": "CA", "StreetAddress1": "1 Main St", "Zip": "95814"}
DEMOGRAPHIC = {"EmpStatus": "7040", "FirstName": "Rowan", "LastName": "Tester"}


def make_jobs(path: Path) -> BulkJobs:
    db = Database(path, schemas=(profiles.SCHEMA, bulk.SCHEMA))
    return BulkJobs(db, Profiles(db, load_import_rules()))


def body(count: int, prefix: str = "W") -> bytes:
    lines = []
    for i in range(count):
        record = AgentRecord.model_validate(
            {
                "ProfileKey": f"{prefix}-{i}",
                "Ssn": f"0004{i:05d}",
                "BusinessAddress": ADDRESS,
                "Demographic": DEMOGRAPHIC,
            }
        )
        lines.append(json.dumps(BulkItem.wrap(record).to_line()))
    return ("\n".join(lines) + "\n").encode()


def profile_count(path: Path) -> int:
    db = Database(path)
    try:
        return db.query_one("SELECT count(*) FROM profiles")[0]
    finally:
        db.close()


def test_only_the_lock_holder_processes_and_another_takes_over_after_release(tmp_path):
    path = tmp_path / "shared.db"
    first, second = make_jobs(path), make_jobs(path)
    job = second.accept(body(5))
    assert first._lock.acquire()  # first is the worker now (as inside run_worker)
    assert second.process_pending() == 0  # no double processing: second leaves it alone
    assert second.status(job).processingStatus == "PENDING"
    assert first.process_pending(limit=2) == 2
    first._lock.release()  # the holder goes away
    assert second.process_pending() == 3  # second finishes the half-done request
    found = second.status(job)
    assert found.processingStatus == "COMPLETE" and found.operationDetails.success == 5
    assert profile_count(path) == 5
    lock = Path(f"{path}.bulk-worker.lock")
    assert stat.S_IMODE(lock.stat().st_mode) == 0o600


def test_two_running_workers_never_share_a_request(tmp_path):
    path = tmp_path / "two.db"
    a, b = make_jobs(path), make_jobs(path)
    stop = threading.Event()
    threads = [threading.Thread(target=w.run_worker, args=(stop, 0.01)) for w in (a, b)]
    for t in threads:
        t.start()
    try:
        jobs = [a.accept(body(40, f"T{n}")) for n in range(3)]
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if all(a.status(j).processingStatus == "COMPLETE" for j in jobs):
                break
            time.sleep(0.02)
        holders = [w for w in (a, b) if w._lock._fd is not None]
        assert len(holders) == 1  # exactly one of them is the worker
    finally:
        stop.set()
        for t in threads:
            t.join(timeout=10)
    assert all(a.status(j).operationDetails.success == 40 for j in jobs)
    assert profile_count(path) == 120


CHILD = """
import sys, time
sys.path.insert(0, {tests!r})
from test_sandbox_worker import make_jobs
from pathlib import Path
jobs = make_jobs(Path({path!r}))
assert jobs._lock.acquire()
jobs.process_pending(limit=3)
print("holding", flush=True)
time.sleep(600)
"""


def test_a_killed_worker_process_is_replaced_and_its_request_finished(tmp_path):
    path = tmp_path / "killed.db"
    survivor = make_jobs(path)
    job = survivor.accept(body(8))
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD.format(tests=str(Path(__file__).parent), path=str(path))],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert child.stdout.readline().strip() == "holding"
        assert survivor.process_pending() == 0  # the child holds the lock
        half = survivor.status(job)
        assert half.processingStatus == "PROCESSING" and half.operationDetails.success == 3
    finally:
        child.kill()  # kill -9: no clean-up runs in the child
        child.wait()
    stop = threading.Event()
    worker = threading.Thread(target=survivor.run_worker, args=(stop, 0.01))
    worker.start()
    try:
        deadline = time.monotonic() + 30
        while survivor.status(job).processingStatus != "COMPLETE":
            assert time.monotonic() < deadline, "the survivor did not take over"
            time.sleep(0.02)
    finally:
        stop.set()
        worker.join(timeout=10)
    found = survivor.status(job)
    assert found.operationDetails.success == 8
    assert profile_count(path) == 8


def test_database_is_created_private_in_private_folders(tmp_path):
    old = os.umask(0o022)
    try:
        path = tmp_path / "made" / "by" / "sandbox" / "sb.db"
        sandbox = Sandbox(SandboxSettings(db_path=path, size=50))
        sandbox.bulk.accept(body(1))  # writes: the -wal and -shm files exist now
        sandbox.bulk.process_pending()
        for folder in (path.parent, path.parent.parent, path.parent.parent.parent):
            assert stat.S_IMODE(folder.stat().st_mode) == 0o700, folder
        for name in ("sb.db", "sb.db-wal", "sb.db-shm", "sb.db.bulk-worker.lock"):
            assert stat.S_IMODE((path.parent / name).stat().st_mode) == 0o600, name
        sandbox.db.close()
    finally:
        os.umask(old)


def test_a_database_left_readable_by_an_older_version_is_narrowed(tmp_path):
    path = tmp_path / "sb.db"
    sandbox = Sandbox(SandboxSettings(db_path=path, size=50))
    sandbox.bulk.accept(body(1))
    sandbox.db.close()
    (tmp_path / "sb.db-wal").touch()  # as a killed process leaves it
    for name in ("sb.db", "sb.db-wal"):
        (tmp_path / name).chmod(0o644)
    sandbox = Sandbox(SandboxSettings(db_path=path, size=50))
    modes = {
        name: stat.S_IMODE((tmp_path / name).stat().st_mode) for name in ("sb.db", "sb.db-wal")
    }
    sandbox.db.close()
    assert modes == {"sb.db": 0o600, "sb.db-wal": 0o600}


def test_status_body_is_built_from_rows_and_reads_as_bulk_status(tmp_path):
    jobs = make_jobs(tmp_path / "status.db")
    lines = body(3).splitlines()
    bad = json.loads(lines[1])
    bad["data"]["agent"]["ssn"] = ""
    job = jobs.accept(b"\n".join([lines[0], json.dumps(bad).encode(), lines[2]]))
    pending = json.loads(jobs.status_json(job))
    assert pending["operationDetails"]["status"] is None
    assert [i["status"] for i in pending["operationDetails"]["requestItems"]] == ["PENDING"] * 3
    jobs.process_pending()
    done = jobs.status(job)
    assert done.processingStatus == "COMPLETE"
    assert (done.operationDetails.success, done.operationDetails.failures) == (2, 1)
    assert done.operationDetails.status == "PARTIAL_SUCCESS"
    assert done.operationDetails.requestItems[1].errorMessage == ["data.agent.ssn: is required"]
    assert jobs.status_json(str(uuid.uuid4())) is None
