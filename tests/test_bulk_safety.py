"""Bulk that never writes stale data and never lies: lines of one profile in file order
under faults, lost answers settled by reading back, requests too large, and the journal's
hot queries on their indexes. Against the sandbox served on loopback, with transports
that lose or rewrite its answers on cue."""

from __future__ import annotations

import json
import sqlite3
import time
from dataclasses import replace
from pathlib import Path

import httpx
import pytest
from bulk_support import FAST, agent, envelope, write_ndjson
from sandbox_server import serve

from tui_app.bulk import journal as journal_module
from tui_app.bulk.checker import checked_chunks
from tui_app.bulk.journal import (
    COMPLETED,
    DONE,
    FAILED,
    INVALID,
    PENDING,
    SENT,
    SUPERSEDED,
    UNKNOWN,
    WAITING,
    Journal,
    LineUpdate,
)
from tui_app.bulk.pipeline import Backoff, Settings, create_job, run_job
from tui_app.bulk.source import check
from tui_app.bulk.verify import verify_job
from tui_app.client.registry import RegistryClient, RetryPolicy
from tui_app.contract.bulk import overall_status
from tui_app.wire.ndjson import read_lines


@pytest.fixture(scope="module")
def plain(tmp_path_factory):
    db = tmp_path_factory.mktemp("safe-sandbox") / "sandbox.db"
    with serve(db) as server:
        yield server, db


@pytest.fixture(scope="module")
def flaky(tmp_path_factory):
    """Three requests and records in ten fail transiently, as a busy service's would."""
    db = tmp_path_factory.mktemp("flaky-sandbox") / "sandbox.db"
    with serve(db, "--fail-rate", "0.3") as server:
        yield server, db


@pytest.fixture
def journal():
    with Journal() as j:
        yield j


def client(urls: dict[str, str], transport: httpx.AsyncBaseTransport | None = None):
    return RegistryClient(urls, timeout=10, transport=transport,
                          retry=RetryPolicy(base_delay=0.01, max_delay=0.05))  # fmt: skip


async def run(journal, path: Path, api: RegistryClient, settings: Settings = FAST, size=100):
    job = create_job(journal, path, "test", size)
    async with api:
        return await run_job(journal, job.id, api, settings)


def states(journal: Journal, job_id: str) -> dict[int, str]:
    return {line.line: line.state for line in journal.lines(job_id)}


def first_names(db: Path, prefix: str) -> dict[str, str]:
    """ProfileKey -> the FirstName the sandbox holds, for the keys starting with ``prefix``."""
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
        rows = conn.execute(
            "SELECT profile_key, record FROM profiles WHERE profile_key LIKE ? || '%'", (prefix,)
        ).fetchall()
    return {key: json.loads(record)["Demographic"]["FirstName"] for key, record in rows}


# --- 1. lines of one profile apply in file order ---------------------------------------


def test_a_later_line_of_a_profile_waits_for_the_earlier_one(journal, tmp_path):
    lines = [agent("W-1", 1, firstName="Old"), agent("W-2", 2), agent("W-1", 1, firstName="New")]
    path = write_ndjson(tmp_path / "w.ndjson", [envelope(r) for r in lines])
    job = create_job(journal, path, "test")
    journal.add_lines(job.id, [check(line)[0] for line in read_lines(path)], done=True)
    assert states(journal, job.id) == {1: PENDING, 2: PENDING, 3: WAITING}
    batch = journal.take_batch(job.id, 100, min_size=1, now=0)
    assert [entry.line for entry in batch.lines] == [1, 2]  # never both lines of W-1 at once
    retry = LineUpdate(1, PENDING, 1, True, ["busy"])
    journal.settle(batch.id, None, [retry, LineUpdate(2, COMPLETED, 1)])
    assert states(journal, job.id) == {1: PENDING, 2: COMPLETED, 3: WAITING}  # retried first
    again = journal.take_batch(job.id, 100, min_size=1, now=0)
    assert [entry.line for entry in again.lines] == [1]
    journal.settle(again.id, None, [LineUpdate(1, FAILED, 3, True, ["busy"])])
    assert states(journal, job.id)[3] == PENDING  # the earlier one has its outcome: go
    last = journal.take_batch(job.id, 100, min_size=1, now=0)
    journal.settle(last.id, None, [LineUpdate(3, COMPLETED, 1)])
    # Sending line 1 again now would put older data over newer: it is superseded instead.
    assert journal.retry_retryable(job.id) == 0
    [line_1] = journal.lines(job.id, limit=1)
    assert line_1.state == SUPERSEDED and "superseded by line 3" in line_1.errors[-1]
    assert journal.job(job.id).counts.superseded == 1


def test_a_stopped_run_gives_back_only_lines_the_service_cannot_have(journal, tmp_path):
    """A line whose first request's answer was lost, sent again in a batch of its own (a
    413 split it) that never connected, may be in the service: it stays sent (a review
    found it released and counted as never sent). A line never delivered goes back."""
    lines = [agent("R-1", 1), agent("R-2", 2), agent("R-3", 3)]
    path = write_ndjson(tmp_path / "r.ndjson", [envelope(r) for r in lines])
    job = create_job(journal, path, "test")
    journal.add_lines(job.id, [check(line)[0] for line in read_lines(path)], done=True)
    first = journal.take_batch(job.id, 2, min_size=1, now=0)  # lines 1 and 2
    journal.posting(first.id)
    journal.reopen(first.id, uncertain=True)  # the answer was lost
    journal.settle(first.id, "REJECTED", [LineUpdate(1, PENDING, 0), LineUpdate(2, PENDING, 0)])
    again = journal.take_batch(job.id, 100, min_size=1, now=0)  # 1, 2 and 3 this time
    assert [entry.line for entry in again.lines] == [1, 2, 3]
    journal.reopen(again.id, uncertain=False)  # never connected
    journal.release_unsent(job.id)
    assert states(journal, job.id) == {1: SENT, 2: SENT, 3: PENDING}
    assert journal.job(job.id).counts.sent == 2
    assert journal.batch_states(job.id)["OPEN"] == 1  # sent again as it is by the next run


async def test_under_faults_no_profile_ends_with_older_data_than_its_completed_line(
    flaky, journal, tmp_path
):
    server, db = flaky
    count = 300
    old = [envelope(agent(f"ORD-{n}", 700_000 + n, firstName="Old")) for n in range(count)]
    new = [envelope(agent(f"ORD-{n}", 700_000 + n, firstName="New")) for n in range(count)]
    path = write_ndjson(tmp_path / "twice.ndjson", old + new)
    settings = replace(FAST, max_attempts=5, concurrency=4)
    job = await run(journal, path, client(server.urls), settings, size=50)
    assert job.state == DONE
    held = first_names(db, "ORD-")
    outcome = states(journal, job.id)
    newer_completed = [n for n in range(count) if outcome[count + n + 1] == COMPLETED]
    assert len(newer_completed) > count * 0.9
    stale = [n for n in newer_completed if held[f"ORD-{n}"] != "New"]
    assert stale == []


# --- 2. a lost answer is never reported as a plain failure -------------------------------


class LostAnswer(httpx.AsyncBaseTransport):
    """Forwards to the sandbox, but loses the answer to the first bulk POST (the request
    was received and will be imported), and says every record of any later bulk request
    failed transiently: the case of a first delivery that worked and re-sends that did not."""

    def __init__(self) -> None:
        self.inner = httpx.AsyncHTTPTransport()
        self.posts: list[str] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        response = await self.inner.handle_async_request(request)
        path = request.url.path
        if request.method == "POST" and path.startswith("/bulk/"):
            await response.aread()
            self.posts.append(json.loads(response.content)["bulkRequestId"])
            if len(self.posts) == 1:
                raise httpx.ReadError("connection reset by peer", request=request)
            return httpx.Response(response.status_code, content=response.content,
                                  headers=response.headers)  # fmt: skip
        if "/bulk/v1/status/" in path and path.rsplit("/", 1)[1] != self.posts[0]:
            await response.aread()
            body = json.loads(response.content)
            if body["processingStatus"] == "COMPLETE":
                details = body["operationDetails"]
                for item in details["requestItems"]:
                    item.update(status="FAILED", retryable=True, errorMessage=["busy"])
                details.update(
                    success=0,
                    failures=details["totalItems"],
                    status=overall_status(0, details["totalItems"]),
                )
            return httpx.Response(200, json=body)
        return response


async def test_a_record_whose_answer_was_lost_is_unknown_until_verified(plain, journal, tmp_path):
    server, _ = plain
    records = [envelope(agent(f"LOST-{n}", 710_000 + n)) for n in range(5)]
    path = write_ndjson(tmp_path / "lost.ndjson", records)
    lossy = LostAnswer()
    job = await run(journal, path, client(server.urls, lossy), replace(FAST, max_attempts=2))
    assert len(lossy.posts) >= 2, job.message  # the first delivery, then the re-sends
    assert job.state == DONE, job.message
    assert set(states(journal, job.id).values()) == {UNKNOWN}
    assert job.counts.unknown == 5 and job.counts.failed == 0
    [line] = journal.lines(job.id, limit=1)
    assert "outcome unknown" in line.errors[-1] and "bulk verify" in line.errors[-1]

    # Meanwhile someone changed one of the profiles: it no longer holds what was sent.
    changed = write_ndjson(tmp_path / "changed.ndjson",
                           [envelope(agent("LOST-3", 710_003, firstName="Zed"))])  # fmt: skip
    assert (await run(journal, changed, client(server.urls))).counts.completed == 1
    async with client(server.urls) as api:
        done = await verify_job(journal, job.id, api)
    assert (done.completed, done.failed, done.superseded) == (4, 1, 0)
    outcome = states(journal, job.id)
    assert [outcome[n] for n in range(1, 6)] == [COMPLETED, COMPLETED, COMPLETED, FAILED,
                                                 COMPLETED]  # fmt: skip
    [fourth] = journal.lines(job.id, after=3, limit=1)
    assert fourth.errors == ["verified: the service holds other data in Demographic"]


async def test_a_line_verified_as_never_applied_stays_retryable(plain, journal, tmp_path):
    server, _ = plain
    records = [envelope(agent(f"NEVER-{n}", 720_000 + n)) for n in range(3)]
    path = write_ndjson(tmp_path / "never.ndjson", records)
    job = create_job(journal, path, "test")
    for chunk in checked_chunks(path, 100):
        journal.add_lines(job.id, chunk, done=True)
    batch = journal.take_batch(job.id, 100, min_size=1, now=time.time())
    assert batch is not None
    journal.settle(batch.id, "DONE", [LineUpdate(e.line, UNKNOWN, 3, True, ["lost"])
                                      for e in batch.lines])  # fmt: skip
    # Someone else holds the last line's profile with other data: not sent again unasked.
    other = [envelope(agent("NEVER-2", 720_002, firstName="Zed"))]
    assert (await run(journal, write_ndjson(tmp_path / "o.ndjson", other),
                      client(server.urls))).counts.completed == 1  # fmt: skip
    async with client(server.urls) as api:
        done = await verify_job(journal, job.id, api)
    assert (done.completed, done.failed) == (0, 3)
    lines = list(journal.lines(job.id))
    assert [(line.state, line.retryable) for line in lines] == [(FAILED, True)] * 2 + [
        (FAILED, False)
    ]
    assert lines[0].errors == ["verified: the service has no profile with this ProfileKey"]
    assert journal.retry_retryable(job.id) == 2


# --- 3. a request too large is split, a record too large is named ------------------------


class SizeLimit(httpx.AsyncBaseTransport):
    """The sandbox behind a gateway that refuses bulk bodies over ``limit`` bytes."""

    def __init__(self, limit: int) -> None:
        self.inner = httpx.AsyncHTTPTransport()
        self.limit = limit
        self.refused = 0
        self.sizes: list[int] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if request.method == "POST" and request.url.path.startswith("/bulk/"):
            body = await request.aread()
            if len(body) > self.limit:
                self.refused += 1
                return httpx.Response(413, json={"message": "request entity too large"})
            self.sizes.append(len(body))
        return await self.inner.handle_async_request(request)


async def test_a_413_splits_requests_and_names_a_record_too_large(plain, journal, tmp_path):
    server, _ = plain
    records = [envelope(agent(f"BIG-{n}", 720_000 + n)) for n in range(40)]
    huge = agent("BIG-X", 720_999)
    for section in ("mailingAddress", "residentAddress"):
        huge[section] = dict(huge["businessAddress"], streetAddress2="Suite " + "9" * 40)
    records.insert(17, envelope(huge))
    sizes = sorted(len(json.dumps(r)) for r in records)
    assert sizes[-1] > 2 * sizes[-2]
    gateway = SizeLimit(sizes[-1] - 1)  # two ordinary records fit in a request, not the big one
    path = write_ndjson(tmp_path / "big.ndjson", records)
    job = await run(journal, path, client(server.urls, gateway))
    assert job.state == DONE and gateway.refused >= 1
    assert job.counts.completed == 40 and job.counts.invalid == 1
    [too_large] = journal.lines(job.id, states=[INVALID])
    assert too_large.line == 18 and "too large for the service (413)" in too_large.errors[0]
    assert job.max_bytes is not None and job.max_bytes < gateway.limit
    assert max(gateway.sizes) <= gateway.limit
    # Learnt once: a resume of the same job does not try the size that was refused.
    assert journal.job(job.id).max_bytes == job.max_bytes


class Slow(httpx.AsyncBaseTransport):
    """A service that completes each request ``lag`` seconds after accepting it, and
    counts the status polls of each."""

    def __init__(self, lag: float) -> None:
        self.lag = lag
        self.ready: dict[str, tuple[float, list[dict]]] = {}
        self.polls: dict[str, int] = {}

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if request.method == "POST":
            refs = [json.loads(raw)["clientRefId"] for raw in (await request.aread()).splitlines()]
            request_id = f"00000000-0000-4000-8000-{len(self.ready) + 1:012d}"
            items = [{"clientRefId": ref, "status": "COMPLETED"} for ref in refs]
            self.ready[request_id] = (time.monotonic() + self.lag, items)
            self.polls[request_id] = 0
            return httpx.Response(202, json={"bulkRequestId": request_id})
        request_id = request.url.path.rsplit("/", 1)[1]
        self.polls[request_id] += 1
        due, items = self.ready[request_id]
        if time.monotonic() < due:
            return httpx.Response(200, json={"bulkRequestId": request_id,
                                             "processingStatus": "PROCESSING"})  # fmt: skip
        return httpx.Response(200, json={
            "bulkRequestId": request_id, "processingStatus": "COMPLETE",
            "operationDetails": {"status": "SUCCESS", "totalItems": len(items),
                                 "success": len(items), "failures": 0, "requestItems": items}})  # fmt: skip


async def test_a_slow_service_is_polled_a_few_times_a_request_not_a_dozen(journal, tmp_path):
    """The first request is polled on the configured backoff; later ones as long as the
    earlier ones took, then in small steps: fewer requests against a service that may
    count them, and no later answer."""
    service = Slow(lag=0.25)
    path = write_ndjson(tmp_path / "slow.ndjson",
                        [envelope(agent(f"SLOW-{n}", 770_000 + n)) for n in range(60)])  # fmt: skip
    settings = replace(FAST, concurrency=1, poll=Backoff(0.01, 1.0, 1.5))
    urls = {g: f"http://fake/{g}" for g in ("search", "transaction", "import", "bulk", "export")}
    job = await run(journal, path, client(urls, service), settings, size=5)
    assert job.state == DONE and job.counts.completed == 60
    polls = list(service.polls.values())
    # The first four requests go out together (a window of 4 x concurrency), before any
    # has completed: 0.01, 0.025, 0.05, 0.08, 0.13, 0.21, 0.32 s. The next eight know.
    assert len(polls) == 12 and polls[0] >= 5
    assert sum(polls[4:]) / len(polls[4:]) <= 3, polls


# --- scaling: the hot queries read through their indexes ---------------------------------


class Flaky(httpx.AsyncBaseTransport):
    """A scripted service: every other record fails retryably the first time, the first
    POST gets a 400 naming its line 2 and the second a 413: every path of a run."""

    def __init__(self) -> None:
        self.posts = 0
        self.results: dict[str, list[dict]] = {}
        self.seen: set[str] = set()

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if request.method == "POST":
            self.posts += 1
            lines = (await request.aread()).splitlines()
            if self.posts == 1:
                return httpx.Response(400, json={"message": "bad", "errors": [
                    {"path": "line 2", "message": "no"}]})  # fmt: skip
            if self.posts == 2:
                return httpx.Response(413, json={"message": "too large"})
            items = []
            for n, raw in enumerate(lines):
                ref = json.loads(raw)["clientRefId"]
                fail = n % 2 == 0 and ref not in self.seen
                self.seen.add(ref)
                items.append({"clientRefId": ref, "status": "FAILED" if fail else "COMPLETED",
                              "retryable": fail, "errorMessage": ["busy"] if fail else []})  # fmt: skip
            request_id = f"00000000-0000-4000-8000-{self.posts:012d}"
            self.results[request_id] = items
            return httpx.Response(202, json={"bulkRequestId": request_id})
        items = self.results[request.url.path.rsplit("/", 1)[1]]
        failures = sum(i["status"] == "FAILED" for i in items)
        return httpx.Response(200, json={
            "bulkRequestId": request.url.path.rsplit("/", 1)[1], "processingStatus": "COMPLETE",
            "operationDetails": {"status": "PARTIAL_SUCCESS" if failures else "SUCCESS",
                                 "totalItems": len(items), "success": len(items) - failures,
                                 "failures": failures, "requestItems": items}})  # fmt: skip


async def test_the_hot_queries_read_through_their_indexes(journal, tmp_path):
    """Every statement a run and its views make on the lines reads a bounded range
    through an index (SEARCH), never the whole table (SCAN): a job's millionth line
    costs what its first did. Checked on the query plans of every statement executed."""
    records = [envelope(agent(f"PLAN-{n % 150}", 730_000 + n % 150)) for n in range(400)]
    records[5] = '{"not": "a record"}'
    path = write_ndjson(tmp_path / "plan.ndjson", records)
    job = create_job(journal, path, "test", 50)
    executed: list[str] = []
    journal._db.conn.set_trace_callback(executed.append)
    urls = {g: f"http://fake/{g}" for g in ("search", "transaction", "import", "bulk", "export")}
    async with client(urls, Flaky()) as api:
        job = await run_job(journal, job.id, api, FAST)
    c = job.counts
    assert job.state == DONE and (c.completed, c.failed, c.invalid) == (398, 1, 1)
    for states_ in (None, [FAILED], [INVALID], [UNKNOWN], [SUPERSEDED], [FAILED, INVALID]):
        list(journal.lines(job.id, states=states_, after=200, limit=100))
        journal.count_lines(job.id, states=states_)
    list(journal.lines(job.id, states=[FAILED], retryable=True, limit=100))
    journal.retry_retryable(job.id)
    journal.jobs()
    journal._db.conn.set_trace_callback(None)

    plans: dict[str, list[str]] = {}
    for sql in {s for s in executed if " lines" in s or "identities" in s}:
        if sql.startswith(("SELECT", "UPDATE", "INSERT", "WITH")):
            rows = journal._db.conn.execute("EXPLAIN QUERY PLAN " + sql).fetchall()
            plans[sql] = [row[3] for row in rows]
    # A SCAN reads the whole table; a SEARCH on the primary key by job alone reads the
    # whole job (the first job's plan for take_batch, before its index was named).
    whole = ("SCAN lines", "SCAN identities", "SEARCH lines USING PRIMARY KEY (job_id=?)")
    scans = {sql: plan for sql, plan in plans.items()
             if any(step.startswith(whole) and step.endswith(("lines", "identities", "(job_id=?)"))
                    for step in plan)}  # fmt: skip
    assert scans == {}
    used = " ".join(step for plan in plans.values() for step in plan)
    for index in ("lines_to_send", "lines_due", "lines_by_outcome", "lines_to_fix",
                  "lines_by_batch"):  # fmt: skip
        assert index in used, index


def test_a_change_of_state_rewrites_only_the_indexes_that_find_lines_by_state(journal):
    """Taking and settling a batch change each line's state: any index that names
    ``state`` is rewritten for every line (a random-keyed clientRefId index among them
    cost a third of the journal's time), so only the indexes made to find lines by
    state may name it."""
    rows = journal._db.conn.execute(
        "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'lines'"
        " AND sql IS NOT NULL"
    ).fetchall()
    naming_state = {name for name, sql in rows if "state" in sql}
    assert naming_state == {"lines_to_send", "lines_due", "lines_by_outcome", "lines_to_fix"}


def test_a_version_2_journal_is_brought_up_to_date_keeping_its_jobs(tmp_path):
    path = tmp_path / "old-journal.db"
    old = sqlite3.connect(path, isolation_level=None)
    for statement in [*journal_module.TABLES.split(";\n"), *journal_module.VERSION_2]:
        old.execute(statement)
    old.execute("PRAGMA user_version = 2")
    old.execute("INSERT INTO jobs (id, env, path, size, mtime_ns, sha256, batch_size, state,"
                " created_at, updated_at) VALUES ('0ld', 'e', '/f', 1, 1, 'x', 100, 'DONE', 'a', 'b')")  # fmt: skip
    old.execute("INSERT INTO lines (job_id, line, byte_offset, crc, client_ref_id, state)"
                " VALUES ('0ld', 1, 0, 0, 'ref-1', 'COMPLETED')")  # fmt: skip
    old.close()
    with Journal(path) as journal:
        version = journal._db.conn.execute("PRAGMA user_version").fetchone()[0]
        assert version == journal_module.SCHEMA_VERSION == 3
        assert [line.client_ref_id for line in journal.lines("0ld")] == ["ref-1"]
    with Journal(path) as journal:  # and opening it again changes nothing
        assert journal.job("0ld").state == DONE


async def test_a_repeated_client_ref_id_is_refused_across_chunks(journal, tmp_path):
    """The clientRefId index is no longer unique: add_lines itself refuses a repeat,
    also of a line recorded in an earlier chunk."""
    first, again = envelope(agent("REP-1", 760_001)), envelope(agent("REP-2", 760_002))
    again["clientRefId"] = first["clientRefId"]
    path = write_ndjson(tmp_path / "rep.ndjson", [first, again])
    job = create_job(journal, path, "test", 50)
    journal.add_lines(job.id, [check(line)[0] for line in read_lines(path)][:1], done=False)
    journal.add_lines(job.id, [check(line)[0] for line in read_lines(path)][1:], done=True)
    states = [(line.state, line.errors) for line in journal.lines(job.id)]
    assert states[0][0] == PENDING
    assert states[1] == (INVALID, ["clientRefId: repeats line 1"])


# --- sending: as written, or rebuilt in the bulk spelling ------------------------------


async def test_lines_in_the_bulk_spelling_go_as_written_others_are_rebuilt(
    plain, journal, tmp_path
):
    server, db = plain
    bare = agent("SEND-1", 750_001)
    pascal = {"ProfileKey": "SEND-2", "Ssn": "750000002",
              "BusinessAddress": {"StreetAddress1": "1 Main St", "City": "Austin",
                                  "State": "TX", "Zip": "73301"},
              "Demographic": {"EmpStatus": "7040", "FirstName": "Ada", "LastName": "Lane"}}  # fmt: skip
    wrapped = envelope(agent("SEND-3", 750_003), ref="0b5e4a8e-1111-4222-8333-444455556666")
    path = write_ndjson(tmp_path / "send.ndjson", [bare, pascal, wrapped])
    raw = path.read_bytes().splitlines()
    job = await run(journal, path, client(server.urls))
    assert job.counts.completed == 3
    refs = {line.line: line.client_ref_id for line in journal.lines(job.id)}
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
        sent = dict(conn.execute("SELECT client_ref_id, raw FROM bulk_items WHERE"
                                 " client_ref_id IN (?, ?, ?)", tuple(refs.values())))  # fmt: skip
    assert sent[refs[1]] == f'{{"clientRefId":"{refs[1]}","data":{{"agent":{raw[0].decode()}}}}}'
    assert sent[refs[3]] == raw[2].decode()  # byte for byte
    rebuilt = json.loads(sent[refs[2]])["data"]["agent"]
    assert rebuilt["profileKey"] == "SEND-2" and rebuilt["demographic"]["firstName"] == "Ada"


class OtherSpelling(httpx.AsyncBaseTransport):
    """A service that answers with each clientRefId in another GUID form, and one item
    with none at all."""

    def __init__(self) -> None:
        self.items: list[dict] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if request.method == "POST":
            for raw in (await request.aread()).splitlines():
                ref = json.loads(raw)["clientRefId"]
                self.items.append({"clientRefId": ref.replace("-", "").strip("{}").upper(),
                                   "status": "COMPLETED", "retryable": False,
                                   "errorMessage": None})  # fmt: skip
            self.items.append({"clientRefId": None, "status": "FAILED"})
            return httpx.Response(
                202, json={"bulkRequestId": "00000000-0000-4000-8000-0000000000aa"}
            )
        return httpx.Response(200, json={
            "bulkRequestId": "00000000-0000-4000-8000-0000000000aa", "processingStatus": "COMPLETE",
            "operationDetails": {"requestItems": self.items}})  # fmt: skip


async def test_results_match_whatever_form_the_service_writes_a_guid_in(journal, tmp_path):
    lines = [envelope(agent("GUID-1", 770_001), ref="{0B5E4A8E-1111-4222-8333-444455556666}"),
             envelope(agent("GUID-2", 770_002))]  # fmt: skip
    path = write_ndjson(tmp_path / "guid.ndjson", lines)
    urls = {g: f"http://fake/{g}" for g in ("search", "transaction", "import", "bulk", "export")}
    job = await run(journal, path, client(urls, OtherSpelling()))
    assert job.state == DONE and job.counts.completed == 2
