"""JSON bodies: spec field names out, nulls left out, plain errors for text that is not JSON."""

from __future__ import annotations

import json
from typing import Annotated, Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from tui_app.contract.base import ContractModel, RecordModel, Required, text
from tui_app.contract.errors import field_errors
from tui_app.wire.errors import WireError
from tui_app.wire.json import dump_json, load_json


class Address(RecordModel):
    StreetAddress1: Required
    City: Annotated[str, text(50)] | None = None


class Profile(RecordModel):
    ProfileKey: Annotated[str, text(20, 1)]
    Status: int | None = None
    BusinessAddress: Address | None = None
    loa: list[str] | None = None
    DynamicData: dict[str, Any] | None = None


class Search(ContractModel):
    SearchType: Annotated[str, text(10, 1)]
    Npn: int | None = None


def test_dump_uses_field_names_and_leaves_out_none() -> None:
    profile = Profile(ProfileKey="PK", BusinessAddress=Address(StreetAddress1="1 Main"), loa=[])
    assert (
        dump_json(profile)
        == b'{"ProfileKey":"PK","BusinessAddress":{"StreetAddress1":"1 Main"},"loa":[]}'
    )


def test_round_trip() -> None:
    profile = Profile(
        ProfileKey="PK",
        Status=7040,
        BusinessAddress=Address(StreetAddress1="1 Main", City="Zürich"),
        loa=["Life"],
        DynamicData={"a": [1, None, {"b": True}]},
    )
    assert load_json(dump_json(profile), Profile) == profile


@given(
    st.fixed_dictionaries(
        {
            "ProfileKey": st.text(min_size=1, max_size=20).filter(str.strip),
            "Status": st.none() | st.integers(),
            "loa": st.none() | st.lists(st.text()),
            "DynamicData": st.none()
            | st.dictionaries(st.text(), st.none() | st.text() | st.integers()),
        }
    ).map(Profile.model_validate)
)
def test_any_profile_survives_the_round_trip(profile: Profile) -> None:
    assert load_json(dump_json(profile), Profile) == profile


def test_camel_case_aliases_are_accepted_too() -> None:
    assert load_json(
        '{"profileKey": "PK", "businessAddress": {"streetAddress1": "x"}}', Profile
    ) == Profile(ProfileKey="PK", BusinessAddress=Address(StreetAddress1="x"))


@pytest.mark.parametrize(
    ("data", "position"),
    [
        (b'{"SearchType": "NPN",', "at line 1 column 21"),
        (b'{"SearchType":\n "NPN" "Npn"}', "at line 2 column 8"),
        (b"", "at line 1 column 0"),
        (b'{"SearchType": "\xff"}', "at line 1 column 17"),
    ],
)
def test_text_that_is_not_json_is_a_wire_error_with_its_position(
    data: bytes, position: str
) -> None:
    with pytest.raises(WireError) as info:
        load_json(data, Search)
    # The parser's own words vary between versions; the prefix and the position do not.
    assert str(info.value).startswith("not valid JSON: ")
    assert str(info.value).endswith(position)


def test_contract_errors_propagate_as_validation_errors() -> None:
    with pytest.raises(ValidationError) as info:
        load_json(json.dumps({"SearchType": "", "Npn": "many", "Other": 1}), Search)
    assert sorted(map(str, field_errors(info.value))) == [
        "Npn: must be a whole number",
        "Other: is not a field of this record",
        "SearchType: is required",
    ]


def test_json_that_is_not_an_object_is_a_validation_error() -> None:
    with pytest.raises(ValidationError) as info:
        load_json(b"[1, 2]", Search)
    assert list(map(str, field_errors(info.value))) == ["must be an object"]


def test_context_reaches_the_validators() -> None:
    class Contextual(ContractModel):
        x: int

        def model_post_init(self, context: Any) -> None:
            seen.append(context)

    seen: list[Any] = []
    load_json(b'{"x": 1}', Contextual, context={"format": "json"})
    assert seen == [{"format": "json"}]
