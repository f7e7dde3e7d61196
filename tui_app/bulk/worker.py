"""Bulk jobs run in worker processes of their own, which outlive the terminal.

Submitting a job (the TUI's F5, ``producer-tui bulk submit``) starts a detached worker:
``python -m tui_app bulk work JOB``, in a session of its own (no controlling terminal, so
a closed SSH connection sends it no hangup), its output in ``data_dir()/bulk-logs/JOB.log``
(0600). The worker takes the job's lock *before* it connects, runs the pipeline, writes
the report it was asked for, and exits. The TUI and the CLI only attach: they read
progress from the journal, and ask for a stop through it (:meth:`Journal.request_stop`),
which the worker notices within half a second. A worker killed outright (``kill -9``, a
reboot) leaves its job neither DONE nor STOPPED with nobody holding its lock: that is
"stopped unexpectedly", and a resume carries on losing nothing. A worker lowers its own
priority first (:mod:`~tui_app.bulk.background`), so it never makes the terminal beside it stutter.

A job on the embedded sandbox works the same way: the worker opens its own embedded
sandbox over the same database file (SQLite in WAL mode), so the records land in the
store the TUI reads. For a large file it serves that sandbox from a process of its own
(:data:`SANDBOX_APART_FROM`), as a real service is: the pipeline and the sandbox then
each have a core.
"""

from __future__ import annotations

import asyncio
import os
import secrets
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import AsyncExitStack, contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path

from tui_app.bulk.checker import IN_PROCESS_BELOW
from tui_app.bulk.journal import DONE, STOPPED, Job, JobBusy, Journal
from tui_app.bulk.source import verify_unchanged
from tui_app.config import Auth, ConfigError, Environment, data_dir
from tui_app.private_files import open_private, private_folder

SANDBOX_APART_FROM = IN_PROCESS_BELOW
"""An embedded job of a file this large (some 5,000 records) or more talks to its sandbox
served from a process of its own over the same database: in the worker's interpreter the
sandbox and the pipeline shared a core (100,000 records: 2,600 a second, against 7,000 to
a served sandbox). A smaller job keeps it in process: a server takes half a second to start."""
TOKEN_VARIABLE = "PRODUCER_TUI_WORKER_SANDBOX_TOKEN"
"""Holds the token the worker's own served sandbox asks for: nobody else on the machine
reaches it through its loopback port."""

START_TIMEOUT = 15.0
"""Seconds a new worker may take to take its job's lock (imports, config) before the
one who started it says it did not start."""


class WorkerFailed(RuntimeError):
    """A worker process ended before it took its job (its log says why)."""

    exit_code = 2


def _large(journal: Journal, job_id: str) -> bool:
    return journal.job(job_id).fingerprint.size >= SANDBOX_APART_FROM


@contextmanager
def _sandbox_apart(env: Environment) -> Iterator[Environment]:
    """The embedded environment ``env``'s sandbox served on a loopback port by a process
    of its own, as an environment that reaches it there; stopped on leaving. Its database,
    seed, date, dialect and failure rate are the embedded one's. Raises ``RuntimeError``
    if it does not start."""
    from tui_app.client.factory import embedded_db
    from tui_app.sandbox.process import served

    os.environ[TOKEN_VARIABLE] = secrets.token_urlsafe(32)  # inherited by the server
    args = ["--seed", str(env.seed), "--bulk-fail-rate", str(env.bulk_fail_rate),
            "--dialect", env.dialect, "--token-env", TOKEN_VARIABLE,
            "--stop-with", str(os.getpid())]  # fmt: skip
    if env.today is not None:
        args += ["--today", env.today.isoformat()]
    with served(embedded_db(env.seed), *args) as server:
        yield Environment(
            base_url=server.url,
            auth=Auth(type="bearer", token_env=TOKEN_VARIABLE),
            format=env.format,
            timeout=env.timeout,
            bulk_max_request_bytes=env.bulk_max_request_bytes,
            date_format=env.date_format,
        )


def log_path(job_id: str) -> Path:
    return data_dir() / "bulk-logs" / f"{job_id}.log"


def spawn(
    journal: Journal, job_id: str, *, concurrency: int = 4, report: Path | None = None
) -> Path:
    """Start a detached worker for the job and return its log's path once the worker
    holds the job (so a job shown as not running after this really is not). Raises
    :class:`~tui_app.bulk.journal.JobBusy` if a worker runs it already,
    :class:`~tui_app.bulk.source.SourceChanged` if its file changed,
    :class:`WorkerFailed` with the log's last line if it ends before, and ``OSError`` if
    it cannot be started. Blocking: call it in a thread from async code."""
    if journal.is_running(job_id):
        raise JobBusy(f"bulk job {job_id} is already running in another process")
    job = journal.job(job_id)
    verify_unchanged(job.path, job.fingerprint)  # say it now, not in a log
    journal.request_stop(job_id, False)
    log = log_path(job_id)
    private_folder(log.parent)
    command = [sys.executable, "-m", "tui_app", "bulk", "work", job_id,
               "--concurrency", str(concurrency)]  # fmt: skip
    if report is not None:
        command += ["--report", str(report.resolve())]
    with open_private(log, "ab") as out:
        process = subprocess.Popen(
            command,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # no controlling terminal: no SIGHUP, no Ctrl-C
            close_fds=True,
        )
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        if process.poll() is not None:
            if journal.job(job_id).state == DONE:  # it had little to do and is done
                return log
            if journal.is_running(job_id):  # another's worker, started at the same time
                raise JobBusy(f"bulk job {job_id} was started by another process just now")
            raise WorkerFailed(f"the worker for job {job_id} ended at once: {_last_line(log)}")
        # Running, and by this worker: two people resuming a job at once both saw it
        # running (the other's worker) and were both told it resumed.
        if journal.is_running(job_id) and journal.job(job_id).worker_pid == process.pid:
            return log
        time.sleep(0.05)
    return log  # slow to start, but alive: it shows as running soon


def _last_line(log: Path) -> str:
    try:
        lines = log.read_text(encoding="utf-8", errors="replace").strip().splitlines()
    except OSError:
        return f"see {log}"
    return lines[-1] if lines else f"see {log}"


@dataclass(frozen=True)
class Attached:
    """What someone attached to a job sees of it."""

    job: Job
    running: bool

    @property
    def died(self) -> bool:
        """A worker ended without finishing or stopping the job (killed, crashed)."""
        return (not self.running and self.job.state not in (DONE, STOPPED)
                and self.job.worker_pid is not None)  # fmt: skip

    def words(self) -> str:
        c = self.job.counts
        if self.job.state == DONE:
            return "done"
        if self.running:
            return {"VALIDATING": "validating", "SENDING": "sending",
                    "POLLING": "awaiting results"}.get(self.job.state, self.job.state.lower())  # fmt: skip
        if self.died:
            return f"stopped unexpectedly at {c.settled:,} of {c.lines:,}"
        if self.job.state == STOPPED:
            return "stopped"
        return "not started"


def look(journal: Journal, job_id: str) -> Attached:
    """The job and whether a worker runs it (blocking: a journal read and a lock test)."""
    job = journal.job(job_id)
    return Attached(job, job.state != DONE and journal.is_running(job.id))


async def work(
    journal: Journal,
    job_id: str,
    env: Environment,
    *,
    concurrency: int = 4,
    on_progress: Callable[[Job], None] | None = None,
    finish: Callable[[Job], object] | None = None,
) -> Job:
    """Run the job in this process until it is DONE or STOPPED (the worker's body, and
    ``--wait``'s); ``finish`` (writing its report) runs before the job's lock is let go,
    so whoever sees the job ended sees it finished. SIGTERM and SIGINT stop it
    gracefully; a second one at once. Raises :class:`~tui_app.bulk.journal.JobBusy` if
    another worker has it."""
    from tui_app.bulk.pipeline import run_job, settings_for
    from tui_app.client.errors import ClientError
    from tui_app.client.factory import connect

    stop = asyncio.Event()
    task = asyncio.current_task()
    loop = asyncio.get_running_loop()

    def asked_to_stop() -> None:
        if stop.is_set() and task is not None:
            task.cancel()  # the second time: at once
        stop.set()

    with journal.running(job_id):
        journal.started(job_id, os.getpid())  # now: whoever started this process waits for it
        for signum in (signal.SIGTERM, signal.SIGINT):
            with suppress(NotImplementedError, RuntimeError):
                loop.add_signal_handler(signum, asked_to_stop)
        try:
            async with AsyncExitStack() as stack:
                try:
                    if env.embedded and await asyncio.to_thread(_large, journal, job_id):
                        env = await asyncio.to_thread(stack.enter_context, _sandbox_apart(env))
                    connection = await connect(env)
                except (ConfigError, ClientError, OSError, RuntimeError) as exc:
                    # Said in the journal, so whoever watches the job sees why (a secret
                    # typed in the app is not in a detached worker's environment, say).
                    journal.set_state(job_id, STOPPED, f"cannot connect: {exc}")
                    raise
                try:
                    job = await run_job(journal, job_id, connection.client,
                                        settings_for(concurrency), on_progress=on_progress,
                                        stop=stop, locked=True)  # fmt: skip
                finally:
                    await connection.aclose()
            if finish is not None:
                finish(job)
            return job
        finally:
            for signum in (signal.SIGTERM, signal.SIGINT):
                with suppress(NotImplementedError, RuntimeError):
                    loop.remove_signal_handler(signum)
