"""The Watch area (key 7) with Pilot: add NPNs, check, open a finding at its tab and file
an order from there; bad input named; 100,000 findings a page at a time; the palette."""

from __future__ import annotations

import os
import re
import sqlite3

import httpx
import pytest
import tomli_w
from textual.geometry import Region
from textual.widgets import Input, Label, Static, TabbedContent
from ui_support import SIZE, settle, shown, wait_for

from tui_app.client.registry import RegistryClient, RetryPolicy
from tui_app.config import GROUP_PREFIXES, config_path, load_config
from tui_app.ui.screens.dialogs import ConfirmScreen
from tui_app.ui.screens.record import RecordScreen
from tui_app.ui.screens.roster import RosterScreen
from tui_app.ui.screens.watch import WatchScreen
from tui_app.watch.roster import Entry
from tui_app.watch.store import WatchStore, store_path


def text(screen, selector: str) -> str:
    return str(screen.query_one(selector, Static).render())


def notes(app) -> str:
    return "\n".join(str(n.message) for n in app._notifications)


def shown_text(screen, selector: str) -> str:
    """What the widget shows on screen, its lines joined: text cut off is missing here."""
    widget = screen.query_one(selector)
    lines = widget.render_lines(Region(0, 0, *widget.outer_size))
    return " ".join(" ".join(line.text.split()) for line in lines).strip()


async def open_watch(app, pilot) -> WatchScreen:
    await settle(app, pilot)
    await pilot.press("7")
    await settle(app, pilot)
    screen = app.screen
    assert isinstance(screen, WatchScreen)
    await screen.findings.wait_loaded()
    return screen


async def add(app, pilot, screen: WatchScreen, value: str) -> None:
    await pilot.press("f2")
    screen.query_one("#watch-add", Input).value = value
    await pilot.press("enter")
    await settle(app, pilot)


async def test_add_check_and_open_a_finding_at_its_tab_then_file_an_order(ui_app):
    app = ui_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_watch(app, pilot)
        assert "No check yet" in text(screen, "#watch-history")
        await add(app, pilot, screen, "19000001, 19000002")
        assert "Roster of sandbox: 2 producers" in text(screen, "#watch-roster")
        await pilot.press("f5")
        await settle(app, pilot)
        await screen.findings.wait_loaded()
        table = screen.findings.table
        assert table.row_count == 1
        assert [str(c) for c in table.get_row_at(0)] == [
            "MEDIUM",
            "License expiring",
            "19000001",
            "Avery Sample",
            "TX",
            "TX license 2190001 expires in 45 days, on 2027-01-05.",
        ]
        assert "Check 1 (done)" in text(screen, "#watch-roster")
        assert "License expiring" in text(screen, "#watch-history")
        table.focus()
        # A filter that hides it says so, not "nothing needs attention", and the line
        # under the table no longer speaks of the row it hid (QA: both did).
        await pilot.press("s")  # severity: high, none of them
        await screen.findings.wait_loaded()
        await settle(app, pilot)
        assert text(screen, "#watch-findings .paged-info") == (
            "No findings of any kind and severity high; k and s change the filters."
        )
        assert text(screen, "#watch-detail") == ""
        await pilot.press("s", "s", "s")  # medium, low, all
        await screen.findings.wait_loaded()
        await settle(app, pilot)
        assert table.row_count == 1
        await pilot.press("enter")
        await settle(app, pilot)
        record = app.screen
        assert isinstance(record, RecordScreen) and record.npn == 19000001
        assert record.query_one("#record-tabs", TabbedContent).active == "licenses"
        # The breadcrumb names the area the record came from (it said "Search").
        assert str(record.query_one("#area-name", Label).render()) == "Watch › Record"
        await pilot.press("a")  # appoint: the order form, prefilled from the record
        await settle(app, pilot)
        assert app.current_mode == "orders"


async def test_bad_npns_are_named_and_nothing_is_added(ui_app):
    app = ui_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_watch(app, pilot)
        await add(app, pilot, screen, "19000001 12x")
        assert "NPN 12x: 12x is not an NPN" in notes(app)
        assert "Nothing was added: correct these" in notes(app)  # 19000001 neither (QA)
        assert screen.query_one("#watch-add", Input).has_class("-invalid")
        assert "Roster of sandbox: 0 producers" in text(screen, "#watch-roster")
        await pilot.press("escape", "f5")
        await settle(app, pilot)
        assert "The roster is empty" in notes(app)


async def test_a_path_that_is_no_file_of_producers_is_named_as_such(ui_app, tmp_path):
    """Seen (QA): a file path that does not exist was "not an NPN"; a named pipe hung the
    add, and Ctrl+Q after it waited for a writer."""
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    app = ui_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_watch(app, pilot)
        await add(app, pilot, screen, str(tmp_path / "missing.csv"))
        assert f"{tmp_path / 'missing.csv'}: No such file or directory" in notes(app)
        await add(app, pilot, screen, str(fifo))
        assert f"{fifo}: a named pipe, not a file" in notes(app)


async def watch_two_checked(app, pilot) -> WatchScreen:
    """The Watch area with the demo agent and 19000002 (who has no finding) checked."""
    screen = await open_watch(app, pilot)
    await add(app, pilot, screen, "19000001 19000002")
    await pilot.press("f5")
    await settle(app, pilot)
    await screen.findings.wait_loaded()
    return screen


async def test_x_stops_watching_the_selected_producer(ui_app):
    app = ui_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await watch_two_checked(app, pilot)
        screen.findings.table.focus()
        # QA: one key, not in the footer, took it off at once: it is listed, and asks.
        await pilot.pause()
        assert "Unwatch" in {str(k.description) for k in screen.query("FooterKey")}
        await pilot.press("x")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen), "the question")
        assert "Stop watching NPN 19000001 (" in app.screen.question
        await pilot.press("escape")  # no: still watched
        await settle(app, pilot)
        assert "Roster of sandbox: 2 producers\n" in text(screen, "#watch-roster")
        await pilot.press("x")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen), "the question")
        await pilot.press("y")
        await settle(app, pilot)
        assert "NPN 19000001 is no longer watched" in notes(app)
        assert "Roster of sandbox: 1 producer\n" in text(screen, "#watch-roster")


async def test_x_with_no_finding_says_what_to_select(ui_app):
    """x on the empty findings table looked up the cursor's row before asking whether
    there was one (it raised on the empty table)."""
    app = ui_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_watch(app, pilot)
        screen.findings.table.focus()
        await pilot.press("x")
        await settle(app, pilot)
        assert app.screen is screen and app.is_running
        assert "Select a finding: its producer is the one taken off." in notes(app)


async def test_the_roster_lists_every_producer_watched_and_takes_one_off(ui_app):
    """QA: a producer with no finding was nowhere in the app (only `watch list` showed
    it, and only `watch remove` took it off)."""
    app = ui_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await watch_two_checked(app, pilot)
        findings = screen.findings.table
        npns = {str(findings.get_row_at(i)[2]) for i in range(findings.row_count)}
        assert "19000002" not in npns  # no finding: nowhere but on the roster
        screen.findings.table.focus()
        await pilot.press("r")
        await wait_for(pilot, lambda: isinstance(app.screen, RosterScreen), "the roster")
        roster = app.screen
        await roster.roster.wait_loaded()
        await pilot.pause()
        table = roster.roster.table
        assert [str(table.get_row_at(i)[0]) for i in range(table.row_count)] == [
            "19000001", "19000002"]  # fmt: skip
        assert "Roster of sandbox: 2 producers watched" in text(roster, "#roster-title")
        await pilot.press("down", "x")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen), "the question")
        assert "Stop watching NPN 19000002" in app.screen.question
        await pilot.press("y")
        await wait_for(pilot, lambda: table.row_count == 1, "the roster read again")
        assert str(table.get_row_at(0)[0]) == "19000001"
        await pilot.press("escape")
        await settle(app, pilot)
        assert app.screen is screen
        assert "Roster of sandbox: 1 producer\n" in text(screen, "#watch-roster")


@pytest.mark.parametrize("size", [SIZE, (80, 30)])
@pytest.mark.parametrize(
    ("answer", "why", "then"),
    [
        (  # no record: not read again by this check
            httpx.Response(200, text="<p>not JSON</p>"),
            "1 of 1 producer could not be read (NPN 19000001: the service's answer is not a"
            " valid FullRecordResponse",
            "F5 checks again",
        ),
        (  # a failure that may pass: left for the next run
            httpx.Response(500, html="<html><body>Internal error</body></html>"),
            "1 of 1 producer not read yet (the service failed (500))",
            "F5 carries on",
        ),
    ],
)
async def test_a_check_that_could_not_read_a_record_is_incomplete_never_all_clear(
    ui_app, answer, why, then, size
):
    unreadable = RegistryClient(
        {g: "http://registry.test" + prefix for g, prefix in GROUP_PREFIXES.items()},
        transport=httpx.MockTransport(lambda request: answer),
        retry=RetryPolicy(attempts=1),
    )
    app = ui_app()
    async with app.run_test(size=size) as pilot:
        screen = await open_watch(app, pilot)
        await add(app, pilot, screen, "19000001")
        app.connection.client = unreadable
        await pilot.press("f5")
        await settle(app, pilot)
        await screen.findings.wait_loaded()
        # It said "Check 1 (done) ...: 0 read, 0 findings" and "nothing needs attention".
        assert "0 read, 1 not read, 0 findings" in text(screen, "#watch-roster")
        assert "(done)" not in text(screen, "#watch-roster")
        assert shown(app)[-1].title == "Check 1 incomplete"
        # Said whole, wrapped to the screen's width (it was cut off at 120 columns).
        status = shown_text(screen, "#watch-status")
        assert status.startswith(f"Incomplete: {why}") and status.endswith(then)
        empty = shown_text(screen, "#watch-findings .paged-info")
        assert empty.startswith(f"No findings in what was read, but the check is incomplete: {why}")
        assert empty.endswith(").")


def fill_findings(n: int, words=lambda i: f"finding {i}") -> None:
    """A check of ``n`` findings, written straight into the store; ``words(i)`` is what
    finding ``i`` says."""
    with WatchStore() as store:
        store.add("sandbox", [Entry(1000000 + i) for i in range(10)])
        check = store.start_check("sandbox", "2026-11-21", 60)
        store.set_state(check.id, "DONE")
    with sqlite3.connect(store_path()) as conn:
        conn.executemany(
            "INSERT INTO findings (check_id, rank, kind, severity, npn, name, state, license,"
            " text, tab, record_kind) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                (
                    check.id,
                    4 if i % 2 else 0,
                    "expiring" if i % 2 else "expired",
                    "medium" if i % 2 else "high",
                    2000000 + n - i,
                    f"P {i}",
                    "CA",
                    f"L{i}",
                    words(i),
                    "licenses",
                    "agent",
                )
                for i in range(n)
            ),
        )


async def test_the_findings_stay_put_as_the_cursor_moves_between_long_and_short_words(ui_app):
    """A finding whose words wrap took a row more under the table, so every key between
    it and a shorter one moved the table and laid the whole screen out again."""
    fill_findings(4, lambda i: "expires soon " * (12 if i == 0 else 1))
    app = ui_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_watch(app, pilot)
        table = screen.findings.table
        table.focus()
        heights = []
        for key in ("down", "up", "down", "up"):
            await pilot.press(key)
            await settle(app, pilot)
            heights.append(table.size.height)
        assert len(set(heights)) == 1, heights


async def test_a_hundred_thousand_findings_are_shown_a_page_at_a_time(ui_app):
    fill_findings(100_000)
    app = ui_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_watch(app, pilot)
        table, paged = screen.findings.table, screen.findings
        assert table.row_count == 100
        assert "page 1 of 1000" in text(screen, "#watch-findings .paged-info")
        assert "of 100,000" in text(screen, "#watch-findings .paged-info")
        await pilot.press("n")
        await paged.wait_loaded()
        assert "rows 101–200" in text(screen, "#watch-findings .paged-info")
        await pilot.press(*"kkkkk")  # the fifth kind: License expiring only
        await settle(app, pilot)
        await paged.wait_loaded()
        assert "of 50,000" in text(screen, "#watch-findings .paged-info")
        assert {str(table.get_row_at(i)[1]) for i in range(table.row_count)} == {"License expiring"}
        await pilot.press(*"kkko")  # all kinds again; by NPN
        await settle(app, pilot)
        await paged.wait_loaded()
        assert [str(table.get_row_at(i)[2]) for i in range(2)] == ["2000001", "2000002"]


async def test_the_area_and_its_actions_are_in_the_palette_with_the_keys_as_remapped(ui_app):
    load_config()
    with config_path().open("ab") as handle:  # the user moved "Check now" to Ctrl+K
        handle.write(b"\n" + tomli_w.dumps({"keys": {"watch.check": "ctrl+k"}}).encode())
    app = ui_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_watch(app, pilot)
        helps = {c.title: c.help for c in app.get_system_commands(screen)}
        assert "Go to Watch" in helps
        assert helps["Watch: Add NPNs"] == "Typed, pasted or from a file (key f2)"
        # The palette said "(F5)" here, written by hand beside the binding it repeated.
        assert helps["Watch: Check now"] == "Read every record on the roster (key ^k)"


async def test_a_check_carried_on_is_said_to_run_while_it_runs(ui_app):
    """Seen (QA): a stopped check carried on with F5 was still "Check 7 (stopped)" above
    its own progress line until it ended."""
    from tui_app.config import Environment, default_config, save_config

    paced = Environment(embedded=True, watch_rate=4)  # 4 records a second: time to look
    save_config(default_config().model_copy(update={"environments": {"sandbox": paced}}))
    app = ui_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_watch(app, pilot)
        await add(app, pilot, screen, " ".join(str(19000001 + n) for n in range(12)))

        async def until_said(words: str, where: str = "#watch-roster") -> None:
            for _ in range(150):
                if words in text(screen, where):
                    return
                await pilot.pause(0.02)
            raise AssertionError(f"{words!r} not in {text(screen, where)!r}")

        await pilot.press("escape", "f5")
        await until_said("(running)")
        # The counts are the progress line's, live; none stand still above it (QA).
        assert " read" not in text(screen, "#watch-roster")
        await until_said("Checking: ", "#watch-status")
        await pilot.press("f6")
        await until_said("(stopped)")
        await pilot.press("f5")  # carried on
        await until_said("(running)")
        await pilot.press("f6")
        await until_said("(stopped)")


async def test_a_running_checks_findings_show_as_it_goes(ui_app):
    """QA: while a check counted findings ("Checking: 4 of 6 read · 6 findings"), the table
    under it said "No findings in what was read, but the check is incomplete", and the
    chart 0 of every kind, until the check ended."""
    from tui_app.config import Environment, default_config, save_config

    paced = Environment(embedded=True, watch_rate=1)  # a record a second: time to look
    save_config(default_config().model_copy(update={"environments": {"sandbox": paced}}))
    app = ui_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_watch(app, pilot)
        await pilot.press("f7")  # the demo roster, whose producers have findings
        await wait_for(pilot, lambda: "6 producers" in text(screen, "#watch-roster"), "roster")
        await pilot.press("f5")
        await wait_for(pilot, lambda: "(running)" in text(screen, "#watch-roster"), "the check")
        shown = len(screen.findings.keys)  # those the check had when it began being shown
        said = text(screen, "#watch-findings .paged-info")
        assert shown or said.startswith("No findings yet: the check is running")

        def found() -> int:  # by the progress line
            counted = re.search(r"· ([\d,]+) findings", text(screen, "#watch-status"))
            return int(counted[1].replace(",", "")) if counted else 0

        await wait_for(pilot, lambda: found() > shown, "more findings")
        await wait_for(pilot, lambda: len(screen.findings.keys) > shown, "them in the table")
        assert "(running)" in text(screen, "#watch-roster")  # shown before the check ended
        assert re.search(r"[1-9]\d*$", text(screen, "#watch-history"), re.MULTILINE)
