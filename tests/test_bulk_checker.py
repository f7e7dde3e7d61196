"""A large file's lines are validated in a process of their own (issue 12): the results are
the ones checking in place gives, and a process that dies costs no line."""

from __future__ import annotations

import multiprocessing
import os
import signal
from pathlib import Path

import pytest
from bulk_support import agent, agents, envelope, write_ndjson

import tui_app.bulk.checker as checker
from tui_app.bulk.checker import Checker, check_lines
from tui_app.bulk.source import check
from tui_app.wire.ndjson import read_raw


@pytest.fixture
def mixed(tmp_path: Path) -> Path:
    """40 lines: valid envelopes, and every tenth line refused for a different reason."""
    lines: list = agents("CHK", 40)
    lines[9] = "{not json"
    lines[19] = envelope(agent("CHK-BAD", 20, empStatus="12"))
    lines[29] = b"\xff\xfe not utf-8"
    lines[39] = {"profileKey": "CHK-NONE"}
    return write_ndjson(tmp_path / "mixed.ndjson", lines)


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Every line checked in this process (a checking process has its own ``check``)."""
    calls: list[int] = []

    def counting(line):
        calls.append(line.number)
        return check(line)

    monkeypatch.setattr(checker, "check", counting)
    monkeypatch.setattr(checker, "IN_PROCESS_BELOW", 0)  # any file goes to a process
    return calls


def test_a_large_file_is_checked_in_a_process_of_its_own_with_the_same_results(
    mixed: Path, counted: list[int]
):
    expected = [check(line)[0] for line in read_raw(mixed)]
    with Checker(mixed.stat().st_size) as it:
        assert not it.in_process
        chunks = list(it.chunks(read_raw(mixed), 7))
    assert [len(chunk) for chunk in chunks] == [7] * 5 + [5]
    assert [line for chunk in chunks for line in chunk] == expected
    assert counted == []  # not one line was checked here
    assert sum(not line.valid for line in expected) == 4
    assert multiprocessing.active_children() == []  # the process is gone


def test_a_checking_process_that_dies_costs_no_line(mixed: Path, counted: list[int]):
    expected = [check(line)[0] for line in read_raw(mixed)]
    with Checker(mixed.stat().st_size) as it:
        chunks = it.chunks(read_raw(mixed), 5)
        got = next(chunks)
        (process,) = multiprocessing.active_children()
        os.kill(process.pid, signal.SIGKILL)
        process.join()
        got += [line for chunk in chunks for line in chunk]
        assert it.in_process  # the rest was checked here
    assert got == expected
    assert counted  # by this process, after the other died


def test_a_small_file_is_checked_in_place(mixed: Path):
    with Checker(mixed.stat().st_size) as it:
        assert it.in_process
        assert [line for chunk in it.chunks(read_raw(mixed), 500) for line in chunk] == (
            check_lines(list(read_raw(mixed)))
        )
