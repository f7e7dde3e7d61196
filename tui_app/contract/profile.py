"""Agent and agency profile records, for the single import (XML) and the bulk import (NDJSON).

One model per section. Python field names are the XML/schema spelling (``StreetAddress1``);
bulk NDJSON uses the camelCase spelling (``streetAddress1``), accepted on input and written
with ``model_dump(by_alias=True)``. The XML document differs from the bulk record in a few
places (spec, "Differences in the XML ... document"); validate an XML document with
``context={"format": "xml"}`` and those differences are applied.

Choices where the spec is open (documented in the README): ``Ssn`` and ``Tin`` are any
non-empty text, 9 digits expected (a warning otherwise, DOMAIN.md); date-time fields are ISO
8601 text in bulk records and any text in XML documents ("Dates in the XML are strings"),
kept as written so round trips lose nothing. Item 8 of issue 10, decided: agent
``PrimaryAddress`` is accepted in bulk and XML alike, with a warning; agent ``EmpStatus``
and agency ``Status`` each accept 7040 as a number or as text and are written in the
spec's type; bulk lines accept both spellings of keys (``profileKey`` and ``ProfileKey``)
and are written camelCase, XML documents PascalCase.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, ClassVar, Literal

from pydantic import AfterValidator, BeforeValidator, Field
from pydantic_core import PydanticCustomError

from tui_app.contract.base import (
    NINE_DIGITS,
    Choices,
    IsoDateTime,
    RecordModel,
    Required,
    ResponseModel,
    Shape,
    rule_error,
)
from tui_app.contract.jurisdictions import STATE_HABIT, ZIP_HABIT

Int64 = Annotated[int, Field(ge=-(2**63), le=2**63 - 1)]
Dynamic = dict[str, Any]
Opt = str | None

EMP_STATUS = {"7040": "Active", "7041": "InActive"}
"""Values of agent ``Demographic.EmpStatus`` (a string) and agency ``Demographic.Status``."""


def _as_text(value: Any) -> Any:
    # Item 8 of issue 10: agent EmpStatus and agency Status take the same values; each
    # accepts the number and its text, and is written in the type the spec gives it.
    return str(value) if isinstance(value, int) and not isinstance(value, bool) else value


TaxId = Annotated[Required, NINE_DIGITS, Shape("usually 9 digits")]
"""``Ssn`` / ``Tin``: the spec says only "string, required"; not 9 digits only warns."""


def _status_code(value: int) -> int:
    if str(value) not in EMP_STATUS:
        raise PydanticCustomError("status", "must be 7040 (Active) or 7041 (InActive)")
    return value


class Address(RecordModel):
    """Address model of agent and agency BusinessAddress, MailingAddress, ResidentAddress,
    PrimaryAddress."""

    DynamicData: Dynamic | None = None
    AddressId: Int64 | None = None
    City: Required
    ClientAddressId: Opt = None
    Country: Opt = None
    County: Opt = None
    FromDate: IsoDateTime | None = None
    State: Annotated[Required, STATE_HABIT]
    StreetAddress1: Required
    StreetAddress2: Opt = None
    ToDate: IsoDateTime | None = None
    Zip: Annotated[Required, ZIP_HABIT]


class AgentContact(RecordModel):
    DynamicData: Dynamic | None = None
    BusinessEmailAddress: Required
    AdditionalEmailAddress: Opt = None
    BusinessFaxNumber: Opt = None
    BusinessPhoneExtension: Opt = None
    BusinessPhoneNumber: Opt = None
    CellPhoneNumber: Opt = None
    HomeEmailAddress: Opt = None
    HomeFaxNumber: Opt = None
    HomePhoneNumber: Opt = None
    SuppressEmail: Opt = None

    xml_omits: ClassVar = frozenset({"DynamicData"})


class AgentEmployment(RecordModel):
    """The XML document carries only EmployerName, EmploymentId, HireDate,
    InvestmentRelated, JobTitle and SupervisorName."""

    DynamicData: Dynamic | None = None
    City: Required | None = None
    EmployerName: Required
    JobTitle: Required
    State: Annotated[Required, STATE_HABIT] | None = None
    StreetAddress1: Required | None = None
    Zip: Annotated[Required, ZIP_HABIT] | None = None
    HireDate: IsoDateTime
    EmploymentId: Int64 | None = None
    Country: Opt = None
    County: Opt = None
    InvestmentRelated: Opt = None
    StreetAddress2: Opt = None
    SupervisorName: Opt = None

    xml_omits: ClassVar = frozenset(
        {
            "DynamicData",
            "City",
            "State",
            "StreetAddress1",
            "Zip",
            "Country",
            "County",
            "StreetAddress2",
        }
    )
    bulk_only_required: ClassVar = frozenset({"City", "State", "StreetAddress1", "Zip"})


class AgentDemographic(RecordModel):
    """The XML document has no Country, HireDate or JobTitle."""

    DynamicData: Dynamic | None = None
    EmpStatus: Annotated[Literal["7040", "7041"], BeforeValidator(_as_text)]
    """7040 = Active, 7041 = InActive (sent as a string; the number is accepted too)."""
    FirstName: Required
    LastName: Required
    DateOfBirth: IsoDateTime | None = None
    HireDate: IsoDateTime | None = None
    NmlsRenewalDate: IsoDateTime | None = None
    TerminationDate: IsoDateTime | None = None
    AffiliatedWithBank: Opt = None
    Alias: Opt = None
    BackOfficeNrf: Opt = None
    BillingCode: Opt = None
    BranchLocation: Opt = None
    CityOfBirth: Opt = None
    CostCenter: Opt = None
    Country: Opt = None
    CountryOfBirth: Opt = None
    CrdNumber: Opt = None
    CustomField1: Opt = None
    CustomField2: Opt = None
    CustomField3: Opt = None
    CustomField4: Opt = None
    CustomField5: Opt = None
    CustomField6: Opt = None
    CustomField7: Opt = None
    CustomField8: Opt = None
    CustomField9: Opt = None
    CustomField10: Opt = None
    DeptNumber: Opt = None
    DriverLicenseNumber: Opt = None
    DriverLicenseState: Opt = None
    EmployerId: Opt = None
    EmployersFein: Opt = None
    Gender: Opt = None
    JobTitle: Opt = None
    MiddleInitial: Opt = None
    NiprNumber: Opt = None
    NmlsRegPriorFirmYn: Opt = None
    NmlsRenewalStatus: Opt = None
    ResidentState: Opt = None
    RfoCode: Opt = None
    Salutation: Opt = None
    StateOfBirth: Opt = None
    Suffix: Opt = None
    UsCitizen: Opt = None

    xml_omits: ClassVar = frozenset({"DynamicData", "Country", "HireDate", "JobTitle"})


class AgentHierarchy(RecordModel):
    DynamicData: Dynamic | None = None
    HierarchyCode: Opt = None
    Manager1: Opt = None
    Manager2: Opt = None
    Manager3: Opt = None
    Manager4: Opt = None
    Manager5: Opt = None
    Manager6: Opt = None
    Manager7: Opt = None
    Manager8: Opt = None
    Manager9: Opt = None
    Manager10: Opt = None
    Supervisor: Opt = None

    xml_omits: ClassVar = frozenset({"DynamicData"})


class AgentInformation(RecordModel):
    DynamicData: Dynamic | None = None
    IaBrochureSupplementDate: IsoDateTime | None = None
    IaBrochureSupplementRequired: Opt = None
    IaSupervisorName: Opt = None
    IaSupervisorPhoneNumber: Opt = None
    IaSupervisorTitle: Opt = None

    xml_omits: ClassVar = frozenset({"DynamicData"})


class AgencyContact(RecordModel):
    DynamicData: Dynamic | None = None
    ContactType: Required
    EmailAddress: Required
    ContactId: Int64 | None = None
    BusinessFaxNumber: Opt = None
    BusinessPhoneExtension: Opt = None
    BusinessPhoneNumber: Opt = None
    CellPhoneNumber: Opt = None
    ClientContactId: Opt = None
    FirstName: Opt = None
    LastName: Opt = None

    xml_omits: ClassVar = frozenset({"DynamicData"})


class AgencyDemographic(RecordModel):
    """The XML document has no EmailAddress."""

    DynamicData: Dynamic | None = None
    FirmName: Required
    Status: Annotated[Int64, AfterValidator(_status_code), Choices(tuple(EMP_STATUS.items()))]
    """7040 = Active, 7041 = InActive."""
    OrganizationType: Int64 | None = None
    OrganizationDate: IsoDateTime | None = None
    StartDate: IsoDateTime | None = None
    TerminationDate: IsoDateTime | None = None
    AffiliatedWithBank: Opt = None
    BusinessFax: Opt = None
    BusinessPhone: Opt = None
    CostCenter: Opt = None
    FirmBillingCode: Opt = None
    CustomField1: Opt = None
    CustomField2: Opt = None
    CustomField3: Opt = None
    DbaName: Opt = None
    DomicileCountry: Opt = None
    DomicileState: Opt = None
    EmailAddress: Opt = None
    FirmCrd: Opt = None
    FirmId: Opt = None
    IncorporationDate: Opt = None
    Nipr: Opt = None
    ParentFirmProfileKey: Opt = None
    Region: Opt = None
    WebAddress: Opt = None

    xml_omits: ClassVar = frozenset({"DynamicData", "EmailAddress"})


class _Profile(RecordModel):
    """Rules common to both records: in XML, DynamicData appears only in BusinessAddress."""

    kind: ClassVar[str]
    id_field: ClassVar[str]
    sections: ClassVar[tuple[str, ...]]
    if TYPE_CHECKING:  # each record's own field (pydantic must not see one here)
        ProfileKey: str

    @classmethod
    def xml_section_omits(cls, section: str, model: type[RecordModel]) -> frozenset[str]:
        """Fields of ``section`` (of type ``model``) that the XML document does not carry:
        the section type's own ``xml_omits`` and, since one Address model serves every
        address, DynamicData in any address but BusinessAddress."""
        if model is Address and section != "BusinessAddress":
            return model.xml_omits | {"DynamicData"}
        return model.xml_omits

    def enforce_format(self, xml: bool) -> None:
        super().enforce_format(xml)
        if xml:  # DynamicData only in BusinessAddress
            bad = [
                f"{name}.DynamicData"
                for name in self.sections
                if isinstance(found := getattr(self, name), Address)
                and found.DynamicData is not None
                and "DynamicData" in self.xml_section_omits(name, Address)
            ]
            if bad:
                raise rule_error(bad, "is not part of the XML document (only BusinessAddress)")

    @property
    def identity(self) -> tuple[str, str]:
        """The profile's identity: ProfileKey with Ssn (agent) or Tin (agency)."""
        return self.ProfileKey, getattr(self, self.id_field)


class AgentRecord(_Profile):
    """An agent profile (XML root ``Agent``; bulk ``data.agent``). Identity: ProfileKey + Ssn."""

    ProfileKey: Required
    Ssn: TaxId
    BusinessAddress: Address | None = None
    MailingAddress: Address | None = None
    ResidentAddress: Address | None = None
    PrimaryAddress: Address | None = None
    """Carried by the spec's sample bulk record, not listed by the agent schema: accepted
    in bulk and XML alike, with a warning."""
    Contact: AgentContact | None = None
    CurrentEmployment: AgentEmployment | None = None
    Demographic: AgentDemographic | None = None
    Hierarchy: AgentHierarchy | None = None
    Information: AgentInformation | None = None

    kind: ClassVar = "agent"
    id_field: ClassVar = "Ssn"

    @classmethod
    def habit_warnings(cls, data, context=None) -> list[tuple[str, str]]:
        if data.get("PrimaryAddress") is not None or data.get("primaryAddress") is not None:
            return [
                (
                    "PrimaryAddress",
                    "is not listed by the agent schema (only the spec's "
                    "sample record carries it); the service may ignore it",
                )
            ]
        return []

    sections: ClassVar = (
        "BusinessAddress", "MailingAddress", "ResidentAddress", "PrimaryAddress", "Contact",
        "CurrentEmployment", "Demographic", "Hierarchy", "Information",
    )  # fmt: skip


class AgencyRecord(_Profile):
    """An agency profile (XML root ``Agency``; bulk ``data.agency``). Identity: ProfileKey +
    Tin."""

    ProfileKey: Required
    Tin: TaxId
    BusinessAddress: Address | None = None
    MailingAddress: Address | None = None
    PrimaryAddress: Address | None = None
    Contacts: list[AgencyContact] | None = None
    Demographic: AgencyDemographic | None = None

    kind: ClassVar = "agency"
    id_field: ClassVar = "Tin"
    sections: ClassVar = (
        "BusinessAddress",
        "MailingAddress",
        "PrimaryAddress",
        "Contacts",
        "Demographic",
    )


PROFILE_ROOTS: dict[str, type[AgentRecord] | type[AgencyRecord]] = {
    "Agent": AgentRecord,
    "Agency": AgencyRecord,
}
"""XML root element name -> record model."""


class ImportResult(ResponseModel):
    """Body of a single import's 200 answer (XML root ``ImportResult``)."""

    Success: bool
    Validations: str | None = None
    """One line per failing field: ``path: message``."""
    Message: str | None = None
