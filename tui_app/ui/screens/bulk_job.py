"""One bulk job's details: every line with its outcome, a page at a time, filtered; and
what can be done with the job: send its retryable failures again, verify the lines of
unknown outcome, save the report and the lines to fix.

It reads and steers the job only through :class:`~tui_app.bulk.control.JobControl`, so
nothing here waits on the journal; the job's progress is read again every second.
"""

from __future__ import annotations

from pathlib import Path

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.widgets import DataTable, ProgressBar, Static, Tab, Tabs

from tui_app.bulk.control import JobControl
from tui_app.bulk.journal import (
    FAILED,
    INVALID,
    STOPPED,
    SUPERSEDED,
    UNKNOWN,
    JobBusy,
    JournalError,
)
from tui_app.bulk.source import SourceError
from tui_app.bulk.worker import Attached, WorkerFailed
from tui_app.client.errors import ClientError
from tui_app.ui.bulk_words import (
    counts_words,
    created_words,
    elsewhere,
    line_cells,
    outcome_words,
)
from tui_app.ui.screens.base import HELP_KEY, ProducerScreen
from tui_app.ui.screens.dialogs import may_replace
from tui_app.ui.widgets.keys_footer import KeysFooter
from tui_app.ui.widgets.paged_table import PagedTable, Row, Source
from tui_app.ui.widgets.status_bar import StatusBar
from tui_app.ui.widgets.steady_static import SteadyStatic
from tui_app.words import counted

REFRESH_EVERY = 1.0
PAGE_SIZE = 100
PROBLEM_MIN_WIDTH = 30
"""A row shows the start of its line's problems in what is left of the table's width (at
least this much); the whole text shows below the table."""
LINE_CELLS_WIDTH = 62
"""About what the columns before the problems take, padding included."""
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
    "unknown": ("Unknown", (UNKNOWN,), None, "lines of unknown outcome"),
    "superseded": ("Superseded", (SUPERSEDED,), None, "superseded lines"),
}


class BulkJobScreen(ProducerScreen):
    """Every line of one job with its outcome, a page at a time, filtered."""

    AREA = "Bulk job"  # how the palette names this screen's keys
    # fmt: off
    BINDINGS = [
        HELP_KEY,
        Binding("escape", "app.pop_screen", "Back", id="bulk.back"),
        Binding("f5", "retry", "Retry retryable", tooltip="Send the retryable failures again", id="bulk.retry"),
        Binding("f6", "save_report", "Save report", tooltip="report.csv and failed.ndjson", id="bulk.report", priority=True),
        Binding("f7", "save_failed", "Save failed", tooltip="The failed lines, as NDJSON to fix", id="bulk.save_failed", priority=True),
        Binding("f8", "verify", "Verify unknown", tooltip="Read the unknown lines' profiles back", id="bulk.verify"),
        Binding("n", "page(1)", "Next page", id="bulk.next_page"),
        Binding("p", "page(-1)", "Prev page", id="bulk.prev_page"),
        Binding("a", "filter('all')", "All lines", tooltip="Filter the lines", id="bulk.show_all", show=False),
        Binding("f", "filter('failed')", "Failed only", tooltip="Filter the lines", id="bulk.show_failed", show=False),
        Binding("r", "filter('retryable')", "Retryable only", tooltip="Filter the lines", id="bulk.show_retryable", show=False),
        Binding("i", "filter('invalid')", "Invalid only", tooltip="Filter the lines", id="bulk.show_invalid", show=False),
        Binding("u", "filter('unknown')", "Unknown only", tooltip="Filter the lines", id="bulk.show_unknown", show=False),
        Binding("s", "filter('superseded')", "Superseded only", tooltip="Filter the lines", id="bulk.show_superseded", show=False),
    ]
    # fmt: on

    def __init__(self, control: JobControl, seen: Attached) -> None:
        super().__init__()
        self.control = control
        self.job_id = seen.job.id
        self.seen = seen
        self.filter = "all"

    def compose(self) -> ComposeResult:
        yield StatusBar(f"Bulk › Job {self.job_id}")
        with Vertical(id="bulk-job-head"):
            yield SteadyStatic("", id="bulk-job-title", beside="#bulk-lines", markup=False)
            with Horizontal(id="bulk-job-progress-row"):
                yield ProgressBar(total=100, show_eta=False, id="bulk-job-progress")
                yield SteadyStatic("", id="bulk-job-counts", beside="#bulk-lines", markup=False)
        with Vertical(id="bulk-filter-row"):  # the tabs whole, their keys under them
            yield Tabs(*(Tab(label, id=f"show-{key}") for key, (label, *_) in FILTERS.items()),
                       id="bulk-filter")  # fmt: skip
            yield Static("a all · f failed · r retryable · i invalid · u unknown · s superseded",
                         id="bulk-filter-keys", classes="hint")  # fmt: skip
        yield PagedTable(LINE_COLUMNS, page_size=PAGE_SIZE, id="bulk-lines")
        yield SteadyStatic("", id="bulk-line-detail", beside="#bulk-lines", markup=False)
        yield KeysFooter()

    def on_mount(self) -> None:
        self._show_job()
        self._show_filter()
        self.set_interval(REFRESH_EVERY, self.refresh_job)
        self.query_one("#bulk-lines", PagedTable).table.focus()

    @property
    def lines_table(self) -> PagedTable:
        return self.query_one("#bulk-lines", PagedTable)

    # --- the job ---

    @work(exclusive=True, group="bulk-job")
    async def refresh_job(self, lines_changed: bool = False) -> None:
        """Read the job again; when its lines moved on (or the caller changed them), read
        the page again."""
        before = self.seen.job
        try:
            self.seen = await self.control.look(self.job_id)
        except (JournalError, OSError) as exc:
            self.query_one("#bulk-job-counts", Static).update(f"Cannot read the journal: {exc}")
            return
        self._show_job()
        job = self.seen.job
        if job.state != before.state:  # the words kept their rows while it ran: fit them
            for panel in self.query("#bulk-job-head SteadyStatic").results(SteadyStatic):
                panel.fit()
        if lines_changed or (before.counts, before.state) != (job.counts, job.state):
            self.lines_table.reload()

    def _show_job(self) -> None:
        job = self.seen.job
        text = Text()
        text.append(f"Job {job.id}", style="bold")
        text.append(f"  {self.seen.words()}  ·  env {job.env}  ·  "
                    f"created {created_words(job)}  ·  up to {job.batch_size} records per "
                    "request\n")  # fmt: skip
        text.append(f"{job.path}  ({job.fingerprint.size:,} bytes)")
        if job.state == STOPPED and job.message:
            text.append(f"\nStopped: {job.message}")
        self.query_one("#bulk-job-title", Static).update(text)
        self.query_one("#bulk-job-progress", ProgressBar).update(progress=round(job.share * 100))
        self.query_one("#bulk-job-counts", Static).update(counts_words(job))
        c = job.counts
        shown = {"all": c.lines, "failed": c.failed, "retryable": c.retryable,
                 "invalid": c.invalid, "unknown": c.unknown, "superseded": c.superseded}  # fmt: skip
        for key, (label, *_) in FILTERS.items():
            tab, words = self.query_one(f"#show-{key}", Tab), f"{label} {shown[key]:,}"
            if tab.label_text != words:  # a label set lays the screen out, even the same
                tab.label = words

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
        control, job_id = self.control, self.job_id

        def fetch(after: int, limit: int) -> list[Row]:
            lines = control.lines_now(job_id, states=states, retryable=retryable,
                                      after=after, limit=limit)  # fmt: skip
            # Before the first layout the table has no size yet: the screen's width then.
            room = self.lines_table.size.width or self.app.size.width - 2
            width = max(PROBLEM_MIN_WIDTH, room - LINE_CELLS_WIDTH)
            return [(line.line, line_cells(line, width)) for line in lines]

        def count() -> int:
            return control.count_now(job_id, states=states, retryable=retryable)

        self.lines_table.show(Source(fetch, count, empty=f"No {what}.", label=what))
        # A line's problems keep their rows as the cursor moves; other lines fit afresh.
        self.query_one("#bulk-line-detail", SteadyStatic).fit()

    def action_page(self, step: int) -> None:
        table = self.lines_table
        moved = table.next_page() if step > 0 else table.previous_page()
        if not moved:
            self.notify("This is the last page." if step > 0 else "This is the first page.")

    @on(DataTable.RowHighlighted)
    def _line_highlighted(self, event: DataTable.RowHighlighted) -> None:
        key = event.row_key.value if event.row_key is not None else None
        self._show_line(int(key) if key is not None else None)

    @on(PagedTable.PageShown)
    def _page_shown(self) -> None:
        if not self.lines_table.table.row_count:  # no row to highlight: nothing to detail
            self._show_line(None)

    @work(exclusive=True, group="bulk-line")
    async def _show_line(self, number: int | None) -> None:
        """The whole of the highlighted line's problems (its row shows the start)."""
        detail = self.query_one("#bulk-line-detail", Static)
        found = None
        if number is not None:
            found = next(iter(await self.control.lines(self.job_id, after=number - 1, limit=1)),
                         None)  # fmt: skip
        if found is None or found.line != number:
            detail.update("")
            return
        text = Text()
        text.append(f"line {found.line}: {outcome_words(found)}", style="bold")
        if found.errors:
            text.append(": " + "; ".join(found.errors))
        detail.update(text)

    # --- actions ---

    @work(exclusive=True, group="bulk-retry")
    async def action_retry(self) -> None:
        title = f"Job {self.job_id}"
        seen = await self.control.look(self.job_id)
        if seen.running:
            self.notify("It is running: retry its failures once it ends.", title=title,
                        severity="warning")  # fmt: skip
            return
        try:
            count = await self.control.retry(self.job_id)
        except (WorkerFailed, JobBusy, SourceError, JournalError, OSError) as exc:
            self.notify(f"It cannot start: {exc}", title=title, severity="error", timeout=10)
            return
        if not count:
            from tui_app.ui.screens.bulk import BulkScreen

            c = seen.job.counts
            left = c.retrying + c.pending + c.waiting
            # Lines "to retry" of a stopped job are not failures yet: resuming sends them
            # (QA: "no retryable failures" beside 1,075 lines to retry).
            more = (f" Its {counted(left, 'line')} still to send go when it resumes "
                    f"({self.app.key_of(BulkScreen, 'bulk.resume')} in Bulk)."
                    if left else "")  # fmt: skip
            self.notify(f"It has no retryable failures to send again.{more}", title=title)
            return
        self.notify(f"Sending {counted(count, 'record')} again{elsewhere(seen.job, self.app.env_name)}.",
                    title=title)  # fmt: skip
        self.refresh_job()

    @work(exclusive=True, group="bulk-verify")
    async def action_verify(self) -> None:
        title = f"Job {self.job_id}"
        seen = await self.control.look(self.job_id)
        if seen.running:
            self.notify("It is running: verify it once it ends.", title=title, severity="warning")
            return
        if not seen.job.counts.unknown:
            self.notify("It has no line of unknown outcome.", title=title)
            return
        try:
            client = await self.app.client()
            done = await self.control.verify(self.job_id, client)
        except ClientError as exc:
            self.notify(f"Cannot verify now: {exc.message}", title=title, severity="error")
            return
        except (SourceError, JournalError, OSError) as exc:
            self.notify(str(exc), title=title, severity="error", timeout=10)
            return
        self.notify(f"{counted(done.total, 'line')} verified: {done.completed:,} completed, "
                    f"{done.failed:,} failed, {done.superseded:,} superseded.", title=title)  # fmt: skip
        # The counts this screen last read may already be the verified ones (the lines
        # turned UNKNOWN and back between two reads), so they cannot tell: reload.
        self.refresh_job(lines_changed=True)

    def action_save_report(self) -> None:
        self.ask_path("Save the report as (CSV; the lines to fix go to failed.ndjson beside it)",
                      str(self._beside("report.csv")), self._save_report)  # fmt: skip

    def _beside(self, suffix: str) -> Path:
        """A file beside the job's, named after it: ``people-report.csv``."""
        path = self.seen.job.path
        return path.with_name(f"{path.stem}-{suffix}")

    @work(exclusive=True, group="bulk-save")
    async def _save_report(self, out: Path | None) -> None:
        job = self.seen.job
        if out is None:
            return
        if out.is_dir():
            out = out / self._beside("report.csv").name
        failed = out.with_name("failed.ndjson")
        if failed.resolve() == job.path.resolve():  # resubmitting an earlier failed.ndjson
            failed = out.with_name(f"{out.stem}-failed.ndjson")
        if not await may_replace(self.app, (out, failed)):
            return
        try:
            report = await self.control.report(job.id, out, failed)
        except (SourceError, JournalError) as exc:
            self.notify(str(exc), title="Report not saved", severity="error", timeout=10)
            return
        except OSError as exc:
            self.notify(f"Cannot write {exc.filename or out}: {exc.strerror or exc}",
                        title="Report not saved", severity="error")  # fmt: skip
            return
        self.notify(f"{report.csv_path} ({report.rows:,} lines); {report.failed_lines:,} lines "
                    f"to fix in {report.failed_path}", title="Report saved")  # fmt: skip

    def action_save_failed(self) -> None:
        job = self.seen.job
        if not job.counts.failed + job.counts.invalid:
            self.notify(f"Job {job.id} has no failed or invalid lines: nothing to save.")
            return
        self.ask_path("Save the failed and invalid lines as (NDJSON, as they were in the file)",
                      str(self._beside("failed.ndjson")), self._save_failed)  # fmt: skip

    @work(exclusive=True, group="bulk-save")
    async def _save_failed(self, out: Path | None) -> None:
        job = self.seen.job
        if out is None:
            return
        if out.is_dir():
            out = out / self._beside("failed.ndjson").name
        if not await may_replace(self.app, [out]):
            return
        try:
            count = await self.control.failed(job.id, out)
        except (SourceError, JournalError) as exc:
            self.notify(str(exc), title="Lines not saved", severity="error", timeout=10)
            return
        except OSError as exc:
            self.notify(f"Cannot write {exc.filename or out}: {exc.strerror or exc}",
                        title="Lines not saved", severity="error")  # fmt: skip
            return
        self.notify(f"{counted(count, 'line')} to fix and submit again: {out}",
                    title="Failed lines saved")  # fmt: skip
