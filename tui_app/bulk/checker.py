"""Validating a bulk file's lines in chunks, on a core of their own when the file is large.

A run's scan validates every line with the contract's models (about 45 us a line inside
pydantic-core). On a thread it shares the interpreter lock with the event loop that posts,
polls and settles, or with the TUI that draws: a pre-flight of 100,000 lines held the
TUI's interpreter for 11 s, and keys waited up to a second. For a large file a checking
process (``python -m tui_app.bulk.checker_process``) reads and validates the lines and streams
the results back, so the caller's interpreter only records them. A small file is checked
in place: starting the process (importing the contract) costs more than it saves.

A pre-flight, which only counts, may ask for a team of processes: they take the chunks in
turn (process ``k`` of ``n`` checks chunks ``k``, ``k + n``, ... and skips the lines of the
others, which costs a line's split and no validation), and the caller reads them back in
turn, so the chunks still come in file order. ``bulk check`` asks for one a core; the TUI
for one fewer, leaving a core to the terminal it draws on (on 2 cores a team of two made
keys wait longer for a pre-flight no faster); a run asks for one: the run's interpreter
and the service need the other cores.

Checking processes lower their priority (:mod:`~tui_app.bulk.background`): a pre-flight's
team never takes the CPU from the TUI that asked for it.

A plain subprocess and a pipe, not :mod:`multiprocessing`: inside a Textual app
``sys.stderr`` has no file descriptor, and multiprocessing's resource tracker cannot start.
Each result travels as a pickle of a chunk of :class:`Checked` behind a marker and its
length; a stream that is anything else (a library writing to the process's standard
output) counts as a process that died: the rest is checked in place.
"""

from __future__ import annotations

import itertools
import os
import pickle
import subprocess
import sys
from collections.abc import Generator, Iterable, Iterator
from pathlib import Path
from typing import IO

from tui_app.bulk.source import Checked, check
from tui_app.wire.ndjson import RawLine, read_raw

IN_PROCESS_BELOW = 4 << 20
"""Files (or what is left of them) smaller than this many bytes, some 5,000 agent records,
are checked in place; a team has a process per this many bytes at most."""
MAX_TEAM = 8
"""Checking processes at most, whatever the cores (each holds some 30 MiB)."""
MAX_CHUNK_BYTES = 64 << 20
"""A chunk's pickle is far smaller (some 100 bytes a line); a length beyond this is
garbage, refused before anything is read."""
_MAGIC = b"CHK1"
_HEADER = 8
"""Bytes before each chunk: ``_MAGIC`` and the chunk's length (4 bytes)."""


def check_lines(lines: Iterable[RawLine]) -> list[Checked]:
    return [check(line)[0] for line in lines]


def checked_chunks(
    path: Path,
    size: int,
    *,
    start_offset: int = 0,
    start_line: int = 1,
    after: int = 0,
    processes: int = 1,
) -> Generator[list[Checked], None, None]:
    """The file's lines after line ``after``, reading from ``start_offset`` (the start of
    line ``start_line``), checked ``size`` at a time, in file order, by up to ``processes``
    checking processes. Should one die, the rest is checked in place from the last line
    received: nothing is lost. Closing the iterator early stops the processes."""
    team = _start_team(path, size, start_offset, start_line, after, processes)
    if team:
        finished = False
        try:
            for process in itertools.cycle(team):
                try:
                    chunk = _receive(process.stdout, after)
                except _Garbled:
                    break  # check the rest here
                if chunk is None:
                    # The chunk of this turn does not exist: the file is over, unless the
                    # process died before sending it.
                    finished = process.wait() == 0
                    break
                yield chunk
                start_offset, start_line = chunk[-1].offset, chunk[-1].number
                after = chunk[-1].number
        finally:
            _stop(team)
        if finished:
            return
    yield from _in_place(path, size, start_offset, start_line, after)


def available_cores() -> int:
    """The cores this process may run on (a pre-flight's team size)."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # not on this system
        return os.cpu_count() or 1


def _worth(path: Path, start_offset: int) -> int:
    """How many checking processes the rest of the file is worth: one per
    ``IN_PROCESS_BELOW`` bytes, none on a single core."""
    try:
        left = path.stat().st_size - start_offset
    except OSError:
        return 0  # reading it in place says why
    return left // IN_PROCESS_BELOW if available_cores() > 1 else 0


def _in_place(
    path: Path,
    size: int,
    start_offset: int,
    start_line: int,
    after: int,
    part: int = 0,
    parts: int = 1,
) -> Iterator[list[Checked]]:
    """The chunks ``part``, ``part + parts``, ... of the lines after ``after``, checked."""
    lines = read_raw(path, start_offset=start_offset, start_line=start_line)
    lines = (line for line in lines if line.number > after)
    for index in itertools.count():
        chunk = list(itertools.islice(lines, size))
        if not chunk:
            return
        if index % parts == part:
            yield check_lines(chunk)


def _start_team(
    path: Path, size: int, start_offset: int, start_line: int, after: int, processes: int
) -> list[subprocess.Popen[bytes]]:
    """Checking processes for the rest of the file (none if it is too small to be worth
    one), each taking its turn of the chunks."""
    processes = min(processes, MAX_TEAM, _worth(path, start_offset))
    team: list[subprocess.Popen[bytes]] = []
    try:
        for part in range(processes):
            process = _start(path, size, start_offset, start_line, after, part, processes)
            if process is None:
                break
            team.append(process)
        if len(team) < processes:  # fewer than asked: their turns would not add up
            _stop(team)
            alone = _start(path, size, start_offset, start_line, after, 0, 1)
            team = [alone] if alone is not None else []
    except BaseException:  # Ctrl-C while starting them: none is left behind
        _stop(team)
        raise
    return team


def _stop(team: list[subprocess.Popen[bytes]]) -> None:
    for process in team:
        process.kill()  # nothing to kill once it has finished
        process.wait()
        if process.stdout is not None:
            process.stdout.close()


def _start(
    path: Path, size: int, start_offset: int, start_line: int, after: int, part: int, parts: int
) -> subprocess.Popen[bytes] | None:
    """A checking process for its part of the rest of the file, if one can be started."""
    command = [sys.executable, "-m", "tui_app.bulk.checker_process", str(path), str(size),
               str(start_offset), str(start_line), str(after), str(part), str(parts)]  # fmt: skip
    try:
        return subprocess.Popen(
            command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
        )
    except OSError:  # no process to be had (a limit on processes, say): check in place
        return None


class _Garbled(Exception):
    """The stream holds something other than the chunks the process writes (a library
    writing to its standard output, say)."""


def _receive(stream: IO[bytes] | None, after: int) -> list[Checked] | None:
    """The next chunk, or None at the end of the stream (a finished or a dead process).
    Raises :class:`_Garbled` for a chunk cut short, a stream that is not chunks, or
    lines that do not follow line ``after`` (a file changed under the team): what comes
    from there on cannot be trusted."""
    assert stream is not None
    header = stream.read(_HEADER)
    if not header:
        return None
    if len(header) < _HEADER or not header.startswith(_MAGIC):
        raise _Garbled
    length = int.from_bytes(header[len(_MAGIC) :], "little")
    if length > MAX_CHUNK_BYTES:
        raise _Garbled
    data = stream.read(length)
    if len(data) < length:
        raise _Garbled
    try:
        chunk = pickle.loads(data)
    except Exception as exc:  # whatever garbage makes of the unpickler
        raise _Garbled from exc
    if not (isinstance(chunk, list) and chunk and all(type(c) is Checked for c in chunk)):
        raise _Garbled
    numbers = [c.number for c in chunk]
    if numbers[0] <= after or numbers != sorted(set(numbers)):
        raise _Garbled
    return chunk


def _frame(chunk: list[Checked]) -> bytes:
    data = pickle.dumps(chunk, protocol=pickle.HIGHEST_PROTOCOL)
    return _MAGIC + len(data).to_bytes(_HEADER - len(_MAGIC), "little") + data


def serve(args: list[str]) -> None:
    """The checking process: each chunk of its part to stdout as soon as it is checked."""
    path, (size, start_offset, start_line, after, part, parts) = Path(args[0]), map(int, args[1:])
    out = sys.stdout.buffer
    sys.stdout = sys.stderr  # nothing else may write into the stream of results
    for chunk in _in_place(path, size, start_offset, start_line, after, part, parts):
        out.write(_frame(chunk))
        out.flush()
