"""``producer-tui bulk``: submit, status, resume and report, over the same journal as the TUI.

``submit`` and ``resume`` without ``--wait`` hand the job to a background process (the same
command with ``--wait``, its output in ``data_dir()/bulk-logs/JOB.log``) and return at
once. With ``--wait`` they follow the job to its end: a one-line bar on a terminal, a plain
progress line every few seconds otherwise. The first Ctrl-C stops gracefully (requests in
flight are finished and recorded); a second one stops at once. Either way the job resumes.

Exit status: 0 when every record succeeded (or, without ``--wait``, the job started), 1
when some failed or were invalid or the run stopped early, 2 for bad usage, a file that
cannot be imported, an unknown job or a config problem, 130 when interrupted.
"""

from __future__ import annotations

import argparse
import asyncio
import signal
import subprocess
import sys
import time
from contextlib import suppress
from pathlib import Path
from typing import TextIO

from tui_app.bulk.journal import DONE, FAILED, INVALID, Job, JobBusy, Journal, UnknownJob
from tui_app.bulk.pipeline import Settings, create_job, run_job
from tui_app.bulk.report import write_report
from tui_app.bulk.source import SourceError
from tui_app.config import ConfigError, Environment, config_path, data_dir, load_config
from tui_app.contract.bulk import MAX_RECOMMENDED_BATCH

PLAIN_EVERY = 3.0
"""Seconds between progress lines when the output is not a terminal."""
SHOWN_PROBLEMS = 20


def main(args: argparse.Namespace) -> int:
    actions = {"submit": _submit, "resume": _resume, "status": _status, "report": _report}
    try:
        with Journal() as journal:
            return actions[args.bulk_command](journal, args)
    except (_Usage, SourceError, UnknownJob, JobBusy) as exc:
        _say(str(exc))
        return 2
    except OSError as exc:  # e.g. a report path that cannot be written
        _say(f"{exc.filename or ''}: {exc.strerror or exc}".lstrip(": "))
        return 2


class _Usage(Exception):
    """A command line that asks for something impossible."""


def _say(message: str) -> None:
    print(f"producer-tui bulk: {message}", file=sys.stderr)


def _environment(name: str | None) -> tuple[str, Environment]:
    config = load_config()
    name = name or config.active
    if name not in config.environments:
        raise ConfigError(f"{config_path()}: --env: no environment named {name}")
    return name, config.environments[name]


# --- actions -----------------------------------------------------------------------------


def _submit(journal: Journal, args: argparse.Namespace) -> int:
    env_name, env = _environment(getattr(args, "env", None))
    if not 1 <= args.batch_size <= MAX_RECOMMENDED_BATCH:
        raise _Usage(f"--batch-size must be between 1 and {MAX_RECOMMENDED_BATCH}")
    job = create_job(journal, Path(args.file), env_name, args.batch_size)
    print(job.id, flush=True)
    return _carry_on(journal, job, env, args)


def _resume(journal: Journal, args: argparse.Namespace) -> int:
    job = journal.job(args.job)
    asked = getattr(args, "env", None)
    if asked and asked != job.env:
        raise _Usage(f"job {job.id} was submitted to environment {job.env}, not {asked}")
    _, env = _environment(job.env)
    if job.finished:
        _say(f"job {job.id} is already done")
        return _outcome(journal, job, args)
    return _carry_on(journal, job, env, args)


def _carry_on(journal: Journal, job: Job, env: Environment, args: argparse.Namespace) -> int:
    settings = Settings(concurrency=args.concurrency)
    if not args.wait:
        log = _detach(job, args)
        _say(f"job {job.id} runs in the background (log: {log}); "
             f"follow it with: producer-tui bulk status {job.id}")  # fmt: skip
        return 0
    resume = f"Resume it with: producer-tui bulk resume {job.id} --wait"
    progress = _Progress(sys.stderr)
    try:
        job = asyncio.run(_run(journal, job.id, env, settings, progress))
    except (KeyboardInterrupt, asyncio.CancelledError):
        progress.end()
        _say(f"interrupted; job {job.id} is saved. {resume}")
        return 130
    progress.end(job)
    if progress.interrupted:
        _say(f"stopped; job {job.id} is saved. {resume}")
        return 130
    if job.state != DONE:
        _say(f"job {job.id} stopped: {job.message}. {resume}")
    return _outcome(journal, job, args)


def _outcome(journal: Journal, job: Job, args: argparse.Namespace) -> int:
    if getattr(args, "report", None):
        report = write_report(journal, job.id, Path(args.report))
        _say(f"report: {report.csv_path}; {report.failed_lines} lines to fix in "
             f"{report.failed_path}")  # fmt: skip
    return 0 if job.finished and job.counts.all_succeeded else 1


async def _run(
    journal: Journal, job_id: str, env: Environment, settings: Settings, progress: _Progress
) -> Job:
    from tui_app.client.factory import connect

    connection = await connect(env)
    stop = asyncio.Event()
    task = asyncio.current_task()
    loop = asyncio.get_running_loop()

    def interrupted() -> None:
        if stop.is_set():
            task.cancel()  # the second Ctrl-C: stop at once
            return
        progress.interrupted = True
        progress.note("stopping: finishing the requests in flight (Ctrl-C again to quit now)")
        stop.set()

    with suppress(NotImplementedError):  # no signal handlers on Windows: Ctrl-C stops at once
        loop.add_signal_handler(signal.SIGINT, interrupted)
    try:
        return await run_job(
            journal, job_id, connection.client, settings, on_progress=progress.update, stop=stop
        )
    finally:
        with suppress(NotImplementedError):
            loop.remove_signal_handler(signal.SIGINT)
        await connection.aclose()


def _detach(job: Job, args: argparse.Namespace) -> Path:
    """Run ``bulk resume JOB --wait`` as a background process that outlives this one."""
    log = data_dir() / "bulk-logs" / f"{job.id}.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    command = [sys.executable, "-m", "tui_app", "bulk", "resume", job.id, "--wait",
               "--concurrency", str(args.concurrency)]  # fmt: skip
    if args.report:
        command += ["--report", str(Path(args.report).resolve())]
    with open(log, "ab") as out:
        subprocess.Popen(
            command,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # a Ctrl-C in this terminal must not reach it
        )
    return log


def _status(journal: Journal, args: argparse.Namespace) -> int:
    if args.job:
        _show_job(journal, journal.job(args.job))
        return 0
    jobs = journal.jobs()
    if not jobs:
        print("no bulk jobs yet")
        return 0
    rows = [("ID", "ENV", "STATE", "RUNNING", "CREATED", "LINES", "COMPLETED", "FAILED",
             "INVALID", "FILE")]  # fmt: skip
    for job in jobs:
        c = job.counts
        running = "yes" if job.state != DONE and journal.is_running(job.id) else "no"
        rows.append((job.id, job.env, job.state, running, job.created_at, str(c.lines),
                     str(c.completed), str(c.failed), str(c.invalid), str(job.path)))  # fmt: skip
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    for row in rows:
        print("  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip())
    return 0


def _show_job(journal: Journal, job: Job) -> None:
    c = job.counts
    running = "running" if job.state != DONE and journal.is_running(job.id) else "not running"
    batches = journal.batch_states(job.id)
    uncertain = batches.pop("uncertain")
    print(f"job {job.id}: {job.state} ({running})")
    if job.message and job.state != DONE:
        print(f"  stopped:  {job.message}")
    print(f"  file:     {job.path} ({job.fingerprint.size:,} bytes)")
    print(f"  env:      {job.env}")
    print(f"  created:  {job.created_at}, updated {job.updated_at}")
    requests = ", ".join(f"{n} {state.lower()}" for state, n in sorted(batches.items()))
    print(f"  requests: up to {job.batch_size} records each; {requests or 'none yet'}"
          + (f"; {uncertain} re-sent after an unknown outcome" if uncertain else ""))  # fmt: skip
    print(f"  lines:    {_summary(job)}")
    if c.failed + c.invalid:
        print(f"  problems (first {min(SHOWN_PROBLEMS, c.failed + c.invalid)} of "
              f"{c.failed + c.invalid}):")  # fmt: skip
        for line in journal.lines(job.id, states=(FAILED, INVALID), limit=SHOWN_PROBLEMS):
            flag = " (retryable)" if line.retryable else ""
            print(f"    line {line.line}: {line.state}{flag}: {'; '.join(line.errors)}")
        print(f"  all of them: producer-tui bulk report {job.id} --out report.csv")
    if job.state != DONE and not journal.is_running(job.id):
        print(f"  resume it with: producer-tui bulk resume {job.id} --wait")


def _report(journal: Journal, args: argparse.Namespace) -> int:
    report = write_report(
        journal, args.job, Path(args.out), Path(args.failed) if args.failed else None
    )
    print(f"{report.csv_path}: {report.rows} lines")
    print(f"{report.failed_path}: {report.failed_lines} failed or invalid lines to fix")
    return 0


# --- progress ----------------------------------------------------------------------------


def _summary(job: Job) -> str:
    c = job.counts
    text = (
        f"sent {c.sent_so_far}/{c.valid}, completed {c.completed}, failed {c.failed}, "
        f"invalid {c.invalid}"
    )
    if c.retrying:
        text += f", retrying {c.retrying}"
    if not job.scan_done:
        share = job.scanned_offset / job.fingerprint.size if job.fingerprint.size else 1
        text = f"validating ({share:.0%} of the file), " + text
    return text


class _Progress:
    """A one-line bar on a terminal, else a plain line every ``PLAIN_EVERY`` seconds."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.tty = stream.isatty()
        self.interrupted = False
        self._last = 0.0
        self._width = 0

    def update(self, job: Job) -> None:
        now = time.monotonic()
        if now - self._last < (0.1 if self.tty else PLAIN_EVERY):
            return
        self._last = now
        self._show(job)

    def _show(self, job: Job) -> None:
        text = _summary(job)
        if not self.tty:
            print(text, file=self.stream, flush=True)
            return
        c = job.counts
        settled = c.completed + c.failed + c.invalid
        share = settled / c.lines if c.lines and job.scan_done else 0.0
        bar = "#" * round(share * 20)
        line = f"\r[{bar:<20}] {share:4.0%}  {text}"
        self.stream.write(line.ljust(self._width))
        self.stream.flush()
        self._width = len(line)

    def note(self, text: str) -> None:
        self.end()
        print(text, file=self.stream, flush=True)

    def end(self, job: Job | None = None) -> None:
        """Show the final state (if given) and leave the bar's line."""
        if job is not None:
            self._show(job)
        if self.tty and self._width:
            self.stream.write("\n")
            self.stream.flush()
            self._width = 0
