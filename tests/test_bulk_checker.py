"""A large file's lines are validated in a process of their own (issue 12): the results are
the ones checking in place gives, a resumed scan starts where it was, and a process that
dies costs no line."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import pytest
from bulk_support import agent, agents, envelope, write_ndjson

import tui_app.bulk.checker as checker
from tui_app.bulk.background import CHECKER_NICENESS
from tui_app.bulk.checker import checked_chunks
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
def processes(monkeypatch: pytest.MonkeyPatch) -> list[subprocess.Popen]:
    """Any file goes to a checking process; the processes started, and every line checked
    in this process (``checked_here``; a checking process has its own ``check``)."""
    started: list[subprocess.Popen] = []
    start = checker._start
    monkeypatch.setattr(checker, "_start", lambda *a: started.append(start(*a)) or started[-1])
    monkeypatch.setattr(checker, "IN_PROCESS_BELOW", 1)  # every byte worth a process
    monkeypatch.setattr(checker, "available_cores", lambda: 2)  # whatever runs the tests
    return started


@pytest.fixture
def checked_here(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    calls: list[int] = []
    monkeypatch.setattr(checker, "check", lambda line: calls.append(line.number) or check(line))
    return calls


def expected(path: Path) -> list:
    return [check(line)[0] for line in read_raw(path)]


def test_a_large_file_is_checked_in_a_process_of_its_own_with_the_same_results(
    mixed: Path, processes: list, checked_here: list[int]
):
    chunks = list(checked_chunks(mixed, 7))
    assert [len(chunk) for chunk in chunks] == [7] * 5 + [5]
    assert [line for chunk in chunks for line in chunk] == expected(mixed)
    assert len(processes) == 1 and processes[0].returncode is not None  # ended
    assert checked_here == []  # not one line was checked here
    assert sum(not line.valid for chunk in chunks for line in chunk) == 4


def test_a_resumed_scan_checks_only_the_lines_after_the_last_recorded(mixed: Path, processes: list):
    lines = expected(mixed)
    last = lines[24]  # recorded by an earlier run: line 25, its offset
    chunks = list(checked_chunks(mixed, 10, start_offset=last.offset, start_line=25, after=25))
    assert [line for chunk in chunks for line in chunk] == lines[25:]
    assert processes


class CutShort:
    """A checking process that died after sending one chunk and part of the next: its
    real output, cut there."""

    def __init__(self, process: subprocess.Popen) -> None:
        out = process.communicate()[0]
        first = 8 + int.from_bytes(out[4:8], "little")  # after the marker and the length
        self.stdout = io.BytesIO(out[: first + 20])

    def kill(self) -> None:
        pass

    def wait(self) -> int:
        return -9


def test_a_checking_process_that_dies_costs_no_line(
    mixed: Path, processes: list, checked_here: list[int], monkeypatch: pytest.MonkeyPatch
):
    start = checker._start
    monkeypatch.setattr(checker, "_start", lambda *a: CutShort(start(*a)))
    got = [line for chunk in checked_chunks(mixed, 5) for line in chunk]
    assert got == expected(mixed)
    assert checked_here == list(range(6, 41))  # here, from the first line not received


class Garbled:
    """A checking process that ended well, but whose stream holds its first chunk, then
    something else: a library's text on its standard output, or bytes that look like a
    chunk of some 10**18 bytes."""

    def __init__(self, process: subprocess.Popen, garbage: bytes) -> None:
        out = process.communicate()[0]
        first = 8 + int.from_bytes(out[4:8], "little")
        garbage = out[:first] if garbage == b"again" else garbage  # lines 1-5 once more
        self.stdout = io.BytesIO(out[:first] + garbage + out[first:])

    def kill(self) -> None:
        pass

    def wait(self) -> int:
        return 0


@pytest.mark.parametrize(
    "garbage",
    [b"- warning: something\n", b"CHK1\xff\xff\xff\x7f", b"CHK1\x03\x00\x00\x00abc",
     b"CHK1\x05\x00\x00\x00" + b"\x80\x05K\x01.",  # a pickle, but of 1, not of a chunk
     b"CHK1\x11\x00\x00\x00" + b"cnosuchmodule\nx\n.",  # a pickle naming no module
     b"again"],  # a good chunk, but of lines already received (a file changed under it)
)  # fmt: skip
def test_a_garbled_stream_costs_no_line_and_raises_nothing(
    mixed: Path,
    processes: list,
    checked_here: list[int],
    monkeypatch: pytest.MonkeyPatch,
    garbage: bytes,
):
    start = checker._start
    monkeypatch.setattr(checker, "_start", lambda *a: Garbled(start(*a), garbage))
    got = [line for chunk in checked_chunks(mixed, 5) for line in chunk]
    assert got == expected(mixed)
    assert checked_here == list(range(6, 41))  # here, after the one good chunk


def test_leaving_early_stops_the_checking_process(mixed: Path, processes: list):
    chunks = checked_chunks(mixed, 5)
    next(chunks)
    chunks.close()
    assert processes[0].returncode is not None


def test_a_small_file_is_checked_in_place(mixed: Path, checked_here: list[int]):
    chunks = list(checked_chunks(mixed, 500))
    assert [line for chunk in chunks for line in chunk] == expected(mixed)
    assert len(checked_here) == 40


def test_no_process_to_be_had_means_checking_in_place(
    mixed: Path, checked_here: list[int], monkeypatch: pytest.MonkeyPatch
):
    def refuse(*args, **kwargs):
        raise OSError(11, "Resource temporarily unavailable")

    monkeypatch.setattr(checker, "IN_PROCESS_BELOW", 1)
    monkeypatch.setattr(checker, "available_cores", lambda: 2)
    monkeypatch.setattr(checker.subprocess, "Popen", refuse)
    chunks = list(checked_chunks(mixed, 500))
    assert [line for chunk in chunks for line in chunk] == expected(mixed)
    assert len(checked_here) == 40


# --- a team of checking processes (a pre-flight's, one a core) -------------------------


def test_a_team_of_processes_takes_the_chunks_in_turn_and_gives_them_in_file_order(
    mixed: Path, processes: list, checked_here: list[int]
):
    chunks = list(checked_chunks(mixed, 3, processes=3))
    assert [len(chunk) for chunk in chunks] == [3] * 13 + [1]
    assert [line for chunk in chunks for line in chunk] == expected(mixed)
    assert checked_here == []
    assert sorted(p.args[-2:] for p in processes) == [["0", "3"], ["1", "3"], ["2", "3"]]
    assert all(p.returncode is not None for p in processes)


def test_each_member_of_a_team_checks_only_its_own_turns(mixed: Path, checked_here: list[int]):
    parts = [list(checker._in_place(mixed, 4, 0, 1, 0, part, 3)) for part in range(3)]
    assert [len(part) for part in parts] == [4, 3, 3]  # 10 chunks: 0, 3, 6, 9 to the first
    assert sorted(checked_here) == list(range(1, 41))  # every line once, by one of them
    in_turn = [parts[i % 3][i // 3] for i in range(10)]
    assert [line for chunk in in_turn for line in chunk] == expected(mixed)


def test_a_member_of_a_team_that_dies_costs_no_line(
    mixed: Path, processes: list, checked_here: list[int], monkeypatch: pytest.MonkeyPatch
):
    start = checker._start
    members = iter([start, lambda *a: CutShort(start(*a))])  # the second dies
    monkeypatch.setattr(checker, "_start", lambda *a: next(members)(*a))
    got = list(checked_chunks(mixed, 5, processes=2))
    assert [line for chunk in got for line in chunk] == expected(mixed)
    # chunks of 5 lines in turn: the second process sent lines 6-10 and died in its next
    # turn (16-20), after the first had sent 11-15; checked here from line 16
    assert checked_here == list(range(16, 41))


def test_a_team_short_of_processes_is_one_process(
    mixed: Path, processes: list, checked_here: list[int], monkeypatch: pytest.MonkeyPatch
):
    popen, calls = checker.subprocess.Popen, []

    def second_refused(*args, **kwargs):
        calls.append(args[0][-2:])
        if len(calls) == 2:
            raise OSError(11, "Resource temporarily unavailable")
        return popen(*args, **kwargs)

    monkeypatch.setattr(checker.subprocess, "Popen", second_refused)
    chunks = list(checked_chunks(mixed, 5, processes=3))
    assert [line for chunk in chunks for line in chunk] == expected(mixed)
    assert calls == [["0", "3"], ["1", "3"], ["0", "1"]]  # the first stopped, one alone
    assert checked_here == []


def test_a_preflight_asks_for_a_process_a_core(
    tmp_path: Path, processes: list, monkeypatch: pytest.MonkeyPatch
):
    from tui_app.bulk import preflight

    lines: list = agents("PRE", 30)
    lines[16] = "{not json"
    monkeypatch.setattr(preflight, "available_cores", lambda: 3)
    monkeypatch.setattr(checker, "available_cores", lambda: 3)
    found = preflight.preflight(write_ndjson(tmp_path / "few.ndjson", lines))
    assert (found.records, found.invalid, found.problems[0].line) == (30, 1, 17)
    assert len(processes) == 3


def test_a_checking_process_lowers_its_priority_before_importing_the_contract(mixed: Path):
    code = (
        "import sys; import tui_app.bulk.checker_process as entry\n"
        "def lowered(by): print(by, 'tui_app.bulk.source' in sys.modules, file=sys.stderr)\n"
        "entry.yield_cpu = lowered\n"
        f"sys.argv[1:] = [{str(mixed)!r}, '50', '0', '1', '0', '0', '1']\n"
        "entry.main()"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, check=True)
    assert done.stderr.decode().split() == [str(CHECKER_NICENESS), "False"]
    assert CHECKER_NICENESS > 0
    assert len(checker._receive(io.BytesIO(done.stdout), 0)) == 40


class Recording(io.BytesIO):
    def __init__(self, data: bytes) -> None:
        super().__init__(data)
        self.asked: list[int] = []

    def read(self, size: int | None = -1) -> bytes:
        self.asked.append(-1 if size is None else size)
        return super().read(size)


def test_a_garbage_length_is_refused_before_anything_is_read():
    stream = Recording(b"CHK1\xff\xff\xff\xff" + b"x" * 100)
    with pytest.raises(checker._Garbled):
        checker._receive(stream, 0)
    assert stream.asked == [8]  # the header only, not 4 GiB


def test_a_team_is_no_larger_than_the_file_is_worth(mixed: Path, processes: list, monkeypatch):
    monkeypatch.setattr(checker, "IN_PROCESS_BELOW", mixed.stat().st_size * 2 // 5)  # 2.5 of it
    chunks = list(checked_chunks(mixed, 5, processes=8))
    assert [line for chunk in chunks for line in chunk] == expected(mixed)
    assert len(processes) == 2


def test_leaving_a_team_early_stops_every_process(mixed: Path, processes: list):
    chunks = checked_chunks(mixed, 2, processes=2)
    next(chunks)
    chunks.close()
    assert len(processes) == 2 and all(p.returncode is not None for p in processes)
