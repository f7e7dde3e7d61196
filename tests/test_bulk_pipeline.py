"""The bulk pipeline end to end: against the sandbox over loopback, and against a scripted
fake service (``httpx.MockTransport``) for the failures a sandbox does not produce on cue."""

from __future__ import annotations

import asyncio
import csv
import json
import os
import socket
import uuid
from collections import Counter
from dataclasses import replace
from pathlib import Path

import httpx
import pytest
from bulk_support import (
    FAST,
    agency,
    agent,
    agents,
    envelope,
    fast_client,
    journal_refs,
    received,
    request_sizes,
    validations_here,
    write_ndjson,
)
from sandbox_server import serve

from tui_app.bulk.journal import (
    COMPLETED,
    DONE,
    FAILED,
    INVALID,
    PENDING,
    SENDING,
    STOPPED,
    VALIDATING,
    Job,
    Journal,
)
from tui_app.bulk.pipeline import PROGRESS_EVERY, Settings, create_job, run_job
from tui_app.bulk.report import write_report
from tui_app.bulk.source import SourceChanged
from tui_app.client.registry import RegistryClient, RetryPolicy
from tui_app.config import GROUP_PREFIXES


@pytest.fixture(scope="module")
def sandbox(tmp_path_factory):
    db = tmp_path_factory.mktemp("bulk-sandbox") / "sandbox.db"
    with serve(db) as server:
        yield server, db


@pytest.fixture
def journal():
    with Journal() as j:
        yield j


async def submit(
    journal: Journal,
    path: Path,
    client: RegistryClient,
    settings: Settings = FAST,
    batch_size: int = 100,
) -> Job:
    job = create_job(journal, path, "test", batch_size)
    async with client:
        return await run_job(journal, job.id, client, settings)


def outcomes(journal: Journal, job_id: str) -> dict[int, str]:
    return {line.line: line.state for line in journal.lines(job_id)}


# --- against the sandbox -----------------------------------------------------------------


async def test_no_journal_statement_runs_on_the_event_loop(sandbox, tmp_path, monkeypatch):
    """Every statement the journal runs during a job, from its start to its end and
    progress reports included, runs on the journal's thread: a commit synced to disk or
    a lock wait never holds up the loop that sends and polls (and, in an app, draws)."""
    import sqlite3
    import threading

    import tui_app.bulk.pipeline as pipeline

    server, db = sandbox
    loop_thread = threading.current_thread()
    on_loop: list[str] = []
    connect = sqlite3.connect

    def traced(*args, **kwargs):
        conn = connect(*args, **kwargs)
        conn.set_trace_callback(
            lambda sql: on_loop.append(sql) if threading.current_thread() is loop_thread else None
        )
        return conn

    monkeypatch.setattr(sqlite3, "connect", traced)
    monkeypatch.setattr(pipeline, "PROGRESS_EVERY", 0)  # every step reports
    path = write_ndjson(tmp_path / "loop.ndjson", agents("LOOP", 300))
    reports = []
    with Journal() as journal:
        job = create_job(journal, path, "test", 50)
        on_loop.clear()  # creating the job is the caller's business, before the run
        async with fast_client(server.urls) as client:
            ended = await run_job(journal, job.id, client, FAST, on_progress=reports.append)
    assert ended.state == DONE and ended.counts.completed == 300
    assert len(reports) > 3 and reports[-1].state == DONE
    assert on_loop == []


async def test_a_large_file_is_validated_off_the_interpreter_that_sends_it(
    sandbox, journal, tmp_path, monkeypatch
):
    """Validation (the contract's models, some 45 us a line) runs in a checking process
    for a large file, so the run's own interpreter only records, sends and settles."""
    import tui_app.bulk.checker as checker

    checked_here = validations_here(monkeypatch)
    monkeypatch.setattr(checker, "IN_PROCESS_BELOW", 1)
    server, db = sandbox
    lines = [*agents("FAR", 1200), "{broken"]
    path = write_ndjson(tmp_path / "far.ndjson", lines)
    async with fast_client(server.urls) as client:
        job = create_job(journal, path, "test", 100)
        ended = await run_job(journal, job.id, client, FAST)
    assert (ended.state, ended.counts.completed, ended.counts.invalid) == (DONE, 1200, 1)
    assert list(journal.lines(job.id))[-1].errors[0].startswith("not valid JSON")
    assert checked_here == []


async def test_mixed_lines_are_each_reported_and_only_valid_ones_sent(sandbox, journal, tmp_path):
    server, db = sandbox
    first = envelope(agent("MIX-1", 1))
    missing_name = agent("MIX-2", 2)
    del missing_name["demographic"]["firstName"]
    lines = [
        first,  # 1
        missing_name,  # 2: a bare agent without a first name
        "",  # 3: blank, counted but not a record
        "{not json",  # 4
        agency("MIX-F5", 5),  # 5: a bare agency
        envelope(agent("MIX-6", 6)),  # 6
        envelope(agent("MIX-7", 7), first["clientRefId"]),  # 7: repeats line 1's id
    ]
    path = write_ndjson(tmp_path / "mixed.ndjson", lines)
    job = await submit(journal, path, fast_client(server.urls))

    assert job.state == DONE
    c = job.counts
    assert (c.lines, c.invalid, c.completed, c.failed) == (6, 3, 3, 0)
    assert outcomes(journal, job.id) == {
        1: COMPLETED, 2: INVALID, 4: INVALID, 5: COMPLETED, 6: COMPLETED, 7: INVALID,
    }  # fmt: skip
    sent = set(journal_refs(journal, job.id).values())
    assert len(sent) == 3 and all(received(db)[ref] == 1 for ref in sent)

    report = write_report(journal, job.id, tmp_path / "report.csv")
    with open(report.csv_path, newline="", encoding="utf-8") as file:
        rows = {int(row["line"]): row for row in csv.DictReader(file)}
    assert sorted(rows) == [1, 2, 4, 5, 6, 7]
    assert rows[2]["outcome"] == "INVALID" and rows[2]["profile_key"] == "MIX-2"
    assert rows[2]["errors"] == "demographic.firstName: is required"
    assert rows[4]["errors"].startswith("not valid JSON")
    assert rows[7]["errors"] == "clientRefId: repeats line 1"
    assert rows[5]["kind"] == "agency" and rows[5]["outcome"] == "COMPLETED"
    assert report.failed_path == tmp_path / "failed.ndjson"
    original = path.read_bytes().splitlines(keepends=True)
    assert report.failed_path.read_bytes() == b"".join(original[n - 1] for n in (2, 4, 7))


def unreachable_client() -> RegistryClient:
    """A client of a port nobody listens on: every connection is refused."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        dead = f"http://127.0.0.1:{probe.getsockname()[1]}"
    return fast_client({g: dead + p for g, p in GROUP_PREFIXES.items()})


async def test_lines_the_service_never_received_are_not_reported_sent(journal, three):
    """Seen: with the service down from the start, a stopped job said "sent 8/8" and "1
    re-sent after an unknown outcome", and its report "SENT, attempts 0" with nothing to
    fix: a connection refused was taken for a request that may have been received."""
    job = await submit(journal, three, unreachable_client(), replace(FAST, request_attempts=2))
    assert job.state == STOPPED and "cannot reach 127.0.0.1" in job.message
    assert (job.counts.sent, job.counts.pending, job.counts.sent_so_far) == (0, 3, 0)
    assert journal.batch_states(job.id) == {"RELEASED": 1, "uncertain": 0}
    assert {line.state for line in journal.lines(job.id)} == {PENDING}
    fake = FakeService()
    async with fake.client() as client:
        job = await run_job(journal, job.id, client, FAST)
    assert job.state == DONE and job.counts.completed == 3 and set(fake.received.values()) == {1}


async def test_bare_records_keep_the_ids_they_were_given_across_a_lost_connection(
    sandbox, journal, tmp_path
):
    server, db = sandbox
    pascal = {"ProfileKey": "BARE-P", "Ssn": "955500001",
              "Demographic": {"EmpStatus": "7040", "FirstName": "Ada", "LastName": "Lane"},
              "BusinessAddress": {"StreetAddress1": "1 Main St", "City": "Austin",
                                  "State": "TX", "Zip": "73301"}}  # fmt: skip
    lines = [agent(f"BARE-{n}", 55_000 + n) for n in range(4)] + [pascal, agency("BARE-F", 1)]
    path = write_ndjson(tmp_path / "bare.ndjson", lines)
    job = await submit(journal, path, unreachable_client(), replace(FAST, request_attempts=2))
    assert job.state == STOPPED and "cannot reach 127.0.0.1" in job.message
    refs = journal_refs(journal, job.id)
    assert len(refs) == 6 and all(uuid.UUID(ref) for ref in refs.values())

    async with fast_client(server.urls) as client:
        job = await run_job(journal, job.id, client, FAST)
    assert job.state == DONE and job.counts.completed == 6
    assert journal_refs(journal, job.id) == refs  # the same ids, recorded once
    got = received(db)
    assert all(got[ref] == 1 for ref in refs.values())


async def test_a_thousand_records_go_in_requests_of_at_most_a_hundred(sandbox, journal, tmp_path):
    server, db = sandbox
    lines = agents("MANY", 1_000) + [envelope(agency(f"MANY-F{n}", n), kind="agency")
                                     for n in range(50)]  # fmt: skip
    path = write_ndjson(tmp_path / "many.ndjson", lines)
    job = await submit(journal, path, fast_client(server.urls))

    assert job.state == DONE and job.counts.completed == 1_050 == job.counts.lines
    assert journal.batch_states(job.id) == {"DONE": 11, "uncertain": 0}
    refs = {line["clientRefId"] for line in lines}
    sizes = request_sizes(db, refs)
    assert len(sizes) == 11 and max(sizes) == 100 and sum(sizes) == 1_050
    assert all(received(db)[ref] == 1 for ref in refs)


async def test_a_job_is_validating_only_until_its_first_lines_are_sent(sandbox, journal, tmp_path):
    """The scan is kept just ahead of sending, so a job's file is read for almost all of
    its run: it said "validating" all that time."""
    server, _ = sandbox
    path = write_ndjson(tmp_path / "long.ndjson", agents("PHASE", 1_000))
    seen: list[Job] = []
    job = create_job(journal, path, "test", 10)
    async with fast_client(server.urls) as client:
        await run_job(journal, job.id, client, FAST, on_progress=seen.append)
    before = [now.state for now in seen if not now.counts.sent_so_far]
    after = [now.state for now in seen if now.counts.sent_so_far and not now.scan_done]
    assert set(before) <= {VALIDATING} and after and set(after) == {SENDING}


async def test_injected_failures_are_retried_and_every_record_is_accounted_for(
    journal, tmp_path_factory
):
    db = tmp_path_factory.mktemp("flaky") / "flaky.db"
    tmp = db.parent
    bad = agent("FLAKY-BAD", 1)
    del bad["businessAddress"]["city"]
    lines = agents("FLAKY", 300) + [bad, "[]"]
    path = write_ndjson(tmp / "flaky.ndjson", lines)
    with serve(db, "--fail-rate", "0.3", "--latency-ms", "30") as server:
        job = await submit(journal, path, fast_client(server.urls), batch_size=30)
        c = job.counts
        assert job.state == DONE
        assert c.completed + c.failed + c.invalid == c.lines == 302 and c.invalid == 2
        states = list(journal.lines(job.id))
        assert any(line.attempts > 1 and line.state == COMPLETED for line in states)
        for line in states:
            if line.state == FAILED:  # only transient failures are injected
                assert line.retryable and line.attempts == 3
        # Each attempt reached the service exactly once: no request was sent twice.
        got = received(db)
        assert journal.batch_states(job.id)["uncertain"] == 0
        assert {line.client_ref_id: line.attempts for line in states if line.state != INVALID} == {
            ref: got[ref] for ref in journal_refs(journal, job.id).values()
        }

        # The retryable failures can be retried on request until they succeed.
        assert journal.retry_retryable(job.id) == c.failed
        async with fast_client(server.urls) as client:
            job = await run_job(journal, job.id, client, replace(FAST, max_attempts=12))
    assert job.state == DONE and job.counts.completed == 300 and job.counts.failed == 0


# --- against a scripted fake service -----------------------------------------------------


class FakeService:
    """A bulk service that accepts NDJSON, completes every request at once and answers
    POSTs and status reads from a script: an HTTP status, or "lose" (the request is
    processed but the answer never arrives)."""

    def __init__(self, posts: list = (), statuses: list = (), delay: float = 0.0) -> None:
        self.posts, self.statuses, self.delay = list(posts), list(statuses), delay
        self.requests: dict[str, list[str]] = {}
        self.received: Counter[str] = Counter()
        self.in_flight = self.max_in_flight = 0
        self.failing: dict[str, tuple[bool, str]] = {}
        """clientRefId -> (retryable, message) for records that fail (once)."""

    def client(self, **options) -> RegistryClient:
        urls = {g: "http://fake.invalid" + p for g, p in GROUP_PREFIXES.items()}
        retry = RetryPolicy(base_delay=0.01, max_delay=0.02)
        return RegistryClient(urls, transport=httpx.MockTransport(self.handle), retry=retry)

    async def handle(self, request: httpx.Request) -> httpx.Response:
        if request.method == "POST":
            return await self._post(request)
        script = self.statuses.pop(0) if self.statuses else None
        if isinstance(script, int):
            return httpx.Response(script, json={"message": "scripted"})
        request_id = request.url.path.rsplit("/", 1)[1]
        items = []
        for ref in self.requests[request_id]:
            retryable, message = self.failing.pop(ref, (False, ""))
            status = "FAILED" if message else "COMPLETED"
            items.append({"clientRefId": ref, "status": status, "retryable": retryable,
                          "errorMessage": [message] if message else []})  # fmt: skip
        failures = sum(i["status"] == "FAILED" for i in items)
        overall = (
            "SUCCESS" if not failures else "PARTIAL_SUCCESS" if failures < len(items) else "FAILURE"
        )
        return httpx.Response(200, json={
            "bulkRequestId": request_id, "processingStatus": "COMPLETE",
            "operationDetails": {"status": overall, "totalItems": len(items),
                                 "success": len(items) - failures, "failures": failures,
                                 "requestItems": items}})  # fmt: skip

    async def _post(self, request: httpx.Request) -> httpx.Response:
        script = self.posts.pop(0) if self.posts else None
        if isinstance(script, int) and script != 400:
            return httpx.Response(script, json={"message": f"scripted {script}"})
        refs = [json.loads(line)["clientRefId"] for line in request.content.splitlines()]
        if script == 400:
            return httpx.Response(400, json={"message": "the bulk request has bad lines",
                                             "errors": [{"path": "line 2", "message": "no"}]})  # fmt: skip
        self.in_flight += 1
        self.max_in_flight = max(self.max_in_flight, self.in_flight)
        await asyncio.sleep(self.delay)
        self.in_flight -= 1
        request_id = str(uuid.uuid4())
        self.requests[request_id] = refs
        self.received.update(refs)
        if script == "lose":
            raise httpx.ReadTimeout("the answer was lost", request=request)
        return httpx.Response(202, json={"bulkRequestId": request_id})


@pytest.fixture
def three(tmp_path: Path) -> Path:
    return write_ndjson(tmp_path / "three.ndjson", agents("FAKE", 3))


async def test_requests_in_flight_are_bounded_by_the_concurrency(journal, tmp_path):
    fake = FakeService(delay=0.05)
    path = write_ndjson(tmp_path / "many.ndjson", agents("C", 200))
    job = await submit(journal, path, fake.client(), replace(FAST, concurrency=3), batch_size=10)
    assert job.state == DONE and job.counts.completed == 200
    assert fake.max_in_flight == 3 and len(fake.requests) == 20


async def test_a_refusal_naming_a_line_fails_that_record_and_resends_the_others(journal, three):
    fake = FakeService(posts=[400])
    job = await submit(journal, three, fake.client())
    assert job.state == DONE
    assert outcomes(journal, job.id) == {1: COMPLETED, 2: FAILED, 3: COMPLETED}
    (refused,) = journal.lines(job.id, states=[FAILED])
    assert refused.errors == ["refused by the service: no"] and not refused.retryable
    assert journal.batch_states(job.id) == {"REJECTED": 1, "DONE": 1, "uncertain": 0}


async def test_a_lost_answer_makes_the_batch_uncertain_and_it_is_resent_with_the_same_ids(
    journal, three
):
    fake = FakeService(posts=["lose"])
    job = await submit(journal, three, fake.client())
    assert job.state == DONE and job.counts.completed == 3
    assert journal.batch_states(job.id) == {"DONE": 1, "uncertain": 1}
    # The documented window: the service got the request, the answer was lost, so the
    # same records (same clientRefIds) reached it twice.
    assert set(fake.received.values()) == {2} and len(fake.received) == 3


@pytest.mark.parametrize(("status", "uncertain"), [(503, 0), (500, 1), (502, 1)])
async def test_server_errors_are_retried_and_flagged_when_they_may_have_been_processed(
    journal, three, status, uncertain
):
    fake = FakeService(posts=[status] * 3)  # beyond the client's own retries of a 503
    job = await submit(journal, three, fake.client())
    assert job.state == DONE and job.counts.completed == 3
    assert journal.batch_states(job.id)["uncertain"] == uncertain


async def test_refused_credentials_stop_the_run_and_a_resume_finishes_it(journal, three):
    job = await submit(journal, three, FakeService(posts=[401]).client())
    assert job.state == STOPPED and "credentials" in job.message
    # Refused, so not received: its lines are to be sent, not sent.
    assert job.counts.sent == 0 and journal.batch_states(job.id) == {"RELEASED": 1, "uncertain": 0}
    fake = FakeService()
    async with fake.client() as client:
        job = await run_job(journal, job.id, client, FAST)
    assert job.state == DONE and job.counts.completed == 3 and set(fake.received.values()) == {1}


async def test_a_service_that_keeps_failing_stops_the_run_without_losing_anything(journal, three):
    settings = replace(FAST, request_attempts=2)
    job = await submit(journal, three, FakeService(posts=[500, 500]).client(), settings)
    assert job.state == STOPPED and "keeps failing" in job.message and "(500)" in job.message
    assert job.counts.sent == 3
    async with FakeService().client() as client:
        job = await run_job(journal, job.id, client, FAST)
    assert job.state == DONE and job.counts.completed == 3


async def test_record_failures_are_retried_only_while_retryable_and_attempts_remain(
    journal, tmp_path
):
    fake = FakeService()
    lines = agents("R", 3)
    refs = [line["clientRefId"] for line in lines]
    fake.failing = {refs[0]: (True, "busy"), refs[1]: (False, "ssn: is not on file")}
    path = write_ndjson(tmp_path / "r.ndjson", lines)
    job = await submit(journal, path, fake.client())
    assert job.state == DONE
    found = {line.line: (line.state, line.attempts, line.retryable, line.errors)
             for line in journal.lines(job.id)}  # fmt: skip
    assert found == {
        1: (COMPLETED, 2, False, []),  # failed once (retryable), then succeeded
        2: (FAILED, 1, False, ["ssn: is not on file"]),
        3: (COMPLETED, 1, False, []),
    }
    assert fake.received[refs[0]] == 2 and fake.received[refs[1]] == 1


async def test_a_request_the_service_forgot_is_sent_again(journal, three):
    fake = FakeService(statuses=[404])
    job = await submit(journal, three, fake.client())
    assert job.state == DONE and job.counts.completed == 3
    assert {line.attempts for line in journal.lines(job.id)} == {2}
    assert len(fake.requests) == 2


async def test_the_last_change_before_a_quiet_spell_is_reported(journal, tmp_path):
    """Progress goes out at most every PROGRESS_EVERY seconds. A change within that time
    was dropped: the second of two requests accepted at once went unreported until some
    result came (the stop test below waited 17 s for one). It is now reported late."""
    fake = FakeService(statuses=[503] * 1000)  # no result comes while the run lasts
    path = write_ndjson(tmp_path / "q.ndjson", agents("Q", 20))
    job = create_job(journal, path, "test", 10)
    stop = asyncio.Event()

    def progress(now: Job) -> None:
        if journal.batch_states(now.id).get("ACCEPTED", 0) == 2:
            stop.set()  # both requests were reported while the run went on

    settings = replace(FAST, request_attempts=1000, concurrency=1)
    async with fake.client() as client:
        run = run_job(journal, job.id, client, settings, on_progress=progress, stop=stop)
        # Its 1,000 polls would take some 17 s: only a report while they go on ends it.
        job = await asyncio.wait_for(run, timeout=10)
    assert job.state == STOPPED and len(fake.requests) == 2


async def test_no_progress_is_reported_after_a_run_is_cancelled(journal, tmp_path):
    """Review: a report put off to the end of its interval was left running after its run
    was cancelled (Ctrl-C in the CLI), to call a journal thread already closed."""
    fake = FakeService(statuses=[503] * 1000)
    path = write_ndjson(tmp_path / "c.ndjson", agents("C", 20))
    job = create_job(journal, path, "test", 10)
    reports: list[Job] = []
    settings = replace(FAST, request_attempts=1000, concurrency=1)
    async with fake.client() as client:
        run = asyncio.ensure_future(
            run_job(journal, job.id, client, settings, on_progress=reports.append)
        )
        while len(fake.requests) < 2:  # the second request's report is put off
            await asyncio.sleep(0.001)
        run.cancel()
        with pytest.raises(asyncio.CancelledError):
            await run
        # No report is left to come (it would find the journal's thread closed).
        await asyncio.sleep(0)
        left = [
            t for t in asyncio.all_tasks() if t.get_coro().__qualname__.startswith("_Run._report")
        ]
        assert left == []
        reported = len(reports)
        await asyncio.sleep(2 * PROGRESS_EVERY)
    assert len(reports) == reported


async def test_a_stop_request_lets_accepted_requests_be_polled_by_the_next_run(journal, tmp_path):
    fake = FakeService(statuses=[503] * 1000)  # results never come during the first run
    path = write_ndjson(tmp_path / "s.ndjson", agents("S", 40))
    job = create_job(journal, path, "test", 10)
    stop = asyncio.Event()
    settings = replace(FAST, request_attempts=1000, concurrency=1)

    def progress(now: Job) -> None:
        if journal.batch_states(now.id).get("ACCEPTED", 0) >= 2:
            stop.set()

    async with fake.client() as client:
        job = await run_job(journal, job.id, client, settings, on_progress=progress, stop=stop)
    assert job.state == STOPPED and job.message == "interrupted"  # by its runner
    batches = journal.batch_states(job.id)
    accepted = batches.get("ACCEPTED", 0)
    # Every request that went out is recorded: still to poll, or (progress is reported
    # a few times a second, so a result may have come before the stop) done.
    assert accepted >= 2 and len(fake.requests) == accepted + batches.get("DONE", 0)
    fake.statuses.clear()
    async with fake.client() as client:
        job = await run_job(journal, job.id, client, FAST)
    assert job.state == DONE and job.counts.completed == 40
    assert set(fake.received.values()) == {1}  # the accepted ones were polled, not re-sent


async def test_a_changed_file_is_refused_and_a_changed_line_is_not_sent(journal, tmp_path):
    path = write_ndjson(tmp_path / "c.ndjson", agents("CH", 3))
    job = await submit(journal, path, FakeService(posts=[401]).client())
    assert job.state == STOPPED
    stat = path.stat()
    text = path.read_bytes()
    path.write_bytes(text.replace(b"CH-2", b"CH-9"))  # same size: only line 2 differs
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))  # and the same mtime
    fake = FakeService()
    async with fake.client() as client:
        job = await run_job(journal, job.id, client, FAST)
    assert outcomes(journal, job.id) == {1: COMPLETED, 2: FAILED, 3: COMPLETED}
    (changed,) = journal.lines(job.id, states=[FAILED])
    assert "changed in the file" in changed.errors[0] and len(fake.received) == 2

    path.write_bytes(text + b"\n")  # another size: the file as a whole has changed
    with pytest.raises(SourceChanged, match="has changed"):
        async with fake.client() as client:
            await run_job(journal, job.id, client, FAST)
