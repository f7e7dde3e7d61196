"""Validation errors as ``path: message``: the paths, the plain messages and ContractError.

What a user sees in a form, in a CLI report and in the sandbox's 400 body is produced by
:func:`tui_app.contract.errors.field_errors`; these tests pin its output on real contract
models.
"""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel, ValidationError

from tui_app.contract.bulk import BulkItem
from tui_app.contract.errors import ContractError, FieldError, field_errors, parse_validations
from tui_app.contract.order import Order
from tui_app.contract.profile import AgencyRecord, AgentRecord, ImportResult
from tui_app.contract.search import AgentSearch

GUID = "3f2504e0-4f89-11d3-9a0c-0305e82c3301"
TLQ = {
    "juris": "CA",
    "pType": "I",
    "fType": "A",
    "lType": "M",
    "clientOrderNum": "ORD1",
    "userId": "u1",
    "filingMode": "E",
}
DATA = {"firstName": "Ada", "lastName": "Lovelace", "taxId": "900000001"}
CONTACT = {"ContactType": "Primary", "EmailAddress": "office@example.test"}


def errors_of(model: type[BaseModel], data: Any, **kwargs: Any) -> list[FieldError]:
    with pytest.raises(ValidationError) as info:
        model.model_validate(data)
    return field_errors(info.value, **kwargs)


def lines(model: type[BaseModel], data: Any, **kwargs: Any) -> list[str]:
    return [str(e) for e in errors_of(model, data, **kwargs)]


# --- paths -------------------------------------------------------------------------------

PATHS = [
    (
        AgencyRecord,
        {"ProfileKey": "PK", "Tin": "900000002", "Contacts": [{"ContactType": "P"}]},
        "Contacts[0].EmailAddress: is required",
    ),
    (
        AgencyRecord,
        {
            "profileKey": "PK",
            "tin": "900000002",
            "contacts": [CONTACT, CONTACT, {"emailAddress": "e"}],
        },
        "Contacts[2].ContactType: is required",
    ),
    (
        Order,
        {"tlq": {**TLQ, "juris": "CAL"}, "data": DATA},
        "tlq.juris: must be exactly 2 characters, not 3",
    ),
    (Order, {"tlq": TLQ, "data": {**DATA, "loa": ["10", 11]}}, "data.loa[1]: must be text"),
    (
        Order,
        {"tlq": TLQ, "data": {**DATA, "mailingAddress": {"mailZip": 1}}},
        "data.mailingAddress.mailZip: must be text",
    ),
    (
        BulkItem,
        {
            "clientRefId": GUID,
            "data": {
                "agency": {
                    "profileKey": "PK",
                    "tin": "900000002",
                    "contacts": [{"emailAddress": "e"}],
                }
            },
        },
        "data.agency.Contacts[0].ContactType: is required",
    ),
    (
        AgentRecord,
        {
            "ProfileKey": "PK",
            "Ssn": "900000001",
            "Demographic": {"EmpStatus": "7040", "FirstName": "A"},
        },
        "Demographic.LastName: is required",
    ),
]


@pytest.mark.parametrize(("model", "data", "expected"), PATHS)
def test_paths_name_every_level_with_list_indexes(
    model: type[BaseModel], data: Any, expected: str
) -> None:
    assert lines(model, data) == [expected]


def test_error_for_a_whole_list_entry_ends_at_its_index() -> None:
    data = {"ProfileKey": "PK", "Tin": "900000002", "Contacts": [CONTACT, "x"]}
    assert lines(AgencyRecord, data) == ["Contacts[1]: must be an object"]


def test_prefix_goes_in_front_of_every_path() -> None:
    data = {"tlq": {**TLQ, "juris": "CAL"}, "data": {**DATA, "sponsoringCompany": "Acme"}}
    assert [e.path for e in errors_of(Order, data, prefix="line 3")] == [
        "line 3.tlq.juris",
        "line 3.data.feinNumber",
        "line 3.data.naicNum",
    ]
    assert [e.path for e in errors_of(AgentSearch, {"SearchType": "NPN"}, prefix="q")] == ["q.Npn"]


def test_every_failing_field_is_reported_in_order() -> None:
    data = {"tlq": {**TLQ, "juris": "C", "pType": "X"}, "data": {"lastName": "L", "taxId": "1"}}
    assert lines(Order, data) == [
        "tlq.juris: must be exactly 2 characters, not 1",
        "tlq.pType: must be one of I or A",
        "data.firstName: is required",
        "data.taxId: must be at least 9 characters, not 1",
    ]


# --- rule errors expand to one error per named field --------------------------------------

RULES = [
    (
        Order,
        {"tlq": TLQ, "data": {**DATA, "sponsoringCompany": "Acme"}},
        [
            ("data.feinNumber", "is required when sponsoringCompany is given"),
            ("data.naicNum", "is required when sponsoringCompany is given"),
        ],
    ),
    (
        AgentSearch,
        {"SearchType": "LICENSE"},
        [
            ("LicenseJurisdiction", "is required when SearchType is LICENSE"),
            ("LicenseNumber", "is required when SearchType is LICENSE"),
        ],
    ),
    (
        AgentRecord,
        {
            "ProfileKey": "PK",
            "Ssn": "900000001",
            "CurrentEmployment": {
                "EmployerName": "E",
                "JobTitle": "J",
                "HireDate": "2020-01-01T00:00:00",
            },
        },
        [
            ("CurrentEmployment.City", "is required"),
            ("CurrentEmployment.State", "is required"),
            ("CurrentEmployment.StreetAddress1", "is required"),
            ("CurrentEmployment.Zip", "is required"),
        ],
    ),
]


@pytest.mark.parametrize(("model", "data", "expected"), RULES)
def test_rule_error_becomes_one_error_per_named_field(
    model: type[BaseModel], data: Any, expected: list[tuple[str, str]]
) -> None:
    assert [(e.path, e.message) for e in errors_of(model, data)] == expected


def test_rule_error_in_a_list_entry_keeps_the_index() -> None:
    data = {
        "ProfileKey": "PK",
        "Tin": "900000002",
        "Contacts": [CONTACT, {**CONTACT, "DynamicData": {}}],
    }
    with pytest.raises(ValidationError) as info:
        AgencyRecord.model_validate(data, context={"format": "xml"})
    assert [str(e) for e in field_errors(info.value)] == [
        "Contacts[1].DynamicData: is not part of the XML document"
    ]


def test_rule_error_names_never_leak_the_raw_template() -> None:
    found = errors_of(Order, {"tlq": TLQ, "data": {**DATA, "sponsoringCompany": "Acme"}})
    assert all("{" not in e.message and "," not in e.path for e in found)


# --- plain messages for each kind of pydantic error ---------------------------------------

PLAIN = [
    ("missing", AgentSearch, {}, "SearchType: is required"),
    (
        "extra",
        AgentSearch,
        {"SearchType": "NPN", "Npn": 1, "Nick": "x"},
        "Nick: is not a field of this record",
    ),
    (
        "enum",
        AgentSearch,
        {"SearchType": "ZIP"},
        "SearchType: must be one of NAME, SSN, NPN or LICENSE",
    ),
    (
        "literal",
        Order,
        {"tlq": {**TLQ, "filingMode": "Q"}, "data": DATA},
        "tlq.filingMode: must be one of E or P",
    ),
    (
        "int parsing",
        AgentSearch,
        {"SearchType": "NPN", "Npn": "one"},
        "Npn: must be a whole number",
    ),
    (
        "int from float",
        AgentSearch,
        {"SearchType": "NPN", "Npn": 1.5},
        "Npn: must be a whole number",
    ),
    ("int type", AgentSearch, {"SearchType": "NPN", "Npn": [1]}, "Npn: must be a whole number"),
    (
        "at least",
        AgentSearch,
        {"SearchType": "NPN", "Npn": -(2**31) - 1},
        "Npn: must be at least -2147483648",
    ),
    (
        "at most",
        AgentSearch,
        {"SearchType": "NPN", "Npn": 2**31},
        "Npn: must be at most 2147483647",
    ),
    ("bool", ImportResult, {"Success": "perhaps"}, "Success: must be true or false"),
    (
        "string type",
        AgentSearch,
        {"SearchType": "NAME", "FirstName": 1, "LastName": "L"},
        "FirstName: must be text",
    ),
    ("model type", Order, {"tlq": TLQ, "data": 5}, "data: must be an object"),
    (
        "dict type",
        AgentRecord,
        {
            "ProfileKey": "PK",
            "Ssn": "900000001",
            "BusinessAddress": {
                "City": "C",
                "State": "S",
                "StreetAddress1": "1",
                "Zip": "1",
                "DynamicData": [],
            },
        },
        "BusinessAddress.DynamicData: must be an object",
    ),
    (
        "list type",
        AgencyRecord,
        {"ProfileKey": "PK", "Tin": "900000002", "Contacts": CONTACT},
        "Contacts: must be a list",
    ),
    (
        "custom",
        BulkItem,
        {"clientRefId": "nope", "data": {"agent": {"ProfileKey": "PK", "Ssn": "900000001"}}},
        "clientRefId: must be a GUID such as 3f2504e0-4f89-11d3-9a0c-0305e82c3301",
    ),
]


@pytest.mark.parametrize(("kind", "model", "data", "expected"), PLAIN, ids=[p[0] for p in PLAIN])
def test_plain_message_per_kind(
    kind: str, model: type[BaseModel], data: Any, expected: str
) -> None:
    assert lines(model, data) == [expected]


def test_no_message_is_pydantic_wording() -> None:
    for _, model, data, _ in PLAIN:
        for error in errors_of(model, data):
            assert not error.message.startswith("Input should"), error


# --- FieldError ---------------------------------------------------------------------------


def test_field_error_text_and_dict() -> None:
    error = FieldError("tlq.juris", "must be exactly 2 characters, not 3")
    assert str(error) == "tlq.juris: must be exactly 2 characters, not 3"
    assert error.as_dict() == {
        "path": "tlq.juris",
        "message": "must be exactly 2 characters, not 3",
    }


def test_field_error_without_a_path_is_its_message() -> None:
    with pytest.raises(ValidationError) as info:
        BulkItem.model_validate({"clientRefId": GUID, "data": {}})
    assert [str(e) for e in field_errors(info.value)] == [
        "data: must hold exactly one of agent or agency"
    ]
    assert str(FieldError("", "must hold exactly one of agent or agency")) == (
        "must hold exactly one of agent or agency"
    )


# --- ContractError -------------------------------------------------------------------------


def test_contract_error_lists_every_field_in_its_message() -> None:
    with pytest.raises(ValidationError) as info:
        Order.model_validate({"tlq": {**TLQ, "juris": "CAL"}, "data": {**DATA, "taxId": "12"}})
    error = ContractError.from_validation(info.value)
    assert str(error) == (
        "invalid request: tlq.juris: must be exactly 2 characters, not 3; "
        "data.taxId: must be at least 9 characters, not 2"
    )
    assert error.errors == field_errors(info.value)
    assert isinstance(error, ValueError)


def test_contract_error_names_what_was_invalid() -> None:
    with pytest.raises(ValidationError) as info:
        AgentSearch.model_validate({"SearchType": "SSN"})
    error = ContractError.from_validation(info.value, "agent search")
    assert str(error) == (
        "invalid agent search: LastName: is required when SearchType is SSN; "
        "Ssn: is required when SearchType is SSN"
    )
    assert [e.path for e in error.errors] == ["LastName", "Ssn"]


def test_contract_error_from_field_errors_directly() -> None:
    error = ContractError([FieldError("profileKey", "is required")], "export")
    assert str(error) == "invalid export: profileKey: is required"
    assert error.errors == [FieldError("profileKey", "is required")]


def test_validations_text_becomes_field_errors():
    errors = parse_validations(
        "Demographic.FirstName: is required\n\nsomething went wrong: "
        "badly\nContacts[0].EmailAddress: bounced: twice"
    )
    assert [(e.path, e.message) for e in errors] == [
        ("Demographic.FirstName", "is required"),
        ("", "something went wrong: badly"),
        ("Contacts[0].EmailAddress", "bounced: twice"),
    ]
