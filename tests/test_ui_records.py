"""Issue 10, item 1: a record is shown whatever members it carries. Known members go in
their tabs; every other member is in the "More" tab's keyboard-browsable tree, with
personal data masked there too."""

from __future__ import annotations

import re

from textual.widgets import DataTable, TabbedContent, Tree
from ui_support import SIZE, settle

from tui_app.contract.record import FullRecordResponse
from tui_app.ui.screens.record import RecordScreen, unshown_members

NIPR_SHAPED = {
    "NiprFullInfo": {
        "TransactionType": {"Type": "Entity Info"},
        "Producer": {"NPN": "5"},
        "Biographic": {
            "FirstName": "Ava",
            "LastName": "Stranger",
            "TaxId": "900112222",
            "BirthDate": "1980-01-31",
            "SocialSecurityNumber": "000121234",
            "FeinNumber": "123456789",
        },
        "AddressInfo": {"Addresses": [{"Line1": "1 Main", "AddressTypeCode": "BUS"}]},
        "LicenseData": {
            "Licenses": [
                {
                    "LicenseNumber": "L1",
                    "ExpirationDate": "2001-01-01",
                    "LOAs": {"LOA": ["Life", "Health"]},
                    "RegulatoryActions": [{"Origin": "CA", "ReferenceNumber": "R9"}],
                }
            ]
        },
        "Regulator": "NIPR",
    }
}


def labels(node) -> list[str]:
    out = [str(node.label)]
    for child in node.children:
        out += labels(child)
    return out


def test_every_member_the_tabs_do_not_show_is_listed():
    info = FullRecordResponse.model_validate(NIPR_SHAPED).NiprFullInfo
    paths = [path for path, _ in unshown_members(info)]
    assert paths == [
        "TransactionType",
        "Producer.NPN",
        "Biographic.TaxId",
        "Biographic.BirthDate",
        "Biographic.SocialSecurityNumber",
        "Biographic.FeinNumber",
        "AddressInfo.Addresses[0].AddressTypeCode",
        "LicenseData.Licenses[0].RegulatoryActions[0].ReferenceNumber",
        "LicenseData.Licenses[0].LOAs",
        "Regulator",
    ]


class FakeClient:
    async def get_agent(self, npn: int, cost_center=None) -> FullRecordResponse:
        return FullRecordResponse.model_validate(NIPR_SHAPED)


async def test_a_stranger_shaped_record_is_shown_whole_and_masked(ui_app):
    app = ui_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)

        async def fake_client():
            return FakeClient()

        app.client = fake_client
        await app.push_screen(RecordScreen("agent", 5))
        await settle(app, pilot)
        tree = app.screen.query_one("#more-tree", Tree)
        shown = labels(tree.root)
        assert shown[0] == "Members not shown in the other tabs: 10"
        assert "Biographic.TaxId: ***-**-2222" in shown
        assert "Biographic.BirthDate: **/**/****" in shown
        # Seen: names a service may add, unknown to the contract, were shown in clear.
        assert "Biographic.SocialSecurityNumber: ***-**-1234" in shown
        assert "Biographic.FeinNumber: **-***6789" in shown
        assert "Regulator: NIPR" in shown and "[1]: Health" in shown
        raw = app.screen.query_one("#raw-text").text
        assert not {"900112222", "000121234", "123456789", "1980-01-31"} & set(raw.split('"'))
        app.screen.query_one("#record-tabs", TabbedContent).active = "more"
        await pilot.pause()
        tree.focus()
        await pilot.press("down", "down")
        assert tree.cursor_line == 2
        await pilot.press("v")
        await settle(app, pilot)
        assert "Biographic.TaxId: 900112222" in labels(tree.root)
        # the tabs still show what they know, and the old license reads as expired
        assert "Stranger" in str(app.screen.query_one("#record-title").render())
        licenses = app.screen.query_one("#licenses-table")
        assert licenses.get_row_at(0)[2].plain.startswith("EXPIRED")


async def test_the_sandbox_record_lists_its_other_members_in_either_dialect(
    ui_app, sandbox_dialect
):
    app = ui_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await app.push_screen(RecordScreen("agent", 19000001))
        await settle(app, pilot)
        shown = labels(app.screen.query_one("#more-tree", Tree).root)
        if sandbox_dialect == "minimal":
            assert any(s.startswith("NiprFullInfo") or s.startswith("ReportSource") for s in shown)
            assert any(s.startswith("LicenseData.Licenses[0].LicenseStatusCode") for s in shown)
        else:
            assert any(s.startswith("TransactionType") for s in shown)
        assert "Avery Quinn Sample" in str(app.screen.query_one("#record-title").render())


async def test_an_appointments_status_and_dates_show_on_an_80_column_terminal(ui_app):
    """Seen: at 80 columns the Appointments tab showed State, Company, FEIN, NAIC and Line:
    whether an appointment was active, and since when, was off the screen."""
    app = ui_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        await app.push_screen(RecordScreen("agent", 19000001))
        await settle(app, pilot)
        app.screen.query_one("#record-tabs", TabbedContent).active = "appointments"
        await settle(app, pilot)
        table = app.screen.query_one("#appointments-table", DataTable)
        shown, right = [], 0  # the columns wholly on screen, left to right
        for column in table.columns.values():
            right += column.get_render_width(table)
            if right <= table.size.width:
                shown.append(str(column.label))
        assert shown[:4] == ["State", "Company", "Line", "Status"]  # its dates come next
        rows = [[str(cell) for cell in table.get_row_at(n)] for n in range(table.row_count)]
        assert any(row[3] == "Terminated" for row in rows)
        assert all("*" in row[-1] for row in rows)  # the carrier's FEIN, masked


async def test_the_record_says_when_it_was_updated_as_other_times_are_said(ui_app):
    """QA: "Last updated  2026-11-21T09:30:00+00:00", raw ISO, where every other time of
    the app reads "2026-11-21 09:30 UTC"."""
    app = ui_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await app.push_screen(RecordScreen("agent", 19000001))
        await settle(app, pilot)
        overview = str(app.screen.query_one("#overview-text").render())
        [updated] = [line for line in overview.splitlines() if "Last updated" in line]
        assert re.search(r"Last updated +\d{4}-\d\d-\d\d \d\d:\d\d UTC$", updated), updated
