"""A job's outcome as files: a CSV row per input line, and the lines to fix and resubmit.

Both are streamed from the journal (and the input file), so a report of any size is
written in constant memory.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path

from tui_app.bulk.journal import TO_FIX, Journal
from tui_app.bulk.source import SourceChanged, SourceError, SourceFile, verify_unchanged
from tui_app.private_files import can_write_in, open_private, safe_cell

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


class ReportExists(SourceError):
    """An output file exists and replacing it was not asked for."""


@dataclass(frozen=True)
class Report:
    csv_path: Path
    failed_path: Path
    rows: int
    failed_lines: int
    """Lines copied to ``failed_path``: the FAILED and INVALID ones."""


def write_report(
    journal: Journal,
    job_id: str,
    out: Path,
    failed: Path | None = None,
    *,
    overwrite: bool = False,
) -> Report:
    """Write ``out`` (CSV: line, client_ref_id, profile_key, kind, outcome, retryable,
    attempts, errors joined by "; ") and ``failed`` (``failed.ndjson`` beside ``out`` by
    default): the original text of every FAILED and INVALID line, ready to be fixed and
    submitted again. Lines not finished yet show their current state as the outcome.
    Both are created 0600 (they hold personal data); CSV cells that would start a formula
    are neutralised. Raises as :func:`check_outputs` does, before writing either file;
    :class:`~tui_app.bulk.source.SourceChanged` if the input file changed (its lines could
    no longer be copied faithfully); ``OSError`` if a file cannot be written all the same."""
    job = journal.job(job_id)
    failed = failed or out.with_name("failed.ndjson")
    check_outputs(job.path, out, failed, overwrite=overwrite)
    verify_unchanged(job.path, job.fingerprint)
    rows = 0
    with open_private(out, "w", newline="", encoding="utf-8") as file:
        writer = csv.writer(file)
        writer.writerow(COLUMNS)
        for line in journal.lines(job.id):
            writer.writerow(
                (
                    line.line,
                    line.client_ref_id or "",
                    safe_cell(line.profile_key or ""),
                    line.kind or "",
                    line.state,
                    "yes" if line.retryable else "no",
                    line.attempts,
                    safe_cell("; ".join(line.errors)),
                )
            )
            rows += 1
    copied = _copy_failed(journal, job.id, job.path, failed)
    return Report(out, failed, rows, copied)


def write_failed(journal: Journal, job_id: str, out: Path, *, overwrite: bool = False) -> int:
    """Write only ``out``: the original text of every FAILED and INVALID line (as
    :func:`write_report` writes beside its CSV), and return how many lines it holds.
    Raises as :func:`write_report` does."""
    job = journal.job(job_id)
    check_outputs(job.path, out, overwrite=overwrite)
    verify_unchanged(job.path, job.fingerprint)
    return _copy_failed(journal, job.id, job.path, out)


def check_outputs(source_path: Path, *outputs: Path, overwrite: bool = False) -> None:
    """Refuse output paths that could not all be written, before anything is (or, for a
    job's ``--report``, before the job is created or sent): a
    :class:`~tui_app.bulk.source.SourceError` for the job's input file (writing over it
    would destroy what the report is about), a folder, or a folder missing or not writable
    to write in; :class:`ReportExists` if one exists and ``overwrite`` is false."""
    for out in outputs:
        folder = out.parent
        if out.resolve() == source_path.resolve():
            raise SourceError(f"{out} is the job's input file: save the report under another name")
        if out.is_dir():
            raise SourceError(f"{out} is a folder: name a file")
        if not folder.is_dir():
            raise SourceError(f"{out}: there is no folder {folder} to write it in")
        if not can_write_in(folder):
            raise SourceError(f"{out}: the folder {folder} is not writable")
    if len({out.resolve() for out in outputs}) < len(outputs):  # the second would replace
        raise SourceError(f"{outputs[-1]} would hold both the report and the lines to fix: "
                          "name the report another way")  # fmt: skip
    existing = [str(out) for out in outputs if out.exists()]
    if existing and not overwrite:
        raise ReportExists(f"{', '.join(existing)} already exist{'s' * (len(existing) == 1)}: "
                           "name other files, or replace them (--force)")  # fmt: skip


def _copy_failed(journal: Journal, job_id: str, source_path: Path, out: Path) -> int:
    copied = 0
    with SourceFile(source_path) as source, open_private(out, "wb") as file:
        for line in journal.lines(job_id, states=TO_FIX):
            found = source.line_at(line.offset, line.line)
            if found is None or found.number != line.line:
                raise SourceChanged(f"{source_path}: line {line.line} is no longer where it was")
            file.write(found.raw + b"\n")
            copied += 1
    return copied
