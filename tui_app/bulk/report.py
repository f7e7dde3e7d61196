"""A job's outcome as files: a CSV row per input line, and the lines to fix and resubmit.

Both are streamed from the journal (and the input file), so a report of any size is
written in constant memory.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path

from tui_app.bulk.journal import FAILED, INVALID, Journal
from tui_app.bulk.source import SourceChanged, SourceError, SourceFile, verify_unchanged

COLUMNS = (
    "line",
    "client_ref_id",
    "profile_key",
    "kind",
    "outcome",
    "retryable",
    "attempts",
    "errors",
)


@dataclass(frozen=True)
class Report:
    csv_path: Path
    failed_path: Path
    rows: int
    failed_lines: int
    """Lines copied to ``failed_path``: the FAILED and INVALID ones."""


def write_report(journal: Journal, job_id: str, out: Path, failed: Path | None = None) -> Report:
    """Write ``out`` (CSV: line, client_ref_id, profile_key, kind, outcome, retryable,
    attempts, errors joined by "; ") and ``failed`` (``failed.ndjson`` beside ``out`` by
    default): the original text of every FAILED and INVALID line, ready to be fixed and
    submitted again. Lines not finished yet show their current state as the outcome.
    Raises :class:`~tui_app.bulk.source.SourceChanged` if the input file changed (its
    lines could no longer be copied faithfully), :class:`~tui_app.bulk.source.SourceError`
    if an output path is the input file; ``OSError`` if a file cannot be written."""
    job = journal.job(job_id)
    failed = failed or out.with_name("failed.ndjson")
    _refuse_input(job.path, out, failed)
    verify_unchanged(job.path, job.fingerprint)
    rows = 0
    with open(out, "w", newline="", encoding="utf-8") as file:
        writer = csv.writer(file)
        writer.writerow(COLUMNS)
        for line in journal.lines(job.id):
            writer.writerow(
                (
                    line.line,
                    line.client_ref_id or "",
                    line.profile_key or "",
                    line.kind or "",
                    line.state,
                    "yes" if line.retryable else "no",
                    line.attempts,
                    "; ".join(line.errors),
                )
            )
            rows += 1
    copied = _copy_failed(journal, job.id, job.path, failed)
    return Report(out, failed, rows, copied)


def write_failed(journal: Journal, job_id: str, out: Path) -> int:
    """Write only ``out``: the original text of every FAILED and INVALID line (as
    :func:`write_report` writes beside its CSV), and return how many lines it holds.
    Raises as :func:`write_report` does."""
    job = journal.job(job_id)
    _refuse_input(job.path, out)
    verify_unchanged(job.path, job.fingerprint)
    return _copy_failed(journal, job.id, job.path, out)


def _refuse_input(source_path: Path, *outputs: Path) -> None:
    """Writing over the job's input file would destroy what the report is about."""
    for out in outputs:
        if out.resolve() == source_path.resolve():
            raise SourceError(f"{out} is the job's input file: save the report under another name")


def _copy_failed(journal: Journal, job_id: str, source_path: Path, out: Path) -> int:
    copied = 0
    with SourceFile(source_path) as source, open(out, "wb") as file:
        for line in journal.lines(job_id, states=(FAILED, INVALID)):
            found = source.line_at(line.offset, line.line)
            if found is None or found.number != line.line:
                raise SourceChanged(f"{source_path}: line {line.line} is no longer where it was")
            file.write(found.raw + b"\n")
            copied += 1
    return copied
