"""What every screen of the app does (``ProducerScreen``): styled once as it mounts (issue
15: opening an area was most of a Pilot test's time), a theme chosen while an area is away
still shows when it comes back, and a screen's work stops before its widgets go."""

from __future__ import annotations

import asyncio

import pytest
from textual.css.stylesheet import Stylesheet
from textual.screen import Screen
from textual.widgets import Input
from ui_support import SIZE, settle

from tui_app.ui.widgets.status_bar import StatusBar


async def test_a_first_visit_styles_the_area_once(ui_app, monkeypatch):
    reparsed: list[Stylesheet] = []
    restyled: list[Screen] = []
    reparse, restyle = Stylesheet.reparse, Screen.update_node_styles

    def count_reparse(self: Stylesheet) -> None:
        reparsed.append(self)
        reparse(self)

    def count_restyle(self: Screen, animate: bool = True) -> None:
        restyled.append(self)
        restyle(self, animate)

    app = ui_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        monkeypatch.setattr(Stylesheet, "reparse", count_reparse)
        monkeypatch.setattr(Screen, "update_node_styles", count_restyle)
        await app.switch_mode("orders")
        await settle(app, pilot)
        assert app.screen.query(Input)  # the area is built...
        # ...and styled as it mounted, nothing more (before: 2 re-parses, 2 restyles).
        assert reparsed == []
        assert restyled == []


def styles_of(screen: Screen) -> dict[str, tuple]:
    return {
        str(widget.id): (widget.rich_style.color, widget.rich_style.bgcolor)
        for widget in screen.query(Input)
        if widget.id
    }


async def test_a_theme_chosen_while_an_area_is_away_shows_on_its_return(ui_app):
    app = ui_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await app.switch_mode("orders")
        await settle(app, pilot)
        orders = app.screen
        before = styles_of(orders)
        await app.switch_mode("search")
        app.theme = "textual-light" if app.theme != "textual-light" else "nord"
        await settle(app, pilot)
        await app.switch_mode("orders")
        await settle(app, pilot)
        shown = styles_of(orders)
        assert shown != before  # the theme changes the fields' colours...
        orders.update_node_styles(animate=False)
        assert styles_of(orders) == shown  # ...and they were current already on return


@pytest.mark.parametrize("area", ["search", "orders", "bulk", "profiles", "export", "settings"])
async def test_closing_the_app_stops_a_screens_work_before_its_widgets_go(ui_app, area):
    # A worker that wakes while the app closes found its widgets removed and raised
    # NoMatches (seen in the Bulk and Orders areas' refreshes, issue 15): one area after
    # another, the same race. Now every screen cancels its workers first.
    app = ui_app()
    async with app.run_test(size=SIZE) as pilot:
        await app.switch_mode(area)
        await settle(app, pilot)
        screen = app.screen
        bar = screen.query_one(StatusBar)

        async def refresh_late() -> None:
            while bar.is_attached:  # the closing app removes the area's widgets...
                await asyncio.sleep(0)
            screen.query_one(StatusBar)  # ...and a worker still running finds none

        screen.run_worker(refresh_late())
    # Leaving the block closed the app; a worker's error would have been raised here.
    assert not app.return_code
