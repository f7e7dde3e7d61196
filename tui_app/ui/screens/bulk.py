"""Bulk: import a file of agent and agency records through the bulk pipeline.

Pick an NDJSON file (the path completes as you type), check it before sending (records,
valid, invalid and the first problems with their line numbers), submit it, and watch each
job in the jobs table: jobs submitted here, by ``producer-tui bulk`` or in another
session alike. Jobs run in worker processes of their own (:mod:`tui_app.bulk.worker`):
this screen only attaches to them, so they keep running when the app quits or the SSH
connection drops, and the keyboard stays as quick while they run as when they do not. A
job that stopped unexpectedly is offered for resuming when the area opens. A job's
details (:mod:`tui_app.ui.screens.bulk_job`) list every line's outcome a page at a time.

Everything that reads a file, the journal or the service runs off the event loop.
"""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

from rich.text import Text
from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.notifications import SeverityLevel
from textual.widgets import Button, DataTable, Label, ProgressBar, Static

from tui_app.bulk.checker import available_cores
from tui_app.bulk.control import JobControl
from tui_app.bulk.journal import DONE, STOPPED, Job, JobBusy, JournalError
from tui_app.bulk.pipeline import AlreadySubmitted
from tui_app.bulk.preflight import Preflight, preflight
from tui_app.bulk.source import SourceError, first_records
from tui_app.bulk.worker import Attached, WorkerFailed
from tui_app.ui.bulk_words import (
    clip,
    counts_words,
    created_words,
    elsewhere,
    preflight_text,
)
from tui_app.ui.screens.base import AreaScreen
from tui_app.ui.screens.dialogs import ConfirmScreen
from tui_app.ui.widgets.bulk_path import PathInput
from tui_app.ui.widgets.jobs_table import JobsTable
from tui_app.ui.widgets.steady_static import SteadyStatic
from tui_app.words import counted

REFRESH_EVERY = 0.5
"""Seconds between two reads of the journal for the jobs table."""


class BulkScreen(AreaScreen):
    AREA = "Bulk"
    # The jobs table, not the path field, has the focus at first: 1-6 and ? work at once.
    AUTO_FOCUS = "#bulk-jobs"
    # Keys that move the focus are priority bindings: handled as they arrive, so keys typed
    # straight after them (a pasted path) follow the focus instead of the old widget.
    # fmt: off
    BINDINGS = [
        Binding("f2", "pick_file", "Pick file", tooltip="Type the path of an NDJSON file", id="bulk.pick", priority=True),
        Binding("f3", "check", "Check", tooltip="Count its valid and invalid records", id="bulk.check"),
        Binding("f4", "focus_jobs", "Jobs", tooltip="Move to the jobs table", id="bulk.jobs", priority=True),
        Binding("f5", "submit", "Submit", tooltip="Start a bulk job; it runs on after you quit", id="bulk.submit"),
        Binding("f6", "resume", "Resume", tooltip="Carry on where the job stopped", id="bulk.resume"),
        Binding("f7", "stop", "Stop", tooltip="Stop the job gracefully", id="bulk.stop"),
        Binding("f8", "open_job", "Details", tooltip="Every line's outcome", id="bulk.open"),
        Binding("e", "toggle_envs", "All envs", tooltip="Jobs of every environment, or only this one's", id="bulk.envs"),
    ]
    # fmt: on

    def __init__(self) -> None:
        super().__init__()
        self.control = JobControl()
        self.seen: dict[str, Attached] = {}
        """Every job shown, as last read, with whether a worker runs it."""
        self.all_envs = False
        """Show every environment's jobs, not only the current one's."""
        self.watching: set[str] = set()
        """Jobs started from here: their end is told even if it came before a look."""
        self.checked: Preflight | None = None
        self._checking: Path | None = None
        self._selected_shown: object = ()

    def compose_body(self) -> ComposeResult:
        with Horizontal(id="bulk-pick"):
            yield Label("File", id="bulk-path-label")
            yield PathInput(
                placeholder="path/to/records.ndjson  (Tab completes, Enter checks)",
                id="bulk-path",
            )
            yield Button(f"Check  {self.key('bulk.check')}", id="bulk-check")
            yield Button(f"Submit  {self.key('bulk.submit')}", id="bulk-submit",
                         variant="primary")  # fmt: skip
        # Scrolls (Tab reaches it): a check's list of bad lines is longer than a small
        # terminal has rows for.
        with VerticalScroll(id="bulk-preflight-box"):
            yield SteadyStatic(
                self._start_hint(), id="bulk-preflight", beside="#bulk-jobs", markup=False
            )
        yield JobsTable(id="bulk-jobs")
        with Horizontal(id="bulk-selected"):
            yield ProgressBar(total=100, show_eta=False, id="bulk-progress")
            yield SteadyStatic(
                "No bulk jobs yet.", id="bulk-selected-text", beside="#bulk-jobs", markup=False
            )

    def on_mount(self) -> None:
        self.set_interval(REFRESH_EVERY, self._tick)
        self.watch(self.app, "env_name", self._env_changed, init=False)
        self.refresh_jobs()
        self.offer_resume()

    def on_unmount(self) -> None:
        self.control.close()

    def on_screen_resume(self) -> None:
        self.refresh_jobs()

    # --- picking and checking a file ---

    def _start_hint(self) -> str:
        return (
            f"Pick an NDJSON file of agent and agency records ({self.key('bulk.pick')}), "
            f"check it (Enter), submit it ({self.key('bulk.submit')}). Jobs run in the "
            "background and keep running after you quit."
        )

    @on(PathInput.Changed, "#bulk-path")
    def _path_changed(self) -> None:
        """A path typed since the panel spoke of a file (its check, or why it cannot be
        used) takes that away (QA: "✗ Cannot submit: …/empty.ndjson is empty" stayed
        beside another file's path, as if of it)."""
        if self._checking is None:
            return
        typed = self._typed_path()
        if typed is None or typed.resolve() != self._checking:
            self._checking = None
            self._tell(Text(self._start_hint()))

    @property
    def path_input(self) -> PathInput:
        return self.query_one("#bulk-path", PathInput)

    def _typed_path(self) -> Path | None:
        text = self.path_input.value.strip()
        return Path(text).expanduser() if text else None

    def action_pick_file(self) -> None:
        self.set_focus(self.path_input)

    def on_key(self, event: events.Key) -> None:
        """A path typed on the empty jobs table (the focus there at first) goes into the
        file field from its first character (QA: the 1 of /tmp/qa1 opened Search, and the
        a and t after it an order form). A key the screen binds keeps its meaning: 1-6,
        ? and the F-keys work there as before.

        Keys typed in one burst were all queued for the table before the first moved the
        focus; they reach here with the field focused (which keeps the keys it gets), and
        go into it too (seen: "/tmp/ux/recs.ndjson" left "/")."""
        table = self.jobs_table
        if (
            event.character
            and event.is_printable
            and self.focused in (table, self.path_input)
            and not table.row_count
            and event.key not in self.active_bindings
        ):
            event.stop()
            self.set_focus(self.path_input)
            self.path_input.insert_text_at_cursor(event.character)

    def action_focus_jobs(self) -> None:
        self.set_focus(self.jobs_table)

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
        self._tell(Text(f"{path.name}: checking…"))
        self.checked = None
        self._checking = path.resolve()
        cancelled = threading.Event()
        loop = asyncio.get_running_loop()

        def progress(found: Preflight) -> None:
            loop.call_soon_threadsafe(self._show_preflight, found)

        try:
            found = await asyncio.to_thread(
                preflight,
                path,
                on_progress=progress,
                cancelled=cancelled,
                processes=max(1, available_cores() - 1),  # a core left to draw on
                max_bytes=self.app.env.bulk_max_request_bytes,
            )
        except asyncio.CancelledError:
            cancelled.set()  # the thread stops at its next line
            raise
        except SourceError as exc:
            self._tell(Text(f"✗ Cannot use this file: {exc}"), error=True)
            self.notify(str(exc), title="Cannot use this file", severity="error")
            return
        except OSError as exc:
            self._tell(Text(f"✗ Cannot read {path}: {exc.strerror or exc}"), error=True)
            return
        self.checked = found
        self._show_preflight(found)

    def _show_preflight(self, found: Preflight) -> None:
        if found.path != self._checking:
            return  # a late report about a file no longer being checked
        text = preflight_text(found, self.key("bulk.submit"))
        self._tell(text, error=found.done and found.valid == 0, partial=not found.done)

    # --- submitting ---

    @on(Button.Pressed, "#bulk-submit")
    def action_submit(self) -> None:
        path = self._typed_path()
        if path is None:
            self.notify(f"Pick a file first ({self.key('bulk.pick')}): type its path, Tab "
                        "completes.", severity="warning")  # fmt: skip
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
        elif found is None or found.path != path.resolve():
            # Not checked (F3): its first records tell a file of the wrong shape (QA: 3,000
            # lines, every one invalid, made a job that "completed" nothing).
            try:
                seen, valid, problem = await asyncio.to_thread(first_records, path)
            except SourceError:
                seen = valid = 0  # said by the job's creation below
            if seen and not valid:
                what = "its one record is" if seen == 1 else f"its first {seen:,} records are"
                go = await self.app.push_screen_wait(ConfirmScreen(
                    f"In {path.name}, {what} invalid ({problem}): the job may only list "
                    f"problems. Submit it anyway, or check it first ({self.key('bulk.check')})?",
                    yes="Submit"))  # fmt: skip
                if not go:
                    return
        env = self.app.config.environments.get(self.app.env_name)
        try:
            job = await self._new_job(path, env.bulk_max_request_bytes if env else None)
        except SourceError as exc:
            self._checking = path.resolve()  # what the panel now speaks of
            self._tell(Text(f"✗ Cannot submit: {exc}"), error=True)
            self.notify(str(exc), title="Cannot submit", severity="error")
            return
        except (WorkerFailed, JobBusy, JournalError, OSError) as exc:
            why = getattr(exc, "strerror", None) or exc
            self.notify(f"Cannot submit {path}: {why}", severity="error", timeout=10)
            return
        if job is None:
            return
        self._checking = None  # the panel speaks of the job now, not of the path cleared
        self.path_input.value = ""
        self.checked = None
        self.action_focus_jobs()
        if found is not None and found.path == job.path:
            self._tell(preflight_text(found, self.key("bulk.submit"), submitted=job.id))
        else:
            self._tell(Text(f"{job.path.name}\n✓ Submitted as job {job.id}: it runs in the "
                            "background, and keeps running if you quit or lose the "
                            "connection."))  # fmt: skip
        self.watching.add(job.id)
        self.refresh_jobs(select=job.id)
        self.notify(f"Job {job.id} started: {job.path.name}")

    def _tell(self, text: Text, *, error: bool = False, partial: bool = False) -> None:
        """Say ``text`` in the panel under the path, framed as an error or not. A
        ``partial`` report (a check's progress, several a second) keeps the panel's height
        if it fits; anything else fits the panel to it."""
        self.query_one("#bulk-preflight-box").set_class(error, "-error")
        panel = self.query_one("#bulk-preflight", SteadyStatic)
        panel.update(text)
        if not partial:
            panel.fit()

    async def _new_job(self, path: Path, max_bytes: int | None) -> Job | None:
        """A started job for ``path``; for a file this environment already had a job of,
        only once the user says so (None if not)."""
        try:
            return await self.control.submit(path, self.app.env_name, max_bytes, once=True)
        except AlreadySubmitted as exc:
            if not await self.app.push_screen_wait(ConfirmScreen(
                    f"{exc}. Submit it again? Every record is sent again, and may overwrite "
                    "what the service was given since.", yes="Submit again")):  # fmt: skip
                return None
            return await self.control.submit(
                path, self.app.env_name, max_bytes, fingerprint=exc.fingerprint
            )

    # --- steering jobs ---

    def _selected(self) -> Attached | None:
        job_id = self.jobs_table.selected_id
        if job_id is None:
            self.notify(f"No job selected: pick one in the jobs table ({self.key('bulk.jobs')}).",
                        severity="warning")  # fmt: skip
            return None
        return self.seen.get(job_id)

    def action_resume(self) -> None:
        seen = self._selected()
        if seen is None:
            return
        if seen.running:
            self.notify(f"Job {seen.job.id} is running.")
        elif seen.job.state == DONE:
            from tui_app.ui.screens.bulk_job import BulkJobScreen

            retry = self.app.key_of(BulkJobScreen, "bulk.retry")
            self.notify(f"Job {seen.job.id} is done. To send its retryable failures again, "
                        f"open it ({self.key('bulk.open')}) and press {retry}.")  # fmt: skip
        else:
            self.resume([seen])

    @work(group="bulk-start")
    async def resume(self, jobs: list[Attached]) -> None:
        for seen in jobs:
            job_id = seen.job.id
            try:
                await self.control.start(job_id)
            except (WorkerFailed, JobBusy, SourceError, JournalError, OSError) as exc:
                self.notify(f"It cannot start: {exc}", title=f"Job {job_id}", severity="error",
                            timeout=10)  # fmt: skip
            else:
                self.watching.add(job_id)
                self.notify(f"Resumed{elsewhere(seen.job, self.app.env_name)}: it carries on where it "
                            "stopped.", title=f"Job {job_id}")  # fmt: skip
        self.refresh_jobs()

    @work(group="bulk-stop")
    async def action_stop(self) -> None:
        seen = self._selected()
        if seen is None:
            return
        if not seen.running:
            self.notify(f"Job {seen.job.id} is not running.")
            return
        await self.control.stop(seen.job.id)
        self.notify(f"Stopping job {seen.job.id}: finishing the requests in flight. "
                    "F6 resumes it.")  # fmt: skip

    @work(group="bulk-offer")
    async def offer_resume(self) -> None:
        """When the area opens: offer to resume this environment's jobs that stopped
        unexpectedly or were interrupted, and that no worker runs now."""
        try:
            jobs = await self.control.jobs()
        except (JournalError, OSError) as exc:
            self.notify(f"Cannot read the bulk journal: {exc}", severity="error", timeout=10)
            return
        unfinished = [s for s in jobs if s.job.state != DONE and not s.running]
        env = self.app.env_name
        here = [s for s in unfinished if s.job.env == env]
        others = sorted({s.job.env for s in unfinished if s.job.env != env})
        if others:
            n = len(unfinished) - len(here)
            self.notify(f"{counted(n, 'unfinished bulk job')} belong{'s' * (n == 1)} to "
                        f"{', '.join(others)}: {self.key('bulk.envs')} shows every "
                        f"environment's jobs, {self.key('bulk.resume')} resumes the one "
                        "selected.")  # fmt: skip
        if not here:
            return
        listing = "\n".join(f"  {s.job.id}  {clip(s.job.path.name, 24)}: "
                            f"{s.words()}, {s.job.share:.0%} done"
                            for s in here[:6])  # fmt: skip
        if len(here) > 6:
            listing += f"\n  … and {len(here) - 6} more"
        n = len(here)
        go = await self.app.push_screen_wait(ConfirmScreen(
            f"{counted(n, 'bulk job')} did not finish:\n{listing}\n\nResume "
            f"{'them' if n != 1 else 'it'} now? Each carries on where it stopped.",
            yes="Resume"))  # fmt: skip
        if not go:
            self.notify(f"Resume a job later: select it and press {self.key('bulk.resume')}.")
            return
        self.resume(here)

    def action_toggle_envs(self) -> None:
        self.all_envs = not self.all_envs
        self.notify("Jobs of every environment." if self.all_envs
                    else f"Jobs of environment {self.app.env_name} only.")  # fmt: skip
        self.refresh_jobs()

    def _env_changed(self, env: str) -> None:
        self.refresh_jobs()

    # --- the jobs table ---

    def _tick(self) -> None:
        if self.is_current:
            self.refresh_jobs()

    @work(exclusive=True, group="bulk-refresh")
    async def refresh_jobs(self, select: str | None = None) -> None:
        """Read the jobs (off the loop), say which ended since the last look, show them."""
        try:
            jobs = await self.control.jobs(None if self.all_envs else self.app.env_name)
        except (JournalError, OSError) as exc:
            self.query_one("#bulk-selected-text", Static).update(
                f"Cannot read the bulk journal just now ({exc}); trying again."
            )
            self._selected_shown = ()
            return
        ended = False
        for now in jobs:
            before = self.seen.get(now.job.id)
            ran = now.job.id in self.watching or (before is not None and before.running)
            if ran and not now.running:
                self.watching.discard(now.job.id)
                self._ended(now)
                ended = True
            self.seen[now.job.id] = now
        # The panel keeps the rows of the tallest job shown so far, so the table stays
        # put as the cursor moves; it fits its job again when a job ends or comes.
        if self.jobs_table.fill(jobs, select) or ended:
            self.query_one("#bulk-selected-text", SteadyStatic).fit()
        self._show_selected()

    def _ended(self, seen: Attached) -> None:
        job, c = seen.job, seen.job.counts
        title = f"Job {job.id}"
        if job.state == DONE:
            severity: SeverityLevel = "information" if c.all_succeeded else "warning"
            self.notify(f"Done: {c.completed:,} completed, {c.failed:,} failed, "
                        f"{c.invalid:,} invalid of {c.lines:,} lines.", title=title,
                        severity=severity)  # fmt: skip
        elif seen.died:
            self.notify(f"It {seen.words()}. {self.key('bulk.resume')} resumes it, losing "
                        "nothing.", title=title,
                        severity="error", timeout=10)  # fmt: skip
        else:
            self.notify(f"Stopped: {job.message or 'for no reason given'}. "
                        f"{self.key('bulk.resume')} resumes it.",
                        title=title, severity="warning", timeout=10)  # fmt: skip

    @property
    def jobs_table(self) -> JobsTable:
        return self.query_one("#bulk-jobs", JobsTable)

    @on(DataTable.RowHighlighted, "#bulk-jobs")
    def _highlighted(self) -> None:
        self._show_selected()

    def _show_selected(self) -> None:
        job_id = self.jobs_table.selected_id
        seen = self.seen.get(job_id) if job_id else None
        shown = (seen, self.app.env_name, self.all_envs)
        if shown == self._selected_shown:
            return  # unchanged: no repaint
        self._selected_shown = shown
        text = self.query_one("#bulk-selected-text", Static)
        bar = self.query_one("#bulk-progress", ProgressBar)
        if seen is None:
            bar.update(progress=0)
            where = "" if self.all_envs else f" in environment {self.app.env_name} (e: all)"
            text.update(f"No bulk jobs yet{where}.")
            return
        job = seen.job
        bar.update(progress=round(job.share * 100))
        shown_text = Text()
        shown_text.append(f"Job {job.id}", style="bold")
        shown_text.append(f"  {seen.words()}  ·  {job.path.name}  ·  "
                          f"env {job.env}\n")  # fmt: skip
        shown_text.append(counts_words(job))
        resume = self.key("bulk.resume")
        if seen.died:
            shown_text.append(f"\nIts worker ended before the job did. {resume} resumes it.")
        elif job.state == STOPPED and job.message and not seen.running:
            shown_text.append(f"\nStopped: {job.message}. {resume} resumes it.")
        else:
            shown_text.append(f"\nCreated {created_words(job)}  ·  Enter or "
                              f"{self.key('bulk.open')}: every line's outcome.")  # fmt: skip
        text.update(shown_text)

    @on(DataTable.RowSelected, "#bulk-jobs")
    def action_open_job(self) -> None:
        seen = self._selected()
        if seen is not None:
            from tui_app.ui.screens.bulk_job import BulkJobScreen

            self.app.push_screen(BulkJobScreen(self.control, seen))
