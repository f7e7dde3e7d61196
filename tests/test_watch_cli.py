"""``producer-tui watch`` on the embedded sandbox (seeded once per session): exit codes 0
nothing needs attention, 1 something does, 2 bad input, 3 unreachable; the demo roster
shows every kind of finding, the sandbox's clock moving on between two checks."""

from __future__ import annotations

import csv
import json
import os
import shutil
import stat
from datetime import timedelta
from pathlib import Path

import pytest
from bulk_support import write_served_config
from conftest import UI_TODAY

from tui_app.cli import main
from tui_app.config import data_dir
from tui_app.watch.findings import KINDS

TODAY = UI_TODAY.isoformat()


@pytest.fixture
def sandbox(config_file: Path, seeded_sandbox_db: Path) -> Path:
    """The session's seeded sandbox as this test's embedded one; returns the config file."""
    target = data_dir() / "sandbox-42.db"
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(seeded_sandbox_db, target)
    return config_file


def embedded(config_file: Path, today=None) -> None:
    line = f"today = {today.isoformat()}\n" if today else ""
    config_file.parent.mkdir(parents=True, exist_ok=True)
    config_file.write_text(f'active = "sandbox"\n[environments.sandbox]\nembedded = true\n{line}')


def run(capsys, *args: str) -> tuple[int, str, str]:
    code = main(["watch", *args])
    out, err = capsys.readouterr()
    return code, out, err


def check(capsys, *args: str) -> tuple[int, dict, str]:
    code, out, err = run(capsys, "check", "--format", "json", "--rate", "0", *args)
    return code, json.loads(out) if out else {}, err


def test_an_npn_given_twice_is_counted_once(sandbox, capsys, tmp_path):
    """Found by a CLI QA pass: "4 added, 3 already watched; 6 on the roster" (4 + 3 is
    not 6): an NPN both typed and in the demo set was counted twice."""
    embedded(sandbox)
    assert run(capsys, "add", "19000001", "19000002")[1] == (
        "2 added, 0 already watched; 2 on the roster of sandbox\n")  # fmt: skip
    roster = tmp_path / "r.csv"
    roster.write_text("npn\n19000002\n19000002\n")
    code, out, _ = run(capsys, "add", "19000001", "--demo", "--file", str(roster))
    assert (code, out) == (0, "4 added, 2 already watched; 6 on the roster of sandbox\n")


def test_the_demo_roster_shows_every_kind_of_finding_as_the_clock_moves_on(sandbox, capsys):
    embedded(sandbox)
    code, out, _ = run(capsys, "add", "--demo")
    assert code == 0 and "6 added" in out
    code, first, err = check(capsys, "--today", TODAY)
    assert code == 1, err
    assert first["check"]["read"] == first["check"]["producers"] == 6
    kinds_first = {f["kind"] for f in first["findings"]}
    assert kinds_first == set(KINDS) - {"changed", "unlicensed-appointment"}

    later = UI_TODAY + timedelta(days=30)
    embedded(sandbox, later)  # the embedded sandbox's today: its records as they stand then
    code, second, _ = check(capsys)
    assert code == 1 and second["check"]["today"] == later.isoformat()
    kinds_second = {f["kind"] for f in second["findings"]}
    assert {"changed", "unlicensed-appointment"} <= kinds_second
    assert kinds_first | kinds_second == set(KINDS)
    changed = [f for f in second["findings"] if f["kind"] == "changed"]
    assert any("is now inactive" in f["text"] for f in changed)


def test_nothing_needing_attention_exits_0_and_writes_a_private_report(sandbox, capsys, tmp_path):
    embedded(sandbox)
    assert run(capsys, "add", "19000002")[0] == 0  # the demo firm: all in order
    report = tmp_path / "out" / "findings.csv"
    report.parent.mkdir()
    code, answer, err = check(capsys, "--today", TODAY, "--report", str(report))
    assert code == 0, err
    assert answer["findings"] == [] and "1 of 1 producers read" in err
    assert stat.S_IMODE(report.stat().st_mode) == 0o600
    assert next(csv.reader(report.open())) == [
        "kind",
        "severity",
        "npn",
        "name",
        "state",
        "license",
        "text",
    ]
    code, _, err = check(capsys, "--today", TODAY, "--report", str(report))
    assert code == 2 and f"{report} exists: add --force to replace it" in err


def test_days_narrow_what_expires(sandbox, capsys):
    embedded(sandbox)
    run(capsys, "add", "19000001")  # its TX license expires in 45 days
    code, answer, _ = check(capsys, "--today", TODAY, "--days", "30")
    assert code == 0 and answer["findings"] == []


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("add", "12ab"), "NPN 12ab: 12ab is not an NPN"),
        (("add",), "give NPNs, --file FILE or --demo"),
        (("add", "--file", "missing.csv"), "missing.csv: No such file"),
        (("check",), "the roster of sandbox is empty"),
        (("check", "--days", "-1"), "--days must be between 0 and 3650"),
        (("check", "--report", "."), "--report . is a folder: give the report's file name"),
        (("check", "--report", "none/r.csv"), "--report none/r.csv: there is no folder none"),
        (("check", "--report", "/proc/r.csv"), "the folder /proc is not writable"),
    ],
)
def test_bad_input_exits_2_naming_it(sandbox, capsys, args, message):
    embedded(sandbox)
    code, _, err = run(capsys, *args)
    assert code == 2 and message in err


def test_a_roster_that_is_not_utf8_is_named_by_its_line(sandbox, capsys, tmp_path):
    """Seen (QA): a Latin-1 CSV printed Python's "'utf-8' codec can't decode byte 0xe9 in
    position 16", a position nobody can find."""
    embedded(sandbox)
    roster = tmp_path / "roster.csv"
    roster.write_bytes(b"npn,name\n123,Jos\xe9\n")
    code, _, err = run(capsys, "add", "--file", str(roster))
    assert code == 2 and f"{roster}: line 2 is not UTF-8 text (byte 8 of the line, 0xe9)" in err


def test_words_not_pythons(sandbox, capsys, tmp_path):
    """Seen (QA): "argument --today: invalid fromisoformat value" and "NPN: True is not an
    NPN" (a JSON true shown as Python writes it)."""
    embedded(sandbox)
    with pytest.raises(SystemExit):
        run(capsys, "check", "--today", "2026-13-45")
    assert "argument --today: '2026-13-45' is not a date (YYYY-MM-DD)" in capsys.readouterr().err
    roster = tmp_path / "r.ndjson"
    roster.write_text('{"npn": true}\n')
    code, _, err = run(capsys, "add", "--file", str(roster))
    assert code == 2 and "NPN: true is not an NPN" in err


def test_a_roster_that_is_a_named_pipe_is_refused_at_once(sandbox, capsys, tmp_path):
    embedded(sandbox)
    fifo = tmp_path / "roster.csv"
    os.mkfifo(fifo)
    code, _, err = run(capsys, "add", "--file", str(fifo))
    assert code == 2 and f"{fifo}: a named pipe, not a file" in err


def test_an_unreachable_service_exits_3_and_leaves_the_check_to_carry_on(config_file, capsys):
    write_served_config(config_file, "http://127.0.0.1:9")
    assert run(capsys, "add", "19000001", "19000002")[0] == 0
    code, _, err = check(capsys)
    assert code == 3 and "cannot reach 127.0.0.1" in err
    assert "2 producers not read yet" in err and "run the check again" in err


def test_list_shows_the_roster_with_what_a_check_learnt(sandbox, capsys, tmp_path):
    embedded(sandbox)
    roster = tmp_path / "roster.csv"
    roster.write_text("NPN,ProfileKey\n19000001,PK-AQS\n19000002,\n")
    assert run(capsys, "add", "--file", str(roster))[0] == 0
    check(capsys, "--today", TODAY)
    code, out, _ = run(capsys, "list", "--format", "json")
    assert code == 0
    assert json.loads(out) == [
        {"npn": 19000001, "kind": "agent", "profileKey": "PK-AQS", "name": "Avery Sample"},
        {"npn": 19000002, "kind": "agency", "profileKey": "", "name": "Sample Risk Partners LLC"},
    ]
    code, out, _ = run(capsys, "remove", "19000002")
    assert code == 0 and "1 removed" in out


def test_today_is_a_setting_of_the_embedded_sandbox_only(config_file, capsys):
    config_file.parent.mkdir(parents=True, exist_ok=True)
    config_file.write_text(
        'active = "p"\n[environments.p]\nbase_url = "http://127.0.0.1:9"\ntoday = 2026-12-01\n'
    )
    code, _, err = run(capsys, "list")
    assert code == 2 and "today is a setting of the embedded sandbox" in err


def test_a_profile_that_disagrees_with_the_registry_is_a_finding(sandbox, capsys):
    import asyncio

    from tui_app.client.factory import connect
    from tui_app.config import load_config
    from tui_app.ui.scenes import DEMO_AGENT

    embedded(sandbox)

    async def import_profiles() -> None:
        connection = await connect(load_config().environments["sandbox"])
        try:
            demographic = DEMO_AGENT["Demographic"] | {"LastName": "Sampel", "ResidentState": "NV"}
            await connection.client.import_agent(DEMO_AGENT | {"Demographic": demographic})
            no_npn = {k: v for k, v in DEMO_AGENT["Demographic"].items() if k != "NiprNumber"}
            await connection.client.import_agent(
                DEMO_AGENT | {"ProfileKey": "AQS-NONPN", "Demographic": no_npn}
            )
            await connection.client.import_agency(
                {
                    "ProfileKey": "SRP-1",
                    "Tin": "000000001",
                    "Demographic": {
                        "FirmName": "Sample Risk Partners LLC",
                        "Status": 7040,
                        "Nipr": "19000002",
                        "DomicileState": "TX",
                    },
                }
            )
        finally:
            await connection.aclose()

    asyncio.run(import_profiles())
    key = DEMO_AGENT["ProfileKey"]
    assert run(capsys, "add", "19000001", "--profile-key", key)[0] == 0
    code, answer, _ = check(capsys, "--today", TODAY, "--days", "30")
    assert code == 1
    assert [f["text"] for f in answer["findings"]] == [
        f"Profile {key}: last name is Sampel, the registry says Sample.",
        f"Profile {key}: resident state is NV, the registry says CA.",
    ]
    assert run(capsys, "add", "19000001", "--profile-key", "AQS-NONPN")[0] == 0
    code, answer, _ = check(capsys, "--today", TODAY, "--days", "30")
    assert [f["text"] for f in answer["findings"]] == ["Profile AQS-NONPN: has no NPN."]
    assert run(capsys, "add", "19000002", "--profile-key", "SRP-1")[0] == 0
    code, answer, _ = check(capsys, "--today", TODAY, "--days", "30")
    assert [f["text"] for f in answer["findings"]] == [
        "Profile AQS-NONPN: has no NPN.",
        "Profile SRP-1: resident state is TX, the registry says CA.",
    ]
