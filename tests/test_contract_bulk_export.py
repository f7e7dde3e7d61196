"""Bulk envelope and status, and export requests, against the spec.

Bulk: "Each line ... ``clientRefId`` (GUID string, mandatory) and ``data`` (object holding
exactly one member, either ``agent`` or ``agency``)", and the counting rules of the status.
Export: the data set names, derived here from the spec's literal response type names so
that the test does not lean on the model's own constants.
"""

from __future__ import annotations

import json
import uuid
from typing import Any

import pytest
from pydantic import BaseModel, ValidationError

from tui_app.contract.base import warnings
from tui_app.contract.bulk import BulkData, BulkItem, BulkStatus, RequestItem, overall_status
from tui_app.contract.errors import field_errors
from tui_app.contract.export import (
    AGENCY_DATA_SETS,
    AGENT_DATA_SETS,
    AgencyExportRequest,
    AgentExportRequest,
    DataSet,
    ExportResponse,
)
from tui_app.contract.profile import AgencyRecord, AgentRecord

# --- helpers ---------------------------------------------------------------------------


def problems(model: type[BaseModel], data: Any) -> list[tuple[str, str]]:
    """Every ``(path, message)`` the model reports for ``data``; empty when accepted."""
    try:
        model.model_validate(data)
    except ValidationError as exc:
        return [(e.path, e.message) for e in field_errors(exc)]
    return []


def accepted(model: type[BaseModel], data: Any) -> Any:
    assert problems(model, data) == []
    return model.model_validate(data)


def refused(model: type[BaseModel], data: Any, path: str, message: str) -> None:
    assert problems(model, data) == [(path, message)]


GUID = "3f2504e0-4f89-11d3-9a0c-0305e82c3301"
GUID_MESSAGE = "must be a GUID such as 3f2504e0-4f89-11d3-9a0c-0305e82c3301"
AGENT = {"profileKey": "PK-1", "ssn": "900000001"}
AGENCY = {"profileKey": "PK-2", "tin": "900000002"}


def line(ref: Any = GUID, **data: Any) -> dict[str, Any]:
    return {"clientRefId": ref, "data": data or {"agent": AGENT}}


# --- BulkItem: clientRefId -----------------------------------------------------------------


@pytest.mark.parametrize(
    "ref",
    [
        GUID,
        "00000000-0000-0000-0000-000000000000",
        "3F2504E0-4F89-11D3-9A0C-0305E82C3301",
        "3f2504e0-4F89-11d3-9A0C-0305e82c3301",
        "d06e0cd4-2248-46fd-81d0-5ecea22dd43b",
    ],
)
def test_guid_client_ref_id_is_accepted_as_written(ref: str) -> None:
    assert accepted(BulkItem, line(ref)).clientRefId == ref


def test_uuid_object_is_kept_as_its_text() -> None:
    assert accepted(BulkItem, line(uuid.UUID(GUID))).clientRefId == GUID


@pytest.mark.parametrize(
    "ref",
    [
        "not-a-guid",
        "",
        GUID[:-1],
        GUID + "0",
        GUID[:-1] + "g",
        "{3f2504e04f8911d39a0c0305e82c3301}--",
        " " + GUID[:-1],
    ],
)
def test_malformed_client_ref_id_is_refused(ref: str) -> None:
    refused(BulkItem, line(ref), "clientRefId", GUID_MESSAGE)


@pytest.mark.parametrize(
    "ref",
    [
        GUID.replace("-", ""),
        "{" + GUID + "}",
        "urn:uuid:" + GUID,
        GUID.upper(),
        "3f2504e04-f89-11d3-9a0c-0305e82c3301",  # hyphens in other places: still a GUID
    ],
)
def test_other_forms_of_a_guid_are_kept_as_written(ref: str) -> None:
    # Issue 10, item 5: the spec says "GUID string", not which of its forms. Only the
    # forms other than the hyphenated 36 characters warn.
    assert accepted(BulkItem, line(ref)).clientRefId == ref
    hyphenated = len(ref) == 36 and ref.count("-") == 4 and ref[8] == "-"
    expected = [] if hyphenated else [("clientRefId", warnings(BulkItem, line(ref))[0][1])]
    assert warnings(BulkItem, line(ref)) == expected
    if not hyphenated:
        assert "not in its hyphenated 36-character form" in expected[0][1]


def test_client_ref_id_is_mandatory() -> None:
    refused(BulkItem, {"data": {"agent": AGENT}}, "clientRefId", "is required")
    refused(BulkItem, line(None), "clientRefId", "must be text")
    refused(BulkItem, line(12), "clientRefId", "must be text")


# --- BulkItem: data holds exactly one of agent or agency ----------------------------------

ONE_OF = "must hold exactly one of agent or agency"


@pytest.mark.parametrize(
    ("data", "kind", "record_type"),
    [
        ({"agent": AGENT}, "agent", AgentRecord),
        ({"agency": AGENCY}, "agency", AgencyRecord),
        ({"agent": AGENT, "agency": None}, "agent", AgentRecord),
    ],
)
def test_data_with_one_record_is_accepted(data: dict, kind: str, record_type: type) -> None:
    item = accepted(BulkItem, {"clientRefId": GUID, "data": data})
    assert isinstance(item.data.record, record_type)
    assert item.data.record.kind == kind


@pytest.mark.parametrize(
    "data", [{}, {"agent": AGENT, "agency": AGENCY}, {"agent": None, "agency": None}]
)
def test_data_with_both_or_neither_is_refused(data: dict) -> None:
    refused(BulkItem, {"clientRefId": GUID, "data": data}, "data", ONE_OF)
    refused(BulkData, data, "", ONE_OF)


def test_data_is_mandatory_and_holds_nothing_else() -> None:
    refused(BulkItem, {"clientRefId": GUID}, "data", "is required")
    refused(
        BulkItem, line(agent=AGENT, profile=AGENT), "data.profile", "is not a field of this record"
    )
    refused(BulkItem, {**line(), "extra": 1}, "extra", "is not a field of this record")


def test_record_errors_are_reported_under_data() -> None:
    refused(BulkItem, line(agent={**AGENT, "ssn": ""}), "data.agent.Ssn", "is required")
    contacts = [{"contactType": "Primary"}]
    refused(
        BulkItem,
        line(agency={**AGENCY, "contacts": contacts}),
        "data.agency.Contacts[0].EmailAddress",
        "is required",
    )


# --- wrap and to_line ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("record", "kind"),
    [(AgentRecord(**AGENT), "agent"), (AgencyRecord.model_validate(AGENCY), "agency")],
)
def test_wrap_puts_a_record_in_an_envelope_with_a_new_guid(record: Any, kind: str) -> None:
    item = BulkItem.wrap(record)
    assert str(uuid.UUID(item.clientRefId)) == item.clientRefId
    assert uuid.UUID(item.clientRefId).version == 4
    assert getattr(item.data, kind) is record
    assert item.data.record is record
    assert BulkItem.wrap(record).clientRefId != item.clientRefId
    assert accepted(BulkItem, item.to_line()) == item


def test_wrap_keeps_a_given_client_ref_id() -> None:
    item = BulkItem.wrap(AgentRecord.model_validate(AGENT), GUID)
    assert item.clientRefId == GUID


def test_to_line_is_camel_case_without_nulls() -> None:
    record = AgentRecord.model_validate(
        {
            **AGENT,
            "BusinessAddress": {
                "City": "Springfield",
                "State": "IL",
                "StreetAddress1": "1 Main",
                "Zip": "62701",
            },
            "Demographic": {
                "EmpStatus": "7041",
                "FirstName": "Ada",
                "LastName": "Lovelace",
                "Alias": None,
            },
        }
    )
    assert BulkItem.wrap(record, GUID).to_line() == {
        "clientRefId": GUID,
        "data": {
            "agent": {
                "profileKey": "PK-1",
                "ssn": "900000001",
                "businessAddress": {
                    "city": "Springfield",
                    "state": "IL",
                    "streetAddress1": "1 Main",
                    "zip": "62701",
                },
                "demographic": {"empStatus": "7041", "firstName": "Ada", "lastName": "Lovelace"},
            }
        },
    }


def test_to_line_of_an_agency_is_json_ready() -> None:
    record = AgencyRecord.model_validate(
        {
            **AGENCY,
            "demographic": {"firmName": "Acme", "status": 7040},
            "contacts": [{"contactType": "P", "emailAddress": "e@x.test"}],
        }
    )
    out = BulkItem.wrap(record, GUID).to_line()
    assert json.loads(json.dumps(out)) == out
    assert out["data"] == {
        "agency": {
            "profileKey": "PK-2",
            "tin": "900000002",
            "contacts": [{"contactType": "P", "emailAddress": "e@x.test"}],
            "demographic": {"firmName": "Acme", "status": 7040},
        }
    }


# --- BulkStatus: the counting rules, enforced once COMPLETE --------------------------------


def items(*statuses: str) -> list[dict[str, Any]]:
    return [
        {"clientRefId": str(uuid.UUID(int=n)), "status": s, "retryable": False, "errorMessage": []}
        for n, s in enumerate(statuses)
    ]


def status_body(
    processing: str | None,
    status: str | None,
    total: int,
    success: int,
    failures: int,
    entries: list,
) -> dict[str, Any]:
    return {
        "bulkRequestId": GUID,
        "processingStatus": processing,
        "operationDetails": {
            "status": status,
            "totalItems": total,
            "success": success,
            "failures": failures,
            "requestItems": entries,
        },
    }


CONSISTENT = [
    ("SUCCESS", 2, 2, 0, ("COMPLETED", "COMPLETED")),
    ("PARTIAL_SUCCESS", 3, 2, 1, ("COMPLETED", "FAILED", "COMPLETED")),
    ("FAILURE", 2, 0, 2, ("FAILED", "FAILED")),
    ("SUCCESS", 0, 0, 0, ()),
]


@pytest.mark.parametrize(("status", "total", "success", "failures", "entries"), CONSISTENT)
def test_complete_status_that_adds_up_is_accepted(
    status: str, total: int, success: int, failures: int, entries: tuple[str, ...]
) -> None:
    body = status_body("COMPLETE", status, total, success, failures, items(*entries))
    parsed = accepted(BulkStatus, body)
    assert parsed.complete
    assert parsed.operationDetails.status == overall_status(success, failures) == status


INCONSISTENT = [
    # (status, total, success, failures, entries, path, message)
    ("SUCCESS", 3, 2, 0, 3, "operationDetails.totalItems", "must equal success + failures"),
    ("PARTIAL_SUCCESS", 2, 2, 1, 2, "operationDetails.totalItems", "must equal success + failures"),
    ("SUCCESS", 2, 2, 0, 1, "operationDetails.requestItems", "must hold one entry per record"),
    ("SUCCESS", 2, 2, 0, 3, "operationDetails.requestItems", "must hold one entry per record"),
    ("SUCCESS", 2, 1, 1, 2, "operationDetails.status", "must be PARTIAL_SUCCESS for these counts"),
    ("PARTIAL_SUCCESS", 2, 2, 0, 2, "operationDetails.status", "must be SUCCESS for these counts"),
    ("PARTIAL_SUCCESS", 2, 0, 2, 2, "operationDetails.status", "must be FAILURE for these counts"),
    ("SUCCESS", 2, 0, 2, 2, "operationDetails.status", "must be FAILURE for these counts"),
    (None, 1, 1, 0, 1, "operationDetails.status", "must be SUCCESS for these counts"),
]


@pytest.mark.parametrize(
    ("status", "total", "success", "failures", "entries", "path", "message"), INCONSISTENT
)
def test_complete_status_that_does_not_add_up_is_read_and_its_problems_said(
    status: str | None,
    total: int,
    success: int,
    failures: int,
    entries: int,
    path: str,
    message: str,
) -> None:
    # Issue 10, item 3: counts that do not add up are shown, not refused.
    body = status_body(
        "COMPLETE", status, total, success, failures, items(*["COMPLETED"] * entries)
    )
    parsed = accepted(BulkStatus, body)
    assert parsed.complete
    counts_wrong = success + failures != total or entries != total or entries != success
    assert bool(parsed.problems()) == counts_wrong
    assert parsed.operationDetails.status == status


@pytest.mark.parametrize("processing", [None, "PENDING", "PROCESSING", "IN_PROGRESS"])
@pytest.mark.parametrize(
    ("status", "total", "success", "failures", "entries", "path", "message"), INCONSISTENT
)
def test_counting_rules_wait_for_complete(
    processing: str | None,
    status: str | None,
    total: int,
    success: int,
    failures: int,
    entries: int,
    path: str,
    message: str,
) -> None:
    body = status_body(processing, status, total, success, failures, items(*["PENDING"] * entries))
    assert not accepted(BulkStatus, body).complete


def test_complete_status_whose_records_disagree_with_the_counts_is_read_with_a_problem() -> None:
    body = status_body("COMPLETE", "SUCCESS", 2, 2, 0, items("COMPLETED", "FAILED"))
    assert problems(BulkStatus, body) == []
    assert BulkStatus.model_validate(body).problems() == [
        "1 records are COMPLETED and 1 FAILED, but the counts say 2 and 0"
    ]


@pytest.mark.parametrize("status", ["FAILURE", "FAILED", "ALL_FAILED", None, "Échec"])
def test_all_failed_request_is_readable_whatever_its_status_word(status: str | None) -> None:
    # Issue 10, item 3: every record failed; the overall word is the service's choice.
    body = status_body("COMPLETE", status, 2, 0, 2, items("FAILED", "FAILED"))
    parsed = accepted(BulkStatus, body)
    assert parsed.complete and parsed.problems() == []
    assert parsed.operationDetails.status == status
    assert [i.status for i in parsed.operationDetails.requestItems] == ["FAILED", "FAILED"]


@pytest.mark.parametrize("processing", ["COMPLETE", "complete", "COMPLETED", "FAILED", "DONE"])
def test_final_processing_words_mean_complete(processing: str) -> None:
    body = status_body(processing, "FAILURE", 1, 0, 1, items("FAILED"))
    assert accepted(BulkStatus, body).complete


def test_item_status_synonyms_are_normalised_and_unknown_words_kept() -> None:
    body = status_body(
        "IN_PROGRESS", None, 4, 0, 0, items("success", "Failure", "IN_PROGRESS", "QUEUED")
    )
    parsed = accepted(BulkStatus, body)
    assert not parsed.complete
    assert [i.status for i in parsed.operationDetails.requestItems] == [
        "COMPLETED",
        "FAILED",
        "IN_PROGRESS",
        "QUEUED",
    ]


def test_status_with_nulls_for_lists_and_a_lone_error_message_is_read() -> None:
    body = {
        "bulkRequestId": GUID,
        "processingStatus": "COMPLETE",
        "operationDetails": {
            "status": "FAILED",
            "totalItems": 1,
            "success": None,
            "failures": 1,
            "requestItems": [
                {
                    "clientRefId": GUID,
                    "status": "FAILED",
                    "retryable": None,
                    "errorMessage": "Ssn: is required",
                    "x-trace": "t1",
                }
            ],
        },
    }
    parsed = accepted(BulkStatus, body)
    item = parsed.operationDetails.requestItems[0]
    assert item.errorMessage == ["Ssn: is required"] and item.retryable is False
    assert item.model_extra == {"x-trace": "t1"}
    empty = {
        "bulkRequestId": GUID,
        "processingStatus": "IN_PROGRESS",
        "operationDetails": {"requestItems": None},
    }
    assert accepted(BulkStatus, empty).operationDetails.requestItems == []


def test_request_item_error_messages_may_hold_nulls() -> None:
    item = RequestItem.model_validate(
        {
            "clientRefId": GUID,
            "status": "FAILED",
            "retryable": True,
            "errorMessage": [None, "Ssn: is required"],
        }
    )
    assert item.errorMessage == [None, "Ssn: is required"]
    assert item.retryable is True


@pytest.mark.parametrize(
    ("success", "failures", "word"),
    [(1, 0, "SUCCESS"), (0, 0, "SUCCESS"), (1, 1, "PARTIAL_SUCCESS"), (0, 1, "FAILURE")],
)
def test_overall_status_word(success: int, failures: int, word: str) -> None:
    assert overall_status(success, failures) == word


# --- export: data set names from the spec ----------------------------------------------------

# Copied verbatim from the spec's "Agent data set types in the response".
SPEC_AGENT_TYPES = """AgentAddressDataSet, AgentAffiliationDataSet, AgentAgencyDataSet,
AgentAppointmentDataSet, AgentCeDataSet, AgentCommentsDataSet, AgentContactDataSet,
AgentContractingDataSet, AgentDemographicDataSet, AgentDesignationsDataSet,
AgentDisclosureDataSet, AgentDrpDataSet, AgentEducationDataSet, AgentEmploymentDataSet,
AgentErrorsAndOmissionsDataSet, AgentExamDataSet, AgentFingerprintDataSet, AgentIarCeDataSet,
AgentLicenseDataSet, AgentObaDataSet, AgentOfficeOfEmploymentDataSet, AgentPersonalInfoDataSet,
AgentRegCeDataSet, AgentRegistrationsDataSet, AgentPermissiveRegistrationsDataSet,
AgentRelationshipsDataSet"""
# Copied verbatim from the spec's "Valid agency data set names".
SPEC_AGENCY_NAMES = """Address, Appointment, CertificatesAndRecordsLocation, Contact,
Contracting, ContractingList, Deficiency, Demographic, ErrorsAndOmissions, Firm,
FirmAffiliations, License, Note, NyseBranch, OfficeArrangements, OfficeFinancialInterests,
Officer, OfficeSharing, OfficeType, OtherBusiness, OtherBusinessName, Registration,
Relationships"""


def _split(text: str) -> list[str]:
    return [part.strip() for part in text.replace("\n", " ").split(",")]


AGENT_TYPES = _split(SPEC_AGENT_TYPES)
AGENT_NAMES = [t.removeprefix("Agent").removesuffix("DataSet") for t in AGENT_TYPES]
AGENCY_NAMES = _split(SPEC_AGENCY_NAMES)
AGENCY_TYPES = [f"Firm{name}DataSet" for name in AGENCY_NAMES]


def test_spec_lists_were_read_whole() -> None:
    assert len(AGENT_NAMES) == len(set(AGENT_NAMES)) == 26
    assert len(AGENCY_NAMES) == len(set(AGENCY_NAMES)) == 23
    assert all(t.startswith("Agent") and t.endswith("DataSet") for t in AGENT_TYPES)


def test_model_names_are_exactly_the_spec_names() -> None:
    assert list(AGENT_DATA_SETS) == AGENT_NAMES
    assert list(AGENCY_DATA_SETS) == AGENCY_NAMES


@pytest.mark.parametrize("name", AGENT_NAMES)
def test_every_agent_data_set_name_is_accepted(name: str) -> None:
    request = accepted(AgentExportRequest, {"profileKey": "PK-1", "dataSets": [name]})
    assert request.dataSets == [name]


@pytest.mark.parametrize("name", AGENCY_NAMES)
def test_every_agency_data_set_name_is_accepted(name: str) -> None:
    request = accepted(AgencyExportRequest, {"profileKey": "PK-2", "dataSets": [name]})
    assert request.dataSets == [name]


def test_all_names_at_once_are_accepted() -> None:
    assert (
        accepted(AgentExportRequest, {"profileKey": "PK", "dataSets": AGENT_NAMES}).dataSets
        == AGENT_NAMES
    )
    assert (
        accepted(AgencyExportRequest, {"profileKey": "PK", "dataSets": AGENCY_NAMES}).dataSets
        == AGENCY_NAMES
    )


EXPORTS = [(AgentExportRequest, AGENT_NAMES), (AgencyExportRequest, AGENCY_NAMES)]


@pytest.mark.parametrize(("model", "valid"), EXPORTS)
@pytest.mark.parametrize("names", [["Bogus"], ["address"], ["Address", "Nope", "Zilch"], [""]])
def test_unknown_name_is_sent_as_typed_with_a_warning(
    model: type[BaseModel], valid: list[str], names: list[str]
) -> None:
    # Issue 10, item 4: the service decides which names it knows.
    data = {"profileKey": "PK", "dataSets": names}
    assert accepted(model, data).dataSets == names
    unknown = [f"dataSets[{i}]" for i, n in enumerate(names) if model.canonical(n) is None]
    assert [path for path, _ in warnings(model, data)] == unknown


@pytest.mark.parametrize(
    ("model", "prefix", "valid"),
    [(AgentExportRequest, "Agent", AGENT_NAMES), (AgencyExportRequest, "Firm", AGENCY_NAMES)],
)
def test_the_interfaces_type_names_are_accepted_without_warning(
    model: type[BaseModel], prefix: str, valid: list[str]
) -> None:
    names = [f"{prefix}{n}DataSet" for n in valid]
    data = {"profileKey": "PK", "dataSets": names}
    assert accepted(model, data).dataSets == names
    assert warnings(model, data) == []
    assert [model.canonical(n) for n in names] == list(valid)
    assert model.type_name("AgentAddressDataSet" if prefix == "Agent" else "FirmFirmDataSet") in (
        "AgentAddressDataSet",
        "FirmFirmDataSet",
    )


@pytest.mark.parametrize(
    ("model", "name"),
    [
        (AgentExportRequest, "Firm"),
        (AgentExportRequest, "Officer"),
        (AgencyExportRequest, "Ce"),
        (AgencyExportRequest, "Drp"),
    ],
)
def test_names_of_the_other_kind_warn(model: type[BaseModel], name: str) -> None:
    assert [p for p, _ in warnings(model, {"profileKey": "PK", "dataSets": [name]})] == [
        "dataSets[0]"
    ]


@pytest.mark.parametrize("model", [AgentExportRequest, AgencyExportRequest])
def test_export_request_fields_are_not_required_but_missing_ones_warn(
    model: type[BaseModel],
) -> None:
    # Issue 10, item 4: "Whether profileKey and dataSets are required: not shown."
    assert accepted(model, {}).dataSets is None
    assert [p for p, _ in warnings(model, {})] == ["profileKey", "dataSets"]
    assert [p for p, _ in warnings(model, {"profileKey": "PK", "dataSets": []})] == ["dataSets"]
    refused(model, {"profileKey": "PK", "dataSets": "Address"}, "dataSets", "must be a list")
    refused(
        model,
        {"profileKey": "PK", "dataSets": ["Address"], "x": 1},
        "x",
        "is not a field of this record",
    )


@pytest.mark.parametrize(("name", "type_name"), list(zip(AGENT_NAMES, AGENT_TYPES, strict=True)))
def test_agent_type_name_is_the_spec_type(name: str, type_name: str) -> None:
    assert AgentExportRequest.type_name(name) == type_name
    assert DataSet(dataSetType=type_name).name == name


@pytest.mark.parametrize(("name", "type_name"), list(zip(AGENCY_NAMES, AGENCY_TYPES, strict=True)))
def test_agency_type_name_is_firm_name_data_set(name: str, type_name: str) -> None:
    assert AgencyExportRequest.type_name(name) == type_name
    assert DataSet(dataSetType=type_name).name == name


@pytest.mark.parametrize(
    ("type_name", "name"),
    [
        ("FirmAddressDataSet", "Address"),
        ("FirmFirmDataSet", "Firm"),
        ("FirmFirmAffiliationsDataSet", "FirmAffiliations"),
        ("FirmRegistrationDataSet", "Registration"),
        ("AgentAgencyDataSet", "Agency"),
    ],
)
def test_spec_examples_of_type_names(type_name: str, name: str) -> None:
    assert DataSet(dataSetType=type_name).name == name


def test_export_response_reads_data_sets_or_null() -> None:
    body = {"dataSets": [{"dataSetType": "AgentLicenseDataSet", "records": [{"State": "CA"}]}]}
    response = ExportResponse.model_validate(body)
    assert [d.name for d in response.dataSets] == ["License"]
    assert response.dataSets[0].records == [{"State": "CA"}]
    assert ExportResponse.model_validate({"dataSets": None}).dataSets is None


def test_bulk_lines_accept_either_key_spelling_and_are_written_camel_case() -> None:
    # Issue 10, item 8, decided: both spellings are read; bulk is written camelCase.
    pascal = {
        "ProfileKey": "PK-1",
        "Ssn": "900000001",
        "Demographic": {"EmpStatus": 7040, "FirstName": "A", "LastName": "B"},
    }
    item = accepted(BulkItem, {"clientRefId": GUID, "data": {"agent": pascal}})
    line = item.to_line()["data"]["agent"]
    assert line["profileKey"] == "PK-1" and line["demographic"]["empStatus"] == "7040"
    agency = accepted(
        BulkItem,
        {
            "clientRefId": GUID,
            "data": {
                "agency": {
                    "profileKey": "F-1",
                    "tin": "900000002",
                    "demographic": {"firmName": "F", "status": "7041"},
                }
            },
        },
    )
    assert agency.to_line()["data"]["agency"]["demographic"]["status"] == 7041
