"""Watch checks over ``httpx.MockTransport``: resuming, pacing, 429, an unreachable service;
the store's files and the roster's inputs."""

from __future__ import annotations

import asyncio
import json
import stat
from collections import Counter
from datetime import date
from pathlib import Path

import httpx
import pytest

from tui_app.client.registry import RegistryClient, RetryPolicy
from tui_app.config import GROUP_PREFIXES
from tui_app.watch.check import CheckSettings, Pacer, run_check
from tui_app.watch.roster import Entry, RosterError, parse_npns, read_file
from tui_app.watch.store import DONE, STOPPED, WatchDb, WatchStore

TODAY = date(2026, 3, 1)
BASE = "http://registry.test"


class FakeTime:
    """A clock that moves only when something sleeps on it."""

    def __init__(self) -> None:
        self.now = 0.0
        self.sleeps: list[float] = []

    def clock(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds
        await asyncio.sleep(0)


def full_record(npn: int) -> dict:
    return {
        "NiprFullInfo": {
            "Producer": {"Npn": npn, "EntityType": "INDIVIDUAL"},
            "Biographic": {"FirstName": "P", "LastName": str(npn), "Ssn": "000111234"},
            "LicenseData": {
                "Licenses": [
                    {
                        "State": "CA",
                        "LicenseNumber": f"L{npn}",
                        "Residency": "R",
                        "Active": True,
                        "ExpirationDate": "03/20/2026",
                    }
                ]
            },
        }
    }


class Registry:
    """A mock registry: individuals of the given NPNs; counts every read."""

    def __init__(self, npns, answer=None) -> None:
        self.npns = set(npns)
        self.reads: Counter[int] = Counter()
        self.answer = answer

    def __call__(self, request: httpx.Request) -> httpx.Response:
        npn = int(request.url.params["Npn"])
        if self.answer is not None:
            special = self.answer(request, npn)
            if special is not None:
                return special
        self.reads[npn] += 1
        if npn in self.npns and request.url.path.endswith("/agent"):
            return httpx.Response(200, json=full_record(npn))
        return httpx.Response(404, json={"message": "no such producer"})


def client_for(handler, time: FakeTime | None = None) -> RegistryClient:
    urls = {group: BASE + prefix for group, prefix in GROUP_PREFIXES.items()}
    kwargs = {"sleep": time.sleep} if time else {}
    return RegistryClient(
        urls, transport=httpx.MockTransport(handler), retry=RetryPolicy(base_delay=0.0), **kwargs
    )


@pytest.fixture
def db(tmp_path: Path):
    store = WatchDb(tmp_path / "watch" / "watch.db")
    yield store
    store.close()


async def add(db: WatchDb, npns, env: str = "prod") -> None:
    await db.call(WatchStore.add, env, [Entry(n) for n in npns])


async def test_an_interrupted_check_resumes_and_reads_nothing_twice(db: WatchDb) -> None:
    npns = range(1000001, 1000031)
    registry = Registry(npns)
    await add(db, npns)
    stop = asyncio.Event()

    def progress(p) -> None:
        if p.read >= 10:
            stop.set()

    async with client_for(registry) as client:
        first = await run_check(
            db,
            client,
            "prod",
            today=TODAY,
            on_progress=progress,
            stop=stop,
            settings=CheckSettings(rate=0, concurrency=3),
        )
        assert first.check.state == STOPPED
        assert 10 <= first.check.read < 30
        assert first.findings == first.check.read
        second = await run_check(
            db, client, "prod", today=TODAY, settings=CheckSettings(rate=0, concurrency=3)
        )
    assert second.check.id == first.check.id and second.check.state == DONE
    assert second.check.read == 30
    assert set(registry.reads) == set(npns) and max(registry.reads.values()) == 1
    assert sum(registry.reads.values()) == 30
    # Every producer's license expires within 60 days: one finding each, none lost or doubled.
    assert await db.call(WatchStore.count_findings, second.check.id) == 30 == second.findings


async def test_requests_are_paced(db: WatchDb) -> None:
    time = FakeTime()
    await add(db, range(1000001, 1000011))
    async with client_for(Registry(range(1000001, 1000011))) as client:
        await run_check(
            db,
            client,
            "prod",
            today=TODAY,
            settings=CheckSettings(rate=5),
            pacer=Pacer(5, time.clock, time.sleep),
        )
    assert time.now == pytest.approx(9 * 0.2)


async def test_a_429_pauses_every_request_for_its_retry_after(db: WatchDb) -> None:
    time = FakeTime()
    busy = {"left": 1}

    def answer(request, npn):
        if busy["left"]:
            busy["left"] -= 1
            return httpx.Response(429, headers={"Retry-After": "7"})
        return None

    registry = Registry(range(1000001, 1000005), answer)
    await add(db, registry.npns)
    async with client_for(registry, time) as client:
        outcome = await run_check(
            db,
            client,
            "prod",
            today=TODAY,
            settings=CheckSettings(rate=100, concurrency=2),
            pacer=Pacer(100, time.clock, time.sleep),
        )
    assert outcome.check.state == DONE and outcome.check.read == 4
    assert 7.0 in time.sleeps  # the client waited as asked ...
    assert time.now >= 7.0  # ... and so did the pacer, for every request after it


async def test_a_service_busy_to_every_request_stops_the_check_for_later(db: WatchDb) -> None:
    # QA: `watch check` against a service answering 429 to everything ran for ever.
    time = FakeTime()
    registry = Registry(range(1000001, 1000004), lambda request, npn: httpx.Response(429))
    await add(db, registry.npns)
    async with client_for(registry, time) as client:
        outcome = await asyncio.wait_for(
            run_check(db, client, "prod", today=TODAY, pacer=Pacer(10, time.clock, time.sleep)),
            timeout=30,
        )
    assert outcome.check.state == STOPPED and outcome.check.pending == 3
    assert outcome.check.message.startswith("the service kept answering that it is busy")


async def test_an_unreachable_service_stops_the_check_for_later(db: WatchDb) -> None:
    def down(request):
        raise httpx.ConnectError("refused", request=request)

    await add(db, [1000001, 1000002])
    async with client_for(down, FakeTime()) as client:
        outcome = await run_check(db, client, "prod", today=TODAY)
    assert outcome.unreachable and "cannot reach" in outcome.unreachable
    assert outcome.check.state == STOPPED and outcome.check.pending == 2
    assert "could not be reached" in outcome.check.message


async def test_an_npn_the_registry_lacks_is_a_finding_and_a_firm_is_read_as_a_firm(db) -> None:
    def answer(request, npn):
        if npn == 2000002 and request.url.path.endswith("/agency"):
            return httpx.Response(200, json=full_record(npn))
        return None

    await add(db, [2000001, 2000002])
    async with client_for(Registry([], answer)) as client:
        outcome = await run_check(db, client, "prod", today=TODAY)
    rows = await db.call(WatchStore.findings, outcome.check.id, kinds=["mismatch"])
    assert [(r["npn"], r["text"]) for r in rows] == [
        (2000001, "NPN 2000001 is not in the registry.")
    ]
    roster = {r.npn: r.kind for r in await db.call(WatchStore.roster, "prod")}
    assert roster == {2000001: None, 2000002: "agency"}
    # A firm the registry no longer has is a finding too (not a record that failed).
    async with client_for(Registry([])) as client:
        outcome = await run_check(db, client, "prod", today=TODAY)
    rows = await db.call(WatchStore.findings, outcome.check.id, kinds=["mismatch"])
    assert [r["npn"] for r in rows] == [2000001, 2000002] and outcome.check.failed == 0


async def test_a_record_that_does_not_name_its_npn_is_kept_under_the_rosters(db) -> None:
    def answer(request, npn):
        body = full_record(npn)
        del body["NiprFullInfo"]["Producer"]["Npn"]
        return httpx.Response(200, json=body)

    await add(db, [1000001])
    async with client_for(Registry([], answer)) as client:
        outcome = await run_check(db, client, "prod", today=TODAY)
    rows = await db.call(WatchStore.findings, outcome.check.id)
    assert [(r["kind"], r["npn"]) for r in rows] == [("expiring", 1000001)]  # it was NPN 0


async def test_the_store_is_private_and_holds_no_personal_data(db: WatchDb, tmp_path) -> None:
    await add(db, [1000001])
    async with client_for(Registry([1000001])) as client:
        await run_check(db, client, "prod", today=TODAY)
    path = tmp_path / "watch" / "watch.db"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    await db.call(WatchStore.close)
    data = b"".join(p.read_bytes() for p in path.parent.iterdir())
    assert b"000111234" not in data


async def test_findings_page_filter_and_sort_in_the_store(db: WatchDb) -> None:
    npns = range(1000001, 1000041)
    await add(db, npns)
    async with client_for(Registry(list(npns)[::2])) as client:
        outcome = await run_check(db, client, "prod", today=TODAY, settings=CheckSettings(rate=0))
    check = outcome.check.id
    assert await db.call(WatchStore.count_findings, check) == 40
    assert await db.call(WatchStore.count_findings, check, kinds=["expiring"]) == 20
    assert await db.call(WatchStore.count_findings, check, severities=["medium"]) == 40
    page = await db.call(WatchStore.findings, check, sort="npn", limit=5, offset=10)
    assert [r["npn"] for r in page] == list(range(1000011, 1000016))
    counts = await db.call(WatchStore.kind_counts, [check])
    assert counts == {check: {"expiring": 20, "mismatch": 20}}


def test_npns_typed_or_pasted() -> None:
    assert parse_npns(["19000001, 19000002", "19000003\n"]) == [
        Entry(19000001),
        Entry(19000002),
        Entry(19000003),
    ]
    with pytest.raises(RosterError) as err:
        parse_npns(["123", "0123", "abc", "99999999999"])
    assert err.value.problems == [
        f"NPN {t}: {t} is not an NPN (digits, no leading zero, at most 2147483647)"
        for t in ("0123", "abc", "99999999999")
    ]


def test_roster_files_csv_and_ndjson(tmp_path: Path) -> None:
    csv_file = tmp_path / "roster.csv"
    csv_file.write_text("Name,NPN,ProfileKey,SSN\nA,19000001,PK-1,000111234\nB,19000002,,\n")
    assert read_file(csv_file) == [Entry(19000001, "PK-1"), Entry(19000002)]
    nd = tmp_path / "roster.ndjson"
    nd.write_text(
        json.dumps({"npn": 19000001, "profileKey": "PK-1"})
        + "\n\n"
        + json.dumps({"Npn": "19000002"})
        + "\n"
    )
    assert read_file(nd) == [Entry(19000001, "PK-1"), Entry(19000002)]


def test_roster_file_problems_name_their_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.csv"
    bad.write_text("NPN\n19000001\nx12\n")
    with pytest.raises(RosterError) as err:
        read_file(bad)
    assert err.value.problems == [
        f"{bad}: line 3: NPN: x12 is not an NPN (digits, no leading zero, at most 2147483647)"
    ]
    no_column = tmp_path / "none.csv"
    no_column.write_text("Name\nA\n")
    with pytest.raises(RosterError, match="line 1: no NPN column"):
        read_file(no_column)
    nd = tmp_path / "bad.ndjson"
    nd.write_text('{"npn": 19000001}\n[1]\n')
    with pytest.raises(RosterError, match="line 2: not a JSON object"):
        read_file(nd)
    # A folder holds exports, not "producers in the file" (QA: said so of an empty folder).
    empty = tmp_path / "exports"
    empty.mkdir()
    with pytest.raises(RosterError) as err:
        read_file(empty)
    assert err.value.problems == [f"{empty}: no saved export (.json) in the folder"]


def test_every_profile_exported_to_a_folder(tmp_path: Path) -> None:
    def export(name: str, kind: str, key: str, npn: str | None) -> None:
        identity = {
            "agent": ("AgentPersonalInfoDataSet", {"ProfileKey": key, "Ssn": "000111234"}),
            "agency": ("FirmFirmDataSet", {"ProfileKey": key, "Tin": "000000001"}),
        }[kind]
        demographic = {"agent": "NiprNumber", "agency": "Nipr"}[kind]
        sets = [
            {"dataSetType": identity[0], "records": [identity[1]]},
            {
                "dataSetType": f"{'Agent' if kind == 'agent' else 'Firm'}DemographicDataSet",
                "records": [{demographic: npn} if npn else {"LastName": "X"}],
            },
        ]
        (tmp_path / name).write_text(json.dumps({"dataSets": sets}))

    export("a.json", "agent", "PK-1", "19000001")
    export("b.json", "agency", "FIRM-7", "19000002")
    (tmp_path / "notes.txt").write_text("not an export")
    assert read_file(tmp_path) == [Entry(19000001, "PK-1"), Entry(19000002, "FIRM-7")]
    assert read_file(tmp_path / "b.json") == [Entry(19000002, "FIRM-7")]
    export("c.json", "agent", "PK-3", None)
    (tmp_path / "d.json").write_text("[1, 2]")
    with pytest.raises(RosterError) as err:
        read_file(tmp_path)
    assert err.value.problems == [
        f"{tmp_path / 'c.json'}: no NPN in the export (its Demographic data set names none)",
        f"{tmp_path / 'd.json'}: not an export document (a JSON object with dataSets)",
    ]
