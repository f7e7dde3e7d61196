"""The 16-colour terminal (issue 14): detected from the terminal, given the ansi theme, in
which a field's hint and its focus are drawn in colours the terminal has."""

from __future__ import annotations

import pytest
from rich.color import Color
from textual.widgets import Input
from ui_support import SIZE, settle, shown

from tui_app.config import load_config, save_config
from tui_app.ui.app import limited_colours


@pytest.mark.parametrize(
    ("system", "limited"),
    [
        ("standard", True),
        ("windows", True),
        (None, True),
        ("256", False),
        ("truecolor", False),
    ],
)
def test_limited_colours(system, limited):
    assert limited_colours(system) is limited


def ansi(color: Color | None) -> tuple:
    """A colour as the terminal gets it: its type and its number of the 16."""
    return (None, None) if color is None else (color.type, color.number)


@pytest.fixture
def xterm(monkeypatch):
    """A terminal that says TERM=xterm and nothing more: 16 colours."""
    monkeypatch.setenv("TERM", "xterm")
    monkeypatch.delenv("COLORTERM", raising=False)
    monkeypatch.delenv("TEXTUAL_COLOR_SYSTEM", raising=False)


async def test_a_16_colour_terminal_gets_the_ansi_theme_with_readable_fields(ui_app, xterm):
    app = ui_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        assert app.theme == "ansi-dark"
        first, last = (app.screen.query_one(s, Input) for s in ("#f-FirstName", "#f-LastName"))
        first.focus()
        await pilot.pause()
        hint = last.get_component_rich_style("input--placeholder")
        # The hint is in a colour of the terminal's own, not grey on grey.
        assert ansi(hint.color) == ansi(Color.parse("cyan"))
        assert ansi(last.rich_style.bgcolor) == ansi(Color.default())
        # Focus shows: the focused field has a background of its own.
        assert ansi(first.rich_style.bgcolor) == ansi(Color.parse("blue"))


@pytest.mark.parametrize("chosen", ["ansi-light", "producer-light"])
async def test_a_16_colour_terminal_uses_the_ansi_theme_and_keeps_the_choice(ui_app, xterm, chosen):
    """An ansi theme chosen in the config is used as it is; another gets the ansi theme of
    its darkness, which is not the user's choice: the config keeps the chosen one."""
    save_config(load_config().model_copy(update={"theme": chosen}))
    app = ui_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        assert app.theme == "ansi-light"
    assert load_config().theme == chosen


async def test_a_truecolour_terminal_keeps_the_configured_theme(ui_app, monkeypatch):
    monkeypatch.setenv("COLORTERM", "truecolor")
    monkeypatch.delenv("TEXTUAL_COLOR_SYSTEM", raising=False)
    app = ui_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        assert app.theme == "producer-dark"


async def test_the_stylesheet_is_parsed_once_at_start_with_the_theme_in_use(ui_app, monkeypatch):
    """The start theme is set before the stylesheet's first parse, which reads its
    variables: no second parse of the whole stylesheet (some 20 ms of the first frame)."""
    from textual.css.stylesheet import Stylesheet

    monkeypatch.setenv("COLORTERM", "truecolor")
    monkeypatch.delenv("TEXTUAL_COLOR_SYSTEM", raising=False)
    reparses = []
    reparse = Stylesheet.reparse
    monkeypatch.setattr(Stylesheet, "reparse", lambda self: reparses.append(1) or reparse(self))
    app = ui_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        assert reparses == []
        assert app.theme == "producer-dark"
        assert {"-theme-producer-dark", "-dark-mode"} <= set(app.classes)
        assert "-light-mode" not in app.classes
        theme = app.get_theme("producer-dark")
        assert app.screen.styles.background.hex == theme.background.upper()
        app.theme = "ansi-light"  # a later change still restyles
        await settle(app, pilot)
        assert reparses and "-light-mode" in app.classes


async def test_a_theme_chosen_over_a_commented_config_says_where_the_comments_are(
    ui_app, config_file
):
    save_config(load_config())
    config_file.write_text("# staging is down on Fridays\n" + config_file.read_text())
    app = ui_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        app.theme = "nord"
        await settle(app, pilot)
        kept = config_file.parent / "config.toml.commented"
        assert [n.title for n in shown(app) if n.severity == "warning"] == ["Comments kept aside"]
        assert str(kept) in shown(app)[-1].message
    assert kept.read_text().startswith("# staging is down on Fridays\n")
    assert load_config().theme == "nord"
