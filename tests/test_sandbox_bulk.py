"""Sandbox bulk jobs: refusing bad envelopes line by line, processing mixed records,
counting, transient failures, resuming a job cut short, and the worker thread."""

from __future__ import annotations

import json
import threading
import uuid
from pathlib import Path
from typing import Any

import pytest

from tui_app.contract.bulk import BulkStatus
from tui_app.sandbox import bulk, profiles
from tui_app.sandbox.bulk import TRANSIENT, BulkJobs, BulkRejected
from tui_app.sandbox.db import Database
from tui_app.sandbox.profiles import Profiles, load_import_rules

ADDRESS = {"streetAddress1": "1 Main St", "city": "Austin", "state": "TX", "zip": "73301"}


def agent_line(n: int, ref: str | None = None, **demographic: Any) -> dict[str, Any]:
    record = {
        "profileKey": f"K{n}",
        "ssn": f"900{n:06d}",
        "businessAddress": ADDRESS,
        "demographic": {"empStatus": "7040", "firstName": "Ada", "lastName": "Lane", **demographic},
    }
    return {"clientRefId": ref or str(uuid.UUID(int=n)), "data": {"agent": record}}


def agency_line(n: int) -> dict[str, Any]:
    record = {
        "profileKey": f"F{n}",
        "tin": f"98{n:07d}",
        "demographic": {"firmName": "A", "status": 7040},
    }
    return {"clientRefId": str(uuid.UUID(int=10_000 + n)), "data": {"agency": record}}


def ndjson(*lines: dict[str, Any] | str) -> bytes:
    return "".join((x if isinstance(x, str) else json.dumps(x)) + "\n" for x in lines).encode()


def open_db(path: Path) -> Database:
    return Database(path, schemas=(profiles.SCHEMA, bulk.SCHEMA))


def make_jobs(path: Path, **options: Any) -> BulkJobs:
    db = open_db(path)
    return BulkJobs(db, Profiles(db, load_import_rules()), **options)


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "sandbox.db"


@pytest.fixture
def jobs(db_path: Path) -> BulkJobs:
    return make_jobs(db_path)


def finished(jobs: BulkJobs, job_id: str) -> BulkStatus:
    jobs.process_pending()
    found = jobs.status(job_id)
    assert found is not None and found.complete
    return found


def outcomes(status: BulkStatus) -> list[tuple[str, bool, list[str | None]]]:
    return [(i.status, i.retryable, i.errorMessage) for i in status.operationDetails.requestItems]


# --- accept ---


def test_a_request_with_bad_lines_is_refused_naming_every_one(jobs: BulkJobs):
    first = agent_line(1)
    no_ref = {"data": agent_line(2)["data"]}
    body = ndjson(
        first,
        "{not json",
        "",
        "[1, 2]",
        no_ref,
        {**agent_line(3), "clientRefId": "1234"},
        {**agent_line(4), "clientRefId": first["clientRefId"].upper()},
        {**agent_line(5), "clientRefId": 42},
        {**agent_line(6), "clientRefId": ""},
    )
    with pytest.raises(BulkRejected) as caught:
        jobs.accept(body)
    lines = caught.value.lines
    assert [n for n, _ in lines] == [2, 4, 5, 6, 7, 8, 9]
    assert lines[0][1].startswith("not valid JSON")
    assert lines[1:] == [
        (4, "line is not a JSON object"),
        (5, "clientRefId is missing"),
        (6, "clientRefId must be a GUID such as 3f2504e0-4f89-11d3-9a0c-0305e82c3301"),
        (7, f"clientRefId {first['clientRefId'].upper()} repeats line 1"),
        (8, "clientRefId must be text"),
        (9, "clientRefId is missing"),
    ]
    assert str(caught.value).startswith("line 2: not valid JSON")
    assert jobs.process_pending() == 0


@pytest.mark.parametrize("body", [b"", b"\n  \n\r\n"])
def test_a_request_without_records_is_refused(jobs: BulkJobs, body: bytes):
    with pytest.raises(BulkRejected) as caught:
        jobs.accept(body)
    assert caught.value.lines == [
        (1, "the request holds no records: send one JSON object per line")
    ]


def test_an_accepted_request_is_pending_until_processed(jobs: BulkJobs):
    job_id = jobs.accept(ndjson(agent_line(1), agent_line(2)))
    assert uuid.UUID(job_id).version == 4
    found = jobs.status(job_id)
    assert found is not None
    assert (found.processingStatus, found.operationDetails.status) == ("PENDING", None)
    details = found.operationDetails
    assert (details.totalItems, details.success, details.failures) == (2, 0, 0)
    assert [i.status for i in details.requestItems] == ["PENDING", "PENDING"]


def test_unknown_ids_have_no_status_and_ids_are_matched_in_any_case(jobs: BulkJobs):
    assert jobs.status(str(uuid.uuid4())) is None
    job_id = jobs.accept(ndjson(agent_line(1)))
    found = jobs.status(job_id.upper())
    assert found is not None and found.bulkRequestId == job_id


# --- processing ---


def test_mixed_records_give_a_partial_success_with_each_records_reason(jobs: BulkJobs):
    upper_ref = str(uuid.UUID(int=77)).upper()
    no_address = agent_line(3)
    del no_address["data"]["agent"]["businessAddress"]
    body = ndjson(
        agent_line(1, upper_ref),
        agent_line(2, firstName=""),
        agency_line(1),
        no_address,
        {
            "clientRefId": str(uuid.UUID(int=99)),
            "data": {**agent_line(9)["data"], **agency_line(9)["data"]},
        },
        {**agent_line(4), "extra": 1},
    )
    job_id = jobs.accept(body)
    assert jobs.process_pending() == 6
    found = finished(jobs, job_id)
    d = found.operationDetails
    assert (d.status, d.totalItems, d.success, d.failures) == ("PARTIAL_SUCCESS", 6, 2, 4)
    assert [i.clientRefId for i in d.requestItems][:1] == [upper_ref.lower()]
    assert outcomes(found) == [
        ("COMPLETED", False, []),
        ("FAILED", False, ["data.agent.demographic.firstName: is required"]),
        ("COMPLETED", False, []),
        ("FAILED", False, ["data.agent.businessAddress: is required for a new agent profile"]),
        ("FAILED", False, ["data: must hold exactly one of agent or agency"]),
        ("FAILED", False, ["extra: is not a field of this record"]),
    ]


def test_records_are_imported_as_profiles_in_order(jobs: BulkJobs, db_path: Path):
    update = {
        "clientRefId": str(uuid.uuid4()),
        "data": {
            "agent": {
                "profileKey": "K1",
                "ssn": "900000001",
                "contact": {"businessEmailAddress": "a@example.com"},
            }
        },
    }
    found = finished(jobs, jobs.accept(ndjson(agent_line(1), update)))
    assert found.operationDetails.status == "SUCCESS"
    stored = Profiles(open_db(db_path), load_import_rules()).get("agent", "K1")
    assert stored is not None and stored.Contact is not None and stored.Demographic is not None


def test_a_request_where_every_record_fails_is_a_failure(jobs: BulkJobs):
    found = finished(jobs, jobs.accept(ndjson({"clientRefId": str(uuid.uuid4()), "data": {}})))
    d = found.operationDetails
    assert (d.status, d.success, d.failures) == ("FAILURE", 0, 1)


def test_jobs_run_oldest_first_and_limit_counts_records(jobs: BulkJobs):
    older = jobs.accept(ndjson(*(agent_line(n) for n in range(3))))
    newer = jobs.accept(ndjson(agent_line(10)))

    def stages() -> list[str | None]:
        return [getattr(jobs.status(i), "processingStatus", None) for i in (older, newer)]

    assert jobs.process_pending(limit=2) == 2
    assert stages() == ["PROCESSING", "PENDING"]
    assert jobs.process_pending(limit=2) == 2
    assert stages() == ["COMPLETE", "COMPLETE"]
    assert jobs.process_pending() == 0


# --- transient failures ---


def failing_refs(path: Path, seed: int, count: int = 40) -> list[int]:
    jobs = make_jobs(path, fail_rate=0.3, seed=seed)
    found = finished(jobs, jobs.accept(ndjson(*(agent_line(n) for n in range(count)))))
    items = found.operationDetails.requestItems
    assert all(i.retryable and i.errorMessage == [TRANSIENT] for i in items if i.status == "FAILED")
    return [n for n, i in enumerate(items) if i.status == "FAILED"]


def test_transient_failures_are_retryable_and_follow_the_seed(tmp_path: Path):
    failed = failing_refs(tmp_path / "a.db", seed=7)
    assert 0 < len(failed) < 40
    assert failing_refs(tmp_path / "b.db", seed=7) == failed
    assert failing_refs(tmp_path / "c.db", seed=8) != failed


def test_a_fail_rate_of_one_fails_every_valid_record_and_only_those(db_path: Path):
    jobs = make_jobs(db_path, fail_rate=1.0)
    found = finished(jobs, jobs.accept(ndjson(agent_line(1), agent_line(2, firstName=""))))
    assert [(s, r) for s, r, _ in outcomes(found)] == [("FAILED", True), ("FAILED", False)]


# --- resuming ---


class Doomed(Profiles):
    """Profiles of a process that is killed after ``lives`` saves; counts its saves."""

    def __init__(self, db: Database, lives: int) -> None:
        super().__init__(db, load_import_rules())
        self.lives, self.saves = lives, 0

    def save(self, conn, record):  # type: ignore[no-untyped-def]
        self.saves += 1
        if self.saves > self.lives:
            raise KeyboardInterrupt("killed")
        return super().save(conn, record)


def test_a_job_cut_short_is_resumed_without_redoing_records(db_path: Path):
    db = open_db(db_path)
    jobs = BulkJobs(db, Doomed(db, lives=6))
    job_id = jobs.accept(ndjson(*(agent_line(n) for n in range(10))))
    assert jobs.process_pending(limit=4) == 4  # committed
    with pytest.raises(KeyboardInterrupt):
        jobs.process_pending()  # killed inside the next chunk: that chunk is rolled back
    middle = jobs.status(job_id)
    assert middle is not None and middle.processingStatus == "PROCESSING"
    done = [i.status for i in middle.operationDetails.requestItems]
    assert done == ["COMPLETED"] * 4 + ["PENDING"] * 6

    db = open_db(db_path)  # as after a restart
    survivor = Doomed(db, lives=100)
    assert BulkJobs(db, survivor).process_pending() == 6
    assert survivor.saves == 6
    found = BulkJobs(db, survivor).status(job_id)
    assert found is not None and found.operationDetails.status == "SUCCESS"
    assert found.operationDetails.success == 10


# --- the worker ---


def test_the_worker_thread_processes_new_jobs_until_stopped(jobs: BulkJobs):
    stop = threading.Event()
    worker = threading.Thread(target=jobs.run_worker, args=(stop, 5.0))
    worker.start()
    try:
        job_id = jobs.accept(ndjson(agent_line(1)))  # wakes the worker: no 5 s poll wait
        for _ in range(500):
            found = jobs.status(job_id)
            if found is not None and found.complete:
                break
            threading.Event().wait(0.01)
        assert found is not None and found.operationDetails.status == "SUCCESS"
    finally:
        stop.set()
        jobs.wake()
        worker.join(timeout=5)
    assert not worker.is_alive()
