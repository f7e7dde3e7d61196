"""Jobs in detached workers, from the shell: submit returns at once, ``status --follow``
attaches, ``stop`` stops, a killed worker is seen as such and resumes losing nothing;
and what the CLI owes a user's data: bad lines named, an unusable journal in one line,
private files, CSV cells that stay text, retry, no file replaced unasked."""

from __future__ import annotations

import csv
import os
import shutil
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest
from bulk_support import agent, agents, envelope, received, write_ndjson, write_served_config
from sandbox_server import serve

from tui_app.bulk import worker
from tui_app.bulk.background import WORKER_NICENESS
from tui_app.bulk.journal import STOPPED, Journal, journal_path
from tui_app.bulk.pipeline import DELAYS_VARIABLE
from tui_app.bulk.worker import look
from tui_app.cli import main
from tui_app.config import data_dir


@pytest.fixture(scope="module")
def sandbox(tmp_path_factory):
    """Slow enough (30 ms an answer) for a job of a few hundred records to be caught
    running."""
    db = tmp_path_factory.mktemp("worker-sandbox") / "sandbox.db"
    with serve(db, "--latency-ms", "30") as server:
        yield server, db


@pytest.fixture
def served(sandbox, config_file: Path, monkeypatch):
    server, db = sandbox
    write_served_config(config_file, server.url)
    monkeypatch.setenv(DELAYS_VARIABLE, "0.05")
    return db


def bulk(capsys, *args: str) -> tuple[int, str, str]:
    code = main(["bulk", *args])
    out, err = capsys.readouterr()
    return code, out, err


def shell(*args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tui_app", "bulk", *args],
                          capture_output=True, text=True, timeout=timeout)  # fmt: skip


def wait_for(predicate, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


# --- detached workers -----------------------------------------------------------------------


def test_submit_returns_at_once_and_follow_prints_progress_to_the_end(served, tmp_path):
    path = write_ndjson(tmp_path / "f.ndjson", agents("FOL", 300))
    started = time.monotonic()
    submitted = shell("submit", str(path), "--batch-size", "20", "--concurrency", "2")
    assert submitted.returncode == 0, submitted.stderr
    job_id = submitted.stdout.strip()
    assert f"follow it with: producer-tui bulk status {job_id} --follow" in submitted.stderr
    with Journal() as journal:
        assert journal.is_running(job_id) or journal.job(job_id).finished
    assert time.monotonic() - started < 30
    followed = shell("status", job_id, "--follow")
    assert followed.returncode == 0, followed.stderr
    assert followed.stderr.strip().splitlines()[-1] == (
        "sent 300/300, completed 300, failed 0, invalid 0")  # fmt: skip
    assert all(n == 1 for ref, n in received(served).items() if ref in refs_of(path))


def test_stop_stops_gracefully_and_resume_finishes(served, tmp_path):
    path = write_ndjson(tmp_path / "s.ndjson", agents("STP", 400))
    job_id = shell("submit", str(path), "--batch-size", "10", "--concurrency", "1").stdout.strip()
    stopped = shell("stop", job_id)
    assert stopped.returncode == 0 and "stops once its requests in flight" in stopped.stderr
    with Journal() as journal:
        wait_for(lambda: not journal.is_running(job_id))
        job = journal.job(job_id)
        assert (job.state, job.message) == (STOPPED, "stopped on request")
        assert job.counts.settled < 400
    # Not running any more: said, and no failure (QA: exit 1, where a resume of a finished
    # job exits 0; a script stopping its jobs stopped at the first one already stopped).
    again = shell("stop", job_id)
    assert again.returncode == 0 and f"job {job_id} is not running (stopped" in again.stderr
    shown = shell("status", job_id).stdout
    assert f"job {job_id}: stopped" in shown and f"bulk resume {job_id}" in shown
    assert shell("resume", job_id).returncode == 0
    assert shell("status", job_id, "--follow").returncode == 0
    with Journal() as journal:
        assert journal.job(job_id).counts.completed == 400
    assert all(n == 1 for ref, n in received(served).items() if ref in refs_of(path))


def test_a_killed_worker_is_seen_as_such_and_resume_loses_nothing(served, tmp_path):
    path = write_ndjson(tmp_path / "k.ndjson", agents("KIL", 400))
    job_id = shell("submit", str(path), "--batch-size", "10", "--concurrency", "1").stdout.strip()
    with Journal() as journal:
        wait_for(lambda: journal.job(job_id).counts.completed >= 30)
        pid = journal.job(job_id).worker_pid
        # Background work: the worker leaves the CPU to the terminal first.
        ours = os.getpriority(os.PRIO_PROCESS, 0)
        assert os.getpriority(os.PRIO_PROCESS, pid) == min(ours + WORKER_NICENESS, 19)
        os.kill(pid, signal.SIGKILL)
        wait_for(lambda: not journal.is_running(job_id))
        left = journal.job(job_id).counts
    assert left.settled < 400
    listed = shell("status").stdout
    assert f"stopped unexpectedly at {left.settled:,} of {left.lines:,}" in listed
    assert shell("resume", job_id).returncode == 0
    assert shell("status", job_id, "--follow").returncode == 0
    with Journal() as journal:
        c = journal.job(job_id).counts
    assert (c.completed, c.lines) == (400, 400)
    got = received(served)
    refs = refs_of(path)
    assert all(got[ref] >= 1 for ref in refs)  # nothing lost
    assert sum(got[ref] > 1 for ref in refs) <= 10  # at most the one request cut off


def worker_of(job_id: str) -> int:
    """The pid of the detached worker running ``job_id`` (Linux: read from /proc)."""
    wanted = ["-m", "tui_app", "bulk", "work", job_id]
    for entry in Path("/proc").iterdir():
        try:
            argv = (entry / "cmdline").read_bytes().decode().split("\0")
        except (OSError, ValueError):
            continue
        if argv[1:6] == wanted:
            return int(entry.name)
    raise AssertionError(f"no worker runs job {job_id}")


def test_two_workers_never_run_one_job(served, tmp_path):
    path = write_ndjson(tmp_path / "two.ndjson", agents("TWO", 200))
    job_id = shell("submit", str(path), "--batch-size", "10", "--concurrency", "1").stdout.strip()
    # The first worker holds the job (submit returns once it does) and is frozen there, so
    # it cannot finish before the second try, however loaded the machine.
    pid = worker_of(job_id)
    os.kill(pid, signal.SIGSTOP)
    try:
        again = shell("resume", job_id)
    finally:
        os.kill(pid, signal.SIGCONT)
    assert again.returncode == 2 and "already running in another process" in again.stderr
    assert shell("status", job_id, "--follow").returncode == 0
    assert Journal().job(job_id).counts.completed == 200


def test_a_worker_that_cannot_connect_says_why_in_the_journal(served, config_file, tmp_path):
    """A detached worker does not have a secret typed in the app: its job showed "not
    started" (or, a review found, "stopped unexpectedly at 0"), the reason only in a log."""
    config_file.write_text(
        config_file.read_text(encoding="utf-8")
        + '[environments.served.auth]\ntype = "bearer"\ntoken_env = "NO_SUCH_TOKEN_SET"\n',
        encoding="utf-8",
    )
    path = write_ndjson(tmp_path / "locked.ndjson", agents("LOCK", 3))
    done = shell("submit", str(path))
    assert done.returncode != 0 and "NO_SUCH_TOKEN_SET" in done.stderr
    [job] = Journal().jobs()
    assert job.state == STOPPED and job.message.startswith("cannot connect: ")
    assert "NO_SUCH_TOKEN_SET" in job.message
    assert look(Journal(), job.id).words() == "stopped"


def test_of_two_resumes_at_the_same_moment_only_one_says_it_started(served, tmp_path):
    """Seen: two TUIs pressing F6 at once were both told "Resumed"; one's worker had quit
    at once, finding the other's running the job. Here the other holds the job already,
    but this spawn's first look misses it, as when both look before either has started."""
    from tui_app.bulk.journal import JobBusy
    from tui_app.bulk.pipeline import create_job
    from tui_app.bulk.worker import spawn

    path = write_ndjson(tmp_path / "race.ndjson", agents("RACE", 5))
    with Journal() as journal, journal.running(job_id := create_job(journal, path, "served").id):
        journal.started(job_id, os.getpid())
        looks = [False]  # the first look misses the other's worker
        running = journal.is_running
        journal.is_running = lambda job: looks.pop() if looks else running(job)  # type: ignore[method-assign]
        with pytest.raises(JobBusy, match="started by another process just now"):
            spawn(journal, job_id)


# --- what the CLI owes a user's data ---------------------------------------------------------


def test_bad_lines_are_named_with_their_reason(capsys, served, tmp_path):
    lines = [*agents("BAD", 10), '{"profileKey": "X", "ssn": "1", "demographic": {}}', "{broken"]
    lines += ["[1]"] * 21
    path = write_ndjson(tmp_path / "bad.ndjson", lines)
    code, _, err = bulk(capsys, "submit", str(path), "--wait")
    assert code == 1
    assert (
        "  line 11: INVALID: demographic.empStatus: " in err
        and "  line 12: INVALID: not valid JSON" in err
    )
    assert "  and 3 more: producer-tui bulk report " in err  # 23 bad lines, 20 shown


@pytest.mark.parametrize("damage", ["random", "truncated", "zeroed"])
def test_a_damaged_journal_is_one_clear_line_and_exit_2(capsys, served, tmp_path, damage):
    path = write_ndjson(tmp_path / "j.ndjson", agents("JRN", 30))
    assert bulk(capsys, "submit", str(path), "--wait")[0] == 0
    before = path.read_bytes()
    db = journal_path()
    content = db.read_bytes()
    if damage == "random":
        db.write_bytes(os.urandom(len(content)))
    elif damage == "truncated":
        db.write_bytes(content[: len(content) // 3])
    else:  # a zeroed page in the middle of the tables
        db.write_bytes(content[:4096] + bytes(4096) + content[8192:])
    for f in (db.with_name(db.name + "-wal"), db.with_name(db.name + "-shm")):
        f.unlink(missing_ok=True)
    for args in (("status",), ("report", "nojob", "--out", str(tmp_path / "r.csv"))):
        code, out, err = bulk(capsys, *args)
        if damage == "zeroed" and code == 0:
            continue  # the zeroed page held nothing this command reads
        assert code == 2 and "Traceback" not in err
        assert err.startswith("producer-tui bulk: ") and err.count("\n") == 1
        assert "journal" in err
    assert path.read_bytes() == before  # the job's file is left alone


def test_a_data_folder_that_cannot_be_written_is_one_clear_line(capsys, monkeypatch, tmp_path):
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the data folder should be")
    monkeypatch.setenv("PRODUCER_TUI_DATA", str(blocker / "data"))
    code, _, err = bulk(capsys, "status")
    assert code == 2 and err.startswith("producer-tui bulk: cannot use the bulk journal")
    assert "Traceback" not in err


def test_files_with_personal_data_are_private(capsys, served, tmp_path):
    os.umask(0o022)
    path = write_ndjson(tmp_path / "p.ndjson", [*agents("PRV", 3), '{"ssn": "1"}'])
    report = tmp_path / "out" / "report.csv"
    report.parent.mkdir()
    job_id = shell("submit", str(path), "--report", str(report)).stdout.strip()
    assert shell("status", job_id, "--follow").returncode == 1  # one invalid line
    wait_for(lambda: (report.parent / "failed.ndjson").exists())
    with Journal() as journal:
        wait_for(lambda: not journal.is_running(job_id))
    assert mode(data_dir()) == 0o700
    for private in (journal_path(), report, report.parent / "failed.ndjson",
                    data_dir() / "bulk-logs" / f"{job_id}.log"):  # fmt: skip
        assert mode(private) == 0o600, private
    assert mode(data_dir() / "bulk-logs") == 0o700


def test_report_cells_that_look_like_formulas_stay_text(capsys, served, tmp_path):
    lines = [envelope(agent("=HYPERLINK(1)", 740_001)), envelope(agent("@SUM(A1)", 740_002))]
    path = write_ndjson(tmp_path / "f.ndjson", lines)
    out = tmp_path / "r.csv"
    assert bulk(capsys, "submit", str(path), "--wait", "--report", str(out))[0] == 0
    with open(out, newline="", encoding="utf-8") as file:
        keys = [row["profile_key"] for row in csv.DictReader(file)]
    assert keys == ["'=HYPERLINK(1)", "'@SUM(A1)"]


def test_retry_sends_the_retryable_failures_again(capsys, config_file, tmp_path, monkeypatch):
    monkeypatch.setenv(DELAYS_VARIABLE, "0.02")
    failing = "[environments.sandbox]\nembedded = true\nbulk_fail_rate = {}\n"
    config_file.parent.mkdir(parents=True, exist_ok=True)
    config_file.write_text('active = "sandbox"\n\n' + failing.format(1.0))
    path = write_ndjson(tmp_path / "r.ndjson", agents("RTY", 5))
    code, out, err = bulk(capsys, "submit", str(path), "--wait")
    job_id = out.strip()
    assert code == 1 and "(retryable)" in err
    code, _, err = bulk(capsys, "resume", job_id)
    assert code == 1 and f"5 retryable failures: producer-tui bulk retry {job_id}" in err
    config_file.write_text('active = "sandbox"\n\n' + failing.format(0.0))
    code, _, err = bulk(capsys, "retry", job_id, "--wait")
    assert code == 0 and f"job {job_id}: 5 lines to send again" in err
    with Journal() as journal:
        assert journal.job(job_id).counts.completed == 5
    code, _, err = bulk(capsys, "retry", job_id)
    assert code == 0 and "no retryable failure" in err


def test_a_large_job_on_the_embedded_sandbox_serves_it_from_a_process_of_its_own(
    capsys, config_file, seeded_sandbox_db, tmp_path, monkeypatch
):
    """Issue 12: in the TUI a job of 100,000 records took 38.7 s (2,584 a second): the
    pipeline and the embedded sandbox shared the worker's interpreter, where the CLI sent
    7,174 a second to a served sandbox. A large file's job now serves the embedded
    sandbox from a process of its own, over the same database, behind a token."""
    import tui_app.sandbox.process

    monkeypatch.setenv(DELAYS_VARIABLE, "0.02")
    monkeypatch.setattr(worker, "SANDBOX_APART_FROM", 0)  # this small file counts as large
    started = []
    real = tui_app.sandbox.process.served

    def served(db, *args):
        started.append((db, args))
        return real(db, *args)

    monkeypatch.setattr(tui_app.sandbox.process, "served", served)
    config_file.parent.mkdir(parents=True, exist_ok=True)
    config_file.write_text('active = "sb"\n\n[environments.sb]\nembedded = true\n')
    db = data_dir() / "sandbox-42.db"
    db.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(seeded_sandbox_db, db)  # as the app left it: seeded
    path = write_ndjson(tmp_path / "big.ndjson", agents("APART", 5))
    code, _, err = bulk(capsys, "submit", str(path), "--wait")
    assert code == 0, err
    [(used, args)] = started
    assert used == db and "--token-env" in args and "--stop-with" in args
    assert sorted(received(db).values()) == [1] * 5  # in the store the app reads


def test_a_sandbox_served_for_a_worker_ends_when_the_worker_is_killed(tmp_path):
    """A worker killed outright (kill -9) must not leave its sandbox serving on."""
    parent = subprocess.Popen(
        [sys.executable, "-c", (
            "import os, sys, time; from tui_app.sandbox.process import served\n"
            f"with served({str(tmp_path / 'sb.db')!r}, '--size', '50', '--stop-with', "
            "str(os.getpid())) as s:\n"
            "    print(s.process.pid, flush=True); time.sleep(600)"
        )],
        stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert parent.stdout is not None
    server = int(parent.stdout.readline())
    parent.kill()
    parent.wait()

    def gone() -> bool:
        try:  # a zombie is gone too: its parent is dead, so init reaps it soon
            return Path(f"/proc/{server}/stat").read_text().split()[2] == "Z"
        except FileNotFoundError:
            return True

    wait_for(gone, timeout=20)


def test_no_file_is_replaced_unasked_and_status_filters_by_environment(capsys, served, tmp_path):
    path = write_ndjson(tmp_path / "w.ndjson", agents("OVR", 2))
    job_id = bulk(capsys, "submit", str(path), "--wait")[1].strip()
    out = tmp_path / "r.csv"
    failed = tmp_path / "failed.ndjson"
    failed.write_text("the TUI saved this\n")
    code, _, err = bulk(capsys, "report", job_id, "--out", str(out))
    assert code == 2 and "already exists" in err and "--force" in err
    assert failed.read_text() == "the TUI saved this\n" and not out.exists()
    assert bulk(capsys, "report", job_id, "--out", str(out), "--force")[0] == 0
    assert failed.read_text() == ""
    code, listed, _ = bulk(capsys, "status", "--env", "served")
    assert code == 0 and job_id in listed
    # A name no environment has is said so (QA: "no bulk jobs yet in environment nope").
    code, listed, err = bulk(capsys, "status", "--env", "elsewhere")
    assert (code, listed) == (2, "") and "--env: no environment named elsewhere" in err


def test_report_checks_both_files_before_writing_either(capsys, served, tmp_path):
    path = write_ndjson(tmp_path / "w.ndjson", agents("BOTH", 1))
    job_id = bulk(capsys, "submit", str(path), "--wait")[1].strip()
    out = tmp_path / "a.csv"
    code, _, err = bulk(capsys, "report", job_id, "--out", str(out),
                        "--failed", str(tmp_path / "nowhere" / "f.ndjson"), "--force")  # fmt: skip
    assert code == 2 and "there is no folder" in err and not out.exists()


def refs_of(path: Path) -> set[str]:
    import json

    return {json.loads(line)["clientRefId"] for line in path.read_text().splitlines()}
