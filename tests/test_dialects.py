"""Issue 10: the client against both sandbox dialects, and the minimal dialect itself.

The ``served_sandbox`` fixture is started once per dialect (tests/conftest.py), so every
test taking it runs against "native" and "minimal".
"""

from __future__ import annotations

import asyncio
import json
import time

import httpx
import pytest
from sandbox_server import serve

from tui_app.client.registry import RegistryClient
from tui_app.config import Environment
from tui_app.contract.bulk import BulkItem
from tui_app.contract.order import FINAL_STATUSES
from tui_app.sandbox.dialect import XML_ROOTS, rewrite, wrap
from tui_app.sandbox.synthetic import demo_order

SSN = "000121234"


def order(num: str, juris: str = "AS") -> dict:
    return demo_order(num, juris, dateOfBirth="1980-01-31")


SERVE_ARGS = ("--step-seconds", "0.2")
"""Of ``served_sandbox`` (tests/conftest.py)."""


@pytest.fixture
async def client(served_sandbox):
    server = served_sandbox
    async with RegistryClient(server.urls, timeout=10) as c:
        yield c


async def test_search_and_full_record_read_in_either_dialect(client, served_sandbox):
    dialect = served_sandbox.dialect
    found = await client.search_agents(
        {"SearchType": "NAME", "FirstName": "Avery", "LastName": "Sample"}
    )
    [hit] = found.IndividualsSummaryInfo.Individuals
    assert hit.Npn == 19000001 and hit.LastName == "Sample"
    info = (await client.get_agent(hit.Npn)).NiprFullInfo
    assert info.Biographic.LastName == "Sample"
    expires = info.LicenseData.Licenses[0].ExpirationDate
    if dialect == "minimal":
        assert info.Producer.EntityType is None and "ReportSource" in info.model_extra
        assert hit.model_extra == {"SandboxHitId": "hit-19000001"}
        assert expires[4] == "-"  # another date format: ISO
    else:
        assert info.Producer.EntityType == "INDIVIDUAL" and info.model_extra == {}
        assert expires[2] == "/"


async def test_firm_search_by_ssn_finds_the_firm_by_its_fein_digits(client):
    # Issue 10, item 6, in both dialects.
    found = await client.search_agencies({"SearchType": "SSN", "FirmFein": "00-0000001"})
    [firm] = found.NiprFirmsSummaryInfo.Firms
    assert firm.Npn == 19000002 and firm.FirmName == "Sample Risk Partners LLC"
    assert (await client.get_agency(firm.Npn)).NiprFullInfo.Biographic.Fein == "000000001"


async def test_firm_search_by_npn_is_answered_400_saying_where_the_number_goes(client):
    from tui_app.client.errors import Rejected

    with pytest.raises(Rejected, match=r"GET /producerpdbsearch/v1/agency\?Npn="):
        await client.search_agencies({"SearchType": "NPN"})


async def wait_final(client: RegistryClient, num: str) -> str:
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        status = (await client.order_status(num)).order.orderDetails.status
        if status in FINAL_STATUSES:
            return status
        await asyncio.sleep(0.1)
    raise AssertionError(f"order {num} never became final")


async def test_posting_a_final_orders_number_again_updates_it(client, served_sandbox):
    # Issue 10, item 7: interface rule 2 states no exception for final orders.
    dialect = served_sandbox.dialect
    num = f"FIN{dialect[:3].upper()}1"
    await client.submit_order(order(num))
    final = await wait_final(client, num)
    again = (await client.submit_order(order(num))).order.orderDetails
    assert again.status == "RECEIVED"
    assert f"order {num} was updated (it was {final}, a final status" in again.message
    if dialect == "native":
        assert again.updated is True
    else:
        assert again.model_extra["gatewayRef"]["updatedExisting"] is True


async def test_an_order_date_typed_iso_is_filed_as_mm_dd_yyyy(client, served_sandbox):
    num = f"DATE{served_sandbox.dialect[:3].upper()}"
    filed = (await client.submit_order(order(num, "CA"))).order
    assert filed.itemDetails["dateOfBirth"] == "01/31/1980"


async def test_bulk_status_of_an_all_failed_request_is_read(client, served_sandbox):
    # Issue 10, item 3: the minimal dialect says FAILED, the native one FAILURE.
    dialect = served_sandbox.dialect
    bad = BulkItem.model_validate(
        {
            "clientRefId": "3f2504e0-4f89-11d3-9a0c-0305e82c3301",
            "data": {"agency": {"profileKey": "F-1", "tin": "1"}},
        }
    )
    accepted = await client.bulk_submit([bad])
    deadline = time.monotonic() + 20
    while not (status := await client.bulk_status(accepted.bulkRequestId)).complete:
        assert time.monotonic() < deadline, "the bulk request never completed"
        assert status.processingStatus in (
            ("IN_PROGRESS",) if dialect == "minimal" else ("PENDING", "PROCESSING")
        )
        await asyncio.sleep(0.05)
    assert status.operationDetails.status == ("FAILED" if dialect == "minimal" else "FAILURE")
    assert [i.status for i in status.operationDetails.requestItems] == ["FAILED"]
    assert status.problems() == []


async def test_import_answer_is_read_whatever_its_xml_root(client, served_sandbox):
    record = {
        "ProfileKey": "DIA-1",
        "Ssn": "900000001",
        "Demographic": {"EmpStatus": 7040, "FirstName": "A", "LastName": "B"},
        "BusinessAddress": {"City": "X", "State": "CA", "StreetAddress1": "1", "Zip": "1"},
        "PrimaryAddress": {"City": "X", "State": "CA", "StreetAddress1": "1", "Zip": "1"},
    }
    result = await client.import_agent(record)
    assert result.Success is True, result.Validations


async def test_export_names_by_type_and_unknown_names_in_either_dialect(client, served_sandbox):
    # Issue 10, item 4: the interface's type names are accepted; the sandbox answers the
    # names it does not know in a member of its own.
    dialect = served_sandbox.dialect
    firm = {
        "ProfileKey": "EXP-1",
        "Tin": "000000001",
        "Demographic": {"FirmName": "Sample Risk Partners LLC", "Status": "7040"},
        "BusinessAddress": {"City": "X", "State": "CA", "StreetAddress1": "1", "Zip": "1"},
    }
    assert (await client.import_agency(firm)).Success
    found = await client.export_agency(
        {"profileKey": "EXP-1", "dataSets": ["FirmFirmDataSet", "Address", "Bogus"]}
    )
    assert [d.dataSetType for d in found.dataSets] == ["FirmFirmDataSet", "FirmAddressDataSet"]
    assert found.model_extra["unknownDataSets"] == ["Bogus"]
    if dialect == "minimal":
        assert found.model_extra["exportedBy"] == {"system": "sandbox-minimal"}


# --- the minimal dialect on its own ------------------------------------------------------


def test_minimal_rewrites_words_dates_roots_and_empty_lists():
    status = {
        "bulkRequestId": "b",
        "processingStatus": "PROCESSING",
        "operationDetails": {
            "status": None,
            "requestItems": [{"clientRefId": "r", "status": "PENDING", "errorMessage": []}],
        },
    }
    out = json.loads(rewrite("/bulk/v1/status/b", "application/json", json.dumps(status).encode()))
    assert out["processingStatus"] == "IN_PROGRESS"
    assert out["operationDetails"]["requestItems"][0] == {
        "clientRefId": "r",
        "status": "IN_PROGRESS",
        "errorMessage": None,
    }
    record = {
        "NiprFullInfo": {
            "Producer": {"Npn": 1, "EntityType": "FIRM"},
            "Organization": [],
            "LicenseData": {"Licenses": [{"ExpirationDate": "05/31/2027"}]},
        }
    }
    out = json.loads(
        rewrite("/producerpdbsearch/v1/agency", "application/json", json.dumps(record).encode())
    )["NiprFullInfo"]
    assert out["Producer"] == {"Npn": 1} and out["Organization"] is None
    assert out["LicenseData"]["Licenses"][0]["ExpirationDate"] == "2027-05-31"
    xml = b"<?xml version='1.0'?><ImportResult><Success>true</Success></ImportResult>"
    assert rewrite("/producerimport/v1/agents", "application/xml", xml) == (
        b"<?xml version='1.0'?><ImportResponse><Success>true</Success></ImportResponse>"
    )
    assert XML_ROOTS["ImportResult"] == "ImportResponse"
    assert rewrite("/x", "text/plain", b"[]") == b"[]"


def test_an_unknown_dialect_is_refused():
    with pytest.raises(ValueError, match="unknown dialect"):
        wrap(object(), "fancy")  # type: ignore[arg-type]


def test_dialect_is_a_setting_of_the_embedded_environment_only():
    assert Environment(embedded=True, dialect="minimal").dialect == "minimal"
    with pytest.raises(ValueError, match="dialect is a setting of the embedded sandbox"):
        Environment(base_url="https://x.example.test", dialect="minimal")


async def test_the_embedded_sandbox_answers_in_its_environments_dialect():
    from tui_app.client.factory import connect

    connection = await connect(Environment(embedded=True, dialect="minimal"))
    try:
        info = (await connection.client.get_agency(19000002)).NiprFullInfo
    finally:
        await connection.aclose()
    assert info.Producer.EntityType is None
    assert info.model_extra["ReportSource"]["System"] == "sandbox-minimal"


def test_served_minimal_dialect_over_http(tmp_path):
    with (
        serve(tmp_path / "m.db", "--dialect", "minimal") as server,
        httpx.Client(base_url=server.url, timeout=10) as http,
    ):
        body = http.get("/producerpdbsearch/v1/agent", params={"Npn": 19000001}).json()
        xml = http.get(
            "/producerpdbsearch/v1/agent",
            params={"Npn": 19000001},
            headers={"Accept": "application/xml"},
        )
    assert "EntityType" not in body["NiprFullInfo"]["Producer"]
    assert body["NiprFullInfo"]["ReportSource"]["System"] == "sandbox-minimal"
    assert xml.content.lstrip().startswith(b"<?xml") and b"<NiprReport>" in xml.content
