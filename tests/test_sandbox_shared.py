"""A sandbox a team can share (issue 13): bounded, consistent, one error shape, safe auth,
a true OpenAPI document and clear start-up errors. Each test names the item it proves."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
import uuid
from pathlib import Path

import httpx
import pytest
from sandbox_server import serve

from tui_app.client.errors import BadResponse, Rejected
from tui_app.client.registry import RegistryClient
from tui_app.contract.bulk import BulkItem
from tui_app.contract.profile import AgentRecord
from tui_app.sandbox.app import Gate, Sandbox, SandboxSettings, create_app
from tui_app.sandbox.synthetic import demo_order
from tui_app.wire.errors import WireError
from tui_app.wire.json import load_json_value
from tui_app.wire.xml import MAX_DEPTH, load_xml_dict, xml_problems

MIB = 1024 * 1024
ADDRESS = {"City": "Sacramento", "State": "CA", "StreetAddress1": "1 Main St", "Zip": "95814"}
DEMOGRAPHIC = {"EmpStatus": "7040", "FirstName": "Rowan", "LastName": "Tester"}


def agent(key: str, ssn: str = "000450001", **demographic) -> AgentRecord:
    return AgentRecord.model_validate(
        {
            "ProfileKey": key,
            "Ssn": ssn,
            "BusinessAddress": ADDRESS,
            "Demographic": {**DEMOGRAPHIC, **demographic},
        }
    )


def ndjson(lines: list) -> bytes:
    return b"".join((x if isinstance(x, bytes) else json.dumps(x).encode()) + b"\n" for x in lines)


def wait_complete(http: httpx.Client, job: str) -> dict:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        status = http.get(f"/bulk/v1/status/{job}").json()
        if status["processingStatus"] == "COMPLETE":
            return status
        time.sleep(0.05)
    raise AssertionError(f"bulk request {job} did not complete")


def vm_hwm(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024
    raise AssertionError("no VmHWM")


SERVE_ARGS = ("--max-bulk-records", "50")
"""Of ``served_sandbox`` (tests/conftest.py)."""


@pytest.fixture
def http(served_sandbox):
    with httpx.Client(base_url=served_sandbox.url, timeout=30) as c:
        yield c


# --- 1. the body limit is counted while reading --------------------------------------------


def chunked_post(url: str, path: str, content_type: str, total: int) -> tuple[int, bytes]:
    """POST ``total`` bytes chunked over a raw socket, stopping when the server answers or
    closes; the status line and body of the answer."""
    host, port = url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=30) as sock:
        sock.sendall(
            f"POST {path} HTTP/1.1\r\nHost: x\r\nContent-Type: {content_type}\r\n"
            f"Transfer-Encoding: chunked\r\n\r\n".encode()
        )
        piece = b" " * 65536
        chunk = f"{len(piece):x}\r\n".encode() + piece + b"\r\n"
        sent = 0
        try:
            while sent < total:
                sock.sendall(chunk)
                sent += len(piece)
            sock.sendall(b"0\r\n\r\n")
        except OSError:
            pass  # the server stopped reading: its answer is waiting
        answer = b""
        try:
            while b"\r\n\r\n" not in answer or not answer.rstrip().endswith(b"}"):
                data = sock.recv(65536)
                if not data:
                    break
                answer += data
        except OSError:
            pass
    head, _, body = answer.partition(b"\r\n\r\n")
    return int(head.split()[1]), body


@pytest.mark.parametrize(
    ("path", "content_type"),
    [
        ("/producerpdbsearch/v1/agent/search", "application/json"),
        ("/producerimport/v1/agents", "application/xml"),
        ("/bulk/v1/profile", "application/x-ndjson"),
        ("/producerexport/v1/agencies/export", "application/xml"),
    ],
)
def test_1_chunked_bodies_over_the_limit_get_413_on_every_route(served_sandbox, path, content_type):
    status, body = chunked_post(served_sandbox.url, path, content_type, 20 * MIB)
    assert status == 413
    assert "larger than" in json.loads(body)["message"]


def test_1_declared_length_over_the_limit_gets_413(http):
    huge = b" " * (16 * MIB + 1)
    answer = http.post(
        "/producertransaction/v1/order", content=huge, headers={"Content-Type": "application/json"}
    )
    assert answer.status_code == 413


def test_1_memory_stays_flat_under_a_large_chunked_body(served_sandbox):
    before = vm_hwm(served_sandbox.process.pid)
    status, _ = chunked_post(
        served_sandbox.url, "/producerpdbsearch/v1/agent/search", "application/json", 96 * MIB
    )
    assert status == 413
    # The old server read the whole body first: 96 MiB and more on top.
    assert vm_hwm(served_sandbox.process.pid) - before < 32 * MIB


def post_scope(path: str, content_type: str) -> dict:
    """The ASGI scope of a POST to ``path``, for calling the app directly."""
    return {
        "type": "http",
        "method": "POST",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "headers": [(b"content-type", content_type.encode())],
        "http_version": "1.1",
        "scheme": "http",
        "server": ("t", 80),
        "client": ("c", 1),
        "root_path": "",
    }


async def test_1_the_gate_stops_reading_at_the_limit(tmp_path):
    sandbox = Sandbox(SandboxSettings(db_path=tmp_path / "gate.db", max_body=1000))
    app = create_app(sandbox, manage=False)
    reads = 0

    async def receive():
        nonlocal reads
        reads += 1
        return {"type": "http.request", "body": b" " * 100, "more_body": reads < 50}

    sent = []

    async def send(message):
        sent.append(message)

    await app(post_scope("/producerpdbsearch/v1/agent/search", "application/json"), receive, send)
    assert sent[0]["status"] == 413
    assert reads == 11  # 1,100 bytes: one read past the limit, not one more
    assert isinstance(app.user_middleware[0].cls, type) and app.user_middleware[0].cls is Gate
    sandbox.db.close()


@pytest.mark.parametrize("web_docs", [True, False])
async def test_1_a_client_gone_mid_body_ends_its_request_quietly(tmp_path, web_docs):
    # QA: a bulk submit cut off by Ctrl-C printed three "Exception in ASGI application"
    # tracebacks (ClientDisconnect) in the served sandbox's log.
    sandbox = Sandbox(SandboxSettings(db_path=tmp_path / "gone.db"))
    app = create_app(sandbox, manage=False, web_docs=web_docs)
    messages = iter([{"type": "http.request", "body": b"{", "more_body": True}])

    async def receive():
        return next(messages, {"type": "http.disconnect"})

    sent = []

    async def send(message):
        sent.append(message)

    await app(post_scope("/bulk/v1/profile", "application/x-ndjson"), receive, send)  # raised
    assert sent == []  # no one to answer
    sandbox.db.close()


# --- 2. records per bulk request are capped -------------------------------------------------


def test_2_bulk_requests_over_the_record_cap_get_413_saying_the_limit(http):
    lines = [BulkItem.wrap(agent(f"CAP-{i}", f"00047{i:04d}")).to_line() for i in range(51)]
    answer = http.post(
        "/bulk/v1/profile", content=ndjson(lines), headers={"Content-Type": "application/x-ndjson"}
    )
    assert answer.status_code == 413
    assert "50" in answer.json()["message"]
    answer = http.post(
        "/bulk/v1/profile",
        content=ndjson(lines[:50]),
        headers={"Content-Type": "application/x-ndjson"},
    )
    assert answer.status_code == 202
    status = wait_complete(http, answer.json()["bulkRequestId"])
    assert status["operationDetails"]["totalItems"] == 50


def test_2_the_default_cap_is_1000(tmp_path):
    settings = SandboxSettings(db_path=tmp_path / "cap.db")
    assert settings.max_bulk_records == 1000
    sandbox = Sandbox(settings)
    body = ndjson([{"clientRefId": str(uuid.uuid4()), "data": {"agent": {}}} for _ in range(1001)])
    from tui_app.sandbox.bulk import TooManyRecords

    with pytest.raises(TooManyRecords, match="1,000"):
        sandbox.bulk.accept(body, settings.max_bulk_records)
    sandbox.db.close()


# --- 3. nesting depth and element count are bounded, both sides ----------------------------


def test_3_deep_or_huge_xml_is_a_clear_400(http):
    deep = b"<Agent>" + b"<a>" * 1000 + b"</a>" * 1000 + b"</Agent>"
    answer = http.post(
        "/producerimport/v1/agents", content=deep, headers={"Content-Type": "application/xml"}
    )
    assert answer.status_code == 400
    assert "nested deeper" in answer.json()["message"]
    many = b"<Agent><DynamicData>" + b"<a/>" * 200_000 + b"</DynamicData></Agent>"
    answer = http.post(
        "/producerimport/v1/agents", content=many, headers={"Content-Type": "application/xml"}
    )
    assert answer.status_code == 400
    assert "elements" in answer.json()["message"]
    deep_json = b"[" * 100_000 + b"]" * 100_000
    answer = http.post(
        "/producerpdbsearch/v1/agent/search",
        content=deep_json,
        headers={"Content-Type": "application/json"},
    )
    assert answer.status_code == 400


def test_3_json_with_millions_of_values_is_refused_before_it_is_parsed(served_sandbox, http):
    before = vm_hwm(served_sandbox.process.pid)
    body = (
        json.dumps(demo_order("MANY1"))
        .replace('"niprNoReq"', '"loa": [' + ",".join(['""'] * 5_000_000) + '], "niprNoReq"')
        .encode()
    )
    answer = http.post(
        "/producertransaction/v1/order", content=body, headers={"Content-Type": "application/json"}
    )
    assert answer.status_code == 400 and "values" in answer.json()["message"]
    line = BulkItem.wrap(agent("MANY-2")).to_line()
    line["data"]["agent"]["businessAddress"]["dynamicData"] = {"a": [0] * 5_000_000}
    answer = http.post(
        "/bulk/v1/profile", content=ndjson([line]), headers={"Content-Type": "application/x-ndjson"}
    )
    assert answer.status_code == 400
    assert answer.json()["errors"][0]["path"] == "line 1"
    assert "values" in answer.json()["errors"][0]["message"]
    # The old server turned each into millions of Python objects: over a gigabyte.
    assert vm_hwm(served_sandbox.process.pid) - before < 64 * MIB


def test_3_the_wire_layer_refuses_depth_before_recursing():
    with pytest.raises(WireError, match="nested deeper"):
        load_xml_dict(b"<a>" * 100_000 + b"</a>" * 100_000)
    assert load_xml_dict(b"<a>" * MAX_DEPTH + b"x" + b"</a>" * MAX_DEPTH)[0] == "a"
    with pytest.raises(WireError, match="not valid JSON"):
        load_json_value(b"[" * 100_000 + b"]" * 100_000)
    with pytest.raises(WireError, match="values"):
        load_json_value(b"[" + b"0," * 200_000 + b"0]")
    assert len(load_json_value(b"[" + b"0," * 1000 + b"0]")) == 1001


async def test_3_the_client_turns_deep_bodies_into_typed_errors():
    deep_json = b'{"message":' + b"[" * 100_000 + b"]" * 100_000 + b"}"
    deep_xml = b"<FullRecordResponse>" + b"<a>" * 5000 + b"</a>" * 5000 + b"</FullRecordResponse>"

    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("/search"):
            return httpx.Response(
                400, content=deep_json, headers={"Content-Type": "application/json"}
            )
        return httpx.Response(200, content=deep_xml, headers={"Content-Type": "application/xml"})

    base = "https://registry.example.test"
    urls = {g: f"{base}/{g}" for g in ("search", "transaction", "import", "bulk", "export")}
    async with RegistryClient(urls, transport=httpx.MockTransport(handler)) as client:
        with pytest.raises(Rejected):
            await client.search_agents({"SearchType": "NPN", "Npn": 19000001})
        with pytest.raises(BadResponse, match="nested deeper"):
            await client.get_agent(19000001)


# --- 4. what XML cannot carry is refused at input -----------------------------------------


def test_4_control_characters_through_json_are_refused_naming_the_field(http):
    answer = http.post(
        "/producertransaction/v1/order", json=demo_order("CTRL1", lastName="Sam\x01")
    )
    assert answer.status_code == 400
    assert [e["path"] for e in answer.json()["errors"]] == ["data.lastName"]
    assert "XML cannot carry" in answer.json()["errors"][0]["message"]
    # Nothing was stored: the order is unknown, and its XML read is not a 500.
    status = http.get(
        "/producertransaction/v1/order/status",
        params={"order_num": "CTRL1"},
        headers={"Accept": "application/xml"},
    )
    assert status.status_code == 404
    answer = http.post(
        "/producerpdbsearch/v1/agent/search",
        json={"SearchType": "NAME", "FirstName": "A\x02", "LastName": "B"},
    )
    assert answer.status_code == 400 and answer.json()["errors"][0]["path"] == "FirstName"


def test_4_bulk_records_xml_cannot_carry_fail_naming_the_field_and_xml_reads_work(http):
    bad_text = BulkItem.wrap(agent("CTRL-A", "000480001", FirstName="Ro\x01wan")).to_line()
    bad_key = BulkItem.wrap(agent("CTRL-B", "000480002")).to_line()
    bad_key["data"]["agent"]["businessAddress"]["dynamicData"] = {"1 bad key": "x"}
    good = BulkItem.wrap(agent("CTRL-C", "000480003")).to_line()
    answer = http.post(
        "/bulk/v1/profile",
        content=ndjson([bad_text, bad_key, good]),
        headers={"Content-Type": "application/x-ndjson"},
    )
    assert answer.status_code == 202
    items = {
        i["clientRefId"]: i
        for i in wait_complete(http, answer.json()["bulkRequestId"])["operationDetails"][
            "requestItems"
        ]
    }
    text_error = items[bad_text["clientRefId"]]
    assert text_error["status"] == "FAILED"
    assert any("data.agent.demographic.firstName" in m for m in text_error["errorMessage"])
    assert items[bad_key["clientRefId"]]["status"] == "FAILED"
    assert items[good["clientRefId"]]["status"] == "COMPLETED"
    for key in ("CTRL-A", "CTRL-B", "CTRL-C"):
        exported = http.post(
            "/producerexport/v1/agents/export",
            json={"profileKey": key, "dataSets": ["Demographic", "Address"]},
            headers={"Accept": "application/xml"},
        )
        assert exported.status_code == (200 if key == "CTRL-C" else 404)


def test_4_xml_problems_names_every_path():
    found = xml_problems({"a": "x\x01", "b": [{"1k": "y"}], "c": "\ufffe", "d": "fine"})
    assert [p for p, _ in found] == ["a", "b[0].1k", "c"]


# --- 5. one error shape, 400 for every validation failure --------------------------------


@pytest.mark.parametrize(
    ("method", "path", "params", "status", "paths"),
    [
        ("GET", "/producerpdbsearch/v1/agent", {}, 400, ["Npn"]),
        ("GET", "/producerpdbsearch/v1/agency", {"Npn": "abc"}, 400, ["Npn"]),
        (
            "GET",
            "/producerpdbsearch/v1/agent",
            {"Npn": "19000001", "CostCenter": "x" * 51},
            400,
            ["CostCenter"],
        ),
        ("GET", "/producerpdbsearch/v1/agent", {"Npn": "19000001", "Nope": "1"}, 400, ["Nope"]),
        (
            "GET",
            "/producertransaction/v1/order/status",
            {"order_num": "x" * 21},
            400,
            ["order_num"],
        ),
        ("GET", "/bulk/v1/status/not-a-uuid", {}, 400, ["bulkRequestId"]),
        ("POST", "/bulk/v1/orders", {}, 400, ["itemType"]),
        ("GET", "/producerpdbsearch/v1/nothing", {}, 404, []),
        ("DELETE", "/producerpdbsearch/v1/agent", {}, 405, []),
    ],
)
def test_5_every_error_has_one_shape(http, method, path, params, status, paths):
    answer = http.request(method, path, params=params)
    assert answer.status_code == status
    body = answer.json()
    assert set(body) == {"message", "errors"} and isinstance(body["message"], str)
    assert [e["path"] for e in body["errors"]] == paths
    assert all(set(e) == {"path", "message"} for e in body["errors"])


# --- 6. the token comes from the environment -----------------------------------------------


def test_6_token_from_environment_any_scheme_case_and_docs_behind_it(tmp_path, monkeypatch):
    monkeypatch.setenv("SHARED_SANDBOX_TOKEN", "s3cret")
    with (
        serve(tmp_path / "auth.db", "--token-env", "SHARED_SANDBOX_TOKEN") as s,
        httpx.Client(base_url=s.url) as c,
    ):
        assert "s3cret" not in " ".join(s.process.args)
        params = {"Npn": 19000001}
        for scheme in ("Bearer", "bearer", "BEARER"):
            found = c.get(
                "/producerpdbsearch/v1/agent",
                params=params,
                headers={"Authorization": f"{scheme} s3cret"},
            )
            assert found.status_code == 200
        for header in ("Bearer s3cre", "Basic s3cret", "Bearer", "s3cret"):
            answer = c.get(
                "/producerpdbsearch/v1/agent", params=params, headers={"Authorization": header}
            )
            assert answer.status_code == 401
        for path in ("/docs", "/redoc", "/openapi.json"):
            assert c.get(path).status_code == 401
        right = {"Authorization": "Bearer s3cret"}
        assert c.get("/openapi.json", headers=right).status_code == 200
        assert c.get("/docs", headers=right).status_code == 404  # off: it cannot send a token


def run_serve(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "tui_app", "sandbox", "serve", "--port", "0", "--size", "50", *args],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )


def test_6_an_empty_or_missing_token_and_the_old_option_are_refused(tmp_path):
    import os

    for env in ({"SHARED_T": ""}, {"SHARED_T": "  "}, {}):
        result = run_serve(
            "--db", str(tmp_path / "t.db"), "--token-env", "SHARED_T", env={**os.environ, **env}
        )
        assert result.returncode == 2
        assert "SHARED_T" in result.stderr and "Traceback" not in result.stderr
    result = run_serve("--db", str(tmp_path / "t.db"), "--token", "visible")
    assert result.returncode == 2 and "--token-env" in result.stderr


# --- 7. the published document is true ----------------------------------------------------


def test_7_openapi_lists_every_status_bound_and_media_type(http):
    doc = http.get("/openapi.json").json()
    ops = {(m, p): op for p, item in doc["paths"].items() for m, op in item.items()}
    assert len(ops) == 12
    for (_method, path), op in ops.items():
        codes = set(op["responses"])
        assert "422" not in codes, path
        assert {"400", "401", "500"} <= codes, path
        assert op["responses"]["400"]["content"]["application/json"]["schema"] == {
            "$ref": "#/components/schemas/Error"
        }
    search = ops[("post", "/producerpdbsearch/v1/agent/search")]
    xml = search["requestBody"]["content"]["application/xml"]["schema"]
    assert xml["xml"]["name"] == "AgentSearch"
    assert {"413", "415"} <= set(search["responses"])
    agent_params = {p["name"]: p for p in ops[("get", "/producerpdbsearch/v1/agent")]["parameters"]}
    assert agent_params["Npn"]["required"] is True
    assert agent_params["Npn"]["schema"]["maximum"] == 2**31 - 1
    assert agent_params["CostCenter"]["schema"]["maxLength"] == 50
    status = ops[("get", "/producertransaction/v1/order/status")]["parameters"][0]
    assert status["schema"]["maxLength"] == 20
    bulk = ops[("post", "/bulk/v1/{itemType}")]
    assert bulk["parameters"][0]["schema"]["enum"] == ["profile"]
    assert bulk["requestBody"]["content"]["application/x-ndjson"]["schema"]["maxItems"] == 50
    assert set(bulk["responses"]) >= {"202", "400", "413", "415"}
    order = ops[("post", "/producertransaction/v1/order")]
    assert {"200", "201", "409"} <= set(order["responses"])
    imports = ops[("post", "/producerimport/v1/agents")]
    assert set(imports["responses"]["200"]["content"]) == {"application/xml"}
    schemas = doc["components"]["schemas"]
    assert schemas["Tlq"]["properties"]["clientOrderNum"]["maxLength"] == 20
    text = json.dumps(doc)
    assert '"ge":' not in text and '"le":' not in text


# --- 8. bad start-up input: one line, exit 2 ------------------------------------------------


def test_8_bad_db_or_import_rules_is_one_line_and_exit_2(tmp_path):
    not_sqlite = tmp_path / "notes.txt"
    not_sqlite.write_text("these are not the tables you are looking for\n" * 100)
    a_file = tmp_path / "file"
    a_file.write_text("x")
    cases = [
        (["--db", str(tmp_path)], "folder"),
        (["--db", str(not_sqlite)], "not a SQLite database"),
        (["--db", "/proc/sb.db"], "--db"),  # a read-only folder, even for root
        (["--db", str(a_file / "sb.db")], "--db"),
        (
            ["--db", str(tmp_path / "ok.db"), "--import-rules", str(tmp_path / "missing.toml")],
            "--import-rules",
        ),
    ]
    for args, words in cases:
        result = run_serve(*args)
        assert result.returncode == 2, (args, result.stderr)
        assert "Traceback" not in result.stderr
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and words in lines[0], (args, result.stderr)
    assert not_sqlite.read_text().startswith("these are")


def test_serving_for_a_process_that_is_not_running_is_refused_in_a_line(tmp_path, capsys):
    # QA: `sandbox serve --stop-with 999999` printed an OSError traceback.
    from tui_app.cli import main

    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    args = ["sandbox", "serve", "--db", str(tmp_path / "s.db"), "--port", "0"]
    assert main([*args, "--stop-with", str(gone.pid)]) == 2
    err = capsys.readouterr().err
    assert err.endswith(f"--stop-with: no process {gone.pid} is running\n")
    assert "Traceback" not in err
