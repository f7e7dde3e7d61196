"""The full registry record of one individual or firm (``GET /agent``, ``GET /agency``),
asked for with :class:`~tui_app.contract.search.FullRecordQuery`.

Apart from the search's hit lists: a start builds the search form, not the record, and
these dozen response models cost some 15 ms to build. Dates inside the national report are
MM/DD/YYYY strings; ``LastUpdated`` is ISO 8601.
"""

from __future__ import annotations

from tui_app.contract.base import ResponseModel
from tui_app.contract.search import TransactionTypeBlock


class ProducerBlock(ResponseModel):
    Npn: int | None = None
    EntityType: str | None = None
    """INDIVIDUAL or FIRM in the sandbox; any word (or none) from another service."""


class BiographicBlock(ResponseModel):
    """Individual: names, birth date and SSN. Firm: firm name, FEIN and domicile state.
    SSN, FEIN and DateOfBirth are personal data: screens mask them by default."""

    FirstName: str | None = None
    MiddleName: str | None = None
    LastName: str | None = None
    Suffix: str | None = None
    DateOfBirth: str | None = None
    Ssn: str | None = None
    FirmName: str | None = None
    Fein: str | None = None
    DomicileState: str | None = None


class Affiliation(ResponseModel):
    """An agency of an individual, or an individual of a firm."""

    Npn: int | None = None
    Name: str | None = None
    EntityType: str | None = None
    Role: str | None = None
    State: str | None = None
    StartDate: str | None = None


class Address(ResponseModel):
    Type: str | None = None
    """BUSINESS, MAILING or RESIDENCE in the sandbox."""
    Line1: str | None = None
    Line2: str | None = None
    City: str | None = None
    State: str | None = None
    Zip: str | None = None
    Country: str | None = None
    DateUpdated: str | None = None


class AddressInfoBlock(ResponseModel):
    Addresses: list[Address] = []


class LineOfAuthority(ResponseModel):
    Code: str | None = None
    Name: str | None = None
    Status: str | None = None
    """Active, Cancelled or Inactive."""
    StatusReason: str | None = None
    StatusDate: str | None = None


class Appointment(ResponseModel):
    CompanyName: str | None = None
    Fein: str | None = None
    NaicCode: str | None = None
    LineOfAuthority: str | None = None
    Status: str | None = None
    """Active or Terminated."""
    TerminationReason: str | None = None
    StatusDate: str | None = None
    RenewalDate: str | None = None


class RegulatoryAction(ResponseModel):
    Origin: str | None = None
    Reason: str | None = None
    Disposition: str | None = None
    DateOfAction: str | None = None
    EffectiveDate: str | None = None
    Penalty: str | None = None
    ReferenceNumber: str | None = None


class StateLicense(ResponseModel):
    """One state's license, with its lines of authority, appointments and actions."""

    State: str | None = None
    LicenseNumber: str | None = None
    LicenseClass: str | None = None
    Residency: str | None = None
    """R (resident) or NR (non-resident)."""
    Active: bool | None = None
    IssueDate: str | None = None
    ExpirationDate: str | None = None
    CeCompliance: str | None = None
    """EXEMPT, IN COMPLIANCE, N/A or NOT IN COMPLIANCE."""
    LinesOfAuthority: list[LineOfAuthority] = []
    Appointments: list[Appointment] = []
    RegulatoryActions: list[RegulatoryAction] = []


class LicenseDataBlock(ResponseModel):
    Licenses: list[StateLicense] = []


class FullInfo(ResponseModel):
    """The full registry record of one individual or firm."""

    TransactionType: TransactionTypeBlock | None = None
    Producer: ProducerBlock = ProducerBlock()
    Biographic: BiographicBlock | None = None
    Organization: list[Affiliation] = []
    LastUpdated: str | None = None
    AddressInfo: AddressInfoBlock | None = None
    LicenseData: LicenseDataBlock | None = None


class FullRecordResponse(ResponseModel):
    NiprFullInfo: FullInfo
