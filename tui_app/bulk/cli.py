"""``producer-tui bulk``: check, submit, status, stop, resume, retry, verify and report,
over the same journal as the TUI.

``check`` validates a file as ``submit`` would and names its bad lines, sending and
recording nothing (the TUI's pre-flight, F3).

``submit``, ``resume`` and ``retry`` start a detached worker for the job (see
:mod:`tui_app.bulk.worker`) and return at once with the job id; ``status JOB --follow``
attaches to it and prints a progress line until it ends, and ``stop JOB`` asks it to stop
gracefully. With ``--wait`` they run the job in this process instead and follow it to its
end: a one-line bar on a terminal, a plain progress line every few seconds otherwise. The
first Ctrl-C stops gracefully (requests in flight are finished and recorded); a second
one stops at once. Either way the job resumes.

Exit status: 0 when every record succeeded (or, without ``--wait``, the job started, or
``check`` found every record valid), 1 when some failed or were invalid or the run
stopped early, 2 for bad usage, a file that cannot be imported, an unknown job, an
unusable journal or a config problem, 3 when the service cannot be reached for
``verify``, 130 when interrupted.
"""

from __future__ import annotations

import argparse
import asyncio
import sqlite3
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Generic, Protocol, TextIO, TypeVar

from tui_app.bulk.background import WORKER_NICENESS, yield_cpu
from tui_app.bulk.journal import (
    DONE,
    TO_FIX,
    Job,
    JobBusy,
    Journal,
    JournalError,
    UnknownJob,
)
from tui_app.bulk.pipeline import INTERRUPTED, AlreadySubmitted, create_job
from tui_app.bulk.preflight import Preflight, preflight
from tui_app.bulk.report import ReportExists, check_outputs, write_report
from tui_app.bulk.source import SourceError
from tui_app.bulk.worker import WorkerFailed, look, spawn, work
from tui_app.config import ConfigError, Environment, load_config
from tui_app.contract.bulk import MAX_RECOMMENDED_BATCH
from tui_app.words import counted

PLAIN_EVERY = 3.0
"""Seconds between progress lines when the output is not a terminal."""
FOLLOW_EVERY = 0.5
"""Seconds between two looks at the journal while following a job."""
SHOWN_PROBLEMS = 20


def main(args: argparse.Namespace) -> int:
    actions = {"submit": _submit, "resume": _resume, "status": _status, "report": _report,
               "stop": _stop, "retry": _retry, "verify": _verify, "work": _work}  # fmt: skip
    try:
        if args.bulk_command == "check":  # records nothing: no journal, even a damaged one
            return _check(args)
        with Journal() as journal:
            return actions[args.bulk_command](journal, args)
    except (_Usage, SourceError, UnknownJob, JobBusy, JournalError, WorkerFailed,
            ReportExists) as exc:  # fmt: skip
        _say(str(exc))
        return 2
    except sqlite3.DatabaseError as exc:  # damage found past the journal's first pages
        _say(f"the bulk journal is damaged ({exc}): move it aside to start a new one")
        return 2
    except BrokenPipeError:
        raise  # piped into head: tui_app.cli.main ends quietly
    except OSError as exc:  # e.g. a report path that cannot be written
        _say(f"{exc.filename or ''}: {exc.strerror or exc}".lstrip(": "))
        return 2


class _Usage(Exception):
    """A command line that asks for something impossible."""


def _say(message: str) -> None:
    print(f"producer-tui bulk: {message}", file=sys.stderr)


def _environment(name: str | None) -> tuple[str, Environment]:
    return load_config().chosen(name)


# --- actions -----------------------------------------------------------------------------


def _request_limit(env_name: str | None) -> int | None:
    """The environment's request size limit, for a check that sends nothing: a config
    that cannot be read (or none) means no limit, not a refusal; but an environment named
    with --env must exist (it was ignored: a typo checked against no limit, exit 0)."""
    try:
        return _environment(env_name)[1].bulk_max_request_bytes
    except ConfigError:
        if env_name is not None:
            raise
        return None


def _check(args: argparse.Namespace) -> int:
    """Validate FILE as ``submit`` would, recording and sending nothing: each bad line
    with its reason (the first ``SHOWN_PROBLEMS``), then the counts. 0 when every record is
    valid, 1 when some are not (or there is none)."""
    progress = _Progress(sys.stderr, _checking)
    try:
        limit = args.max_request_bytes or _request_limit(getattr(args, "env", None))
        found = preflight(args.file, on_progress=progress.update, first=SHOWN_PROBLEMS,
                          max_bytes=limit)  # fmt: skip
    except KeyboardInterrupt:
        progress.end()
        _say("interrupted")
        return 130
    progress.end(found)
    for problem in found.problems:
        print(f"  line {problem.line}: {'; '.join(problem.errors)}")
    if found.invalid > len(found.problems):
        print(f"  and {counted(found.invalid - len(found.problems), 'more invalid line')}")
    print(f"{found.path}: {counted(found.records, 'record')}, {found.valid:,} valid, "
          f"{found.invalid:,} invalid")  # fmt: skip
    return 0 if found.records and not found.invalid else 1


def _checking(found: Preflight) -> str:
    return (
        f"checking {found.path.name}: {counted(found.records, 'record')}, {found.invalid:,} invalid"
    )


def _submit(journal: Journal, args: argparse.Namespace) -> int:
    env_name, env = _environment(getattr(args, "env", None))
    if not 1 <= args.batch_size <= MAX_RECOMMENDED_BATCH:
        raise _Usage(f"--batch-size must be between 1 and {MAX_RECOMMENDED_BATCH}")
    limit = args.max_request_bytes or env.bulk_max_request_bytes
    _check_report(args, args.file)
    try:
        job = create_job(journal, args.file, env_name, args.batch_size, limit,
                         once=not args.again)  # fmt: skip
    except AlreadySubmitted as exc:
        seen = exc.earlier
        resume = not (seen.job.finished or seen.running)
        raise _Usage(f"{exc}. To send every record again anyway, add --again"
                     + (f"; to finish that job instead: producer-tui bulk resume {seen.job.id}"
                        if resume else "")) from None  # fmt: skip
    print(job.id, flush=True)
    return _carry_on(journal, job, env, args)


def _job_and_env(journal: Journal, args: argparse.Namespace) -> tuple[Job, Environment]:
    job = journal.job(args.job)
    asked = getattr(args, "env", None)
    if asked and asked != job.env:
        raise _Usage(f"job {job.id} was submitted to environment {job.env}, not {asked}")
    return job, _environment(job.env)[1]


def _check_report(args: argparse.Namespace, source: Path) -> None:
    """Refuse ``--report`` files that could not be written now, not after the job ran: a
    refusal leaves no job behind, changes none, sends nothing."""
    if args.report:
        failed = args.report.with_name("failed.ndjson")
        check_outputs(source, args.report, failed, overwrite=args.force)


def _resume(journal: Journal, args: argparse.Namespace) -> int:
    job, env = _job_and_env(journal, args)
    _check_report(args, job.path)
    if job.finished:
        _say(f"job {job.id} is already done"
             + (f"; {counted(job.counts.retryable, 'retryable failure')}: producer-tui bulk retry "
                f"{job.id}" if job.counts.retryable else ""))  # fmt: skip
        return _outcome(journal, job, args)
    return _carry_on(journal, job, env, args)


def _retry(journal: Journal, args: argparse.Namespace) -> int:
    job, env = _job_and_env(journal, args)
    if look(journal, job.id).running:
        raise _Usage(f"job {job.id} is running: retry its failures once it ends")
    _check_report(args, job.path)
    again = journal.retry_retryable(job.id)
    if not again:
        _say(f"job {job.id} has no retryable failure nor unknown outcome to send again")
        return _outcome(journal, journal.job(job.id), args)
    _say(f"job {job.id}: {counted(again, 'line')} to send again")
    return _carry_on(journal, journal.job(job.id), env, args)


def _carry_on(journal: Journal, job: Job, env: Environment, args: argparse.Namespace) -> int:
    if not args.wait:
        log = spawn(journal, job.id, concurrency=args.concurrency, report=args.report)
        _say(f"job {job.id} runs in the background (log: {log}); "
             f"follow it with: producer-tui bulk status {job.id} --follow")  # fmt: skip
        return 0
    resume = f"Resume it with: producer-tui bulk resume {job.id}"
    interrupted = f"interrupted; job {job.id} is saved. {resume}"
    if journal.is_running(job.id):
        raise JobBusy(f"bulk job {job.id} is already running in another process")
    journal.request_stop(job.id, False)
    progress = _Progress(sys.stderr, _summary)
    try:
        job = asyncio.run(work(journal, job.id, env, concurrency=args.concurrency,
                               on_progress=progress.update))  # fmt: skip
    except (KeyboardInterrupt, asyncio.CancelledError):  # a second Ctrl-C: at once
        progress.end()
        _say(interrupted)
        return 130
    progress.end(job)
    if job.state != DONE and job.message == INTERRUPTED:  # Ctrl-C, handled gracefully
        _say(interrupted)
        return 130
    if job.state != DONE:  # bulk stop from elsewhere, or the service made it stop
        _say(f"job {job.id} stopped: {job.message}. {resume}")
        return 1
    return _outcome(journal, job, args)


def _work(journal: Journal, args: argparse.Namespace) -> int:
    """The detached worker's body (``bulk work JOB``, not for people): run, report, exit."""
    yield_cpu(WORKER_NICENESS)
    job, env = _job_and_env(journal, args)
    print(f"{time.strftime('%Y-%m-%d %H:%M:%S')} worker for job {job.id} starts", flush=True)
    args.force = True  # the submitting command checked the paths
    codes: list[int] = []

    def finish(job: Job) -> None:
        print(f"{time.strftime('%Y-%m-%d %H:%M:%S')} job {job.id} {job.state}: {_summary(job)}"
              + (f" ({job.message})" if job.message and job.state != DONE else ""), flush=True)  # fmt: skip
        codes.append(_outcome(journal, job, args))

    asyncio.run(work(journal, job.id, env, concurrency=args.concurrency, finish=finish))
    return codes[0]


def _outcome(journal: Journal, job: Job, args: argparse.Namespace) -> int:
    _print_problems(journal, job, sys.stderr)
    if getattr(args, "report", None):
        report = write_report(journal, job.id, args.report,
                              overwrite=getattr(args, "force", False))  # fmt: skip
        _say(f"report: {report.csv_path}; {counted(report.failed_lines, 'line')} to fix in "
             f"{report.failed_path}")  # fmt: skip
    return 0 if job.finished and job.counts.all_succeeded else 1


def _print_problems(journal: Journal, job: Job, stream: TextIO) -> None:
    """Each line to fix with its reason, the first ``SHOWN_PROBLEMS``, then how many more."""
    c = job.counts
    total = c.failed + c.invalid
    for line in journal.lines(job.id, states=TO_FIX, limit=SHOWN_PROBLEMS):
        flag = " (retryable)" if line.retryable else ""
        print(f"  line {line.line}: {line.state}{flag}: {'; '.join(line.errors)}", file=stream)
    if total > SHOWN_PROBLEMS:
        print(f"  and {total - SHOWN_PROBLEMS:,} more: producer-tui bulk report {job.id} "
              "--out report.csv", file=stream)  # fmt: skip
    if c.unknown:
        print(f"  {counted(c.unknown, 'line')} of unknown outcome: producer-tui bulk verify {job.id}",
              file=stream)  # fmt: skip


def _status(journal: Journal, args: argparse.Namespace) -> int:
    if args.job:
        if args.follow:
            return _follow(journal, args)
        _show_job(journal, journal.job(args.job))
        return 0
    if args.follow:  # QA: it listed every job, as if --follow were not there
        _say("--follow follows one job: name it (producer-tui bulk status JOB --follow)")
        return 2
    env = getattr(args, "env", None)
    jobs = journal.jobs(env)
    if not jobs:
        if env:  # a misspelt name is said so; jobs of an environment since deleted still list
            _environment(env)
        print("no bulk jobs yet" + (f" in environment {env}" if env else ""))
        return 0
    rows = [("ID", "ENV", "STATE", "CREATED", "LINES", "COMPLETED", "FAILED", "INVALID",
             "SUPERSEDED", "UNKNOWN", "FILE")]  # fmt: skip
    for job in jobs:
        c = job.counts
        seen = look(journal, job.id)
        rows.append((job.id, job.env, seen.words(), job.created_at, str(c.lines),
                     str(c.completed), str(c.failed), str(c.invalid), str(c.superseded),
                     str(c.unknown), str(job.path)))  # fmt: skip
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    for row in rows:
        print("  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip())
    return 0


def _follow(journal: Journal, args: argparse.Namespace) -> int:
    """Print the job's progress until it ends (or is not running): for a plain SSH shell.
    Exits as ``--wait`` would: 0 all succeeded, 1 otherwise."""
    progress = _Progress(sys.stderr, _summary)
    seen = look(journal, args.job)
    try:
        while seen.running:
            progress.update(seen.job)
            time.sleep(FOLLOW_EVERY)
            seen = look(journal, seen.job.id)
    except KeyboardInterrupt:
        progress.end()
        _say(f"no longer following job {seen.job.id}; it keeps running")
        return 130
    job = seen.job
    progress.end(job)
    if job.state != DONE:
        why = job.message if job.state != "VALIDATING" or not seen.died else None
        _say(f"job {job.id} {seen.words()}" + (f": {why}" if why and not seen.died else "")
             + f". Resume it with: producer-tui bulk resume {job.id}")  # fmt: skip
        return 1
    return _outcome(journal, job, argparse.Namespace(report=None))


def _show_job(journal: Journal, job: Job) -> None:
    c = job.counts
    seen = look(journal, job.id)
    batches = journal.batch_states(job.id)
    uncertain = batches.pop("uncertain")
    print(f"job {job.id}: {seen.words()}" + (f" (worker pid {job.worker_pid})"
                                             if seen.running and job.worker_pid else ""))  # fmt: skip
    if job.message and job.state != DONE:
        print(f"  stopped:  {job.message}")
    print(f"  file:     {job.path} ({job.fingerprint.size:,} bytes)")
    print(f"  env:      {job.env}")
    print(f"  created:  {job.created_at}, updated {job.updated_at}")
    requests = ", ".join(f"{n} {state.lower()}" for state, n in sorted(batches.items()))
    limit = f", at most {job.max_bytes:,} bytes" if job.max_bytes else ""
    print(f"  requests: up to {job.batch_size} records each{limit}; {requests or 'none yet'}"
          + (f"; {uncertain} re-sent after an unknown outcome" if uncertain else ""))  # fmt: skip
    print(f"  lines:    {_summary(job)}")
    if c.failed + c.invalid:
        print(f"  problems (first {min(SHOWN_PROBLEMS, c.failed + c.invalid)} of "
              f"{c.failed + c.invalid}):")  # fmt: skip
        for line in journal.lines(job.id, states=TO_FIX, limit=SHOWN_PROBLEMS):
            flag = " (retryable)" if line.retryable else ""
            print(f"    line {line.line}: {line.state}{flag}: {'; '.join(line.errors)}")
        print(f"  all of them: producer-tui bulk report {job.id} --out report.csv")
    if c.unknown:
        print(f"  {c.unknown:,} of unknown outcome: producer-tui bulk verify {job.id}")
    if c.retryable and job.state == DONE:
        print(f"  send the retryable failures again: producer-tui bulk retry {job.id}")
    if job.state != DONE and not seen.running:
        print(f"  resume it with: producer-tui bulk resume {job.id}")


def _stop(journal: Journal, args: argparse.Namespace) -> int:
    seen = look(journal, args.job)
    if not seen.running:  # already what was asked: a script that stops jobs goes on
        _say(f"job {seen.job.id} is not running ({seen.words()})")
        return 0
    journal.request_stop(seen.job.id)
    _say(f"job {seen.job.id} stops once its requests in flight are answered; resume it with: "
         f"producer-tui bulk resume {seen.job.id}")  # fmt: skip
    return 0


def _verify(journal: Journal, args: argparse.Namespace) -> int:
    from tui_app.bulk.verify import verify_job
    from tui_app.client.errors import ClientError
    from tui_app.client.factory import connect

    job, env = _job_and_env(journal, args)
    if look(journal, job.id).running:
        raise _Usage(f"job {job.id} is running: verify it once it ends")
    if not job.counts.unknown:
        _say(f"job {job.id} has no line of unknown outcome")
        return 0

    async def run():
        connection = await connect(env)
        try:
            return await verify_job(journal, job.id, connection.client)
        finally:
            await connection.aclose()

    try:
        done = asyncio.run(run())
    except ClientError as exc:
        _say(f"cannot verify job {job.id}: {exc}; run it again later")
        return 3
    print(f"job {job.id}: {counted(done.total, 'line')} verified: {done.completed:,} completed, "
          f"{done.failed:,} failed, {done.superseded:,} superseded")  # fmt: skip
    return 0 if not done.failed else 1


def _report(journal: Journal, args: argparse.Namespace) -> int:
    report = write_report(journal, args.job, args.out, args.failed, overwrite=args.force)
    print(f"{report.csv_path}: {counted(report.rows, 'line')}")
    print(f"{report.failed_path}: {counted(report.failed_lines, 'failed or invalid line')} to fix")
    return 0


# --- progress ----------------------------------------------------------------------------


def _summary(job: Job) -> str:
    c = job.counts
    text = (
        f"sent {c.sent_so_far}/{c.valid}, completed {c.completed}, failed {c.failed}, "
        f"invalid {c.invalid}"
    )
    text = ", ".join([text, *c.others()])
    if not job.scan_done:  # a fact, not the job's state: lines go out while it is read
        text = f"{job.share_read:.0%} of the file validated, " + text
    return text


class _Shared(Protocol):
    @property
    def share(self) -> float: ...


S = TypeVar("S", bound=_Shared)


class _Progress(Generic[S]):
    """A one-line bar on a terminal, else a plain line every ``PLAIN_EVERY`` seconds, of
    something done by ``share`` (a job, a check), in the words of ``describe``."""

    def __init__(self, stream: TextIO, describe: Callable[[S], str]) -> None:
        self.stream = stream
        self.describe = describe
        self.tty = stream.isatty()
        self._last = 0.0
        self._width = 0

    def update(self, done: S) -> None:
        now = time.monotonic()
        if now - self._last < (0.1 if self.tty else PLAIN_EVERY):
            return
        self._last = now
        self._show(done)

    def _show(self, done: S) -> None:
        text = self.describe(done)
        if not self.tty:
            print(text, file=self.stream, flush=True)
            return
        share = done.share
        bar = "#" * round(share * 20)
        line = f"\r[{bar:<20}] {share:4.0%}  {text}"
        self.stream.write(line.ljust(self._width))
        self.stream.flush()
        self._width = len(line)

    def note(self, text: str) -> None:
        self.end()
        print(text, file=self.stream, flush=True)

    def end(self, done: S | None = None) -> None:
        """Show the final state (if given) and leave the bar's line."""
        if done is not None:
            self._show(done)
        if self.tty and self._width:
            self.stream.write("\n")
            self.stream.flush()
            self._width = 0
