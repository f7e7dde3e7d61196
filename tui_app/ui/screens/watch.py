"""Watch (area 7): the roster of producers checked against the registry, the check's
progress, what the last checks found (bars by kind), and the findings of the last check in
a table that holds one page at a time (100,000 findings stay responsive). Enter opens the
producer's full record at the tab the finding is about; ``a``/``t`` there file an order.

Every SQLite call goes through the watch store's own thread (:class:`WatchDb`); the check
runs in an exclusive worker on the app's client, its progress redrawn at most 5 times a
second."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.widgets import DataTable, Input, ProgressBar, Static, TabbedContent

from tui_app.client.errors import ClientError
from tui_app.ui.screens.base import AreaScreen
from tui_app.ui.screens.roster import RosterScreen, unwatch_asking
from tui_app.ui.widgets.paged_table import PagedTable, Row, Source
from tui_app.ui.widgets.steady_static import SteadyStatic
from tui_app.ui.widgets.text_input import TextInput
from tui_app.ui.widgets.watch_history import WatchHistory
from tui_app.watch.check import CheckSettings, Progress, run_check, shortfall
from tui_app.watch.findings import KINDS, SEVERITIES
from tui_app.watch.roster import RosterError, added_words, parse_npns, read_file
from tui_app.watch.store import DONE, SORTS, Check, StoreError, WatchDb, WatchStore
from tui_app.words import counted

PAGE_SIZE = 100
HISTORY = 8
"""Checks the bars show."""
REDRAW_EVERY = 0.2
FINDINGS_EVERY = 1.0
"""How often a running check's findings (the table's page, the chart) are read again."""
TEXT_WIDTH = 90
COLUMNS = [
    ("severity", "Severity"),
    ("kind", "Finding"),
    ("npn", "NPN"),
    ("name", "Name"),
    ("state", "State"),
    ("text", "What"),
]  # the license number is in the text
KIND_FILTERS = (None, *KINDS)
SEVERITY_FILTERS = (None, *SEVERITIES)
SORT_ORDERS = tuple(s for s in SORTS if s != "severity")


class WatchScreen(AreaScreen):
    AREA = "Watch"
    AUTO_FOCUS = "#watch-findings DataTable"  # the keys n p k s o work at once; F2 adds
    DEFAULT_CSS = """
    #watch-head { height: auto; }
    #watch-left { width: 1fr; height: auto; padding: 0 1; }
    #watch-roster { height: auto; }
    #watch-filters { height: 1; }
    #watch-add { margin: 0 0; }
    #watch-history { width: auto; height: auto; padding: 0 1; border-left: vkey $panel; }
    #watch-filters { padding: 0 1; color: $text-muted; }
    #watch-findings > .paged-info { height: auto; }  /* an incomplete check says why */
    #watch-detail { height: auto; max-height: 3; padding: 0 1; border-top: hkey $panel; }
    """
    # fmt: off
    # F2 is a priority key, so NPNs pasted straight after it land in the field.
    BINDINGS = [
        # k, s and o are not in the footer: the line over the findings says them, with what
        # each is set to, and the footer had no room left for x, r and Ctrl+Q.
        Binding("f2", "focus_add", "Add NPNs", tooltip="Typed, pasted or from a file", id="watch.add", priority=True),
        Binding("f5", "check", "Check now", tooltip="Read every record on the roster", id="watch.check"),
        Binding("f6", "stop", "Stop check", tooltip="It carries on at the next check", id="watch.stop"),
        Binding("f7", "demo", "Demo roster", tooltip="The embedded sandbox's demo producers", id="watch.demo"),
        Binding("k", "cycle('kind')", "Kind filter", tooltip="Filter or sort the findings", id="watch.kind", show=False),
        Binding("s", "cycle('severity')", "Severity filter", tooltip="Filter or sort the findings", id="watch.severity", show=False),
        Binding("o", "cycle('sort')", "Sort", tooltip="Filter or sort the findings", id="watch.sort", show=False),
        Binding("x", "unwatch", "Unwatch", tooltip="Take the selected finding's producer off the roster", id="watch.remove"),
        Binding("r", "roster", "Roster", tooltip="Every producer watched, to look at and take off", id="watch.roster"),
        Binding("n", "page(1)", "Next page", id="watch.next_page", show=False),
        Binding("p", "page(-1)", "Prev page", id="watch.prev_page", show=False),
    ]
    # fmt: on

    def __init__(self) -> None:
        super().__init__()
        self.db = WatchDb()
        self.check_id: int | None = None
        """The check whose findings the table shows (the environment's last one)."""
        self.kind: str | None = None
        self.severity: str | None = None
        self.sort = "kind"
        self.progress: Progress | None = None
        self._drawn: Progress | None = None
        self._stop: asyncio.Event | None = None
        self._shown: dict[int, dict] = {}
        self._shortfall: str | None = None
        """Why the last check does not speak for the whole roster, if it does not."""

    def compose_body(self) -> ComposeResult:
        with Horizontal(id="watch-head"):
            with Vertical(id="watch-left"):
                yield Static("", id="watch-roster", markup=False)
                yield TextInput(
                    placeholder="NPNs, or a CSV/NDJSON file or exports' folder; Enter",
                    id="watch-add",
                )
                yield ProgressBar(total=1, show_eta=False, id="watch-progress")
                # Under the bar, as wide as the column: why a check is incomplete is long.
                yield SteadyStatic("", id="watch-status", beside="#watch-findings", markup=False)
            yield WatchHistory("", id="watch-history")
        yield Static("", id="watch-filters", markup=False)
        yield PagedTable(COLUMNS, page_size=PAGE_SIZE, id="watch-findings")
        yield SteadyStatic("", id="watch-detail", beside="#watch-findings", markup=False)

    def on_mount(self) -> None:
        self.set_interval(REDRAW_EVERY, self._draw_progress)
        self.set_interval(FINDINGS_EVERY, self._reread_while_checking)
        self.watch(self.app, "env_name", self._env_changed, init=False)
        self._show_filters()
        self.reload()

    async def on_unmount(self) -> None:
        await self.db.aclose()

    def _env_changed(self, _name: str) -> None:
        self.reload()  # the roster and checks are kept per environment

    @property
    def findings(self) -> PagedTable:
        return self.query_one("#watch-findings", PagedTable)

    # --- reading the store ---

    @work(exclusive=True, group="watch-reload")
    async def reload(self) -> None:
        """The roster's size, the last checks and the last check's findings."""
        env = self.app.env_name
        try:
            size = await self.db.call(WatchStore.roster_size, env)
            checks = await self.db.call(WatchStore.checks, env, HISTORY)
            counts = await self.db.call(WatchStore.kind_counts, [c.id for c in checks])
            last = checks[0] if checks else None
            failures = await self.db.call(WatchStore.failures, last.id, 1) if last else []
        except StoreError as exc:
            self.notify(str(exc), title="Watch", severity="error")
            return
        short = self._shortfall = shortfall(last, failures) if last else None
        said = f"Roster of {env}: {counted(size, 'producer')}"
        if last is not None:
            found = sum(counts[last.id].values())
            # A finished check that could not read everyone is no all-clear: never "done";
            # one carried on here runs, whatever the store said when it stopped (QA).
            if self._stop is not None:
                # Its counts as the check began would stand still above the live ones
                # (QA: "1 read, 1,503 not read" all through a check).
                said += f"\nCheck {last.id} (running) as of {last.today}: its progress is below"
            else:
                state = "incomplete" if last.state == DONE and short else last.state.lower()
                unread = f"{last.total - last.read:,} not read, " if short else ""
                said += (
                    f"\nCheck {last.id} ({state}) as of {last.today}: "
                    f"{last.read:,} read, {unread}{counted(found, 'finding')}"
                )
        self.query_one("#watch-roster", Static).update(said)
        self._show_history(checks, counts)
        if last is not None and self.progress is None:
            bar = self.query_one("#watch-progress", ProgressBar)
            # What was read, not what was tried: records that failed leave the bar short.
            bar.update(total=max(last.total, 1), progress=last.read)
            check = self.key("watch.check")
            again = f"{check} carries on" if last.pending else f"{check} checks again"
            status = self.query_one("#watch-status", SteadyStatic)
            status.update(f"Incomplete: {short}. {again}" if short else again)
            status.fit()  # the check's progress kept its rows: what it says now is shorter
        self.check_id = last.id if last else None
        self._show_findings()

    def _show_history(self, checks: list[Check], counts: dict[int, dict[str, int]]) -> None:
        self.query_one(WatchHistory).show(
            [c.id for c in reversed(checks)], counts, check_key=self.key("watch.check")
        )

    def _show_findings(self) -> None:
        # A finding's words keep their rows as the cursor moves (no layout a key); another
        # list of findings fits them afresh.
        self.query_one("#watch-detail", SteadyStatic).fit()
        if self.check_id is None:
            self.findings.show(
                Source(
                    lambda after, limit: [],
                    empty=f"No check yet: {self.key('watch.check')} checks every producer "
                    "on the roster.",
                )
            )
            return
        check, kinds = self.check_id, [self.kind] if self.kind else None
        severities = [self.severity] if self.severity else None
        sort, db = self.sort, self.db
        shown: dict[int, dict] = {}
        self._shown = shown

        def fetch(after: int, limit: int) -> list[Row]:  # on the table's worker thread
            rows = db.call_sync(
                WatchStore.findings,
                check,
                kinds=kinds,
                severities=severities,
                sort=sort,
                limit=limit,
                offset=after,
            )
            out: list[Row] = []
            for i, row in enumerate(rows, after + 1):
                shown[i] = row
                text = (
                    row["text"]
                    if len(row["text"]) <= TEXT_WIDTH
                    else (row["text"][: TEXT_WIDTH - 1] + "…")
                )
                out.append(
                    (
                        i,
                        (
                            row["severity"].upper(),
                            KINDS[row["kind"]][1],
                            str(row["npn"]),
                            row["name"],
                            row["state"],
                            text,
                        ),
                    )
                )
            return out

        def count() -> int:
            return db.call_sync(
                WatchStore.count_findings, check, kinds=kinds, severities=severities
            )

        if kinds or severities:  # an all-clear would be false: the others are hidden
            shown_kind = KINDS[self.kind][1] if self.kind else "any kind"
            empty = (
                f"No findings of {shown_kind} and severity {self.severity or 'any'}; "
                f"{self.key('watch.kind')} and {self.key('watch.severity')} change the filters."
            )
        elif self._stop is not None:  # what was read so far: the check is not incomplete
            empty = f"No findings yet: the check is running ({self.key('watch.stop')} stops it)."
        elif self._shortfall:
            empty = f"No findings in what was read, but the check is incomplete: {self._shortfall}."
        else:
            empty = "No findings: nothing needs attention."
        self.findings.show(Source(fetch, count, empty=empty, label="findings"))

    def _show_filters(self) -> None:
        kind = KINDS[self.kind][1] if self.kind else "all"
        key = self.key  # as the keymap has them: the footer leaves these to this line
        self.query_one("#watch-filters", Static).update(
            f"{key('watch.kind')} kind: {kind}  ·  {key('watch.severity')} severity: "
            f"{self.severity or 'all'}  ·  {key('watch.sort')} sort: {self.sort}  ·  Enter opens "
            f"the record  ·  {key('watch.remove')} unwatch  ·  {key('watch.roster')} roster  ·  "
            f"{key('watch.next_page')}/{key('watch.prev_page')} pages"
        )

    # --- actions ---

    def action_focus_add(self) -> None:
        self.set_focus(self.query_one("#watch-add", Input))

    def action_cycle(self, what: str) -> None:
        if what == "kind":
            self.kind = _next(KIND_FILTERS, self.kind)
        elif what == "severity":
            self.severity = _next(SEVERITY_FILTERS, self.severity)
        else:
            self.sort = _next(SORT_ORDERS, self.sort)
        self._show_filters()
        self._show_findings()

    def action_page(self, step: int) -> None:
        moved = self.findings.next_page() if step > 0 else self.findings.previous_page()
        if moved:
            self.set_focus(self.findings.table)

    @on(Input.Submitted, "#watch-add")
    def _add(self, event: Input.Submitted) -> None:
        self.add_entries(event.value)

    @work(exclusive=True, group="watch-add")
    async def add_entries(self, text: str) -> None:
        field = self.query_one("#watch-add", Input)
        try:
            path = Path(text.strip()).expanduser()
        except RuntimeError:  # ~someone who has no home here
            path = Path(text.strip())
        # NPNs are digits: what has a slash, a dot or a tilde is a file, there or not (a
        # missing one was "not an NPN").
        looks_like_path = any(c in text for c in "/\\~") or bool(re.search(r"\.[A-Za-z]\w*$", text))
        try:
            if text.strip() and (looks_like_path or await asyncio.to_thread(path.exists)):
                entries = await asyncio.to_thread(read_file, path)
            else:
                entries = parse_npns([text])
            added = await self.db.call(WatchStore.add, self.app.env_name, entries)
        except (RosterError, StoreError) as exc:
            problems = exc.problems if isinstance(exc, RosterError) else [str(exc)]
            field.add_class("-invalid")
            more = f"\n… and {len(problems) - 5:,} more" if len(problems) > 5 else ""
            # All or nothing: said, or the good NPNs listed beside seem to be in (QA).
            self.notify("\n".join(problems[:5]) + more + "\nNothing was added: correct "
                        "these and press Enter again.", title="Not added", severity="error")  # fmt: skip
            return
        field.remove_class("-invalid")
        field.value = ""
        self.notify(added_words(entries, added), title="Roster")
        self.reload()

    @work(exclusive=True, group="watch-add")
    async def action_unwatch(self) -> None:
        """Take the selected finding's producer off the roster (its findings stay), once
        the user says so (QA: one key, unlisted, took it off at once, with no way back
        but the CLI)."""
        row = self._finding(self.findings.table.cursor_key)
        if row is None:
            self.notify("Select a finding: its producer is the one taken off.", title="Roster")
            return
        again = f"; {self.key('watch.add')} adds it again"
        if await unwatch_asking(
            self, self.db, self.app.env_name, row["npn"], row.get("name"), again
        ):
            self.reload()

    @work(exclusive=True, group="watch-roster")
    async def action_roster(self) -> None:
        if await self.app.push_screen_wait(RosterScreen(self.db, self.app.env_name)):
            self.reload()

    @work(exclusive=True, group="watch-demo")
    async def action_demo(self) -> None:
        connection = getattr(self.app, "connection", None)
        if connection is None or connection.sandbox is None:
            self.notify(
                "The demo roster is the embedded sandbox's.", title="Roster", severity="warning"
            )
            return
        npns = await asyncio.to_thread(connection.sandbox.registry.demo_roster)
        self.add_entries(" ".join(map(str, npns)))

    def action_check(self) -> None:
        if self._stop is not None:
            self.notify(f"A check is running ({self.key('watch.stop')} stops it).", title="Watch")
            return
        self.check_now()

    def action_stop(self) -> None:
        if self._stop is not None:
            self._stop.set()

    @work(exclusive=True, group="watch-check")
    async def check_now(self) -> None:
        env = self.app.env
        stop = self._stop = asyncio.Event()
        try:
            if await self.db.call(WatchStore.roster_size, self.app.env_name) == 0:
                self.notify(
                    f"The roster is empty: add NPNs first ({self.key('watch.add')}).",
                    title="Watch",
                    severity="warning",
                )
                return
            client = await self.app.client()
            settings = CheckSettings(days=env.watch_days, rate=env.watch_rate)
            outcome = await run_check(
                self.db,
                client,
                self.app.env_name,
                today=self.app.today,
                settings=settings,
                on_progress=self._on_progress,
                stop=stop,
            )
        except (ClientError, StoreError) as exc:
            self.notify(str(exc), title="Check", severity="error")
            return
        finally:
            self._stop = None
            self.progress = None  # the next check's first report reloads the screen
        check = outcome.check
        if outcome.unreachable:
            self.notify(
                f"{outcome.unreachable}. {self.key('watch.check')} carries on later.",
                title="Check stopped",
                severity="error",
            )
        else:
            whole = check.read == check.total
            self.notify(
                f"{check.read:,} of {check.total:,} read, {counted(outcome.findings, 'finding')}",
                title=f"Check {check.id}" if whole else f"Check {check.id} incomplete",
                severity="information" if whole else "warning",
            )
        self.reload()

    def _on_progress(self, progress: Progress) -> None:
        if self.progress is None:  # the check has begun: its line says so at once
            self.reload()
        self.progress = progress  # drawn by the timer: at most 5 times a second

    def _draw_progress(self) -> None:
        p = self.progress
        if p is None or p is self._drawn:
            return
        self._drawn = p
        self.query_one("#watch-progress", ProgressBar).update(
            total=max(p.total, 1), progress=p.read + p.failed
        )
        self.query_one("#watch-status", Static).update(
            f"Checking: {p.read + p.failed:,} of {p.total:,} read · {p.findings:,} findings · "
            f"{p.per_second:,.0f}/s  ({self.key('watch.stop')} stops)"
        )

    def _reread_while_checking(self) -> None:
        if self._stop is not None:
            self.read_findings_again()

    @work(exclusive=True, group="watch-running")
    async def read_findings_again(self) -> None:
        """A running check's findings so far: the table's page again, its cursor kept, and
        the chart (QA: "No findings" under the table and 0 of every kind in the chart
        while the progress line counted them)."""
        env = self.app.env_name
        try:
            checks = await self.db.call(WatchStore.checks, env, HISTORY)
            counts = await self.db.call(WatchStore.kind_counts, [c.id for c in checks])
        except StoreError:
            return  # said by the check itself, or by the reload at its end
        if self._stop is None:
            return  # the check ended meanwhile: the reload at its end shows it whole
        self._show_history(checks, counts)
        if checks and checks[0].id == self.check_id:
            self.findings.reload()

    # --- opening a finding ---

    @on(PagedTable.PageShown)
    def _page_shown(self, event: PagedTable.PageShown) -> None:
        if not event.table.keys:  # no row left to say anything of (a filter, an env)
            self.query_one("#watch-detail", Static).update("")

    @on(DataTable.RowHighlighted)
    def _highlighted(self, event: DataTable.RowHighlighted) -> None:
        row = self._finding(event.row_key.value)
        if row is not None:
            self.query_one("#watch-detail", Static).update(row["text"])

    @on(DataTable.RowSelected)
    async def _selected(self, event: DataTable.RowSelected) -> None:
        row = self._finding(event.row_key.value)
        if row is None:
            return
        if row["record_kind"] is None:
            self.notify(row["text"], title=f"NPN {row['npn']}", severity="warning")
            return
        from tui_app.ui.screens.record import RecordScreen

        record = RecordScreen(row["record_kind"], row["npn"], came_from=self.AREA)
        await self.app.push_screen(record)
        record.query_one("#record-tabs", TabbedContent).active = row["tab"]

    def _finding(self, key: str | None) -> dict | None:
        return self._shown.get(int(key)) if key else None


def _next(options: tuple, current):
    return options[(options.index(current) + 1) % len(options)]
