"""``TextInput`` on its own: a key typed in a field sized by its CSS draws the field and
lays nothing out, and the text still scrolls within it."""

from __future__ import annotations

from textual.app import App, ComposeResult
from ui_support import layouts_asked

from tui_app.ui.widgets.text_input import TextInput


class OneField(App[None]):
    CSS = "#sized { width: 20; } #auto { width: auto; }"

    def compose(self) -> ComposeResult:
        yield TextInput(id="sized")
        yield TextInput(id="auto")


async def test_typing_in_a_field_sized_by_its_css_lays_nothing_out() -> None:
    """Textual's Input set its text's width as its virtual size on every key, a reactive
    that lays the whole screen out: in the order form a layout a key."""
    app = OneField()
    async with app.run_test() as pilot:
        field = app.query_one("#sized", TextInput)
        field.focus()
        await pilot.pause()
        asked = layouts_asked(field)
        await pilot.press(*"abcdefghij")
        assert field.value == "abcdefghij"
        assert asked and not any(asked)  # drawn each time, never laid out


async def test_a_long_text_still_scrolls_in_its_field_and_back() -> None:
    app = OneField()
    async with app.run_test() as pilot:
        field = app.query_one("#sized", TextInput)
        field.focus()
        await pilot.press(*"0123456789" * 4)
        await pilot.pause()
        assert field.virtual_size.width == 41  # the text and the cursor after it
        assert field.scroll_x > 0  # the cursor's end of the text is in view
        await pilot.press(*["backspace"] * 35)  # what is left fits: no scroll
        await pilot.pause()
        assert (field.value, field.scroll_x, field.max_scroll_x) == ("01234", 0, 0)
        await pilot.press(*"5678901234567890", "ctrl+u")  # scrolled again, then erased
        await pilot.pause()
        assert (field.value, field.scroll_x) == ("", 0)


async def test_a_field_sized_by_its_text_is_still_laid_out_as_it_grows() -> None:
    app = OneField()
    async with app.run_test() as pilot:
        field = app.query_one("#auto", TextInput)
        field.focus()
        await pilot.pause()
        before = field.size.width
        await pilot.press(*"abcdefghij" * 3)
        await pilot.pause()
        assert field.size.width > before
