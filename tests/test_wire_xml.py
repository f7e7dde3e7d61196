"""Model-directed XML: the written shape, round trips, and refusal of hostile documents."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Annotated, Any, ClassVar

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

import tui_app
from tui_app.contract.base import ContractModel, RecordModel, Required, text
from tui_app.contract.errors import field_errors
from tui_app.wire.errors import WireError
from tui_app.wire.xml import (
    REFUSED,
    dump_xml,
    dump_xml_dict,
    load_xml,
    load_xml_dict,
    readable_xml,
)


class Address(RecordModel):
    StreetAddress1: Required
    City: Annotated[str, text(50)] | None = None
    AddressId: int | None = None


class Contact(RecordModel):
    ContactType: Required
    EmailAddress: Annotated[str, text(100)] | None = None


class Profile(RecordModel):
    ProfileKey: Annotated[str, text(20, 1)]
    Status: int | None = None
    SuppressEmail: bool | None = None
    BusinessAddress: Address | None = None
    Contacts: list[Contact] | None = None
    loa: list[str] | None = None
    DynamicData: dict[str, Any] | None = None


class Order(ContractModel):
    clientOrderNum: Annotated[str, text(20, 1)]
    middleName: Annotated[str, text(30)] | None = None
    loa: list[str | None] | None = None


class XmlOnlyRules(RecordModel):
    """A record whose XML form leaves out one field and does not require another."""

    ProfileKey: Required
    HireDate: str | None = None
    JobTitle: str | None = None

    xml_omits: ClassVar = frozenset({"HireDate"})
    bulk_only_required: ClassVar = frozenset({"JobTitle"})


def sample() -> Profile:
    return Profile(
        ProfileKey="PK-1",
        Status=7040,
        SuppressEmail=False,
        BusinessAddress=Address(StreetAddress1="1 Main St", City="Springfield"),
        Contacts=[
            Contact(ContactType="Primary", EmailAddress="a@example.com"),
            Contact(ContactType="Billing"),
        ],
        loa=["Life", "Health"],
        DynamicData={"Region": "North", "Extra": {"Code": "7"}},
    )


# --- writing ---------------------------------------------------------------------------


def test_dump_writes_field_names_wrappers_and_singular_items() -> None:
    assert dump_xml(sample(), "Agent").decode() == (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        "<Agent><ProfileKey>PK-1</ProfileKey><Status>7040</Status>"
        "<SuppressEmail>false</SuppressEmail>"
        "<BusinessAddress><StreetAddress1>1 Main St</StreetAddress1><City>Springfield</City>"
        "</BusinessAddress>"
        "<Contacts><Contact><ContactType>Primary</ContactType>"
        "<EmailAddress>a@example.com</EmailAddress></Contact>"
        "<Contact><ContactType>Billing</ContactType></Contact></Contacts>"
        "<loa><item>Life</item><item>Health</item></loa>"
        "<DynamicData><Region>North</Region><Extra><Code>7</Code></Extra></DynamicData>"
        "</Agent>"
    )


def test_dump_escapes_markup_and_writes_empty_text_as_empty_element() -> None:
    order = Order(clientOrderNum="A1", middleName="", loa=["<&>", None])
    assert (
        dump_xml(order, "Order")
        .decode()
        .endswith(
            "<Order><clientOrderNum>A1</clientOrderNum><middleName/>"
            '<loa><item>&lt;&amp;&gt;</item><item nil="true"/></loa></Order>'
        )
    )


def test_dump_refuses_a_key_that_is_not_an_xml_name() -> None:
    profile = Profile(ProfileKey="PK", DynamicData={"two words": "x"})
    with pytest.raises(
        WireError,
        match=r"'two words' cannot be an XML element name \(at Agent/DynamicData/two words\)",
    ):
        dump_xml(profile, "Agent")


def test_dump_refuses_a_character_xml_cannot_carry() -> None:
    with pytest.raises(
        WireError, match=r"Order/clientOrderNum holds a character XML cannot carry: '\\x07'"
    ):
        dump_xml(Order(clientOrderNum="A\x07"), "Order")


def test_dump_xml_dict_writes_free_form_data_and_models() -> None:
    body = {"dataSets": [{"AgentAddressDataSet": {"City": "X"}}, Contact(ContactType="T")]}
    assert (
        dump_xml_dict("ExportResponse", body)
        .decode()
        .endswith(
            "<ExportResponse><dataSets>"
            "<dataSet><AgentAddressDataSet><City>X</City></AgentAddressDataSet></dataSet>"
            "<dataSet><ContactType>T</ContactType></dataSet>"
            "</dataSets></ExportResponse>"
        )
    )


# --- reading ---------------------------------------------------------------------------


def test_round_trip_of_the_sample() -> None:
    assert load_xml(dump_xml(sample(), "Agent"), Profile, "Agent") == sample()


def test_round_trip_keeps_empty_text_empty_lists_and_none_items() -> None:
    order = Order(clientOrderNum="A1", middleName="", loa=["", None, "x"])
    assert load_xml(dump_xml(order, "Order"), Order, "Order") == order
    profile = Profile(ProfileKey="PK", Contacts=[], loa=[], DynamicData={})
    assert load_xml(dump_xml(profile, "Agent"), Profile, "Agent") == profile


def test_carriage_returns_survive_the_round_trip() -> None:
    order = Order(clientOrderNum="A1", middleName="a\r\nb\rc")
    assert load_xml(dump_xml(order, "Order"), Order, "Order").middleName == "a\r\nb\rc"


def test_empty_element_reads_as_empty_text() -> None:
    order = load_xml(
        b"<Order><clientOrderNum>A1</clientOrderNum><middleName/></Order>", Order, "Order"
    )
    assert order.middleName == ""
    assert "middleName" in order.model_fields_set


def test_absent_element_leaves_the_field_unset() -> None:
    order = load_xml("<Order><clientOrderNum>A1</clientOrderNum></Order>", Order, "Order")
    assert order.model_fields_set == {"clientOrderNum"}


def test_scalars_are_coerced_from_text() -> None:
    doc = b"<Agent><ProfileKey>PK</ProfileKey><Status> 7041 </Status><SuppressEmail>true</SuppressEmail></Agent>"
    profile = load_xml(doc, Profile, "Agent")
    assert (profile.Status, profile.SuppressEmail) == (7041, True)


def test_list_items_may_have_any_name_and_whitespace_is_ignored() -> None:
    doc = """<?xml version="1.0"?>
    <Agent>
      <ProfileKey>PK</ProfileKey>
      <Contacts>
        <ContactItem><ContactType>A</ContactType></ContactItem>
        <whatever><ContactType>B</ContactType></whatever>
      </Contacts>
      <loa><string>Life</string></loa>
      <DynamicData>
      </DynamicData>
    </Agent>"""
    profile = load_xml(doc, Profile, "Agent")
    assert [c.ContactType for c in profile.Contacts] == ["A", "B"]
    assert profile.loa == ["Life"]
    assert profile.DynamicData == {}


def test_namespaces_are_ignored_and_nil_reads_as_none() -> None:
    doc = (
        '<Order xmlns="urn:example" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">'
        '<clientOrderNum>A1</clientOrderNum><middleName xsi:nil="true"/>'
        '<loa><string>x</string><string xsi:nil="true"/></loa></Order>'
    )
    order = load_xml(doc, Order, "Order")
    assert order.middleName is None
    assert order.loa == ["x", None]


def test_camel_case_alias_of_a_record_field_is_accepted() -> None:
    doc = b"<Agent><profileKey>PK</profileKey><businessAddress><streetAddress1>1 Main</streetAddress1></businessAddress></Agent>"
    profile = load_xml(doc, Profile, "Agent")
    assert profile.BusinessAddress == Address(StreetAddress1="1 Main")


def test_dict_field_reads_as_nested_dicts_of_text() -> None:
    doc = b"<Agent><ProfileKey>PK</ProfileKey><DynamicData><A>1</A><B><C>true</C><D/></B></DynamicData></Agent>"
    assert load_xml(doc, Profile, "Agent").DynamicData == {"A": "1", "B": {"C": "true", "D": ""}}


def test_any_of_several_roots_is_accepted() -> None:
    doc = b"<AgentProfile><ProfileKey>PK</ProfileKey></AgentProfile>"
    assert load_xml(doc, Profile, ["Agent", "AgentProfile"]).ProfileKey == "PK"


def test_wrong_root_says_what_was_expected_and_found() -> None:
    with pytest.raises(
        WireError, match=r"^expected the root element <Agent> or <AgentProfile>, found <Agency>$"
    ):
        load_xml(
            b"<Agency><ProfileKey>PK</ProfileKey></Agency>", Profile, ("Agent", "AgentProfile")
        )


def test_repeated_element_is_a_wire_error() -> None:
    doc = b"<Agent><ProfileKey>A</ProfileKey><ProfileKey>B</ProfileKey></Agent>"
    with pytest.raises(WireError, match=r"<ProfileKey> appears more than once in <Agent>"):
        load_xml(doc, Profile, "Agent")


def test_contract_errors_propagate_as_validation_errors() -> None:
    doc = b"<Agent><ProfileKey/><Status>many</Status><Nickname>x</Nickname><loa>Life</loa></Agent>"
    with pytest.raises(ValidationError) as info:
        load_xml(doc, Profile, "Agent")
    assert sorted(map(str, field_errors(info.value))) == [
        "Nickname: is not a field of this record",
        "ProfileKey: is required",
        "Status: must be a whole number",
        "loa: must be a list",
    ]


def test_nested_record_errors_carry_their_path() -> None:
    doc = b"<Agent><ProfileKey>PK</ProfileKey><Contacts><Contact><EmailAddress/></Contact></Contacts></Agent>"
    with pytest.raises(ValidationError) as info:
        load_xml(doc, Profile, "Agent")
    assert list(map(str, field_errors(info.value))) == ["Contacts[0].ContactType: is required"]


def test_records_are_validated_with_their_xml_rules() -> None:
    ok = load_xml(b"<Agent><ProfileKey>PK</ProfileKey></Agent>", XmlOnlyRules, "Agent")
    assert ok.JobTitle is None  # required in bulk only
    doc = b"<Agent><ProfileKey>PK</ProfileKey><HireDate>2024-01-01</HireDate></Agent>"
    with pytest.raises(ValidationError) as info:
        load_xml(doc, XmlOnlyRules, "Agent", context={"caller": "test"})
    assert list(map(str, field_errors(info.value))) == ["HireDate: is not part of the XML document"]


def test_load_xml_dict_gives_root_name_and_raw_values() -> None:
    doc = b"<ExportRequest><profileKey>PK</profileKey><dataSets><dataSet>Address</dataSet><dataSet>License</dataSet></dataSets><empty/></ExportRequest>"
    assert load_xml_dict(doc) == (
        "ExportRequest",
        {"profileKey": "PK", "dataSets": {"dataSet": ["Address", "License"]}, "empty": ""},
    )


# --- malformed and hostile documents ---------------------------------------------------

BILLION_LAUGHS = b"""<?xml version="1.0"?>
<!DOCTYPE lolz [
 <!ENTITY lol "lol">
 <!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
 <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
 <!ENTITY lol4 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
]>
<Agent><ProfileKey>&lol4;</ProfileKey></Agent>"""

EXTERNAL_ENTITY = b"""<?xml version="1.0"?>
<!DOCTYPE Agent [<!ENTITY x SYSTEM "file:///etc/passwd">]>
<Agent><ProfileKey>&x;</ProfileKey></Agent>"""

PLAIN_DOCTYPE = b"<!DOCTYPE Agent><Agent><ProfileKey>PK</ProfileKey></Agent>"

EXTERNAL_DTD = b"""<?xml version="1.0"?>
<!DOCTYPE Agent SYSTEM "http://example.invalid/agent.dtd">
<Agent><ProfileKey>PK</ProfileKey></Agent>"""

PARAMETER_ENTITY = b"""<?xml version="1.0"?>
<!DOCTYPE Agent [<!ENTITY % p SYSTEM "http://example.invalid/p.dtd"> %p;]>
<Agent><ProfileKey>PK</ProfileKey></Agent>"""

HOSTILE = [BILLION_LAUGHS, EXTERNAL_ENTITY, PLAIN_DOCTYPE, EXTERNAL_DTD, PARAMETER_ENTITY]


@pytest.mark.parametrize(
    "doc",
    HOSTILE,
    ids=["billion-laughs", "external-entity", "doctype", "external-dtd", "parameter-entity"],
)
def test_dtds_and_entities_are_refused(doc: bytes) -> None:
    with pytest.raises(WireError, match=f"^{REFUSED}$"):
        load_xml(doc, Profile, "Agent")
    with pytest.raises(WireError, match=f"^{REFUSED}$"):
        load_xml_dict(doc.decode())


@pytest.mark.parametrize(
    ("doc", "where"),
    [
        (b"<Agent><ProfileKey>PK</Agent>", "line 1, column 24: mismatched tag"),
        (
            b"<Agent>\n  <ProfileKey>&undeclared;</ProfileKey>\n</Agent>",
            "line 2, column 15: undefined entity",
        ),
        (b"", "line 1, column 1: no element found"),
        (  # Latin-1 with no declaration: the message says the file is not UTF-8
            b"<Agent>\xff</Agent>",
            "line 1, column 8: not well-formed (invalid token)"
            " (byte 0xff is not UTF-8: save the file as UTF-8)",
        ),
        (b"<Agent></A>\n\xff", "line 1, column 10: mismatched tag"),  # not UTF-8 elsewhere
    ],
)
def test_not_well_formed_xml_reports_line_and_column(doc: bytes, where: str) -> None:
    with pytest.raises(WireError) as info:
        load_xml(doc, Profile, "Agent")
    assert str(info.value) == f"not well-formed XML at {where}"


# --- property: anything the model holds comes back ---------------------------------------

_xml_text = st.text(
    st.one_of(
        st.sampled_from("\t\n\r"),
        st.characters(min_codepoint=0x20, codec="utf-8", exclude_characters="\ufffe\uffff"),
    ),
    max_size=20,
)
_required = _xml_text.filter(str.strip)
_names = st.from_regex(r"[A-Za-z_][A-Za-z0-9_.\-]{0,8}", fullmatch=True)
# A free-form object keeps nested objects of text (an empty one would read back as "").
_free_form = st.dictionaries(
    _names,
    st.recursive(
        _xml_text,
        lambda inner: st.dictionaries(_names, inner, min_size=1, max_size=3),
        max_leaves=6,
    ),
    max_size=4,
)


def _record(model: type[RecordModel], **fields: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    # Not st.builds: it would also fill the camelCase aliases from the model's signature.
    return st.fixed_dictionaries(fields).map(model.model_validate)


_profiles = _record(
    Profile,
    ProfileKey=_required.filter(lambda s: len(s) <= 20),
    Status=st.none() | st.integers(-(2**63), 2**63 - 1),
    SuppressEmail=st.none() | st.booleans(),
    BusinessAddress=st.none()
    | _record(
        Address,
        StreetAddress1=_required,
        City=st.none() | _xml_text.filter(lambda s: len(s) <= 50),
        AddressId=st.none() | st.integers(),
    ),
    Contacts=st.none()
    | st.lists(
        _record(Contact, ContactType=_required, EmailAddress=st.none() | _xml_text), max_size=3
    ),
    loa=st.none() | st.lists(_xml_text, max_size=4),
    DynamicData=st.none() | _free_form,
)


@given(_profiles)
def test_any_profile_survives_the_round_trip(profile: Profile) -> None:
    assert load_xml(dump_xml(profile, "Agent"), Profile, "Agent") == profile


# --- import cost -----------------------------------------------------------------------


def test_only_the_xml_module_imports_the_xml_parser_and_no_ui_is_imported() -> None:
    code = (
        "import sys, tui_app.wire, tui_app.wire.json, tui_app.wire.ndjson\n"
        "print('defusedxml' in sys.modules)\n"
        "import tui_app.wire.xml\n"
        "print('defusedxml' in sys.modules, 'textual' in sys.modules, 'rich' in sys.modules)\n"
    )
    root = Path(tui_app.__file__).parents[1]  # a fresh interpreter must find this checkout
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=root, capture_output=True, text=True, check=True
    )
    assert out.stdout.split("\n")[:2] == ["False", "True False False"]


def test_readable_xml_puts_one_element_a_line():
    assert readable_xml(b"<Agent><Name>Ada</Name><Zip>1</Zip></Agent>") == (
        "<Agent>\n  <Name>Ada</Name>\n  <Zip>1</Zip>\n</Agent>\n"
    )


def test_the_characters_refused_are_exactly_those_xml_1_0_cannot_carry():
    """XML_UNSAFE lists what XML 1.0's Char production leaves out (written so because the
    complement took 5 ms to compile at every start): the two agree on every code point."""
    from tui_app.contract.base import XML_UNSAFE

    def xml_char(c: int) -> bool:
        return c in (0x9, 0xA, 0xD) or 0x20 <= c <= 0xD7FF or 0xE000 <= c <= 0xFFFD or c >= 0x10000

    differ = [c for c in range(0x110000) if bool(XML_UNSAFE.match(chr(c))) == xml_char(c)]
    assert differ == []
