"""``producer-tui bulk``: exit statuses, progress, reports, and a job that survives ``kill -9``
and Ctrl-C, against the sandbox served on loopback."""

from __future__ import annotations

import io
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from bulk_support import (
    agent,
    agents,
    envelope,
    named_pipe,
    received,
    write_ndjson,
    write_served_config,
)
from sandbox_server import serve

from tui_app.bulk.cli import _Progress, _summary
from tui_app.bulk.journal import COMPLETED, DONE, INVALID, STOPPED, Journal, journal_path
from tui_app.bulk.pipeline import create_job
from tui_app.cli import main
from tui_app.config import data_dir


@pytest.fixture(scope="module")
def sandbox(tmp_path_factory):
    """Slow enough (40 ms a request) that a run of a few hundred records can be cut short."""
    db = tmp_path_factory.mktemp("cli-sandbox") / "sandbox.db"
    with serve(db, "--latency-ms", "40") as server:
        yield server, db


@pytest.fixture
def served(sandbox, config_file: Path):
    """The config's active environment ("served") is the sandbox."""
    server, db = sandbox
    write_served_config(config_file, server.url)
    return db


def bulk(capsys, *args: str) -> tuple[int, str, str]:
    code = main(["bulk", *args])
    out, err = capsys.readouterr()
    return code, out, err


def cli(*args: str, **options) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "tui_app", "bulk", *args],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **options,
    )  # fmt: skip


def refs_of(path: Path) -> set[str]:
    return {json.loads(line)["clientRefId"] for line in path.read_text().splitlines()}


def test_the_bulk_modules_import_no_ui_library_nor_the_sandbox():
    modules = ["tui_app.bulk." + m for m in ("source", "journal", "pipeline", "report", "cli")]
    code = (f"import json, sys; import {', '.join(modules)}; "
            "print(json.dumps(sorted(sys.modules)))")  # fmt: skip
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    loaded = json.loads(out.stdout)
    assert set(modules) <= set(loaded)
    assert [m for m in loaded if m.split(".")[0] in ("textual", "rich")] == []
    assert not {"fastapi", "uvicorn", "tui_app.sandbox.app"} & set(loaded)  # loaded when used


# --- check: validation alone -------------------------------------------------------------


def test_check_names_each_bad_line_and_sends_and_records_nothing(capsys, tmp_path):
    lines: list = agents("CHECK", 6)
    lines[1] = "{not json"
    lines[4] = envelope(agent("CHECK-BAD", 5, empStatus="12"))
    lines[5] = {**lines[0]}  # the first line's clientRefId again
    path = write_ndjson(tmp_path / "in.ndjson", lines)
    code, out, err = bulk(capsys, "check", str(path))
    assert code == 1
    shown = out.splitlines()
    assert shown[0].startswith("  line 2: not valid JSON")
    assert shown[1].startswith("  line 5: data.agent.demographic.empStatus")
    assert shown[2] == "  line 6: clientRefId: repeats line 1"
    assert shown[3] == f"{path}: 6 records, 3 valid, 3 invalid"
    assert "Traceback" not in err
    assert not journal_path().exists()  # nothing recorded, so nothing sent either


def test_check_of_a_valid_file_exits_0(capsys, tmp_path):
    path = write_ndjson(tmp_path / "in.ndjson", agents("CHECK", 3))
    assert bulk(capsys, "check", str(path))[:2] == (0, f"{path}: 3 records, 3 valid, 0 invalid\n")


def test_check_knows_the_environments_request_limit(capsys, config_file, tmp_path):
    big = agent("CHECK-BIG", 1)
    big["demographic"]["lastName"] = "x" * 1500
    path = write_ndjson(tmp_path / "in.ndjson", [envelope(big)])
    assert bulk(capsys, "check", str(path))[0] == 0
    code, out, _ = bulk(capsys, "check", str(path), "--max-request-bytes", "1200")
    assert code == 1 and "longer than a request may be here (1,200 bytes" in out
    config_file.parent.mkdir(parents=True, exist_ok=True)
    config_file.write_text(
        'active = "sb"\n[environments.sb]\nembedded = true\nbulk_max_request_bytes = 1200\n'
    )
    assert bulk(capsys, "check", str(path))[0] == 1
    # A check sends nothing: a config it cannot read means no limit, not a refusal
    # (review: `bulk check` of a file stopped at a broken config).
    config_file.write_text("active = ")
    assert bulk(capsys, "check", str(path))[0] == 0
    assert bulk(capsys, "check", str(path), "--max-request-bytes", "1200")[0] == 1
    # An environment named is one to use (QA: `--env nope` was ignored, exit 0, and
    # `bulk check FILE --env sb` was refused as an unknown argument).
    config_file.write_text(
        'active = "other"\n[environments.other]\nembedded = true\n'
        "[environments.sb]\nembedded = true\nbulk_max_request_bytes = 1200\n"
    )
    assert bulk(capsys, "check", str(path))[0] == 0
    assert bulk(capsys, "check", str(path), "--env", "sb")[0] == 1
    assert main(["--env", "sb", "bulk", "check", str(path)]) == 1
    capsys.readouterr()
    code, out, err = bulk(capsys, "check", str(path), "--env", "nope")
    assert (code, out) == (2, "") and "--env: no environment named nope" in err


def test_counts_of_one_are_singular(capsys, tmp_path):
    path = write_ndjson(tmp_path / "in.ndjson", ["{not json", *agents("ONE", 1)])
    code, out, _ = bulk(capsys, "check", str(path))
    assert code == 1 and out.endswith(f"{path}: 2 records, 1 valid, 1 invalid\n")
    path = write_ndjson(tmp_path / "in.ndjson", agents("ONE", 1))
    assert bulk(capsys, "check", str(path))[:2] == (0, f"{path}: 1 record, 1 valid, 0 invalid\n")
    path = write_ndjson(tmp_path / "in.ndjson", ["{not json"] * 21)
    assert "  and 1 more invalid line\n" in bulk(capsys, "check", str(path))[1]


def test_check_shows_the_first_20_bad_lines_then_how_many_more(capsys, tmp_path):
    path = write_ndjson(tmp_path / "in.ndjson", ["{not json"] * 25 + agents("CHECK", 2))
    code, out, _ = bulk(capsys, "check", str(path))
    shown = out.splitlines()
    assert code == 1 and len(shown) == 22
    assert [line.split(":")[0] for line in shown[:20]] == [f"  line {n}" for n in range(1, 21)]
    assert shown[20] == "  and 5 more invalid lines"
    assert shown[21].endswith("27 records, 2 valid, 25 invalid")


@pytest.mark.parametrize(("content", "words"), [(None, "no such file"), (b"", "is empty")])
def test_check_of_a_file_that_cannot_be_imported_exits_2(capsys, tmp_path, content, words):
    path = tmp_path / "in.ndjson"
    if content is not None:
        path.write_bytes(content)
    code, out, err = bulk(capsys, "check", str(path))
    assert (code, out) == (2, "")
    assert err.startswith("producer-tui bulk: ") and words in err


def test_check_needs_no_journal_even_a_damaged_one(capsys, tmp_path):
    journal_path().parent.mkdir(parents=True, exist_ok=True)
    journal_path().write_bytes(b"not a database" * 100)
    path = write_ndjson(tmp_path / "in.ndjson", agents("CHECK", 2))
    assert bulk(capsys, "check", str(path))[0] == 0
    assert journal_path().read_bytes() == b"not a database" * 100


# --- exit statuses -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("content", "words"),
    [
        (None, "no such file"),
        (b"", "is empty"),
        ('{"a": "é"}\n'.encode("utf-16"), "is not UTF-8 text"),
        ("folder", "is a folder"),
    ],
)
def test_a_file_that_cannot_be_imported_exits_2(capsys, served, tmp_path, content, words):
    path = tmp_path / "in.ndjson"
    if content == "folder":
        path.mkdir()
    elif content is not None:
        path.write_bytes(content)
    code, out, err = bulk(capsys, "submit", str(path), "--wait")
    assert (code, out) == (2, "")
    assert err.startswith("producer-tui bulk: ") and words in err and "Traceback" not in err


@pytest.mark.parametrize("action", ["check", "submit"])
def test_a_named_pipe_is_refused_at_once(capsys, served, tmp_path, action):
    with named_pipe(tmp_path / "x.ndjson") as fifo:
        code, out, err = bulk(capsys, action, str(fifo))
    assert (code, out) == (2, "")
    assert err == f"producer-tui bulk: {fifo} is a named pipe, not an NDJSON file\n"


def test_bad_usage_and_config_problems_exit_2(capsys, served, config_file, tmp_path):
    path = write_ndjson(tmp_path / "in.ndjson", agents("U", 1))
    code, _, err = bulk(capsys, "submit", str(path), "--batch-size", "101")
    assert code == 2 and "--batch-size must be between 1 and 100" in err
    code, _, err = bulk(capsys, "submit", str(path), "--env", "nowhere")
    assert code == 2 and "no environment named nowhere" in err
    for args in (
        ("status", "feedf00d"),
        ("resume", "feedf00d"),
        ("report", "feedf00d", "--out", "r"),
    ):
        code, _, err = bulk(capsys, *args)
        assert code == 2 and "no bulk job 'feedf00d'" in err
    with Journal() as journal:
        job = create_job(journal, path, "served")
    code, _, err = bulk(capsys, "resume", job.id, "--env", "other")
    assert code == 2 and "was submitted to environment served, not other" in err
    code, out, err = bulk(capsys, "status", "--follow")  # QA: it listed every job instead
    assert (code, out) == (2, "") and "--follow follows one job: name it" in err
    with pytest.raises(SystemExit) as usage:
        main(["bulk", "submit"])
    assert usage.value.code == 2
    with pytest.raises(SystemExit) as usage:  # a limit no request could keep to
        main(["bulk", "submit", str(path), "--max-request-bytes", "1023"])
    assert usage.value.code == 2
    assert "argument --max-request-bytes: must be at least 1024" in capsys.readouterr().err
    with Journal() as journal:
        assert [j.id for j in journal.jobs()] == [job.id]
    config_file.write_text('active = "served"\n[environments.served\n', encoding="utf-8")
    code, _, err = bulk(capsys, "submit", str(path))
    assert code == 2 and "invalid TOML" in err and "Traceback" not in err


def test_a_file_submitted_before_is_refused_unless_again(capsys, served, tmp_path):
    path = write_ndjson(tmp_path / "in.ndjson", agents("AGAIN", 2))
    code, first, _ = bulk(capsys, "submit", str(path), "--wait")
    assert code == 0
    first = first.strip()
    with Journal() as journal:
        stopped = create_job(journal, write_ndjson(tmp_path / "b.ndjson", agents("B", 1)), "served")
    code, out, err = bulk(capsys, "submit", str(path), "--wait")
    assert (code, out) == (2, "")
    assert err.startswith(f"producer-tui bulk: {path} was already submitted as job {first} "
                          "(done, on ")  # fmt: skip
    assert err.endswith("To send every record again anyway, add --again\n")
    code, out, err = bulk(capsys, "submit", str(tmp_path / "b.ndjson"))
    assert code == 2 and err.endswith(f"add --again; to finish that job instead: "
                                      f"producer-tui bulk resume {stopped.id}\n")  # fmt: skip
    assert {received(served)[ref] for ref in refs_of(path)} == {1}
    code, again, _ = bulk(capsys, "submit", str(path), "--wait", "--again")
    assert code == 0 and again.strip() != first
    assert {received(served)[ref] for ref in refs_of(path)} == {2}
    with Journal() as journal:
        assert len(journal.jobs("served")) == 3


@pytest.mark.parametrize("wait", [("--wait",), ()])
def test_report_files_refused_leave_no_job_and_send_nothing(capsys, served, tmp_path, wait):
    path = write_ndjson(tmp_path / "in.ndjson", agents("REFUSED", 2))
    out = tmp_path / "out"
    out.mkdir()
    (out / "failed.ndjson").write_text("kept\n")
    for report, words in (
        (out / "x.csv", "already exists"),
        (tmp_path / "nowhere" / "x.csv", "there is no folder"),
        # QA: a folder whose bits say writable (root's view) but that takes no file.
        (Path("/proc/x.csv"), "the folder /proc is not writable"),
        (out, "is a folder"),
        (tmp_path / "in.ndjson", "input file"),
    ):
        code, printed, err = bulk(capsys, "submit", str(path), *wait, "--report", str(report))
        assert (code, printed) == (2, "") and words in err, err
    with Journal() as journal:
        assert journal.jobs() == []
    assert not set(received(served)) & refs_of(path)


def test_every_record_succeeding_exits_0_with_plain_progress(capsys, served, tmp_path):
    path = write_ndjson(tmp_path / "ok.ndjson", agents("OK", 150))
    code, out, err = bulk(capsys, "submit", str(path), "--wait")
    job_id = out.strip()
    assert code == 0 and len(job_id) == 8
    assert err.splitlines()[-1] == "sent 150/150, completed 150, failed 0, invalid 0"
    with Journal() as journal:
        assert journal.job(job_id).state == DONE and journal.batch_states(job_id)["DONE"] == 2
    assert all(received(served)[ref] == 1 for ref in refs_of(path))

    code, out, _ = bulk(capsys, "status")
    header, row = out.splitlines()
    # Every outcome has its column, so the counts add up to the lines (superseded lines
    # were missing: 40 lines, 29 completed, 1 failed).
    assert header.split() == ["ID", "ENV", "STATE", "CREATED", "LINES", "COMPLETED", "FAILED",
                              "INVALID", "SUPERSEDED", "UNKNOWN", "FILE"]  # fmt: skip
    assert row.split()[:3] == [job_id, "served", "done"]
    code, out, _ = bulk(capsys, "status", job_id[:4])
    assert code == 0 and f"job {job_id}: done\n" in out
    assert "sent 150/150, completed 150" in out


def test_invalid_lines_exit_1_and_the_report_lists_them(capsys, served, tmp_path):
    bad = agent("BAD-2", 2)
    del bad["demographic"]["lastName"]
    path = write_ndjson(tmp_path / "mixed.ndjson", [*agents("MX", 2), bad, "nope"])
    report = tmp_path / "out" / "report.csv"
    report.parent.mkdir()
    code, out, err = bulk(capsys, "submit", str(path), "--wait", "--report", str(report))
    assert code == 1 and "invalid 2" in err
    lines = report.read_text().splitlines()
    assert lines[0] == "line,client_ref_id,profile_key,kind,outcome,retryable,attempts,errors"
    assert lines[3] == "3,,BAD-2,agent,INVALID,no,0,demographic.lastName: is required"
    assert lines[4].startswith("4,,,,INVALID,no,0,not valid JSON")
    failed = report.parent / "failed.ndjson"
    assert failed.read_text().splitlines() == path.read_text().splitlines()[2:]

    job_id = out.strip()
    other = tmp_path / "again.csv"
    code, out, _ = bulk(capsys, "report", job_id, "--out", str(other),
                        "--failed", str(tmp_path / "fix.ndjson"))  # fmt: skip
    assert code == 0 and other.read_text() == report.read_text()
    assert (tmp_path / "fix.ndjson").read_bytes() == failed.read_bytes()
    assert "2 failed or invalid lines to fix" in out
    # One file named for both (QA: the lines to fix were written over the report, exit 0),
    # or by default, a report named failed.ndjson; and an empty name (QA: a traceback).
    for names in (("--out", str(other), "--failed", str(other)), ("--out", str(failed))):
        code, out, err = bulk(capsys, "report", job_id, *names, "--force")
        assert (code, out) == (2, "") and "would hold both the report and the lines to fix" in err
    assert other.read_text() == report.read_text()
    with pytest.raises(SystemExit) as refused:  # argparse's usage error
        bulk(capsys, "report", job_id, "--out", "")
    assert refused.value.code == 2
    assert "argument --out: is empty: name a file or folder" in capsys.readouterr().err


def test_a_file_of_only_invalid_lines_completes_all_invalid_and_exits_1(capsys, served, tmp_path):
    path = write_ndjson(tmp_path / "bad.ndjson", ["{", '{"profileKey": "K"}', "[]"])
    code, out, _ = bulk(capsys, "submit", str(path), "--wait")
    assert code == 1
    with Journal() as journal:
        job = journal.job(out.strip())
        assert job.state == DONE
        assert [line.state for line in journal.lines(job.id)] == [INVALID] * 3


def test_the_embedded_sandbox_works_too(capsys, tmp_path, seeded_sandbox_db):
    data_dir().mkdir(parents=True, exist_ok=True)
    shutil.copyfile(seeded_sandbox_db, data_dir() / "sandbox-42.db")  # skips seeding
    path = write_ndjson(tmp_path / "e.ndjson", agents("EMB", 5))
    code, out, err = bulk(capsys, "submit", str(path), "--wait")
    assert code == 0, err
    assert err.splitlines()[-1] == "sent 5/5, completed 5, failed 0, invalid 0"


def test_on_a_terminal_progress_is_one_redrawn_bar(served, tmp_path):
    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    path = write_ndjson(tmp_path / "t.ndjson", agents("T", 4))
    with Journal() as journal:
        job = create_job(journal, path, "served")
        screen = Terminal()
        progress = _Progress(screen, _summary)
        progress.update(job)
        progress.end(journal.job(job.id))
    drawn = screen.getvalue()
    assert drawn.startswith("\r[") and drawn.count("\r") == 2 and drawn.endswith("\n")
    assert "0% of the file validated" in drawn


# --- surviving a crash, Ctrl-C and the background ----------------------------------------


def wait_for(predicate, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


def batches(job_id: str) -> dict[int, tuple[str, set[str]]]:
    """Batch id -> (state, clientRefIds) for the job, read as another process would."""
    with sqlite3.connect(f"file:{journal_path()}?mode=ro", uri=True) as conn:
        rows = conn.execute(
            "SELECT b.id, b.state, l.client_ref_id FROM batches b"
            " JOIN lines l ON l.batch_id = b.id WHERE b.job_id = ?",
            (job_id,),
        ).fetchall()
    found: dict[int, tuple[str, set[str]]] = {}
    for batch_id, state, ref in rows:
        found.setdefault(batch_id, (state, set()))[1].add(ref)
    return found


def refs_in(found: dict[int, tuple[str, set[str]]], *states: str) -> set[str]:
    return {ref for state, refs in found.values() if state in states for ref in refs}


def accepted_count(job_id: str) -> int:
    if not journal_path().exists():
        return 0
    with sqlite3.connect(f"file:{journal_path()}?mode=ro", uri=True) as conn:
        (n,) = conn.execute(
            "SELECT COUNT(*) FROM batches WHERE job_id = ? AND state IN ('ACCEPTED', 'DONE')",
            (job_id,),
        ).fetchone()
    return n


def start_cut_short(path: Path) -> tuple[subprocess.Popen, str]:
    run = cli("submit", str(path), "--wait", "--env", "served", "--batch-size", "20",
              "--concurrency", "2")  # fmt: skip
    job_id = run.stdout.readline().strip()
    assert job_id, run.stderr.read()
    wait_for(lambda: accepted_count(job_id) >= 4)
    return run, job_id


def test_a_run_killed_with_sigkill_resumes_without_sending_a_record_twice(served, tmp_path):
    path = write_ndjson(tmp_path / "kill.ndjson", agents("KILL", 400))
    run, job_id = start_cut_short(path)
    run.kill()
    run.wait()
    at_kill = batches(job_id)
    accepted = refs_in(at_kill, "ACCEPTED", "DONE")
    uncertain = refs_in(at_kill, "POSTING")  # cut off mid-request: may have arrived
    assert accepted and len(accepted) < 400

    resumed = cli("resume", job_id, "--wait")
    out, err = resumed.communicate(timeout=120)
    assert resumed.returncode == 0, err
    assert err.splitlines()[-1] == "sent 400/400, completed 400, failed 0, invalid 0"
    with Journal() as journal:
        assert {line.state for line in journal.lines(job_id)} == {COMPLETED}
        posting = sum(state == "POSTING" for state, _ in at_kill.values())
        assert journal.batch_states(job_id)["uncertain"] == posting
    got = received(served)
    refs = refs_of(path)
    assert all(got[ref] >= 1 for ref in refs)  # none lost
    assert all(got[ref] == 1 for ref in accepted)  # accepted batches were only polled
    assert {ref for ref in refs if got[ref] > 1} <= uncertain


def test_ctrl_c_stops_gracefully_and_says_how_to_resume(served, tmp_path):
    path = write_ndjson(tmp_path / "int.ndjson", agents("INT", 400))
    run, job_id = start_cut_short(path)
    run.send_signal(signal.SIGINT)
    _, err = run.communicate(timeout=60)
    assert run.returncode == 130
    assert f"interrupted; job {job_id} is saved. Resume it with: producer-tui bulk resume" in err
    with Journal() as journal:
        job = journal.job(job_id)
        assert job.state == STOPPED and job.counts.completed < 400
    assert not refs_in(batches(job_id), "POSTING")  # requests in flight were finished

    resumed = cli("resume", job_id, "--wait")
    _, err = resumed.communicate(timeout=120)
    assert resumed.returncode == 0, err
    got = received(served)
    assert all(got[ref] == 1 for ref in refs_of(path))  # nothing twice, nothing lost


def test_a_stop_from_another_shell_exits_1_not_as_interrupted(capsys, served, tmp_path):
    path = write_ndjson(tmp_path / "stop.ndjson", agents("STOPPED", 400))
    run, job_id = start_cut_short(path)
    assert bulk(capsys, "stop", job_id)[0] == 0
    _, err = run.communicate(timeout=60)
    assert run.returncode == 1
    assert f"job {job_id} stopped: stopped on request. Resume it with" in err
    assert "interrupted" not in err


def test_without_wait_the_job_runs_in_the_background(served, tmp_path):
    path = write_ndjson(tmp_path / "bg.ndjson", agents("BG", 30))
    report = tmp_path / "bg.csv"
    run = cli("submit", str(path), "--report", str(report))
    out, err = run.communicate(timeout=60)
    job_id = out.strip()
    assert run.returncode == 0 and "runs in the background" in err

    def finished() -> bool:
        with Journal() as journal:
            return journal.job(job_id).state == DONE and not journal.is_running(job_id)

    wait_for(finished)
    assert len(report.read_text().splitlines()) == 31
    log = (data_dir() / "bulk-logs" / f"{job_id}.log").read_text()
    assert "sent 30/30, completed 30, failed 0, invalid 0" in log
    assert os.path.exists(report.with_name("failed.ndjson"))
