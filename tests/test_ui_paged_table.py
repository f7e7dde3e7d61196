"""The paged table on its own: a page is laid out by its own rows, whatever came before."""

from __future__ import annotations

from textual.app import App, ComposeResult

from tui_app.ui.widgets.paged_table import PagedTable, Row, Source
from tui_app.ui.widgets.plain_table import PlainTable

COLUMNS = [("name", "Name"), ("what", "What")]


def rows(texts: list[str]) -> Source:
    def fetch(after: int, limit: int) -> list[Row]:
        return [(i, (text, "x")) for i, text in enumerate(texts, 1) if i > after][:limit]

    return Source(fetch, lambda: len(texts))


class OneTable(App[None]):
    def compose(self) -> ComposeResult:
        yield PagedTable(COLUMNS, page_size=2)


def widths(paged: PagedTable) -> list[int]:
    return [column.get_render_width(paged.table) for column in paged.table.columns.values()]


async def shown(texts: list[str], *after: list[str]) -> list[int]:
    """The column widths once ``after`` (each a source, shown in turn) ends on ``texts``."""
    async with OneTable().run_test() as pilot:
        paged = pilot.app.query_one(PagedTable)
        for source in [*after, texts]:
            paged.show(rows(source))
            await paged.wait_loaded()
            await pilot.pause()
        return widths(paged)


async def test_a_new_source_is_measured_afresh():
    """Seen in the Watch area's snapshot: findings shown after a longer set kept the longer
    set's widths, pushing the last column off the screen. Widths were only ever grown."""
    alone = await shown(["Ann", "Bo"])
    assert await shown(["Ann", "Bo"], ["A name much longer than any other name"]) == alone


async def test_a_page_is_measured_by_its_own_rows():
    async with OneTable().run_test() as pilot:
        paged = pilot.app.query_one(PagedTable)
        paged.show(rows(["A name much longer than any other", "Bo", "Cy", "Di"]))
        await paged.wait_loaded()
        first = widths(paged)
        assert paged.next_page()
        await paged.wait_loaded()
        await pilot.pause()
        assert paged.keys == [3, 4]
        assert widths(paged)[0] < first[0]
        assert widths(paged) == await shown(["Cy", "Di"])


async def settled(pilot, paged: PagedTable) -> None:
    """Until every page asked for is read (each read runs on a thread), 10 s at most."""
    for _ in range(500):
        if paged._loaded.is_set() and paged._queued == 0:
            await pilot.pause()
            return
        await pilot.pause(0.02)
    raise AssertionError("the pages asked for were not all read")


async def test_pages_turned_in_a_burst_are_each_turned_once_and_no_further_than_the_end():
    """Seen (QA, Watch): n pressed six times at once showed "page 7 of 4 · rows 601–700
    of 310" over page 2's rows: each n took the last key of a page not read yet."""
    async with OneTable().run_test() as pilot:
        paged = pilot.app.query_one(PagedTable)
        paged.show(rows([f"r{i}" for i in range(1, 8)]))  # 4 pages of 2
        await paged.wait_loaded()
        for _ in range(6):
            paged.next_page()
        await settled(pilot, paged)
        assert (paged.page, paged.keys) == (4, [7])
        info = str(paged.query_one(".paged-info").render())
        assert info.startswith("Page 4 of 4  ·  rows 7–7 of 7")
        paged.next_page()
        paged.previous_page()
        paged.previous_page()
        await settled(pilot, paged)
        assert (paged.page, paged.keys) == (2, [3, 4])


async def test_a_page_read_while_the_table_is_taken_down_is_dropped():
    """Seen in a Watch test: the app quitting while a page was read took the inner table
    down first, and the read, landing in between, failed the app with NoMatches."""
    import threading

    release = threading.Event()

    def fetch(after: int, limit: int) -> list[Row]:
        release.wait(5)
        return [(1, ("Ann", "x"))]

    app = OneTable()
    async with app.run_test() as pilot:
        paged = app.query_one(PagedTable)
        paged.show(Source(fetch))
        await paged.table.remove()
        release.set()
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert paged.keys == []  # dropped, and the app goes on (it failed on leaving)


async def test_a_row_drawn_before_its_columns_were_widened_is_drawn_again():
    """Seen in the Watch snapshot under load: the cursor moved straight after a page was
    shown, its rows were drawn with the last page's (narrower) columns before the table
    measured them, and kept as drawn: "License" for "License expired"."""

    class Plain(App[None]):
        def compose(self) -> ComposeResult:
            yield PlainTable(cursor_type="row")

    async with Plain().run_test(size=(60, 10)) as pilot:
        table = pilot.app.query_one(PlainTable)
        table.add_columns("Name", "What")
        table.add_row("Bo", "x", key="1")
        table.add_row("Cy", "x", key="2")
        await pilot.pause()
        # A new page, as PagedTable fills one: widths back to the labels', rows, cursor.
        table.clear()
        for column in table.columns.values():
            column.content_width = column.label.cell_len
        table.add_row("A name much longer", "x", key="1")
        table.add_row("Another long one", "x", key="2")
        table.move_cursor(row=1, animate=False)
        early = [table.render_line(y).text for y in (1, 2)]  # drawn before it is measured
        assert early[0].startswith(" A na  x") and early[1].startswith(" Anot  x")
        await pilot.pause(0.05)  # the table's idle: it measures the rows
        assert [c.content_width for c in table.columns.values()] == [18, 4]
        assert table.render_line(1).text.startswith(" A name much longer  x")
        assert table.render_line(2).text.startswith(" Another long one    x")
