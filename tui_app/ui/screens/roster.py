"""Watch's roster: every producer watched in an environment, a page at a time, to look
at and take off. Producers with no finding appear nowhere else in the app (QA)."""

from __future__ import annotations

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen, Screen
from textual.widgets import Static

from tui_app.ui.screens.dialogs import ConfirmScreen
from tui_app.ui.widgets.paged_table import PagedTable, Row, Source
from tui_app.watch.store import RosterEntry, WatchDb, WatchStore
from tui_app.words import counted

COLUMNS = [("npn", "NPN"), ("kind", "Kind"), ("profile_key", "ProfileKey"), ("name", "Name")]
PAGE_SIZE = 100


async def unwatch_asking(
    screen: Screen, db: WatchDb, env: str, npn: int, name: str | None, after: str = ""
) -> bool:
    """Take ``npn`` off ``env``'s roster once the user says so (its findings stay), and
    say it; whether it was. ``after``: more words for the question."""
    who = f"NPN {npn}" + (f" ({name})" if name else "")
    question = f"Stop watching {who}? Its findings so far stay{after}."
    if not await screen.app.push_screen_wait(ConfirmScreen(question, yes="Stop watching")):
        return False
    await db.call(WatchStore.remove, env, [npn])
    screen.notify(f"NPN {npn} is no longer watched", title="Roster")
    return True


class RosterScreen(ModalScreen[bool]):
    """Dismissed with whether the roster changed (the Watch area then reads it again)."""

    DEFAULT_CSS = """
    RosterScreen { align: center middle; }
    #roster-box {
        width: 90%; max-width: 100; height: 80%;
        border: round $primary; background: $surface; padding: 0 1;
    }
    #roster-title { padding-bottom: 1; }
    """
    BINDINGS = [
        Binding("escape", "close", "Close", id="roster.close"),
        Binding(
            "x",
            "unwatch",
            "Unwatch",
            tooltip="Take the highlighted producer off",
            id="roster.remove",
        ),  # fmt: skip
        Binding("n", "page(1)", "Next page", id="roster.next_page", show=False),
        Binding("p", "page(-1)", "Prev page", id="roster.prev_page", show=False),
    ]

    def __init__(self, db: WatchDb, env: str) -> None:
        super().__init__()
        self.db, self.env = db, env
        self.changed = False
        self._shown: dict[int, RosterEntry] = {}

    def compose(self) -> ComposeResult:
        with Vertical(id="roster-box"):
            yield Static("", id="roster-title", markup=False)
            yield PagedTable(COLUMNS, page_size=PAGE_SIZE, id="roster-table")
            yield Static("x takes the highlighted producer off (it asks first); Esc closes.",
                         classes="hint")  # fmt: skip

    def on_mount(self) -> None:
        self._read()
        self.roster.table.focus()

    @property
    def roster(self) -> PagedTable:
        return self.query_one("#roster-table", PagedTable)

    def _read(self) -> None:
        db, env, shown = self.db, self.env, self._shown

        def fetch(after: int, limit: int) -> list[Row]:  # on the table's worker thread
            entries = db.call_sync(WatchStore.roster, env, limit, after)
            shown.update(enumerate(entries, after + 1))
            return [
                (i, (str(e.npn), e.kind or "", e.profile_key or "", e.name or ""))
                for i, e in enumerate(entries, after + 1)
            ]

        def count() -> int:
            return db.call_sync(WatchStore.roster_size, env)

        self.roster.show(Source(fetch, count, empty="Nobody is watched here yet.",
                                label="producers"))  # fmt: skip

    @on(PagedTable.PageShown)
    def _title(self, event: PagedTable.PageShown) -> None:
        size = event.table.total or 0
        self.query_one("#roster-title", Static).update(
            f"Roster of {self.env}: {counted(size, 'producer')} watched"
        )

    def action_page(self, step: int) -> None:
        if step > 0:
            self.roster.next_page()
        else:
            self.roster.previous_page()

    @work(exclusive=True, group="roster-unwatch")
    async def action_unwatch(self) -> None:
        key = self.roster.table.cursor_key
        entry = self._shown.get(int(key)) if key else None
        if entry is None or not await unwatch_asking(
            self, self.db, self.env, entry.npn, entry.name
        ):
            return
        self.changed = True
        self._shown.clear()
        self.roster.reload()

    def action_close(self) -> None:
        self.dismiss(self.changed)
