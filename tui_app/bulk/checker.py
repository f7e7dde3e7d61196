"""Validating a bulk file's lines in chunks, on a core of their own when the file is large.

A run's scan validates every line with the contract's models (about 45 us a line inside
pydantic-core). On a thread it shares the interpreter lock with the event loop that posts,
polls and settles, so the two take turns on one core. For a large file the chunks go to
a process of its own instead, and the run's interpreter only records the results. A small
file is checked in place: starting the process (importing the contract) costs more than it
saves.
"""

from __future__ import annotations

import multiprocessing
import os
from collections import deque
from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from itertools import islice

from tui_app.bulk.source import Checked, check
from tui_app.wire.ndjson import RawLine

IN_PROCESS_BELOW = 4 << 20
"""Files smaller than this many bytes (some 5,000 agent records) are checked in place."""
AHEAD = 2
"""Chunks the checking process may work ahead of the one being recorded."""


def check_lines(lines: Sequence[RawLine]) -> list[Checked]:
    return [check(line)[0] for line in lines]


def _check_chunk(lines: list[tuple[int, int, bytes]]) -> list[Checked]:
    """:func:`check_lines` in the checking process (tuples travel cheaper than
    dataclasses)."""
    return check_lines([RawLine(*line) for line in lines])


class Checker:
    """Checks a file's lines chunk by chunk, in file order. Use as a context manager; a
    process it started is stopped on leaving, even in the middle of a file."""

    def __init__(self, file_size: int) -> None:
        self._pool: ProcessPoolExecutor | None = None
        if file_size >= IN_PROCESS_BELOW and (os.cpu_count() or 1) > 1:
            # spawn, not fork: the process that runs a job has threads (the journal's)
            context = multiprocessing.get_context("spawn")
            self._pool = ProcessPoolExecutor(1, mp_context=context)

    @property
    def in_process(self) -> bool:
        """False when the lines go to a checking process."""
        return self._pool is None

    def chunks(self, lines: Iterable[RawLine], size: int) -> Iterator[list[Checked]]:
        """The lines checked, ``size`` at a time. Should the checking process die, the
        chunks it held are checked in place, and so is the rest: nothing is lost."""
        lines = iter(lines)
        pending: deque[tuple[list[RawLine], Future[list[Checked]] | None]] = deque()
        while chunk := list(islice(lines, size)):
            pending.append((chunk, self._submit(chunk)))
            if len(pending) > AHEAD:
                yield self._result(*pending.popleft())
        while pending:
            yield self._result(*pending.popleft())

    def _submit(self, chunk: list[RawLine]) -> Future[list[Checked]] | None:
        if self._pool is None:
            return None
        lines = [(line.number, line.offset, line.raw) for line in chunk]
        try:
            return self._pool.submit(_check_chunk, lines)
        except BrokenProcessPool:
            self.close()
            return None

    def _result(self, chunk: list[RawLine], future: Future[list[Checked]] | None) -> list[Checked]:
        if future is not None:
            try:
                return future.result()
            except BrokenProcessPool:
                self.close()
        return check_lines(chunk)

    def close(self) -> None:
        """Stop the checking process: chunks not begun are dropped, and the one under way
        (some 25 ms of work) is waited for, so the process is gone on return."""
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None

    def __enter__(self) -> Checker:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
