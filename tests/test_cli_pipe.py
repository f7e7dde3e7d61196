"""Every command's output piped into a reader that stops early (``| head -3``) ends
quietly: no "Broken pipe" message, no traceback, exit 0."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from bulk_support import agents, write_ndjson

from tui_app.bulk.journal import Journal
from tui_app.bulk.pipeline import create_job


def run_into_closed_pipe(*args: str) -> subprocess.CompletedProcess[str]:
    """Run ``producer-tui ARGS`` with its stdout a pipe whose reader has already gone."""
    reader, writer = os.pipe()
    os.close(reader)
    try:
        return subprocess.run(
            [sys.executable, "-m", "tui_app", *args],
            stdout=writer, stderr=subprocess.PIPE, text=True, timeout=60,
        )  # fmt: skip
    finally:
        os.close(writer)


@pytest.mark.parametrize(
    "args",
    [
        ("bulk", "status"),  # more than a buffer's worth: breaks while it prints
        ("config", "path"),  # one line: breaks at the last flush
        ("watch", "list", "--format", "csv"),
    ],
)
def test_a_reader_that_goes_away_ends_the_command_quietly(tmp_path: Path, args):
    if args[0] == "bulk":  # a hundred jobs: some 12 KiB of status lines
        path = write_ndjson(tmp_path / "in.ndjson", agents("P", 1))
        with Journal() as journal:
            for _ in range(100):
                create_job(journal, path, "local")
    done = run_into_closed_pipe(*args)
    assert (done.returncode, done.stderr) == (0, "")


@pytest.mark.parametrize(
    ("args", "code"),
    [(("search", "agents", "--npn", "abc"), 2), (("--env", "nope", "config", "check"), 2)],
)
def test_a_failure_said_into_a_closed_pipe_keeps_its_exit_code(args, code):
    # QA: `... 2>&1 | head -0` read a failure as exit 0 (the message's broken pipe ended
    # the command as a satisfied reader of its output does).
    reader, writer = os.pipe()
    os.close(reader)
    try:
        done = subprocess.run(
            [sys.executable, "-m", "tui_app", *args],
            stdout=writer, stderr=writer, timeout=60,
        )  # fmt: skip
    finally:
        os.close(writer)
    assert done.returncode == code
