"""A table that shows a long, keyed sequence one page at a time.

A ``DataTable`` measures every cell of every row it holds (10,000 rows freeze the app for
about 1.4 s), so a table of a bulk job's lines, which may number millions, holds one page:
the rows are read page by page from their source (keyset paging: "the next ``size`` rows
after key K"), in a worker thread, so neither the source's size nor a slow read ever
blocks the keyboard.

Keys: PageDown on the last row turns to the next page and PageUp on the first row to the
previous one; the screen binds its own keys to :meth:`PagedTable.next_page` and
:meth:`PagedTable.previous_page`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from rich.console import RenderableType
from textual import work
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import Static

from tui_app.ui.widgets.plain_table import PlainTable

Row = tuple[int, Sequence[RenderableType]]
"""A row: its key (ascending through the source) and its cells."""
Fetch = Callable[[int, int], list[Row]]
"""``fetch(after, limit)``: up to ``limit`` rows whose key is greater than ``after``, in
key order. Called in a worker thread."""
Count = Callable[[], int]
"""How many rows the source holds (called in the same thread, after each read)."""


@dataclass(frozen=True)
class Source:
    fetch: Fetch
    count: Count | None = None
    empty: str = "Nothing to show."
    """What the page line says when the source has no rows."""
    label: str = ""
    """What the rows are ("failed lines"), to begin the page line with."""


class _PageTable(PlainTable):
    """The DataTable of one page; PageDown / PageUp at its ends turn the page."""

    def action_page_down(self) -> None:
        paged = self.parent
        last_row = self.cursor_row >= self.row_count - 1
        if isinstance(paged, PagedTable) and last_row and paged.next_page():
            return
        super().action_page_down()

    def action_page_up(self) -> None:
        paged = self.parent
        if isinstance(paged, PagedTable) and self.cursor_row <= 0 and paged.page > 1:
            paged.previous_page(to_last_row=True)
            return
        super().action_page_up()


class PagedTable(Vertical):
    """One page of rows from a :class:`Source`, with a line saying which page it is."""

    DEFAULT_CSS = """
    PagedTable { height: 1fr; }
    PagedTable > DataTable { height: 1fr; }
    PagedTable > .paged-info { height: 1; color: $text-muted; padding: 0 1; }
    """

    class PageShown(Message):
        """A page was read and shown (also after a reload)."""

        def __init__(self, table: PagedTable) -> None:
            super().__init__()
            self.table = table

        @property
        def control(self) -> PagedTable:
            return self.table

    def __init__(
        self,
        columns: Sequence[tuple[str, str]],
        *,
        page_size: int = 100,
        moves: tuple[str, str] = ("n next", "p previous"),
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        """``columns`` are (key, label) pairs; ``moves`` name the keys of the next and the
        previous page, as the page line shows them."""
        super().__init__(id=id, classes=classes)
        self.columns = list(columns)
        self.page_size = page_size
        self.moves = moves
        self.source: Source | None = None
        self.has_next = False
        self.total: int | None = None
        self.keys: list[int] = []
        """The keys of the rows shown, in order."""
        self._starts = [0]  # the ``after`` key of each page up to the one shown
        self._queued = 0
        """Pages asked for while one was still being read (keys pressed in a burst):
        forward if positive, back if negative; turned once the page arrives."""
        self._cursor_to_end = False
        self._loaded = asyncio.Event()

    def compose(self) -> ComposeResult:
        table = _PageTable(cursor_type="row", zebra_stripes=True)
        for key, label in self.columns:
            table.add_column(label, key=key)
        yield table
        yield Static("", classes="paged-info", markup=False)

    @property
    def table(self) -> PlainTable:
        return self.query_one(_PageTable)

    @property
    def page(self) -> int:
        """The page shown, from 1."""
        return len(self._starts)

    @property
    def first_row(self) -> int:
        """The 1-based position of the page's first row in the whole sequence."""
        return (self.page - 1) * self.page_size + 1

    def show(self, source: Source) -> None:
        """Show ``source`` from its first page."""
        self.source = source
        self._starts = [0]
        self._queued = 0
        self._load(reset_cursor=True)

    def reload(self) -> None:
        """Read the page shown again (its rows may have changed), keeping the cursor."""
        if self.source is not None:
            self._load(reset_cursor=False)

    def next_page(self) -> bool:
        if not self._loaded.is_set():  # the page's last key is not known yet
            self._queued += 1
            return True
        if not self.has_next or not self.keys:
            return False
        self._starts.append(self.keys[-1])
        self._load(reset_cursor=True)
        return True

    def previous_page(self, *, to_last_row: bool = False) -> bool:
        if not self._loaded.is_set():
            self._queued -= 1
            return True
        if self.page == 1:
            return False
        self._starts.pop()
        self._cursor_to_end = to_last_row
        self._load(reset_cursor=True)
        return True

    async def wait_loaded(self) -> None:
        """Wait until the page asked for last has been shown (for tests and scenes)."""
        await self._loaded.wait()

    def _load(self, *, reset_cursor: bool) -> None:
        self._loaded.clear()
        self._read(self._starts[-1], reset_cursor)

    @work(exclusive=True, group="paged-table")
    async def _read(self, after: int, reset_cursor: bool) -> None:
        source = self.source
        assert source is not None

        def read() -> tuple[list[Row], int | None]:
            rows = source.fetch(after, self.page_size + 1)
            return rows, (source.count() if source.count is not None else None)

        try:
            rows, total = await asyncio.to_thread(read)
        except Exception as exc:  # a source that cannot be read: say so, keep the page
            self.query_one(".paged-info", Static).update(f"Cannot read this page: {exc}")
            self._queued = 0  # not to be turned by a later reload, long after the keys
            self._loaded.set()
            return
        if not self.query(_PageTable):  # being taken down (the app quits): nowhere to show
            return
        if not rows and self.page > 1:  # the page emptied (rows left the filter): go back
            self._starts.pop()
            self._read(self._starts[-1], True)
            return
        self.has_next = len(rows) > self.page_size
        rows = rows[: self.page_size]
        self.total = total
        self._fill(rows, reset_cursor)
        self._loaded.set()
        self.post_message(self.PageShown(self))
        queued, self._queued = self._queued, 0
        if queued > 0 and self.next_page():
            self._queued = queued - 1  # the rest wait for the page just asked for
        elif queued < 0 and self.previous_page():
            self._queued = queued + 1

    def _fill(self, rows: list[Row], reset_cursor: bool) -> None:
        table = self.table
        row_before = table.cursor_row
        table.clear()
        # A column only ever widens to fit the rows added to it: narrowed back to its label,
        # so a page is laid out by its own cells, not by the widest page seen before it.
        for column in table.columns.values():
            column.content_width = column.label.cell_len
        self.keys = [key for key, _ in rows]
        for key, cells in rows:
            table.add_row(*cells, key=str(key))
        if rows:
            if self._cursor_to_end:
                row = len(rows) - 1
            else:
                row = 0 if reset_cursor else min(row_before, len(rows) - 1)
            table.move_cursor(row=row, animate=False)
        self._cursor_to_end = False
        self.query_one(".paged-info", Static).update(self._info(len(rows)))

    def _info(self, shown: int) -> str:
        if not shown:
            return self.source.empty if self.source else ""
        first, last = self.first_row, self.first_row + shown - 1
        pages = ""
        if self.total is not None:
            count = max(1, -(-self.total // self.page_size))
            pages = f" of {count}"
        of = f" of {self.total:,}" if self.total is not None else ""
        moves = []
        if self.has_next:
            moves.append(self.moves[0])
        if self.page > 1:
            moves.append(self.moves[1])
        hint = f"  ·  {', '.join(moves)}" if moves else ""
        label = self.source.label if self.source else ""
        label = f"{label[:1].upper()}{label[1:]}: page" if label else "Page"
        return f"{label} {self.page}{pages}  ·  rows {first:,}–{last:,}{of}{hint}"
