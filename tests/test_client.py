"""The client's behaviour on every path, through httpx.MockTransport (no network)."""

from __future__ import annotations

import json
from collections.abc import Callable

import httpx
import pytest

from tui_app.client.auth import BearerAuth, OAuth2ClientCredentials
from tui_app.client.errors import (
    AuthError,
    BadResponse,
    Conflict,
    InvalidInput,
    NotFound,
    Rejected,
    ServerError,
    Unavailable,
)
from tui_app.client.registry import RegistryClient, RequestLog, RetryPolicy, retry_after
from tui_app.contract.bulk import BulkItem
from tui_app.contract.profile import AgentRecord

BASE = "https://registry.example.test"
URLS = {
    "search": f"{BASE}/producerpdbsearch/v1",
    "transaction": f"{BASE}/producertransaction/v1",
    "import": f"{BASE}/producerimport/v1",
    "bulk": f"{BASE}/bulk/v1",
    "export": f"{BASE}/producerexport/v1",
}
SSN = "000121234"
ORDER = {
    "tlq": {
        "juris": "CA",
        "pType": "I",
        "fType": "A",
        "lType": "M",
        "clientOrderNum": "A1",
        "userId": "u1",
        "filingMode": "E",
    },
    "data": {"firstName": "Avery", "lastName": "Sample", "taxId": SSN, "dateOfBirth": "01/02/1980"},
}
ORDER_RESPONSE = {
    "order": {
        "orderDetails": {"clientOrderNum": "A1", "status": "RECEIVED"},
        "itemDetails": {"juris": "CA"},
    }
}
FULL_RECORD = {"NiprFullInfo": {"Producer": {"Npn": 19000001, "EntityType": "INDIVIDUAL"}}}


class Recorder:
    """A MockTransport handler that answers from a queue and keeps what it was sent."""

    def __init__(self, *answers: httpx.Response | Exception | Callable) -> None:
        self.answers = list(answers)
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        answer = self.answers.pop(0) if len(self.answers) > 1 else self.answers[0]
        if callable(answer) and not isinstance(answer, httpx.Response):
            answer = answer(request)
        if isinstance(answer, Exception):
            raise answer
        return answer


def make_client(handler, *, format="json", log=None, auth=None, attempts=3):
    slept: list[float] = []

    async def sleep(seconds: float) -> None:
        slept.append(seconds)

    client = RegistryClient(
        URLS,
        format=format,
        auth=auth,
        transport=httpx.MockTransport(handler),
        retry=RetryPolicy(attempts=attempts),
        on_request=log,
        sleep=sleep,
    )
    client.slept = slept  # type: ignore[attr-defined]
    return client


def ok(body: dict, status: int = 200) -> httpx.Response:
    return httpx.Response(status, json=body)


async def test_search_sends_validated_json_and_parses_response():
    rec = Recorder(
        ok(
            {
                "IndividualsSummaryInfo": {
                    "Individuals": [
                        {
                            "Npn": 19000001,
                            "FirstName": "Avery",
                            "LastName": "Sample",
                            "SsnLast4": "1234",
                        }
                    ]
                }
            }
        )
    )
    async with make_client(rec) as client:
        result = await client.search_agents(
            {"SearchType": "NAME", "FirstName": "av", "LastName": "sa"}
        )
    assert result.IndividualsSummaryInfo.Individuals[0].Npn == 19000001
    sent = rec.requests[0]
    assert sent.url == f"{BASE}/producerpdbsearch/v1/agent/search"
    assert sent.headers["Content-Type"] == "application/json"
    assert json.loads(sent.content) == {"SearchType": "NAME", "FirstName": "av", "LastName": "sa"}


async def test_invalid_input_is_refused_before_sending():
    rec = Recorder(ok({}))
    async with make_client(rec) as client:
        with pytest.raises(InvalidInput) as info:
            await client.submit_order({**ORDER, "tlq": {**ORDER["tlq"], "juris": "CAL"}})
    assert rec.requests == []
    assert [str(e) for e in info.value.errors] == ["tlq.juris: must be exactly 2 characters, not 3"]


async def test_firm_search_by_npn_is_refused_with_a_clear_message():
    rec = Recorder(ok({}))
    async with make_client(rec) as client:
        with pytest.raises(InvalidInput, match="read a firm by its NPN"):
            await client.search_agencies({"SearchType": "NPN"})
    assert rec.requests == []


async def test_xml_environment_sends_and_reads_xml():
    xml_answer = (
        b"<?xml version='1.0' encoding='UTF-8'?><OrderResponse><order><orderDetails>"
        b"<clientOrderNum>A1</clientOrderNum><status>SUBMITTED</status></orderDetails>"
        b"</order></OrderResponse>"
    )
    rec = Recorder(
        httpx.Response(200, content=xml_answer, headers={"Content-Type": "application/xml"})
    )
    async with make_client(rec, format="xml") as client:
        result = await client.submit_order(ORDER)
    assert result.order.orderDetails.status == "SUBMITTED"
    sent = rec.requests[0]
    assert sent.headers["Content-Type"] == "application/xml"
    assert sent.headers["Accept"] == "application/xml"
    assert b"<Order>" in sent.content and b"<juris>CA</juris>" in sent.content


async def test_import_is_always_xml():
    rec = Recorder(
        httpx.Response(
            200,
            content=b"<ImportResult><Success>false</Success>"
            b"<Validations>Ssn: bad</Validations></ImportResult>",
            headers={"Content-Type": "application/xml"},
        )
    )
    async with make_client(rec) as client:
        result = await client.import_agent(AgentRecord(ProfileKey="K1", Ssn=SSN))
    assert result.Success is False and result.Validations == "Ssn: bad"
    assert rec.requests[0].url.path == "/producerimport/v1/agents"
    assert rec.requests[0].content.startswith(b"<?xml")
    assert b"<Agent>" in rec.requests[0].content


async def test_bulk_submit_sends_ndjson_with_camel_case_keys():
    rec = Recorder(ok({"bulkRequestId": "5b3f8e1e-0000-4000-8000-000000000001"}, 202))
    item = BulkItem.wrap(AgentRecord(ProfileKey="K1", Ssn=SSN))
    async with make_client(rec) as client:
        accepted = await client.bulk_submit(
            [item, item.model_copy(update={"clientRefId": "5b3f8e1e-0000-4000-8000-000000000002"})]
        )
    assert accepted.bulkRequestId.startswith("5b3f8e1e")
    sent = rec.requests[0]
    assert sent.headers["Content-Type"] == "application/x-ndjson"
    lines = sent.content.decode().splitlines()
    assert len(lines) == 2
    assert json.loads(lines[0])["data"]["agent"] == {"profileKey": "K1", "ssn": SSN}


@pytest.mark.parametrize(
    ("status", "error", "words"),
    [
        (401, AuthError, "did not accept the credentials"),
        (403, AuthError, "refused this action"),
        (404, NotFound, "no producer"),
        (409, Conflict, "APPROVED"),
        (413, Rejected, "too large"),
        (500, ServerError, r"failed \(500\)"),
    ],
)
async def test_http_errors_become_typed_errors(status, error, words):
    body = {"message": {404: "no producer with NPN 5", 409: "order A1 is APPROVED"}.get(status)}
    rec = Recorder(ok(body, status))
    async with make_client(rec) as client:
        with pytest.raises(error, match=words):
            await client.submit_order(ORDER)


async def test_rejection_carries_the_servers_field_messages():
    body = {
        "message": "invalid order",
        "errors": [{"path": "data.naicNum", "message": "must contain digits only"}],
    }
    async with make_client(Recorder(ok(body, 400))) as client:
        with pytest.raises(Rejected) as info:
            await client.submit_order(ORDER)
    assert info.value.status == 400
    assert [str(e) for e in info.value.errors] == ["data.naicNum: must contain digits only"]


@pytest.mark.parametrize(
    "answer",
    [
        httpx.Response(200, content=b"<html>gateway</html>"),
        httpx.Response(200, json={"unexpected": True}),
        httpx.Response(200, json={"order": {"orderDetails": {"status": 5}}}),
        httpx.Response(
            200, content=b"<OrderResponse><order>", headers={"Content-Type": "application/xml"}
        ),
    ],
)
async def test_garbage_answers_become_bad_response(answer):
    async with make_client(Recorder(answer)) as client:
        with pytest.raises(BadResponse, match="not a valid OrderResponse"):
            await client.submit_order(ORDER)


async def test_connection_refused_is_unavailable_after_retries_even_for_post():
    rec = Recorder(httpx.ConnectError("refused"))
    async with make_client(rec) as client:
        with pytest.raises(Unavailable, match="cannot reach registry.example.test"):
            await client.submit_order(ORDER)
    assert len(rec.requests) == 3  # never connected, so nothing was received: safe to retry


async def test_read_timeout_of_a_post_is_not_retried():
    rec = Recorder(httpx.ReadTimeout("slow"))
    async with make_client(rec) as client:
        with pytest.raises(Unavailable, match="did not answer within 30 s"):
            await client.submit_order(ORDER)
    assert len(rec.requests) == 1


async def test_read_timeout_of_a_get_is_retried_then_succeeds():
    rec = Recorder(httpx.ReadTimeout("slow"), ok(FULL_RECORD))
    async with make_client(rec) as client:
        record = await client.get_agent(19000001)
    assert record.NiprFullInfo.Producer.Npn == 19000001
    assert len(rec.requests) == 2
    assert rec.requests[1].url.params["Npn"] == "19000001"


async def test_post_500_is_not_retried():
    rec = Recorder(ok({}, 500))
    async with make_client(rec) as client:
        with pytest.raises(ServerError):
            await client.submit_order(ORDER)
    assert len(rec.requests) == 1


async def test_429_honours_retry_after_for_a_post():
    rec = Recorder(httpx.Response(429, headers={"Retry-After": "7"}), ok(ORDER_RESPONSE))
    async with make_client(rec) as client:
        result = await client.submit_order(ORDER)
        assert client.slept == [7.0]
    assert result.order.orderDetails.clientOrderNum == "A1"
    assert len(rec.requests) == 2


async def test_503_retries_until_attempts_run_out():
    rec = Recorder(ok({}, 503))
    async with make_client(rec) as client:
        with pytest.raises(ServerError, match="temporarily unavailable"):
            await client.order_status("A1")
        assert len(client.slept) == 2
    assert len(rec.requests) == 3


async def test_a_long_retry_after_is_not_waited_for():
    rec = Recorder(httpx.Response(429, headers={"Retry-After": "3600"}))
    async with make_client(rec) as client:
        with pytest.raises(Rejected, match="busy"):
            await client.order_status("A1")
        assert client.slept == []


def test_retry_after_reads_seconds_and_http_dates():
    assert retry_after(httpx.Response(429, headers={"Retry-After": "12"})) == 12.0
    assert (
        retry_after(httpx.Response(429, headers={"Retry-After": "Wed, 21 Oct 2015 07:28:00 GMT"}))
        == 0.0
    )
    assert retry_after(httpx.Response(429, headers={"Retry-After": "soon"})) is None
    assert retry_after(httpx.Response(429)) is None


async def test_request_log_never_records_personal_data_or_secrets():
    entries: list[RequestLog] = []
    rec = Recorder(ok(ORDER_RESPONSE))
    async with make_client(rec, log=entries.append, auth=BearerAuth("s3cret-token")) as client:
        await client.submit_order(ORDER)
    assert rec.requests[0].headers["Authorization"] == "Bearer s3cret-token"
    assert len(entries) == 1 and entries[0].status == 200 and entries[0].method == "POST"
    logged = repr(entries)
    for secret in (SSN, "01/02/1980", "s3cret-token", "Avery"):
        assert secret not in logged


async def test_oauth2_fetches_a_token_once_and_refreshes_on_401():
    tokens = iter(["t1", "t2"])
    seen: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/token":
            assert b"client_secret=shh" in request.content
            return ok({"access_token": next(tokens), "expires_in": 3600})
        seen.append(request.headers["Authorization"])
        if request.headers["Authorization"] == "Bearer t1" and len(seen) == 3:
            return ok({}, 401)
        return ok(FULL_RECORD)

    auth = OAuth2ClientCredentials(f"{BASE}/token", "id", "shh")
    async with make_client(handler, auth=auth) as client:
        await client.get_agent(19000001)
        await client.get_agent(19000001)
        await client.get_agent(19000001)
    assert seen == ["Bearer t1", "Bearer t1", "Bearer t1", "Bearer t2"]


async def test_oauth2_refused_credentials_become_auth_error():
    def handler(request: httpx.Request) -> httpx.Response:
        return ok({"error": "invalid_client"}, 401)

    auth = OAuth2ClientCredentials(f"{BASE}/token", "id", "wrong")
    async with make_client(handler, auth=auth) as client:
        with pytest.raises(AuthError, match="token service refused"):
            await client.get_agent(19000001)


async def test_ping_reports_reachable_even_on_404_and_auth_failures_as_auth_error():
    async with make_client(Recorder(ok({}, 404))) as client:
        assert await client.ping() >= 0
    async with make_client(Recorder(ok({}, 401))) as client:
        with pytest.raises(AuthError):
            await client.ping()
    async with make_client(Recorder(httpx.ConnectError("down"))) as client:
        with pytest.raises(Unavailable):
            await client.ping()


async def test_every_endpoint_uses_its_groups_url():
    answers = {
        "/producerpdbsearch/v1/agency/search": {"NiprFirmsSummaryInfo": {"Firms": []}},
        "/producerpdbsearch/v1/agency": FULL_RECORD,
        "/producertransaction/v1/order/status": ORDER_RESPONSE,
        "/producerimport/v1/agencies": None,
        "/bulk/v1/status/abc": {"bulkRequestId": "abc", "processingStatus": "PENDING"},
        "/producerexport/v1/agents/export": {"dataSets": []},
        "/producerexport/v1/agencies/export": {"dataSets": None},
    }

    def handler(request: httpx.Request) -> httpx.Response:
        body = answers[request.url.path]
        if body is None:
            return httpx.Response(
                200,
                content=b"<ImportResult><Success>true</Success></ImportResult>",
                headers={"Content-Type": "text/xml"},
            )
        return ok(body)

    async with make_client(handler) as client:
        await client.search_agencies(
            {"SearchType": "LICENSE", "LicenseJurisdiction": "CA", "LicenseNumber": "0K19002"}
        )
        await client.get_agency(19000002, cost_center="CC1")
        await client.order_status("A1")
        assert (await client.import_agency({"ProfileKey": "K", "Tin": "000000001"})).Success
        assert (await client.bulk_status("abc")).processingStatus == "PENDING"
        await client.export_agent({"profileKey": "K", "dataSets": ["Address"]})
        await client.export_agency({"profileKey": "K", "dataSets": ["Firm"]})
