"""Sandbox profiles: import rules, create and update (merging sections), identity, export
joined with the registry."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tui_app.contract.errors import FieldError
from tui_app.contract.profile import AgencyRecord, AgentRecord
from tui_app.contract.record import FullInfo
from tui_app.sandbox.db import Database
from tui_app.sandbox.profiles import (
    DEMO_PROFILES,
    SCHEMA,
    AmbiguousProfile,
    ImportRules,
    Profiles,
    load_import_rules,
    validation_result,
)

SSN, OTHER_SSN, TIN = "900112222", "900113333", "987654321"
NPN = 1234567
ADDRESS = {"StreetAddress1": "1 Main St", "City": "Austin", "State": "TX", "Zip": "73301"}
DEMOGRAPHIC = {"EmpStatus": "7040", "FirstName": "Ada", "LastName": "Lane"}


def agent(ssn: str = SSN, key: str = "K1", **sections: Any) -> AgentRecord:
    return AgentRecord.model_validate({"ProfileKey": key, "Ssn": ssn, **sections})


def full_agent(ssn: str = SSN, **extra: Any) -> AgentRecord:
    return agent(ssn, **{"Demographic": DEMOGRAPHIC, "BusinessAddress": ADDRESS, **extra})


def agency(**sections: Any) -> AgencyRecord:
    return AgencyRecord.model_validate({"ProfileKey": "F1", "Tin": TIN, **sections})


def registry_record() -> FullInfo:
    return FullInfo.model_validate(
        {
            "Producer": {"Npn": NPN, "EntityType": "INDIVIDUAL"},
            "Organization": [{"Npn": 7654321, "Name": "Lane Agency", "Role": "Agent"}],
            "LicenseData": {
                "Licenses": [
                    {
                        "State": "TX",
                        "LicenseNumber": "TX-1",
                        "Active": True,
                        "LinesOfAuthority": [{"Code": "10", "Name": "Life"}],
                        "Appointments": [{"CompanyName": "Acme Life", "Status": "Active"}],
                    },
                    {
                        "State": "OK",
                        "LicenseNumber": "OK-9",
                        "Active": False,
                        "Appointments": [
                            {"CompanyName": "Acme Life", "Status": "Terminated"},
                            {"CompanyName": "Beta Mutual", "Status": "Active"},
                        ],
                    },
                ]
            },
        }
    )


@pytest.fixture
def db(tmp_path: Path) -> Database:
    return Database(tmp_path / "sandbox.db", schemas=(SCHEMA,))


@pytest.fixture
def looked_up() -> list[tuple[str, int]]:
    return []


@pytest.fixture
def profiles(db: Database, looked_up: list[tuple[str, int]]) -> Profiles:
    def lookup(kind: str, npn: int) -> FullInfo | None:
        looked_up.append((kind, npn))
        return registry_record() if npn == NPN else None

    return Profiles(db, load_import_rules(), lookup=lookup)


def write_rules(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "rules.toml"
    path.write_text(text)
    return path


# --- import rules ---


def test_the_shipped_rules_require_sections_of_new_records_only():
    rules = load_import_rules()
    assert rules.required("agent", new=True) == ("Demographic", "BusinessAddress")
    assert rules.required("agency", new=True) == ("Demographic",)
    assert rules.required("agent", new=False) == rules.required("agency", new=False) == ()


def test_a_rules_file_can_change_them_and_leave_kinds_out(tmp_path: Path):
    rules = load_import_rules(write_rules(tmp_path, '[agent]\nupdate = ["Contact"]\n'))
    assert rules == ImportRules(new={}, update={"agent": ("Contact",)})


@pytest.mark.parametrize(
    ("text", "complaint"),
    [
        ('[broker]\nnew = ["Demographic"]', "[broker] is not a profile kind"),
        ('[agent]\nold = ["Demographic"]', "agent.old is neither new nor update"),
        ('[agency]\nnew = ["Contact"]', "agency.new must list sections among"),
        ('[agent]\nnew = "Demographic"', "agent.new must list sections among"),
    ],
)
def test_a_bad_rules_file_is_refused_naming_the_entry(tmp_path: Path, text: str, complaint: str):
    with pytest.raises(ValueError, match=complaint.replace("[", r"\[").replace("]", r"\]")):
        load_import_rules(write_rules(tmp_path, text))


# --- import ---


def test_a_new_profile_is_created_and_can_be_read_back(profiles: Profiles):
    record = full_agent(Contact={"BusinessEmailAddress": "ada@example.com"})
    result = profiles.import_record(record)
    assert (result.Success, result.Message, result.Validations) == (
        True,
        "created agent profile K1",
        None,
    )
    assert profiles.get("agent", "K1") == record
    assert profiles.get("agent", "K1", SSN) == record
    assert profiles.get("agency", "K1") is None


def test_a_new_profile_without_its_required_sections_is_refused_and_not_stored(
    profiles: Profiles,
):
    result = profiles.import_record(agent(Contact={"BusinessEmailAddress": "a@example.com"}))
    assert result.Success is False
    assert result.Validations == (
        "Demographic: is required for a new agent profile\n"
        "BusinessAddress: is required for a new agent profile"
    )
    assert result.Message == "not imported: 2 problem(s), listed in Validations"
    assert profiles.get("agent", "K1") is None


def test_an_update_replaces_the_sections_it_carries_and_keeps_the_others(profiles: Profiles):
    profiles.import_record(full_agent(Contact={"BusinessEmailAddress": "old@example.com"}))
    moved = {**ADDRESS, "City": "Dallas"}
    result = profiles.import_record(agent(BusinessAddress=moved, Hierarchy={"HierarchyCode": "H1"}))
    assert (result.Success, result.Message) == (True, "updated agent profile K1")
    stored = profiles.get("agent", "K1")
    assert stored == full_agent(
        BusinessAddress=moved,
        Contact={"BusinessEmailAddress": "old@example.com"},
        Hierarchy={"HierarchyCode": "H1"},
    )


def test_a_replaced_section_is_replaced_whole_not_field_by_field(profiles: Profiles):
    profiles.import_record(full_agent(MailingAddress={**ADDRESS, "StreetAddress2": "Suite 4"}))
    profiles.import_record(agent(MailingAddress=ADDRESS))
    stored = profiles.get("agent", "K1")
    assert stored is not None and stored.MailingAddress is not None
    assert stored.MailingAddress.StreetAddress2 is None


def test_required_sections_for_new_and_update_come_from_the_rules(db: Database, tmp_path: Path):
    rules = load_import_rules(
        write_rules(tmp_path, '[agent]\nnew = []\nupdate = ["Contact", "Information"]\n')
    )
    profiles = Profiles(db, rules)
    assert profiles.import_record(agent()).Success  # nothing required for a new one
    refused = profiles.import_record(agent(Contact={"BusinessEmailAddress": "a@example.com"}))
    assert refused.Validations == "Information: is required to update an agent profile"
    assert profiles.get("agent", "K1") == agent()
    done = profiles.import_record(
        agent(Contact={"BusinessEmailAddress": "a@example.com"}, Information={})
    )
    assert done.Message == "updated agent profile K1"


def test_an_empty_contacts_list_does_not_satisfy_a_required_section(db: Database, tmp_path: Path):
    rules = load_import_rules(write_rules(tmp_path, '[agency]\nnew = ["Contacts"]\n'))
    result = Profiles(db, rules).import_record(agency(Contacts=[]))
    assert result.Validations == "Contacts: is required for a new agency profile"


def test_identity_is_the_profile_key_with_the_ssn(profiles: Profiles):
    profiles.import_record(full_agent())
    # Seen: the second import said only "created", and the export then asked for the Ssn,
    # which an export request cannot carry: both are now said as they are.
    assert profiles.import_record(full_agent(ssn=OTHER_SSN)).Message == (
        "created agent profile K1; another agent profile has this ProfileKey with another "
        "Ssn, and an export, which names the ProfileKey alone, cannot tell the two apart"
    )
    assert profiles.import_record(full_agent(ssn=OTHER_SSN)).Message == "updated agent profile K1"
    with pytest.raises(AmbiguousProfile) as ambiguous:
        profiles.get("agent", "K1")
    assert str(ambiguous.value) == (
        "several agent profiles have ProfileKey K1, each with its own Ssn; an export names "
        "the ProfileKey alone, so it cannot choose one"
    )
    other = profiles.get("agent", "K1", OTHER_SSN)
    assert other is not None and other.Ssn == OTHER_SSN
    assert profiles.get("agent", "K1", "900119999") is None


def test_an_agency_is_identified_by_key_and_tin(profiles: Profiles):
    record = agency(Demographic={"FirmName": "Lane Agency", "Status": 7040})
    assert profiles.import_record(record).Message == "created agency profile F1"
    assert profiles.get("agency", "F1", TIN) == record
    assert profiles.get("agency", "F1", "123456789") is None


def test_sections_imported_as_xml_and_as_bulk_can_live_in_one_profile(profiles: Profiles):
    xml_employment = {
        "EmployerName": "Acme",
        "JobTitle": "Agent",
        "HireDate": "2020-01-01T00:00:00",
    }
    from_xml = AgentRecord.model_validate(
        {
            "ProfileKey": "K1",
            "Ssn": SSN,
            "Demographic": DEMOGRAPHIC,
            "BusinessAddress": ADDRESS,
            "CurrentEmployment": xml_employment,
        },
        context={"format": "xml"},
    )
    assert profiles.import_record(from_xml).Success
    bulk_demographic = {**DEMOGRAPHIC, "Country": "US", "JobTitle": "Agent"}
    assert profiles.import_record(agent(Demographic=bulk_demographic)).Success
    stored = profiles.get("agent", "K1")
    assert stored is not None
    assert stored.CurrentEmployment == from_xml.CurrentEmployment
    assert stored.Demographic is not None and stored.Demographic.Country == "US"


def test_validation_result_lists_one_field_per_line():
    result = validation_result(
        [FieldError("Demographic.FirstName", "is required"), FieldError("Ssn", "must be 9 digits")]
    )
    assert result.Success is False
    assert result.Validations == "Demographic.FirstName: is required\nSsn: must be 9 digits"


# --- export ---


def export_records(profiles: Profiles, kind: str, key: str, names: list[str]) -> list[Any]:
    found = profiles.export(kind, key, names)
    assert found is not None and found.dataSets is not None
    return [(ds.dataSetType, ds.records) for ds in found.dataSets]


def test_export_gives_the_data_sets_asked_for_in_order(profiles: Profiles):
    profiles.import_record(
        full_agent(
            MailingAddress={**ADDRESS, "City": "Waco"},
            Contact={"BusinessEmailAddress": "ada@example.com"},
        )
    )
    assert export_records(
        profiles, "agent", "K1", ["Contact", "PersonalInfo", "Address", "Ce", "License"]
    ) == [
        ("AgentContactDataSet", [{"BusinessEmailAddress": "ada@example.com"}]),
        ("AgentPersonalInfoDataSet", [{"ProfileKey": "K1", "Ssn": SSN}]),
        (
            "AgentAddressDataSet",
            [
                {"AddressType": "BusinessAddress", **ADDRESS},
                {"AddressType": "MailingAddress", **ADDRESS, "City": "Waco"},
            ],
        ),
        ("AgentCeDataSet", []),
        ("AgentLicenseDataSet", []),  # no NPN in the profile: nothing to join
    ]


def test_export_joins_the_registry_record_by_the_profiles_npn(
    profiles: Profiles, looked_up: list[tuple[str, int]]
):
    profiles.import_record(full_agent(Demographic={**DEMOGRAPHIC, "NiprNumber": str(NPN)}))
    sets = dict(
        export_records(profiles, "agent", "K1", ["License", "Appointment", "Affiliation", "Agency"])
    )
    assert looked_up == [("agent", NPN)]
    assert sets["AgentLicenseDataSet"] == [
        {
            "State": "TX",
            "LicenseNumber": "TX-1",
            "Active": True,
            "LinesOfAuthority": [{"Code": "10", "Name": "Life"}],
            "RegulatoryActions": [],
        },
        {
            "State": "OK",
            "LicenseNumber": "OK-9",
            "Active": False,
            "LinesOfAuthority": [],
            "RegulatoryActions": [],
        },
    ]
    assert sets["AgentAppointmentDataSet"] == [
        {"State": "TX", "CompanyName": "Acme Life", "Status": "Active"},
        {"State": "OK", "CompanyName": "Acme Life", "Status": "Terminated"},
        {"State": "OK", "CompanyName": "Beta Mutual", "Status": "Active"},
    ]
    organization = [{"Npn": 7654321, "Name": "Lane Agency", "Role": "Agent"}]
    assert sets["AgentAffiliationDataSet"] == sets["AgentAgencyDataSet"] == organization


def test_an_agency_export_uses_the_firm_names_and_its_nipr_number(
    profiles: Profiles, looked_up: list[tuple[str, int]]
):
    contacts = [
        {"ContactType": "Main", "EmailAddress": "a@example.com"},
        {"ContactType": "Billing", "EmailAddress": "b@example.com"},
    ]
    demographic = {"FirmName": "Lane Agency", "Status": 7040, "Nipr": str(NPN)}
    profiles.import_record(
        agency(Demographic=demographic, Contacts=contacts, PrimaryAddress=ADDRESS)
    )
    sets = export_records(
        profiles, "agency", "F1", ["Firm", "Contact", "Address", "FirmAffiliations", "Officer"]
    )
    assert sets == [
        ("FirmFirmDataSet", [{"ProfileKey": "F1", "Tin": TIN}]),
        ("FirmContactDataSet", contacts),
        ("FirmAddressDataSet", [{"AddressType": "PrimaryAddress", **ADDRESS}]),
        ("FirmFirmAffiliationsDataSet", [{"Npn": 7654321, "Name": "Lane Agency", "Role": "Agent"}]),
        ("FirmOfficerDataSet", []),
    ]
    assert looked_up == [("agency", NPN)]


@pytest.mark.parametrize("npn", ["", "12ab", "0", "99999999999"])
def test_an_npn_that_is_not_one_is_not_looked_up(
    profiles: Profiles, looked_up: list[tuple[str, int]], npn: str
):
    profiles.import_record(full_agent(Demographic={**DEMOGRAPHIC, "NiprNumber": npn}))
    assert export_records(profiles, "agent", "K1", ["License"]) == [("AgentLicenseDataSet", [])]
    assert looked_up == []


def test_exporting_an_unknown_or_ambiguous_profile(profiles: Profiles):
    assert profiles.export("agent", "K1", ["PersonalInfo"]) is None
    profiles.import_record(full_agent())
    profiles.import_record(full_agent(ssn=OTHER_SSN))
    with pytest.raises(AmbiguousProfile):
        profiles.export("agent", "K1", ["PersonalInfo"])
    found = profiles.export("agent", "K1", ["PersonalInfo"], OTHER_SSN)
    assert found is not None and found.dataSets is not None
    assert found.dataSets[0].records == [{"ProfileKey": "K1", "Ssn": OTHER_SSN}]


def test_profiles_survive_a_restart(tmp_path: Path, profiles: Profiles):
    profiles.import_record(full_agent())
    again = Profiles(Database(tmp_path / "sandbox.db", schemas=(SCHEMA,)), load_import_rules())
    assert again.get("agent", "K1") == full_agent()


def test_a_started_sandbox_has_the_demo_profiles_the_readme_names(tmp_path: Path):
    """AQS-1 and SRP-1, the carrier's profiles of the demo individual and firm, export
    with their registry data at once; a demo profile the user changed keeps the change
    when the sandbox starts again."""
    from tui_app.sandbox.app import Sandbox, SandboxSettings

    settings = SandboxSettings(db_path=tmp_path / "demo.db", seed=1, size=50)
    sandbox = Sandbox(settings)
    sandbox.start(bulk_worker=False)
    agent_sets = sandbox.profiles.export("agent", "AQS-1", ["Demographic", "License"])
    agency_sets = sandbox.profiles.export("agency", "SRP-1", ["Demographic"])
    assert agent_sets is not None and agency_sets is not None
    shown = agent_sets.model_dump_json()
    assert "Avery" in shown and "19000001" in shown and "0H19001" in shown  # a CA license
    assert "Sample Risk Partners LLC" in agency_sets.model_dump_json()
    changed = DEMO_PROFILES[0].model_copy(
        update={"Demographic": DEMO_PROFILES[0].Demographic.model_copy(update={"FirstName": "Ava"})}
    )
    assert sandbox.profiles.import_record(changed).Success
    sandbox.stop()
    again = Sandbox(settings)
    again.start(bulk_worker=False)
    found = again.profiles.get("agent", "AQS-1")
    again.stop()
    assert found is not None and found.Demographic.FirstName == "Ava"
