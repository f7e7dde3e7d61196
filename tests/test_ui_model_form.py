"""The contract-driven form: every field of a model survives load → read back, and the
form's layout comes from the model (no bound copied by hand)."""

from __future__ import annotations

from pathlib import Path

from textual.app import App, ComposeResult
from textual.widget import Widget
from textual.widgets import Collapsible, Input, Static
from textual.widgets._collapsible import CollapsibleTitle  # not exported; Textual is pinned

from tui_app.contract.order import Order
from tui_app.contract.profile import AgencyRecord, AgentRecord
from tui_app.contract.search import AgencySearch
from tui_app.ui import app as app_module
from tui_app.ui.fields import check, describe, flatten
from tui_app.ui.widgets.model_form import ModelForm

FULL_ORDER = {
    "tlq": {
        "juris": "FL",
        "pType": "A",
        "fType": "T",
        "lType": "L",
        "clientOrderNum": "X1",
        "userId": "lic01",
        "filingMode": "P",
    },
    "data": {
        "firstName": "Pat",
        "lastName": "Officer",
        "middleInitial": "Q",
        "middleName": "Quin",
        "taxId": "000000001",
        "dateOfBirth": "01/02/1980",
        "niprNoReq": "19000002",
        "currentResidenceAddress": {
            "cResidenceAddress": "1 A St",
            "cResidenceAddressCity": "X",
            "cResidenceAddressState": "FL",
            "cResidenceAddressZip": "33101-1234",
        },
        "businessAddress": {"businessAddressLine1": "2 B St", "businessAddressState": "FL"},
        "mailingAddress": {"mailAddress1": "PO 1", "mailZip": "33101"},
        "insurerLicenseDetails": {"insurersLicenseNumber": "L1", "insLicState": "FL"},
        "insurerDetails": {"insurerCity": "Y", "insurerZip": "33102"},
        "licenseDetails": {"licenseNumber": "0K19002", "licenseState": "CA"},
        "feinNumber": "123456789",
        "cityDomicile": "Hartford",
        "insStateDomicile": "CT",
        "dateEffective": "12/31/2026",
        "naicNum": "12345",
        "authorizedSignerDetails": {
            "authorizedSignerName": "Sam Signer",
            "authorizedPersonState": "CT",
        },
        "contactName": "Chris Contact",
        "contactPhone": "5555550100",
        "officerTitle": "CEO",
        "loa": ["Life", "Casualty"],
        "domicile": {"insStateDomicile": "CT"},
        "companyCodeDetails": {"companyCodeState": "CT", "companyCode": "C1"},
        "residentStateYN": "N",
        "residentStateText": "CA",
        "ltp": "Producer",
        "ltpText": "FL",
        "pinStateFeeDetails": {"pinStateFee": "10", "pinFeeState": "FL"},
        "sponsoringCompany": "Acme Life",
        "firmName": "Sample Risk Partners LLC",
        "trm": "NFC",
        "termReasonText": "Not for cause",
        "termCauseYN": "N",
        "surplusLinesYn": "Y",
        "floridaResCty": "01",
        "floridaCountyCode": "02",
        "appCodeFl": "A1",
        "costCenter1": "C1",
        "costCenter2": "C2",
    },
}


class FormApp(App):
    def __init__(self, form: ModelForm) -> None:
        super().__init__()
        self.form = form

    def compose(self) -> ComposeResult:
        yield self.form


class StyledFormApp(FormApp):
    """With the app's stylesheet: an error line shows only while it has something to say."""

    CSS_PATH = Path(app_module.__file__).with_name("app.tcss")


async def test_every_order_field_survives_load_and_read_back():
    assert Order.model_validate(FULL_ORDER)  # the sample is a valid order
    app = FormApp(ModelForm(Order, id="f"))
    async with app.run_test(size=(100, 50)) as pilot:
        app.form.load(Order.model_validate(FULL_ORDER))
        await pilot.pause()
        assert app.form.data() == FULL_ORDER
        assert app.form.result() == Order.model_validate(FULL_ORDER)


async def test_fields_without_an_input_are_kept_from_the_loaded_record():
    record = {
        "ProfileKey": "K",
        "Tin": "000000009",
        "BusinessAddress": {
            "City": "A",
            "State": "CA",
            "StreetAddress1": "1",
            "Zip": "9",
            "DynamicData": {"region": "west"},
        },
        "Contacts": [{"ContactType": "Main", "EmailAddress": "a@b.test"}],
    }
    app = FormApp(ModelForm(AgencyRecord, id="f"))
    async with app.run_test(size=(100, 50)) as pilot:
        app.form.load(record)
        await pilot.pause()
        (await app.form.reveal("BusinessAddress.City")).value = "Fresno"
        await pilot.pause()
        data = app.form.data()
        assert data["BusinessAddress"]["DynamicData"] == {"region": "west"}
        assert data["Contacts"] == record["Contacts"]
        assert data["BusinessAddress"]["City"] == "Fresno"


async def test_a_collapsed_group_is_built_when_first_opened_keeping_values_and_errors():
    # Issue 15: an order form's collapsed groups held some 350 widgets, styled on every
    # opening of the area. Now a group's fields are built when it opens; the form's data
    # and errors cover every field all along.
    app = FormApp(ModelForm(Order, open_groups={"tlq"}, id="f"))
    wrong = {**FULL_ORDER, "data": {**FULL_ORDER["data"], "naicNum": "12X45"}}
    async with app.run_test(size=(100, 50)) as pilot:
        form = app.form
        assert form.query("#f-tlq--juris") and not form.query("#f-data--naicNum")
        form.load(wrong)
        assert form.result() is None  # a field never built is checked all the same
        assert form.error_paths() == ["data.naicNum"]
        assert form.data() == wrong
        form.query_one("#f-data-group", Collapsible).collapsed = False
        await pilot.pause()
        naic = form.query_one("#f-data--naicNum", Input)
        assert naic.value == "12X45"  # built with its value...
        error = form.query_one("#f-data--naicNum-error", Static)
        assert str(error.render()).startswith("✗")  # ...and its error
        assert form.query_one("#f-data--naicNum-box").has_class("-invalid")
        assert not form.query("#f-data--domicile--insStateDomicile")  # inner: still closed
        naic.value = "12345"
        await pilot.pause()
        assert form.errors == [] and form.data() == FULL_ORDER


async def test_focus_on_an_error_opens_the_group_that_holds_it():
    app = FormApp(ModelForm(Order, id="f"))
    wrong = {**FULL_ORDER, "data": {**FULL_ORDER["data"], "naicNum": "12X45"}}
    async with app.run_test(size=(100, 50)) as pilot:
        app.form.load(wrong)
        app.form.result()
        assert app.form.focus_first_error()
        await pilot.pause()
        assert app.focused is app.form.query_one("#f-data--naicNum", Input)
        assert not app.form.query_one("#f-data-group", Collapsible).collapsed


async def test_reveal_opens_every_group_down_to_the_field():
    app = FormApp(ModelForm(Order, id="f"))
    async with app.run_test(size=(100, 50)) as pilot:
        app.form.load(FULL_ORDER)
        field = await app.form.reveal("data.domicile.insStateDomicile")
        await pilot.pause()
        assert field.value == "CT"
        groups = [g for g in field.ancestors if isinstance(g, Collapsible)]
        assert [g.id for g in groups] == ["f-data--domicile-group", "f-data-group"]
        assert not any(g.collapsed for g in groups)


async def test_a_change_that_arrives_after_a_load_is_not_taken_for_typing():
    # Review: a field built with a value says so (Changed) a moment later; a load in
    # between made the form take that older value back, as if the user had typed it.
    app = FormApp(ModelForm(Order, id="f"))
    newer = {**FULL_ORDER, "data": {**FULL_ORDER["data"], "firstName": "Robin"}}
    async with app.run_test(size=(100, 50)) as pilot:
        app.form.load(FULL_ORDER)
        field = await app.form.reveal("data.firstName")
        app.form.load(newer)
        field.post_message(Input.Changed(field, "Pat"))  # what it said when built
        await pilot.pause()
        assert field.value == "Robin"
        assert app.form.data() == newer


async def test_a_choice_loaded_from_elsewhere_that_is_not_a_choice_is_shown_and_flagged():
    # A service's EmpStatus 7099 (not 7040 or 7041) crashed the form (an invalid Select
    # value); now it shows as it came, with the contract's error, and nothing is lost.
    app = FormApp(ModelForm(AgentRecord, id="f"))
    record = {"ProfileKey": "K", "Ssn": "000121234", "Demographic": {"EmpStatus": 7099}}
    valid = {**record, "Demographic": {"EmpStatus": 7040}}
    async with app.run_test(size=(100, 50)) as pilot:
        for first in (valid, record):  # the field built before the odd value, or with it
            app.form.load(first)
            select = await app.form.reveal("Demographic.EmpStatus")
            app.form.load(record)
            await pilot.pause()
            assert app.form.result() is None
            assert select.value == "7099"
            label = select.query_one("SelectCurrent #label", Static)
            assert str(label.render()) == "7099 (not one of the choices)"
        assert "Demographic.EmpStatus" in app.form.error_paths()
        assert app.form.data()["Demographic"]["EmpStatus"] == "7099"  # as a choice reads


def test_layout_comes_from_the_model():
    specs = {s.path: s for s in flatten(describe(Order))}
    assert specs["tlq.juris"].required and specs["data.middleName"].hint == "up to 30 characters"
    assert specs["data.taxId"].hint == "9 to 12 digits"
    # Short enough for the field (QA: "up to 20 characters, letters and" at 120 columns).
    assert specs["tlq.clientOrderNum"].hint == "up to 20 letters and digits"
    assert specs["data.feinNumber"].hint == "exactly 9 digits"  # was "9 to 80 characters, …"
    firm = {s.path: s for s in flatten(describe(AgencySearch))}
    assert firm["FirmFein"].hint == "up to 12 digits and hyphens"
    assert specs["tlq.pType"].choices == ("I", "A")
    assert specs["tlq.pType"].labels == ("I — individual", "A — agency")
    assert specs["data.loa"].kind == "list"
    assert len(specs) == len({s.path for s in specs.values()}) == 80


async def test_warnings_show_on_their_field_and_never_block_a_submit():
    # Issue 10, item 5: habits beyond the spec warn (⚠) and the form still submits.
    app = FormApp(ModelForm(Order, id="f"))
    odd = {
        **FULL_ORDER,
        "data": {
            **FULL_ORDER["data"],
            "contactPhone": "555-0100",
            "dateOfBirth": "31/01/1980",
            "mailingAddress": {"mailState": "XX", "mailZip": "SW1A"},
        },
    }
    async with app.run_test(size=(100, 50)) as pilot:
        app.form.load(odd)
        await pilot.pause()
        order = app.form.result()
        await pilot.pause()
        assert order is not None and order.data.contactPhone == "555-0100"
        assert app.form.errors == []
        assert set(app.form.warning_paths()) == {
            "data.contactPhone",
            "data.dateOfBirth",
            "data.mailingAddress.mailState",
            "data.mailingAddress.mailZip",
        }
        await app.form.reveal("data.contactPhone")
        line = app.form.query_one("#f-data--contactPhone-error")
        assert str(line.render()) == "⚠ is usually digits only"
        assert line.has_class("-warning") and line.has_class("-shown")
        assert not app.form.query_one("#f-data--contactPhone-box").has_class("-invalid")


async def test_a_character_xml_cannot_carry_is_flagged_on_its_field():
    # Issue 13, item 4: the sandbox refuses such a value with a 400 naming the field; the
    # form says so before anything is sent.
    app = FormApp(ModelForm(Order, id="f"))
    odd = {**FULL_ORDER, "data": {**FULL_ORDER["data"], "lastName": "Lane\x01"}}
    async with app.run_test(size=(100, 50)) as pilot:
        app.form.load(odd)
        await pilot.pause()
        app.form.result()
        await pilot.pause()
        assert "data.lastName" in app.form.warning_paths()
        await app.form.reveal("data.lastName")
        line = app.form.query_one("#f-data--lastName-error")
        assert "a character XML cannot carry ('\\x01')" in str(line.render())


def test_agency_status_is_a_picker_like_agent_emp_status():
    """Both take 7040 (Active) or 7041 (InActive): neither is a free number to type."""
    specs = {s.path: s for model in (AgentRecord, AgencyRecord) for s in flatten(describe(model))}
    for path in ("Demographic.EmpStatus", "Demographic.Status"):
        assert specs[path].kind == "choice" and specs[path].choices == ("7040", "7041")
    assert specs["Demographic.Status"].labels == ("7040 — Active", "7041 — InActive")
    record, errors = check(
        AgencyRecord,
        {
            "ProfileKey": "A-1",
            "Tin": "000000001",
            "Demographic": {"FirmName": "Sample", "Status": "7041"},
        },
        {"format": "xml"},
    )
    assert errors == [] and record.Demographic.Status == 7041  # written as the spec's integer


async def test_typing_in_a_field_whose_error_changes_lays_out_only_when_the_error_goes(
    monkeypatch,
):
    """Each key in the order form laid the screen out twice: the input's text width and
    its error line ("not 4", "not 5") each asked for it, some 15 ms of CPU apiece."""
    asked: list[str] = []
    refresh = Widget.refresh

    def recorded(self, *regions, layout=False, **kwargs):
        if layout:
            asked.append(type(self).__name__)
        return refresh(self, *regions, layout=layout, **kwargs)

    app = StyledFormApp(ModelForm(Order, id="f"))
    async with app.run_test(size=(100, 50)) as pilot:
        (await app.form.reveal("data.taxId")).focus()
        await pilot.press("1")
        await pilot.pause()
        line = app.form.query_one("#f-data--taxId-error")
        assert str(line.render()) == "✗ must be at least 9 characters, not 1"
        monkeypatch.setattr(Widget, "refresh", recorded)
        await pilot.press(*"2345678")
        await pilot.pause()
        assert str(line.render()) == "✗ must be at least 9 characters, not 8"
        assert asked == []
        await pilot.press("9")  # valid: the line goes, and the form closes up
        await pilot.pause()
        assert (str(line.render()), line.display) == ("", False)
        assert asked


async def test_a_group_marked_for_an_error_restyles_its_title_not_its_fields(monkeypatch):
    """The class that marks a group's title lived on the group, and each change of it
    restyled every field the group holds: the order form's Data group on the key that
    made its first error appear, and on the one that made its last go."""
    restyled: list[str] = []
    update_styles = App.update_styles

    def recorded(self, node, animate=True):
        restyled.append(type(node).__name__)
        return update_styles(self, node, animate)

    app = StyledFormApp(ModelForm(Order, id="f"))
    async with app.run_test(size=(100, 50)) as pilot:
        (await app.form.reveal("data.taxId")).focus()
        group = app.form.query_one("#f-data-group", Collapsible)
        title = group.query_one(CollapsibleTitle)
        await pilot.pause()
        monkeypatch.setattr(App, "update_styles", recorded)
        await pilot.press("1")
        await pilot.pause()
        assert "✗ 1 field to correct" in str(group.title)
        assert title.styles.text_style.bold  # marked as the stylesheet says
        await pilot.press(*"23456789")
        await pilot.pause()
        assert "to correct" not in str(group.title) and not title.styles.text_style.bold
        assert "CollapsibleTitle" in restyled  # the title, not all the group holds
        assert not {"Collapsible", "FieldGroup"} & set(restyled)
