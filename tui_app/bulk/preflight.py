"""A look at a bulk file before it is submitted: how many records, how many valid, and the
first problems with their line numbers.

It checks the file as :func:`~tui_app.bulk.pipeline.create_job` does and validates each
line as a run does (:func:`~tui_app.bulk.source.check`; a large file in checking
processes: see :mod:`~tui_app.bulk.checker`), so its counts are the ones the
job will have, including a clientRefId that repeats an earlier line's. Nothing is recorded
and nothing is sent; memory stays small whatever the file's size (one number per valid line's
clientRefId, to notice repeats, and the first few problems)::

    summary = preflight(path, on_progress=show, cancelled=event)   # in a worker thread
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from contextlib import closing
from dataclasses import dataclass, field, replace
from pathlib import Path

from tui_app.bulk.checker import available_cores, checked_chunks
from tui_app.bulk.journal import request_bytes
from tui_app.bulk.source import check_file

FIRST_PROBLEMS = 20
"""Problems kept for the summary (the TUI's panel scrolls through them); the rest are only
counted."""
PROGRESS_EVERY = 2000
"""Lines between two progress reports."""


@dataclass(frozen=True)
class Problem:
    line: int
    errors: tuple[str, ...]

    def __str__(self) -> str:
        return f"line {self.line}: {'; '.join(self.errors)}"


@dataclass(frozen=True)
class Preflight:
    """What a look at the file found so far (``done`` when it read the whole file)."""

    path: Path
    size: int
    """The file's size in bytes."""
    records: int = 0
    """Non-blank lines read so far: each one is a record, valid or not."""
    invalid: int = 0
    problems: tuple[Problem, ...] = field(default=())
    """The first :data:`FIRST_PROBLEMS` invalid lines."""
    read: int = 0
    """Bytes read so far."""
    done: bool = False

    @property
    def valid(self) -> int:
        return self.records - self.invalid

    @property
    def share(self) -> float:
        """How much of the file has been read, 0 to 1."""
        return 1.0 if self.done or not self.size else min(1.0, self.read / self.size)


def preflight(
    path: Path,
    *,
    on_progress: Callable[[Preflight], None] | None = None,
    cancelled: threading.Event | None = None,
    first: int = FIRST_PROBLEMS,
    processes: int | None = None,
    max_bytes: int | None = None,
) -> Preflight:
    """Validate every line of ``path`` without recording or sending anything. Raises
    :class:`~tui_app.bulk.source.SourceError` for a file that cannot be imported at all.
    ``on_progress`` gets the summary so far every :data:`PROGRESS_EVERY` lines (in the
    calling thread); setting ``cancelled`` stops before the next of those, returning what
    was found (not ``done``). A large file is checked by ``processes`` checking processes
    (default: one a core). A line longer than ``max_bytes`` (the environment's request
    size limit) is invalid: no request could carry it (a run found it out only from the
    service's 413)."""
    path = path.expanduser().resolve()
    size = check_file(path)
    records = invalid = read = 0
    problems: list[Problem] = []
    seen: dict[int, int] = {}  # hash of an envelope's clientRefId -> its line

    def summary(done: bool = False) -> Preflight:
        return Preflight(path, size, records, invalid, tuple(problems), read, done)

    team = available_cores() if processes is None else processes
    chunks = checked_chunks(path, PROGRESS_EVERY, processes=team)
    with closing(chunks):
        for chunk in chunks:
            if cancelled is not None and cancelled.is_set():
                return summary()
            for checked in chunk:
                records += 1
                errors = checked.errors
                if max_bytes is not None and request_bytes(checked.length) > max_bytes:
                    errors = (*errors, f"{checked.length:,} bytes: longer than a request may "
                              f"be here ({max_bytes:,} bytes, bulk_max_request_bytes)")  # fmt: skip
                if not errors:
                    # A bare record's new GUID never repeats: only an envelope's id can.
                    key = hash(checked.client_ref_id)
                    if key in seen:
                        errors = (f"clientRefId: repeats line {seen[key]}",)
                    else:
                        seen[key] = checked.number
                if errors:
                    invalid += 1
                    if len(problems) < first:
                        problems.append(Problem(checked.number, errors))
            read = chunk[-1].offset
            if on_progress is not None and records % PROGRESS_EVERY == 0:
                on_progress(summary())
    return replace(summary(True), read=size)
