"""Producer database search: requests and hit lists (the full registry record a hit
opens is in :mod:`tui_app.contract.record`).

The spec leaves the inner fields of the responses open ("not shown"); the ones chosen here
mirror the national producer database report described in DOMAIN.md and are listed in the
README. Response models keep unknown fields, so a richer real server does not break us.
Dates inside the national report are MM/DD/YYYY strings; ``LastUpdated`` and transaction
dates are ISO 8601.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, ClassVar

from pydantic import model_validator

from tui_app.contract.base import (
    NINE_DIGITS,
    ContractModel,
    NpnNumber,
    ResponseModel,
    digits,
    enforce_rules,
    text,
)
from tui_app.contract.jurisdictions import JurisdictionText


class SearchKind(StrEnum):
    """Values of ``SearchType``: which other fields a search evaluates."""

    NAME = "NAME"
    SSN = "SSN"
    NPN = "NPN"
    LICENSE = "LICENSE"


class _Search(ContractModel):
    required_when: ClassVar[dict[SearchKind, tuple[str, ...]]] = {}
    """Per SearchType, the fields it requires (the spec's "required when" column)."""
    also_uses: ClassVar[dict[SearchKind, tuple[str, ...]]] = {}
    """Per SearchType, optional fields it evaluates besides ``CostCenter``."""
    kinds: ClassVar[tuple[SearchKind, ...]] = tuple(SearchKind)
    """The SearchTypes this search accepts."""

    @classmethod
    def fields_for(cls, kind: SearchKind) -> tuple[str, ...]:
        """The fields a search of this kind evaluates, required ones first."""
        return cls.required_when.get(kind, ()) + cls.also_uses.get(kind, ()) + ("CostCenter",)

    @classmethod
    def rule_errors(cls, data):
        kind = data.get("SearchType")
        kind = getattr(kind, "value", kind)
        return [
            (name, f"is required when SearchType is {kind}")
            for name in cls.required_when.get(kind, ())
            # Blank text names nobody: a search by "  " would return every producer.
            if data.get(name) is None or str(data.get(name)).strip() == ""
        ]

    @model_validator(mode="after")
    def _required_for_type(self):
        enforce_rules(self)
        return self


class AgentSearch(_Search):
    """Individual search request (XML root ``AgentSearch``)."""

    SearchType: SearchKind
    FirstName: Annotated[str, text(80)] | None = None
    MiddleName: Annotated[str, text(30)] | None = None
    LastName: Annotated[str, text(80)] | None = None
    Ssn: Annotated[str, digits(12), NINE_DIGITS] | None = None
    Npn: NpnNumber | None = None
    LicenseJurisdiction: JurisdictionText | None = None
    LicenseNumber: Annotated[str, text(30)] | None = None
    CostCenter: Annotated[str, text(50)] | None = None

    required_when: ClassVar = {
        SearchKind.NAME: ("FirstName", "LastName"),
        SearchKind.SSN: ("LastName", "Ssn"),
        SearchKind.NPN: ("Npn",),
        SearchKind.LICENSE: ("LicenseJurisdiction", "LicenseNumber"),
    }
    also_uses: ClassVar = {SearchKind.NAME: ("MiddleName",)}


FIRM_NPN_ADVICE = (
    "a firm search has no field for the NPN; read the firm by its NPN with GET /agency?Npn="
)
FIRM_SSN_ADVICE = "SearchType SSN of a firm carries the firm's tax id in FirmFein"


class AgencySearch(_Search):
    """Firm search request (XML root ``AgencySearch``). The spec's enum lists SSN and NPN
    but the request has no Ssn or Npn field (DOMAIN.md): SSN carries the tax id in
    ``FirmFein``; NPN is sent as asked, with a warning (the client's forms and CLI read a
    firm by NPN with ``GET /agency?Npn=`` instead)."""

    SearchType: SearchKind
    FirmName: Annotated[str, text(150)] | None = None
    FirmFein: (
        Annotated[str, text(12, pattern=r"[0-9\-]+", means="digits and hyphens only")] | None
    ) = None
    LicenseJurisdiction: JurisdictionText | None = None
    LicenseNumber: Annotated[str, text(30)] | None = None
    CostCenter: Annotated[str, text(50)] | None = None

    required_when: ClassVar = {
        SearchKind.NAME: ("FirmName", "FirmFein"),
        SearchKind.LICENSE: ("LicenseJurisdiction", "LicenseNumber"),
    }
    also_uses: ClassVar = {SearchKind.SSN: ("FirmFein",)}

    @classmethod
    def habit_warnings(cls, data, context=None) -> list[tuple[str, str]]:
        kind = data.get("SearchType")
        kind = getattr(kind, "value", kind)
        if kind == SearchKind.SSN and not str(data.get("FirmFein") or "").strip():
            return [("FirmFein", FIRM_SSN_ADVICE)]
        if kind == SearchKind.NPN:
            return [("SearchType", FIRM_NPN_ADVICE)]
        return []


class FullRecordQuery(ContractModel):
    """Query of ``GET /agent`` and ``GET /agency``."""

    Npn: NpnNumber
    CostCenter: Annotated[str, text(50)] | None = None


# --- responses -------------------------------------------------------------------------


class TransactionTypeBlock(ResponseModel):
    Type: str | None = None
    """What was asked: ``PDB Search`` or ``Entity Info``."""
    Date: str | None = None
    """When the registry answered (ISO 8601)."""
    CostCenter: str | None = None


class IndividualSummary(ResponseModel):
    """One hit of an individual search. Only the last four SSN digits are ever sent."""

    Npn: int | None = None
    FirstName: str | None = None
    MiddleName: str | None = None
    LastName: str | None = None
    SsnLast4: str | None = None
    ResidentState: str | None = None
    LicenseStates: list[str] = []


class FirmSummary(ResponseModel):
    """One hit of a firm search. Only the last four FEIN digits are ever sent."""

    Npn: int | None = None
    FirmName: str | None = None
    FeinLast4: str | None = None
    ResidentState: str | None = None
    LicenseStates: list[str] = []


class EntityBlock(ResponseModel):
    """About the search itself: how it was evaluated and how many hits it found."""

    SearchType: str | None = None
    ResultCount: int = 0
    Truncated: bool = False
    Message: str | None = None


class AdditionalInfoBlock(ResponseModel):
    TransactionType: TransactionTypeBlock | None = None
    Entity: EntityBlock | None = None


class IndividualsSummaryBlock(ResponseModel):
    TransactionType: TransactionTypeBlock | None = None
    Individuals: list[IndividualSummary] = []


class FirmsSummaryBlock(ResponseModel):
    TransactionType: TransactionTypeBlock | None = None
    Firms: list[FirmSummary] = []


class AgentSearchResponse(ResponseModel):
    IndividualsSummaryInfo: IndividualsSummaryBlock
    AdditionalInfo: AdditionalInfoBlock | None = None


class AgencySearchResponse(ResponseModel):
    NiprFirmsSummaryInfo: FirmsSummaryBlock
    AdditionalInfo: AdditionalInfoBlock | None = None
