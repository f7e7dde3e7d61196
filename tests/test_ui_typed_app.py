"""``screen_as``: the screen on show as the class its caller switched to, or a clear error."""

from __future__ import annotations

import pytest
from textual.app import App
from textual.screen import Screen

from tui_app.ui.typed_app import screen_as


class Shown(Screen):
    pass


class Other(Screen):
    pass


async def test_screen_as_gives_the_screen_on_show_or_names_both_classes() -> None:
    app = App()
    async with app.run_test() as pilot:
        await app.push_screen(Shown())
        await pilot.pause()
        assert screen_as(app, Shown) is app.screen
        with pytest.raises(TypeError, match="expected Other on show, found Shown"):
            screen_as(app, Other)
