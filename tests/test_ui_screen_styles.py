"""Screens are styled once as they mount (issue 15: opening an area was most of a Pilot
test's time): a first visit neither re-parses the stylesheet nor restyles the area again,
and a theme chosen while an area is away still shows when it comes back."""

from __future__ import annotations

from textual.css.stylesheet import Stylesheet
from textual.screen import Screen
from textual.widgets import Input
from ui_support import SIZE, settle


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
