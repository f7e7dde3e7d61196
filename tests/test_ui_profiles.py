"""Pilot tests of the profile editor against the embedded sandbox: create and import
agents and agencies, open one through export and import it back without losing a field,
show the service's validations on the fields they name, save and load files."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

import httpx
import pytest
from textual.widgets import Collapsible, Input, Select, Static
from textual.widgets._collapsible import CollapsibleTitle
from ui_support import SIZE, quit_asks, settle, shown

from tui_app.client.registry import RegistryClient, RetryPolicy
from tui_app.config import GROUPS
from tui_app.contract.bulk import BulkItem
from tui_app.contract.profile import AgencyRecord, AgentRecord, ImportResult
from tui_app.contract.profile_sets import PROFILE_DATA_SETS, record_from_data_sets
from tui_app.ui.scenes import DEMO_AGENT
from tui_app.ui.screens.dialogs import ConfirmScreen, PathScreen
from tui_app.ui.screens.profiles import ProfilesScreen
from tui_app.ui.widgets.model_form import ModelForm, widget_id
from tui_app.wire.xml import load_xml

NEW_AGENT = {
    "ProfileKey": "NEW-1", "Ssn": "000450001",
    "BusinessAddress.StreetAddress1": "1 Main St", "BusinessAddress.City": "Austin",
    "BusinessAddress.State": "TX", "BusinessAddress.Zip": "73301",
    "Demographic.EmpStatus": "7040", "Demographic.FirstName": "Kim",
    "Demographic.LastName": "Lee", "CurrentEmployment.EmployerName": "Lone Star Life",
    "CurrentEmployment.JobTitle": "Agent", "CurrentEmployment.HireDate": "2024-01-02T00:00:00",
}  # fmt: skip


async def open_profiles(app, pilot) -> ProfilesScreen:
    await settle(app, pilot)
    await app.switch_mode("profiles")
    await settle(app, pilot)
    assert isinstance(app.screen, ProfilesScreen)
    return app.screen


async def fill(pilot, form: ModelForm, values: dict[str, str]) -> None:
    """Fill inputs and pick select values (as a paste does: one change per field)."""
    for path, value in values.items():
        (await form.reveal(path)).value = value
    await pilot.pause()


async def set_kind(app, pilot, kind: str) -> None:
    app.screen.query_one("#profile-kind", Select).value = kind
    await settle(app, pilot)


async def answer_path(app, pilot, key: str, path, *, asked: bool = False) -> None:
    """Press ``key`` and answer the path dialog; ``asked``: a question follows (whether
    to replace the file), and the worker waits for its answer, so wait for no work."""
    await pilot.press(key)
    await pilot.pause()
    assert isinstance(app.screen, PathScreen)
    app.screen.query_one(Input).value = str(path)
    await pilot.press("enter")
    if asked:
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
    else:
        await settle(app, pilot)


def text_of(screen, selector: str) -> str:
    return str(screen.query_one(selector, Static).render())


def error_text(form: ModelForm, path: str) -> str:
    return str(form.query_one(f"#{widget_id(path)}-error", Static).render())


def notes(app) -> list[str]:
    return [n.message for n in shown(app)]


async def stored(app, kind: str, key: str):
    """The profile as the service has it, read back through export."""
    client = await app.client()
    export = await getattr(client, f"export_{kind}")(
        {"profileKey": key, "dataSets": list(PROFILE_DATA_SETS[kind])}
    )
    return record_from_data_sets(kind, export.dataSets or [])


async def test_a_new_agent_is_filled_in_and_imported(ui_app):
    app = ui_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_profiles(app, pilot)
        await fill(pilot, screen.editor.form, NEW_AGENT)
        await pilot.press("f5")
        await settle(app, pilot)
        result = text_of(screen, "#profile-result")
        assert "✓ Imported" in result and "created agent profile NEW-1" in result
        record = await stored(app, "agent", "NEW-1")
        assert record.Demographic.FirstName == "Kim"
        assert record.BusinessAddress.City == "Austin"
        assert record.CurrentEmployment.HireDate == "2024-01-02T00:00:00"


async def test_a_new_agency_with_contacts_added_and_removed_is_imported(ui_app):
    app = ui_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_profiles(app, pilot)
        await set_kind(app, pilot, "agency")
        await fill(
            pilot,
            screen.editor.form,
            {
                "ProfileKey": "FIRM-9",
                "Tin": "000000009",
                "Demographic.FirmName": "Nine Partners LLC",
                "Demographic.Status": "7040",
            },
        )
        for contact_type in ("Billing", "Compliance", "Mistake"):
            await pilot.press("f8")
            await settle(app, pilot)
            form = screen.editor.contacts.forms[-1]
            assert app.focused is form.query_one("#f-ContactType")  # ready to type
            await fill(
                pilot,
                form,
                {
                    "ContactType": contact_type,
                    "EmailAddress": f"{contact_type.lower()}@example.test",
                },
            )
        screen.editor.form.query_one("#f-ProfileKey", Input).focus()
        await pilot.press("f9")  # in no contact: none goes (the last one did, unseen)
        await settle(app, pilot)
        assert len(screen.editor.contacts.forms) == 3
        assert "Put the cursor in the contact to remove" in notes(app)[-1]
        screen.editor.contacts.forms[-1].query_one("#f-EmailAddress", Input).focus()
        await pilot.press("f9")  # removes the contact being edited: the third
        await settle(app, pilot)
        titles = [str(c.title) for c in screen.editor.contacts.query(Collapsible)]
        assert titles == [
            "Contact 1: Billing · billing@example.test",
            "Contact 2: Compliance · compliance@example.test",
        ]
        await pilot.press("f5")
        await settle(app, pilot)
        assert "created agency profile FIRM-9" in text_of(screen, "#profile-result")
        record = await stored(app, "agency", "FIRM-9")
        assert [(c.ContactType, c.EmailAddress) for c in record.Contacts] == [
            ("Billing", "billing@example.test"),
            ("Compliance", "compliance@example.test"),
        ]
        assert record.Demographic.Status == 7040


async def test_an_opened_profile_round_trips_without_losing_a_field(ui_app):
    app = ui_app()
    async with app.run_test(size=SIZE) as pilot:
        client = await app.client()
        assert (await client.import_agent(DEMO_AGENT)).Success
        before = await stored(app, "agent", "AQS-1001")
        screen = await open_profiles(app, pilot)
        await fill(pilot, screen.editor.form, {"ProfileKey": "AQS-1001"})
        await pilot.press("f2")
        await settle(app, pilot)
        assert screen.editor.data() == before.model_dump(mode="json", exclude_none=True)
        last_name = await screen.editor.form.reveal("Demographic.LastName")
        last_name.value = "Sample-Quinn"
        await pilot.press("f5")
        await settle(app, pilot)
        assert "updated agent profile AQS-1001" in text_of(screen, "#profile-result")
        after = await stored(app, "agent", "AQS-1001")
        assert after.Demographic.LastName == "Sample-Quinn"
        # Every other field, DynamicData included, is as it was.
        changed = before.model_copy(
            update={
                "Demographic": before.Demographic.model_copy(update={"LastName": "Sample-Quinn"})
            }
        )
        assert after == changed
        assert after.BusinessAddress.DynamicData == {"Branch": "West", "Desk": "7"}


async def test_a_profile_opened_with_another_ssn_is_not_loaded(ui_app):
    app = ui_app()
    async with app.run_test(size=SIZE) as pilot:
        await (await app.client()).import_agent(DEMO_AGENT)
        screen = await open_profiles(app, pilot)
        await fill(pilot, screen.editor.form, {"ProfileKey": "AQS-1001", "Ssn": "000999999"})
        await pilot.press("f2")
        await settle(app, pilot)
        assert "has another Ssn" in notes(app)[-1]
        assert screen.editor.form.data() == {"ProfileKey": "AQS-1001", "Ssn": "000999999"}


async def test_the_service_refusal_of_a_new_agent_without_demographic_is_shown(ui_app):
    app = ui_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_profiles(app, pilot)
        await fill(
            pilot,
            screen.editor.form,
            {k: v for k, v in NEW_AGENT.items() if not k.startswith("Demographic")},
        )
        await pilot.press("f5")
        await settle(app, pilot)
        result = text_of(screen, "#profile-result")
        assert "✗ Not imported" in result and "Success: false" in result
        assert "Demographic: is required for a new agent profile" in result
        group = screen.query_one("#" + widget_id("Demographic") + "-group", Collapsible)
        assert group.title == "Demographic  ✗ is required for a new agent profile"
        assert group.invalid and not group.collapsed
        assert app.focused is screen.editor.form.query_one("#" + widget_id("Demographic.EmpStatus"))
        assert "not imported" in notes(app)[-1]
        # Adding the section and importing again clears the mark.
        await fill(
            pilot,
            screen.editor.form,
            {k: v for k, v in NEW_AGENT.items() if k.startswith("Demographic")},
        )
        await pilot.press("f5")
        await settle(app, pilot)
        assert group.title == "Demographic" and not group.invalid


async def test_each_validation_of_the_service_lands_on_its_field(ui_app, monkeypatch):
    app = ui_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_profiles(app, pilot)
        await set_kind(app, pilot, "agency")
        await fill(
            pilot,
            screen.editor.form,
            {
                "ProfileKey": "FIRM-1",
                "Tin": "000000011",
                "Demographic.FirmName": "One LLC",
                "Demographic.Status": "7041",
            },
        )
        for _ in range(2):
            await pilot.press("f8")
            await settle(app, pilot)
            await fill(
                pilot,
                screen.editor.contacts.forms[-1],
                {"ContactType": "Billing", "EmailAddress": "a@example.test"},
            )

        async def refuse(record):
            return ImportResult(
                Success=False,
                Message="not imported: 3 problem(s)",
                Validations="Demographic.FirmName: does not match the registry\n"
                "Contacts[1].EmailAddress: bounced\n"
                "BusinessAddress.Zip: unknown ZIP code",
            )

        monkeypatch.setattr(await app.client(), "import_agency", refuse)
        await pilot.press("f5")
        await settle(app, pilot)
        assert error_text(screen.editor.form, "Demographic.FirmName") == (
            "✗ does not match the registry"
        )
        first, second = screen.editor.contacts.forms
        assert error_text(second, "EmailAddress") == "✗ bounced"
        assert error_text(first, "EmailAddress") == ""
        assert error_text(screen.editor.form, "BusinessAddress.Zip") == "✗ unknown ZIP code"
        # Every section the service names opens, so its error is in sight; its title
        # counts it (the message is on the field).
        business = screen.query_one("#" + widget_id("BusinessAddress") + "-group", Collapsible)
        assert not business.collapsed
        assert str(business.title) == "BusinessAddress  ✗ 1 field to correct"
        # Focus is on the first of them in the form's order.
        assert app.focused is screen.editor.form.query_one("#" + widget_id("BusinessAddress.Zip"))


async def test_the_contacts_title_counts_the_fields_to_correct_in_its_contacts(ui_app):
    """A contact's error shows on its own title and on the Contacts section's, so neither
    hides it collapsed; correcting the field clears both."""
    app = ui_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_profiles(app, pilot)
        await set_kind(app, pilot, "agency")
        await fill(pilot, screen.editor.form, {"ProfileKey": "FIRM-8", "Tin": "000000008"})
        await pilot.press("f8")
        await settle(app, pilot)
        contact = screen.editor.contacts.forms[0]
        await fill(pilot, contact, {"ContactType": "Billing"})
        await pilot.press("f5")  # refused here: the contact has no EmailAddress
        await settle(app, pilot)
        assert error_text(contact, "EmailAddress").startswith("✗")
        group = screen.query_one("#contacts-group", Collapsible)
        item = screen.editor.contacts.query_one(Collapsible)
        group.collapsed = True
        assert str(group.title) == "Contacts  ✗ 1 field to correct"
        assert group.invalid
        assert str(item.title) == "Contact 1: Billing  ✗ 1 field to correct"
        group.collapsed = False
        await fill(pilot, contact, {"EmailAddress": "billing@example.test"})
        assert (str(group.title), str(item.title)) == (
            "Contacts",
            "Contact 1: Billing · billing@example.test",
        )
        assert not group.invalid


async def test_an_agency_of_many_contacts_builds_a_contact_only_when_it_is_opened(ui_app):
    """Seen: an agency of 60 contacts took 12 s to load (300: never, 450 MB), and every
    key took half a second after: each contact's form was built whole at once. Now each
    is a closed item until opened, and what it holds still counts."""
    contacts = [
        {"ContactType": "Billing", "EmailAddress": f"c{i}@example.test", "LastName": f"L{i}"}
        for i in range(60)
    ]
    for at_fault in (49, 55):
        del contacts[at_fault]["EmailAddress"]  # required: the import is refused
    agency = {"ProfileKey": "FIRM-60", "Tin": "000000060",
              "Demographic": {"FirmName": "Sixty LLC", "Status": 7040}, "Contacts": contacts}  # fmt: skip
    app = ui_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_profiles(app, pilot)
        await screen.show_profile("agency", agency)
        await settle(app, pilot)
        listed = screen.editor.contacts
        assert len(listed.query(Collapsible)) == 60
        assert not listed.query(Input)  # no contact built yet
        assert screen.editor.data()["Contacts"] == contacts  # yet nothing is lost
        # Opened from its title (Enter), a contact is built with its values.
        screen.query_one("#contacts-group", Collapsible).collapsed = False
        item = list(listed.query(Collapsible))[36]
        assert str(item.title) == "Contact 37: Billing · L36 · c36@example.test"
        item.query_one(CollapsibleTitle).focus()
        await pilot.press("enter")
        await settle(app, pilot)
        assert listed.forms[36].query_one("#f-EmailAddress", Input).value == "c36@example.test"
        assert len(listed.query(Input)) == len(listed.forms[36].query(Input))
        # A refused import opens the contact at fault, its field in focus, even with the
        # Contacts section closed.
        screen.query_one("#contacts-group", Collapsible).collapsed = True
        await pilot.press("f5")
        await settle(app, pilot)
        at_fault = listed.forms[49]
        assert error_text(at_fault, "EmailAddress").startswith("✗")
        assert app.focused is at_fault.query_one("#f-EmailAddress")
        assert not screen.query_one("#contacts-group", Collapsible).collapsed
        titles = [str(c.title) for c in listed.query(Collapsible)]
        assert titles[49] == "Contact 50: Billing · L49  ✗ 1 field to correct"
        # The next one at fault says so closed: it is not built (all at fault were, once).
        assert titles[55] == "Contact 56: Billing · L55  ✗ 1 field to correct"
        assert [n for n, form in enumerate(listed.forms) if form.is_mounted] == [36, 49]


@pytest.mark.parametrize(
    ("status", "words"),
    [
        (400, "the envelope is broken"),
        (401, "did not accept the credentials (401)"),
        (403, "refused this action for these credentials (403)"),
        (500, "the service failed (500)"),
    ],
)
async def test_transport_and_auth_failures_become_plain_notifications(ui_app, status, words):
    def answer(request: httpx.Request) -> httpx.Response:
        return httpx.Response(status, json={"message": "the envelope is broken"})

    failing = RegistryClient(
        {g: f"http://registry.test/{g}" for g in GROUPS},
        transport=httpx.MockTransport(answer),
        retry=RetryPolicy(attempts=1),
    )
    app = ui_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_profiles(app, pilot)
        app.connection.client = failing
        await fill(pilot, screen.editor.form, NEW_AGENT)
        await pilot.press("f5")
        await settle(app, pilot)
        [note] = [n for n in shown(app) if n.title == "Not imported"]
        assert words in note.message and note.severity == "error"
        assert "press F2" in text_of(screen, "#profile-result")  # no result to show


async def test_the_preview_is_the_xml_document_masked_until_revealed(ui_app):
    app = ui_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_profiles(app, pilot)
        # Inputs only for what the XML document carries.
        inputs = screen.editor.form.inputs
        assert "Demographic.FirstName" in inputs
        for omitted in ("CurrentEmployment.City", "Demographic.JobTitle"):
            assert omitted not in inputs
        # Issue 10, item 8: an agent's PrimaryAddress is accepted in XML too (with a warning).
        assert "PrimaryAddress.City" in inputs
        await screen.show_profile("agent", DEMO_AGENT)
        await pilot.press("f4")
        await settle(app, pilot)
        preview = text_of(screen, "#profile-xml")
        assert "<Ssn>***-**-1234</Ssn>" in preview and "000121234" not in preview
        assert "<DateOfBirth>**/**/****</DateOfBirth>" in preview
        assert "<Branch>West</Branch>" in preview
        await pilot.press("ctrl+r")
        await pilot.pause()
        preview = text_of(screen, "#profile-xml")
        assert "<Ssn>000121234</Ssn>" in preview
        # The preview is the document the import sends, indented.
        body = preview[preview.index("<Agent>") : preview.index("</Agent>") + 8]
        sent = AgentRecord.model_validate(DEMO_AGENT, context={"format": "xml"})
        assert load_xml(body, AgentRecord, "Agent") == sent
        # A preview is of the form as it was (QA: stale after an edit, still "to send").
        await fill(pilot, screen.editor.form, {"Demographic.FirstName": "Avril"})
        assert "<Agent>" not in text_of(screen, "#profile-xml")
        assert "The form changed since the preview: F4" in text_of(screen, "#profile-xml")
        await pilot.press("f4")
        await settle(app, pilot)
        assert "<FirstName>Avril</FirstName>" in text_of(screen, "#profile-xml")


async def test_at_80x24_the_preview_is_brought_into_its_panel(ui_app):
    # QA: at 80x24 the panel under the form (a few rows) kept its hint in view, and F4
    # seemed to do nothing.
    app = ui_app()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_profiles(app, pilot)
        await screen.show_profile("agent", DEMO_AGENT)
        await pilot.press("f4")
        await settle(app, pilot)
        panel = screen.query_one("#profile-right")
        xml = screen.query_one("#profile-xml")
        assert "<Agent>" in text_of(screen, "#profile-xml")
        assert panel.region.height < xml.region.height  # narrow: the panel shows a part
        assert panel.region.y <= xml.region.y + 1 < panel.region.bottom  # its top, in view


async def test_an_invalid_profile_is_neither_previewed_nor_sent(ui_app):
    app = ui_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_profiles(app, pilot)
        await fill(pilot, screen.editor.form, {**NEW_AGENT, "Ssn": ""})
        await pilot.press("f5")
        await settle(app, pilot)
        assert app.focused is screen.editor.form.query_one("#" + widget_id("Ssn"))
        assert "is required" in error_text(screen.editor.form, "Ssn")
        assert "<Agent>" not in text_of(screen, "#profile-xml")
        assert "press F2" in text_of(screen, "#profile-result")


async def test_a_short_ssn_warns_on_its_field_and_is_still_imported(ui_app):
    # Issue 10, item 5: the spec says "string, required"; 9 digits is our habit.
    app = ui_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_profiles(app, pilot)
        await fill(pilot, screen.editor.form, {**NEW_AGENT, "Ssn": "12345"})
        await pilot.press("f5")
        await settle(app, pilot)
        assert error_text(screen.editor.form, "Ssn") == (
            "⚠ is usually 9 digits; it is sent as typed and the service decides"
        )
        assert "✓ Imported" in text_of(screen, "#profile-result")


BULK_AGENT = {
    **DEMO_AGENT,
    "CurrentEmployment": {**DEMO_AGENT["CurrentEmployment"], "City": "San Francisco",
                          "State": "CA", "StreetAddress1": "1 Front St", "Zip": "94111"},
    "Contact": {**DEMO_AGENT["Contact"], "DynamicData": {"Pager": "55"}},
}  # fmt: skip


async def test_values_the_xml_cannot_carry_are_kept_and_the_import_asks(ui_app, tmp_path):
    app = ui_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_profiles(app, pilot)
        await screen.show_profile("agent", BULK_AGENT)
        await pilot.pause()
        note = text_of(screen, "#profile-xml")
        assert "an import leaves out: Contact.DynamicData, CurrentEmployment.City" in note
        await pilot.press("f5")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("n")
        await settle(app, pilot)
        assert notes(app)[-1] == "Not imported."
        # The bulk line keeps them.
        line = tmp_path / "agent.ndjson"
        await answer_path(app, pilot, "f6", line)
        item = BulkItem.model_validate_json(line.read_bytes())
        assert item.data.agent == AgentRecord.model_validate(BULK_AGENT)
        # Importing anyway sends the XML document without them.
        await pilot.press("f5")
        await pilot.pause()
        await pilot.press("y")
        await settle(app, pilot)
        assert "created agent profile" in text_of(screen, "#profile-result")
        assert (await stored(app, "agent", "AQS-1001")).CurrentEmployment.City is None


async def test_a_bulk_line_needs_a_valid_bulk_record(ui_app, tmp_path):
    app = ui_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_profiles(app, pilot)
        await fill(pilot, screen.editor.form, NEW_AGENT)  # employment without its bulk address
        await answer_path(app, pilot, "f6", tmp_path / "agent.ndjson")
        assert not (tmp_path / "agent.ndjson").exists()
        assert "CurrentEmployment.City: is required" in notes(app)[-1]
        group = screen.query_one("#" + widget_id("CurrentEmployment") + "-group", Collapsible)
        assert "✗ City: is required" in str(group.title)


async def test_a_profile_is_written_off_the_event_loop(ui_app, tmp_path, monkeypatch):
    """A slow folder (a network share) must not freeze the screen while a profile is
    saved: the file is written on a thread, still 0600."""
    path = tmp_path / "agent.xml"
    writers = []
    os_open = os.open

    def spy(name, flags, *args, **kwargs):
        if name == str(path):
            writers.append(threading.current_thread() is threading.main_thread())
        return os_open(name, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", spy)
    app = ui_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_profiles(app, pilot)
        await fill(pilot, screen.editor.form, {"ProfileKey": "NEW-3"})
        await answer_path(app, pilot, "f6", path)
    assert writers == [False]
    assert "<ProfileKey>NEW-3</ProfileKey>" in path.read_text()
    assert path.stat().st_mode & 0o777 == 0o600


@pytest.mark.parametrize("suffix", [".xml", ".ndjson"])
async def test_a_profile_is_saved_and_loaded_back(ui_app, tmp_path, suffix):
    path = tmp_path / f"agency{suffix}"
    app = ui_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_profiles(app, pilot)
        await set_kind(app, pilot, "agency")
        await fill(
            pilot,
            screen.editor.form,
            {
                "ProfileKey": "FIRM-2",
                "Tin": "000000022",
                "Demographic.FirmName": "Two LLC",
                "Demographic.Status": "7040",
                "PrimaryAddress.City": "Reno",
            },
        )
        await pilot.press("f8")
        await settle(app, pilot)
        await fill(
            pilot,
            screen.editor.contacts.forms[0],
            {"ContactType": "Billing", "EmailAddress": "b@example.test"},
        )
        before = screen.editor.data()
        await answer_path(app, pilot, "f6", path)
        if suffix == ".xml":
            assert path.read_text().startswith('<?xml version="1.0" encoding="UTF-8"?>\n<Agency>')
            # A draft (the address lacks its required fields) is saved as it is.
            assert notes(app)[-1].endswith("as a draft: 3 problem(s) left"), notes(app)[-1]
        else:
            assert not path.exists()  # an invalid record makes no bulk line
            await fill(pilot, screen.editor.form, {"PrimaryAddress.City": ""})
            before = screen.editor.data()
            await answer_path(app, pilot, "f6", path)
            line = json.loads(path.read_text())
            assert line["data"]["agency"]["contacts"][0]["emailAddress"] == "b@example.test"
        await pilot.press("f3")  # new: the saved profile is not lost, so no question
        await settle(app, pilot)
        assert screen.editor.form.data() == {}
        await set_kind(app, pilot, "agent")
        await answer_path(app, pilot, "f7", path)
        assert screen.editor.kind == "agency"
        assert app.screen.query_one("#profile-kind", Select).value == "agency"
        assert screen.editor.data() == before


async def test_a_profile_is_saved_only_under_a_name_that_says_its_format(
    ui_app, tmp_path, monkeypatch
):
    """Seen: F6 to ``a2.txt`` wrote a bulk NDJSON line and said "Saved to a2.txt"; and a
    name without a folder said nothing of where the file went."""
    monkeypatch.chdir(tmp_path)
    app = ui_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_profiles(app, pilot)
        await fill(pilot, screen.editor.form, {"ProfileKey": "K1", "Ssn": "000450001"})
        await answer_path(app, pilot, "f6", tmp_path / "a2.txt")
        assert not (tmp_path / "a2.txt").exists()
        assert notes(app)[-1] == (
            f"Cannot use {tmp_path / 'a2.txt'}: a profile is saved as an .xml document or an "
            ".ndjson bulk import line"
        )
        await answer_path(app, pilot, "f6", Path("k1.xml"))
        assert notes(app)[-1] == f"Saved to {tmp_path / 'k1.xml'}"


async def test_the_name_suggested_for_a_profile_stays_in_the_folder(ui_app):
    # QA: ProfileKey "../../tmp/evil k" suggested "agent-../../tmp/evil k.xml".
    app = ui_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_profiles(app, pilot)
        await fill(pilot, screen.editor.form, {"ProfileKey": "../../tmp/evil k"})
        await pilot.press("f6")
        await pilot.pause()
        assert isinstance(app.screen, PathScreen)
        assert app.screen.query_one(Input).value == "agent-____tmp_evil_k.xml"


async def test_saving_over_a_file_asks_first_and_keeps_it_private(ui_app, tmp_path):
    """Seen: F6 onto an existing file replaced it without a word, and a saved profile (an
    SSN in it) was readable by every user (0644)."""
    path = tmp_path / "agent.xml"
    path.write_text("precious")
    app = ui_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_profiles(app, pilot)
        await fill(pilot, screen.editor.form, {"ProfileKey": "K1"})
        await answer_path(app, pilot, "f6", path, asked=True)
        await pilot.press("n")
        await settle(app, pilot)
        assert path.read_text() == "precious"
        await answer_path(app, pilot, "f6", path, asked=True)
        await pilot.press("y")
        await settle(app, pilot)
        assert path.read_text().startswith("<?xml")
        assert path.stat().st_mode & 0o777 == 0o600
        fresh = tmp_path / "new.xml"
        await answer_path(app, pilot, "f6", fresh)
        assert fresh.stat().st_mode & 0o777 == 0o600


async def test_unsaved_changes_are_not_discarded_without_asking(ui_app):
    app = ui_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_profiles(app, pilot)
        await fill(pilot, screen.editor.form, {"Demographic.FirstName": "Kim"})
        await pilot.press("f3")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("n")
        await settle(app, pilot)
        assert screen.editor.form.data() == {"Demographic": {"FirstName": "Kim"}}
        # Switching kind keeps each kind's draft.
        await set_kind(app, pilot, "agency")
        assert screen.editor.form.data() == {}
        await set_kind(app, pilot, "agent")
        assert screen.editor.form.data() == {"Demographic": {"FirstName": "Kim"}}


async def test_an_opened_agency_loses_the_contact_removed_and_keeps_the_rest(ui_app):
    agency = {
        "ProfileKey": "FIRM-7", "Tin": "000000077",
        "BusinessAddress": {"StreetAddress1": "7 Elm St", "City": "Reno", "State": "NV",
                            "Zip": "89501", "DynamicData": {"Floor": "3"}},
        "Contacts": [{"ContactType": "Billing", "EmailAddress": "b@example.test",
                      "ContactId": 11},
                     {"ContactType": "Compliance", "EmailAddress": "c@example.test",
                      "FirstName": "Cy"}],
        "Demographic": {"FirmName": "Seven LLC", "Status": 7040, "DbaName": "Seven"},
    }  # fmt: skip
    app = ui_app()
    async with app.run_test(size=SIZE) as pilot:
        assert (await (await app.client()).import_agency(agency)).Success
        screen = await open_profiles(app, pilot)
        await set_kind(app, pilot, "agency")
        await fill(pilot, screen.editor.form, {"ProfileKey": "FIRM-7"})
        await pilot.press("f2")
        await settle(app, pilot)
        assert AgencyRecord.model_validate(screen.editor.data()) == (
            AgencyRecord.model_validate(agency)
        )
        # Loaded contacts are closed, titled with who they are; F9 on a title removes it.
        items = list(screen.editor.contacts.query(Collapsible))
        assert [(str(c.title), c.collapsed) for c in items] == [
            ("Contact 1: Billing · b@example.test", True),
            ("Contact 2: Compliance · Cy · c@example.test", True),
        ]
        items[0].query_one(CollapsibleTitle).focus()
        await pilot.press("f9")
        await settle(app, pilot)
        await pilot.press("f5")
        await settle(app, pilot)
        assert "updated agency profile FIRM-7" in text_of(screen, "#profile-result")
        after = await stored(app, "agency", "FIRM-7")
        assert after.model_dump(mode="json", exclude_none=True) == {
            **agency,
            "Contacts": agency["Contacts"][1:],
        }


BAD_AGENT_XML = """<?xml version="1.0" encoding="UTF-8"?>
<Agent>
  <ProfileKey>K1</ProfileKey><Ssn>000450001</Ssn><Bogus>1</Bogus>
  <BusinessAddress><AddressId>abc</AddressId><StreetAddress1>1 Main St</StreetAddress1>
    <City>Austin</City><State>TX</State><Zip>73301</Zip><Floor>3</Floor></BusinessAddress>
  <Demographic><EmpStatus>soon</EmpStatus><FirstName>Kim</FirstName>
    <LastName>Lee</LastName></Demographic>
</Agent>"""


async def test_a_loaded_profile_shows_its_errors_and_what_it_left_out(ui_app, tmp_path):
    """Seen: F7 said "Loaded" and marked nothing until F5, a collapsed section holding an
    error said nothing on its title, and <Bogus> vanished without a word."""
    path = tmp_path / "agent.xml"
    path.write_text(BAD_AGENT_XML)
    app = ui_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_profiles(app, pilot)
        await answer_path(app, pilot, "f7", path)
        form = screen.editor.form
        assert error_text(form, "BusinessAddress.AddressId") == "✗ must be a whole number"
        assert app.focused is form.query_one("#" + widget_id("BusinessAddress.AddressId"))
        group = form.query_one("#" + widget_id("Demographic") + "-group", Collapsible)
        assert group.collapsed and "✗ 1 field to correct" in str(group.title)
        note = notes(app)[-1]
        assert "left out what is not a field of an agent profile: Bogus, BusinessAddress.Floor" in (
            note
        )
        assert note.endswith("Correct the fields marked ✗ before importing.")
        assert "Bogus" not in screen.editor.data()
        # Correcting the field clears the section's mark.
        await fill(pilot, form, {"Demographic.EmpStatus": "7040"})
        assert str(group.title) == "Demographic"


async def test_a_file_of_many_records_loads_its_first_and_says_so(ui_app, tmp_path):
    """Seen (QA): F7 on a bulk file loaded its first record and said only "Loaded"."""
    lines = [BulkItem.wrap(AgentRecord.model_validate(BULK_AGENT | {"ProfileKey": key}))
             for key in ("FIRST-1", "SECOND-2")]  # fmt: skip
    path = tmp_path / "agents.ndjson"
    path.write_text("".join(json.dumps(item.to_line()) + "\n" for item in lines))
    app = ui_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_profiles(app, pilot)
        await answer_path(app, pilot, "f7", path)
        assert screen.editor.data()["ProfileKey"] == "FIRST-1"
        note = shown(app)[-1]
        assert note.severity == "warning"
        assert note.message.startswith(
            f"Loaded the agent profile from {path}, its first record: the file holds more "
            "(the next on line 2), which the Bulk area imports"
        )


async def test_quitting_with_a_profile_neither_imported_nor_saved_asks_first(ui_app):
    app = ui_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_profiles(app, pilot)
        await fill(pilot, screen.editor.form, {"Demographic.FirstName": "Kim"})
        await quit_asks(app, pilot, "profile has changes neither imported nor saved")
        await pilot.press("y")
        await pilot.pause()
        assert not app.is_running


async def test_a_character_xml_cannot_carry_is_a_field_error_never_a_crash(ui_app, tmp_path):
    """Seen (QA): a ProfileKey holding \\x01 (pasted) warned on its field, and then F4,
    F5 or saving as .xml ended the app with a WireError traceback."""
    app = ui_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_profiles(app, pilot)
        await screen.show_profile("agent", {**DEMO_AGENT, "ProfileKey": "KEY\x01Z"})
        await settle(app, pilot)
        for key in ("f4", "f5"):
            await pilot.press(key)
            await settle(app, pilot)
            assert app.is_running and app.screen is screen
            assert "holds a character XML cannot carry" in error_text(
                screen.editor.form, "ProfileKey"
            )
        await answer_path(app, pilot, "f6", tmp_path / "p.xml")
        assert app.is_running and not (tmp_path / "p.xml").exists()
        assert "an .ndjson line can hold it" in notes(app)[-1]


async def test_a_contact_added_on_a_small_terminal_shows_the_field_it_focuses(ui_app):
    """QA at 80x24: F8 showed only "▼ Contact 1", its ContactType (focused) a row below
    the form's view, so what was typed went in unseen."""
    app = ui_app()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_profiles(app, pilot)
        assert app.focused.id == "profile-kind"
        await pilot.press("enter", "down", "enter")  # Agency
        await settle(app, pilot)
        await pilot.press("f8")
        await settle(app, pilot)
        field = screen.editor.contacts.forms[-1].query_one("#f-ContactType")
        assert app.focused is field
        await pilot.pause()
        assert field.region.height and app.screen.can_view_entire(field)
