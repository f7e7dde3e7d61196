"""The shell commands (issue 11) against the served sandbox, in both dialects: success,
refusal, unreachable service and bad input, with their exit codes (0 done, 1 refused or
failed, 2 bad usage or local input and nothing sent, 3 unreachable or unreadable), and
``--format json`` output that round-trips to its contract model."""

from __future__ import annotations

import csv
import io
import json
import re
import shutil
import subprocess
import sys
import threading
import time
from contextlib import redirect_stderr, redirect_stdout
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from bulk_support import write_served_config
from sandbox_server import DIALECTS, serve

from tui_app.cli import _parser, main
from tui_app.contract.export import ExportResponse
from tui_app.contract.order import OrderResponse
from tui_app.contract.profile import AgentRecord, ImportResult
from tui_app.contract.record import FullRecordResponse
from tui_app.contract.search import AgencySearchResponse, AgentSearchResponse
from tui_app.export_files import profile_line, profile_xml
from tui_app.tracking import TrackedOrder
from tui_app.ui import scenes
from tui_app.wire.xml import load_xml

DEMO_AGENT, DEMO_FIRM, DEMO_SSN = "19000001", "19000002", "000121234"


@pytest.fixture(scope="module", params=DIALECTS)
def server(request, tmp_path_factory):
    """One served sandbox per dialect for the whole module; orders move every 50 ms."""
    db = tmp_path_factory.mktemp("shell-sandbox") / "sandbox.db"
    with serve(db, "--dialect", request.param, "--step-seconds", "0.05") as sandbox:
        yield sandbox


@pytest.fixture
def served(server, config_file: Path):
    write_served_config(config_file, server.url)
    return server


@pytest.fixture
def unreachable(config_file: Path):
    """A config whose service is a closed port: nothing answers."""
    write_served_config(config_file, "http://127.0.0.1:9")


def run(capsys, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return code, out, err


def order_file(
    tmp_path: Path,
    num: str,
    juris: str = "AS",
    npn: str | None = None,
    name: str = "order.json",
    **tlq,
) -> Path:
    data = {"firstName": "Avery", "lastName": "Sample", "taxId": DEMO_SSN, "loa": ["Life"]}
    if npn:
        data["niprNoReq"] = npn
    order = {
        "tlq": {
            "juris": juris,
            "pType": "I",
            "fType": "A",
            "lType": "M",
            "clientOrderNum": num,
            "userId": "u1",
            "filingMode": "E",
            **tlq,
        },
        "data": data,
    }
    path = tmp_path / name
    path.write_text(json.dumps(order), encoding="utf-8")
    return path


def agent_xml(tmp_path: Path, key: str, full: bool = True) -> Path:
    record = {"ProfileKey": key, "Ssn": "900000001"}
    if full:
        record |= {
            "BusinessAddress": {
                "StreetAddress1": "1 Main St",
                "City": "Austin",
                "State": "TX",
                "Zip": "73301",
            },
            "Demographic": {
                "EmpStatus": "7040",
                "FirstName": "Ada",
                "LastName": "Lane",
                "DateOfBirth": "1980-02-03T00:00:00",
                "NiprNumber": DEMO_AGENT,
            },
        }
    path = tmp_path / f"{key}.xml"
    path.write_bytes(profile_xml("agent", record))
    return path


# --- help and imports --------------------------------------------------------------------


def test_the_shell_modules_import_no_ui_library():
    modules = [
        f"tui_app.shell.{m}" for m in ("output", "search", "record", "order", "profile", "export")
    ]
    code = f"import json, sys, {', '.join(modules)}; print(json.dumps(sorted(sys.modules)))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    loaded = json.loads(done.stdout)
    assert set(modules) <= set(loaded)
    assert [m for m in loaded if m.split(".")[0] in ("textual", "rich")] == []


def test_help_lists_the_commands_without_importing_pydantic_or_httpx():
    code = (
        "import json, sys\nfrom tui_app.cli import _parser\n"
        "try:\n    _parser().parse_args(['--help'])\nexcept SystemExit:\n    pass\n"
        "print(json.dumps(sorted(sys.modules)), file=sys.stderr)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    loaded = {m.split(".")[0] for m in json.loads(done.stderr)}
    assert not {"pydantic", "httpx", "fastapi", "textual"} & loaded
    for command in ("search", "record", "order", "profile", "export"):
        assert command in done.stdout


@pytest.mark.parametrize(
    "command",
    [
        ["search", "agents"],
        ["search", "agencies"],
        ["record"],
        ["order", "submit"],
        ["order", "status"],
        ["order", "list"],
        ["profile", "import"],
        ["profile", "check"],
        ["export"],
    ],
)
def test_every_command_has_help_with_examples_and_exit_codes(capsys, command):
    with pytest.raises(SystemExit) as done:
        main([*command, "--help"])
    out = capsys.readouterr().out
    assert done.value.code == 0
    assert "examples:" in out and "producer-tui " + command[0] in out
    assert "exit status:" in out and "3  the service could not be reached" in out


def test_bad_usage_exits_2(capsys):
    with pytest.raises(SystemExit) as done:
        main(["search", "agents", "--name", "A", "--npn", "1"])
    assert done.value.code == 2
    with pytest.raises(SystemExit) as done:
        main(["record", "agent"])
    assert done.value.code == 2


def test_an_unknown_environment_exits_2(capsys, served):
    code, out, err = run(capsys, "record", "agent", DEMO_AGENT, "--env", "nowhere")
    assert (code, out) == (2, "") and "no environment named nowhere" in err


# --- search ------------------------------------------------------------------------------


def test_search_agents_json_is_the_answer_and_round_trips(capsys, served):
    code, out, err = run(capsys, "search", "agents", "--name", "Sample", "--first", "Avery")
    assert code == 0, err
    answer = AgentSearchResponse.model_validate_json(out)
    hits = answer.IndividualsSummaryInfo.Individuals
    assert [h.Npn for h in hits] == [int(DEMO_AGENT)]
    assert json.loads(out)["AdditionalInfo"]["Entity"]["SearchType"] == "NAME"


def _without_stamps(value):
    """An answer without the members that say when it was made."""
    if isinstance(value, dict):
        return {
            k: _without_stamps(v)
            for k, v in value.items()
            if k not in ("TransactionType", "statusDate", "at")
        }
    if isinstance(value, list):
        return [_without_stamps(v) for v in value]
    return value


def test_json_is_exactly_what_the_service_said(capsys, served, tmp_path):
    """Members sent as null stay null, and nothing the service left out is added."""
    import httpx

    code, out, _ = run(capsys, "record", "agency", DEMO_FIRM)
    raw = httpx.get(f"{served.url}/producerpdbsearch/v1/agency", params={"Npn": DEMO_FIRM})
    assert code == 0 and _without_stamps(json.loads(out)) == _without_stamps(raw.json())
    assert run(capsys, "order", "submit", str(order_file(tmp_path, "SH110")))[0] == 0
    status = f"{served.url}/producertransaction/v1/order/status"
    for _ in range(200):  # compare once the order stands still (it moves through stages)
        raw = httpx.get(status, params={"order_num": "SH110"})
        if "APPROVED" in raw.text or "DENIED" in raw.text or "REJECTED" in raw.text:
            break
        time.sleep(0.1)
    code, out, _ = run(capsys, "order", "status", "SH110")
    assert code == 0 and _without_stamps(json.loads(out)) == _without_stamps(raw.json())
    code, out, _ = run(capsys, "order", "status", "SH110", "--format", "table")
    assert "SH110" in out  # the table says the number even when the answer does not


def test_search_agents_table_masks_and_csv_lists(capsys, served):
    code, out, _ = run(
        capsys, "search", "agents", "--ssn", DEMO_SSN, "--last", "Sample", "--format", "table"
    )
    assert code == 0
    assert "***-**-1234" in out and DEMO_AGENT in out and "1 hit" in out
    code, out, _ = run(capsys, "search", "agents", "--license", "CA", "0H19001", "--format", "csv")
    rows = list(csv.reader(io.StringIO(out)))
    assert code == 0 and rows[0][:4] == ["NPN", "FIRST", "MIDDLE", "LAST"]
    assert rows[1][0] == DEMO_AGENT


def test_search_agencies_in_every_way(capsys, served):
    code, out, _ = run(capsys, "search", "agencies", "--ssn", "00-0000001", "--format", "json")
    firms = AgencySearchResponse.model_validate_json(out).NiprFirmsSummaryInfo.Firms
    assert code == 0 and [f.Npn for f in firms] == [int(DEMO_FIRM)]
    code, out, _ = run(
        capsys, "search", "agencies", "--license", "CA", "0K19002", "--format", "xml"
    )
    assert code == 0
    assert AgencySearchResponse.model_validate(
        load_xml(out, AgencySearchResponse, "AgencySearchResponse")
    )
    code, out, _ = run(capsys, "search", "agencies", "--npn", DEMO_FIRM, "--format", "json")
    info = FullRecordResponse.model_validate_json(out).NiprFullInfo
    assert code == 0 and info.Producer.Npn == int(DEMO_FIRM)


@pytest.mark.parametrize("fmt", ["csv", "json", "xml"])
def test_a_list_cut_by_the_service_says_so_on_stderr_in_every_format(
    capsys, embedded, monkeypatch, fmt
):
    """Seen: the table said the service cut the list; csv and json said nothing (exit 0),
    so a script took the first 200 rows for the whole list."""
    from tui_app.sandbox import registry

    monkeypatch.setattr(registry, "MAX_HITS", 3)
    search = ["search", "agents", "--name", "S", "--first", "A", "--format"]
    code, out, err = run(capsys, *search, fmt)
    assert code == 0
    [notice] = err.splitlines()
    said = notice.removeprefix("producer-tui: ")
    assert re.fullmatch(r"3 hits \(the list was cut by the service\); Showing the first 3 .*", said)
    assert "cut by the service" not in out  # stdout is the data alone
    _, table_out, table_err = run(capsys, *search, "table")
    assert said in table_out.splitlines() and table_err == ""


def test_search_refused_by_the_service_exits_1(capsys, served):
    # The contract lets a firm's SSN search carry "-" in FirmFein; the service refuses it.
    code, out, err = run(capsys, "search", "agencies", "--ssn", "-")
    assert (code, out) == (1, "")
    assert "refused (400)" in err and "FirmFein:" in err


def test_search_bad_input_exits_2_and_sends_nothing(capsys, unreachable):
    code, out, err = run(capsys, "search", "agents", "--ssn", "12x", "--last", "S")
    assert (code, out) == (2, "") and err.strip() == "producer-tui: Ssn: must contain digits only"
    code, _, err = run(capsys, "search", "agents", "--name", "Sample")
    assert code == 2 and "FirstName: is required when SearchType is NAME" in err
    code, _, err = run(capsys, "search", "agents", "--npn", "1", "--first", "A")
    assert code == 2 and "--first: not used by this kind of search" in err


def test_search_unreachable_exits_3(capsys, unreachable):
    code, out, err = run(capsys, "search", "agents", "--npn", DEMO_AGENT)
    assert (code, out) == (3, "") and "cannot reach 127.0.0.1" in err


# --- record ------------------------------------------------------------------------------


def test_record_json_round_trips_and_the_table_masks_unless_revealed(capsys, served):
    code, out, _ = run(capsys, "record", "agent", DEMO_AGENT)
    info = FullRecordResponse.model_validate_json(out).NiprFullInfo
    assert code == 0 and info.Biographic.Ssn == DEMO_SSN  # json: as received
    code, out, _ = run(capsys, "record", "agent", DEMO_AGENT, "--format", "table")
    assert code == 0 and "***-**-1234" in out and DEMO_SSN not in out
    assert "LICENSES" in out and "0H19001" in out and "**/**/****" in out
    code, out, _ = run(capsys, "record", "agent", DEMO_AGENT, "--format", "table", "--reveal")
    assert code == 0 and DEMO_SSN in out
    code, out, _ = run(capsys, "record", "agency", DEMO_FIRM, "--format", "xml")
    root = "FullRecordResponse"
    assert code == 0 and load_xml(out, FullRecordResponse, root).NiprFullInfo.Producer.Npn


def test_record_not_found_exits_1(capsys, served):
    code, out, err = run(capsys, "record", "agent", "99999999")
    assert (code, out) == (1, "") and "refused (404)" in err


def test_record_bad_input_exits_2(capsys, unreachable):
    code, _, err = run(capsys, "record", "agent", "abc")
    assert code == 2 and "Npn: must be a whole number" in err
    code, _, err = run(capsys, "record", "agency", "1", "--cost-center", "x" * 51)
    assert code == 2 and "CostCenter: must be at most 50 characters" in err


def test_record_unreachable_exits_3(capsys, unreachable):
    assert run(capsys, "record", "agency", DEMO_FIRM)[0] == 3


# --- orders ------------------------------------------------------------------------------


def test_order_submit_list_and_update(capsys, served, tmp_path):
    path = order_file(tmp_path, "SH100")
    code, out, err = run(capsys, "order", "submit", str(path))
    assert code == 0, err
    answer = OrderResponse.model_validate_json(out).order
    assert answer.itemDetails["clientOrderNum"] == "SH100" and answer.orderDetails.status
    code, out, err = run(capsys, "order", "submit", str(path))
    assert (code, out) == (2, "") and "add --update" in err
    code, out, err = run(capsys, "order", "submit", str(path), "--update", "--format", "table")
    assert code == 0 and "Order:" in out and "SH100" in out and "***-**-1234" in out
    code, out, _ = run(capsys, "order", "list")
    orders = [TrackedOrder(**o) for o in json.loads(out)]
    assert code == 0 and [o.client_order_num for o in orders] == ["SH100"]
    code, out, _ = run(capsys, "order", "list", "--format", "table")
    assert code == 0 and "SH100" in out and "AS" in out


def test_an_order_file_with_a_byte_order_mark_is_submitted(capsys, served, tmp_path):
    # QA: refused with "Unexpected UTF-8 BOM (decode using utf-8-sig)", exit 2.
    path = order_file(tmp_path, "SHBOM1")
    path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())
    code, out, err = run(capsys, "order", "submit", str(path))
    assert code == 0, err
    assert OrderResponse.model_validate_json(out).order.itemDetails["clientOrderNum"] == "SHBOM1"


def test_order_submit_in_xml_and_an_order_known_only_to_the_service(
    capsys, served, tmp_path, monkeypatch
):
    from tui_app.wire.xml import dump_xml_dict

    values = json.loads(order_file(tmp_path, "SH101").read_text())
    xml = tmp_path / "order.xml"
    xml.write_bytes(dump_xml_dict("Order", values))
    code, out, err = run(capsys, "order", "submit", str(xml), "--format", "xml")
    assert code == 0, err
    assert load_xml(out, OrderResponse, "OrderResponse").order.orderDetails.status
    monkeypatch.setenv("PRODUCER_TUI_DATA", str(tmp_path / "other-data"))  # a fresh book
    code, _, err = run(capsys, "order", "submit", str(xml))
    assert code == 2 and "SH101 exists already" in err


def test_order_status_watch_follows_to_approved(capsys, served, tmp_path):
    assert run(capsys, "order", "submit", str(order_file(tmp_path, "SH102")))[0] == 0
    code, out, err = run(capsys, "order", "status", "SH102", "--watch", "--interval", "0.05")
    answers = [OrderResponse.model_validate_json(line) for line in out.splitlines()]
    assert code == 0, err
    assert answers[-1].order.orderDetails.status == "APPROVED"
    assert len({a.order.orderDetails.status for a in answers}) == len(answers)  # changes only
    code, out, _ = run(capsys, "order", "status", "SH102", "--format", "table")
    assert code == 0 and "APPROVED (final)" in out
    code, out, _ = run(capsys, "order", "list")
    assert json.loads(out)[0]["status"] == "APPROVED"  # the book was updated


def test_an_order_rejected_exits_1(capsys, served, tmp_path):
    path = order_file(tmp_path, "SH103", juris="CA", npn="12345")
    assert run(capsys, "order", "submit", str(path))[0] == 0
    code, out, err = run(
        capsys, "order", "status", "SH103", "--watch", "--interval", "0.05", "--format", "table"
    )
    assert code == 1 and "REJECTED" in out.splitlines()[-1]
    assert "order SH103 is REJECTED" in err


def test_order_status_unknown_exits_1(capsys, served):
    code, out, err = run(capsys, "order", "status", "NOSUCH1")
    assert (code, out) == (1, "") and "refused (404)" in err


def test_order_bad_input_exits_2_and_sends_nothing(capsys, unreachable, tmp_path):
    path = order_file(tmp_path, "SH104", juris="CAL")
    code, out, err = run(capsys, "order", "submit", str(path))
    assert (code, out) == (2, "") and "tlq.juris: must be exactly 2 characters, not 3" in err
    bad = tmp_path / "bad.json"
    bad.write_text("{not json", encoding="utf-8")
    code, _, err = run(capsys, "order", "submit", str(bad))
    assert code == 2 and "bad.json: not JSON" in err
    code, _, err = run(capsys, "order", "submit", str(tmp_path / "missing.json"))
    assert code == 2 and "missing.json" in err
    code, _, err = run(capsys, "order", "status", "x" * 21)
    assert code == 2 and "order_num: must be at most 20 characters" in err


def test_order_unreachable_exits_3(capsys, unreachable, tmp_path):
    assert run(capsys, "order", "submit", str(order_file(tmp_path, "SH105")))[0] == 3
    assert run(capsys, "order", "status", "SH105", "--watch")[0] == 3


# --- profiles ----------------------------------------------------------------------------


def test_profile_check_sends_nothing_and_round_trips(capsys, unreachable, tmp_path):
    path = agent_xml(tmp_path, "SHELL-1")
    code, out, err = run(capsys, "profile", "check", str(path))
    assert code == 0, err
    record = AgentRecord.model_validate_json(out, context={"format": "xml"})
    assert record.ProfileKey == "SHELL-1"
    code, out, _ = run(capsys, "profile", "check", str(path), "--format", "table")
    assert code == 0 and "a valid agent profile" in out


def test_a_profile_files_problems_name_the_file(capsys, unreachable, tmp_path):
    """Seen: "producer-tui: Demographic.Shoe: is not a field of this record", which file
    unsaid; and a Latin-1 file only "not well-formed (invalid token)"."""
    path = tmp_path / "shoe.xml"
    path.write_text(agent_xml(tmp_path, "SHELL-9").read_text().replace(
        "<Demographic>", "<Demographic><Shoe>9</Shoe>"))  # fmt: skip
    code, _, err = run(capsys, "profile", "check", str(path))
    assert code == 2 and f"{path}: Demographic.Shoe: is not a field of this record" in err
    latin = tmp_path / "latin.xml"
    latin.write_bytes(b"<Agent><ProfileKey>Mu\xf1oz</ProfileKey></Agent>")
    code, _, err = run(capsys, "profile", "check", str(latin))
    assert code == 2 and "(byte 0xf1 is not UTF-8: save the file as UTF-8)" in err


def test_a_profile_file_of_many_records_is_refused_pointing_to_bulk(capsys, unreachable, tmp_path):
    line = profile_line(AgentRecord.model_validate(scenes.DEMO_AGENT, context={"format": "xml"}))
    path = tmp_path / "many.ndjson"
    path.write_bytes(line + line)
    code, out, err = run(capsys, "profile", "import", str(path))
    assert (code, out) == (2, "")
    assert (
        f"{path}: holds more than one record (the next on line 2); `producer-tui bulk submit`"
        in err
    )


def test_profile_import_succeeds_then_export_it(capsys, served, tmp_path, monkeypatch):
    code, out, err = run(capsys, "profile", "import", str(agent_xml(tmp_path, "SHELL-2")))
    assert code == 0, err
    assert ImportResult.model_validate_json(out).Success is True
    code, out, err = run(capsys, "export", "agent", "SHELL-2", "--data-sets", "Demographic,License")
    assert code == 0, err
    sets = ExportResponse.model_validate_json(out).dataSets
    assert {ds.name for ds in sets} == {"Demographic", "License"}
    code, out, _ = run(capsys, "export", "agent", "SHELL-2", "--all", "--format", "table")
    assert code == 0 and "AgentDemographicDataSet" in out
    assert "**/**/****" in out and "1980-02-03" not in out and "***-**-0001" in out
    # Seen: --out '~/x.json' (quoted: the shell leaves ~ alone) said "No such file".
    monkeypatch.setenv("HOME", str(tmp_path))
    target = tmp_path / "out" / "pk.json"
    target.parent.mkdir()
    code, out, _ = run(capsys, "export", "agent", "SHELL-2", "--out", "~/out/pk.json")
    assert code == 0 and out.strip() == str(target)
    assert ExportResponse.model_validate_json(target.read_text()).dataSets
    code, out, _ = run(
        capsys, "export", "agent", "SHELL-2", "--data-sets", "Demographic", "--csv", "~/csv"
    )
    written = [Path(line) for line in out.splitlines()]
    assert code == 0 and written == [tmp_path / "csv" / "SHELL-2-Demographic.csv"]
    assert "Ada" in written[0].read_text()
    # Seen: a second export silently replaced the first; it takes --force now.
    for file, where in ((target, ["--out", str(target)]),
                        (written[0], ["--data-sets", "Demographic", "--csv", "~/csv"])):  # fmt: skip
        file.write_text("kept")
        code, _, err = run(capsys, "export", "agent", "SHELL-2", *where)
        assert code == 2 and f"{file} exists: add --force to replace it" in err
        assert file.read_text() == "kept"
        code, _, _ = run(capsys, "export", "agent", "SHELL-2", *where, "--force")
        assert code == 0 and file.read_text() != "kept"
    # A folder where the file would go (QA: "exists: add --force", then "Is a directory").
    (tmp_path / "a.json").mkdir()
    (tmp_path / "csv" / "SHELL-2-License.csv").mkdir()
    for where, words in (
        (["--out", str(tmp_path / "a.json")], f"--out: {tmp_path / 'a.json'} is a folder"),
        (["--data-sets", "License", "--csv", "~/csv"],
         f"--csv: {tmp_path / 'csv' / 'SHELL-2-License.csv'} is a folder: name a file"),
    ):  # fmt: skip
        code, out, err = run(capsys, "export", "agent", "SHELL-2", *where, "--force")
        assert (code, out) == (2, "") and words in err, err


def test_profile_import_refused_exits_1(capsys, served, tmp_path):
    # Valid by the contract, but a new profile needs Demographic and BusinessAddress.
    code, out, err = run(
        capsys, "profile", "import", str(agent_xml(tmp_path, "SHELL-3", full=False))
    )
    assert code == 1
    assert ImportResult.model_validate_json(out).Success is False
    assert "Demographic" in err and "was refused" in err


def test_profile_bad_input_exits_2(capsys, unreachable, tmp_path):
    bad = tmp_path / "bad.xml"
    bad.write_text("<Agent><ProfileKey>K</ProfileKey>", encoding="utf-8")
    for action in ("check", "import"):
        code, out, err = run(capsys, "profile", action, str(bad))
        assert (code, out) == (2, "") and "bad.xml" in err
    wrong = tmp_path / "wrong.xml"
    wrong.write_text("<Agent><ProfileKey>K</ProfileKey><Nope>1</Nope></Agent>", encoding="utf-8")
    code, _, err = run(capsys, "profile", "import", str(wrong))
    lines = err.strip().splitlines()
    assert code == 2 and any(line.endswith("Ssn: is required") for line in lines)
    assert any("Nope" in line for line in lines)


def test_profile_import_unreachable_exits_3(capsys, unreachable, tmp_path):
    assert run(capsys, "profile", "import", str(agent_xml(tmp_path, "SHELL-4")))[0] == 3


@pytest.mark.parametrize(
    "argv",
    [
        ["order", "submit", "~/o.json"],
        ["profile", "import", "~/a.xml"],
        ["profile", "check", "~/a.xml"],
        ["export", "agent", "K", "--out", "~/x.json"],
        ["export", "agent", "K", "--csv", "~/csv"],
        ["bulk", "check", "~/b.ndjson"],
        ["bulk", "submit", "~/b.ndjson", "--report", "~/r.csv"],
        ["bulk", "resume", "J", "--report", "~/r.csv"],
        ["bulk", "report", "J", "--out", "~/r.csv", "--failed", "~/f.ndjson"],
        ["watch", "add", "--file", "~/n.csv"],
        ["watch", "check", "--report", "~/w.csv"],
        ["sandbox", "serve", "--db", "~/s.db", "--import-rules", "~/rules.toml"],
        ["screenshots", "--out", "~/shots"],
    ],
)
def test_every_path_option_reads_a_tilde_as_the_home_folder(monkeypatch, tmp_path, argv):
    """Quoted, ``~`` reaches the program as typed; the TUI's file dialogs expand it, and
    so does every file or folder option."""
    monkeypatch.setenv("HOME", str(tmp_path))
    values = vars(_parser().parse_args(argv)).values()
    expanded = {v.name for v in values if isinstance(v, Path) and v.parent == tmp_path}
    assert expanded == {a.removeprefix("~/") for a in argv if a.startswith("~/")}


# --- export ------------------------------------------------------------------------------


def test_export_unknown_profile_exits_1(capsys, served):
    code, out, err = run(capsys, "export", "agency", "NO-SUCH-FIRM")
    assert (code, out) == (1, "") and "refused (404)" in err


def test_export_bad_input_exits_2(capsys, unreachable, tmp_path):
    code, _, err = run(capsys, "export", "agent", "K", "--out", str(tmp_path / "x.txt"))
    assert code == 2 and "--out: name a .json file" in err
    code, _, err = run(capsys, "export", "agent", "K", "--data-sets", ",")
    assert code == 2 and "--data-sets" in err


def test_export_unreachable_exits_3(capsys, unreachable):
    assert run(capsys, "export", "agent", "K", "--data-sets", "Address")[0] == 3


# --- a service that answers badly ----------------------------------------------------------


OBEYED_NAME = "Acme\u001b]0;pwned\u0007\u001b[31m\u009b2J\u202eInc\rOK"
"""A firm's name a terminal would obey (retitle, recolour, clear, turn around)."""


class _OddService(BaseHTTPRequestHandler):
    """Per group: an unreadable agent search answer, an agency search answer and a
    failing transaction group (500) whose words a terminal would obey, an export group
    that refuses the credentials (401) and an import answer that breaks the contract."""

    def _answer(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        self.rfile.read(length)
        path = self.path
        if path.startswith("/producerpdbsearch/v1/agency/search"):
            status, kind = 200, "application/json"
            firm = {"Npn": 1, "FirmName": OBEYED_NAME, "ResidentState": "TX"}
            body = json.dumps({"NiprFirmsSummaryInfo": {"Firms": [firm]}}).encode()
        elif path.startswith("/producerpdbsearch"):
            status, kind, body = 200, "text/html", b"<html><body>maintenance</body></html>"
        elif path.startswith("/producertransaction"):
            status, kind = 500, "application/json"
            body = json.dumps({"message": f"database down {OBEYED_NAME}"}).encode()
        elif path.startswith("/producerexport"):
            status, kind, body = 401, "application/json", b'{"message": "who are you"}'
        elif path.startswith("/producerimport"):
            status, kind = 200, "application/xml"
            body = b"<ImportResult><Success>perhaps</Success></ImportResult>"
        else:
            status, kind, body = 404, "application/json", b"{}"
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_GET = do_POST = _answer

    def log_message(self, *args) -> None:
        pass


@pytest.fixture(scope="module")
def odd_service():
    server = ThreadingHTTPServer(("127.0.0.1", 0), _OddService)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}"
    server.shutdown()
    server.server_close()


@pytest.fixture
def odd(odd_service, config_file: Path):
    write_served_config(config_file, odd_service)


def test_an_unreadable_answer_exits_3(capsys, odd, tmp_path):
    code, out, err = run(capsys, "search", "agents", "--npn", DEMO_AGENT)
    assert (code, out) == (3, "") and "not a valid AgentSearchResponse" in err
    code, out, err = run(capsys, "record", "agent", DEMO_AGENT)
    assert (code, out) == (3, "") and "not a valid FullRecordResponse" in err
    code, out, err = run(capsys, "profile", "import", str(agent_xml(tmp_path, "ODD-1")))
    assert (code, out) == (3, "") and "not a valid ImportResult" in err


def test_a_failing_service_and_refused_credentials_exit_1(capsys, odd, tmp_path):
    code, out, err = run(capsys, "order", "status", "SH200")
    assert (code, out) == (1, "") and "the service failed (500): database down" in err
    code, out, err = run(capsys, "order", "submit", str(order_file(tmp_path, "SH200")), "--update")
    assert (code, out) == (1, "") and "(500)" in err
    code, out, err = run(capsys, "export", "agent", "K", "--data-sets", "Address")
    assert (code, out) == (1, "") and "did not accept the credentials (401)" in err


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_what_a_terminal_would_obey_is_shown_on_a_terminal_and_kept_in_a_pipe(capsys, odd):
    """Seen (QA): a name holding ESC, C1 or U+202E was printed raw in a table, where the
    terminal obeyed it. On a terminal it is shown as pictures; piped, JSON keeps it."""
    out, err = _Terminal(), _Terminal()
    with redirect_stdout(out), redirect_stderr(err):
        assert main(["search", "agencies", "--ssn", "00-0000001", "--format", "table"]) == 0
        assert main(["order", "status", "SH200"]) == 1
    shown = "Acme␛]0;pwned␇␛[31m�2J�Inc"
    assert shown in out.getvalue() and f"database down {shown}" in err.getvalue()
    assert "Inc␍OK" in err.getvalue()  # a CR in a message would hide what came before it
    for obeyed in ("\x1b", "\x07", "\x9b", "\u202e", "\r"):
        assert obeyed not in out.getvalue() + err.getvalue()
    code, piped, _ = run(capsys, "search", "agencies", "--ssn", "00-0000001", "--format", "json")
    [firm] = json.loads(piped)["NiprFirmsSummaryInfo"]["Firms"]
    assert code == 0 and firm["FirmName"] == OBEYED_NAME


def test_a_timeout_exits_3(capsys, config_file, tmp_path):
    """A service that accepts the connection and never answers."""
    import socket

    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    try:
        url = f"http://127.0.0.1:{listener.getsockname()[1]}"
        config_file.parent.mkdir(parents=True, exist_ok=True)
        config_file.write_text(
            f'active = "mute"\n[environments.mute]\nbase_url = "{url}"\ntimeout = 0.3\n',
            encoding="utf-8",
        )
        code, out, err = run(capsys, "profile", "import", str(agent_xml(tmp_path, "MUTE-1")))
    finally:
        listener.close()
    port = url.rsplit(":", 1)[1]
    # The time it really took (at least the 0.3 s deadline), where it was waiting.
    assert (code, out) == (3, "")
    assert re.search(rf"127\.0\.0\.1:{port} did not answer within 0\.[3-9] s", err), err


# --- defaults ------------------------------------------------------------------------------


@pytest.fixture
def embedded(seeded_sandbox_db) -> None:
    """No config, and the embedded sandbox's database seeded already."""
    from tui_app.config import data_dir

    target = data_dir() / "sandbox-42.db"
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(seeded_sandbox_db, target)


def test_a_fresh_machine_uses_the_embedded_sandbox(capsys, embedded):
    """No config: the default environment is the embedded sandbox."""
    code, out, err = run(capsys, "record", "agent", DEMO_AGENT)
    assert code == 0, err
    assert FullRecordResponse.model_validate_json(out).NiprFullInfo.Producer.Npn == 19000001


def test_table_is_the_default_on_a_terminal_and_env_goes_either_side(capsys, served, monkeypatch):
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    code, out, _ = run(capsys, "--env", "served", "search", "agents", "--npn", DEMO_AGENT)
    assert code == 0 and out.startswith("NPN ") and "***-**-1234" in out
    code, out, err = run(
        capsys, "--env", "served", "search", "agents", "--npn", DEMO_AGENT, "--env", "nowhere"
    )
    assert code == 2 and "no environment named nowhere" in err


@pytest.mark.parametrize(
    "args",
    [
        ("watch", "check", "--rate", "inf"),
        ("order", "status", "A1", "--watch", "--interval", "nan"),
        ("sandbox", "serve", "--step-seconds", "1e309"),
        ("order", "status", "A1", "--watch", "--interval", "-1"),
    ],
)
def test_a_rate_or_seconds_that_is_no_finite_number_is_refused(capsys, args):
    """Seen: --rate inf was taken (a check paced for ever), as timeout = inf was."""
    with pytest.raises(SystemExit) as exited:
        main(list(args))
    assert exited.value.code == 2
    assert "must be a finite number, 0 or more" in capsys.readouterr().err


def test_each_command_offers_only_its_own_formats_in_its_help(capsys):
    """Seen: `order list --help` offered xml, which its --format refuses."""
    with pytest.raises(SystemExit):
        main(["order", "list", "--help"])
    out = capsys.readouterr().out
    assert "{table,json,csv}" in out and "xml" not in out


@pytest.mark.parametrize(
    ("name", "command", "what"),
    [
        ("orders.db", ["order", "list"], "the order book"),
        ("sandbox-42.db", ["search", "agents", "--npn", "19000001"], "the sandbox's database"),
    ],
)
def test_a_damaged_database_of_ours_is_one_line_and_exit_2(capsys, tmp_path, name, command, what):
    """Found by a CLI QA pass: a garbage orders.db or sandbox database ended these commands
    with sqlite3.DatabaseError's traceback (the bulk journal and the watch store said it)."""
    from tui_app.config import data_dir

    data_dir().mkdir(parents=True)
    damaged = data_dir() / name
    damaged.write_text("garbage")
    code, out, err = run(capsys, *command)
    assert (code, out) == (2, "")
    assert err == (f"producer-tui: cannot use {what} {damaged}: file is not a database; it is "
                   f"damaged or is not {what}: move it aside and run again to start a new one\n")  # fmt: skip
    assert damaged.read_text() == "garbage"  # left for the user to look at


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["sandbox", "serve", "--db", "s.db", "--port", "70000"], "--port: 70000 is not a port (0 to 65535)"),
        (["sandbox", "serve", "--db", "s.db", "--port", "-1"], "--port: -1 is not a port (0 to 65535)"),
        (["bulk", "check", "x.ndjson", "--max-request-bytes", "abc"],
         "--max-request-bytes: 'abc' is not a whole number of bytes"),
    ],
)  # fmt: skip
def test_option_values_are_refused_in_words(capsys, args, words):
    """Found by a CLI QA pass: --port 70000 ended in bind()'s OverflowError traceback, and
    --max-request-bytes abc said "invalid _request_bytes value"."""
    with pytest.raises(SystemExit) as refused:
        main(args)
    assert refused.value.code == 2
    assert f"argument {words}" in capsys.readouterr().err


def test_an_answer_xml_cannot_carry_is_a_bad_answer_not_bad_input():
    # QA: a name holding ESC, asked for with --format xml, exited 2 ("bad local input,
    # nothing sent") although the service had answered.
    from tui_app.client.errors import BadResponse
    from tui_app.contract.record import FullRecordResponse
    from tui_app.shell.output import xml_text

    answer = FullRecordResponse.model_validate(
        {"NiprFullInfo": {"Producer": {"Npn": 1}, "Biographic": {"FirstName": "A\x1bB"}}}
    )
    with pytest.raises(BadResponse, match="cannot be shown as XML: .*--format json shows it"):
        xml_text(answer, "FullRecordResponse")
