"""Text from users, files and the service is shown as it is, never read as markup: a name,
path or filter holding ``[/x]`` ended the app with a MarkupError (and the form with it)."""

from __future__ import annotations

import copy

from textual.widgets import Collapsible, Input, Label, Select, Static
from textual.widgets._toast import Toast
from ui_support import SIZE, settle, shown

from tui_app.config import Environment, default_config, save_config
from tui_app.contract.errors import FieldError
from tui_app.ui.scenes import DEMO_AGENT
from tui_app.ui.screens.profiles import ProfilesScreen

BAD = "O[/x]Hara"
ENV = "sb[/x]"


def text_of(app, selector: str) -> str:
    return str(app.screen.query_one(selector, Static).render())


async def test_markup_like_text_is_shown_as_it_is_everywhere(ui_app, tmp_path):
    save_config(
        default_config().model_copy(
            update={"environments": {ENV: Environment(embedded=True)}, "active": ENV}
        )
    )
    app = ui_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        # An environment's name, in the status bar.
        assert f"env: {ENV}" in str(app.screen.query_one("#env-name", Label).render())

        # A filter of the search results, in the line that counts them.
        app.screen.query_one("#f-FirstName", Input).value = "a"
        app.screen.query_one("#f-LastName", Input).value = "s"
        app.screen.query_one("#f-LastName", Input).focus()
        await pilot.press("enter")
        await settle(app, pilot)
        await pilot.press("slash", *"[/x")
        await pilot.pause()
        assert "'[/x'" in text_of(app, "#result-info")

        # A value the service stores, in the export's tree; a ProfileKey typed, in the
        # panel and in the notification that it was not found.
        agent = copy.deepcopy(DEMO_AGENT)
        agent["Demographic"]["LastName"] = BAD
        assert (await (await app.client()).import_agent(agent)).Success
        await app.switch_mode("export")
        await settle(app, pilot)
        screen = app.screen
        screen.query_one("#export-key", Input).value = agent["ProfileKey"]
        await pilot.press("f5")
        await settle(app, pilot)
        [demographic] = [n for n in screen.data_tree.root.children if "Demographic" in str(n.label)]
        demographic.expand()
        await pilot.pause()
        assert BAD in str(demographic.children[0].label)
        screen.query_one("#export-key", Input).value = "[/x]"
        await pilot.press("f5")
        await settle(app, pilot)
        assert "[/x]" in text_of(app, "#export-info") + " ".join(n.message for n in shown(app))

        # A service's message about a whole section, on the section's title.
        await app.switch_mode("profiles")
        await settle(app, pilot)
        assert isinstance(app.screen, ProfilesScreen)
        app.screen.editor.mark_groups([FieldError("Demographic", f"not {BAD}")])
        await pilot.pause()
        group = app.screen.query_one("#f-Demographic-group", Collapsible)
        assert f"not {BAD}" in str(group.query_one("CollapsibleTitle", Static).render())


async def profile_field(app, pilot, name: str, value: str):
    """The demo agent's Demographic field ``name``, shown in Profiles holding ``value``."""
    await settle(app, pilot)
    await app.switch_mode("profiles")
    await settle(app, pilot)
    screen = app.screen
    assert isinstance(screen, ProfilesScreen)
    agent = copy.deepcopy(DEMO_AGENT)
    agent["Demographic"][name] = value
    await screen.show_profile("agent", agent)
    field = await screen.editor.form.reveal(f"Demographic.{name}")
    await settle(app, pilot)
    return field


async def test_a_choice_from_a_file_that_is_none_of_the_choices_is_shown_as_it_is(ui_app):
    """Seen (a review): a profile whose EmpStatus reads ``[/x]`` ended the app as its
    Demographic group opened: the value is offered as a choice of its own, and a Select
    reads a string prompt as markup."""
    app = ui_app()
    async with app.run_test(size=SIZE) as pilot:
        select = await profile_field(app, pilot, "EmpStatus", "[/x]")
        assert isinstance(select, Select) and select.value == "[/x]"
        shown = str(select.query_one("SelectCurrent Static", Static).render())
        assert shown == "[/x] (not one of the choices)"


OBEYED = "O\x1b]0;pwned\x07\x1b[31mHara\x9b2J\u202egnp.exe"
"""A name a terminal would obey: retitle the window, turn red, clear the screen (8-bit
CSI) and show what follows backwards."""


async def test_what_a_terminal_would_obey_is_shown_not_sent(ui_app):
    """Seen (QA): an order draft whose name held an ESC sequence recoloured its field, as
    Rich and Textual pass ESC through to the terminal. Every widget now shows a picture
    of such a character, one for one: here a field and a notification."""
    app = ui_app()
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        field = await profile_field(app, pilot, "LastName", OBEYED)
        assert isinstance(field, Input) and field.value == OBEYED  # the value is kept whole
        app.notify(f"Refused: {OBEYED}")
        await settle(app, pilot)
        picture = app.export_screenshot()  # what the terminal is sent, drawn
        for obeyed in ("\x1b", "\x07", "\x9b", "\u202e"):
            assert obeyed not in picture
        pictured = "O␛]0;pwned␛[31mHara�2J�gnp.exe"  # BEL dropped, as Rich drops it
        assert pictured in field.render_line(0).text
        [toast] = app.screen.query(Toast)
        assert pictured in str(toast.render())
