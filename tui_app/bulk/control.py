"""What an attached user interface does with bulk jobs, as awaitables that never block.

The TUI does not run jobs: workers do (see :mod:`tui_app.bulk.worker`). It submits,
resumes, stops and retries them and reads their progress and lines, all through this
facade, whose every journal call and file operation runs on one thread of its own (calls
are short and serialised, and the event loop never waits on SQLite or a lock file).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from tui_app.bulk.journal import DONE, Job, Journal, LineOutcome
from tui_app.bulk.pipeline import create_job
from tui_app.bulk.report import Report, write_failed, write_report
from tui_app.bulk.source import Fingerprint
from tui_app.bulk.worker import Attached, look, spawn
from tui_app.own_thread import OwnThread


class JobControl:
    """Bulk jobs as an attached interface sees and steers them. The journal is opened on
    first use (in the thread), so creating this costs nothing."""

    def __init__(self, journal_path: Path | None = None) -> None:
        self._journal = OwnThread("bulk-journal", lambda: Journal(journal_path))

    def close(self) -> None:
        """Close the journal (blocking; at exit)."""
        self._journal.close()

    # --- reading ---

    async def jobs(self, env: str | None = None) -> list[Attached]:
        """Every job (of ``env`` if given), newest first, each with whether it runs."""

        def read(journal: Journal) -> list[Attached]:
            return [Attached(job, job.state != DONE and journal.is_running(job.id))
                    for job in journal.jobs(env)]  # fmt: skip

        return await self._journal.call(read)

    async def look(self, job_id: str) -> Attached:
        return await self._journal.call(look, job_id)

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

        return await self._journal.call(read)

    def lines_now(self, job_id: str, **kwargs: Any) -> list[LineOutcome]:
        """:meth:`lines` for a caller already in a worker thread (a paged table's source)."""
        return self._journal.call_sync(lambda journal: list(journal.lines(job_id, **kwargs)))

    def count_now(self, job_id: str, **kwargs: Any) -> int:
        return self._journal.call_sync(Journal.count_lines, job_id, **kwargs)

    # --- steering ---

    async def submit(
        self,
        path: Path,
        env: str,
        max_bytes: int | None = None,
        *,
        once: bool = False,
        fingerprint: Fingerprint | None = None,
    ) -> Job:
        """Record a job for ``path`` and start its worker. Raises ``SourceError`` for a
        file that cannot be imported (``AlreadySubmitted`` if ``once`` and ``env`` has a
        job of the same content), ``WorkerFailed`` if the worker does not start.
        ``fingerprint``: the file's, if known (see :func:`create_job`)."""
        job = await self._journal.call(
            create_job, path, env, max_bytes=max_bytes, once=once, fingerprint=fingerprint
        )
        await self.start(job.id)
        return job

    async def start(self, job_id: str) -> Path:
        """Start a worker for the job (its log's path). ``WorkerFailed``, ``OSError``."""
        return await self._journal.call(spawn, job_id)

    async def stop(self, job_id: str) -> None:
        await self._journal.call(Journal.request_stop, job_id)

    async def retry(self, job_id: str) -> int:
        """Put the job's retryable failures and unknown outcomes back to be sent and start
        a worker if there are any; how many."""
        count = await self._journal.call(Journal.retry_retryable, job_id)
        if count:
            await self.start(job_id)
        return count

    async def verify(self, job_id: str, client, on_progress=None):
        from tui_app.bulk.verify import verify_job

        journal = await self._journal.call(lambda journal: journal)  # opened on its thread
        return await verify_job(journal, job_id, client, on_progress)

    async def report(self, job_id: str, out: Path, failed: Path) -> Report:
        return await self._journal.call(write_report, job_id, out, failed, overwrite=True)

    async def failed(self, job_id: str, out: Path) -> int:
        return await self._journal.call(write_failed, job_id, out, overwrite=True)
