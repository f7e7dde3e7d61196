"""Pilot tests of the keyboard habits every area shares (issue 14): Esc leaves a text field,
focus always lands somewhere useful, every key works from anywhere on its screen and is
in the palette, a new search or environment leaves nothing stale behind."""

from __future__ import annotations

import pytest
from textual import events
from textual.widgets import DataTable, Input, Select, Static, TabbedContent
from ui_support import SIZE, settle, shown, wait_for

from tui_app.config import Environment
from tui_app.ui.screens.record import RecordScreen
from tui_app.ui.widgets.model_form import ModelForm


def info(app) -> str:
    return str(app.screen.query_one("#result-info", Static).render())


async def area(app, pilot, key: str) -> None:
    await pilot.press(key)
    await settle(app, pilot)


async def search(app, pilot, first: str, last: str) -> None:
    """A NAME search of agents, the fields set directly (typing is not what is tested)."""
    app.screen.query_one("#f-FirstName", Input).value = first
    app.screen.query_one("#f-LastName", Input).value = last
    await pilot.pause()
    app.screen.query_one("#f-LastName", Input).focus()
    await pilot.press("enter")
    await settle(app, pilot)


# --- 1. Esc leaves a text field; a second Esc backs out ---------------------------------


ESC_WALK = [  # (area key, a text field of it, the next area key typed after Esc, its mode)
    ("3", "#f-ProfileKey", "5", "export"),
    ("5", "#export-key", "1", "search"),
    ("1", "#npn", "2", "orders"),
    ("2", "#f-tlq--clientOrderNum", "6", "settings"),
]


async def test_esc_leaves_the_field_so_the_next_area_key_is_a_command(ui_app):
    app = ui_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        for key, field, next_key, next_mode in ESC_WALK:
            await area(app, pilot, key)
            box = app.screen.query_one(field, Input)
            box.value = "2 Changed Ave"
            box.focus()
            await pilot.pause()
            await pilot.press("escape")
            await pilot.pause()
            assert app.focused is not None and not isinstance(app.focused, Input), field
            await area(app, pilot, next_key)
            assert app.current_mode == next_mode
            assert box.value == "2 Changed Ave"  # the key was a command, not a character


def keys_at_once(app, *keys: str) -> None:
    """Queue ``keys`` as a terminal delivers keys typed or pasted quickly: all before the
    app handles the first (``pilot.press`` waits for each in turn)."""
    for key in keys:
        app.post_message(events.Key(key, key if len(key) == 1 else None))


async def test_keys_typed_at_once_follow_the_focus_a_key_moves(ui_app):
    """Seen: F2 and a path typed straight after it went to the jobs table (its letters are
    commands there): focus moved a moment after the key that moved it."""
    app = ui_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        for area_key, key, field in [("4", "f2", "#bulk-path"), ("7", "f2", "#watch-add"),
                                     ("1", "f3", "#npn")]:  # fmt: skip
            await pilot.press("escape")  # out of the last area's field
            await area(app, pilot, area_key)
            keys_at_once(app, key, "1", "2")
            await pilot.pause()
            assert app.screen.query_one(field, Input).value == "12", field


@pytest.mark.parametrize(
    ("area_key", "key"),
    [("2", "f6"), ("2", "f7"), ("3", "f6"), ("3", "f7")],  # orders, profiles
)
async def test_a_path_typed_straight_after_the_key_that_asks_for_it_goes_to_the_dialog(
    ui_app, area_key, key
):
    """Seen (QA): F7 in Orders and a path typed at once: the letters went into the order
    field behind the dialog (the dialog was shown from a worker, a moment later), and the
    dialog opened with its suggestion."""
    from tui_app.ui.screens.dialogs import PathScreen

    app = ui_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await area(app, pilot, area_key)
        behind = app.screen.query(Input).first()
        behind.focus()
        await pilot.pause()
        before = behind.value
        keys_at_once(app, key, *"xy.json")
        await pilot.pause()
        assert isinstance(app.screen, PathScreen)
        assert app.screen.query_one(Input).value == "xy.json"
        assert behind.value == before


async def test_esc_out_of_a_record_opened_by_npn_makes_the_next_key_a_command(ui_app):
    """Seen: F3, an NPN, Enter opened the record; Esc closed it and put the focus back in
    the NPN field, so the next key, ``3``, made the NPN 190000013 instead of opening
    Profiles (``?`` likewise: no help)."""
    app = ui_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("f3", *"19000001", "enter")
        await settle(app, pilot)
        assert type(app.screen).__name__ == "RecordScreen"
        keys_at_once(app, "escape", "3")
        await settle(app, pilot)
        assert app.current_mode == "profiles"
        await area(app, pilot, "1")
        assert app.screen.query_one("#npn", Input).value == "19000001"


async def test_a_line_cleared_and_typed_at_once_after_a_key_that_moves_there_is_kept(ui_app):
    """Seen: F2, Ctrl+U and a path typed at once (as over SSH) left the Bulk path empty."""
    app = ui_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await area(app, pilot, "4")
        app.screen.query_one("#bulk-path", Input).value = "old.ndjson"
        keys_at_once(app, "f2", "ctrl+u", "x", "y", "z")
        await pilot.pause()
        assert app.screen.query_one("#bulk-path", Input).value == "xyz"


async def test_a_path_cleared_typed_and_entered_at_once_in_a_dialog_is_used(ui_app, tmp_path):
    """Seen (QA, then again in tmux): F7, then Ctrl+U, a path and Enter in one burst closed
    the dialog and loaded nothing, without a word: Ctrl+U ran after the path was typed and
    erased it, and Enter sent an empty path."""
    from tui_app.ui.screens.dialogs import PathScreen
    from tui_app.wire.xml import dump_xml_dict

    path = tmp_path / "k9.xml"
    path.write_bytes(dump_xml_dict("Agent", {"ProfileKey": "K9", "Ssn": "000450009"}))
    app = ui_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await area(app, pilot, "3")
        await pilot.press("f7")
        await wait_for(
            pilot, lambda: isinstance(app.screen, PathScreen), "the PathScreen"
        )  # not settle(): the loading waits for the dialog's answer
        assert isinstance(app.screen, PathScreen)
        keys_at_once(app, "ctrl+u", *str(path), "enter")
        await settle(app, pilot)
        assert app.screen.editor.data()["ProfileKey"] == "K9"


async def test_a_second_esc_backs_out_of_the_record_and_the_filter(ui_app):
    app = ui_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await search(app, pilot, "a", "s")
        await pilot.press("slash", *"shah")
        await pilot.pause()
        await pilot.press("escape")  # leaves the filter, which clears it
        await pilot.pause()
        assert not app.screen.query_one("#filter").display
        assert app.focused is app.screen.query_one("#results")
        app.screen.query_one("#f-FirstName", Input).focus()
        await pilot.press("escape")
        assert app.focused is app.screen.query_one("#results")
        await pilot.press("enter")
        await settle(app, pilot)
        assert isinstance(app.screen, RecordScreen)
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, RecordScreen)


# --- 2. focus lands on something useful, always ------------------------------------------


async def test_every_area_opens_with_focus_on_its_first_useful_widget(ui_app):
    first = {
        "2": "ptype",
        "3": "profile-kind",
        "4": "bulk-jobs",
        "5": "export-kind",
        "6": "env-list",
        "1": "kind",
    }
    app = ui_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        for key, widget in first.items():
            await area(app, pilot, key)
            assert app.focused is not None and app.focused.id == widget


async def test_a_new_profile_starts_in_its_first_field(ui_app):
    app = ui_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await area(app, pilot, "3")
        await pilot.press("f3")
        await settle(app, pilot)
        await pilot.press(*"NUAGENT001")
        await pilot.pause()
        assert app.current_mode == "profiles"
        assert app.screen.editor.data()["ProfileKey"] == "NUAGENT001"


async def test_three_tabs_from_a_fresh_search_reach_the_form(ui_app):
    app = ui_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("tab", "tab", "tab", *"Avery")
        await pilot.pause()
        focused = app.focused
        assert isinstance(focused, Input) and focused.value == "Avery"
        assert app.screen.query_one(ModelForm) in focused.ancestors


async def test_tab_into_a_filled_field_keeps_its_text(ui_app):
    app = ui_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        app.screen.query_one("#f-FirstName", Input).value = "Avery"
        app.screen.query_one("#f-FirstName", Input).focus()
        await pilot.press("tab", "shift+tab", *"Q")
        await pilot.pause()
        assert app.screen.query_one("#f-FirstName", Input).value == "AveryQ"


# --- 3. the filter belongs to one search --------------------------------------------------


async def test_a_new_search_clears_the_filter_and_the_count_says_what_is_shown(ui_app):
    app = ui_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await search(app, pilot, "a", "s")
        table = app.screen.query_one("#results", DataTable)
        total = table.row_count
        assert f"{total} hits" in info(app)
        await pilot.press("slash", *"shah")
        await pilot.pause()
        assert 0 < table.row_count < total
        assert f"{table.row_count} of {total} shown" in info(app)
        await search(app, pilot, "avery", "sam")
        assert table.row_count == 1
        assert "1 hit" in info(app)
        assert not app.screen.query_one("#filter").display
        assert app.screen.query_one("#filter", Input).value == ""


# --- 4. every key works from anywhere on its screen, and is in the palette ----------------


async def test_f8_goes_back_to_the_order_form_from_the_tracking_list(ui_app):
    app = ui_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await area(app, pilot, "2")
        tabs = app.screen.query_one("#order-tabs", TabbedContent)
        await pilot.press("f9")
        await settle(app, pilot)
        assert tabs.active == "tracking" and app.focused.id == "tracked"
        for inside in ("#tracked", "#lookup"):
            app.screen.query_one(inside).focus()
            await pilot.press("f8")
            await settle(app, pilot)
            assert tabs.active == "file"
            assert app.screen.form in app.focused.ancestors
            await pilot.press("f9")
            await settle(app, pilot)


async def test_the_palette_offers_every_key_of_every_area(ui_app):
    app = ui_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        for mode in ("search", "orders", "profiles", "bulk", "export", "settings"):
            await app.switch_mode(mode)
            await settle(app, pilot)
            screen = app.screen
            commands = list(app.get_system_commands(screen))
            offered = {
                getattr(getattr(c.callback, "func", c.callback), "__name__", "") for c in commands
            } | {c.title for c in commands}
            for bindings in screen._bindings.key_to_bindings.values():
                for binding in bindings:
                    name = binding.action.split("(")[0].removeprefix("app.")
                    if (
                        not binding.description
                        or name in ("help", "back", "leave_field")
                        or screen.check_action(name, ()) is False
                    ):
                        continue
                    assert (
                        f"action_{name}" in offered
                        or f"{screen.AREA}: {binding.description}" in offered
                    ), binding


async def test_the_palette_form_command_opens_the_order_form(ui_app):
    app = ui_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await area(app, pilot, "2")
        await pilot.press("f9")
        await settle(app, pilot)
        (command,) = (c for c in app.get_system_commands(app.screen) if c.title == "Orders: Form")
        await command.callback()
        await settle(app, pilot)
        assert app.screen.query_one("#order-tabs", TabbedContent).active == "file"


# --- 5. nothing stale after a switch -------------------------------------------------------


async def test_switching_environment_drops_the_old_ones_results_and_record(ui_app):
    app = ui_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await search(app, pilot, "avery", "sam")
        await pilot.press("enter")
        await settle(app, pilot)
        assert isinstance(app.screen, RecordScreen)
        await area(app, pilot, "6")
        await app.switch_environment("staging", Environment(base_url="http://127.0.0.1:9"))
        await settle(app, pilot)
        await area(app, pilot, "1")
        assert not isinstance(app.screen, RecordScreen)
        assert app.screen.query_one("#results", DataTable).row_count == 0
        assert "staging" in info(app)


async def test_an_order_form_prefilled_from_a_record_drops_the_last_orders_panel(ui_app):
    app = ui_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await area(app, pilot, "2")
        screen = app.screen
        screen.query_one("#order-result", Static).update("Order OLD1\nStatus: RECEIVED")
        screen.shown["order-result"] = "OLD1"
        await app.switch_mode("search")
        app.screen.open_record("agent", 19000001)
        await settle(app, pilot)
        await pilot.press("t")
        await settle(app, pilot)
        assert app.screen is screen
        assert "OLD1" not in str(screen.query_one("#order-result", Static).render())


async def test_an_empty_record_table_says_none(ui_app):
    app = ui_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        app.screen.open_record("agent", 19000001)
        await settle(app, pilot)
        table = app.screen.query_one("#actions-table", DataTable)
        assert table.row_count == 1 and table.get_row_at(0)[0].plain == "none"


# --- smaller ones -------------------------------------------------------------------------


async def save_as(app, pilot, path) -> str:
    """F6, the path typed into the dialog, Enter: the notifications that follow."""
    before = len(shown(app))
    await pilot.press("f6")
    await pilot.pause()
    await pilot.pause()
    app.screen.query_one("#path-input", Input).value = str(path)
    await pilot.press("enter")
    await settle(app, pilot)
    return " ".join(n.message for n in shown(app)[before:])


async def test_export_files_and_f7_say_plainly_what_they_do(ui_app, tmp_path):
    from tui_app.ui.scenes import DEMO_AGENT

    app = ui_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await (await app.client()).import_agent(DEMO_AGENT)
        await area(app, pilot, "5")
        app.screen.query_one("#export-key", Input).value = DEMO_AGENT["ProfileKey"]
        await pilot.press("f5")
        await settle(app, pilot)
        said = await save_as(app, pilot, tmp_path / "missing" / "out.csv")
        assert "the folder" in said and "does not exist" in said and "Errno" not in said
        said = await save_as(app, pilot, tmp_path / "out.csv")
        assert "No file for the empty data sets: " in said and "Ce" in said
        assert not (tmp_path / "out-Ce.csv").exists()
        # F7 edits the profile fetched: not another one the fields name now.
        app.screen.query_one("#export-key", Input).value = "SRP"
        before = len(shown(app))
        await pilot.press("f7")
        await settle(app, pilot)
        assert app.current_mode == "export"
        assert "fetch it first" in " ".join(n.message for n in shown(app)[before:])


async def test_tab_and_esc_typed_with_other_keys_at_once_move_the_focus_first(ui_app):
    """Over SSH, keys typed quickly arrive together: "Kim<Tab>Lee" put "KimLee" in the
    first field, and Esc then "2" typed the 2 into the field instead of opening Orders
    (the focus moved only after the keys already received had gone to the old field)."""
    app = ui_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        first, last = (
            app.screen.query_one(f"#f-{name}", Input) for name in ("FirstName", "LastName")
        )
        first.focus()
        await pilot.pause()
        keys_at_once(app, "k", "tab", "l", "shift+tab", "m")
        await pilot.pause()
        assert (first.value, last.value) == ("km", "l")
        keys_at_once(app, "escape", "2")
        await settle(app, pilot)
        assert app.current_mode == "orders"
        assert first.value == "km"
        # Esc stays an open menu's first: it closes the menu, the focus stays on its Select.
        select = app.screen.query_one("#ptype", Select)
        select.focus()
        await pilot.press("enter")
        assert select.expanded
        await pilot.press("escape")
        assert not select.expanded and app.focused is select


FIELDS = [("1", "#npn"), ("2", "#lookup"), ("4", "#bulk-path"), ("5", "#export-key"),
          ("6", "#set-timeout"), ("7", "#watch-add")]  # fmt: skip


async def test_a_field_given_the_focus_keeps_its_text_and_the_cursor_goes_to_its_end(ui_app):
    """Seen in Settings: Tab into the timeout (30) and type 5 made it 5, not 305; the
    README promises it for every field."""
    app = ui_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        for area_key, field in FIELDS:
            app.screen.set_focus(None)
            await area(app, pilot, area_key)
            if area_key == "6":
                await pilot.press("e")  # the editor of the environment listed first
                await pilot.pause()
            box = app.screen.query_one(field, Input)
            if area_key == "2":
                app.screen.query_one(TabbedContent).active = "tracking"
                await pilot.pause()
            box.value = "12"
            box.focus()
            await pilot.pause()
            await pilot.press("3")
            assert box.value == "123", field
            # Left where the cursor was moved to, then focused again (QA: Left, Tab away,
            # Tab back, and "Q" made ABC123 ABC1Q23).
            await pilot.press("left", "left")
            app.screen.set_focus(None)
            await pilot.pause()
            box.focus()
            await pilot.pause()
            await pilot.press("4")
            assert box.value == "1234", field


async def test_buttons_and_hints_name_a_remapped_key_as_it_is(ui_app):
    """Seen (QA): with ``orders.submit = "f12"`` under [keys], the Submit button and the
    form's hint still said F5 (which then did nothing)."""
    from textual.widgets import Button

    from tui_app.config import default_config, save_config

    keys = {"orders.submit": "f12", "export.fetch": "f11", "bulk.submit": "f12"}
    save_config(default_config().model_copy(update={"keys": keys}))
    app = ui_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        for area_key, button, words, hint in [
            ("2", "#submit", "Submit  F12", ("#order-result", "press F12 to submit")),
            ("5", "#export-fetch", "Fetch  F11", ("#export-info", "press F11 (or Enter)")),
            ("4", "#bulk-submit", "Submit  F12", ("#bulk-preflight", "submit it (F12)")),
        ]:
            await pilot.press("escape")
            await area(app, pilot, area_key)
            assert str(app.screen.query_one(button, Button).label) == words
            assert hint[1] in str(app.screen.query_one(hint[0], Static).render())


@pytest.mark.parametrize(
    ("text", "said"), [("19000001\nsecond line\n", True), ("19000001\n", False)]
)
async def test_a_paste_of_many_lines_into_a_field_says_only_the_first_went_in(ui_app, text, said):
    # QA: "Line1⏎Line2…" pasted into ProfileKey left "Line1", without a word.
    app = ui_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        field = app.screen.query_one("#npn", Input)
        field.focus()
        await pilot.pause()
        field.post_message(events.Paste(text))
        await pilot.pause()
        assert field.value == "19000001"
        warned = [n.message for n in shown(app) if n.severity == "warning"]
        assert warned == (
            ["Only the first of the 2 lines pasted went in: a field holds one line."]
            if said
            else []
        )
