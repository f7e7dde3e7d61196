"""Pilot tests of the shell, search and full records, pressing real keys against the
embedded sandbox."""

from __future__ import annotations

import re

import httpx
import pytest
import tomli_w
from textual.app import App
from textual.widgets import DataTable, Input, OptionList, Select, Static
from ui_support import SIZE, open_demo_agent, settle, shown, until_connected

from tui_app.client.registry import RegistryClient, RetryPolicy
from tui_app.config import GROUPS, config_path, load_config, save_config
from tui_app.ui.app import ProducerApp
from tui_app.ui.screens.help import HelpScreen
from tui_app.ui.screens.record import RecordScreen
from tui_app.ui.screens.search import SearchScreen


def text_of(app, selector: str) -> str:
    return str(app.screen.query_one(selector, Static).render())


async def type_into(pilot, selector: str, text: str) -> None:
    await pilot.click(selector)
    await pilot.press(*text)


async def search_avery(app, pilot) -> None:
    await type_into(pilot, "#f-FirstName", "avery")
    await type_into(pilot, "#f-LastName", "sam")
    await pilot.press("enter")
    await settle(app, pilot)


async def test_first_run_shows_the_sandbox_badge_and_that_the_service_answers(ui_app):
    app = ui_app()
    async with app.run_test(size=SIZE) as pilot:
        await until_connected(app, pilot)
        assert app.screen.query_one("#sandbox-badge").display is True
        assert app.service_state.startswith("● online")
        assert "env: sandbox" in str(app.screen.query_one("#env-name").render())
    assert config_path().exists()  # the first run wrote the default config


async def test_search_results_record_and_back(ui_app):
    app = ui_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await search_avery(app, pilot)
        table = app.screen.query_one("#results", DataTable)
        assert table.row_count == 1
        assert "1 hit" in text_of(app, "#result-info")
        assert table.has_focus
        await pilot.press("enter")
        await settle(app, pilot)
        assert isinstance(app.screen, RecordScreen)
        title = text_of(app, "#record-title")
        assert "Avery Quinn Sample" in title and "***-**-1234" in title
        assert "000121234" not in app.screen.query_one("#raw-text").text
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, SearchScreen)
        assert app.screen.query_one("#results", DataTable).row_count == 1


async def test_personal_data_is_revealed_only_on_request(ui_app):
    app = ui_app()
    async with app.run_test(size=SIZE) as pilot:
        await open_demo_agent(app, pilot)
        overview = text_of(app, "#overview-text")
        assert "**/**/****" in overview and "***-**-1234" in overview
        await pilot.press("v")
        await pilot.pause()
        assert "000-12-1234" in text_of(app, "#record-title")
        assert "000121234" in app.screen.query_one("#raw-text").text
        await pilot.press("v")
        await pilot.pause()
        assert "000-12-1234" not in text_of(app, "#record-title")
        # Revealed, then closed: the next record opens masked (seen: one reveal showed the
        # SSN and birth date of every record opened after it).
        await pilot.press("v", "escape")
        await open_demo_agent(app, pilot)
        assert "***-**-1234" in text_of(app, "#record-title")
        assert "000121234" not in app.screen.query_one("#raw-text").text


@pytest.mark.parametrize(("key", "focused"), [("f2", Input), ("f3", Input), ("f4", DataTable)])
async def test_search_keys_over_an_open_record_close_it_and_act_in_search(ui_app, key, focused):
    # QA at 80x24: with a record open (1 comes back to it), F3 and an NPN typed went
    # nowhere.
    app = ui_app()
    async with app.run_test(size=SIZE) as pilot:
        await open_demo_agent(app, pilot)
        assert isinstance(app.screen, RecordScreen)
        await pilot.press(key)
        await settle(app, pilot)
        assert isinstance(app.screen, SearchScreen)
        assert isinstance(app.screen.focused, focused)
        if key == "f3":
            assert app.screen.focused.id == "npn"
            await pilot.press(*"19000002")
            assert app.screen.query_one("#npn", Input).value == "19000002"


async def test_the_chosen_kind_is_marked_without_colour(ui_app):
    # QA under NO_COLOR: "●" before both Agents and Agencies, told apart by colour only.
    app = ui_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        agent, agency = (app.screen.query_one(f"#kind-{k}") for k in ("agent", "agency"))
        assert ("●" in str(agent.render()), "●" in str(agency.render())) == (True, False)
        await pilot.click("#kind-agency")
        await pilot.pause()
        assert ("●" in str(agent.render()), "●" in str(agency.render())) == (False, True)


def shown_keys(app: App) -> dict[str, str]:
    """The footer's keys: description -> key as shown."""
    return {str(k.description): str(k.key_display) for k in app.screen.query("FooterKey")}


async def test_the_reveal_key_is_named_for_what_it_does_next(ui_app):
    # It said "Reveal PII" with the data revealed, where a press masks it.
    keys = load_config().keys
    save_config(load_config().model_copy(update={"keys": {**keys, "record.reveal": "r"}}))
    app = ui_app()
    async with app.run_test(size=SIZE) as pilot:
        await open_demo_agent(app, pilot)
        assert "Reveal PII" in shown_keys(app) and "Mask PII" not in shown_keys(app)
        await pilot.press("r")  # remapped: both of its names follow the keymap
        await pilot.pause()
        assert "000-12-1234" in text_of(app, "#record-title")
        assert shown_keys(app).get("Mask PII") == "r" and "Reveal PII" not in shown_keys(app)
        await pilot.press("r")
        await pilot.pause()
        assert "000-12-1234" not in text_of(app, "#record-title")
        assert "Reveal PII" in shown_keys(app)
        await pilot.press("ctrl+r")  # the app-wide key: the footer follows it too
        await pilot.pause()
        assert "Mask PII" in shown_keys(app)
        await settle(app, pilot)


async def test_a_reveal_ends_when_its_area_is_left(ui_app):
    """Found by a TUI QA pass: `v` on agency 19000002's record, then 5 (the record stays
    open behind) and the agent AQS-1 exported there showed its full SSN: the reveal was
    undone only when the record closed."""
    from tui_app.ui.screens.export import ExportScreen

    app = ui_app()
    async with app.run_test(size=SIZE) as pilot:
        await open_demo_agent(app, pilot)
        await pilot.press("v")
        await pilot.pause()
        assert "000-12-1234" in text_of(app, "#record-title")
        await pilot.press("5")
        await settle(app, pilot)
        assert isinstance(app.screen, ExportScreen)
        assert app.reveal_pii is False
        await pilot.press("1")  # back to the record, masked again
        await settle(app, pilot)
        assert "***-**-1234" in text_of(app, "#record-title")
        await pilot.press("ctrl+r")  # an explicit reveal still works, and lasts in its area
        await pilot.pause()
        assert "000-12-1234" in text_of(app, "#record-title")


async def test_licenses_say_their_standing_in_words(ui_app):
    app = ui_app()
    async with app.run_test(size=SIZE) as pilot:
        await open_demo_agent(app, pilot)
        await pilot.press("l", "l")
        await pilot.pause()
        assert app.screen.query_one("#record-tabs").active == "licenses"
        table = app.screen.query_one("#licenses-table", DataTable)
        standings = {
            table.get_row_at(i)[0].plain: table.get_row_at(i)[2].plain
            for i in range(table.row_count)
        }
        assert standings["TX"] == "EXPIRES IN 45 days"
        assert standings["CA"] == "ACTIVE"
        # Standing and expiry right after the license, where 80 columns still show them.
        labels = [str(column.label) for column in table.columns.values()]
        assert labels[:4] == ["State", "Number", "Standing", "Expires"]


async def test_copy_npn_uses_the_clipboard(ui_app):
    app = ui_app()
    async with app.run_test(size=SIZE) as pilot:
        await open_demo_agent(app, pilot)
        await pilot.press("c")
        assert app.clipboard == "19000001"


async def test_out_of_bounds_input_shows_the_error_at_once_and_blocks_the_search(ui_app):
    app = ui_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        app.screen.query_one("#f-FirstName", Input).value = "x" * 80  # pasted
        await type_into(pilot, "#f-FirstName", "x")  # the 81st character, typed
        await pilot.pause()
        error = text_of(app, "#f-FirstName-error")
        assert "must be at most 80 characters, not 81" in error
        await pilot.press("enter")
        await pilot.pause()
        assert app.focused.id == "f-FirstName"  # focus moved to the first bad field
        assert text_of(app, "#f-LastName-error") == "✗ is required when SearchType is NAME"
        assert app.screen.query_one("#results", DataTable).row_count == 0


async def test_search_type_picks_the_fields_and_their_rules(ui_app):
    app = ui_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        app.screen.query_one("#search-type", Select).value = "SSN"
        await pilot.pause()
        form_inputs = [i.id for i in app.screen.query("#search-form Input")]
        assert form_inputs == ["f-LastName", "f-Ssn", "f-CostCenter"]
        await type_into(pilot, "#f-Ssn", "12ab")
        await pilot.pause()
        assert "digits only" in text_of(app, "#f-Ssn-error")


async def test_what_was_typed_comes_back_with_its_kind_and_search_type(ui_app):
    """Seen (QA): names typed for an agent search were gone after Agencies and back to
    Agents (and after a switch to SSN and back to NAME)."""
    app = ui_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        screen = app.screen
        screen.query_one("#f-FirstName", Input).value = "Avery"
        screen.query_one("#f-LastName", Input).value = "Sample"
        await pilot.pause()
        await pilot.click("#kind-agency")
        await settle(app, pilot)
        screen.query_one("#f-FirmName", Input).value = "Acme"
        await pilot.click("#kind-agent")
        await settle(app, pilot)
        assert screen.query_one("#f-FirstName", Input).value == "Avery"
        assert screen.query_one("#f-LastName", Input).value == "Sample"
        screen.query_one("#search-type", Select).value = "SSN"
        await settle(app, pilot)
        screen.query_one("#f-LastName", Input).value = ""  # cleared: stays cleared
        await pilot.pause()
        screen.query_one("#search-type", Select).value = "NAME"
        await settle(app, pilot)
        assert screen.query_one("#f-FirstName", Input).value == "Avery"
        assert screen.query_one("#f-LastName", Input).value == ""
        await pilot.click("#kind-agency")
        await settle(app, pilot)
        assert screen.query_one("#f-FirmName", Input).value == "Acme"


async def test_agencies_offer_every_search_type_of_the_enum(ui_app):
    app = ui_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.click("#kind-agency")
        await pilot.pause()
        choices = app.screen.query_one("#search-type", Select).query_one(OptionList)
        options = [str(choices.get_option_at_index(i).prompt) for i in range(choices.option_count)]
        assert [o for o in options if o in ("NAME", "SSN", "NPN", "LICENSE")] == [
            "NAME",
            "SSN",
            "NPN",
            "LICENSE",
        ]
        await type_into(pilot, "#f-FirmName", "sample")
        await type_into(pilot, "#f-FirmFein", "00-0000001")
        await pilot.press("enter")
        await settle(app, pilot)
        table = app.screen.query_one("#results", DataTable)
        assert table.get_row_at(0)[1].plain == "Sample Risk Partners LLC"
        assert table.get_row_at(0)[3].plain == "**-***0001"  # NPN, firm, state, FEIN


async def test_firm_search_by_ssn_sends_the_tax_id_in_firm_fein(ui_app):
    # Issue 10, item 6: SearchType SSN of a firm carries its tax id in FirmFein.
    app = ui_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.click("#kind-agency")
        await pilot.pause()
        app.screen.query_one("#search-type", Select).value = "SSN"
        await settle(app, pilot)
        await type_into(pilot, "#f-FirmFein", "000000001")
        await pilot.press("enter")
        await settle(app, pilot)
        table = app.screen.query_one("#results", DataTable)
        assert table.row_count == 1
        assert table.get_row_at(0)[1].plain == "Sample Risk Partners LLC"


async def test_firm_by_npn_reads_the_firm_with_get_agency(ui_app):
    # Issue 10, item 6: a firm search has no NPN field; "firm by NPN" is GET /agency?Npn=.
    app = ui_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.click("#kind-agency")
        await pilot.pause()
        app.screen.query_one("#search-type", Select).value = "NPN"
        await settle(app, pilot)
        await type_into(pilot, "#f-Npn", "19000002")
        await pilot.press("enter")
        await settle(app, pilot)
        assert isinstance(app.screen, RecordScreen) and app.screen.kind == "agency"
        title = text_of(app, "#record-title")
        assert "Sample Risk Partners LLC" in title and "**-***0001" in title


async def test_slash_filters_the_rows_in_view_and_esc_clears(ui_app):
    app = ui_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await type_into(pilot, "#f-FirstName", "a")
        await type_into(pilot, "#f-LastName", "s")
        await pilot.press("enter")
        await settle(app, pilot)
        table = app.screen.query_one("#results", DataTable)
        everything = table.row_count
        assert everything > 5
        await pilot.press("slash", *"avery")
        await pilot.pause()
        assert table.row_count == 1
        # Where it matched is said: a column may be out of sight (QA: "/TX" kept rows of
        # residents of CA, for their licences in TX, off an 80-column screen).
        assert f"1 of {everything} shown (filter 'avery' in Name;" in text_of(app, "#result-info")
        await pilot.press("ctrl+u", *"-1234")  # only in the SSN column
        await pilot.pause()
        assert "(filter '-1234' in SSN;" in text_of(app, "#result-info")
        await pilot.press("escape")
        await pilot.pause()
        assert table.row_count == everything
        assert not app.screen.query_one("#filter").display


async def test_open_by_npn_and_unknown_npn(ui_app):
    app = ui_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("f3", *"19000009", "enter")
        await settle(app, pilot)
        assert isinstance(app.screen, RecordScreen)
        assert "Cannot show agent NPN 19000009" in text_of(app, "#record-title")
        # The kind is the form's switch: said (QA: the agency's NPN opened as an agent's).
        assert "(if it is an agency's NPN, open it with Search set to Agencies)" in text_of(
            app, "#record-title"
        )
        # QA: the footer still offered Reveal, Copy NPN, Appoint and Terminate, of a
        # record never read ("a" said "has not loaded yet", of one that never will).
        offered = {b.binding.id for b in app.screen.active_bindings.values()}
        assert "record.back" in offered
        assert not {"record.reveal", "record.copy", "record.appoint", "record.terminate"} & offered
        await pilot.press("a", "c", "ctrl+r")  # nor does the app-wide key reveal anything
        await pilot.pause()
        assert isinstance(app.screen, RecordScreen)
        assert not any("copied" in n.message for n in shown(app))
        assert not app.reveal_pii
        assert not any("Personal data" in n.message for n in shown(app))
        offered = {c.title for c in app.get_system_commands(app.screen)}  # nor the palette
        assert "Go to Orders" in offered and "Reveal or mask personal data" not in offered
        await pilot.press("escape")
        await pilot.pause()
        query = app.screen.query_one("#npn", Input)
        query.value = ""
        await pilot.press("f3", "enter")  # nothing typed (QA: "must be a whole number")
        await pilot.pause()
        assert shown(app)[-1].message == "Npn: is required"
        await pilot.press("f3", *"19000001", "enter")
        await settle(app, pilot)
        assert "Avery Quinn Sample" in text_of(app, "#record-title")


async def test_help_lists_every_key_with_its_binding_id(ui_app):
    app = ui_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("f4", "question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        ids = {row[2] for row in app.screen.rows}
        assert {"area.search", "area.settings", "help", "search.filter", "quit"} <= ids
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, SearchScreen)


async def test_number_keys_switch_areas(ui_app):
    app = ui_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("f4", "2")
        await pilot.pause()
        assert app.current_mode == "orders"
        await pilot.press("1")
        await pilot.pause()
        assert app.current_mode == "search"


async def test_a_key_remapped_onto_another_binding_leaves_the_palette_working(ui_app):
    # Review: Textual drops the binding whose key the keymap gives another; the palette
    # looked its key up and raised KeyError when it opened.
    load_config()
    with config_path().open("ab") as handle:
        handle.write(b"\n" + tomli_w.dumps({"keys": {"area.search": "2"}}).encode())
    app = ui_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        helps = {c.title: c.help for c in app.get_system_commands(app.screen)}
        assert helps["Go to Search"] == "Open the Search area (key 2)"
        assert helps["Go to Orders"] == "Open the Orders area"  # 2 is Search's now


async def test_bindings_can_be_remapped_in_the_config(ui_app):
    load_config()
    with config_path().open("rb+") as handle:
        text = handle.read()
        handle.seek(0)
        handle.write(text + b"\n" + tomli_w.dumps({"keys": {"area.orders": "f9"}}).encode())
    app = ui_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("f9")
        await pilot.pause()
        assert app.current_mode == "orders"
        # ...and the palette says so (it said "key 2" whatever the config).
        helps = {c.title: c.help for c in app.get_system_commands(app.screen)}
        assert helps["Go to Orders"] == "Open the Orders area (key f9)"
        assert helps["Show keys"] == "Every key of this screen (key ?)"


async def test_a_service_that_is_down_never_crashes_the_app(tmp_path):
    from tui_app.config import default_config

    config = default_config()
    config = config.model_validate(
        {
            **config.model_dump(exclude_none=True),
            "active": "down",
            "environments": {
                **config.model_dump(exclude_none=True)["environments"],
                "down": {"base_url": "http://127.0.0.1:9"},
            },
        }
    )
    app = ProducerApp(config)
    async with app.run_test(size=SIZE) as pilot:
        await until_connected(app, pilot)
        assert app.service_state.startswith("○ offline")
        await search_avery(app, pilot)
        assert "cannot reach 127.0.0.1" in text_of(app, "#result-info")
        assert not app.screen.query_one("#sandbox-badge").display


def colours(svg: str) -> set[str]:
    """The colours of an SVG screenshot that are not greys."""
    return {
        c.lower()
        for c in re.findall(r"#([0-9a-fA-F]{6})\b", svg)
        if not c[0:2].lower() == c[2:4].lower() == c[4:6].lower()
    }


async def test_no_color_is_honoured(ui_app, monkeypatch):
    monkeypatch.setenv("NO_COLOR", "1")
    async with App().run_test(size=SIZE) as pilot:
        frame = colours(pilot.app.export_screenshot())  # the SVG's own window decorations
    app = ui_app()
    async with app.run_test(size=SIZE) as pilot:
        await until_connected(app, pilot)
        assert colours(app.export_screenshot()) <= frame
        # States still read in words without colour.
        assert "● online" in text_of(app, "#service-state")


async def test_a_failed_search_clears_the_hits_of_the_previous_one(ui_app):
    """Seen: after "Search failed … (500)" the previous search's hits stayed in the table
    as if they were the answer."""
    app = ui_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await search_avery(app, pilot)
        assert app.screen.query_one("#results", DataTable).row_count == 1
        app.connection.client = RegistryClient(
            {g: f"http://registry.test/{g}" for g in GROUPS},
            transport=httpx.MockTransport(lambda request: httpx.Response(500)),
            retry=RetryPolicy(attempts=1),
        )
        await type_into(pilot, "#f-FirstName", "x")
        await pilot.press("enter")
        await settle(app, pilot)
        assert app.screen.query_one("#results", DataTable).row_count == 0
        assert text_of(app, "#result-info").startswith("Search failed: the service failed (500)")


async def test_a_damaged_sandbox_database_is_said_not_a_crash(ui_app):
    """Found by a CLI QA pass (the CLI gave a traceback): the embedded sandbox's database
    holding garbage. The app says which file and what to do, and keeps running."""
    from tui_app.config import data_dir

    damaged = data_dir() / "sandbox-42.db"
    damaged.write_text("garbage")
    app = ui_app()
    async with app.run_test(size=SIZE) as pilot:
        await until_connected(app, pilot)
        problem = next(n for n in shown(app) if n.title == "Cannot connect")
        assert problem.message.startswith(f"cannot use the sandbox's database {damaged}: ")
        assert "move it aside and run again to start a new one" in problem.message
        assert app.service_state == "○ not connected"
        await pilot.press("f4", "2")  # the app goes on
        await settle(app, pilot)
        assert app.current_mode == "orders"


async def test_revealing_on_search_says_what_it_changes_there(ui_app):
    """QA: Ctrl+R on Search said "Personal data shown" while the results, which carry only
    an SSN's last four, stayed as they were."""
    app = ui_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("ctrl+r")
        await pilot.pause()
        assert shown(app)[-1].message == (
            "Personal data shown: results carry only an SSN's last four; the record opened "
            "next shows it all"
        )
        await pilot.press("ctrl+r")
        await pilot.pause()
        assert shown(app)[-1].message == "Personal data masked"
        await open_demo_agent(app, pilot)
        await pilot.press("v")  # on a record, it is plain to see
        await pilot.pause()
        assert shown(app)[-1].message == "Personal data shown"
