"""Pilot tests of order entry and tracking against the embedded sandbox."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime, timedelta
from functools import partial

import pytest
from textual.widgets import Collapsible, DataTable, Input, Select, Static
from ui_support import SIZE, open_demo_agent, settle, shown, sql_on_the_loop, wait_for

from tui_app.client import factory
from tui_app.contract.order import FINAL_STATUSES, OrderResponse
from tui_app.tracking import OrderBook
from tui_app.ui.order_words import render_order
from tui_app.ui.screens import orders as orders_screen
from tui_app.ui.screens.dialogs import ConfirmScreen, PathScreen
from tui_app.ui.screens.orders import OrdersScreen
from tui_app.ui.widgets.model_form import ModelForm


class Clock:
    """The embedded sandbox's time: orders move a stage only when a test steps it."""

    STEP = timedelta(seconds=3)

    def __init__(self) -> None:
        self.now = datetime(2026, 11, 21, 9, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now

    def step(self) -> None:
        self.now += self.STEP


@pytest.fixture(autouse=True)
def clock(monkeypatch) -> Clock:
    """The sandbox's orders follow a clock the test moves (the tracking list is refreshed
    with F10 rather than waited for)."""
    clock = Clock()
    monkeypatch.setattr(
        factory,
        "start_embedded_sandbox",
        partial(
            factory.start_embedded_sandbox,
            step_seconds=Clock.STEP.total_seconds(),
            clock=clock,
        ),
    )
    return clock


async def open_orders(app, pilot) -> OrdersScreen:
    await settle(app, pilot)
    await app.switch_mode("orders")
    await settle(app, pilot)
    assert isinstance(app.screen, OrdersScreen)
    return app.screen


async def file_appointment(app, pilot) -> OrdersScreen:
    """The Orders area with APPOINTMENT filled in and filed (F5)."""
    screen = await open_orders(app, pilot)
    await fill(pilot, app, APPOINTMENT)
    await pilot.press("f5")
    await settle(app, pilot)
    return screen


async def fill(pilot, app, values: dict[str, str]) -> None:
    """Fill inputs (as a paste does: one change per field) and pick select values."""
    form = app.screen.query_one("#order-form", ModelForm)
    for path, value in values.items():
        (await form.reveal(path)).value = value
    await pilot.pause()


APPOINTMENT = {
    "tlq.juris": "CA",
    "tlq.lType": "M",
    "tlq.clientOrderNum": "APP1",
    "tlq.userId": "lic01",
    "tlq.filingMode": "E",
    "data.firstName": "Avery",
    "data.lastName": "Sample",
    "data.taxId": "000121234",
    "data.niprNoReq": "19000001",
}


def error_text(app, path: str) -> str:
    return str(app.screen.query_one(f"#f-{path.replace('.', '--')}-error", Static).render())


async def test_out_of_bounds_value_shows_at_once_and_blocks_submit(ui_app):
    app = ui_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_orders(app, pilot)
        await fill(pilot, app, APPOINTMENT)
        await pilot.click("#f-tlq--juris")
        await pilot.press("end", "L")  # typed, key by key: the error shows at once
        assert error_text(app, "tlq.juris") == "✗ must be exactly 2 characters, not 3"
        await fill(pilot, app, {"data.taxId": "1234"})
        assert "at least 9 characters" in error_text(app, "data.taxId")
        await pilot.press("f5")
        await settle(app, pilot)
        assert app.focused.id == "f-tlq--juris"  # the first bad field
        assert OrderBook().orders("sandbox") == []
        assert "press F5" in str(screen.query_one("#order-result").render())


async def test_sponsoring_company_needs_fein_and_naic(ui_app):
    app = ui_app()
    async with app.run_test(size=SIZE) as pilot:
        await open_orders(app, pilot)
        await fill(pilot, app, {**APPOINTMENT, "data.sponsoringCompany": "Acme Life"})
        rule = "✗ is required when sponsoringCompany is given"
        assert error_text(app, "data.feinNumber") == rule
        assert error_text(app, "data.naicNum") == rule
        await fill(pilot, app, {"data.feinNumber": "123456789", "data.naicNum": "12345"})
        assert error_text(app, "data.feinNumber") == ""
        assert error_text(app, "data.naicNum") == ""


async def follow_to_the_end(app, pilot, screen: OrdersScreen, clock: Clock, num: str) -> list[str]:
    """Move the sandbox's clock a stage at a time, refreshing the tracking list (F10)
    after each, until ``num`` is final; every status the list showed, in order."""
    screen.action_tab("tracking")
    table = screen.query_one("#tracked", DataTable)
    seen: list[str] = []
    for _ in range(10):
        await pilot.press("f10")
        await settle(app, pilot)
        seen.append(str(table.get_row(num)[1]))
        if seen[-1] in FINAL_STATUSES:
            return seen
        clock.step()
    raise AssertionError(f"{num} never became final: {seen}")


async def test_appointment_and_termination_are_filed_and_followed_to_the_end(ui_app, clock):
    app = ui_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await file_appointment(app, pilot)
        result = str(screen.query_one("#order-result").render())
        assert "Order APP1" in result and "Status: RECEIVED" in result
        assert "000121234" not in result  # the tax id stays masked
        seen = await follow_to_the_end(app, pilot, screen, clock, "APP1")
        # CA reviews it; APP1 is not among the few denied. Every stage is seen once.
        assert seen == ["RECEIVED", "VALIDATING", "SUBMITTED", "PENDING_STATE_REVIEW", "APPROVED"]
        table = screen.query_one("#tracked", DataTable)
        assert table.get_row_at(0)[0].plain == "APP1"
        # QA: Status stayed as wide as PENDING_STATE_REVIEW once the order was APPROVED.
        assert table.ordered_columns[1].get_render_width(table) < len("PENDING_STATE_REVIEW")

        screen.action_tab("file")
        app.screen.query_one("#ftype", Select).value = "T"
        await settle(app, pilot)
        order = list(screen.form.inputs)
        # Termination fields come first; appointment-only ones move under "more fields".
        assert order.index("data.trm") < order.index("data.sponsoringCompany")
        await fill(
            pilot,
            app,
            {
                "tlq.clientOrderNum": "TERM1",
                "data.trm": "NFC",
                "data.termReasonText": "Not for cause",
            },
        )
        await pilot.press("f5")
        await settle(app, pilot)
        seen = await follow_to_the_end(app, pilot, screen, clock, "TERM1")
        assert seen[-1] == "APPROVED"  # terminations are never denied
        nums = {o.client_order_num: o.ftype for o in OrderBook().orders("sandbox")}
        assert nums == {"APP1": "A", "TERM1": "T"}


async def test_resubmitting_an_order_number_asks_before_updating(ui_app):
    app = ui_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_orders(app, pilot)
        # A paper filing waits at PENDING_PAPER, so it can still be updated.
        await fill(pilot, app, {**APPOINTMENT, "tlq.clientOrderNum": "UPD1", "tlq.filingMode": "P"})
        await pilot.press("f5")
        await settle(app, pilot)
        await fill(pilot, app, {"data.middleName": "Q"})
        await pilot.press("f5")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen), "the question")
        await pilot.press("n")
        await settle(app, pilot)
        assert any("was not changed" in n.message for n in shown(app))
        await pilot.press("f5")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen), "the question")
        await pilot.press("y")
        await settle(app, pilot)
        result = str(screen.query_one("#order-result").render())
        assert "updated an existing order" in result
        # A newer status of it (polled while the form is shown) still says so, though the
        # service's answer need not (the minimal dialect's does not).
        screen.refresh_tracking()
        await settle(app, pilot)
        assert "updated an existing order" in str(screen.query_one("#order-result").render())


async def test_server_side_rejection_lands_on_the_field(ui_app):
    app = ui_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_orders(app, pilot)
        from tui_app.contract.errors import FieldError

        screen.form.show_errors([FieldError("data.naicNum", "unknown NAIC company code")])
        await pilot.pause()
        assert error_text(app, "data.naicNum") == "✗ unknown NAIC company code"


@pytest.mark.parametrize("suffix", [".json", ".xml"])
async def test_a_draft_is_saved_and_loaded_back(ui_app, tmp_path, suffix):
    draft = tmp_path / f"draft{suffix}"
    app = ui_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_orders(app, pilot)
        app.screen.query_one("#ptype", Select).value = "A"
        await settle(app, pilot)
        partial_order = {
            "tlq.juris": "TX",
            "tlq.clientOrderNum": "DRAFT1",
            "data.firmName": "Sample Risk Partners LLC",
            "data.loa": "Life, Casualty",
        }
        await fill(pilot, app, partial_order)
        before = screen.form.data()
        await pilot.press("f6")
        await pilot.pause()
        assert isinstance(app.screen, PathScreen)
        box = app.screen.query_one(Input)
        box.value = str(draft)
        await pilot.press("enter")
        await settle(app, pilot)
        assert draft.exists()
        if suffix == ".json":
            assert json.loads(draft.read_text())["data"]["loa"] == ["Life", "Casualty"]
        await app.switch_mode("search")
        await app.switch_mode("orders")
        app.screen.query_one("#ptype", Select).value = "I"
        await fill(pilot, app, {"tlq.juris": "NY"})
        await pilot.press("f7")
        await pilot.pause()
        app.screen.query_one(Input).value = str(draft)
        await pilot.press("enter")
        # The form holds NY, neither filed nor saved: loading over it asks first (QA:
        # a draft loaded, or a record's "a", replaced unsaved edits without a word).
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen), "the ConfirmScreen")
        question = str(app.screen.query_one(".dialog-text", Static).render())
        assert "changes neither submitted nor saved" in question
        await pilot.press("y")
        await settle(app, pilot)
        assert screen.form.data() == before
        assert app.screen.query_one("#ptype", Select).value == "A"
        assert screen.unsaved() is None  # as loaded: quitting now asks nothing


async def answer_path(app, pilot, key: str, path) -> None:
    """Press ``key`` (F6 saves, F7 loads) and give ``path`` to its dialog; what follows
    (a question, a worker) is the caller's to wait for."""
    await pilot.press(key)
    await pilot.pause()
    assert isinstance(app.screen, PathScreen)
    app.screen.query_one(Input).value = str(path)
    await pilot.press("enter")


BAD_DRAFTS = {
    "list.json": ('{"tlq": {"pType": ["I"]}, "data": "str"}',
                  "tlq.pType: must be one value, not a list; data: must be an object"),
    "kind.json": ('{"tlq": {"pType": "Z"}}', "tlq.pType: 'Z' is not one of I, A"),
    "kind.xml": ("<Order><tlq><pType>Q</pType></tlq></Order>", "tlq.pType: 'Q' is not one of"),
    "text.json": ('{"tlq": "x", "data": "y"}', "tlq: must be an object, not 'x'"),
    "deep.json": ("[" * 100_000, "nested too deeply"),
}  # fmt: skip


async def test_a_draft_of_the_wrong_shape_is_refused_by_its_paths(ui_app, tmp_path):
    """Seen: each of these drafts, loaded with F7, ended the app with a traceback."""
    app = ui_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_orders(app, pilot)
        await fill(pilot, app, {"tlq.juris": "NY"})
        before = screen.form.data()
        for name, (text, said) in BAD_DRAFTS.items():
            (tmp_path / name).write_text(text)
            await answer_path(app, pilot, "f7", tmp_path / name)
            await settle(app, pilot)
            assert app.is_running and app.screen is screen
            note = shown(app)[-1]
            assert note.severity == "error" and name in note.message and said in note.message
            assert screen.form.data() == before
            assert app.screen.query_one("#ptype", Select).value == "I"


def order_draft(tlq: dict, data: dict) -> str:
    """APPOINTMENT as a draft file's text, with ``tlq`` and ``data`` members added."""
    draft: dict = {"tlq": {"pType": "I", "fType": "A"}, "data": {}}
    for path, value in APPOINTMENT.items():
        group, name = path.split(".")
        draft[group][name] = value
    draft["tlq"] |= tlq
    draft["data"] |= data
    return json.dumps(draft)


async def test_a_draft_naming_no_field_is_refused_and_an_invalid_value_is_marked(ui_app, tmp_path):
    """Seen: a draft with misspelt members loaded "successfully", then F5 was refused
    for ever with no field marked. The CLI refuses such a file; so does the form, naming
    the members. A merely invalid value loads, marked at once; a field left empty is
    marked by F5, as in a new form."""
    typo = tmp_path / "typo.json"
    typo.write_text(order_draft({}, {"termReasonTxt": "x", "costCentre1": "y"}))
    texas = tmp_path / "texas.json"
    draft = json.loads(order_draft({"juris": "Texas"}, {}))
    del draft["data"]["lastName"]  # required, and left to fill
    texas.write_text(json.dumps(draft))
    app = ui_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_orders(app, pilot)
        await fill(pilot, app, {"tlq.juris": "NY"})
        before = screen.form.data()
        await answer_path(app, pilot, "f7", typo)
        await settle(app, pilot)
        note = shown(app)[-1]
        assert note.severity == "error"
        assert "data.termReasonTxt: is not a field of this record" in note.message
        assert "data.costCentre1: is not a field of this record" in note.message
        assert screen.form.data() == before
        await answer_path(app, pilot, "f7", texas)
        await wait_for(
            pilot, lambda: isinstance(app.screen, ConfirmScreen), "the ConfirmScreen"
        )  # the form holds NY, unsaved: loading over it asks first
        await pilot.press("y")
        await settle(app, pilot)
        # Marked as it loads (seen: nothing until F5, and no group counted it).
        note = shown(app)[-1]
        assert note.message == f"Draft loaded from {texas}; correct a field marked ✗ before filing"
        assert note.severity == "warning"
        assert error_text(app, "tlq.juris").startswith("✗ must be exactly 2 characters")
        assert app.focused.id == "f-tlq--juris"
        assert "✗ 1 field to correct" in str(
            app.screen.query_one("#f-tlq-group", Collapsible).title
        )
        assert (
            error_text(app, "data.lastName") == ""
        )  # empty: waits to be touched, as in a new form
        await pilot.press("f5")
        await settle(app, pilot)
        assert error_text(app, "tlq.juris").startswith("✗ must be exactly 2 characters")
        assert error_text(app, "data.lastName").startswith("✗")  # required: marked by F5
        assert app.focused.id == "f-tlq--juris"
        assert OrderBook().orders("sandbox") == []


async def test_saving_a_draft_over_a_file_asks_first(ui_app, tmp_path):
    """Seen: F6 onto an existing file replaced it without a word."""
    draft = tmp_path / "precious.json"
    draft.write_text('{"precious": true}')
    app = ui_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_orders(app, pilot)
        await fill(pilot, app, {"tlq.juris": "NY"})
        for answer in ("n", "y"):
            await answer_path(app, pilot, "f6", draft)
            await pilot.pause()  # the saving worker waits for the answer: no settle here
            assert isinstance(app.screen, ConfirmScreen)
            assert f"{draft} already exists. Replace?" in app.screen.question
            await pilot.press(answer)
            await settle(app, pilot)
            assert app.screen is screen
            if answer == "n":  # said so (seen: nothing on screen after "No")
                assert draft.read_text() == '{"precious": true}'
                assert shown(app)[-1].message == f"Not saved: {draft} is left as it was."
        assert json.loads(draft.read_text())["tlq"]["juris"] == "NY"
        assert draft.stat().st_mode & 0o777 == 0o600


async def test_a_draft_named_neither_json_nor_xml_is_refused(ui_app, tmp_path):
    """Seen: the dialog says ".json or .xml", yet notes.txt was saved (as JSON)."""
    draft = tmp_path / "notes.txt"
    draft.write_text("my notes")
    app = ui_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_orders(app, pilot)
        await answer_path(app, pilot, "f6", draft)
        await pilot.pause()
        assert app.screen is screen  # not asked whether to replace it: refused at once
        await settle(app, pilot)
        assert draft.read_text() == "my notes"
        note = shown(app)[-1]
        assert note.severity == "error"
        assert note.message == f"Cannot use {draft}: a draft is a .json or an .xml file"


async def test_appoint_from_a_record_prefills_the_form(ui_app):
    app = ui_app()
    async with app.run_test(size=SIZE) as pilot:
        await open_demo_agent(app, pilot)
        await pilot.press("a")
        await settle(app, pilot)
        assert app.current_mode == "orders"
        data = app.screen.form.data()
        assert data["tlq"] == {"pType": "I", "fType": "A", "juris": "CA"}
        assert data["data"]["taxId"] == "000121234"
        assert data["data"]["niprNoReq"] == "19000001"
        tax = app.screen.query_one("#f-data--taxId", Input)
        assert tax.password  # masked on screen until revealed
        await pilot.press("ctrl+r")
        await pilot.pause()
        assert not tax.password


async def test_lookup_of_any_order_by_number(ui_app):
    app = ui_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_orders(app, pilot)
        client = await app.client()
        await client.submit_order(
            {
                "tlq": {
                    "juris": "TX",
                    "pType": "I",
                    "fType": "A",
                    "lType": "M",
                    "clientOrderNum": "ELSEWHERE1",
                    "userId": "other",
                    "filingMode": "E",
                },
                "data": {"firstName": "Kim", "lastName": "Lee", "taxId": "000450001"},
            }
        )
        screen.action_tab("tracking")
        await pilot.pause()
        await pilot.click("#lookup")
        screen.query_one("#lookup", Input).value = "ELSEWHERE1"
        await pilot.press("enter")
        await settle(app, pilot)
        assert "Order ELSEWHERE1" in str(screen.query_one("#tracked-detail").render())
        await pilot.click("#lookup")
        screen.query_one("#lookup", Input).value = "NOPE"
        await pilot.press("enter")
        await settle(app, pilot)
        assert "no order" in str(screen.query_one("#tracked-detail").render()).lower()
        assert "letters and digits" not in str(screen.query_one("#tracked-detail").render())
        # QA: "bad num!" was looked up as if an order could have it.
        screen.query_one("#lookup", Input).value = "bad num!"
        await pilot.press("enter")
        await settle(app, pilot)
        assert str(screen.query_one("#tracked-detail").render()).endswith(
            "; bad num! is not letters and digits only, as a clientOrderNum is: it can find no"
            " order"
        )
        # QA: "Please correct: order_num: must be at most 20 characters, not 29".
        screen.query_one("#lookup", Input).value = "X" * 29
        await pilot.press("enter")
        await settle(app, pilot)
        assert str(screen.query_one("#tracked-detail").render()) == (
            f"{'X' * 29} is not a client order number: must be at most 20 characters, not 29"
        )


async def test_the_tracking_list_polls_only_while_its_area_is_shown(ui_app, monkeypatch):
    monkeypatch.setattr(orders_screen, "REFRESH_EVERY", 0.02)
    app = ui_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await file_appointment(app, pilot)
        client = await app.client()
        asked: list[str] = []
        order_status = client.order_status

        async def counted(num: str):
            asked.append(num)
            return await order_status(num)

        monkeypatch.setattr(client, "order_status", counted)
        screen.action_tab("tracking")
        await app.switch_mode("search")  # the list stays the open tab, out of sight
        await settle(app, pilot)  # a poll begun while the area was shown may end now
        asked.clear()
        await pilot.pause(0.2)  # ten ticks
        assert asked == []
        await app.switch_mode("orders")
        await wait_for(pilot, lambda: asked, "a lookup")
        assert asked[0] == "APP1"


async def test_a_double_press_opens_one_file_dialog(ui_app):
    app = ui_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_orders(app, pilot)
        # Both presses reach the screen before the first dialog is up.
        screen.action_save_draft()
        screen.action_save_draft()
        await pilot.pause()
        assert [type(s) for s in app.screen_stack].count(PathScreen) == 1
        await pilot.press("escape")
        await settle(app, pilot)
        assert app.screen is screen


async def test_a_tracking_refresh_that_outlives_the_list_ends_quietly(ui_app, monkeypatch):
    """Closing the app removes the screen's widgets before the screen: a refresh whose
    status answer arrived in between looked for them and raised NoMatches. The screen
    now stops its work first."""
    app = ui_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await file_appointment(app, pilot)
        client = await app.client()
        tracked = screen.query_one("#tracked")
        order_status = client.order_status

        async def late(num: str):
            found = await order_status(num)
            while tracked.is_attached:  # answers once the closing app removed the list
                await asyncio.sleep(0)
            return found

        monkeypatch.setattr(client, "order_status", late)
        worker = screen.refresh_tracking()
        await pilot.pause()
    assert worker.is_cancelled  # and no NoMatches raised as the block closed the app


async def test_a_slow_lookup_says_it_is_under_way(ui_app, monkeypatch):
    """Seen: while a lookup ran, the detail pane kept the previous lookup's error."""
    app = ui_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_orders(app, pilot)
        screen.action_tab("tracking")
        screen.look_up("NOPE")
        await settle(app, pilot)
        detail = screen.query_one("#tracked-detail", Static)
        assert "no order" in str(detail.render()).lower()
        client = await app.client()
        answer = asyncio.Event()
        order_status = client.order_status

        async def slow(num: str):
            await answer.wait()
            return await order_status(num)

        monkeypatch.setattr(client, "order_status", slow)
        screen.look_up("SLOW1")
        await pilot.pause()
        assert str(detail.render()) == "Looking up order SLOW1…"
        answer.set()
        await settle(app, pilot)
        assert "Order SLOW1" in str(detail.render())


def test_status_times_are_shown_readably():
    """Seen: "since 2026-11-23T17:29:15.262029+00:00"."""
    response = OrderResponse.model_validate(
        {
            "order": {
                "orderDetails": {
                    "clientOrderNum": "APP1",
                    "status": "RECEIVED",
                    "statusDate": "2026-11-23T17:29:15.262029+00:00",
                    "notes": [
                        {"at": "2026-11-23T12:29:15-05:00", "stage": "intake", "text": "ok"},
                        {
                            "at": "2026-11-23T12:30:00-05:00",
                            "stage": "state decision",
                            "text": "approved",
                        },
                    ],
                }
            }
        }
    )
    text = render_order(response, reveal=False).plain
    assert "since 2026-11-23 17:29:15 UTC" in text
    # Stages in one column, however long one is (QA: "state decision" pushed its text).
    assert "  2026-11-23 17:29:15 UTC intake         ok\n" in text
    assert "  2026-11-23 17:30:00 UTC state decision approved\n" in text


@pytest.mark.parametrize(("ptype", "masked"), [("A", "**-***0001"), ("I", "***-**-0001")])
def test_an_agency_s_tax_id_is_masked_as_a_fein(ptype: str, masked: str):
    """QA: an agency's order showed its taxId (its FEIN) as an SSN, "***-**-0001"."""
    response = OrderResponse.model_validate(
        {"order": {"orderDetails": {"clientOrderNum": "QA1", "status": "RECEIVED"},
                   "itemDetails": {"pType": ptype, "taxId": "000000001"}}}
    )  # fmt: skip
    assert f"taxId  {masked}\n" in render_order(response, reveal=False).plain


def test_a_fee_s_amount_is_one_word_next_to_its_dollar_sign():
    """Seen: the fee wrapped "$" apart from "30.00" in a narrow panel ("$   30.00"); then
    (QA) the total still did, one column off its fees."""
    response = OrderResponse.model_validate(
        {"order": {"orderDetails": {"clientOrderNum": "APP1", "status": "RECEIVED",
                                    "totalFee": 30,
                                    "fees": [{"state": "TX", "description": "Appointment",
                                              "amount": 30}]}}}
    )  # fmt: skip
    lines = render_order(response, reveal=False).plain.splitlines()
    [fee] = [line for line in lines if "Appointment" in line]
    [total] = [line for line in lines if line.strip().startswith("total")]
    assert fee.endswith("   $30.00") and "$ " not in fee
    assert total.endswith("   $30.00") and "$ " not in total and len(total) == len(fee)


async def test_a_field_in_error_moved_under_more_fields_is_opened_on_submit(ui_app):
    """Seen (QA): sponsoringCompany left feinNumber required; switched to Termination,
    feinNumber moved under "more fields", and F5 ended the app with a KeyError while
    focusing it (a field's groups were found by its path, and no prefix names "more")."""
    app = ui_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_orders(app, pilot)
        await fill(pilot, app, {**APPOINTMENT, "data.sponsoringCompany": "Acme"})
        app.screen.query_one("#ftype", Select).value = "T"
        await settle(app, pilot)
        await pilot.press("f5")
        await settle(app, pilot)
        assert app.is_running and app.screen is screen
        assert app.focused is not None and app.focused.id == "f-data--feinNumber"


async def test_a_damaged_order_book_is_said_and_orders_are_still_filed(ui_app):
    """Found by a CLI QA pass: a garbage orders.db; opening the Orders area raised
    sqlite3.DatabaseError and ended the app."""
    from tui_app.config import data_dir

    damaged = data_dir() / "orders.db"
    damaged.write_text("garbage")
    app = ui_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await file_appointment(app, pilot)
        problem = next(n for n in shown(app) if n.title == "Order book")
        assert problem.severity == "error"
        assert problem.message.startswith(f"cannot use the order book {damaged}: file is not a")
        assert problem.message.endswith("Orders filed now are followed until you quit.")
        filed = await screen.book.call(OrderBook.orders, "sandbox")
        assert [o.client_order_num for o in filed] == ["APP1"]
    assert damaged.read_text() == "garbage"


async def test_no_order_book_call_runs_on_the_event_loop(ui_app, clock, monkeypatch):
    """Issue 15, item 1: the Orders area opened, read and wrote the order book on the
    loop's thread (filing, the tracking list, a refresh, a lookup), where a lock held by
    another producer-tui (busy_timeout: 10 s) would freeze every key."""
    on_loop = sql_on_the_loop(monkeypatch, "orders.db")
    app = ui_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await file_appointment(app, pilot)  # files, records, lists
        seen = await follow_to_the_end(app, pilot, screen, clock, "APP1")  # F10 refreshes
        await pilot.click("#lookup")
        screen.query_one("#lookup", Input).value = "APP1"
        await pilot.press("enter")
        await settle(app, pilot)
        assert "Order APP1" in str(screen.query_one("#tracked-detail").render())
        assert seen[-1] == "APPROVED"
        await pilot.press("f8", "f5")  # filing it again (from the form) asks first
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen), "the question")
        await pilot.press("n")
        await settle(app, pilot)
    assert on_loop == []


def test_the_states_of_an_order_say_what_they_take():
    """QA: juris (and every state of the order) showed an empty field where the fields
    around it say their bounds ("up to 20 letters and digits")."""
    from tui_app.contract.order import Order
    from tui_app.ui.fields import describe, flatten

    hints = {s.path: s.hint for s in flatten(describe(Order))}
    assert hints["tlq.juris"] == "2 letters, such as CA"
    assert hints["data.mailingAddress.mailState"] == "a state code such as CA"


async def test_updating_a_final_order_says_it_starts_again(ui_app, clock):
    """QA: filing again the number of an APPROVED order asked only "Update it?"; the update
    put it back to RECEIVED ("it was APPROVED, a final status")."""
    app = ui_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await file_appointment(app, pilot)
        assert (await follow_to_the_end(app, pilot, screen, clock, "APP1"))[-1] == "APPROVED"
        await pilot.press("f8", "f5")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen), "the question")
        assert "is APPROVED, a final status" in app.screen.question
        assert "starts its processing again" in app.screen.question
        await pilot.press("n")
        await settle(app, pilot)


async def test_the_form_s_keys_act_only_while_the_form_is_in_view(ui_app):
    """QA: F5 on the Tracking tab (a refresh key in many tools) filed the hidden form."""
    app = ui_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_orders(app, pilot)
        await fill(pilot, app, APPOINTMENT)  # a valid order, not filed
        await pilot.press("f9")
        await settle(app, pilot)
        offered = {b.binding.id for b in app.screen.active_bindings.values()}
        assert "orders.refresh" in offered and "orders.submit" not in offered
        await pilot.press("f5", "f6")
        await settle(app, pilot)
        assert isinstance(app.screen, OrdersScreen)  # no dialog, no draft to save
        assert await screen.book.call(OrderBook.orders, "sandbox") == []
        await pilot.press("f8", "f5")  # on the form, F5 files it
        await settle(app, pilot)
        filed = await screen.book.call(OrderBook.orders, "sandbox")
        assert [o.client_order_num for o in filed] == ["APP1"]


async def test_the_tracking_detail_follows_the_cursor_and_the_cursor_its_order(ui_app, clock):
    """QA: Enter on one order, then Down: the detail still showed the first (REJECTED,
    final) beside the other highlighted; and a newly filed order moved the cursor onto
    another order, as it kept its row number."""
    app = ui_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await file_appointment(app, pilot)
        await fill(pilot, app, {"tlq.clientOrderNum": "APP2", "tlq.juris": "NY"})
        await pilot.press("f5")
        await settle(app, pilot)
        await pilot.press("f9")
        await settle(app, pilot)
        table = screen.query_one("#tracked", DataTable)
        detail = screen.query_one("#tracked-detail", Static)
        row = table.cursor_row
        first, second = (str(table.get_row_at(r)[0]) for r in (row, 1 - row))
        await pilot.press("enter")
        await settle(app, pilot)
        assert f"Order {first}" in str(detail.render())
        await pilot.press("down" if row == 0 else "up")
        await wait_for(pilot, lambda: f"Order {second}" in str(detail.render()), "the detail")
        assert f"Order {first}" not in str(detail.render())
        # A third order is filed: the cursor stays on the order it was on.
        screen.action_tab("file")
        await fill(pilot, app, {"tlq.clientOrderNum": "APP3", "tlq.juris": "TX"})
        await pilot.press("f5")
        await settle(app, pilot)
        assert table.row_count == 3
        assert str(table.get_row_at(table.cursor_row)[0]) == second


async def test_the_status_under_the_form_follows_the_order(ui_app, clock, monkeypatch):
    """QA: filed and left on the form, the order said RECEIVED a minute after the service
    had decided it: only the tracking tab was kept up to date."""
    monkeypatch.setattr(orders_screen, "REFRESH_EVERY", 0.05)
    app = ui_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await file_appointment(app, pilot)
        result = screen.query_one("#order-result", Static)
        assert "RECEIVED" in str(result.render())
        for _ in range(6):
            clock.step()
        await wait_for(
            pilot,
            lambda: any(status in str(result.render()) for status in FINAL_STATUSES),
            "a final status under the form",
        )
        assert screen.query_one("#order-tabs").active == "file"
        await settle(app, pilot)


async def test_the_order_panels_follow_a_reveal_and_a_mask(ui_app):
    """An order filed while personal data was shown kept showing the SSN after Ctrl+R
    masked it again (the panels were drawn only when an answer came)."""
    app = ui_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_orders(app, pilot)
        await pilot.press("ctrl+r")  # shown
        await fill(pilot, app, {**APPOINTMENT, "tlq.filingMode": "P"})  # stays PENDING
        await pilot.press("f5")
        await settle(app, pilot)
        result = screen.query_one("#order-result", Static)
        assert "000121234" in str(result.render())
        await pilot.press("ctrl+r")  # masked again
        await pilot.pause()
        assert "000121234" not in str(result.render())
        assert "***-**-1234" in str(result.render())


async def test_moving_between_fields_does_not_search_the_screen_for_the_tabs(ui_app):
    """On every focus move the footer asks the screen whether each of its keys can act,
    and the screen looked its tabs up with a query: 36 walks of the whole screen (some
    1,000 widgets) for four Tabs between fields, half the CPU of each key."""
    app = ui_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_orders(app, pilot)
        (await screen.form.reveal("tlq.clientOrderNum")).focus()
        await settle(app, pilot)
        queries: list[tuple] = []
        query = screen.query

        def counted(*args, **kwargs):
            queries.append(args)
            return query(*args, **kwargs)

        screen.query = counted  # type: ignore[method-assign]
        await pilot.press("tab", "tab", "shift+tab", "shift+tab")
        await settle(app, pilot)
        assert queries == []
        assert app.focused is await screen.form.reveal("tlq.clientOrderNum")
        # The form's keys still follow the tab in view.
        assert screen.check_action("submit", ())
        screen.action_tab("tracking")
        await settle(app, pilot)
        assert not screen.check_action("submit", ())
