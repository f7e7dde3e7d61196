"""The sandbox over a real loopback socket: every behaviour the service promises."""

from __future__ import annotations

import asyncio
import json
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import httpx
import pytest
from sandbox_server import serve

from tui_app.client.errors import AuthError, NotFound, Rejected
from tui_app.client.registry import RegistryClient
from tui_app.contract.bulk import BulkItem
from tui_app.contract.profile import AgencyRecord, AgentRecord
from tui_app.sandbox.synthetic import DEMO_AGENT_NPN, demo_order
from tui_app.wire.xml import dump_xml

SSN = "000121234"
ADDRESS = {"City": "Sacramento", "State": "CA", "StreetAddress1": "1 Main St", "Zip": "95814"}
DEMOGRAPHIC = {"EmpStatus": "7040", "FirstName": "Rowan", "LastName": "Tester"}


def agent(key: str = "AG-1", ssn: str = "000450001", **sections) -> AgentRecord:
    return AgentRecord.model_validate(
        {
            "ProfileKey": key,
            "Ssn": ssn,
            "BusinessAddress": ADDRESS,
            "Demographic": DEMOGRAPHIC,
            **sections,
        }
    )


SERVE_ARGS = ("--step-seconds", "0.2")
"""Of ``served_sandbox`` (tests/conftest.py)."""


@pytest.fixture
async def client(served_sandbox):
    async with RegistryClient(served_sandbox.urls) as c:
        yield c


@pytest.fixture
def http(served_sandbox):
    with httpx.Client(base_url=served_sandbox.url, timeout=10) as c:
        yield c


# --- how it runs ---------------------------------------------------------------------------


def test_openapi_document_lists_all_twelve_operations(http):
    doc = http.get("/openapi.json").json()
    operations = [(m.upper(), p) for p, item in doc["paths"].items() for m in item]
    assert len(operations) == 12
    assert ("POST", "/bulk/v1/{itemType}") in operations
    assert "Order" in doc["components"]["schemas"]
    # a request field is described by its docstring (tui_app.field_docs)
    tax_id = doc["components"]["schemas"]["OrderData"]["properties"]["taxId"]
    assert tax_id["description"] == "Applicant's SSN or FEIN."


def test_sigterm_stops_cleanly_and_data_survives_a_restart(tmp_path):
    db = tmp_path / "restart.db"
    with serve(db) as first:
        with httpx.Client(base_url=first.url) as c:
            body = dump_xml(agent("KEEP-1"), "Agent")
            answer = c.post(
                "/producerimport/v1/agents",
                content=body,
                headers={"Content-Type": "application/xml"},
            )
            assert b"<Success>true</Success>" in answer.content
        assert first.stop(signal.SIGTERM) == 0
    with serve(db) as second, httpx.Client(base_url=second.url) as c:
        found = c.post(
            "/producerexport/v1/agents/export",
            json={"profileKey": "KEEP-1", "dataSets": ["Demographic"]},
        )
        assert found.status_code == 200
        assert found.json()["dataSets"][0]["records"][0]["FirstName"] == "Rowan"


def test_bearer_token_is_required_when_configured(tmp_path, monkeypatch):
    monkeypatch.setenv("SANDBOX_TEST_TOKEN", "sekret")
    with (
        serve(tmp_path / "auth.db", "--token-env", "SANDBOX_TEST_TOKEN") as s,
        httpx.Client(base_url=s.url) as c,
    ):
        assert c.get("/producerpdbsearch/v1/agent", params={"Npn": 19000001}).status_code == 401
        wrong = {"Authorization": "Bearer nope"}
        assert (
            c.get(
                "/producertransaction/v1/order/status", params={"order_num": "X"}, headers=wrong
            ).status_code
            == 401
        )
        right = {"Authorization": "Bearer sekret"}
        assert (
            c.get(
                "/producerpdbsearch/v1/agent", params={"Npn": 19000001}, headers=right
            ).status_code
            == 200
        )
        assert c.get("/openapi.json").status_code == 401
        assert c.get("/openapi.json", headers=right).status_code == 200


# --- protocol ----------------------------------------------------------------------------------


def test_validation_errors_list_every_field_for_json_and_xml(http):
    bad = demo_order("BAD1")
    bad["tlq"]["juris"] = "CAL"
    bad["data"]["naicNum"] = "12a"
    answer = http.post("/producertransaction/v1/order", json=bad)
    assert answer.status_code == 400
    paths = {e["path"]: e["message"] for e in answer.json()["errors"]}
    assert paths == {
        "tlq.juris": "must be exactly 2 characters, not 3",
        "data.naicNum": "must contain digits only",
    }
    xml = b"<AgentSearch><SearchType>SSN</SearchType><Ssn>12-34</Ssn></AgentSearch>"
    answer = http.post(
        "/producerpdbsearch/v1/agent/search",
        content=xml,
        headers={"Content-Type": "application/xml"},
    )
    assert answer.status_code == 400
    assert {e["path"] for e in answer.json()["errors"]} == {"Ssn"}


def test_unsupported_content_type_oversized_body_and_unknown_paths(http):
    assert (
        http.post(
            "/producerpdbsearch/v1/agent/search",
            content=b"x",
            headers={"Content-Type": "text/plain"},
        ).status_code
        == 415
    )
    assert http.post("/bulk/v1/profile", json=[]).status_code == 415
    huge = b"{" + b" " * (17 * 1024 * 1024) + b"}"
    assert (
        http.post(
            "/producerpdbsearch/v1/agent/search",
            content=huge,
            headers={"Content-Type": "application/json"},
        ).status_code
        == 413
    )
    assert http.get("/producerpdbsearch/v1/nothing").status_code == 404


def test_accept_xml_gets_xml(http):
    answer = http.get(
        "/producerpdbsearch/v1/agency",
        params={"Npn": 19000002},
        headers={"Accept": "application/xml"},
    )
    assert answer.headers["content-type"].startswith("application/xml")
    assert b"<FirmName>Sample Risk Partners LLC</FirmName>" in answer.content


async def test_concurrent_requests_are_safe(client):
    async def one(i: int):
        if i % 2:
            return await client.search_agents({"SearchType": "NPN", "Npn": 19000001})
        return await client.submit_order(demo_order(f"CONC{i}"))

    results = await asyncio.gather(*(one(i) for i in range(30)))
    assert len(results) == 30


# --- search ------------------------------------------------------------------------------------


async def test_name_search_is_a_case_insensitive_prefix(client):
    found = await client.search_agents(
        {"SearchType": "NAME", "FirstName": "AV", "LastName": "samp"}
    )
    hits = found.IndividualsSummaryInfo.Individuals
    assert [h.Npn for h in hits] == [19000001]
    assert hits[0].SsnLast4 == "1234" and hits[0].LicenseStates == ["CA", "TX"]


async def test_ssn_search_needs_the_right_last_name(client):
    found = await client.search_agents({"SearchType": "SSN", "Ssn": SSN, "LastName": "sample"})
    assert [h.Npn for h in found.IndividualsSummaryInfo.Individuals] == [19000001]
    none = await client.search_agents({"SearchType": "SSN", "Ssn": SSN, "LastName": "Other"})
    assert none.IndividualsSummaryInfo.Individuals == []


async def test_npn_and_license_searches(client):
    by_npn = await client.search_agents({"SearchType": "NPN", "Npn": 19000001})
    assert by_npn.IndividualsSummaryInfo.Individuals[0].LastName == "Sample"
    by_license = await client.search_agents(
        {"SearchType": "LICENSE", "LicenseJurisdiction": "TX", "LicenseNumber": "2190001"}
    )
    assert by_license.IndividualsSummaryInfo.Individuals[0].Npn == 19000001
    firm = await client.search_agencies(
        {"SearchType": "LICENSE", "LicenseJurisdiction": "CA", "LicenseNumber": "0K19002"}
    )
    assert firm.NiprFirmsSummaryInfo.Firms[0].Npn == 19000002


@pytest.mark.parametrize("fein", ["000000001", "00-0000001"])
async def test_firm_name_search_matches_fein_with_or_without_hyphen(client, fein):
    found = await client.search_agencies(
        {"SearchType": "NAME", "FirmName": "sample risk", "FirmFein": fein}
    )
    firms = found.NiprFirmsSummaryInfo.Firms
    assert [f.FirmName for f in firms] == ["Sample Risk Partners LLC"]
    assert firms[0].FeinLast4 == "0001"


def test_summaries_never_carry_a_full_ssn_or_fein(http):
    answer = http.post(
        "/producerpdbsearch/v1/agent/search",
        json={"SearchType": "SSN", "Ssn": SSN, "LastName": "Sample"},
    )
    assert SSN not in answer.text and "1234" in answer.text
    answer = http.post(
        "/producerpdbsearch/v1/agency/search",
        json={"SearchType": "NAME", "FirmName": "Sample", "FirmFein": "00"},
    )
    assert "000000001" not in answer.text


@pytest.mark.parametrize(("kind", "words"), [("SSN", "FirmFein"), ("NPN", "GET /agency")])
def test_firm_search_by_ssn_or_npn_without_its_number_is_refused_saying_where(http, kind, words):
    answer = http.post("/producerpdbsearch/v1/agency/search", json={"SearchType": kind})
    assert answer.status_code == 400
    assert words in answer.json()["message"] + answer.json()["errors"][0]["message"]


async def test_full_records_and_unknown_npn(client):
    person = (await client.get_agent(19000001)).NiprFullInfo
    assert person.Biographic.Ssn == SSN
    states = {lic.State: lic.Residency for lic in person.LicenseData.Licenses}
    assert states == {"CA": "R", "TX": "NR"}
    firm = (await client.get_agency(19000002)).NiprFullInfo
    assert firm.Biographic.Fein == "000000001"
    assert any(o.Npn == 19000001 for o in firm.Organization)
    with pytest.raises(NotFound):
        await client.get_agent(99999999)
    with pytest.raises(NotFound):
        await client.get_agency(19000001)  # an individual's NPN is no firm


# --- orders ------------------------------------------------------------------------------------


async def test_order_lifecycle_update_and_final_state(client, http):
    created = await client.submit_order(demo_order("LIFE1"))
    details = created.order.orderDetails
    assert details.status == "RECEIVED" and details.updated is False
    assert created.order.itemDetails["juris"] == "CA"
    assert created.order.itemDetails["lastName"] == "Sample"
    updated = await client.submit_order(demo_order("LIFE1", middleName="Q"))
    assert updated.order.orderDetails.updated is True
    assert "updated" in (updated.order.orderDetails.message or "").lower()
    assert updated.order.itemDetails["middleName"] == "Q"

    seen = []
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        status = (await client.order_status("LIFE1")).order.orderDetails
        if not seen or seen[-1] != status.status:
            seen.append(status.status)
        if status.final:
            break
        await asyncio.sleep(0.05)
    assert status.final, seen
    # CA reviews appointments; this order number is not among the few denied.
    stages = ["RECEIVED", "VALIDATING", "SUBMITTED", "PENDING_STATE_REVIEW", "APPROVED"]
    assert [h.status for h in status.history] == stages
    assert seen == [stage for stage in stages if stage in seen]  # polled: some, in order
    assert status.status == "APPROVED" and status.notes
    # Interface rule 2: posting a final order again updates it too, and says so.
    answer = http.post("/producertransaction/v1/order", json=demo_order("LIFE1"))
    assert answer.status_code == 200
    assert answer.json()["order"]["orderDetails"]["updated"] is True


async def test_create_answers_201_and_update_200(http):
    assert http.post("/producertransaction/v1/order", json=demo_order("CODE1")).status_code == 201
    assert http.post("/producertransaction/v1/order", json=demo_order("CODE1")).status_code == 200


async def test_unknown_order_is_404(client):
    with pytest.raises(NotFound):
        await client.order_status("NOSUCHORDER")


async def test_order_for_unknown_npn_is_rejected_with_a_note(client):
    await client.submit_order(demo_order("GHOST1", niprNoReq="123456789"))
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        details = (await client.order_status("GHOST1")).order.orderDetails
        if details.final:
            break
        await asyncio.sleep(0.05)
    assert details.status == "REJECTED"
    assert any("123456789" in note.text for note in details.notes)


async def _final(client, num: str):
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        details = (await client.order_status(num)).order.orderDetails
        if details.final:
            return details
        await asyncio.sleep(0.05)
    raise AssertionError(f"order {num} never reached a final status")


async def test_an_approved_appointment_and_its_termination_show_on_the_record(client):
    # QA: an approved order left the registry as it was, so neither the record nor Watch
    # ever showed what the user had filed.
    def quill(record):
        tx = next(lic for lic in record.NiprFullInfo.LicenseData.Licenses if lic.State == "TX")
        return [(a.LineOfAuthority, a.Status, a.TerminationReason) for a in tx.Appointments
                if a.CompanyName == "Quill Assurance"]  # fmt: skip

    npn = DEMO_AGENT_NPN
    sponsor = {"sponsoringCompany": "Quill Assurance", "feinNumber": "987654321",
               "naicNum": "54321"}  # fmt: skip
    assert quill(await client.get_agent(npn)) == []
    await client.submit_order(demo_order("QUILL1", juris="TX", loa=["11"], **sponsor))
    assert (await _final(client, "QUILL1")).status == "APPROVED"
    assert quill(await client.get_agent(npn)) == [("Accident & Health", "Active", None)]
    ended = demo_order("QUILL2", juris="TX", naicNum="54321", trm="Company Decision")
    ended["tlq"]["fType"] = "T"
    await client.submit_order(ended)
    assert (await _final(client, "QUILL2")).status == "APPROVED"
    assert quill(await client.get_agent(npn)) == [
        ("Accident & Health", "Terminated", "Company Decision")
    ]


# --- single import -----------------------------------------------------------------------------


def _post_xml(http, path: str, body: bytes) -> httpx.Response:
    return http.post(path, content=body, headers={"Content-Type": "application/xml"})


def test_import_creates_then_updates_by_identity(http):
    first = _post_xml(http, "/producerimport/v1/agents", dump_xml(agent("UP-1"), "Agent"))
    assert first.status_code == 200 and b"<Success>true</Success>" in first.content
    again = _post_xml(
        http,
        "/producerimport/v1/agents",
        dump_xml(agent("UP-1", Contact={"BusinessEmailAddress": "a@b.test"}), "Agent"),
    )
    assert b"updated" in again.content.lower()
    export = http.post(
        "/producerexport/v1/agents/export",
        json={"profileKey": "UP-1", "dataSets": ["Contact", "Demographic"]},
    )
    sets = {s["dataSetType"]: s["records"] for s in export.json()["dataSets"]}
    assert sets["AgentContactDataSet"][0]["BusinessEmailAddress"] == "a@b.test"
    assert sets["AgentDemographicDataSet"][0]["LastName"] == "Tester"


@pytest.mark.parametrize(
    ("body", "words"),
    [
        (b"<Agent><ProfileKey>K</ProfileKey>", "well-formed"),
        (b"<Agency><ProfileKey>K</ProfileKey><Tin>000000001</Tin></Agency>", "Agent"),
        (
            b'<?xml version="1.0"?><!DOCTYPE a [<!ENTITY x "y">]><Agent><ProfileKey>&x;'
            b"</ProfileKey></Agent>",
            "DTD",
        ),
    ],
)
def test_import_refuses_broken_hostile_and_misrooted_documents(http, body, words):
    answer = _post_xml(http, "/producerimport/v1/agents", body)
    assert answer.status_code == 400
    assert words.lower() in answer.json()["message"].lower()


def test_import_of_an_invalid_document_answers_200_with_validations(http):
    body = (
        b"<Agent><ProfileKey>K9</ProfileKey><Ssn></Ssn><Demographic><EmpStatus>7099"
        b"</EmpStatus><FirstName>A</FirstName><LastName>B</LastName></Demographic></Agent>"
    )
    answer = _post_xml(http, "/producerimport/v1/agents", body)
    assert answer.status_code == 200
    assert b"<Success>false</Success>" in answer.content
    assert b"Ssn: is required" in answer.content
    assert b"Demographic.EmpStatus" in answer.content


def test_import_needs_xml(http):
    answer = http.post("/producerimport/v1/agencies", json={"ProfileKey": "K"})
    assert answer.status_code == 415


def test_required_sections_come_from_the_rules_file(tmp_path):
    rules = tmp_path / "rules.toml"
    rules.write_text('[agent]\nnew = ["Contact"]\nupdate = []\n[agency]\nnew = []\nupdate = []\n')
    with (
        serve(tmp_path / "rules.db", "--import-rules", str(rules)) as s,
        httpx.Client(base_url=s.url) as c,
    ):
        answer = _post_xml(c, "/producerimport/v1/agents", dump_xml(agent("R-1"), "Agent"))
        assert b"<Success>false</Success>" in answer.content
        assert b"Contact" in answer.content
        answer = _post_xml(
            c,
            "/producerimport/v1/agencies",
            dump_xml(AgencyRecord(ProfileKey="R-2", Tin="000000009"), "Agency"),
        )
        assert b"<Success>true</Success>" in answer.content


# --- bulk --------------------------------------------------------------------------------------


def _ndjson(lines: list) -> bytes:
    return b"".join(
        (line if isinstance(line, bytes) else json.dumps(line).encode()) + b"\n" for line in lines
    )


def _bulk(http, body: bytes) -> httpx.Response:
    return http.post(
        "/bulk/v1/profile", content=body, headers={"Content-Type": "application/x-ndjson"}
    )


def _wait_complete(http, job: str, timeout: float = 20) -> dict:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        status = http.get(f"/bulk/v1/status/{job}").json()
        if status["processingStatus"] == "COMPLETE":
            return status
        time.sleep(0.05)
    raise AssertionError(f"bulk request {job} did not complete: {status}")


def test_bulk_accepts_at_once_and_completes_with_counts(http):
    good = [BulkItem.wrap(agent(f"B-{i}", f"00045{i:04d}")).to_line() for i in range(5)]
    good[0]["clientRefId"] = good[0]["clientRefId"].upper()
    bad = BulkItem.wrap(agent("B-BAD")).to_line()
    bad["data"]["agent"]["ssn"] = ""
    answer = _bulk(http, _ndjson([*good, bad]))
    assert answer.status_code == 202
    job = answer.json()["bulkRequestId"]
    assert str(uuid.UUID(job)) == job
    status = _wait_complete(http, job)
    details = status["operationDetails"]
    assert (details["totalItems"], details["success"], details["failures"]) == (6, 5, 1)
    assert details["status"] == "PARTIAL_SUCCESS"
    items = {i["clientRefId"]: i for i in details["requestItems"]}
    assert good[0]["clientRefId"].lower() in items
    failed = items[bad["clientRefId"]]
    assert failed["status"] == "FAILED" and failed["retryable"] is False
    assert any("ssn" in (m or "") for m in failed["errorMessage"])


def test_bulk_refuses_bad_lines_naming_each(http):
    ref = str(uuid.uuid4())
    record = {"agent": {"profileKey": "L", "ssn": "000450009"}}
    body = _ndjson(
        [
            {"clientRefId": ref, "data": record},
            b"{not json",
            {"data": record},
            {"clientRefId": "123", "data": record},
            {"clientRefId": ref.upper(), "data": record},
        ]
    )
    answer = _bulk(http, body)
    assert answer.status_code == 400
    lines = [e["path"] for e in answer.json()["errors"]]
    assert lines == ["line 2", "line 3", "line 4", "line 5"]


def test_bulk_unknown_item_type_and_unknown_id(http):
    body = _ndjson([BulkItem.wrap(agent()).to_line()])
    assert (
        http.post(
            "/bulk/v1/orders", content=body, headers={"Content-Type": "application/x-ndjson"}
        ).status_code
        == 400
    )
    assert http.get(f"/bulk/v1/status/{uuid.uuid4()}").status_code == 404


def test_fail_rate_injects_retryable_failures_and_latency_slows_answers(tmp_path):
    with (
        serve(tmp_path / "flaky.db", "--fail-rate", "0.5", "--latency-ms", "150") as s,
        httpx.Client(base_url=s.url, timeout=10) as c,
    ):
        start = time.monotonic()
        answers = [
            c.get("/producertransaction/v1/order/status", params={"order_num": "X"})
            for _ in range(12)
        ]
        assert time.monotonic() - start >= 12 * 0.15
        codes = {a.status_code for a in answers}
        assert codes == {404, 503}
        assert all(a.headers.get("Retry-After") for a in answers if a.status_code == 503)
        lines = [BulkItem.wrap(agent(f"F-{i}", f"00046{i:04d}")).to_line() for i in range(40)]
        answer = None
        while answer is None or answer.status_code == 503:
            answer = _bulk(c, _ndjson(lines))
        job = answer.json()["bulkRequestId"]
        status = None
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            reply = c.get(f"/bulk/v1/status/{job}")
            if reply.status_code == 200 and reply.json()["processingStatus"] == "COMPLETE":
                status = reply.json()
                break
        details = status["operationDetails"]
        retryable = [i for i in details["requestItems"] if i["retryable"]]
        assert retryable and all(i["status"] == "FAILED" for i in retryable)
        assert details["success"] + details["failures"] == 40


# --- export ------------------------------------------------------------------------------------


def test_export_joins_the_registry_record_and_refuses_unknown_names(http):
    linked = agent("EX-1", Demographic={**DEMOGRAPHIC, "NiprNumber": "19000001"})
    _post_xml(http, "/producerimport/v1/agents", dump_xml(linked, "Agent"))
    answer = http.post(
        "/producerexport/v1/agents/export",
        json={"profileKey": "EX-1", "dataSets": ["License", "Address"]},
    )
    sets = {s["dataSetType"]: s["records"] for s in answer.json()["dataSets"]}
    assert {r["State"] for r in sets["AgentLicenseDataSet"]} == {"CA", "TX"}
    assert sets["AgentAddressDataSet"][0]["City"] == "Sacramento"
    bad = http.post(
        "/producerexport/v1/agents/export", json={"profileKey": "EX-1", "dataSets": ["Nope"]}
    )
    # Unknown names are not refused (the interface lets a client name any); they are listed.
    assert bad.status_code == 200 and bad.json()["unknownDataSets"] == ["Nope"]
    unknown = http.post(
        "/producerexport/v1/agencies/export", json={"profileKey": "NOPE", "dataSets": ["Firm"]}
    )
    assert unknown.status_code == 404


async def test_client_typed_errors_against_the_real_service(served_sandbox):
    async with RegistryClient(served_sandbox.urls, format="xml") as xml_client:
        found = await xml_client.search_agents({"SearchType": "NPN", "Npn": 19000001})
        assert found.IndividualsSummaryInfo.Individuals[0].LastName == "Sample"
        with pytest.raises(Rejected):
            await xml_client.export_agent({"profileKey": "x", "dataSets": ["Address"]})


async def test_auth_failure_reaches_the_client_as_auth_error(tmp_path, monkeypatch):
    monkeypatch.setenv("SANDBOX_TEST_TOKEN", "t")
    with serve(tmp_path / "auth2.db", "--token-env", "SANDBOX_TEST_TOKEN") as s:
        async with RegistryClient(s.urls) as c:
            with pytest.raises(AuthError):
                await c.get_agent(19000001)


def test_demo_records_do_not_depend_on_the_seed(tmp_path):
    with serve(tmp_path / "seed7.db", "--seed", "7") as s, httpx.Client(base_url=s.url) as c:
        person = c.get("/producerpdbsearch/v1/agent", params={"Npn": 19000001}).json()
        assert person["NiprFullInfo"]["Biographic"]["LastName"] == "Sample"
        firm = c.get("/producerpdbsearch/v1/agency", params={"Npn": 19000002}).json()
        assert firm["NiprFullInfo"]["Biographic"]["FirmName"] == "Sample Risk Partners LLC"


def test_server_exits_nonzero_when_the_port_is_taken(tmp_path):
    with serve(tmp_path / "a.db") as first:
        port = first.url.rsplit(":", 1)[1]
        result = subprocess.run(
            [
                sys.executable,
                "-m",
                "tui_app",
                "sandbox",
                "serve",
                "--port",
                port,
                "--db",
                str(tmp_path / "b.db"),
                "--size",
                "50",
            ],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert result.returncode != 0
        assert "Traceback" not in result.stderr


def test_paths_are_resolved_for_the_db(tmp_path: Path):
    nested = tmp_path / "deep" / "er" / "sb.db"
    with serve(nested):
        assert nested.exists()
