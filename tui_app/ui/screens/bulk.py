"""Bulk: import a file of agent and agency records through the bulk pipeline.

Pick an NDJSON file (the path completes as you type), check it before sending (records,
valid, invalid and the first problems with their line numbers), submit it, and watch each
job in the jobs table: jobs submitted here, by ``producer-tui bulk`` or in an earlier
session alike. A job that did not finish is offered for resuming when the area opens. A
job's details list every line's outcome a page at a time, filtered, with actions to send
the retryable failures again and to save the report and the lines to fix.

Everything that reads a file, the journal or the service runs in a worker; each job runs
in its own, and reports its progress as it goes.
"""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from collections.abc import Iterator
from pathlib import Path

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult, SystemCommand
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Button, DataTable, Footer, Label, ProgressBar, Static, Tab, Tabs

from tui_app.bulk.journal import (
    COMPLETED,
    DONE,
    FAILED,
    INVALID,
    PENDING,
    POLLING,
    SENDING,
    SENT,
    STOPPED,
    VALIDATING,
    Job,
    JobBusy,
    Journal,
    LineOutcome,
    UnknownJob,
)
from tui_app.bulk.pipeline import Settings, create_job, run_job
from tui_app.bulk.preflight import Preflight, preflight
from tui_app.bulk.report import write_failed, write_report
from tui_app.bulk.source import SourceChanged, SourceError
from tui_app.client.errors import ClientError
from tui_app.ui.screens.base import AreaScreen
from tui_app.ui.screens.dialogs import ConfirmScreen, PathScreen
from tui_app.ui.widgets.bulk_path import PathInput
from tui_app.ui.widgets.paged_table import PagedTable, Row, Source
from tui_app.ui.widgets.status_bar import StatusBar

RUN_SETTINGS = Settings(concurrency=4)
"""How jobs run from the TUI (tests swap in shorter delays)."""
REFRESH_EVERY = 1.0
"""Seconds between two reads of the journal for the jobs table and a job's details."""
PAGE_SIZE = 100
STATE_WIDTH = 20
SHOWN_PROBLEMS = 5
PROBLEM_MIN_WIDTH = 30
"""A row shows the start of its line's problems in what is left of the table's width (at
least this much); the whole text shows below the table."""
LINE_CELLS_WIDTH = 62
"""About what the columns before the problems take, padding included."""

JOB_COLUMNS = [
    ("job", "Job"),
    ("state", "State"),
    ("progress", "Progress"),
    ("lines", "Lines"),
    ("invalid", "Invalid"),
    ("sent", "Sent"),
    ("completed", "Completed"),
    ("failed", "Failed"),
    ("file", "File"),
]
LINE_COLUMNS = [
    ("line", "Line"),
    ("outcome", "Outcome"),
    ("kind", "Kind"),
    ("key", "Profile key"),
    ("attempts", "Tries"),
    ("retryable", "Retryable"),
    ("problem", "Problem"),
]
FILTERS = {
    # tab id: (label, states, retryable, what a page line calls the rows)
    "all": ("All", None, None, "lines"),
    "failed": ("Failed", (FAILED,), None, "failed lines"),
    "retryable": ("Retryable", (FAILED,), True, "retryable failures"),
    "invalid": ("Invalid", (INVALID,), None, "invalid lines"),
}


# --- words for states and numbers -----------------------------------------------------------


def progress_share(job: Job) -> float:
    """How much of the job is settled (every line completed, failed or invalid), 0 to 1;
    while the file is still being read, scaled by how much of it has been read."""
    if job.state == DONE:
        return 1.0
    c = job.counts
    share = (c.completed + c.failed + c.invalid) / c.lines if c.lines else 0.0
    if not job.scan_done:
        size = job.fingerprint.size
        share *= job.scanned_offset / size if size else 1.0
    return min(share, 1.0)


def progress_text(job: Job, width: int = 8) -> str:
    share = progress_share(job)
    filled = round(share * width)
    return f"{'█' * filled}{'░' * (width - filled)} {share:4.0%}"


def state_words(job: Job, where: str | None, env: str) -> str:
    """The job's state in words; ``where`` is "here", "elsewhere" or None (not running)."""
    if job.state == DONE:
        return "done"
    if where == "here":
        return {
            VALIDATING: "validating",
            SENDING: "sending",
            POLLING: "awaiting results",
            STOPPED: "stopping",
        }.get(job.state, job.state.lower())
    if where == "elsewhere":
        return "running elsewhere"
    if job.env != env:
        return f"paused (env {job.env})"
    return "stopped" if job.state == STOPPED else "interrupted"


def counts_words(job: Job) -> str:
    c = job.counts
    text = (
        f"{c.lines:,} lines: {c.completed:,} completed, {c.failed:,} failed, "
        f"{c.invalid:,} invalid; sent {c.sent_so_far:,} of {c.valid:,} valid"
    )
    if c.retrying:
        text += f", {c.retrying:,} to retry"
    if not job.scan_done:
        text = f"validating: {progress_share_of_file(job):.0%} of the file read; " + text
    return text


def progress_share_of_file(job: Job) -> float:
    size = job.fingerprint.size
    return job.scanned_offset / size if size else 1.0


def created_words(job: Job) -> str:
    """``2026-11-21 09:30`` (the journal keeps UTC times)."""
    return job.created_at[:16].replace("T", " ")


def outcome_words(line: LineOutcome) -> str:
    if line.state == PENDING:
        return "to retry" if line.attempts else "waiting"
    return {COMPLETED: "completed", FAILED: "failed", INVALID: "invalid", SENT: "sent"}.get(
        line.state, line.state.lower()
    )


def clip(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def preflight_text(found: Preflight, submitted: str | None = None) -> Text:
    """The pre-flight summary: counts in words, what happens next (or the job it became),
    then the first problems by line."""
    text = Text()
    text.append(found.path.name, style="bold")
    if not found.done:
        text.append(f"  checking… {found.share:.0%} read: ")
    else:
        text.append("  checked: ")
    text.append(f"{found.records:,} records, {found.valid:,} valid, {found.invalid:,} invalid")
    if submitted is not None:
        text.append(f"\n✓ Submitted as job {submitted}: its progress shows below.")
    elif found.done:
        if found.records == 0:
            text.append("\nThe file holds no record.")
        elif found.valid == 0:
            text.append("\nNo record is valid: fix the file before submitting it.")
        else:
            text.append(f"\nF5 submits the {found.valid:,} valid records")
            if found.invalid:
                text.append("; the invalid ones are listed in the job's report")
            text.append(".")
    for problem in found.problems:
        text.append(f"\n  ✗ line {problem.line}: ", style="bold")
        text.append(clip("; ".join(problem.errors), 100))
    more = found.invalid - len(found.problems)
    if found.done and more > 0:
        text.append(f"\n  … and {more:,} more invalid lines (all of them in the job's details).")
    return text


# --- the area --------------------------------------------------------------------------------


class BulkScreen(AreaScreen):
    AREA = "Bulk"
    # The jobs table, not the path field, has the focus at first: 1-6 and ? work at once.
    AUTO_FOCUS = "#bulk-jobs"
    BINDINGS = [
        Binding("f2", "pick_file", "Pick file", id="bulk.pick"),
        Binding("f3", "check", "Check", id="bulk.check"),
        Binding("f4", "focus_jobs", "Jobs", id="bulk.jobs"),
        Binding("f5", "submit", "Submit", id="bulk.submit"),
        Binding("f6", "resume", "Resume", id="bulk.resume"),
        Binding("f7", "stop", "Stop", id="bulk.stop"),
        Binding("f8", "open_job", "Details", id="bulk.open"),
        Binding("escape", "leave_field", "Leave the field", id="bulk.leave", show=False),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.journal = Journal()
        self.runs: dict[str, asyncio.Event] = {}
        """Jobs running in this app, with the event that stops each gracefully."""
        self.elsewhere: set[str] = set()
        """Jobs another process (the CLI, another app) was running at the last look."""
        self.jobs: dict[str, Job] = {}
        self.checked: Preflight | None = None
        self._row_ids: list[str] = []
        self._shown: dict[str, tuple[str, ...]] = {}
        self._checking: Path | None = None
        self._selected_shown: object = ()

    def compose_body(self) -> ComposeResult:
        with Horizontal(id="bulk-pick"):
            yield Label("File", id="bulk-path-label")
            yield PathInput(
                placeholder="path/to/records.ndjson  (Tab completes, Enter checks)",
                id="bulk-path",
            )
            yield Button("Check  F3", id="bulk-check")
            yield Button("Submit  F5", id="bulk-submit", variant="primary")
        yield Static(
            "Pick an NDJSON file of agent and agency records (F2), check it (Enter), "
            "submit it (F5). Jobs run in the background; they carry on after a restart.",
            id="bulk-preflight",
        )
        yield DataTable(id="bulk-jobs", cursor_type="row", zebra_stripes=True)
        with Horizontal(id="bulk-selected"):
            yield ProgressBar(total=100, show_eta=False, id="bulk-progress")
            yield Static("No bulk jobs yet.", id="bulk-selected-text")

    def on_mount(self) -> None:
        table = self.query_one("#bulk-jobs", DataTable)
        for key, label in JOB_COLUMNS:
            # The state's words change as a job runs: a fixed width keeps the table still.
            table.add_column(label, key=key, width=STATE_WIDTH if key == "state" else None)
        self.set_interval(REFRESH_EVERY, self._tick)
        self.watch(self.app, "env_name", self._env_changed, init=False)
        self.refresh_jobs()
        self.offer_resume()

    def on_screen_resume(self) -> None:
        self.refresh_jobs()

    def commands(self) -> Iterator[SystemCommand]:
        yield SystemCommand("Bulk: pick a file", "Type its path (F2)", self.action_pick_file)
        yield SystemCommand("Bulk: check the file", "Count valid and invalid records (F3)",
                            self.action_check)  # fmt: skip
        yield SystemCommand("Bulk: submit the file", "Start a bulk job (F5)", self.action_submit)
        yield SystemCommand("Bulk: resume the job", "Carry on where it stopped (F6)",
                            self.action_resume)  # fmt: skip
        yield SystemCommand("Bulk: stop the job", "Stop it gracefully (F7)", self.action_stop)
        yield SystemCommand("Bulk: open the job", "Every line's outcome (F8)",
                            self.action_open_job)  # fmt: skip

    # --- picking and checking a file ---

    @property
    def path_input(self) -> PathInput:
        return self.query_one("#bulk-path", PathInput)

    def _typed_path(self) -> Path | None:
        text = self.path_input.value.strip()
        return Path(text).expanduser() if text else None

    def action_pick_file(self) -> None:
        self.path_input.focus()

    def action_focus_jobs(self) -> None:
        self.query_one("#bulk-jobs").focus()

    def action_leave_field(self) -> None:
        if self.focused is self.path_input:
            self.action_focus_jobs()

    @on(PathInput.Submitted, "#bulk-path")
    @on(Button.Pressed, "#bulk-check")
    def action_check(self) -> None:
        path = self._typed_path()
        if path is None:
            self.notify("Type the path of an NDJSON file first.", severity="warning")
            self.action_pick_file()
            return
        self.check_file(path)

    @work(exclusive=True, group="bulk-preflight")
    async def check_file(self, path: Path) -> None:
        panel = self.query_one("#bulk-preflight", Static)
        panel.set_class(False, "-error")
        panel.update(Text(f"{path.name}: checking…"))
        self.checked = None
        self._checking = path.resolve()
        cancelled = threading.Event()
        loop = asyncio.get_running_loop()

        def progress(found: Preflight) -> None:
            loop.call_soon_threadsafe(self._show_preflight, found)

        try:
            found = await asyncio.to_thread(
                preflight, path, on_progress=progress, cancelled=cancelled
            )
        except asyncio.CancelledError:
            cancelled.set()  # the thread stops at its next line
            raise
        except SourceError as exc:
            panel.set_class(True, "-error")
            panel.update(Text(f"✗ Cannot use this file: {exc}"))
            self.notify(str(exc), title="Cannot use this file", severity="error")
            return
        except OSError as exc:
            panel.set_class(True, "-error")
            panel.update(Text(f"✗ Cannot read {path}: {exc.strerror or exc}"))
            return
        self.checked = found
        self._show_preflight(found)

    def _show_preflight(self, found: Preflight) -> None:
        if found.path != self._checking:
            return  # a late report about a file no longer being checked
        panel = self.query_one("#bulk-preflight", Static)
        panel.set_class(found.done and found.valid == 0, "-error")
        panel.update(preflight_text(found))

    # --- submitting ---

    @on(Button.Pressed, "#bulk-submit")
    def action_submit(self) -> None:
        path = self._typed_path()
        if path is None:
            self.notify("Pick a file first (F2): type its path, Tab completes.",
                        severity="warning")  # fmt: skip
            self.action_pick_file()
            return
        self.submit_file(path)

    @work(exclusive=True, group="bulk-submit")
    async def submit_file(self, path: Path) -> None:
        found = self.checked
        if found is not None and found.done and found.path == path.resolve() and not found.valid:
            go = await self.app.push_screen_wait(ConfirmScreen(
                f"No record in {path.name} is valid: the job would only list its "
                f"{found.invalid:,} problems. Submit it anyway?", yes="Submit"))  # fmt: skip
            if not go:
                return
        try:
            job = await asyncio.to_thread(create_job, self.journal, path, self.app.env_name)
        except SourceError as exc:
            panel = self.query_one("#bulk-preflight", Static)
            panel.set_class(True, "-error")
            panel.update(Text(f"✗ Cannot submit: {exc}"))
            self.notify(str(exc), title="Cannot submit", severity="error")
            return
        except (OSError, sqlite3.Error) as exc:
            why = getattr(exc, "strerror", None) or exc
            self.notify(f"Cannot submit {path}: {why}", severity="error")
            return
        self.path_input.value = ""
        self.checked = None
        self.action_focus_jobs()
        panel = self.query_one("#bulk-preflight", Static)
        panel.set_class(False, "-error")
        if found is not None and found.path == job.path:
            panel.update(preflight_text(found, submitted=job.id))
        else:
            panel.update(Text(f"{job.path.name}\n✓ Submitted as job {job.id}: its progress "
                              "and counts show below."))  # fmt: skip
        self.jobs[job.id] = job
        self.start_run(job.id)
        self.refresh_jobs(select=job.id)
        self.notify(f"Job {job.id} started: {job.path.name}")

    # --- running jobs ---

    def start_run(self, job_id: str) -> bool:
        """Run (start, resume or finish) a job in its own worker; False if it already runs."""
        if job_id in self.runs:
            self.notify(f"Job {job_id} is already running.")
            return False
        stop = asyncio.Event()
        self.runs[job_id] = stop
        self.elsewhere.discard(job_id)
        self.run_worker(self._run(job_id, stop), name=f"bulk job {job_id}",
                        group=f"bulk-run-{job_id}")  # fmt: skip
        return True

    async def _run(self, job_id: str, stop: asyncio.Event) -> None:
        title = f"Job {job_id}"
        try:
            job = self.journal.job(job_id)
            if job.env != self.app.env_name:
                self.notify(f"It was submitted to environment {job.env}; switch to it in "
                            "Settings to resume it.", title=title, severity="warning")  # fmt: skip
                return
            client = await self.app.client()
            job = await run_job(self.journal, job_id, client, RUN_SETTINGS,
                                on_progress=self._on_progress, stop=stop)  # fmt: skip
        except JobBusy:
            self.elsewhere.add(job_id)
            self.notify("It is already running in another process (perhaps producer-tui "
                        "bulk); its progress shows here.", title=title, severity="warning")  # fmt: skip
        except SourceChanged as exc:
            self.notify(f"It cannot go on: {exc}", title=title, severity="error", timeout=10)
        except (SourceError, UnknownJob, sqlite3.Error) as exc:
            self.notify(str(exc), title=title, severity="error", timeout=10)
        except ClientError as exc:
            self.notify(f"It cannot run now: {exc.message}", title=title, severity="error")
        except OSError as exc:
            self.notify(f"It stopped: {exc.strerror or exc}", title=title, severity="error")
        except Exception as exc:  # never a traceback: the journal keeps the job resumable
            self.notify(f"It stopped on an unexpected error ({exc!r}); resume it with F6.",
                        title=title, severity="error", timeout=10)  # fmt: skip
        else:
            self._ended(job)
        finally:
            self.runs.pop(job_id, None)
            if self.is_attached:
                self.refresh_jobs()

    def _ended(self, job: Job) -> None:
        self._on_progress(job)
        title = f"Job {job.id}"
        c = job.counts
        if job.state == DONE:
            severity = "information" if c.all_succeeded else "warning"
            self.notify(f"Done: {c.completed:,} completed, {c.failed:,} failed, "
                        f"{c.invalid:,} invalid of {c.lines:,} lines.", title=title,
                        severity=severity)  # fmt: skip
        else:
            self.notify(f"Stopped: {job.message or 'for no reason given'}. F6 resumes it.",
                        title=title, severity="warning", timeout=10)  # fmt: skip

    def _on_progress(self, job: Job) -> None:
        """From a running job, after each step (on the event loop)."""
        self.jobs[job.id] = job
        if job.id in self._row_ids:
            self._update_row(job)
            if self._selected_id() == job.id:
                self._show_selected()

    def _env_changed(self, env: str) -> None:
        for job_id, stop in self.runs.items():
            job = self.jobs.get(job_id)
            if job is not None and job.env != env and not stop.is_set():
                stop.set()
                self.notify(f"Stopping it: it belongs to environment {job.env}.",
                            title=f"Job {job_id}")  # fmt: skip

    @work(group="bulk-offer")
    async def offer_resume(self) -> None:
        """When the area opens: offer to resume the jobs that did not finish (in an earlier
        session, or in a CLI run that was stopped) and that nothing runs now."""
        try:
            jobs = await asyncio.to_thread(self.journal.jobs)
        except sqlite3.Error as exc:
            self.notify(f"Cannot read the bulk journal: {exc}", severity="error")
            return
        unfinished = [j for j in jobs if j.state != DONE and j.id not in self.runs
                      and not self.journal.is_running(j.id)]  # fmt: skip
        env = self.app.env_name
        here = [j for j in unfinished if j.env == env]
        others = sorted({j.env for j in unfinished if j.env != env})
        if others:
            n = len(unfinished) - len(here)
            self.notify(f"{n} unfinished bulk job{'s' * (n != 1)} belong to "
                        f"{', '.join(others)}; switch environment to resume them.")  # fmt: skip
        if not here:
            return
        listing = "\n".join(f"  {j.id}  {clip(j.path.name, 24)}: {state_words(j, None, env)}, "
                            f"{progress_share(j):.0%} done" for j in here[:6])  # fmt: skip
        if len(here) > 6:
            listing += f"\n  … and {len(here) - 6} more"
        n = len(here)
        go = await self.app.push_screen_wait(ConfirmScreen(
            f"{n} bulk job{'s' * (n != 1)} did not finish:\n{listing}\n\nResume "
            f"{'them' if n != 1 else 'it'} now? Each carries on where it stopped.",
            yes="Resume"))  # fmt: skip
        if not go:
            self.notify("Resume a job later: select it and press F6.")
            return
        for job in here:
            if job.id not in self.runs and not self.journal.is_running(job.id):
                self.start_run(job.id)
        self.refresh_jobs()

    def _selected_job(self) -> Job | None:
        job_id = self._selected_id()
        if job_id is None:
            self.notify("No job selected: pick one in the jobs table (F4).", severity="warning")
            return None
        return self.jobs.get(job_id)

    def action_resume(self) -> None:
        job = self._selected_job()
        if job is None:
            return
        if job.id in self.runs:
            self.notify(f"Job {job.id} is running.")
        elif job.state == DONE:
            self.notify(f"Job {job.id} is done. To send its retryable failures again, "
                        "open it (F8) and press F5.")  # fmt: skip
        elif self.journal.is_running(job.id):
            self.notify(f"Job {job.id} is running in another process.", severity="warning")
        else:
            self.start_run(job.id)
            self.refresh_jobs()

    def action_stop(self) -> None:
        job = self._selected_job()
        if job is None:
            return
        stop = self.runs.get(job.id)
        if stop is not None:
            stop.set()
            self.notify(f"Stopping job {job.id}: finishing the requests in flight. "
                        "F6 resumes it.")  # fmt: skip
        elif job.id in self.elsewhere:
            self.notify(f"Job {job.id} runs in another process: stop it there (Ctrl+C in "
                        "its terminal).", severity="warning")  # fmt: skip
        else:
            self.notify(f"Job {job.id} is not running.")

    def retry(self, job_id: str) -> None:
        """Send a job's retryable failures again (from its details)."""
        self._retry(job_id)

    @work(group="bulk-retry")
    async def _retry(self, job_id: str) -> None:
        title = f"Job {job_id}"
        if job_id in self.runs or self.journal.is_running(job_id):
            self.notify("It is running: retry its failures once it ends.", title=title,
                        severity="warning")  # fmt: skip
            return
        job = self.jobs.get(job_id) or self.journal.job(job_id)
        if job.env != self.app.env_name:
            self.notify(f"It was submitted to environment {job.env}; switch to it first.",
                        title=title, severity="warning")  # fmt: skip
            return
        try:
            count = await asyncio.to_thread(self.journal.retry_retryable, job_id)
        except sqlite3.Error as exc:
            self.notify(f"Cannot mark its failures for sending: {exc}", title=title,
                        severity="error")  # fmt: skip
            return
        if not count:
            self.notify("It has no retryable failures to send again.", title=title)
            return
        self.notify(f"Sending {count:,} record{'s' * (count != 1)} again.", title=title)
        self.start_run(job_id)
        self.refresh_jobs()

    # --- the jobs table ---

    def _tick(self) -> None:
        if self.is_current:
            self.refresh_jobs()

    @work(exclusive=True, group="bulk-refresh")
    async def refresh_jobs(self, select: str | None = None) -> None:
        """Read every job from the journal (in a thread) and show them."""
        try:
            jobs = await asyncio.to_thread(self.journal.jobs)
        except sqlite3.Error as exc:  # e.g. locked for longer than its busy timeout
            self.query_one("#bulk-selected-text", Static).update(
                f"Cannot read the bulk journal just now ({exc}); trying again."
            )
            self._selected_shown = ()
            return
        for job in jobs:
            if job.id in self.runs or job.state == DONE:
                self.elsewhere.discard(job.id)
            elif self.journal.is_running(job.id):
                self.elsewhere.add(job.id)
            else:
                self.elsewhere.discard(job.id)
            latest = self.jobs.get(job.id)
            if latest is None or job.id not in self.runs or latest.updated_at <= job.updated_at:
                self.jobs[job.id] = job
        self._fill([self.jobs[j.id] for j in jobs], select)

    def where_running(self, job: Job) -> str | None:
        """"here", "elsewhere" (another process) or None (not running)."""
        if job.id in self.runs:
            return "here"
        return "elsewhere" if job.id in self.elsewhere else None

    def _cells(self, job: Job) -> tuple[str | Text, ...]:
        c = job.counts
        numbers = (c.lines, c.invalid, c.sent_so_far, c.completed, c.failed)
        return (
            job.id,
            clip(state_words(job, self.where_running(job), self.app.env_name), STATE_WIDTH),
            progress_text(job),
            *(Text(f"{n:,}", justify="right") for n in numbers),
            clip(job.path.name, 24),
        )

    def _fill(self, jobs: list[Job], select: str | None = None) -> None:
        table = self.query_one("#bulk-jobs", DataTable)
        ids = [job.id for job in jobs]
        if ids != self._row_ids:
            selected = select or self._selected_id()
            table.clear()
            self._shown.clear()
            for job in jobs:
                cells = self._cells(job)
                table.add_row(*cells, key=job.id)
                self._shown[job.id] = cells
            self._row_ids = ids
            if selected in ids:
                table.move_cursor(row=ids.index(selected), animate=False)
        else:
            for job in jobs:
                self._update_row(job)
            if select in ids:
                table.move_cursor(row=ids.index(select), animate=False)
        self._show_selected()

    def _update_row(self, job: Job) -> None:
        cells = self._cells(job)
        before = self._shown.get(job.id)
        if cells == before:
            return
        table = self.query_one("#bulk-jobs", DataTable)
        for (key, _), cell, old in zip(JOB_COLUMNS, cells, before or [None] * len(cells),
                                       strict=True):  # fmt: skip
            if cell != old:
                table.update_cell(job.id, key, cell, update_width=True)
        self._shown[job.id] = cells

    def _selected_id(self) -> str | None:
        table = self.query_one("#bulk-jobs", DataTable)
        if not table.row_count:
            return None
        index = min(table.cursor_row, len(self._row_ids) - 1)
        return self._row_ids[index] if index >= 0 else None

    @on(DataTable.RowHighlighted, "#bulk-jobs")
    def _highlighted(self) -> None:
        self._show_selected()

    def _show_selected(self) -> None:
        job_id = self._selected_id()
        job = self.jobs.get(job_id) if job_id else None
        shown = (job, self.where_running(job), self.app.env_name) if job else None
        if shown == self._selected_shown:
            return  # unchanged: no repaint
        self._selected_shown = shown
        text = self.query_one("#bulk-selected-text", Static)
        bar = self.query_one("#bulk-progress", ProgressBar)
        if job is None:
            bar.update(progress=0)
            text.update("No bulk jobs yet.")
            return
        bar.update(progress=round(progress_share(job) * 100))
        words = state_words(job, self.where_running(job), self.app.env_name)
        shown = Text()
        shown.append(f"Job {job.id}", style="bold")
        shown.append(f"  {words}  ·  {job.path.name}  ·  env {job.env}\n")
        shown.append(counts_words(job))
        if job.state == STOPPED and job.message and self.where_running(job) is None:
            shown.append(f"\nStopped: {job.message}. F6 resumes it.")
        else:
            shown.append(f"\nCreated {created_words(job)} UTC  ·  Enter or F8: every line's "
                         "outcome.")  # fmt: skip
        text.update(shown)

    @on(DataTable.RowSelected, "#bulk-jobs")
    def action_open_job(self) -> None:
        job = self._selected_job()
        if job is not None:
            self.app.push_screen(BulkJobScreen(self, job.id))


# --- one job's details ---------------------------------------------------------------------


class BulkJobScreen(Screen):
    """Every line of one job with its outcome, a page at a time, filtered."""

    BINDINGS = [
        Binding("escape", "app.pop_screen", "Back", id="bulk.back"),
        Binding("f5", "retry", "Retry retryable", id="bulk.retry"),
        Binding("f6", "save_report", "Save report", id="bulk.report"),
        Binding("f7", "save_failed", "Save failed", id="bulk.save_failed"),
        Binding("n", "page(1)", "Next page", id="bulk.next_page"),
        Binding("p", "page(-1)", "Prev page", id="bulk.prev_page"),
        Binding("a", "filter('all')", "All lines", id="bulk.show_all", show=False),
        Binding("f", "filter('failed')", "Failed only", id="bulk.show_failed", show=False),
        Binding(
            "r", "filter('retryable')", "Retryable only", id="bulk.show_retryable", show=False
        ),  # fmt: skip
        Binding("i", "filter('invalid')", "Invalid only", id="bulk.show_invalid", show=False),
    ]

    def __init__(self, bulk: BulkScreen, job_id: str) -> None:
        super().__init__()
        self.bulk = bulk
        self.journal = bulk.journal
        self.job_id = job_id
        self.job: Job | None = bulk.jobs.get(job_id)
        self.retryable = 0
        """The job's FAILED lines that may be sent again."""
        self.filter = "all"

    def compose(self) -> ComposeResult:
        yield StatusBar(f"Bulk › Job {self.job_id}")
        with Vertical(id="bulk-job-head"):
            yield Static("", id="bulk-job-title")
            with Horizontal(id="bulk-job-progress-row"):
                yield ProgressBar(total=100, show_eta=False, id="bulk-job-progress")
                yield Static("", id="bulk-job-counts")
        with Horizontal(id="bulk-filter-row"):
            yield Tabs(*(Tab(label, id=f"show-{key}") for key, (label, *_) in FILTERS.items()),
                       id="bulk-filter")  # fmt: skip
            yield Static("a all · f failed · r retryable · i invalid", id="bulk-filter-keys",
                         classes="hint")  # fmt: skip
        yield PagedTable(LINE_COLUMNS, page_size=PAGE_SIZE, id="bulk-lines")
        yield Static("", id="bulk-line-detail")
        yield Footer()

    def on_mount(self) -> None:
        self._show_job()
        self._show_filter()
        self.refresh_job()
        self.set_interval(REFRESH_EVERY, self.refresh_job)
        self.query_one("#bulk-lines", PagedTable).table.focus()

    def commands(self) -> Iterator[SystemCommand]:
        yield SystemCommand("Bulk job: retry the retryable", "Send them again (F5)",
                            self.action_retry)  # fmt: skip
        yield SystemCommand("Bulk job: save the report", "CSV and failed.ndjson (F6)",
                            self.action_save_report)  # fmt: skip
        yield SystemCommand("Bulk job: save the failed lines", "NDJSON to fix (F7)",
                            self.action_save_failed)  # fmt: skip
        for key, (label, *_rest) in FILTERS.items():
            yield SystemCommand(f"Bulk job: show {label.lower()}", f"Filter the lines ({key[0]})",
                                lambda key=key: self.action_filter(key))  # fmt: skip

    @property
    def lines_table(self) -> PagedTable:
        return self.query_one("#bulk-lines", PagedTable)

    # --- the job ---

    @work(exclusive=True, group="bulk-job")
    async def refresh_job(self) -> None:
        """Read the job again (in a thread); when its lines moved on, read the page again."""
        before = self.job

        def read() -> tuple[Job, int]:
            job = self.journal.job(self.job_id)
            return job, self.journal.count_lines(self.job_id, states=[FAILED], retryable=True)

        try:
            job, self.retryable = await asyncio.to_thread(read)
        except (UnknownJob, sqlite3.Error):
            return  # tried again at the next tick
        latest = self.bulk.jobs.get(self.job_id)
        if latest is not None and latest.updated_at > job.updated_at:
            job = latest
        self.job = job
        self._show_job()
        if before is not None and (before.counts, before.state) != (job.counts, job.state):
            self.lines_table.reload()

    def _show_job(self) -> None:
        job = self.job
        title = self.query_one("#bulk-job-title", Static)
        if job is None:
            title.update(f"Job {self.job_id}: reading…")
            return
        words = state_words(job, self.bulk.where_running(job), self.app.env_name)
        text = Text()
        text.append(f"Job {job.id}", style="bold")
        text.append(f"  {words}  ·  env {job.env}  ·  created {created_words(job)} UTC  ·  "
                    f"up to {job.batch_size} records per request\n")  # fmt: skip
        text.append(f"{job.path}  ({job.fingerprint.size:,} bytes)")
        if job.state == STOPPED and job.message:
            text.append(f"\nStopped: {job.message}")
        title.update(text)
        self.query_one("#bulk-job-progress", ProgressBar).update(
            progress=round(progress_share(job) * 100)
        )
        self.query_one("#bulk-job-counts", Static).update(counts_words(job))
        c = job.counts
        shown = {"all": c.lines, "failed": c.failed, "retryable": self.retryable,
                 "invalid": c.invalid}  # fmt: skip
        for key, (label, *_) in FILTERS.items():
            self.query_one(f"#show-{key}", Tab).label = f"{label} {shown[key]:,}"

    # --- the lines ---

    def action_filter(self, key: str) -> None:
        self.query_one("#bulk-filter", Tabs).active = f"show-{key}"

    @on(Tabs.TabActivated, "#bulk-filter")
    def _filter_chosen(self, event: Tabs.TabActivated) -> None:
        key = (event.tab.id or "show-all").removeprefix("show-")
        if key != self.filter:
            self.filter = key
            self._show_filter()

    def _show_filter(self) -> None:
        _, states, retryable, what = FILTERS[self.filter]
        journal, job_id = self.journal, self.job_id

        def fetch(after: int, limit: int) -> list[Row]:
            lines = journal.lines(job_id, states=states, retryable=retryable,
                                  after=after, limit=limit)  # fmt: skip
            # Before the first layout the table has no size yet: the screen's width then.
            room = self.lines_table.size.width or self.app.size.width - 2
            width = max(PROBLEM_MIN_WIDTH, room - LINE_CELLS_WIDTH)
            return [(line.line, line_cells(line, width)) for line in lines]

        def count() -> int:
            return journal.count_lines(job_id, states=states, retryable=retryable)

        self.lines_table.show(Source(fetch, count, empty=f"No {what}.", label=what))

    def action_page(self, step: int) -> None:
        table = self.lines_table
        moved = table.next_page() if step > 0 else table.previous_page()
        if not moved:
            self.notify("This is the last page." if step > 0 else "This is the first page.")

    @on(DataTable.RowHighlighted)
    def _line_highlighted(self, event: DataTable.RowHighlighted) -> None:
        """The whole of the highlighted line's problems (its row shows the start)."""
        detail = self.query_one("#bulk-line-detail", Static)
        key = event.row_key.value if event.row_key is not None else None
        found = None
        if key is not None:
            number = int(key)
            found = next(self.journal.lines(self.job_id, after=number - 1, limit=1), None)
        if found is None or found.line != number:
            detail.update("")
            return
        text = Text()
        text.append(f"line {found.line}: {outcome_words(found)}", style="bold")
        if found.errors:
            text.append(": " + "; ".join(found.errors))
        detail.update(text)

    # --- actions ---

    def action_retry(self) -> None:
        self.bulk.retry(self.job_id)

    @work(group="bulk-save")
    async def action_save_report(self) -> None:
        job = self.job or self.journal.job(self.job_id)
        default = job.path.with_name(f"{job.path.stem}-report.csv")
        out = await self.app.push_screen_wait(PathScreen(
            "Save the report as (CSV; the lines to fix go to failed.ndjson beside it)",
            str(default)))  # fmt: skip
        if out is None:
            return
        if out.is_dir():
            out = out / default.name
        failed = out.with_name("failed.ndjson")
        if failed.resolve() == job.path.resolve():  # resubmitting an earlier failed.ndjson
            failed = out.with_name(f"{out.stem}-failed.ndjson")
        if not await self._may_write(out, failed):
            return
        try:
            report = await asyncio.to_thread(write_report, self.journal, job.id, out, failed)
        except (SourceError, UnknownJob, sqlite3.Error) as exc:
            self.notify(str(exc), title="Report not saved", severity="error", timeout=10)
            return
        except OSError as exc:
            self.notify(f"Cannot write {exc.filename or out}: {exc.strerror or exc}",
                        title="Report not saved", severity="error")  # fmt: skip
            return
        self.notify(f"{report.csv_path} ({report.rows:,} lines); {report.failed_lines:,} lines "
                    f"to fix in {report.failed_path}", title="Report saved")  # fmt: skip

    @work(group="bulk-save")
    async def action_save_failed(self) -> None:
        job = self.job or self.journal.job(self.job_id)
        if not job.counts.failed + job.counts.invalid:
            self.notify(f"Job {job.id} has no failed or invalid lines: nothing to save.")
            return
        default = job.path.with_name(f"{job.path.stem}-failed.ndjson")
        out = await self.app.push_screen_wait(PathScreen(
            "Save the failed and invalid lines as (NDJSON, as they were in the file)",
            str(default)))  # fmt: skip
        if out is None:
            return
        if out.is_dir():
            out = out / default.name
        if not await self._may_write(out):
            return
        try:
            count = await asyncio.to_thread(write_failed, self.journal, job.id, out)
        except (SourceError, UnknownJob, sqlite3.Error) as exc:
            self.notify(str(exc), title="Lines not saved", severity="error", timeout=10)
            return
        except OSError as exc:
            self.notify(f"Cannot write {exc.filename or out}: {exc.strerror or exc}",
                        title="Lines not saved", severity="error")  # fmt: skip
            return
        self.notify(f"{count:,} lines to fix and submit again: {out}", title="Failed lines saved")

    async def _may_write(self, *paths: Path) -> bool:
        existing = [p for p in paths if p.exists()]
        if not existing:
            return True
        names = ", ".join(str(p) for p in existing)
        return await self.app.push_screen_wait(
            ConfirmScreen(f"{names} already exist{'s' * (len(existing) == 1)}. Replace?",
                          yes="Replace"))  # fmt: skip


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
