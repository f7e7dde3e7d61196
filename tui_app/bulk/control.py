"""What an attached user interface does with bulk jobs, as awaitables that never block.

The TUI does not run jobs: workers do (see :mod:`tui_app.bulk.worker`). It submits,
resumes, stops and retries them and reads their progress and lines, all through this
facade, whose every journal call and file operation runs on one thread of its own (calls
are short and serialised, and the event loop never waits on SQLite or a lock file).
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

from tui_app.bulk.journal import DONE, Job, Journal, LineOutcome
from tui_app.bulk.pipeline import create_job
from tui_app.bulk.report import Report, write_failed, write_report
from tui_app.bulk.worker import Attached, look, spawn

T = TypeVar("T")


class JobControl:
    """Bulk jobs as an attached interface sees and steers them. The journal is opened on
    first use (in the thread), so creating this costs nothing."""

    def __init__(self, journal_path: Path | None = None) -> None:
        self._path = journal_path
        self._journal: Journal | None = None
        self._thread = ThreadPoolExecutor(1, "bulk-journal")

    async def _call(self, call: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._thread, functools.partial(call, *args, **kwargs))

    def _open(self) -> Journal:
        if self._journal is None:
            self._journal = Journal(self._path)
        return self._journal

    async def _with_journal(self, call: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        return await self._call(lambda: call(self._open(), *args, **kwargs))

    def close(self) -> None:
        """Close the journal (blocking; at exit)."""
        self._thread.submit(self._close).result()
        self._thread.shutdown()

    def _close(self) -> None:
        if self._journal is not None:
            self._journal.close()
            self._journal = None

    # --- reading ---

    async def jobs(self, env: str | None = None) -> list[Attached]:
        """Every job (of ``env`` if given), newest first, each with whether it runs."""

        def read(journal: Journal) -> list[Attached]:
            return [Attached(job, job.state != DONE and journal.is_running(job.id))
                    for job in journal.jobs(env)]  # fmt: skip

        return await self._with_journal(read)

    async def look(self, job_id: str) -> Attached:
        return await self._with_journal(look, job_id)

    async def lines(
        self,
        job_id: str,
        *,
        states: Iterable[str] | None = None,
        retryable: bool | None = None,
        after: int = 0,
        limit: int = 100,
    ) -> list[LineOutcome]:
        def read(journal: Journal) -> list[LineOutcome]:
            return list(journal.lines(job_id, states=states, retryable=retryable,
                                      after=after, limit=limit))  # fmt: skip

        return await self._with_journal(read)

    def lines_now(self, job_id: str, **kwargs: Any) -> list[LineOutcome]:
        """:meth:`lines` for a caller already in a worker thread (a paged table's source)."""
        return self._thread.submit(lambda: list(self._open().lines(job_id, **kwargs))).result()

    def count_now(self, job_id: str, **kwargs: Any) -> int:
        return self._thread.submit(lambda: self._open().count_lines(job_id, **kwargs)).result()

    # --- steering ---

    async def submit(self, path: Path, env: str, max_bytes: int | None = None) -> Job:
        """Record a job for ``path`` and start its worker. Raises ``SourceError`` for a
        file that cannot be imported, ``WorkerFailed`` if the worker does not start."""
        job = await self._with_journal(create_job, path, env, max_bytes=max_bytes)
        await self.start(job.id)
        return job

    async def start(self, job_id: str) -> Path:
        """Start a worker for the job (its log's path). ``WorkerFailed``, ``OSError``."""
        return await self._with_journal(spawn, job_id)

    async def stop(self, job_id: str) -> None:
        await self._with_journal(Journal.request_stop, job_id)

    async def retry(self, job_id: str) -> int:
        """Put the job's retryable failures and unknown outcomes back to be sent and start
        a worker if there are any; how many."""
        count = await self._with_journal(Journal.retry_retryable, job_id)
        if count:
            await self.start(job_id)
        return count

    async def verify(self, job_id: str, client, on_progress=None):
        from tui_app.bulk.verify import verify_job

        journal = await self._call(self._open)
        return await verify_job(journal, job_id, client, on_progress)

    async def report(self, job_id: str, out: Path, failed: Path) -> Report:
        return await self._with_journal(write_report, job_id, out, failed, overwrite=True)

    async def failed(self, job_id: str, out: Path) -> int:
        return await self._with_journal(write_failed, job_id, out, overwrite=True)
