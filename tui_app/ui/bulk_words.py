"""Bulk jobs and lines in words: what the jobs table, a job's details and the pre-flight
panel say. Colour is never the only sign: every state has its words."""

from __future__ import annotations

from rich.text import Text

from tui_app.bulk.journal import (
    COMPLETED,
    FAILED,
    INVALID,
    PENDING,
    SENT,
    SUPERSEDED,
    UNKNOWN,
    WAITING,
    Job,
    LineOutcome,
)
from tui_app.bulk.preflight import Preflight
from tui_app.words import counted, utc_time


def progress_text(job: Job, width: int = 8) -> str:
    share = job.share
    filled = round(share * width)
    return f"{'█' * filled}{'░' * (width - filled)} {share:4.0%}"


def counts_words(job: Job) -> str:
    c = job.counts
    text = (
        f"{c.lines:,} lines: {c.completed:,} completed, {c.failed:,} failed, "
        f"{c.invalid:,} invalid; sent {c.sent_so_far:,} of {c.valid:,} valid"
    )
    text = ", ".join([text, *c.others()])
    if not job.scan_done:  # a fact, not the job's state: lines go out while it is read
        text = f"{job.share_read:.0%} of the file validated; " + text
    return text


def elsewhere(job: Job, active_env: str) -> str:
    """Said of a job started from an area on another environment: its worker connects to
    the job's own."""
    return f" in environment {job.env}, its own" if job.env != active_env else ""


def created_words(job: Job) -> str:
    """``2026-11-21 09:30 UTC``."""
    return utc_time(job.created_at)


def outcome_words(line: LineOutcome) -> str:
    if line.state == PENDING:
        return "to retry" if line.attempts else "waiting"
    return {COMPLETED: "completed", FAILED: "failed", INVALID: "invalid", SENT: "sent",
            WAITING: "after an earlier line", SUPERSEDED: "superseded",
            UNKNOWN: "unknown"}.get(line.state, line.state.lower())  # fmt: skip


def clip(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def line_cells(line: LineOutcome, problem_width: int) -> tuple[str | Text, ...]:
    return (
        Text(str(line.line), justify="right"),
        outcome_words(line),
        line.kind or "",
        line.profile_key or "",
        Text(str(line.attempts), justify="right"),
        "yes" if line.retryable else "no",
        clip("; ".join(line.errors), problem_width),
    )


def preflight_text(found: Preflight, submit_key: str, submitted: str | None = None) -> Text:
    """The pre-flight summary: counts in words, what happens next (or the job it became),
    then the first problems by line."""
    text = Text()
    text.append(found.path.name, style="bold")
    if not found.done:
        text.append(f"  checking… {found.share:.0%} read: ")
    else:
        text.append("  checked: ")
    text.append(
        f"{counted(found.records, 'record')}, {found.valid:,} valid, {found.invalid:,} invalid"
    )
    if submitted is not None:
        text.append(f"\n✓ Submitted as job {submitted}: it runs in the background, and keeps "
                    "running if you quit or lose the connection.")  # fmt: skip
    elif found.done:
        if found.records == 0:
            text.append("\nThe file holds no record.")
        elif found.valid == 0:
            text.append("\nNo record is valid: fix the file before submitting it.")
        else:
            text.append(f"\n{submit_key} submits the {found.valid:,} valid records")
            if found.invalid:
                text.append("; the invalid ones are listed in the job's report")
            text.append(".")
    for problem in found.problems:
        text.append(f"\n  ✗ line {problem.line}: ", style="bold")
        text.append(clip("; ".join(problem.errors), 100))
    more = found.invalid - len(found.problems)
    if found.done and more > 0:
        text.append(
            f"\n  … and {counted(more, 'more invalid line')} (all of them in the job's details)."
        )
    return text
