"""What the bulk pipeline offers a UI beyond running jobs: the pre-flight look at a file,
line counts per filter (for paging), and the failed lines written on their own."""

from __future__ import annotations

import threading
import time
import uuid
from pathlib import Path

import pytest
from bulk_support import agent, envelope, validations_here, write_ndjson

import tui_app.bulk.checker as checker
from tui_app.bulk.journal import FAILED, INVALID, Journal, LineUpdate
from tui_app.bulk.pipeline import create_job
from tui_app.bulk.preflight import PROGRESS_EVERY, preflight
from tui_app.bulk.report import write_failed, write_report
from tui_app.bulk.source import SourceError, check
from tui_app.wire.ndjson import read_lines


def mixed_file(tmp_path: Path) -> Path:
    first = envelope(agent("PF-1", 1))
    nameless = agent("PF-2", 2)
    del nameless["demographic"]["firstName"]
    return write_ndjson(tmp_path / "mixed.ndjson", [
        first,                                          # 1
        nameless,                                       # 2: invalid
        "",                                             # 3: blank, not a record
        "{not json",                                    # 4: invalid
        agent("PF-5", 5),                               # 5: a bare agent
        envelope(agent("PF-6", 6), first["clientRefId"]),  # 6: repeats line 1's id
    ])  # fmt: skip


@pytest.fixture(params=["in place", "in a checking process"])
def checking(request, monkeypatch) -> list[bytes]:
    """Where lines are validated; the lines validated in this process (a checking
    process has a BulkItem of its own)."""
    if request.param == "in a checking process":
        monkeypatch.setattr(checker, "IN_PROCESS_BELOW", 1)
    return validations_here(monkeypatch)


def test_preflight_counts_as_the_job_will_and_names_the_first_problems(tmp_path, checking):
    path = mixed_file(tmp_path)
    found = preflight(path)
    # A large file (here: any) is validated off the caller's interpreter: the TUI's.
    assert bool(checking) == (checker.IN_PROCESS_BELOW > 1)
    assert found.done and found.share == 1.0 and found.read == path.stat().st_size
    assert (found.records, found.valid, found.invalid) == (5, 2, 3)
    assert [p.line for p in found.problems] == [2, 4, 6]
    assert str(found.problems[0]) == "line 2: demographic.firstName: is required"
    assert found.problems[1].errors[0].startswith("not valid JSON")
    assert found.problems[2].errors == ("clientRefId: repeats line 1",)

    # The journal, fed the same lines as a run feeds it, agrees line for line.
    with Journal(tmp_path / "journal.db") as journal:
        job = create_job(journal, path, "sandbox")
        journal.add_lines(job.id, [check(line)[0] for line in read_lines(path)], done=True)
        counts = journal.counts(job.id)
        assert (counts.lines, counts.invalid) == (found.records, found.invalid)
        invalid = {o.line: tuple(o.errors) for o in journal.lines(job.id, states=[INVALID])}
        assert invalid == {p.line: p.errors for p in found.problems}


def test_a_line_longer_than_a_request_may_be_is_invalid_before_anything_is_sent(tmp_path):
    """Seen (QA): with bulk_max_request_bytes set, a pre-flight called a line longer than
    the limit valid; the run sent it alone and only the service's 413 made it invalid."""
    big = agent("PF-BIG", 1)
    big["demographic"]["lastName"] = "x" * 1500
    path = write_ndjson(tmp_path / "big.ndjson", [envelope(agent("PF-OK", 2)), envelope(big)])
    length = len(path.read_bytes().splitlines()[1])
    found = preflight(path, max_bytes=1200)
    assert (found.valid, found.invalid) == (1, 1)
    [problem] = found.problems
    assert problem.line == 2 and problem.errors[-1] == (
        f"{length:,} bytes: longer than a request may be here (1,200 bytes, bulk_max_request_bytes)"
    )
    assert preflight(path).invalid == 0  # no limit known: the service's 413 will say


def test_preflight_keeps_only_the_first_problems_and_reports_progress(tmp_path):
    count = PROGRESS_EVERY * 2 + 10
    lines = ["{bad" if n % 3 == 0 else envelope(agent(f"P-{n}", n)) for n in range(1, count + 1)]
    path = write_ndjson(tmp_path / "big.ndjson", lines)
    seen = []
    found = preflight(path, on_progress=seen.append, first=2)
    assert [s.records for s in seen] == [PROGRESS_EVERY, PROGRESS_EVERY * 2]
    assert 0 < seen[0].share < seen[1].share < 1 and not seen[0].done
    assert found.records == count and found.invalid == count // 3
    assert [p.line for p in found.problems] == [3, 6]


def test_a_cancelled_preflight_stops_early_with_what_it_found(tmp_path):
    path = write_ndjson(
        tmp_path / "big.ndjson", [envelope(agent(f"C-{n}", n)) for n in range(PROGRESS_EVERY * 3)]
    )
    stop = threading.Event()
    found = preflight(path, on_progress=lambda _: stop.set(), cancelled=stop)
    assert not found.done and found.records == PROGRESS_EVERY


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda d: d / "missing.ndjson", "no such file"),
        (lambda d: d, "is a folder"),
        (lambda d: write_ndjson(d / "empty.ndjson", []), "is empty"),
        (
            lambda d: (d / "bin.ndjson", (d / "bin.ndjson").write_bytes(b"\x00\x01"))[0],
            "not UTF-8 text",
        ),
    ],
)
def test_preflight_refuses_a_file_that_cannot_be_imported(tmp_path, make, message):
    with pytest.raises(SourceError, match=message):
        preflight(make(tmp_path))


def test_preflight_does_not_hash_the_file(tmp_path, monkeypatch):
    """It needs the file's size, not its SHA-256 (a job's fingerprint): hashing a 76 MB
    file held the checking processes back by about 0.1 s of a 2.1 s pre-flight."""
    import tui_app.bulk.source as source

    hashed: list[object] = []
    fingerprint = source._fingerprint
    monkeypatch.setattr(source, "_fingerprint", lambda f: hashed.append(f) or fingerprint(f))
    assert preflight(mixed_file(tmp_path)).records == 5
    assert hashed == []
    source.inspect_file(mixed_file(tmp_path))  # a job's does
    assert len(hashed) == 1


def settled_job(journal: Journal, tmp_path: Path) -> str:
    """A job of 6 lines: 1 invalid, then lines 2-6 sent; 3 and 5 failed (5 retryable)."""
    lines = ["{bad", *(envelope(agent(f"R-{n}", n)) for n in range(2, 7))]
    path = write_ndjson(tmp_path / "in.ndjson", lines)
    job = create_job(journal, path, "sandbox")
    journal.add_lines(job.id, [check(line)[0] for line in read_lines(path)], done=True)
    batch = journal.take_batch(job.id, 10, min_size=1, now=time.time())
    journal.settle(batch.id, "DONE", [
        LineUpdate(e.line, FAILED if e.line in (3, 5) else "COMPLETED", 1,
                   retryable=e.line == 5, errors=["x"] if e.line in (3, 5) else [])
        for e in batch.lines
    ])  # fmt: skip
    return job.id


def test_count_lines_matches_the_lines_each_filter_gives(tmp_path):
    with Journal(tmp_path / "journal.db") as journal:
        job_id = settled_job(journal, tmp_path)
        for states, retryable, expected in [
            (None, None, 6),
            ([FAILED], None, 2),
            ([FAILED], True, 1),
            ([INVALID], None, 1),
            ([FAILED, INVALID], None, 3),
            ([FAILED], False, 1),
        ]:
            listed = list(journal.lines(job_id, states=states, retryable=retryable))
            assert journal.count_lines(job_id, states=states, retryable=retryable) == expected
            assert len(listed) == expected
        assert journal.count_lines(str(uuid.uuid4())) == 0


def test_the_failed_lines_are_written_on_their_own_and_never_over_the_input(tmp_path):
    with Journal(tmp_path / "journal.db") as journal:
        job_id = settled_job(journal, tmp_path)
        source = journal.job(job_id).path
        out = tmp_path / "out" / "fix-these.ndjson"
        out.parent.mkdir()
        assert write_failed(journal, job_id, out) == 3
        original = source.read_bytes().splitlines(keepends=True)
        assert out.read_bytes() == b"".join(original[n - 1] for n in (1, 3, 5))
        assert sorted(p.name for p in out.parent.iterdir()) == ["fix-these.ndjson"]

        before = source.read_bytes()
        with pytest.raises(SourceError, match="input file"):
            write_failed(journal, job_id, source)
        with pytest.raises(SourceError, match="input file"):
            write_report(journal, job_id, tmp_path / "r.csv", failed=source)
        with pytest.raises(SourceError, match="input file"):
            write_report(journal, job_id, source)
        assert source.read_bytes() == before


def test_preflight_is_core_code_without_textual_or_rich():
    import json
    import subprocess
    import sys

    code = "import json, sys, tui_app.bulk.preflight; print(json.dumps(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    loaded = set(json.loads(out.stdout))
    assert "tui_app.bulk.preflight" in loaded
    assert not {m for m in loaded if m.split(".")[0] in ("textual", "rich")}
