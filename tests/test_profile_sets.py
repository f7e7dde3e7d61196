"""Profiles as export data sets and back: the round trip loses nothing (property test), and
a rebuild names what does not fit."""

from __future__ import annotations

from datetime import UTC
from typing import Any, get_args, get_origin

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic.fields import FieldInfo

from tui_app.contract.errors import ContractError
from tui_app.contract.export import (
    AgencyExportRequest,
    AgentExportRequest,
    DataSet,
    ExportResponse,
)
from tui_app.contract.profile import AgentRecord, RecordModel
from tui_app.contract.profile_sets import (
    PROFILE_DATA_SETS,
    RECORD_MODELS,
    record_from_data_sets,
    record_from_dict,
    record_to_data_sets,
)
from tui_app.contract.record import FullInfo

XML = {"format": "xml"}

# --- strategies: records in the bulk form or the XML form, built from the models ---

words = st.text(st.characters(codec="utf-8"), min_size=1, max_size=8).filter(str.strip)
xml_words = st.text(
    st.characters(
        codec="utf-8", exclude_categories=("Cc", "Cs"), exclude_characters="\ufffe\uffff"
    ),
    min_size=1,
    max_size=8,
).filter(str.strip)
"""Text an XML document can carry (the contract refuses the rest in the XML form)."""
iso_times = st.datetimes(timezones=st.none() | st.just(UTC)).map(lambda d: d.isoformat())
json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3)
    ),
    max_leaves=6,
)


def _mentions(annotation: Any, wanted: type) -> bool:
    return annotation is wanted or any(_mentions(a, wanted) for a in get_args(annotation))


def _value(name: str, info: FieldInfo, xml: bool) -> st.SearchStrategy[Any]:
    if name == "DynamicData":
        return st.dictionaries(st.text(max_size=4), json_values, max_size=3)
    if name == "EmpStatus":
        return st.sampled_from(["7040", "7041"])
    if name == "Status":
        return st.sampled_from([7040, 7041])
    if "Date" in name:  # DateOfBirth, HireDate, FromDate, ...: ISO date-times
        return iso_times
    if _mentions(info.annotation, int):
        return st.integers(-(2**63), 2**63 - 1)
    return xml_words if xml else words


def section(cls: type[RecordModel], *, xml: bool, dynamic: bool = True) -> st.SearchStrategy:
    required, optional = {}, {}
    for name, info in cls.model_fields.items():
        if xml and name in cls.xml_omits or (name == "DynamicData" and not dynamic):
            continue
        needed = info.is_required() or (not xml and name in cls.bulk_only_required)
        if needed:
            required[name] = _value(name, info, xml)
        else:
            optional[name] = st.none() | _value(name, info, xml)
    return st.fixed_dictionaries(required, optional=optional)


def _section_cls(model: type, name: str) -> tuple[type[RecordModel], bool]:
    inner = next(a for a in get_args(model.model_fields[name].annotation) if a is not type(None))
    return (get_args(inner)[0], True) if get_origin(inner) is list else (inner, False)


@st.composite
def records(draw: st.DrawFn, kind: str) -> Any:
    model = RECORD_MODELS[kind]
    xml = draw(st.booleans())
    data: dict[str, Any] = {
        "ProfileKey": draw(xml_words if xml else words),
        model.id_field: draw(st.from_regex(r"[0-9]{9}", fullmatch=True)),
    }
    for name in model.sections:
        if xml and name in model.xml_omits or draw(st.booleans()):
            continue
        cls, many = _section_cls(model, name)
        # In the XML document, DynamicData appears only in BusinessAddress.
        one = section(cls, xml=xml, dynamic=not xml or name == "BusinessAddress")
        data[name] = draw(st.lists(one, min_size=1, max_size=3) if many else one)
    return model.model_validate(data, context=XML if xml else None)


def _through_json(sets: list[DataSet]) -> list[DataSet]:
    """The data sets as the client receives them."""
    body = ExportResponse(dataSets=sets).model_dump_json()
    return ExportResponse.model_validate_json(body).dataSets or []


@pytest.mark.parametrize("kind", ["agent", "agency"])
@settings(max_examples=150, deadline=None)
@given(data=st.data())
def test_a_profile_survives_export_and_rebuild(kind: str, data: st.DataObject):
    record = data.draw(records(kind))
    sets = record_to_data_sets(record, PROFILE_DATA_SETS[kind])
    rebuilt = record_from_data_sets(kind, _through_json(sets))
    assert rebuilt == record
    assert rebuilt.model_dump(exclude_none=True) == record.model_dump(exclude_none=True)


@pytest.mark.parametrize("kind", ["agent", "agency"])
@settings(max_examples=50, deadline=None)
@given(data=st.data())
def test_a_stored_profile_reads_back_as_it_was(kind: str, data: st.DataObject):
    record = data.draw(records(kind))
    assert record_from_dict(kind, record.model_dump(mode="json", exclude_none=True)) == record


# --- examples ---

AGENT = AgentRecord.model_validate(
    {
        "ProfileKey": "K1",
        "Ssn": "900112222",
        "Demographic": {"EmpStatus": "7040", "FirstName": "Ada", "LastName": "Lane"},
    }
)


def sets(**by_name: list[dict[str, Any]]) -> list[DataSet]:
    return [DataSet(dataSetType=f"Agent{n}DataSet", records=r) for n, r in by_name.items()]


def test_the_profile_data_sets_are_valid_export_names():
    AgentExportRequest(profileKey="K1", dataSets=list(PROFILE_DATA_SETS["agent"]))
    AgencyExportRequest(profileKey="F1", dataSets=list(PROFILE_DATA_SETS["agency"]))
    assert PROFILE_DATA_SETS["agency"] == ("Firm", "Address", "Contact", "Demographic")


def test_names_of_the_other_kind_are_refused():
    with pytest.raises(ValueError, match="not agent data sets: Firm"):
        record_to_data_sets(AGENT, ["Demographic", "Firm"])


def test_registry_data_sets_are_empty_without_a_registry_record_and_ignored_on_rebuild():
    info = FullInfo.model_validate(
        {"Producer": {"Npn": 1, "EntityType": "INDIVIDUAL"}, "Organization": [{"Npn": 2}]}
    )
    built = record_to_data_sets(AGENT, ["PersonalInfo", "Demographic", "Affiliation"], info)
    assert built[2].records == [{"Npn": 2}]
    assert record_to_data_sets(AGENT, ["Affiliation"])[0].records == []
    assert record_from_data_sets("agent", built) == AGENT


def test_sections_not_exported_stay_absent():
    rebuilt = record_from_data_sets(
        "agent", sets(PersonalInfo=[{"ProfileKey": "K1", "Ssn": "900112222"}])
    )
    assert rebuilt == AgentRecord(ProfileKey="K1", Ssn="900112222")


@pytest.mark.parametrize(
    ("given_sets", "paths"),
    [
        (sets(Demographic=[{"EmpStatus": "7040"}]), ["PersonalInfo"]),
        (sets(PersonalInfo=[], Contact=[]), ["PersonalInfo"]),
        (
            sets(
                PersonalInfo=[{"ProfileKey": "K1", "Ssn": "900112222"}],
                Address=[{"AddressType": "HomeAddress"}, {"City": "Waco"}],
                Contact=[{"BusinessEmailAddress": "a@x"}, {"BusinessEmailAddress": "b@x"}],
            ),
            ["Address.AddressType", "Address.AddressType", "Contact"],
        ),
        (
            sets(
                PersonalInfo=[{"ProfileKey": "K1", "Ssn": ""}],
                Demographic=[{"EmpStatus": "9", "FirstName": "A", "LastName": "B"}],
            ),
            ["Ssn", "Demographic.EmpStatus"],
        ),
    ],
)
def test_a_rebuild_names_each_data_set_or_field_that_does_not_fit(
    given_sets: list[DataSet], paths: list[str]
):
    with pytest.raises(ContractError) as caught:
        record_from_data_sets("agent", given_sets)
    assert [e.path for e in caught.value.errors] == paths


def test_an_address_type_given_twice_is_refused():
    address = {
        "AddressType": "MailingAddress",
        "StreetAddress1": "1 A St",
        "City": "C",
        "State": "TX",
        "Zip": "1",
    }
    given_sets = sets(
        PersonalInfo=[{"ProfileKey": "K1", "Ssn": "900112222"}], Address=[address, address]
    )
    with pytest.raises(ContractError, match="MailingAddress is not a new address"):
        record_from_data_sets("agent", given_sets)
