"""``SnugStatic`` on its own: an update that keeps its height lays nothing out; one that
changes it (more rows, or shown, or gone) does, and the screen follows."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.widgets import Static
from ui_support import layouts_asked

from tui_app.ui.widgets.snug_static import SnugStatic

WIDE = "x" * 50  # two rows at width 40


class Lines(App[None]):
    CSS = """
    SnugStatic { width: 40; height: auto; }
    #hidden { display: none; }
    #auto { width: auto; }
    """

    def compose(self) -> ComposeResult:
        yield SnugStatic("must be at least 9 characters, not 4", id="line")
        yield Static("below", id="below")
        yield SnugStatic("", id="hidden")
        yield SnugStatic("short", id="auto")


async def test_a_message_of_the_same_height_is_drawn_without_a_layout() -> None:
    app = Lines()
    async with app.run_test() as pilot:
        line = app.query_one("#line", SnugStatic)
        asked = layouts_asked(line)
        line.update("must be at least 9 characters, not 5")
        await pilot.pause()
        assert asked == [False]
        assert "not 5" in str(line.render())


async def test_a_message_that_wraps_to_more_rows_lays_out_and_pushes_what_is_below() -> None:
    app = Lines()
    async with app.run_test() as pilot:
        line, below = app.query_one("#line", SnugStatic), app.query_one("#below")
        top = below.region.y
        asked = layouts_asked(line)
        line.update(WIDE)
        await pilot.pause()
        assert True in asked
        assert (line.size.height, below.region.y) == (2, top + 1)
        line.update("short again")  # and gives the row back
        await pilot.pause()
        assert (line.size.height, below.region.y) == (1, top)


async def test_a_hidden_line_waits_for_its_display_and_one_sized_by_its_text_lays_out() -> None:
    app = Lines()
    async with app.run_test() as pilot:
        hidden, auto = app.query_one("#hidden", SnugStatic), app.query_one("#auto", SnugStatic)
        hidden_asked, auto_asked = layouts_asked(hidden), layouts_asked(auto)
        hidden.update("no room taken while hidden")
        auto.update("a longer text")
        await pilot.pause()
        assert hidden_asked == [False]
        assert True in auto_asked
        assert auto.size.width == len("a longer text")
        hidden.display = True
        await pilot.pause()
        assert hidden.size.height == 1
