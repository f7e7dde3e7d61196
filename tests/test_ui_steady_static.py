"""``SteadyStatic`` on its own: it grows to fit, keeps its height for shorter words, and
finds its height again at a new width or when told to fit."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.widgets import Static

from tui_app.ui.widgets.steady_static import SteadyStatic

WORDS = "word " * 30  # 150 columns: 2 rows at 80, 4 at 40


class Panel(App[None]):
    CSS = "SteadyStatic { height: auto; } #below { height: 1fr; }"

    def compose(self) -> ComposeResult:
        yield SteadyStatic("one row", id="steady", beside="#below")
        yield Static("below", id="below")


async def test_it_grows_keeps_its_height_and_follows_the_width():
    async with Panel().run_test(size=(80, 24)) as pilot:
        steady, below = pilot.app.query_one("#steady"), pilot.app.query_one("#below")
        await pilot.pause()
        assert steady.size.height == 1 and below.region.y == 1

        steady.update(WORDS)
        await pilot.pause()
        assert steady.size.height == 2 and below.region.y == 2  # grown: laid out once

        steady.update("one row again")
        await pilot.pause()
        assert steady.size.height == 2 and below.region.y == 2  # kept: nothing below moves
        assert "one row again" in str(steady.render())

        await pilot.resize_terminal(40, 24)
        await pilot.pause()
        steady.update(WORDS)
        await pilot.pause()
        assert steady.size.height == 4  # at 40 columns the words take 4 rows

        await pilot.resize_terminal(100, 24)
        await pilot.pause()
        assert steady.size.height == 2  # a new width: found again (4 rows were kept at 40)

        steady.update("short")
        steady.fit()
        await pilot.pause()
        assert steady.size.height == 1 and below.region.y == 1  # the rows kept given up


async def test_it_keeps_no_rows_while_the_widget_beside_it_is_short():
    async with Panel().run_test(size=(40, 9)) as pilot:  # "below" gets 5 rows, then 3
        steady, below = pilot.app.query_one("#steady"), pilot.app.query_one("#below")
        await pilot.pause()
        steady.update(WORDS)  # 4 rows at 40 columns
        await pilot.pause()
        assert steady.size.height == 4 and below.size.height == 5
        steady.update("one row again")
        await pilot.pause()
        assert steady.size.height == 1 and below.size.height == 8  # given back at once


async def test_an_update_after_the_widget_beside_it_is_gone_is_drawn():
    # A worker's last update may come while the screen closes, its table removed first.
    async with Panel().run_test(size=(40, 24)) as pilot:
        steady = pilot.app.query_one("#steady")
        await pilot.pause()
        steady.update(WORDS)
        await pilot.pause()
        await pilot.app.query_one("#below").remove()
        steady.update("one row again")  # fits in the rows kept: no table to ask
        await pilot.pause()
        assert "one row again" in str(steady.render()) and steady.size.height == 4
